"""Report: the exploration in words, the settings that apply, diagnostics and figures; and two kinds of export,
never mixed: exploration records (HTML, slides, script) and the publishable file (JSON, brief, slides).

Every export is built when its button is pressed (a callable ``data=`` of ``st.download_button``), never on a rerun:
a key press on this page costs what the page shows, not three documents with plotly.js inlined."""

import streamlit as st

from dppca_core import figures, metrics, publishable, risk
from dppca_core.registry import display_name

from ui import (
    compute,
    data,
    downloads,
    guarantee,
    notebooks,
    planner,
    publish,
    exploration_record,
    report,
    report_words,
    scenario,
    script_export,
    session,
    show,
    views,
)
from ui.errors import boundary
from ui.shell import ensure_navigation
from ui.text import md_escape
from dppca_core.reading import number

ensure_navigation()


def _first_screen(vals, ds, prep, results, k, random_level) -> list:
    """What the exploration found, in words; the settings that apply to these data; the main figure (first, under
    the dial, in presenter mode)."""
    presenting = show.presenting()
    if presenting:
        st.caption(md_escape(report.record_line(vals)))
    else:
        st.info(md_escape(report.record_line(vals)), icon=":material/folder_managed:")
    main = show.built(
        figures.quantile_dotplot,
        ({m: r.distance for m, r in results.items()}, compute.METRICS["subspace_distance"]),
        dict(x_range=compute.axis_range("subspace_distance", k, ds.d), reference=random_level),
    )
    if presenting:
        show.chart(main.fig, key="report_main", main=True, summary=main.summary, table=main.table, shared=True)
    summary = report_words.summary_sentences(vals, ds, results, random_level, prep)
    st.subheader("Summary")
    st.markdown("\n".join(f"- {md_escape(sentence)}" for sentence in summary))
    planned = planner.planned_line(vals, results, ds.n)  # a plan from Trade-offs, while the scenario is the plan's
    if planned:
        st.info(md_escape(planned), icon=":material/target:")
    st.subheader("Settings that apply to these data")
    settings = report_words.settings_in_words(vals, ds, prep)
    st.markdown("\n".join(f"- **{md_escape(row.setting)}**: {md_escape(row.value)}" for row in settings.itertuples()))
    if not presenting:
        show.chart(main.fig, key="report_main", summary=main.summary, table=main.table, shared=True)
    return [summary, settings, main.fig]


def _last_audit():
    """The last audit of the Audit page in this session, drawn as a curve with its reading (it joins the record)."""
    result = st.session_state.get(session.AUDIT_RESULT_KEY)
    drawn = exploration_record.audit_record(result)
    if drawn is None:
        return None
    st.subheader("Last audit")
    st.markdown(md_escape(drawn[1]))
    show.chart(drawn[0], key="report_audit_curve", summary=drawn[1])
    return result


def _notebook_downloads(vals, ds, upload) -> None:
    """The two notebooks, each built when its button is pressed: the exploration notebook (a record, seeded) and the
    release notebook (spends the budget once, with a ledger), the latter only when a mechanism has a guarantee."""
    c = st.columns(3)
    downloads.offer(
        c[0], "download_exploration_notebook", notebooks.exploration_notebook, vals, upload, ds.labels is not None
    )
    if data.undeclared_schema(ds):
        c[1].caption("The release notebook is offered once the table's schema is declared (the Data page).")
    elif any(not publishable.refusal(m) for m in scenario.mechanisms(vals)):
        downloads.offer(c[1], "download_release_notebook", notebooks.release_notebook, vals, ds, upload)


st.title("Report")
vals = scenario.values()
s = scenario.Settings(vals)

