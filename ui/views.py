"""The detailed views of the Explore page. Only the selected one is built on a rerun (a tab would build all)."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import numpy as np
import streamlit as st

from dppca_core import figures, metrics, reading, risk
from dppca_core.registry import get_mechanism
from dppca_core.pipeline import experiments
from dppca_core.pipeline import scores as scores_core
from dppca_core.figures import risk as risk_figures
from dppca_core.privacy import compose
from dppca_core.registry import display_name

from . import audit_curve, compute, limits, scenario, show
from .session import AUDIT_RESULT_KEY, RERUN_APP_KEY
from .text import literal, md_escape
from dppca_core.reading import number

VIEWS = {
    "spread": "Spread",
    "loadings": "Loadings",
    "projection": "Projection",
    "angles": "Principal angles",
    "animation": "Animation",
    "support": "Support",
    "downstream": "Downstream use",
    "convergence": "Convergence",
    "risk": "Privacy risk",
    "scree": "Private scree",
    "scores": "Private score plot",
}


#: views that compare components at one k: with k chosen privately they show the releases that chose the most frequent k
FIXED_K = ("loadings", "projection", "angles", "animation", "support", "downstream")


def shown_k(results: dict, k: int) -> int:
    """The k the views compare at: ``k``, or with k chosen privately the k most releases chose (ties: the smaller)."""
    chosen = [r.k for r in results.values() if r.k is not None]
    return experiments.k_counts(np.concatenate(chosen))[0][0] if chosen else int(k)


def at_k(results: dict, k: int) -> tuple[dict, str | None]:
    """(each mechanism's releases that chose ``k``, components stacked; a note saying so) for views that compare
    components at one k. With k public: (``results``, None). A mechanism none of whose releases chose ``k`` is left
    out, and the note names it."""
    chosen = [r.k for r in results.values() if r.k is not None]
    if not chosen:
        return results, None
    every = np.concatenate(chosen)
    out, left_out = {}, []
    for mech, res in results.items():
        keep = [i for i, kept in enumerate(res.k) if kept == k]
        if keep:
            out[mech] = dataclasses.replace(res, components=np.stack([res.components[i] for i in keep]))
        else:
            left_out.append(display_name(mech))
    note = (
        f"k was chosen privately by each release: this view compares each mechanism's releases that chose k = {k} "
        f"({int(np.sum(every == k))} of the {every.size} releases, the most frequent choice) with the exact top "
        f"{k} (the first of them; the animation cycles through them all)."
    )
    if left_out:
        note += f" Not shown (no release chose k = {k}): {', '.join(left_out)}."
    return out, note


def units_warning(columns: list, X) -> bool:
    """Warn as soon as a table is read when its columns' scales are far apart (:func:`dppca_core.pipeline.experiments.
    unit_spread`: mean squares 1000 times apart or more), whatever R is: the largest columns would make the first
    components alone. Read from the cells: a non-private hint for the data owner. Returns True when it warned."""
    found = experiments.unit_spread(X)
    if found is None:
        return False
    top, low, spread = found
    st.warning(
        f"The columns are on very different scales: **{literal(columns[top], 60)}** is about {number(spread, 3)} "
        f"times larger than **{literal(columns[low], 60)}** (root-mean-squares), so a PCA, which adds up "
        f"squares, weighs it about {number(spread**2, 3)} times more: unless their units are comparable, the first "
        "components follow the largest columns alone. Divide each column by a public bound on its values, or "
        "scale each column privately (Preprocessing: *Public per-column bounds*). A hint read from the "
        "cells: not private, for you only.",
        icon=":material/straighten:",
    )
    return True


def clipping_warning(prep) -> bool:
    """Above the metric cards: when most rows are clipped at a public R, the headline numbers compare with the PCA
    of distorted rows (:func:`ui.report_words.clipping_words`). Returns True when it warned."""
    from .report_words import clipping_words

    words = clipping_words(scenario.values(), prep)
    if words:
        st.warning(md_escape(words), icon=":material/content_cut:")
    return bool(words)


def dominant_feature_warning(ds, prep, data_page=None) -> bool:
    """Warn when one column holds most of the variance (its units, not the data's structure): the first component
    would be that column alone. Offers the public per-column scaling (on the Data page; ``data_page`` is that page,
    for a button that goes there). Returns True when it warned. The check reads the data: a non-private hint."""
    found = experiments.dominant_feature(prep.ref.gram)
    if found is None:
        return False
    column, share = found
    st.warning(
        f"One column, **{literal(ds.columns[column], 60)}**, holds {share:.1%} of the variance: its values "
        "are on a far larger scale than the others' (its units), so the first component is that column "
        "alone and says nothing about how the features vary together. Divide each column by a public bound "
        "on its values, or scale each column privately (Data page, Preprocessing: *Public per-column "
        "bounds*). A hint read from the data: not private.",
        icon=":material/balance:",
    )
    if data_page is not None and st.button(
        "Scale by public per-column bounds", key="goto_scaling", icon=":material/calculate:"
    ):
        st.switch_page(data_page)
    return True


@st.fragment
def fragment(view: str, ds, prep, results: dict, k: int, random_level: float) -> None:
    """The selected view as a fragment: its own widgets (the spread metric, the component shown) rerun only it."""
    from .errors import boundary

    with boundary("this view"):
        draw(view, ds, prep, results, k, random_level)


def draw(view: str, ds, prep, results: dict, k: int, random_level: float) -> None:
    """The view ``view``; those that compare components at one k (:data:`FIXED_K`) show, with k chosen privately,
    the releases that chose ``k`` (the most frequent choice, :func:`shown_k`) and say so."""
    if view in FIXED_K:
        results, note = at_k(results, k)
        if note:
            st.caption(md_escape(note))
        if not results:
            st.info(f"No release chose k = {k}: nothing to compare at one k.")
            return
    {
        "spread": _spread,
        "loadings": _loadings,
        "projection": _projection,
        "angles": _angles,
        "animation": _animation,
        "support": _support,
        "downstream": _downstream,
        "convergence": _convergence,
        "risk": _risk,
        "scree": _scree,
        "scores": _scores,
    }[view](ds, prep, results, k, random_level)


def _first_aligned(prep, results, k):
    ref = prep.reference[:, :k]
    return ref, {m: metrics.align_components(r.components[0], ref) for m, r in results.items()}


def _whole_page_bind(name: str) -> dict:
    """:func:`ui.scenario.bind` for a widget inside the view's fragment: a change also reruns the whole page, so the
    address bar and the sidebar's copied link hold it (a fragment's rerun leaves them as they were)."""
    bound = scenario.bind(name)
    copy = bound["on_change"]

    def _copy_and_flag():
        copy()
        st.session_state[RERUN_APP_KEY] = True

    if st.session_state.pop(RERUN_APP_KEY, False):
        st.rerun(scope="app")
    return {**bound, "on_change": _copy_and_flag}


def _spread(ds, prep, results, k, random_level):
    metric = st.segmented_control(
        "Spread of",
        list(compute.METRICS),
        required=True,
        format_func=lambda m: experiments.METRICS[m].label,
        **_whole_page_bind("spreadm"),
    )
    values = {m: r.metric(metric) for m, r in results.items() if r.metric(metric) is not None}
    if not values:
        st.info("Support recovery needs a planted support or s > 0.")
        return
    # the axis is fixed (0 to the largest possible value) so moving epsilon moves the dots, not the axis; with k chosen
    # privately each release is scored at its own k: up to the largest value over the k's chosen
    ks = {k} | {int(kept) for r in results.values() if r.k is not None for kept in r.k}
    x_range = max((compute.axis_range(metric, kept, ds.d) for kept in ks), key=lambda r: r[1])
    if len(ks) > 1:
        st.caption(
            f"Each release is scored against the exact top-k subspace of the k it chose privately; the dashed "
            f"line is a random subspace at k = {k}, the most frequent choice."
        )
    show.cached_chart(
        figures.quantile_dotplot,
        (values, compute.METRICS[metric]),
        dict(x_range=x_range, reference=random_level if metric == "subspace_distance" else None),
        main=True,
    )


def _loadings(ds, prep, results, k, random_level):
    comp = st.number_input("component", 1, k, 1, key="loading_component") - 1
    ref, first = _first_aligned(prep, results, k)
    show.chart(figures.loadings_compare(ref, first, ds.columns, comp))
    st.caption(
        "Private components are rotated within their span to best match the non-private ones "
        "(Procrustes), so the bars are comparable; the span is unchanged. First repetition shown."
    )


ROWS_NEEDED = "This view needs the individual rows; a file streamed into sufficient statistics keeps none."


def _projection(ds, prep, results, k, random_level):
    if not prep.data.has_rows:
        st.info(ROWS_NEEDED)
        return
    ref, first = _first_aligned(prep, results, k)
    show.chart(figures.projection(prep.data.rows, ref, first))
    st.caption("Not private, for exploration: the individual rows projected on the components (first repetition).")


def _angles(ds, prep, results, k, random_level):
    ref = prep.reference[:, :k]
    angles = {m: metrics.principal_angles(r.components[0], ref) for m, r in results.items()}
    show.chart(figures.principal_angles(angles))


def _animation(ds, prep, results, k, random_level):
    st.caption("Press ▶ to cycle through the repetitions (fresh noise draws); ■ stops.")
    show.chart(figures.animation(prep.reference[:, :k], {m: r.components for m, r in results.items()}, ds.columns))


def _support(ds, prep, results, k, random_level):
    vals_s = int(scenario.values()["s"])
    support = compute.true_support(prep, ds.support, vals_s, k)
    if support is None or len(support) >= ds.d:
        st.info(
            "Support recovery needs a sparse truth: pick a sparse synthetic setting or preset on the Data page, "
            "or set the support size s > 0 to score against the top-s rows of the non-private components."
        )
        return
    s_eff = vals_s or len(support)
    chosen = {m: metrics.row_support(r.components[0], s_eff) for m, r in results.items()}
    show.chart(figures.support_heatmap(chosen, support, ds.d, ds.columns))
    truth = (
        "the planted support" if ds.support is not None else f"the top {s_eff} features of the non-private components"
    )
    st.caption(
        md_escape(
            f"Dark cells: the {s_eff} features of largest norm (their row of the components) each mechanism "
            f"selects (first repetition); top "
            f"line: {truth}. {random_f1_words(ds.d, s_eff, len(support))}"
        )
    )


def random_f1_words(d: int, selected: int, truth: int) -> str:
    """The chance level beside a support F1: what choosing ``selected`` of the d features at random scores on
    average (:func:`dppca_core.metrics.random_support_f1`)."""
    level = metrics.random_support_f1(d, selected, truth)
    return (
        f"Chance level: {selected} of the {d} features chosen at random score F1 = {level:.2f} on average "
        f"(precision {truth / d:.2f}, recall {selected / d:.2f})."
    )


def random_f1(ds, prep, k: int) -> float | None:
    """The support F1 of a random choice for the Explore card (None when support recovery is not scored)."""
    s = int(scenario.values()["s"])
    support = compute.true_support(prep, ds.support, s, k)
    if support is None or not 1 <= len(support) < ds.d:
        return None
    return metrics.random_support_f1(ds.d, s or len(support), len(support))


@st.cache_data(max_entries=32, ttl=limits.CACHE_TTL_SECONDS, max_size=limits.RESULT_CACHE_BYTES, show_spinner=False)
def _accuracy(key: str, _rows, _labels, _bases):
    """Cross-validated accuracy of a classifier on the projection onto each basis.

    ``key`` covers every input: the data, the labels and every basis (hashes), so no two different
    computations share an entry (the cache is shared by every session of the server).
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    out = []
    for name, V in _bases.items():
        scores = cross_val_score(LogisticRegression(max_iter=500), _rows @ V, _labels, cv=5)
        out.append(
            {"components": name, "accuracy": round(float(scores.mean()), 3), "± s.d.": round(float(scores.std()), 3)}
        )
    return out + [chance_accuracy(_labels)]


def chance_accuracy(labels) -> dict:
    """The chance level beside the accuracies: always answering the most common class (read from the labels: not
    private, like the view)."""
    _, counts = np.unique(np.asarray(labels).astype(str), return_counts=True)
    return {
        "components": "chance: always the most common class",
        "accuracy": round(float(counts.max() / counts.sum()), 3),
        "± s.d.": 0.0,
    }


def _downstream(ds, prep, results, k, random_level):
    if ds.labels is None:
        st.info(
            "Load a labelled dataset (e.g. the breast cancer sample on the Data page) to see how well a classifier "
            "does on the private projection."
        )
        return
    if ds.label_kind == "continuous":
        st.info(
            "The label column looks continuous (a measurement, not a class), so classification accuracy would "
            "mean nothing here. Choose a class label on the Data page."
        )
        return
    ref = prep.reference[:, :k]
    bases = {"non-private": ref, **{display_name(m): r.components[0] for m, r in results.items()}}  # titles, not ids
    h = hashlib.sha256(prep.key.encode())
    h.update(np.ascontiguousarray(ds.labels.astype(str)).tobytes())
    for name, V in bases.items():
        h.update(name.encode() + np.ascontiguousarray(V).tobytes())
    st.dataframe(_accuracy(h.hexdigest(), prep.data.rows, ds.labels, bases), hide_index=True)
    st.caption(
        "5-fold cross-validated accuracy of a logistic regression on the data projected onto k components "
        "(as in Imtiaz & Sarwate's Table 1), above the chance level of always answering the most common class. "
        "Not private, for exploration: only the components are released."
    )


def _convergence(ds, prep, results, k, random_level):
    traces = {m: r.trace for m, r in results.items() if r.trace}
    if not traces:
        st.info(
            "None of the selected mechanisms is iterative; add "
            + ", ".join(display_name(m) for m in ("dps_pca", "private_power", "private_oja", "dp_pca"))
            + "."
        )
        return
    show.chart(figures.convergence_traces(traces, random_level))
    st.caption(
        "Subspace distance to the reference after each iteration (first repetition) of the iterative "
        "mechanisms selected. "
        + md_escape(convergence_words({display_name(m): t for m, t in traces.items()}, random_level))
        + " Iterates of noisy power methods and streaming methods are part of their release; a Gibbs chain's are "
        "not (shown here only to explore)."
    )


def convergence_words(traces: dict, random_level: float | None = None) -> str:
    """A caption read off the convergence chart it describes (``traces``: label -> error per iteration, as
    :func:`dppca_core.figures.convergence_traces` draws them): each line's start, end and lowest point, and in how
    many steps it rose; "falls at every step" only for a line that does. A caption that promised "geometric
    decrease" sat over lines that zig-zag."""
    words = []
    for label, errors in traces.items():
        e = np.asarray(errors, dtype=float)
        if e.size < 2:
            continue
        steps = e.size - 1
        rises = int(np.sum(np.diff(e) > 1e-9 * max(1.0, float(np.max(np.abs(e))))))
        low = int(np.argmin(e))
        if rises == 0:
            words.append(f"{label}: falls at every step, from {e[0]:.2f} to {e[-1]:.2f}")
        else:
            words.append(
                f"{label}: from {e[0]:.2f} to {e[-1]:.2f} after {steps} iterations, lowest {e[low]:.2f} at "
                f"iteration {low}; it rose in {rises} of the {steps} steps (each step's noise moves it)"
            )
    ends = [float(np.asarray(v, dtype=float)[-1]) for v in traces.values() if len(v)]
    order = (
        " The lines end in the order of the legend, each lower than the one before."
        if len(ends) > 1 and all(b < a for a, b in zip(ends, ends[1:]))
        else ""
    )
    level = f" A random subspace scores {random_level:.2f}." if random_level is not None and words else ""
    return ("; ".join(words) + "." if words else "No iteration to describe.") + order + level


def risk_curves(results: dict) -> dict:
    """{mechanism: privacy curve} of the releases that carry a guarantee (the non-private reference has none)."""
    return {m: r.privacy for m, r in results.items() if r.privacy.kind != "none"}


def _risk(ds, prep, results, k, random_level):
    vals = scenario.values()
    curves = risk_curves(results)
    if not curves:
        st.info(
            "None of the selected mechanisms has a privacy guarantee, so there is no protection to show: an "
            "attacker can tell whether a person is in the data with certainty."
        )
        return
    font = show.PRESENTER_FONT if show.presenting() else 14
    audit_point = None
    last_audit = st.session_state.get(AUDIT_RESULT_KEY)
    if last_audit is not None and last_audit.mechanism in curves:
        audit_point = (last_audit.false_positive_upper, last_audit.false_negative_upper)
    left, right = st.columns(2)
    show.chart(risk_figures.tradeoff_figure(curves, audit_point=audit_point, font_size=font), container=left)
    show.chart(risk_figures.posterior_figure(curves, font_size=font), container=right)
    total = list(curves.values())
    total_delta = min(vals["delta"] * len(total), 0.5)  # each release states its own delta
    composed = risk.epsilon_at(compose(total, delta=total_delta), total_delta) if len(total) > 1 else None
    show.chart(risk_figures.epsilon_ruler(vals["eps"], font_size=font, composed=composed))
    for mech, curve in curves.items():
        summary = risk.risk_summary(curve, neighbors=vals["nb"])
        st.markdown(f"**{display_name(mech)}** — {summary['description']}")
        st.markdown("\n".join(f"- {sentence}" for sentence in summary["sentences"]))
    st.caption(
        "The attacker knows every row but one and asks whether that person's row is in the data. Each curve is the "
        "best such test's trade-off for one release of that mechanism, as calibrated here; repetitions of the same "
        "setting are not releases. "
        + (
            f"Publishing all {len(total)} releases from the same data would compose to ε = {number(composed, 3)} at "
            f"δ = {number(total_delta)} (the ruler's composed mark)."
            if composed is not None
            else ""
        )
        + (" The cross is the last audit's attack (95% upper bounds on its error rates)." if audit_point else "")
    )
    first, curve = next(iter(curves.items()))
    audit_curve.teaching_section(curve, vals["delta"], display_name(first), key="risk_audit_curve")


def private_shares(results: dict) -> tuple[dict, dict]:
    """({mechanism: (shares, low, high)} of the first repetition's released shares of variance, post-processed into
    [0, 1] with their total at most 1 (:func:`dppca_core.reading.shares`, as the publishable file states them), with
    k chosen privately every candidate the rule read; {mechanism: why none} for those that released shares that
    cannot be read)."""
    private, unread = {}, {}
    for mech, res in results.items():
        if res.published["eigenvalues"] is None:
            continue
        shares = reading.shares(res.published)
        if shares["shares"] is None:
            if shares["measured"] == "too noisy":
                unread[mech] = shares["sentence"]
            continue
        private[mech] = (shares["shares"], shares["low"], shares["high"])
    return private, unread


def _scree(ds, prep, results, k, random_level):
    private, unread = private_shares(results)
    rule = next(
        (
            r.published["parameters"].get("k_rule")
            for r in results.values()
            if r.published["eigenvalues"] is not None and r.published["parameters"].get("k_rule")
        ),
        None,
    )
    for mech, why in unread.items():
        st.caption(md_escape(f"{display_name(mech)}: {why}"))
    if not private:
        if unread:
            return
        st.info(
            "No selected mechanism releases private eigenvalues at these settings. Give the eigenvalues a share "
            "of the budget in the sidebar (Budget split), or choose Analyze Gauss, whose noisy matrix gives them "
            "for free."
        )
        return
    ref_ratio = prep.eigenvalues / max(float(np.trace(prep.ref.gram)), 1e-300)
    top = (
        k
        if rule is None
        else min(
            len(ref_ratio),
            max(len(bars[0]) for bars in private.values()),
            max(int(r.k.max()) for r in results.values() if r.k is not None) + 2,
        )
    )
    show.chart(figures.private_scree(ref_ratio, private, top=top))
    st.caption(
        "Grey: the exact shares (not private, for exploration). Coloured: the released shares of variance "
        "(private eigenvalues over a private total), first repetition, with 95% intervals from the noise's "
        "known scale; a variance the noise made negative is shown as 0 and the total as at least the sum of the "
        "parts, so each share lies between 0 and 100% and they add up to at most 100% (as the publishable file "
        "states them). Analyze Gauss without an eigenvalue share reads them off the noisy matrix that chose its "
        "directions: they overstate."
    )
    if rule is not None:
        kept = {display_name(m): int(r.k[0]) for m, r in results.items() if r.k is not None}
        st.caption(
            md_escape(
                f"k chosen privately: each release keeps the smallest k whose released shares sum above "
                f"{number(rule['variance_target'])}; the first repetition kept "
                + ", ".join(f"k = {v} ({m})" for m, v in kept.items())
                + "."
            )
        )


def _scores(ds, prep, results, k, random_level):
    if not prep.data.has_rows:
        st.info(ROWS_NEEDED)
        return
    vals = scenario.values()
    if vals["sgroup"]:
        _score_groups(ds, vals)
    plot = score_figures(ds, prep, results)
    if plot is None:
        st.info("The score plot needs its own share of the budget: raise 'scores' in the sidebar (Budget split).")
        return
    for fig in plot["figures"]:
        show.chart(fig)
    if plot["reading"]:
        st.caption(md_escape(plot["reading"]))
    for line in plot["notes"]:
        st.info(md_escape(line), icon=":material/info:")
    st.caption(
        "Each private panel is a noisy histogram of the rows projected on that mechanism's released "
        "components (first repetition), from its own share of the budget; negative noisy counts show as 0. "
        "The exact panels use the exact components and counts, each on its own frame (the exact 2%–98% "
        "quantiles of its projections, widened as the private frame is) with the private panel's number of "
        "cells: for exploration only."
    )


def _score_groups(ds, vals: dict) -> None:
    """The groups of the plot by group: the one click that declares the label column's values public (the
    analyst's schema), or what is shown instead; one line each."""
    if ds.labels is None:
        st.info(
            "The score plot by group needs a label column: choose one on the Data page (an upload's label "
            "column, or a shipped sample with classes). Drawn without groups.",
            icon=":material/label_off:",
        )
        return
    declared = scenario.declared_groups(vals)
    values = sorted({str(v) for v in np.asarray(ds.labels).astype(str)})
    if declared:
        missing = sorted(set(values) - set(declared))
        st.caption(
            md_escape(
                f"Groups declared public (your schema, stated in each release's public settings): "
                f"{', '.join(declared)}."
                + (
                    f" Rows labelled {', '.join(missing[:5])}" f"{' …' if len(missing) > 5 else ''} are left out."
                    if missing
                    else ""
                )
            )
        )
        return
    if len(values) > scenario.MAX_GROUPS:
        st.caption(
            f"The label column holds {len(values)} values, more than the {scenario.MAX_GROUPS} groups a plot "
            "can declare: its groups are found privately (sidebar: 5% of the budget)."
        )
        return
    st.caption(
        md_escape(
            f"Groups found privately: each release first releases which groups exist, from 5% of its "
            f"budget, and shows only groups with enough rows. If the label column's values are part of "
            f"your schema (known before the data, e.g. from the data's documentation), declare them "
            f"public: every group is then shown, and that 5% goes to the components. The column holds "
            f"{len(values)} values: {', '.join(values)} (read from the data to suggest them)."
        )
    )
    if st.button(
        f"Declare these {len(values)} groups public",
        key="score_declare_groups",
        icon=":material/label:",
        help="You state that these are the groups of the label column, as part of your schema: each release "
        "names them in its public settings.",
    ):
        scenario.set_value("slabels", json.dumps(values))
        st.rerun(scope="app")  # the view is a fragment: the releases (and the link) are computed by the whole page


def score_plot(ds, prep, results) -> tuple | None:
    """(figure, one-line reading) of the private score plot for a record: the panels over two components when any
    release kept two, else over one (:func:`score_figures`); None when no release has a score plot or the data have
    no rows. The Report's record embeds it."""
    plot = score_figures(ds, prep, results)
    if plot is None:
        return None
    return plot["figures"][0], " ".join([plot["reading"], *plot["notes"]]).strip()


def score_figures(ds, prep, results) -> dict | None:
    """The private score plots the first repetitions released, as ``{"figures", "reading", "notes"}``: one figure
    for the releases that kept two components and one for those that kept one (never mixed), each with the exact
    panels first (non-private); the one-line reading; one line per release whose plot differs from what was asked or
    cannot be drawn (no group passed the threshold, an option a pure ε-DP release cannot hold) or reads poorly
    (which share or ε would make it readable). None when no release has a score plot or the data have no rows."""
    if not prep.data.has_rows:
        return None
    vals = scenario.values()
    panels, edges, first, notes = {1: {}, 2: {}}, {}, {}, []
    for mech, res in results.items():
        notes += [
            f"{display_name(mech)}: {note}" for note in scenario.score_plan(vals, ds.labels is not None, mech)["notes"]
        ]
        scores_out = res.published["outputs"].get("scores")
        if not scores_out:
            continue
        groups = scores_out.get("groups")
        if groups is not None and not groups:
            notes.append(_no_group_note(mech, res.published))
            continue
        dims = int(scores_out.get("dims", 2))
        first.setdefault(dims, (mech, res.published))
        counts = np.asarray(scores_out["counts"])
        tables = [(None, counts)] if groups is None else sorted(zip(groups, counts), key=lambda g: str(g[0]))
        for group, table in tables:
            label = f"{display_name(mech)}{_released_as(mech)}" if group is None else f"{display_name(mech)}: {group}"
            label += "" if dims == 2 or not panels[2] else " (k = 1)"
            panels[dims][label], edges[label] = table, scores_out["edges"]
        advice = _readability_note(mech, res.published)
        if advice:
            notes.append(advice)
    if not first:
        return {"figures": [], "reading": "", "notes": notes} if notes else None
    figs = []
    for dims in (2, 1):
        if dims not in first:
            continue
        exact, exact_edges = _exact_score_panels(ds, prep, first[dims][1])
        groups = first[dims][1]["outputs"]["scores"].get("groups")
        figs.append(
            figures.score_heatmaps(
                {**exact, **panels[dims]}, {**exact_edges, **edges}, cols=len(groups) if groups else None
            )
        )
    released = {
        mech: res.published["outputs"]["scores"]
        for mech, res in results.items()
        if res.published["outputs"].get("scores", {}).get("groups") != [] and res.published["outputs"].get("scores")
    }
    return {"figures": figs, "reading": _score_reading(results, released), "notes": notes}


def _released_as(mech: str) -> str:
    """What a private panel's title adds to the mechanism's name: " (private)", except for a mechanism without a
    guarantee, whose name already says so (a retracted one read "⚠ retracted: not private (private)")."""
    return "" if get_mechanism(mech).guarantee in ("retracted", "none") else " (private)"


def _exact_rows(prep) -> np.ndarray:
    """The rows as a release projects them, without noise: centred with their exact mean when each release centres
    with a private one (and clipped to norm 1 again, as the release does), else as prepared."""
    rows = prep.data.rows
    if prep.center != "private":
        return rows
    centred = rows - rows.mean(axis=0)
    norms = np.linalg.norm(centred, axis=1, keepdims=True)
    return centred / np.maximum(norms, 1.0)


def _exact_score_panels(ds, prep, published: dict) -> tuple[dict, dict]:
    """The exact (non-private) histograms beside a released score plot, one per released group: the exact
    components (signs matched to the released ones, so the clouds face the same way), on their own frame
    (:func:`dppca_core.pipeline.scores.exact_frame` of the exact projections) with the released number of cells; rows
    beyond the frame in the nearest edge cell, as a release counts them. Returns (panels, edges)."""
    released = published["outputs"]["scores"]
    dims = int(released.get("dims", 2))
    V = np.asarray(published["components"], dtype=float)[:, :dims]
    ref = prep.reference[:, :dims]
    ref = ref * np.where(np.sum(ref * V, axis=0) < 0, -1.0, 1.0)
    proj = scores_core.project(_exact_rows(prep), ref)
    frame = scores_core.exact_frame(proj)
    bins = len(figures.axis_edges(released["edges"])[0]) - 1
    axes = [np.linspace(frame["low"][a], frame["high"][a], bins + 1) for a in range(dims)]
    cells = [np.clip(np.searchsorted(axes[a], proj[:, a], side="right") - 1, 0, bins - 1) for a in range(dims)]
    edge = axes if dims == 2 else axes[0]

    def histogram(mask) -> np.ndarray:
        out = np.zeros((bins,) * dims)
        np.add.at(out, tuple(c[mask] for c in cells), 1.0)
        return out

    groups = released.get("groups")
    if groups is None or ds.labels is None:
        return {"exact (not private)": histogram(np.ones(proj.shape[0], dtype=bool))}, {"exact (not private)": edge}
    labels = np.asarray(ds.labels).astype(str)
    panels = {f"exact: {group}": histogram(labels == str(group)) for group in sorted(groups, key=str)}
    return panels, {label: edge for label in panels}


def _no_group_note(mech: str, published: dict) -> str:
    """One line: a release whose groups, found privately, all fell below the threshold."""
    threshold = published["facts"].get("groups_threshold")
    need = f" (a group needs about {threshold} rows at this budget)" if threshold else ""
    return (
        f"{display_name(mech)}: no group passed the privacy threshold of the groups found privately{need}, so "
        "there is no panel to draw. Declare the groups public (above), or raise ε."
    )


def _readability_note(mech: str, published: dict) -> str | None:
    """One line when a release's plot reads poorly (its noise swamps the smallest group's cloud), naming the scores
    share or the ε that would make it readable (:func:`dppca_core.pipeline.scores.readable_budget`); None when it reads."""
    out = published["outputs"]["scores"]
    scale = published["facts"].get("scores_noise_scale")
    part = published["facts"].get("budget", {}).get("scores")
    if not scale or not part:
        return None
    ratio = scores_core.noise_to_signal(out["counts"], int(out.get("dims", 2)), scale)
    if ratio <= scores_core.READABLE_NOISE:
        return None
    gaussian = published["privacy"]["kind"] != "pure" and part.get("mu") is not None
    advice = scores_core.readable_budget(
        ratio, part["share"], published["epsilon"], part["delta"], part["mu"] if gaussian else None
    )
    share = (
        f"a scores share of {advice['share']:.0%} (sidebar, Budget split)"
        if advice["share"] is not None
        else "no scores share up to 30%"
    )
    eps = f"ε ≈ {number(advice['epsilon'], 2)}" if np.isfinite(advice["epsilon"]) else "a far larger ε"
    frame = "" if out.get("frame") else " Fitting the frame to the data (sidebar: score plot frame) helps too."
    return (
        f"{display_name(mech)}: the noise ({number(scale, 2)} rows per cell) swamps the smallest group's cloud; "
        f"{share} would make the plot readable, or {eps} at this share.{frame}"
    )


def _score_reading(results: dict, released: dict) -> str:
    """One line: what the score plot spends and shows (shares, frame, noise, groups), from the first release."""
    mech, scores = next(iter(released.items()))
    published = results[mech].published
    budget = published["facts"].get("budget", {})
    spent = [f"{part} {budget[part]['share']:.0%}" for part in ("scores", "frame", "groups") if part in budget]
    frame = "fitted to private quantiles of the scores" if scores.get("frame") else "fixed to [−1, 1]²"
    sparse = published["parameters"].get("score_kind") == "sparse"
    noise = "noise on occupied cells only, above a threshold" if sparse else "noise on every cell"
    groups = scores.get("groups")
    how = "declared public" if published["parameters"].get("score_group_labels") else "released privately"
    found = f"; groups {how}: {', '.join(sorted(map(str, groups)))}" if groups else ""
    scale = published["facts"].get("scores_noise_scale")
    per_cell = f" (s.d. {number(scale, 2)} rows per cell)" if scale else ""
    return (
        f"Score plot from {' + '.join(spent)} of each release's budget; frame {frame}; {noise}{per_cell}{found}. "
        "Read it as: do the groups' clouds sit apart in the private panels as they do in the exact ones?"
    )
