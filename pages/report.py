"""Report: the scenario's results, its published releases, an offline HTML report and a reproducing script."""
import streamlit as st

import dppca_core as dc
from dppca_core import figures, metrics, risk
from dppca_core.figures import risk as risk_figures

from ui import compute, data, guarantee, report, scenario, show, views
from ui.errors import boundary
from ui.shell import ensure_navigation
from ui.text import md_escape

ensure_navigation()

FRESH_KEY = "fresh_releases"  # releases drawn with fresh randomness for the current scenario (no widget owns it)


def fresh_releases(prep, mechs: list, vals: dict) -> dict:
    """One release per mechanism with operating-system randomness (seed=None): what may be published."""
    return {m: dc.run(m, prep.data, int(vals["k"]), vals["eps"], vals["delta"], vals["nb"], prep.data.data_norm,
                      seed=None, **scenario.mech_params(m, vals)).published() for m in mechs}


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
        guarantee.release_card(mech, res.published, res.privacy, title=mech, key=f"report_guarantee_{mech}")
    shares = report.budget_table(results)
    if shares is not None:
        st.subheader("How the budget is split")
        st.dataframe(shares, hide_index=True, width="stretch")
    st.subheader("Diagnostics (not private, for exploration)")
    st.dataframe(table, hide_index=True, width="stretch")
    curves = views.risk_curves(results)
    risk_sentences = {m: risk.risk_summary(c, neighbors=vals["nb"])["sentences"] for m, c in curves.items()}
    if risk_sentences:
        st.subheader("What the guarantee means for one person")
        for mech, sentences in risk_sentences.items():
            st.markdown(f"**{md_escape(mech)}**\n" + "\n".join(f"- {x}" for x in sentences))
    figs = [figures.quantile_dotplot({m: r.distance for m, r in results.items()}, compute.METRICS["subspace_distance"],
                                     reference=metrics.random_subspace_distance(ds.d, k)),
            figures.loadings_compare(ref, {m: metrics.align_components(r.components[0], ref) for m, r in results.items()},
                                     ds.columns),
            figures.scree(prep.eigenvalues, k)]
    if curves:
        figs += [risk_figures.tradeoff_figure(curves), risk_figures.posterior_figure(curves)]
    last = st.session_state.get("last_sweep")
    tables = {"Diagnostics: mean [2.5%, 97.5%] over repetitions (not private)": table}
    if shares is not None:
        tables = {"How the budget is split": shares, **tables}
    if last is not None:
        figs.append(figures.sweep(last["frame"], last["axis"], last["metric"], compute.METRICS[last["metric"]]))
        tables["Last sweep (not private)"] = last["frame"].drop(columns=["values"])
    cols = st.columns(2)
    for i, fig in enumerate(figs[:2]):
        show.chart(fig, container=cols[i], key=f"report_fig{i}")
    link = scenario.share_link("report")
    tables["Scenario"] = report.scenario_table(vals)
    html_doc = report.build_html(vals, link, results, figs, tables, ds.note, risk_sentences)
    script = report.build_script(vals)
    c = st.columns(3)
    c[0].download_button("HTML report (offline)", html_doc.encode(), "dppca_report.html", "text/html",
                         icon=":material/download:")
    c[1].download_button("Python script", script.encode(), "dppca_scenario.py", "text/x-python",
                         icon=":material/code:", help="Prints this table with the installed dppca_core package.")
    if c[2].button("Draw releases to publish", icon=":material/lock:", key="draw_releases",
                   help="One release per mechanism with fresh, unpredictable randomness (never the scenario's seed, "
                        "which the link records): what you may hand out. Not reproducible, by design."):
        st.session_state[FRESH_KEY] = {"scenario": scenario.query_string(vals),
                                       "releases": fresh_releases(prep, list(results), vals)}
    fresh = st.session_state.get(FRESH_KEY)
    if fresh and fresh["scenario"] == scenario.query_string(vals):
        st.download_button("Download the releases (JSON)", report.published_json(fresh["releases"]).encode(),
                           "dppca_releases.json", "application/json", icon=":material/data_object:",
                           help="Components, privatised eigenvalues, the guarantee and public parameters. "
                                "No diagnostics, no seed.")
    with st.expander("Python script"):
        st.code(script, language="python")
