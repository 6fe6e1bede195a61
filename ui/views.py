"""The detailed views of the Explore page. Only the selected one is built on a rerun (a tab would build all)."""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import streamlit as st

from dppca_core import figures, metrics, reading, risk
from dppca_core.pipeline import experiments
from dppca_core.figures import risk as risk_figures
from dppca_core.privacy import compose
from dppca_core.registry import display_name

from . import audit_curve, compute, limits, scenario, score_view, show
from .score_view import ROWS_NEEDED
from .session import AUDIT_RESULT_KEY, RERUN_APP_KEY
from .text import md_escape
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
        "scores": score_view.view,
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
    vals_s = int(scenario.settings().support_size)
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
    s = int(scenario.settings().support_size)
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
    s = scenario.Settings(vals)
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
    total_delta = min(s.delta * len(total), 0.5)  # each release states its own delta
    composed = risk.epsilon_at(compose(total, delta=total_delta), total_delta) if len(total) > 1 else None
    show.chart(risk_figures.epsilon_ruler(s.epsilon, font_size=font, composed=composed))
    for mech, curve in curves.items():
        summary = risk.risk_summary(curve, neighbors=s.neighbors)
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
    audit_curve.teaching_section(curve, s.delta, display_name(first), key="risk_audit_curve")


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
