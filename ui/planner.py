"""Plan from targets (issue 37) on the Trade-offs page: the public facts of the scenario, the stand-in the plan runs
on, the plan (cached by the core), and the one click that sets the scenario to it.

What the plan may read: d and the declared columns (public schema), k, δ, the neighbouring relation, R or the rule of
a private R, the synthetic law the user chose, a spectrum the user states, and n only where it is public (replace one
row; under add/remove the user gives a public estimate). The rows are read only by the private stand-in, inside its own
budget, which the plan adds to its total."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

import dppca_core as dc
from dppca_core import planning
from dppca_core.reading import number
from dppca_core.registry import display_name

from . import book, data, plan_check, scenario
from .session import FRESH_RELEASES_KEY, PLANNED_FOR_KEY, PRIVATE_STANDINS_KEY

#: the targets the page offers: (label, step, help); each one's number, default and range is its scenario setting
#: (:data:`dppca_core.scenario.PLAN_TARGET_FIELDS`), so a link and a scenario file carry it
TARGET_INPUTS = {
    "subspace_distance": (
        "subspace distance at most",
        0.05,
        "||sin Θ||_F between the released and the exact top-k components (0 = exact).",
    ),
    "energy": (
        "captured energy at least (fraction of the optimum)",
        0.01,
        "The variance the released components capture, as a fraction of what the exact ones capture.",
    ),
    "f1": (
        "support recovery F1 at least",
        0.05,
        "For sparse data: how well the released components find the rows (features) the planted ones use.",
    ),
    "explained_variance_error": (
        "explained-variance error at most",
        0.005,
        "The largest error of the k released explained-variance ratios (adds an eigenvalue " "part to the release).",
    ),
    "score_readability": (
        "score plot's noise-to-signal ratio at most",
        0.05,
        "The noise per cell of the private score plot over the rows in a typical cell of the cloud "
        "(the score plot view's readability; 0.5 reads well). Adds a score-plot part to the "
        "release; planned for a plot without groups, noise on every cell. Simulates rows one by "
        "one: slower.",
    ),
}
STANDINS = {
    "law": "the synthetic law you chose (public)",
    "stated": "a spectrum you state (public)",
    "private": "a spectrum released privately from part of the budget",
}
#: the scenario fields of each part of a split (the sidebar's budget sliders)
SPLIT_FIELDS = {"mean": "bmean", "eigenvalues": "beig", "scores": "bscores", "radius": "bradius"}


def target_field(name: str) -> str:
    """The scenario setting holding target ``name``'s number."""
    return scenario.PLAN_TARGET_FIELDS[name]


def chosen_targets(vals: dict) -> dict:
    """{target: its number} of the targets the scenario names, in the page's order."""
    names = [t for t in scenario.Settings(vals).plan_targets_text.split(",") if t]
    return {name: float(vals[target_field(name)]) for name in TARGET_INPUTS if name in names}


def standin_kind(vals: dict, kinds: list[str]) -> str:
    """The stand-in the scenario asks for, or the first open to it (a link's "law" on a table: a stated spectrum)."""
    s = scenario.Settings(vals)
    return s.plan_standin if s.plan_standin in kinds else kinds[0]


def standin_choices(vals: dict, has_rows: bool) -> list[str]:
    """The stand-ins open to this scenario: the law for synthetic data, a stated spectrum always, a private one where
    the rows are kept."""
    s = scenario.Settings(vals)
    out = ["law"] if s.source == "synthetic" else []
    out.append("stated")
    if has_rows and s.source != "synthetic":
        out.append("private")
    return out


def parse_spectrum(raw: str) -> list[float]:
    """Variances typed as numbers separated by commas or spaces; ValueError in words."""
    words = raw.replace(",", " ").split()
    if not words:
        raise ValueError("type the variances of the data's main directions, largest first, e.g. 4, 1, 0.5.")
    try:
        values = [float(w) for w in words]
    except ValueError:
        raise ValueError(f"the spectrum must be numbers separated by commas (got {raw[:60]!r}).") from None
    if not all(math.isfinite(v) and v >= 0 for v in values):
        raise ValueError("variances are finite numbers >= 0.")
    return values


def public_n(vals: dict, ds_n: int, estimate: int | None) -> int:
    """The n a plan is for: ``estimate`` (the scenario's "plan for n rows", public) when it is given (> 0), else the
    data's own n where it is public (replace one row, or synthetic data, whose n the user chose); under add/remove
    on a table the count is private, so a public estimate is needed."""
    s = scenario.Settings(vals)
    if estimate:
        return int(estimate)
    if s.neighbors == "replace" or s.source == "synthetic":
        return int(ds_n)
    raise ValueError("under add/remove the number of rows is private: give a public estimate of n (plan for n rows).")


