"""Report: the exploration in words, the settings that apply, diagnostics and figures; and two kinds of export,
never mixed: exploration records (HTML, slides, script) and the publishable file (JSON, brief, slides).

Every export is built when its button is pressed (a callable ``data=`` of ``st.download_button``), never on a rerun:
a key press on this page costs what the page shows, not three documents with plotly.js inlined."""

import functools
import hashlib

import streamlit as st

import dppca_core as dc
from dppca_core import figures, metrics, publishable, risk
from dppca_core.book import OverCap
from dppca_core.privacy import PrivacyCurve
from dppca_core.registry import display_name

from dppca_core.handout import brief
from ui import book, compute, data, guarantee, notebooks, planner, report, scenario, session, show, views
from ui.errors import boundary
from ui.shell import ensure_navigation
from ui.text import md_escape

ensure_navigation()

FRESH_KEY = session.FRESH_RELEASES_KEY  # releases drawn with fresh randomness for the current scenario


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
    summary = report.summary_sentences(vals, ds, results, random_level, prep)
    st.subheader("Summary")
    st.markdown("\n".join(f"- {md_escape(sentence)}" for sentence in summary))
    planned = planner.planned_line(vals, results, ds.n)  # a plan from Trade-offs, while the scenario is the plan's
    if planned:
        st.info(md_escape(planned), icon=":material/target:")
    st.subheader("Settings that apply to these data")
    settings = report.settings_in_words(vals, ds, prep)
    st.markdown("\n".join(f"- **{md_escape(row.setting)}**: {md_escape(row.value)}" for row in settings.itertuples()))
    if not presenting:
        show.chart(main.fig, key="report_main", summary=main.summary, table=main.table, shared=True)
    return [summary, settings, main.fig]


def _publish_block(ds, prep, results, vals) -> None:
    """Draw releases to publish: fresh randomness, the page's configuration, dc.publish; the publishable file as
    JSON, and the brief and slides built from it alone."""
    st.subheader("Publish")
    undeclared = data.undeclared_schema(ds)
    if undeclared:
        st.warning(undeclared, icon=":material/view_column:")
        st.page_link(session.page("data"), label="Declare the schema on the Data page", icon=":material/verified:")
        return
    choices = scenario.nonprivate_choices(vals)
    if choices:
        st.warning(
            "These choices read the data without privacy, so the releases will state **no guarantee**, "
            "name them, and the file will say it is not publishable: "
            + "; ".join(md_escape(c) for c in choices)
            + ". For a release with its guarantee, set R from a public bound (or choose it privately), centre "
            "with a private mean (or not at all) and scale by public bounds (or privately) on the Data page.",
            icon=":material/gpp_bad:",
        )
    left = report.left_out(list(results))
    if left:
        st.info(
            "Left out of the publishable file, which holds only releases whose guarantee holds: "
            + "; ".join(f"**{md_escape(display_name(m))}**: {md_escape(why)}" for m, why in left.items())
            + " The file names them under `left_out`.",
            icon=":material/block:",
        )
    drawable = [m for m in results if m not in left]
    if not drawable:
        st.caption(
            "No selected mechanism has a guarantee: there is nothing to publish. Pick a private mechanism in "
            "the sidebar."
        )
        return
    st.caption(
        "One release per mechanism, drawn with fresh, unpredictable randomness (never the scenario's seed, "
        "which the link records) with the budget split and centring shown here. Only what each release's "
        "proof covers is exported, with the public schema and settings: no seed, no diagnostics. Not "
        "reproducible, by design. The brief and the slides are made from that file alone."
    )
    _brief_outlook(vals)
    table_id, name = book.table(ds, vals)
    X, options = report.publishable_options(prep.data, drawable, vals, ds.labels, **compute.release_rows(prep))
    pending = [book.release_spend(m, o) for m, o in options.items()]
    st.markdown(book.statement(table_id, name, pending))
    confirmed = st.checkbox(
        "Spend this budget on these data",
        key=f"confirm_spend:{book.spent(table_id, mine=True).count}",  # a new box, unticked, after every draw
        help="Drawing spends the budget stated above, for good: it is recorded in this server's budget book.",
    )
    if st.button("Draw releases to publish", icon=":material/lock:", key="draw_releases", disabled=not confirmed):
        if confirmed and _draw(ds, X, options, vals, table_id, pending):
            st.rerun()  # the page again from the book: what is now spent, and a new, unticked box
    with st.expander("This table's budget book"):
        _book_view(table_id, name)
    fresh = st.session_state.get(FRESH_KEY)
    if not (fresh and fresh["scenario"] == scenario.query_string(vals)):
        return
    file = fresh["file"]
    said = planner.release_lines(vals, file)  # what each release's own numbers tell of its accuracy (publishable)
    if said:
        st.markdown("\n".join(f"- {md_escape(line)}" for line in said))
    c = st.columns(3)
    _offer(c[0], "download_releases", report.releases_json, file)
    if not publishable.has_guarantee(file):
        st.warning(
            "This file is **not publishable**: its releases state no guarantee (see above). No brief or "
            "slides are offered for it.",
            icon=":material/gpp_bad:",
        )
        return
    _offer(c[1], "download_brief", brief.build_brief, file)
    _offer(c[2], "download_publishable_slides", brief.build_deck, file)