with boundary("the report"):
    ds = data.load_dataset(vals)
    prep = compute.prepare(ds, vals)
    k = int(s.k)
    if not scenario.private_k(vals) and not 1 <= k < ds.d:
        raise ValueError(f"k = {k} components for d = {ds.d} features: choose k between 1 and {ds.d - 1}.")
    results, problems = compute.run_selected(ds, prep, vals)
    for mech, message in problems.items():
        st.warning(f"{md_escape(display_name(mech))}: {md_escape(message)}")
    if not results:
        raise ValueError("no mechanism could run with these settings; pick mechanisms in the sidebar.")
    k = views.shown_k(results, k)  # with k chosen privately: the most frequent choice
    random_level = metrics.random_subspace_distance(ds.d, k)
    summary, settings, main = _first_screen(vals, ds, prep, results, k, random_level)

    ref = prep.reference[:, :k]
    table = report.results_table(results)
    st.subheader("Guarantees")
    too_large = report_words.delta_notice(vals, ds)
    if too_large:
        st.warning(md_escape(too_large), icon=":material/warning:")
    for mech, res in results.items():
        guarantee.release_card(
            mech, res.published, res.privacy, title=display_name(mech), key=f"report_guarantee_{mech}"
        )
    shares = report.budget_table(results)
    budget_words = report.budget_sentences(results)
    split = scenario.budget(vals)
    bar_title = "How one release's (ε, δ) is split" + (
        f" · k chosen privately from the eigenvalue share (no extra cost, target {number(s.variance_target)})"
        if scenario.private_k(vals)
        else ""
    )
    budget = None if split is None else show.built(figures.budget_bar, (split.as_dict(),), dict(title=bar_title))
    budget_fig = None if budget is None else budget.fig
    chosen = report.chosen_privately(results, vals, ds.columns)
    st.subheader("How the budget is split")
    st.markdown(md_escape(report_words.privacy_statement(vals)))
    if budget is not None:
        show.chart(budget.fig, key="report_budget", summary=budget.summary, table=budget.table, shared=True)
    else:
        st.caption(
            "The whole budget of each release goes to the subspace (no private mean, radius, scree or score " "plot)."
        )
    if shares is not None:
        st.dataframe(shares, hide_index=True, width="stretch")
        st.caption(" ".join(md_escape(sentence) for sentence in budget_words))
    for published in chosen:
        st.subheader(published.title)
        st.caption(published.caption)
        st.dataframe(published.table, hide_index=True, width="stretch")
    st.subheader("Diagnostics (not private, for exploration)")
    st.dataframe(table, hide_index=True, width="stretch")
    curves = views.risk_curves(results)
    risk_sentences = {m: risk.risk_summary(c, neighbors=s.neighbors)["sentences"] for m, c in curves.items()}
    if risk_sentences:
        st.subheader("What the guarantee means for one person")
        for mech, sentences in risk_sentences.items():
            st.markdown(f"**{md_escape(display_name(mech))}**\n" + "\n".join(f"- {x}" for x in sentences))
    at_k, note = views.at_k(results, k)  # with k chosen privately: the releases that chose the most frequent k
    loadings = show.cached_chart(
        figures.loadings_compare,
        (ref, {m: metrics.align_components(r.components[0], ref) for m, r in at_k.items()}, ds.columns),
        key="report_loadings",
    )
    if note:
        st.caption(md_escape(note))

    # the record's tables by name (the slides pick their figures by name too, never by position); for data the app
    # did not make, the tables of released values keep their summaries over the repetitions, not one run's numbers
    seeded = report.shows_seeded_numbers(vals)
    tables = {"Settings that apply to these data": settings}
    if shares is not None:
        tables["How the budget is split"] = shares
    for published in chosen:
        tables[published.record_title] = published.table if seeded else report.without_single_runs(published.table)
    tables["Diagnostics: mean [2.5%, 97.5%] over repetitions (not private)"] = table
    last = st.session_state.get(session.LAST_SWEEP_KEY)
    if last is not None:
        tables["Last sweep (not private)"] = compute.sweep_table(last["frame"])

    st.subheader("Exploration record")
    st.caption(
        md_escape(report.record_line(vals)) + " Its numbers come from seeded runs: the script prints them "
        "again. Each file is made when you press its button."
    )
    link = report.record_link("report", vals)
    upload = st.session_state.get(session.UPLOAD_KEY) if s.source == "upload" else None
    last_audit = _last_audit()
    record = exploration_record.Record(
        vals,
        ds,
        prep,
        results,
        k,
        main,
        loadings,
        budget_fig,
        curves,
        last,
        link,
        summary,
        settings,
        table,
        shares,
        tables,
        risk_sentences,
        budget_words,
        audit=last_audit,
    )
    script = script_export.build_script(vals, upload, has_labels=ds.labels is not None)
    c = st.columns(3)
    downloads.offer(c[2], "download_slides", exploration_record.record_deck, record)
    downloads.offer(c[0], "download_html", exploration_record.record_html, record)
    downloads.offer(c[1], "download_script", str, script)
    _notebook_downloads(vals, ds, upload)
    with st.expander("Python script"):
        st.code(script, language="python")
    publish.block(ds, prep, results, vals)
