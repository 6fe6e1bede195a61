"""The Report's first screen in words: the data, the settings that apply to them, the guarantees, a summary for a
non-technical reader and whether every data-dependent choice was private. Pure functions (no Streamlit calls)."""

from __future__ import annotations

import pandas as pd

from dppca_core import publishable, reading, risk
from dppca_core.data import datasets as dsets
from dppca_core.pipeline import experiments
from dppca_core.privacy import describe_neighbors
from dppca_core.reading import number
from dppca_core.registry import display_name, get_mechanism

from . import scenario


CENTRING_WORDS = {
    "none": "none: the uncentred second moment is analysed (private)",
    "private": "with a private mean released from its own share of the budget",
    "empirical": "with the data's own (empirical) mean: NOT private",
}


def guarantee_words(results: dict, vals: dict) -> list[str]:
    """Each mechanism's guarantee in plain words: ε and δ, the attacker's odds and its best test (from the release's
    exact privacy curve, :mod:`dppca_core.publishable`), or why it has none."""
    s = scenario.Settings(vals)
    out = []
    for mech, res in results.items():
        name = display_name(mech)
        if res.guarantee == "retracted":
            out.append(f"{name}: RETRACTED, not private (its claimed guarantee does not hold).")
            continue
        if res.privacy.kind == "none":
            out.append(f"{name}: no privacy; the exact analysis, shown as the reference.")
            continue
        delta = f", δ = {number(s.delta)}" if res.privacy.kind != "pure" else ""
        odds = publishable.odds(res.privacy, s.neighbors)["sentence"]
        test = publishable.best_test(res.privacy, s.neighbors)["sentence"]
        out.append(f"{name} (ε = {number(s.epsilon)}{delta} for each release): {odds} {test}")
    return out


def delta_notice(vals: dict, ds) -> str | None:
    """A δ above 1/n, in words, for the page (:func:`dppca_core.reading.delta_warning`); under add/remove n is
    private, so the count is a hint for the data owner (the brief says it only where n is public)."""
    s = scenario.Settings(vals)
    found = reading.delta_warning(s.delta, getattr(ds, "n", None))
    if found and s.neighbors != "replace":
        found += " (Here n is private: a hint read from the data, for you only.)"
    return found


def _names(mechs) -> str:
    names = [display_name(m) for m in mechs]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def data_words(vals: dict, ds) -> str:
    """What the data are, in words, with the true number of rows and features."""
    s = scenario.Settings(vals)
    src = s.source
    shape = f"{ds.n:,} rows × {ds.d} features"
    if src == "synthetic":
        sparse = f", the signal on {s.planted_sparsity} of the features" if s.planted_sparsity else ""
        return (
            f"synthetic data made by the app: {shape}, {s.planted_rank} planted directions of strength "
            f"{number(s.spike_strength)}{sparse} (data seed {s.data_seed})"
        )
    if src.startswith("preset:"):
        return f"synthetic data made by the app from a paper's setting: {shape} ({ds.note}; data seed {s.data_seed})"
    if src.startswith("sample:"):
        title = dsets.SAMPLES.get(src.split(":", 1)[1], {}).get("title", ds.name)
        return f"the shipped sample {title}: {shape}"
    if src.startswith("server:"):
        return f"the server file {ds.name}: {shape}, streamed into sufficient statistics"
    return f"the uploaded file {ds.name}: {shape}"


def settings_in_words(vals: dict, ds, prep) -> pd.DataFrame:
    """Only the settings that apply to these data, in words (the true n and d; no setting of another page)."""
    s = scenario.Settings(vals)
    mechs = scenario.mechanisms(vals)
    rows = [("Data", data_words(vals, ds))]
    if s.scaling == "bounds":
        rows.append(
            ("Scaling", "each column divided by a bound on its values: " + scenario.SCALE_SOURCES[s.bounds_from][0])
        )
    elif scenario.private_scaling(vals):
        rows.append(
            (
                "Scaling",
                f"{scale_words(vals)}; the bounds: {scenario.SCALE_SOURCES[s.bounds_from][0]} (the "
                "scales each release chose are published with it: see the scales table)",
            )
        )
    rows.append(("Centring", CENTRING_WORDS[s.centring]))
    rows.append(("Clipping radius", radius_words(vals, prep)))
    rows.append(("Mechanisms", _names(mechs) if mechs else "none"))
    rows.append(
        (
            "Privacy budget",
            f"ε = {number(s.epsilon)}, δ = {number(s.delta)} for each release; neighbouring "
            f"datasets {describe_neighbors(s.neighbors)}",
        )
    )
    split = scenario.budget(vals)
    if split is not None:
        parts = ", ".join(f"{part} {share:.0%}" for part, share in split.as_dict().items() if share > 0)
        rows.append(("Budget split", f"{parts} of each release's budget"))
    rows.append(
        (
            "Components",
            f"k chosen privately inside each release: {scenario.k_rule_words(vals)} (the k each "
            "release chose is published with it)"
            if scenario.private_k(vals)
            else f"k = {s.k}",
        )
    )
    if s.support_size or ds.support is not None:
        rows.append(("Support size", f"s = {s.support_size or len(ds.support)} rows scored for support recovery"))
    for mech in mechs:
        params = {
            k: v for k, v in scenario.mech_params(mech, vals).items() if not scenario.is_default(f"{mech}.{k}", v)
        }
        if params:
            rows.append((f"{display_name(mech)} parameters", ", ".join(f"{k} = {v}" for k, v in params.items())))
    rows.append(
        (
            "Repetitions",
            f"{s.repetitions} runs per mechanism, noise seed {s.seed} (seeded: to explore "
            "and reproduce, never to publish)",
        )
    )
    return pd.DataFrame(rows, columns=["setting", "value"])


