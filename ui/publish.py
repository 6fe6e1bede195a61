"""The Report's publish block: what a draw will spend and its confirmation, the draw itself (fresh randomness, the
budget book), a refinement of releases drawn before, the table's budget book, and the publishable file with the
brief and slides made from it (issues 54, 55, 60)."""

from __future__ import annotations

import hashlib

import streamlit as st

import dppca_core as dc
from dppca_core import publishable
from dppca_core.book import OverCap
from dppca_core.handout import brief
from dppca_core.pipeline.refine import refinable, refine
from dppca_core.registry import display_name

from . import book, compute, controls, data, downloads, planner, release_file, scenario, session
from .text import md_escape


def block(ds, prep, results, vals) -> None:
    """Draw releases to publish: fresh randomness, the page's configuration, dc.publish; the publishable file as
    JSON, and the brief and slides built from it alone."""
    st.subheader("Publish")
    undeclared = data.undeclared_schema(ds)
    if undeclared:
        st.warning(undeclared, icon=":material/view_column:")
        st.page_link(session.page("data"), label="Declare the schema on the Data page", icon=":material/verified:")
        return
    _warn_nonprivate_choices(vals)
    left = release_file.left_out(list(results))
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
    X, options = release_file.publishable_options(prep.data, drawable, vals, ds.labels, **compute.release_rows(prep))
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
    _refine_block(ds, X, options, vals, table_id, name)
    with st.expander("This table's budget book"):
        _book_view(table_id, name)
    _offer_fresh_file(vals)


def _warn_nonprivate_choices(vals) -> None:
    """Name the scenario's choices that read the data without privacy: the releases drawn with them state no
    guarantee and their file says it is not publishable."""
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


def _offer_fresh_file(vals) -> None:
    """The file this session last drew for this scenario, if any: what each release's own numbers tell of its
    accuracy, and its downloads (the releases' JSON; the brief and the slides only when its releases state a
    guarantee)."""
    fresh = st.session_state.get(session.FRESH_RELEASES_KEY)
    if not (fresh and fresh["scenario"] == scenario.query_string(vals)):
        return
    file = fresh["file"]
    said = planner.release_lines(vals, file)  # what each release's own numbers tell of its accuracy (publishable)
    if said:
        st.markdown("\n".join(f"- {md_escape(line)}" for line in said))
    c = st.columns(3)
    downloads.offer(c[0], "download_releases", release_file.releases_json, file)
    if not publishable.has_guarantee(file):
        st.warning(
            "This file is **not publishable**: its releases state no guarantee (see above). No brief or "
            "slides are offered for it.",
            icon=":material/gpp_bad:",
        )
        return
    downloads.offer(c[1], "download_brief", brief.build_brief, file)
    downloads.offer(c[2], "download_publishable_slides", brief.build_deck, file)


def _draw(ds, X, options: dict, vals, table_id, pending) -> bool:
    """Reserve the spends in the book (refused in words past the table's cap: nothing drawn), draw one release per
    mechanism with fresh randomness from the options the spends were stated for, and settle each spend with its exact
    curve and the file's digest."""
    earlier = book.earlier(table_id)  # this session's spends on the table so far: the file composes them too
    try:
        ids = book.reserve(table_id, pending)
    except OverCap as exc:
        st.error(md_escape(str(exc)), icon=":material/block:")
        return False
    releases = {mech: dc.release_with(mech, X, opts, seed=None) for mech, opts in options.items()}
    drawn = {spend_id: releases[mech].privacy for spend_id, mech in zip(ids, options)}
    _keep(vals, ds, releases, dict(zip(options, ([i] for i in ids))), earlier, drawn)
    return True