def rows_input_words(vals: dict, ds_n: int) -> tuple[str, str]:
    """(label, help) of the plan's "plan for n rows" input: the data's own n by default where it is public; under
    add/remove on a table a public estimate (the count is private, so it is never shown)."""
    s = scenario.Settings(vals)
    if s.neighbors == "add_remove" and s.source != "synthetic":
        return (
            "plan for n rows: a public estimate (the count is private under add/remove)",
            "The number of rows is private under add/remove: give a public estimate (e.g. a released noisy "
            "count). 0 asks for one.",
        )
    return (
        f"plan for n rows (0: the data's own {int(ds_n):,})",
        "A what-if: the plan for this many rows of the same kind (the stand-in's variances per row unchanged). "
        "0 plans for the data's own rows.",
    )


def spectrum_units(vals: dict) -> str:
    """The units a stated spectrum is in: the data's, or divided by the public column bounds."""
    return (
        "each column divided by its public bound" if scenario.Settings(vals).scaling == "bounds" else "the data's units"
    )


def radius_args(vals: dict) -> dict:
    """R for the plan: the public number, or 'private' with the scenario's rule."""
    rule = scenario.radius_rule(vals)
    return (
        {"data_norm": "private", "radius_rule": rule}
        if rule is not None
        else {"data_norm": float(scenario.Settings(vals).radius)}
    )


def build_standin(
    kind: str, vals: dict, ds, *, stated: str = "", total: float | None = None, private_epsilon: float = 0.1
) -> dc.Standin:
    """The stand-in of ``kind`` (see :data:`STANDINS`); ValueError in words."""
    s = scenario.Settings(vals)
    d = ds.d
    if kind == "law":
        return dc.Standin.spiked(
            d=d,
            k=int(s.planted_rank),
            spike=float(s.spike_strength),
            sparsity=int(s.planted_sparsity) or None,
            seed=int(s.data_seed),
        )
    if kind == "stated":
        values = parse_spectrum(stated)
        return dc.Standin.from_spectrum(
            values, d=d, total=total if len(values) < d else None, source="a spectrum you stated"
        )
    if kind == "private":
        return _private_standin(vals, ds, float(private_epsilon))
    raise ValueError(f"unknown stand-in {kind!r}.")


def _private_standin(vals: dict, ds, epsilon: float) -> dc.Standin:
    """The session's private spectrum for (data, R, scaling, ε, δ, relation): released once with fresh randomness and
    kept in the session (never in a shared cache, whose eviction would draw again without counting it); asking again
    returns the same release. A release that came out all noise is remembered too (its cost is spent)."""
    s = scenario.Settings(vals)
    if not ds.has_rows:
        raise ValueError("a file streamed into sufficient statistics keeps no rows: state a spectrum instead.")
    if scenario.private_scaling(vals) or scenario.private_radius(vals):
        raise ValueError(
            "the private stand-in needs a public R and no private column scaling: state a spectrum, or "
            "set R and the scaling on the Data page."
        )
    scale = data.column_scale(ds, vals)
    center = "private" if s.centring == "private" else "none"  # the stand-in centres as the releases will
    key = (ds.key, float(s.radius), scale, epsilon, float(s.delta), s.neighbors, center)
    released = st.session_state.setdefault(PRIVATE_STANDINS_KEY, {})
    if key not in released:  # a private look at the rows: recorded in the budget book before it is drawn
        table_id, _ = book.table(ds, vals)
        (spend_id,) = book.reserve(
            table_id, [book.look_spend("private spectrum (planner's stand-in)", epsilon, s.delta)]
        )
        released[key] = _release_standin(ds.X, *key[1:])
        book.settle(spend_id, planning.cost_curve(released[key]["cost"]))
    entry = released[key]
    if entry["standin"] is None:
        raise ValueError(
            f"the spectrum released with ε = {number(epsilon)} came out all noise (its cost is counted in "
            "later plans on these rows): spend more ε on the stand-in, or state a spectrum."
        )
    return entry["standin"]


def _release_standin(X, R: float, scale, epsilon: float, delta: float, neighbors: str, center: str = "none") -> dict:
    """One private spectrum of the rows (scaled by the public bounds, a public map of each row; centred with a private
    mean when the releases centre so): the stand-in, or None when the noise swamped every variance, with what it
    cost either way."""
    X = np.asarray(X, dtype=float)
    if scale is not None:
        X = X / np.asarray(scale, dtype=float)
    try:
        made = dc.Standin.private(
            X, epsilon, delta, data_norm=R, neighbors=neighbors, center=center, seed=dc.secure_generator()
        )
    except planning.StandinTooNoisy as noisy:
        return {"standin": None, "cost": noisy.cost}
    return {"standin": made, "cost": made.cost}