def _draw(ds, X, options: dict, vals, table_id, pending) -> bool:
    """Reserve the spends in the book (refused in words past the table's cap: nothing drawn), draw one release per
    mechanism with fresh randomness from the options the spends were stated for, and settle each spend with its exact
    curve and the file's digest."""
    try:
        ids = book.reserve(table_id, pending)
    except OverCap as exc:
        st.error(md_escape(str(exc)), icon=":material/block:")
        return False
    choices = scenario.nonprivate_choices(vals)
    published = {
        mech: dc.publish(dc.release_with(mech, X, opts, seed=None), nonprivate_choices=choices)
        for mech, opts in options.items()
    }
    file = report.publishable_file(published, vals, ds)
    digest = hashlib.sha256(report.releases_json(file).encode()).hexdigest()
    for spend_id, mech in zip(ids, options):
        book.settle(spend_id, PrivacyCurve.from_dict(published[mech]["privacy"]), digest)
    st.session_state[FRESH_KEY] = {"scenario": scenario.query_string(vals), "file": file}
    return True


def _book_view(table_id: str, name: str) -> None:
    """The table's cap (set or lowered here, never raised), its spends (every session of this server) and their
    export."""
    _cap_form(table_id)
    frame = book.ledger_frame(table_id)
    if frame.empty:
        st.caption(f"Nothing has been spent on {md_escape(name)} on this server yet.")
        return
    st.dataframe(
        frame, hide_index=True, width="stretch", column_config={"ε": st.column_config.NumberColumn(format="%.4g")}
    )
    st.caption(
        f"Everything spent on {md_escape(name)} on this server: {book.spent(table_id).words()}. The book keeps "
        "what was spent, never the rows (the table is known by a keyed fingerprint)."
    )
    _offer(st, "download_book", book.ledger_csv, table_id)


def _brief_outlook(vals) -> None:
    """Before drawing: a warning when the brief of these releases could not judge them, with the one-click fix."""
    outlook = report.brief_outlook(vals)
    if outlook:
        st.warning(md_escape(outlook), icon=":material/assignment_late:")
        st.button(
            f"Give the eigenvalues {scenario.K_EIGENVALUE_SHARE:.0%} of each release's budget",
            key="brief_give_eig",
            on_click=scenario.set_value,
            args=("beig", scenario.K_EIGENVALUE_SHARE),
        )