def _keep(vals, ds, releases: dict, spends: dict, earlier: list, drawn: dict) -> None:
    """The publishable file of ``releases`` (mechanism -> Release); each spend just drawn (``drawn``: spend id -> the
    exact curve of its draw) settled with that curve and the file's digest; kept for the session with what a
    refinement needs (the releases and, per mechanism, the ids of every spend they combine)."""
    choices = scenario.nonprivate_choices(vals)
    published = {mech: dc.publish(release, nonprivate_choices=choices) for mech, release in releases.items()}
    file = release_file.publishable_file(published, vals, ds, earlier=earlier)
    digest = hashlib.sha256(release_file.releases_json(file).encode()).hexdigest()
    for spend_id, curve in drawn.items():
        book.settle(spend_id, curve, digest)
    st.session_state[session.FRESH_RELEASES_KEY] = {
        "scenario": scenario.query_string(vals),
        "refine_key": _refine_key(vals),
        "file": file,
        "releases": releases,
        "spends": spends,
    }


def _refine_key(vals: dict) -> str:
    """The scenario without its ε and δ: a refinement draws the same statistic, at any budget."""
    return scenario.query_string(
        {**vals, "eps": scenario.Settings.epsilon.default, "delta": scenario.Settings.delta.default}
    )


def _refine_block(ds, X, options: dict, vals, table_id: str, name: str) -> None:
    """Refine instead of replace: one more release of each refinable mechanism drawn before (the same statistic, any
    ε), combined with it by inverse variance (:func:`dppca_core.pipeline.refine.refine`)."""
    fresh = st.session_state.get(session.FRESH_RELEASES_KEY)
    if not fresh or fresh.get("refine_key") != _refine_key(vals):
        return
    kept = {m: r for m, r in fresh.get("releases", {}).items() if m in options and refinable(r) is None}
    if not kept:
        return
    pending = [book.release_spend(m, options[m]) for m in kept]
    titles = ", ".join(display_name(m) for m in kept)
    epsilon = scenario.Settings(vals).epsilon
    st.markdown(
        f"**Refine instead of replace.** The releases drawn before ({md_escape(titles)}) can be combined with one "
        f"more of each at ε = {epsilon:g}: together they are as accurate as one release at their composed budget, "
        "so nothing of the first draw is wasted. "
        + book.statement(table_id, name, pending).replace("This draw spends", "This refinement spends")
    )
    confirmed = st.checkbox(
        "Spend this budget on a refinement",
        key=f"confirm_refine:{book.spent(table_id, mine=True).count}",
    )
    if st.button("Refine the releases", icon=":material/layers:", key="refine_releases", disabled=not confirmed):
        if confirmed and _refine(ds, X, options, vals, table_id, kept, pending):
            st.rerun()


def _refine(ds, X, options: dict, vals, table_id: str, kept: dict, pending: list) -> bool:
    """Reserve the refinement's spends, draw one more release of each kept mechanism, combine, keep the result."""
    fresh = st.session_state[session.FRESH_RELEASES_KEY]
    combined_ids = {i for m in kept for i in fresh["spends"][m]}
    try:
        ids = book.reserve(table_id, pending)
    except OverCap as exc:
        st.error(md_escape(str(exc)), icon=":material/block:")
        return False
    earlier = [
        e for e, s in zip(book.earlier(table_id), book.my_spends(table_id)) if s.id not in combined_ids | set(ids)
    ]
    refined, spends, drawn = {}, {}, {}
    for (mech, before), spend_id in zip(kept.items(), ids):
        new = dc.release_with(mech, X, options[mech], seed=None)
        refined[mech] = refine([before, new])
        spends[mech] = [*fresh["spends"][mech], spend_id]
        drawn[spend_id] = new.privacy
    _keep(vals, ds, refined, spends, earlier, drawn)
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
    downloads.offer(st, "download_book", book.ledger_csv, table_id)


def _brief_outlook(vals) -> None:
    """Before drawing: a warning when the brief of these releases could not judge them, with the one-click fix."""
    outlook = release_file.brief_outlook(vals)
    if outlook:
        controls.eigenvalue_share_fix(
            st.warning, outlook, ":material/assignment_late:", "brief_give_eig", "each release's budget"
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