def radius_words(vals: dict, prep) -> str:
    """Where R came from, in words: a public number, or chosen privately inside each release by its rule."""
    s = scenario.Settings(vals)
    if prep.radius is None:
        return (
            f"R = {number(s.radius)}, {scenario.R_SOURCES[s.radius_from][0]}; {prep.data.n_clipped:,} rows were longer "
            "and clipped (a non-private count)"
        )
    low, high = prep.radius.bounds
    return (
        f"chosen privately inside each release with {s.radius_share:.0%} of its budget: a noisy search for the "
        f"{number(prep.radius.quantile)} quantile of the rows' norms between {number(low)} and {number(high)} (the R each release "
        "chose is published with it: see the radius table)"
    )


def scale_words(vals: dict) -> str:
    """A private column scaling in words."""
    share = scenario.Settings(vals).scale_share
    return (
        f"each column divided by a private root-mean-square chosen inside each release with {share:.0%} "
        "of its budget, from public bounds on the columns"
    )


def privacy_statement(vals: dict) -> str:
    """Whether every data-dependent choice before the release is private, in one sentence (or which are not)."""
    s = scenario.Settings(vals)
    choices = scenario.nonprivate_choices(vals)
    if not choices:
        made = [
            "the clipping radius R " + ("chosen privately" if scenario.private_radius(vals) else "from a public bound")
        ]
        made.append({"none": "no centring", "private": "a private mean"}.get(s.centring, s.centring))
        if s.scaling == "bounds":
            made.append("scaling by public bounds")
        elif scenario.private_scaling(vals):
            made.append(f"each column scaled privately ({s.scale_share:.0%} of the budget)")
        if scenario.private_k(vals):
            made.append(
                f"k chosen privately from the eigenvalue share (explained-variance target {number(s.variance_target)})"
            )
        return (
            "Every choice that depends on the data is private (" + ", ".join(made) + "): each release states "
            "its full guarantee."
        )
    return (
        "Not every choice that depends on the data is private, so a release states no guarantee. Not private: "
        + "; ".join(choices)
        + "."
    )


def _percent(x: float) -> str:
    return f"{x:.0f}%" if x >= 10 else f"{number(x, 2)}%"


#: more than this share of the rows clipped at a public R: the diagnostics' reference is the PCA of distorted rows
MOST_CLIPPED = 0.5


def clipping_words(vals: dict, prep) -> str | None:
    """Why the diagnostics mislead when most rows are clipped at a public R (None otherwise): the reference they are
    scored against is the exact PCA of the clipped rows, so "captured energy 99.9%" can sit beside a spectrum the
    clipping flattened. A count read from the data: not private, for the data owner."""
    if getattr(prep, "radius", None) is not None:  # R chosen privately: each release clips at its own R
        return None
    n, clipped = prep.data.n, prep.data.n_clipped
    if not n or clipped <= MOST_CLIPPED * n:
        return None
    radius = scenario.Settings(vals).radius
    return (
        f"{clipped:,} of {n:,} rows ({100 * clipped / n:.0f}%) are longer than R = {number(radius)} and clipped: every "
        "number here compares the releases with the exact PCA of the clipped rows, whose spectrum the clipping "
        "distorts, so a high captured energy says little about the data's own directions. Set R from a public "
        "bound on the rows' length (Data page). A count read from the data: not private."
    )


def summary_sentences(vals: dict, ds, results: dict, random_level: float, prep=None) -> list[str]:
    """A summary for a non-technical reader: what was compared, at which ε, what privacy costs (after the clipping
    warning when most rows are clipped: ``prep``, :func:`clipping_words`), what ε means for one person (from the
    first mechanism with a guarantee)."""
    s = scenario.Settings(vals)
    kept = (
        "letting each release choose k privately (the smallest k whose private explained-variance ratios sum "
        f"above {number(s.variance_target)})"
        if scenario.private_k(vals)
        else f"keeping k = {s.k} components"
    )
    out = [
        f"We compared {_names(results)} on {data_words(vals, ds)}, at a privacy budget of ε = {number(s.epsilon)} "
        f"(δ = {number(s.delta)}) for each release, {kept}."
    ]
    clipping = None if prep is None else clipping_words(vals, prep)
    if clipping:
        out.append(clipping)
    for mech, res in results.items():
        spec = get_mechanism(mech)
        if spec.guarantee == "none":
            out.append(f"{display_name(mech)} is the exact analysis without privacy, shown as the reference.")
            continue
        energy = experiments.summary(res.energy)
        distance = experiments.summary(res.distance)[0]
        cost = (
            f"What privacy costs with {display_name(mech)}: its private result keeps {_percent(energy[0])} of the "
            f"variance the exact, non-private analysis captures (95% of runs between {_percent(energy[1])} and "
            f"{_percent(energy[2])})"
        )
        if distance >= 0.95 * random_level:
            cost += "; its directions are no better than random ones here: at this ε the noise hides the pattern."
        elif distance <= 0.1 * random_level:
            cost += "; its directions are close to the exact ones."
        else:
            cost += "."
        if spec.guarantee == "retracted":
            cost += " Its privacy claim was retracted: it is NOT private, whatever its accuracy."
        out.append(cost)
    curves = {m: r.privacy for m, r in results.items() if r.privacy.kind != "none"}
    if curves:
        mech, curve = next(iter(curves.items()))
        sentences = risk.risk_summary(curve, neighbors=s.neighbors)["sentences"]
        person = [line for line in sentences if "10% sure" in line] or sentences[-1:]
        out.append(
            f"What ε = {number(s.epsilon)} means for one person ({display_name(mech)}): {sentences[0]} "
            + " ".join(person)
        )
    out.append(privacy_statement(vals))
    return out