def _cap_form(table_id: str) -> None:
    """A cap on what every session together may spend on this table: set or lowered here, raised only by the
    server's operator (``python -m dppca_core.book cap``)."""
    cap = book.book().cap(table_id)
    with st.form("cap_form", border=False):
        c = st.columns([2, 2, 3], vertical_alignment="bottom")
        eps = c[0].number_input("cap: ε", min_value=0.01, max_value=100.0, value=cap[0] if cap else 10.0, format="%g")
        delta = c[1].number_input("cap: δ", min_value=0.0, max_value=0.1, value=cap[1] if cap else 1e-5, format="%g")
        pressed = c[2].form_submit_button("Set the cap" if cap is None else "Lower the cap")
    if pressed:
        try:
            book.book().set_cap(table_id, float(eps), float(delta), lower_only=True)
            st.rerun()
        except ValueError as exc:
            st.warning(md_escape(str(exc)), icon=":material/lock:")
    st.caption(
        (f"Cap: ε = {cap[0]:.3g}, δ = {cap[1]:.2g} for every session together. " if cap else "No cap yet. ")
        + "A cap can be set or lowered here, never raised: the server's operator raises one."
    )


def _last_audit():
    """The last audit of the Audit page in this session, drawn as a curve with its reading (it joins the record)."""
    result = st.session_state.get("audit_result")
    drawn = report.audit_record(result)
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
    _offer(c[0], "download_exploration_notebook", notebooks.exploration_notebook, vals, upload, ds.labels is not None)
    if data.undeclared_schema(ds):
        c[1].caption("The release notebook is offered once the table's schema is declared (the Data page).")
    elif any(not publishable.refusal(m) for m in scenario.mechanisms(vals)):
        _offer(c[1], "download_release_notebook", notebooks.release_notebook, vals, ds, upload)


def _encoded(build, *args) -> bytes:
    """``build(*args)`` as UTF-8 bytes: a download built when its button is pressed."""
    return build(*args).encode()


#: the Report's downloads: key -> (label, file name, MIME type, icon, help)
DOWNLOADS = {
    "download_releases": (
        "Download the publishable releases (JSON)",
        "dppca_releases.json",
        "application/json",
        "data_object",
        "Components, privatised eigenvalues and other covered outputs, the guarantee (or, after a non-private choice, "
        "none), the public schema and settings, what it all means in words. No diagnostics, no seed. Its format: "
        "docs/publishable.md.",
    ),
    "download_brief": (
        "Publishable brief (HTML, printable)",
        "dppca_brief.html",
        "text/html",
        "description",
        "One printable page for stakeholders: what was released and why, the guarantee in words, ε beside known "
        "deployments, utility against a random baseline, a recommendation. Made from the JSON alone.",
    ),
    "download_publishable_slides": (
        "Publishable slides",
        "dppca_publishable_slides.html",
        "text/html",
        "slideshow",
        "The brief as a deck that opens offline in any browser. Made from the JSON alone.",
    ),
    "download_slides": (
        "Download slides",
        "dppca_slides.html",
        "text/html",
        "slideshow",
        "A deck that opens offline in any browser: one slide per figure and decision, each figure with its numbers; "
        "an exploration record like the HTML report.",
    ),
    "download_book": (
        "Download the budget book (CSV)",
        "dppca_budget_book.csv",
        "text/csv",
        "download",
        "Every spend on this table on this server: when, what, its exact curve, the code's version; never the rows.",
    ),
    "download_html": ("HTML report (offline)", "dppca_report.html", "text/html", "download", None),
    "download_script": (
        "Python script",
        "dppca_scenario.py",
        "text/x-python",
        "code",
        "Prints this page's table with the installed dppca_core package (same seeds).",
    ),
    "download_exploration_notebook": (
        "Exploration notebook",
        "dppca_exploration.ipynb",
        "application/x-ipynb+json",
        "menu_book",
        "A Jupyter notebook that prints this page's table with the installed dppca_core package (same seeds): an "
        "exploration record, like the script. Its format: docs/notebooks.md.",
    ),
    "download_release_notebook": (
        "Release notebook",
        "dppca_release.ipynb",
        "application/x-ipynb+json",
        "lock",
        "A Jupyter notebook whose release cell says what it will spend, spends the budget once on your data with "
        "fresh randomness and writes the publishable JSON, recording each spend in a budget book next to it; run "
        "again, it asks before spending again.",
    ),
}