def released_before(data_key: str, standin: dc.Standin) -> list:
    """The privacy curves of the spectra this session released privately from the rows ``data_key`` other than
    ``standin``: a plan on these rows counts them in its total."""
    released = st.session_state.get(PRIVATE_STANDINS_KEY, {})
    return [
        planning.cost_curve(entry["cost"])
        for key, entry in released.items()
        if key[0] == data_key and entry["standin"] != standin
    ]


def make_plan(targets: dict, confidence: float, vals: dict, standin: dc.Standin, n: int, d: int, spent=()) -> dc.Plan:
    """The plan for the scenario's public facts (the core caches it); ``spent``: the curves of the other releases
    from the same rows (:func:`released_before`), counted in its total."""
    s = scenario.Settings(vals)
    if scenario.private_scaling(vals):
        raise ValueError(
            "the planner does not plan releases that scale the columns privately (their scale share is "
            "not simulated): scale by public bounds or not at all (Data page), plan, then switch back."
        )
    scores = s.scores_share > 0 or "score_readability" in targets
    # a plot the scenario draws on a fitted frame (the default) is not what the plan simulates; a plot asked only by
    # the target is planned on the fixed frame, and "Use this plan" sets that frame (apply)
    fitted = s.scores_share > 0 and s.score_frame == "private"
    if fitted or (scores and s.scores_by_group and not scenario.declared_groups(vals)):
        raise ValueError(
            "the planner does not simulate the shares this score plot takes (a fitted frame, or groups found "
            "privately). In the sidebar's Budget split of one release, set the score plot frame to fixed and turn "
            "the score plot by group off (or declare its groups public on Explore's private score plot), plan, "
            "then switch back."
        )
    sparse = "f1" in targets and standin.support is None
    if sparse and int(s.support_size) <= 0:
        raise ValueError(
            "a support F1 target needs the number of features the components use: set the support size "
            "s in the sidebar, or plan on a sparse synthetic law (Data page: sparsity)."
        )
    parts = plan_parts(vals)
    return dc.plan(
        targets,
        n=n,
        d=d,
        k=int(s.k),
        standin=standin,
        delta=float(s.delta),
        confidence=confidence,
        neighbors=s.neighbors,
        parts=parts,
        center="private" if s.centring == "private" else "none",
        sparsity=int(s.support_size) if sparse else None,
        spent=tuple(spent),
        **radius_args(vals),
    )


def plan_parts(vals: dict) -> tuple:
    """The optional parts the scenario's releases publish, which the plan's releases publish too: the eigenvalues,
    and a score plot (without groups, noise on every cell: the plot's other options are not simulated)."""
    return tuple(part for part, field in (("eigenvalues", "beig"), ("scores", "bscores")) if vals[field] > 0)


#: the scenario fields a plan reads (a plan asked with other values is another question)
PLAN_FIELDS = (
    "src",
    "n",
    "d",
    "rank",
    "spike",
    "sparse",
    "dseed",
    "R",
    "rfrom",
    "rlo",
    "rhi",
    "rq",
    "nb",
    "delta",
    "center",
    "k",
    "s",
    "scale",
    "bounds",
    "cols",
)


def question(vals: dict, targets: dict, confidence: float, kind: str, standin_args: dict, estimate) -> tuple:
    """What a plan answers (hashable): the targets, the confidence, the stand-in's inputs and the scenario's fields
    the plan reads. The ε, mechanisms and split the plan sets are not part of it (nor the eigenvalue share, which it
    may set to 0 where the mechanism releases its eigenvalues from its own noise)."""
    scores = (
        scenario.Settings(vals).scores_share > 0 or "score_readability" in targets
    )  # applying a plan with a score target sets it
    return (
        tuple(sorted(targets.items())),
        float(confidence),
        kind,
        tuple(sorted(standin_args.items())),
        estimate,
        scores,
        tuple(vals.get(f) for f in PLAN_FIELDS),
    )


def split_fields(found: dc.Plan) -> dict:
    """The scenario's budget sliders for the plan's split: the eigenvalue share (0 when the plan releases none), and
    the mean, radius and score-plot shares where the plan has those parts."""
    shares = found.budget.as_dict()
    out = {"beig": float(shares.get("eigenvalues", 0.0))}
    for part in ("mean", "radius", "scores"):  # shares of parts the plan has (a private mean, a private R, a plot)
        if shares.get(part, 0.0) > 0:
            out[SPLIT_FIELDS[part]] = float(shares[part])
    return out


