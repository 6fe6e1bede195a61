"""Report: the scenario's results, its published releases, an offline HTML report and a reproducing script."""
import streamlit as st

from dppca_core import figures, metrics

from ui import compute, data, report, scenario, show
from ui.errors import boundary
from ui.shell import ensure_navigation
from ui.text import md_escape

ensure_navigation()

st.title("Report")
vals = scenario.values()

with boundary("the report"):
    ds = data.load_dataset(vals)
    prep = data.prepare(ds, vals)
    k = int(vals["k"])
    if not 1 <= k < ds.d:
        raise ValueError(f"k = {k} components for d = {ds.d} features: choose k between 1 and {ds.d - 1}.")
    results, problems = compute.run_selected(ds, prep, vals)
    for mech, message in problems.items():
        st.warning(f"{md_escape(mech)}: {md_escape(message)}")
    if not results:
        raise ValueError("no mechanism could run with these settings; pick mechanisms in the sidebar.")
    ref = prep.reference[:, :k]
    table = report.results_table(results)
    st.subheader("Guarantees")
    for mech, res in results.items():
        st.markdown(f"- **{md_escape(mech)}**: {res.guarantee_text}")
    st.subheader("Diagnostics (not private, for exploration)")
    st.dataframe(table, hide_index=True, width="stretch")
    figs = [figures.quantile_dotplot({m: r.distance for m, r in results.items()}, compute.METRICS["subspace_distance"],
                                     reference=metrics.random_subspace_distance(ds.d, k)),
            figures.loadings_compare(ref, {m: metrics.align_components(r.components[0], ref) for m, r in results.items()},
                                     ds.columns),
            figures.scree(prep.eigenvalues, k)]
    last = st.session_state.get("last_sweep")
    tables = {"Diagnostics: mean [2.5%, 97.5%] over repetitions (not private)": table}
    if last is not None:
        figs.append(figures.sweep(last["frame"], last["axis"], last["metric"], compute.METRICS[last["metric"]]))
        tables["Last sweep (not private)"] = last["frame"].drop(columns=["values"])
    cols = st.columns(2)
    for i, fig in enumerate(figs[:2]):
        show.chart(fig, container=cols[i], key=f"report_fig{i}")
    link = scenario.share_link("report")
    tables["Scenario"] = report.scenario_table(vals)
    html_doc = report.build_html(vals, link, results, figs, tables, ds.note)
    script = report.build_script(vals)
    c = st.columns(3)
    c[0].download_button("HTML report (offline)", html_doc.encode(), "dppca_report.html", "text/html",
                         icon=":material/download:")
    c[1].download_button("Python script", script.encode(), "dppca_scenario.py", "text/x-python",
                         icon=":material/code:", help="Prints this table with the installed dppca_core package.")
    c[2].download_button("Published releases (JSON)", report.published_json(results).encode(),
                         "dppca_releases.json", "application/json", icon=":material/data_object:",
                         help="What each mechanism may publish (first repetition): components, privatised "
                              "eigenvalues, the guarantee and public parameters. No diagnostics.")
    with st.expander("Python script"):
        st.code(script, language="python")
