"""The Lesson's live figures: each step's scenario run through the app's cached computations (ui.data, ui.compute),
never recomputed on a rerun that does not change it.

:func:`step_scenario` turns a step (a :class:`ui.gallery.Card`) into a complete scenario; :data:`FIGURES` maps a
step's ``figure`` to a builder returning ``(figure, headline)``: the plotly figure and one sentence with the number
to read off it.
"""

from __future__ import annotations

import urllib.parse

import numpy as np

from dppca_core import figures, metrics, publishable, risk
from dppca_core.figures import risk as risk_figures
from dppca_core.figures.plan import plan_frontier
from dppca_core.registry import display_name

from dppca_core.handout import slides

from . import compute, data, planner, report, scenario
from .gallery import LESSON, Card
from dppca_core.reading import number

#: the pages a step opens on, as the step's link names them
PAGE_NAMES = {"explore": "Explore", "tradeoffs": "Trade-offs", "class": "Class"}
#: a simulated room on the Class step: its students and its seed (synthetic: the room shows what a real one may reach)
CLASS_STUDENTS, CLASS_SEED = 30, 61
#: ε and n of the two sweep steps (the Trade-offs page's grids, shortened so that a step draws in a second)
EPS_GRID = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
N_GRID = [250, 500, 1000, 2000, 5000, 10000]
#: clipping radii of the clipping step: 1 bounds the synthetic rows (the app's data are scaled to norm <= 1)
R_GRID = [1.0, 2.0, 4.0, 8.0, 16.0]


def step_scenario(card: Card, present: bool = False, step: int = 1) -> dict:
    """The scenario a step shows: the defaults updated with the step's fields (validated as a gallery card's),
    presenter mode and the step kept."""
    vals, notices = scenario.from_fields(card.fields, {"present": bool(present), "step": int(step)})
    if notices:  # the steps are ours: a field that does not validate is a bug, not a user's mistake
        raise ValueError(f"lesson step {card.title!r}: " + "; ".join(notices))
    return vals


def explore_link(card: Card, vals: dict) -> str:
    """The address that opens the step's scenario on its page (relative to the app's root)."""
    query = urllib.parse.urlencode(scenario.to_query({**vals, "step": scenario.Settings.lesson_step.default}))
    return f"/{card.page}" + (f"?{query}" if query else "")


def _prepared(vals: dict):
    ds = data.load_dataset(vals)
    prep = data.prepare(ds, vals)
    return ds, prep, metrics.random_subspace_distance(ds.d, int(scenario.Settings(vals).k))


def _results(vals: dict):
    ds, prep, random_level = _prepared(vals)
    results, problems = compute.run_selected(ds, prep, vals)
    if problems:
        raise ValueError("; ".join(problems.values()))
    return ds, prep, results, random_level


def _scree(vals: dict):
    ds, prep, _ = _prepared(vals)
    k = int(scenario.Settings(vals).k)
    share = 100 * float(np.sum(prep.eigenvalues[:k])) / float(np.sum(prep.eigenvalues))
    return (
        figures.scree(prep.eigenvalues, k),
        f"The first {k} of {ds.d} directions hold {share:.0f}% of the variance.",
    )


def _spread(vals: dict):
    ds, prep, results, random_level = _results(vals)
    k = int(scenario.Settings(vals).k)
    fig = figures.quantile_dotplot(
        {m: r.distance for m, r in results.items()},
        compute.METRICS["subspace_distance"],
        x_range=compute.axis_range("subspace_distance", k, ds.d),
        reference=random_level,
    )
    words = []
    for mech, res in results.items():
        mean, lo, hi = compute.summary(res.distance)
        words.append(
            f"{display_name(mech)}: one release {res.distance[0]:.2f}, {len(res.distance)} releases "
            f"{lo:.2f} to {hi:.2f}"
        )
    return fig, "Subspace distance (0 = exact, " + f"{random_level:.2f} = random): " + "; ".join(words) + "."


def _sweep(vals: dict, axis: str, grid: list, label: str, log_x: bool = True):
    frame, errors = compute.sweep_frame(vals, axis, "subspace_distance", grid, label=label)
    if frame.empty:
        raise ValueError("; ".join(errors) or "no point of the sweep could be computed.")
    fig = figures.sweep(
        frame,
        axis,
        "subspace_distance",
        compute.METRICS["subspace_distance"],
        log_x=log_x,
        x_title=label,
        y_title="subspace distance",
    )
    fig.update_layout(title=f"Subspace distance against {label} (mean, 95% band)")  # short: one line on a slide
    first = frame[frame["mechanism"] == frame["mechanism"].iloc[0]].sort_values(axis)
    lo, hi = first.iloc[0], first.iloc[-1]
    return fig, (
        f"{display_name(lo['mechanism'])}: mean distance {lo['mean']:.2f} at {label} = {number(lo[axis])}, "
        f"{hi['mean']:.2f} at {label} = {number(hi[axis])}."
    )


def _sweep_eps(vals: dict):
    return _sweep(vals, "eps", EPS_GRID, "ε")


def _sweep_n(vals: dict):
    return _sweep(vals, "n", N_GRID, "rows n")


def _clip(vals: dict):
    return _sweep(vals, "R", R_GRID, "clipping radius R")


