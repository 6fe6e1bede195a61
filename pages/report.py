"""Report: export the scenario as offline HTML and as a Python script; presentation mode."""
import urllib.parse

import streamlit as st

from dppca_core import figures, metrics

from ui import compute, data, report, state
from ui.errors import boundary
from ui.shell import ensure_navigation

ensure_navigation()

st.title("Report")
scn = state.scenario()

st.toggle("Presentation mode (wide, large type, controls hidden)", **state.bind("present"))

with boundary("the report"):
    ds = data.load_dataset(scn)
    prep = data.prepare(ds, scn)
    k = int(scn["k"])
    if not 1 <= k <= ds.d:
        raise ValueError(f"k = {k} does not fit in d = {ds.d}; change k on the Explore page.")
    results, problems = {}, []
    for mech in state.mechanisms():
        try:
            results[mech] = compute.run_reps(prep, mech, k=k, epsilon=scn["eps"], delta=scn["delta"], neighbors=scn["nb"],
                                             reps=int(scn["reps"]), seed=int(scn["seed"]), params=state.mech_params(mech),
                                             s=int(scn["s"]), planted_support=ds.support)
        except ValueError as exc:
            problems.append(f"{mech}: {exc}")
    for p in problems:
        st.warning(p)
    if not results:
        raise ValueError("no mechanism could run with these settings; pick mechanisms on the Explore page.")
    ref = prep.reference[:, :k]
    table = report.results_table(results)
    st.dataframe(table, hide_index=True, width="stretch")
    for mech, res in results.items():
        st.markdown(f"- **{mech}**: {res.guarantee_text}")
    figs = [figures.quantile_dotplot({m: r.distance for m, r in results.items()}, compute.METRICS["subspace_distance"]),
            figures.loadings_compare(ref, {m: metrics.align_components(r.components[0], ref) for m, r in results.items()},
                                    ds.columns),
            figures.scree(prep.eigenvalues, k)]
    last = st.session_state.get("last_sweep")
    tables = {"Results (mean [2.5%, 97.5%] over repetitions)": table}
    if last is not None:
        figs.append(figures.sweep(last["frame"], last["axis"], last["metric"], compute.METRICS[last["metric"]]))
        tables["Last sweep"] = last["frame"].drop(columns=["values"])
    cols = st.columns(2)
    for i, fig in enumerate(figs[:2]):
        cols[i].plotly_chart(fig, config=figures.PLOTLY_CONFIG, width="stretch", key=f"report_fig{i}")
    url = "?" + urllib.parse.urlencode(state.to_query(scn))
    tables["Scenario"] = report.scenario_table(scn)
    html_doc = report.build_html(scn, url, results, figs, tables, ds.note)
    script = report.build_script(scn)
    c = st.columns(2)
    c[0].download_button("Download HTML report (offline)", html_doc.encode(), "dppca_report.html", "text/html",
                         icon=":material/download:")
    c[1].download_button("Download Python script", script.encode(), "dppca_scenario.py", "text/x-python",
                         icon=":material/code:")
    with st.expander("Python script"):
        st.code(script, language="python")
    st.caption(f"Scenario address (share it to reproduce this view): `{url}`")

state.sync_url()  # in the page: query-param writes from the entry script do not reach the browser URL