def apply(found: dc.Plan) -> None:
    """Set the scenario to the plan: its ε, its mechanism first among the compared ones, its split; and remember
    what it was planned for (the Report states it while the scenario still matches)."""
    mechs = [found.mechanism] + [m for m in scenario.mechanisms() if m != found.mechanism]
    scenario.set_value("eps", float(found.epsilon))
    scenario.set_value("mechs", ",".join(mechs))
    fields = split_fields(found)
    for field, value in fields.items():
        scenario.set_value(field, value)
    if found.budget.scores > 0:  # the plan simulated the score plot on the fixed frame
        scenario.set_value("sframe", "public")
    st.session_state[PLANNED_FOR_KEY] = {
        "eps": float(found.epsilon),
        "mechanism": found.mechanism,
        "split": fields,
        "words": planned_words(found),
        "targets": dict(found.targets),
        "confidence": float(found.confidence),
        # n when the plan was asked for another number of rows than the data's own (public under replace-one)
        "n": int(found.settings["n"]) if other_rows(scenario.values()) else None,
    }


def other_rows(vals: dict) -> bool:
    """True when the scenario plans for a number of rows of its own choosing ("plan for n rows" under replace one
    row), not the data's own n (under add/remove the number given is a public estimate of it)."""
    s = scenario.Settings(vals)
    return bool(s.plan_rows) and s.neighbors == "replace"


def planned_words(found: dc.Plan) -> str:
    """'Planned for: subspace distance ≤ 0.3 in 90% of releases, with … at ε = …' (what was promised, on which
    stand-in, and the total); the Report adds whether it held (:func:`planned_line`)."""
    words = (
        f"Planned for: {found.target_words()}, with {display_name(found.mechanism)} at ε = {number(found.epsilon)} "
        f"(budget split {planning.split_words(found.budget)}), on a stand-in ({found.standin.describe()})."
    )
    if found.total_epsilon > found.epsilon * (1 + 1e-9):
        words += f" {spent_words(found)} the total is ε = {number(found.total_epsilon, 3)}."
    return words


def spent_words(found: dc.Plan) -> str:
    """What the plan's total counts beyond the release: 'With the stand-in's own cost' or 'Counting the 2 spectra
    released privately from these rows in this session,'."""
    count = found.earlier + (found.standin.privacy == "private")
    if not found.earlier:
        return "With the stand-in's own cost"
    spectra = f"{count} spectr{'a' if count > 1 else 'um'}"
    return f"Counting the {spectra} released privately from these rows in this session,"


def candidates_table(found) -> pd.DataFrame:
    """Every mechanism and split the plan tried, as a person reads it: each ε at four significant digits, and "not
    reached" where no ε of the grid met the targets (the column read "Infinity")."""
    shown = found.candidates.drop(columns="mechanism")
    for column in ("first guess ε", "planned ε"):
        if column in shown:
            shown[column] = ["not reached" if math.isinf(v) else number(v) for v in shown[column]]
    return shown


def current_plan(vals: dict) -> dict | None:
    """The plan the scenario was set to, while its ε, mechanism and split are still the plan's (else None)."""
    planned = st.session_state.get(PLANNED_FOR_KEY)
    if not planned:
        return None
    mechs = scenario.mechanisms(vals)
    same = (
        math.isclose(scenario.Settings(vals).epsilon, planned["eps"])
        and mechs[:1] == [planned["mechanism"]]
        and all(math.isclose(vals[field], value) for field, value in planned["split"].items())
    )
    return planned if same else None


def planned_line(vals: dict, results: dict | None = None, n_rows: int | None = None) -> str | None:
    """What the scenario was planned for and whether the promise held (while the scenario is still the plan's, else
    None): on the Report, the share of its exploration's releases on the rows that met the targets (``results``,
    not private, for the data owner) and what the release drawn to publish says of itself (post-processing of the
    published numbers); elsewhere, where to see it."""
    planned = current_plan(vals)
    if planned is None:
        return None
    if results is None:
        return planned["words"] + " The Report says whether the promise held."
    said = [plan_check.on_rows(planned, results, n_rows)]
    fresh = st.session_state.get(FRESH_RELEASES_KEY)
    drawn = fresh["file"] if fresh and fresh.get("scenario") == scenario.query_string(vals) else None
    own = [
        line for line in plan_check.release_lines(drawn, planned) if line.startswith(display_name(planned["mechanism"]))
    ]
    said += (
        [f"The release drawn to publish, from its own numbers (publishable): {own[0]}"]
        if own
        else ["A release drawn to publish (Publish, below) says what its own numbers show about the targets."]
    )
    return " ".join([planned["words"], *[s for s in said if s]])


def release_lines(vals: dict, file: dict) -> list[str]:
    """What each release of a publishable file can tell about its own accuracy (the plan's targets while the
    scenario is the plan's): post-processing of its published numbers, publishable with it."""
    return plan_check.release_lines(file, current_plan(vals))