def _offer(container, key: str, build, *args) -> None:
    """The download ``key`` of :data:`DOWNLOADS` in ``container``, built by ``build(*args)`` when it is pressed."""
    label, name, mime, icon, help_text = DOWNLOADS[key]
    container.download_button(
        label,
        functools.partial(_encoded, build, *args),
        name,
        mime,
        icon=f":material/{icon}:",
        key=key,
        on_click="ignore",
        width="stretch",
        help=help_text,
    )


st.title("Report")
vals = scenario.values()

with boundary("the report"):
    ds = data.load_dataset(vals)
    prep = compute.prepare(ds, vals)
    k = int(vals["k"])
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
    too_large = report.delta_notice(vals, ds)
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
        f" · k chosen privately from the eigenvalue share (no extra cost, target {vals['kvar']:g})"
        if scenario.private_k(vals)
        else ""
    )
    budget = None if split is None else show.built(figures.budget_bar, (split.as_dict(),), dict(title=bar_title))
    budget_fig = None if budget is None else budget.fig
    radii = report.radius_table(results)
    ks = report.k_table(results, vals)
    scales = report.scales_table(results, ds.columns)
    st.subheader("How the budget is split")
    st.markdown(md_escape(report.privacy_statement(vals)))
    if budget is not None:
        show.chart(budget.fig, key="report_budget", summary=budget.summary, table=budget.table, shared=True)
    else:
        st.caption(
            "The whole budget of each release goes to the subspace (no private mean, radius, scree or score " "plot)."
        )
    if shares is not None:
        st.dataframe(shares, hide_index=True, width="stretch")
        st.caption(" ".join(md_escape(sentence) for sentence in budget_words))
    if radii is not None:
        st.subheader("Clipping radius chosen privately")
        st.caption("Each release chose its R from its radius share; R is part of what it publishes.")
        st.dataframe(radii, hide_index=True, width="stretch")
    if scales is not None:
        st.subheader("Column scales chosen privately")
        st.caption(
            "Each release divided each column by a private root-mean-square from its scale share; the scales "
            "are part of what it publishes."
        )
        st.dataframe(scales, hide_index=True, width="stretch")
    if ks is not None:
        st.subheader("k chosen privately")
        st.caption(
            "Each release kept the smallest k whose private explained-variance ratios sum above the target "
            "(post-processing of its eigenvalue share); k and every ratio it read are part of what it "
            "publishes. Each is scored against the exact top-k of its own k."
        )
        st.dataframe(ks, hide_index=True, width="stretch")
    st.subheader("Diagnostics (not private, for exploration)")
    st.dataframe(table, hide_index=True, width="stretch")
    curves = views.risk_curves(results)
    risk_sentences = {m: risk.risk_summary(c, neighbors=vals["nb"])["sentences"] for m, c in curves.items()}
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
    for title, frame in (
        ("Clipping radius chosen privately (published by each release)", radii),
        ("Column scales chosen privately (published by each release)", scales),
        ("k chosen privately (published by each release)", ks),
    ):
        if frame is not None:
            tables[title] = frame if seeded else report.without_single_runs(frame)
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
    upload = st.session_state.get(data.UPLOAD_KEY) if vals["src"] == "upload" else None
    last_audit = _last_audit()
    record = report.Record(
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
    script = report.build_script(vals, upload, has_labels=ds.labels is not None)
    c = st.columns(3)
    _offer(c[2], "download_slides", report.record_deck, record)
    _offer(c[0], "download_html", report.record_html, record)
    _offer(c[1], "download_script", str, script)
    _notebook_downloads(vals, ds, upload)
    with st.expander("Python script"):
        st.code(script, language="python")
    _publish_block(ds, prep, results, vals)