def _budget(vals: dict):
    """One complete release's budget parts in the unit in which they add up (shares of μ² for a Gaussian release,
    of ε for a pure one: :func:`dppca_core.publishable.budget_parts`), adding up to 100%."""
    s = scenario.Settings(vals)
    _, _, results, _ = _results(vals)
    mech, res = next(iter(results.items()))
    parts = publishable.budget_parts(res.published["facts"]["budget"], res.published["privacy"], s.epsilon, s.delta)
    unit = "μ²" if parts["unit"] == "mu^2" else "ε"
    fig = figures.budget_bar(
        {p["part"]: p["share"] for p in parts["parts"]},
        f"How ε = {number(s.epsilon)} is split ({display_name(mech)})",
        unit=unit,
    )
    words = " + ".join(f"{p['part']} {p['percent']}%" for p in parts["parts"])
    total = "computed exactly from them, not their sum" if parts["unit"] == "mu^2" else "their sum"
    return fig, (
        f"One complete release splits its budget in shares of {unit}: {words} = 100%. Its total "
        f"(ε = {number(s.epsilon)}, δ = {number(s.delta)}) is {total}."
    )


def _risk(vals: dict):
    _, _, results, _ = _results(vals)
    curves = {m: r.privacy for m, r in results.items() if r.privacy.kind != "none"}
    mech, curve = next(iter(curves.items()))
    # the figure's curve reads 50% -> its posterior bound; the guessing game's number is another: one sentence says both
    return risk_figures.posterior_figure(curves), (
        f"{display_name(mech)} at ε = {number(scenario.Settings(vals).epsilon)}: {risk.two_numbers_sentence(curve)}"
    )


def _plan(vals: dict):
    """The planner's frontier for the step's targets, on the law of the step's synthetic data (public)."""
    ds = data.load_dataset(vals)
    found = planner.make_plan(
        planner.chosen_targets(vals),
        float(scenario.Settings(vals).plan_confidence),
        vals,
        planner.build_standin("law", vals, ds),
        ds.n,
        ds.d,
    )
    fig = plan_frontier(
        found.frontier,
        found.confidence,
        found.epsilon if found.reachable else None,
        found.mechanism,
        title="Chance of meeting the target",
    )
    fig.update_yaxes(title_text="share of releases")  # short: one screen in presenter mode
    if not found.reachable:
        return fig, found.describe()[0]
    return fig, (
        f"For {found.target_words()}: {display_name(found.mechanism)} at ε = {number(found.epsilon)} "
        f"({100 * found.share:.0f}% of {found.reps} simulated releases met it)."
    )


def _class(vals: dict):
    """The Class game's bound at the step's ε (the private mean: the mechanism's exact curve and what (ε, δ) alone
    promises), with a simulated room of students who each pick the nearer noiseless value (seeded, synthetic)."""
    from dppca_core.classroom import game
    from dppca_core.classroom.score import score, times_in_100
    from dppca_core.figures.classroom import room_figure

    low, high = game.EPSILON_RANGE
    settings = game.GameSettings("mean", min(max(float(scenario.Settings(vals).epsilon), low), high))
    rng = np.random.default_rng(CLASS_SEED)
    draws = [game.draw(settings, rng) for _ in range(CLASS_STUDENTS)]
    curve = game.exact_curve(settings)
    result = score([(d.inside, game.nearer("mean", d.release)) for d in draws], curve)
    best = 0.5 + risk.attacker_advantage(curve) / 2
    return room_figure(result, game.promise_curve(settings)), (
        f"At ε = {settings.epsilon:g} no room is right more than {times_in_100(best)} on average; this "
        f"simulated room was right {result.right} of {result.answers} times."
    )


def link_words(card: Card) -> str:
    """The words of a step's link to its page."""
    return "Open a room on Class" if card.page == "class" else f"Open this scenario on {PAGE_NAMES[card.page]}"


FIGURES = {
    "scree": _scree,
    "spread": _spread,
    "sweep_eps": _sweep_eps,
    "sweep_n": _sweep_n,
    "clip": _clip,
    "budget": _budget,
    "plan": _plan,
    "risk": _risk,
    "class": _class,
}


def step_figure(card: Card, vals: dict):
    """(figure, headline) of a lesson step at its scenario ``vals``."""
    return FIGURES[card.figure](vals)


def clamp_step(step: int) -> int:
    return min(max(int(step), 1), len(LESSON))


def deck() -> bytes:
    """The whole lesson as slides (built when the button is pressed: every step's figure, from the caches). Every
    link starts with the operator's public address, or is relative (:func:`ui.report.public_base`): never the
    address this browser used, which is dead for the students who get the deck."""
    base = report.public_base()
    parts = []
    for step, each in enumerate(LESSON, start=1):
        each_vals = step_scenario(each, step=step)
        figure, words = step_figure(each, each_vals)
        parts.append(
            slides.Slide(
                f"{step}. {each.title}",
                [each.blurb, words, "Try this: " + each.try_this],
                figure=figure,
                link=base + explore_link(each, each_vals),
            )
        )
    mechs = sorted({m for each in LESSON for m in each.fields.get("mechs", "").split(",") if m})
    return slides.build_deck(
        "What private PCA costs, in ten steps",
        report.PUBLIC_RECORD,
        parts,
        base + "/lesson",
        "synthetic data made by the app; mechanisms: " + ", ".join(display_name(m) for m in mechs),
    ).encode()
