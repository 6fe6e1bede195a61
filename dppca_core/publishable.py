"""The publishable file: releases with a guarantee, their public settings and schema, and what they mean in words.

:func:`publishable_file` gathers :func:`dppca_core.publish` outputs (fresh randomness, a guarantee that holds) into
one self-describing, JSON-ready dict: the public schema (feature names and order, what a bad cell becomes), the
public settings (scaling with its bounds, centring, the clipping radius, k and how it was chosen, the budget split),
the units of every released number, a format version, and, computed from the releases alone, what they mean for one
person and for the reader (:func:`in_words`): the attacker's odds, its best test, the budget's parts in units that
add up, the variance the released directions capture against random ones, deployments of differential privacy to
compare ε with, and a one-line recommendation. ``docs/publishable-release.schema.json`` describes the format.

Nothing here reads data: every number is the release's own published output, a public setting, or post-processing
of them, so a brief or a deck built from the file alone (:mod:`dppca_core.handout.brief`) publishes nothing more than the file.

Mechanisms without a guarantee (the exact ``non_private`` reference) or whose claim was retracted are refused here
and by :func:`dppca_core.publish`; the file names them under ``left_out`` with the reason.
"""

from __future__ import annotations

import datetime as _dt
import json
import math

from . import reading, risk
from .reading import number
from .privacy import PrivacyCurve, describe_neighbors, total
from .data.schema import UNDECLARED
from .mechanisms import provenance
from .registry import get_mechanism
from .version import __version__
from .privacy.shares import allocate

#: the format's name and version: a reader checks both before trusting the layout
FORMAT = "dppca-publishable-release"
FORMAT_VERSION = "1.1"  # 1.1: the "software" key (which package and version made the file)
#: first line (the "export" key) of a file whose every release states its guarantee
PUBLISHABLE = (
    "Publishable release: only what each release's privacy proof covers (published()), drawn with fresh "
    "randomness from the operating system; no seed, no diagnostics."
)
#: first line of a file drawn after a data-dependent choice that was not private: it states no guarantee
NOT_PUBLISHABLE = (
    "Not publishable: these releases state no privacy guarantee, because choices made before them read "
    "the data without privacy (each release names them); no seed, no diagnostics. Fix those choices "
    "and draw again to get a release you may publish."
)
#: the parts of a budget, in words (the order of a complete release, dppca_core.pipeline.budget.PARTS)
PART_WORDS = {
    "scale": "scaling (column scales)",
    "radius": "radius (choosing R)",
    "mean": "mean (centring)",
    "subspace": "subspace (the components)",
    "eigenvalues": "eigenvalues (private scree)",
    "groups": "groups (labels present)",
    "frame": "frame (score plot axes)",
    "scores": "scores (score plot)",
}
#: each part's colour in every figure of a budget (greys and blues kept apart from the mechanism palette; dark enough
#: for white text): here, not in dppca_core.figures, so that the brief is made without plotly
PART_COLOURS = dict(
    zip(PART_WORDS, ("#5b5b5b", "#8c510a", "#01665e", "#1f4e8c", "#6a3d9a", "#7f3b08", "#3f6212", "#b2182b"))
)
#: what each released number is, and its unit
UNITS = {
    "components": "d x k matrix, one unit-length column per released direction; row i is the feature schema.columns[i]"
    " (after the scaling in settings.scaling); no unit (loadings)",
    "eigenvalues": "the released variance along each component: the sum over rows of (row . component)^2, rows divided "
    "by the clipping radius R (parameters.data_norm), so each row has length at most 1",
    "outputs.total_variance": "the released total variance, in the units of the eigenvalues",
    "outputs.explained_variance_ratio": "each component's released variance as a fraction of the released total, as "
    "released: the noise can put one below 0 or their sum above 1 (in_words.<mechanism>.shares: the same post-processed "
    "into [0, 1], adding up to at most 1, with 95% intervals)",
    "outputs.mean": "the released mean row, in the units of the scaled features",
    "outputs.scores": "counts of rows in the cells of the score plot (rows projected on the first components, "
    "divided by R)",
    "outputs.radius": "the clipping radius R each release chose, in the units of the scaled features",
    "outputs.column_scales": "the scale each release divided each feature by, in the feature's own unit",
    "epsilon, delta": "the privacy guarantee of one release (delta: a probability)",
}
#: the attacker's prior in the odds sentence ("from 50% ...") and the false-positive rate of its best test
ODDS_PRIOR = 0.5
TEST_FALSE_POSITIVE = 0.05
#: a release whose directions capture less than this multiple of a random subspace's share is not worth publishing
USEFUL_RATIO = 1.25

#: Deployments of differential privacy, with the unit their epsilon protects and the source it was checked against
#: (the source's text, or for Apple a copy of its overview; see dppca_core.risk.EPS_REFERENCES for the notes).
DEPLOYMENTS = (
    {
        "name": "US Census 2020 redistricting data (persons)",
        "epsilon": 17.14,
        "delta": None,
        "unit": "every person, for the whole data product",
        "model": "central",
        "source": "US Census Bureau, 'Census Bureau Sets Key Parameters to Protect Privacy in 2020 Census Results' "
        "(press release, 2021-06-09)",
        "url": "https://www.census.gov/newsroom/press-releases/2021/2020-census-key-parameters.html",
    },
    {
        "name": "Google COVID-19 Vaccination Search Insights",
        "epsilon": 2.19,
        "delta": 1e-05,
        "unit": "one user's vaccination-related searches in one day",
        "model": "central",
        "source": "Google, 'COVID-19 Vaccination Search Insights: Anonymization Process Description' (2021), "
        "arXiv:2107.01179",
        "url": "https://arxiv.org/abs/2107.01179",
    },
    {
        "name": "Google COVID-19 Search Trends symptoms dataset",
        "epsilon": 1.68,
        "delta": None,
        "unit": "one user's symptom searches in one day",
        "model": "central",
        "source": "Google, 'Google COVID-19 Search Trends Symptoms Dataset: Anonymization Process Description' (2020), "
        "arXiv:2009.01265",
        "url": "https://arxiv.org/abs/2009.01265",
    },
    {
        "name": "Apple emoji suggestions",
        "epsilon": 4.0,
        "delta": None,
        "unit": "one report from one device (one a day), randomised on the device",
        "model": "local",
        "source": "Apple, 'Differential Privacy Overview' (2017)",
        "url": "https://www.apple.com/privacy/docs/Differential_Privacy_Overview.pdf",
    },
    {
        "name": "Apple QuickType keyboard",
        "epsilon": 8.0,
        "delta": None,
        "unit": "one report from one device (two a day), randomised on the device",
        "model": "local",
        "source": "Apple, 'Differential Privacy Overview' (2017)",
        "url": "https://www.apple.com/privacy/docs/Differential_Privacy_Overview.pdf",
    },
)


# -- which releases may be published -------------------------------------------------------------------------


def refusal(mechanism: str) -> str | None:
    """Why ``mechanism``'s releases may never be published (no guarantee, or a retracted one), or None."""
    spec = get_mechanism(mechanism)
    if spec.guarantee == "none":
        return (
            "the exact, non-private analysis (the reference the private results are compared with): it has no "
            "privacy guarantee."
        )
    if spec.guarantee == "retracted":
        return (
            "its privacy claim was retracted (it does not hold): an attacker can tell neighbouring datasets " "apart."
        )
    return None


def _check_entry(mechanism: str, pub: dict) -> None:
    if pub.get("export") != "publishable release" or pub.get("fresh_randomness") is not True:
        raise ValueError(f"{mechanism}: only dppca_core.publish() of a release drawn with seed=None is publishable.")
    reason = refusal(pub.get("mechanism", mechanism))
    if reason:
        raise ValueError(f"{mechanism}: {reason} It cannot be part of a publishable file.")
    if pub.get("guarantee") in ("none", "retracted") and not pub.get("nonprivate_choices"):
        raise ValueError(f"{mechanism}: a release without a guarantee cannot be part of a publishable file.")


def has_guarantee(file: dict) -> bool:
    """True when every release of ``file`` states its guarantee (no choice before it was made without privacy)."""
    return bool(file["releases"]) and all(
        pub["guarantee"] not in ("none", "retracted") for pub in file["releases"].values()
    )


# -- the budget's parts, in units that add up ------------------------------------------------------------------


def percents(shares) -> list[int]:
    """Whole percentages of ``shares`` (fractions summing to 1) that add up to exactly 100: each share rounded down,
    the missing points given to the largest remainders (Hamilton's method)."""
    shares = [max(float(s), 0.0) for s in shares]
    total = math.fsum(shares)
    if total <= 0:
        raise ValueError("no budget share to show: give at least one part a positive share.")
    exact = [100.0 * s / total for s in shares]
    out = [math.floor(x + 1e-9) for x in exact]
    order = sorted(range(len(exact)), key=lambda i: (-(exact[i] - out[i]), i))
    for i in order[: 100 - sum(out)]:
        out[i] += 1
    return out


def budget_parts(
    parts: dict, privacy: dict | None = None, epsilon: float | None = None, delta: float | None = None
) -> dict:
    """A release's budget parts (``facts["budget"]`` of a published release, or :func:`split_parts`) in the unit in
    which they add up. ``privacy`` (the release's published curve) is not needed: the parts' calibration says it.

    Gaussian parts compose by adding mu^2 (Gaussian DP, Dong, Roth & Su 2022, Cor. 3.3; equivalently rho = mu^2 / 2
    in zero-concentrated DP), so each part's share is its share of mu^2 and the total (epsilon, delta) is computed
    exactly from mu = sqrt(sum mu_i^2), not as a sum of epsilons. Pure parts add their epsilons (basic composition),
    and so do the (epsilon, delta) parts of a non-Gaussian subspace mechanism. Returns {"unit": "mu^2" or
    "epsilon", "total", "parts": [{"part", "words", "share", "percent", "amount"}], "sentence"}; the percents are
    whole numbers adding up to exactly 100 (:func:`percents`).
    """
    names = [p for p in PART_WORDS if p in parts] + [p for p in parts if p not in PART_WORDS]
    names = [p for p in names if float(parts[p]["share"]) > 0]
    # every part calibrated as a Gaussian (a mu each) was allocated a share of mu^2, whatever else the release's curve
    # composes (e.g. the delta slice of a sparse score plot's threshold)
    gaussian = bool(names) and all(parts[p].get("mu") is not None for p in names)
    rounded = percents([parts[p]["share"] for p in names])
    rows = []
    for name, pct in zip(names, rounded):
        part = parts[name]
        amount = float(part["mu"]) ** 2 if gaussian else float(part["epsilon"])
        rows.append(
            {
                "part": name,
                "words": PART_WORDS.get(name, name),
                "share": float(part["share"]),
                "percent": pct,
                "amount": amount,
            }
        )
    total = math.fsum(r["amount"] for r in rows)
    eps_words = "" if epsilon is None else f" (ε = {number(epsilon)}" + (f", δ = {number(delta)})" if delta else ")")
    if gaussian:
        added = " + ".join(f"{r['percent']}%" for r in rows)
        sentence = (
            f"Each part's share is its share of μ² (equivalently of ρ in zero-concentrated DP): Gaussian parts "
            f"add up in μ², {added} = 100% of μ² = {number(total)} (μ = {number(math.sqrt(total))}). The total "
            f"guarantee{eps_words} is computed exactly from them; it is not the sum of the parts' ε."
        )
    else:
        added = " + ".join(number(r["amount"]) for r in rows)
        sentence = (
            f"Each part's share is its share of ε: these parts add up in ε, {added} = {number(total)}"
            + (f", the release's ε = {number(epsilon)}" if epsilon is not None else "")
            + " (basic composition)."
        )
    return {"unit": "mu^2" if gaussian else "epsilon", "total": total, "parts": rows, "sentence": sentence}


def split_parts(weights: dict, epsilon: float, delta: float, curve: str = "gdp") -> dict:
    """:func:`budget_parts` of a budget split before any release: ``weights`` part -> share (e.g.
    ``BudgetSplit.as_dict()``), calibrated as a complete release would (:func:`dppca_core.privacy.shares.allocate`, with
    ``curve`` the subspace mechanism's kind of guarantee: "gdp", "pure" or "approx")."""
    shares = allocate({p: w for p, w in weights.items() if w > 0}, epsilon, delta, curve)
    parts = {
        p: {"share": s.weight, "epsilon": s.epsilon, "delta": s.delta, **({"mu": s.mu} if s.mu is not None else {})}
        for p, s in shares.items()
    }
    privacy = {"kind": "gdp"} if curve == "gdp" else {"kind": curve}
    return budget_parts(parts, privacy, epsilon, delta)


# -- what a release means, in words (from its privacy curve and its published numbers only) --------------------


def curve_from_dict(privacy: dict) -> PrivacyCurve:
    """The :class:`PrivacyCurve` of a published ``privacy`` dict (:meth:`PrivacyCurve.from_dict`)."""
    return PrivacyCurve.from_dict(privacy)


def _subject(neighbors: str) -> str:
    return (
        "that a given person is in the data"
        if neighbors == "add_remove"
        else "that a given person's row holds one value rather than another"
    )


def odds(curve: PrivacyCurve, neighbors: str) -> dict:
    """How sure an attacker who knew everything else can become: from 50% to at most ``posterior`` (the posterior
    bound of :func:`dppca_core.risk.posterior_bound` at prior 50%, failing with probability at most ``tail``)."""
    bound = risk.posterior_bound(curve, ODDS_PRIOR)
    sentence = (
        f"Whoever knew everything else about the data could move from {ODDS_PRIOR:.0%} to "
        f"{risk.at_most(bound.posterior)} sure {_subject(neighbors)}"
        + (f" ({risk.SATURATED_WORDS})" if bound.posterior > risk.SATURATED else "")
    )
    if not bound.always:
        sentence += f", except with probability at most {_tail_words(bound.tail)}"
    return {"prior": ODDS_PRIOR, "posterior": bound.posterior, "tail": bound.tail, "sentence": sentence + "."}


def _tail_words(tail: float) -> str:
    odds_ = 1.0 / tail
    return f"1 in {round(odds_):,}" if abs(odds_ - round(odds_)) < 1e-6 * odds_ else number(tail, 2)


def best_test(curve: PrivacyCurve, neighbors: str) -> dict:
    """The attacker's best test in one sentence: at a false-positive rate of 5%, the largest share of the people in
    question it can catch (1 - f(0.05), with f the release's trade-off function)."""
    power = 1.0 - float(risk.tradeoff(curve, TEST_FALSE_POSITIVE))
    question = (
        "is this person in the data?"
        if neighbors == "add_remove"
        else "does this person's row hold one value or the other?"
    )
    alarm = f"{TEST_FALSE_POSITIVE:.0%}"
    sentence = (
        f"The attacker's best test of '{question}', allowed {alarm} false alarms, is right "
        f"{risk.at_most(power)} of the time when the answer is yes (a blind guess with the same "
        f"false alarms: {alarm}" + (f"; {risk.SATURATED_WORDS}" if power > risk.SATURATED else "") + ")."
    )
    return {"false_positive": TEST_FALSE_POSITIVE, "power": power, "sentence": sentence}


#: the captured share is measured only when the noisy total variance T is more than this many times its noise s.d.
#: above 0: nearer 0 the ratio sum(v_i) / T has no stable estimate (the delta method's error, (s / T) sqrt(k + c^2),
#: assumes T well above its noise; a T just above 0 once gave "100% ± 83147%"). A measurement whose standard error
#: reaches 100 points is refused too: both say the noise was larger than the variance it measures.
TOTAL_NOISE_MULTIPLE = 2.0


def utility(pub: dict) -> dict:
    """The variance the released directions capture, against k / d, what k directions drawn at random capture on
    average.

    Measured only by a release with an eigenvalue share: its variances along the released directions and the total
    variance are one noisy vector released with its own noise (:func:`dppca_core.pipeline.budget.private_variances`), so
    their ratio is an honest estimate; variances read from the noise that chose the directions would overstate it.
    ``standard_error`` is the delta-method error of the ratio c = sum(v_i) / T from that noise's published scale s:
    (s / T) sqrt(k + c^2). ``captured`` is the estimate kept in [0, 1] (post-processing). ``measured`` is "too
    noisy" (nothing estimated) when T is within :data:`TOTAL_NOISE_MULTIPLE` noise s.d.s of 0 or the error reaches
    100 points."""
    components = pub["components"]
    d, k = len(components), len(components[0]) if components else 0
    out = {
        "k": k,
        "d": d,
        "random": k / d if d else None,
        "captured": None,
        "estimate": None,
        "standard_error": None,
        "measured": "no eigenvalue share",
    }
    outputs, facts = pub.get("outputs", {}), pub.get("facts", {})
    ratios, total = outputs.get("explained_variance_ratio"), outputs.get("total_variance")
    scale = facts.get("eigenvalue_noise_scale")
    if not ratios or "eigenvalues" not in facts.get("budget", {}) or scale is None:
        return out
    if not total or total <= TOTAL_NOISE_MULTIPLE * float(scale):  # the noise swamped the total variance itself
        out["measured"] = "too noisy"
        return out
    estimate = float(math.fsum(ratios[:k]))
    error = float(scale) / float(total) * math.sqrt(k + estimate**2)
    if error >= 1.0:  # give or take 100 points of a share in [0, 1]: not a measurement
        out["measured"] = "too noisy"
        return out
    out.update(measured="yes", estimate=estimate, captured=min(max(estimate, 0.0), 1.0), standard_error=error)
    return out


def recommendation(words: dict, epsilon: float | None, context=DEPLOYMENTS) -> str:
    """One line a reader can act on, from the releases' utility against a random subspace (and its noise) and ε
    against the deployments."""
    useful = {m: w["utility"] for m, w in words.items() if w["utility"]["captured"] is not None}
    if not useful and any(w["utility"]["measured"] == "too noisy" for w in words.values()):
        return (
            "Do not publish these directions as findings: the noise is larger than the variance it measures. "
            "Raise ε or collect more rows, then draw again."
        )
    if not useful:
        return (
            "Do not judge these directions yet: the release did not measure its own utility. Draw it again with "
            "an eigenvalue share in the budget split, so that it publishes the variance it captures."
        )
    best, u = max(
        useful.items(),
        key=lambda item: (item[1]["captured"] - item[1]["random"]) / max(item[1]["standard_error"], 1e-12),
    )
    name = words[best]["title"]
    captured, random_share, error = u["captured"], u["random"], u["standard_error"]
    if captured - random_share < 2 * error:
        return (
            f"Do not publish these directions as findings: the noise is too large to tell them from k directions "
            f"at random ({name}: {captured:.0%} of the variance, give or take {error:.0%}, against "
            f"{random_share:.0%}). Raise ε or collect more rows, then draw again."
        )
    if captured < USEFUL_RATIO * random_share:
        return (
            f"Do not publish these directions as findings: {name}'s directions capture {captured:.0%} of the "
            f"variance, about as much as k directions at random ({random_share:.0%}). Raise ε or collect more "
            "rows, then draw again."
        )
    largest = max(c["epsilon"] for c in context)
    caution = (
        f" ε = {number(epsilon)} is above every deployment listed (at most {number(largest)}): say so when you publish."
        if epsilon is not None and epsilon > largest
        else ""
    )
    return (
        f"Publish {name}'s release: its directions capture {captured:.0%} of the variance (give or take "
        f"{error:.0%}) against {random_share:.0%} for k directions at random.{caution}"
    )


def in_words(releases: dict, titles: dict | None = None) -> dict:
    """What each release means (odds, best test, budget parts, utility) and, with several releases of the same data,
    what they mean together (their composed guarantee: publishing them all spends every one's budget)."""
    out = {}
    for mech, pub in releases.items():
        curve = curve_from_dict(pub["privacy"])
        entry = {
            "title": (titles or {}).get(mech, get_mechanism(pub["mechanism"]).display_name),
            "utility": utility(pub),
        }
        if curve.kind != "none":
            entry["odds"] = odds(curve, pub["neighbors"])
            entry["best_test"] = best_test(curve, pub["neighbors"])
        budget = pub.get("facts", {}).get("budget")
        if budget:
            entry["budget"] = budget_parts(budget, pub["privacy"], pub["epsilon"], pub["delta"])
        entry["shares"] = reading.shares(pub)  # in [0, 1], adding up to at most 1, with 95% intervals
        out[mech] = entry
    return out


def together(releases: dict, earlier=()) -> dict | None:
    """The guarantee of publishing every release of ``releases`` (same data: they compose) with the ``earlier`` spends
    on the same data that shaped them (each {"what", "privacy", "delta"}: a planner's private stand-in, an earlier
    release), or None for one release and nothing earlier. ``releases`` and ``earlier`` in the result count them."""
    earlier = list(earlier or ())
    if len(releases) + len(earlier) < 2:
        return None
    pubs = list(releases.values())
    curves = [curve_from_dict(p["privacy"]) for p in pubs] + [curve_from_dict(e["privacy"]) for e in earlier]
    curve, epsilon, delta = total(curves, [p["delta"] for p in pubs] + [e["delta"] for e in earlier])
    if curve.kind == "none":
        return None
    neighbors = pubs[0]["neighbors"]
    return {
        "releases": len(pubs),
        "earlier": len(earlier),
        "epsilon": epsilon,
        "delta": delta,
        "privacy": curve.as_dict(),
        "odds": odds(curve, neighbors),
        "best_test": best_test(curve, neighbors),
    }


# -- the file --------------------------------------------------------------------------------------------------


def _declared_schema(schema: dict | None, d: int | None) -> dict:
    """The file's schema: every key present, refused when suggested from the cells (``"declared": False``) or when
    its columns are not the releases' d; a schema given without the key is the caller's declaration."""
    schema = dict(schema or {})
    schema.setdefault("columns", None)
    schema.setdefault("replacement", {})
    schema.setdefault("label", None)
    if schema.get("declared", True) is not True:
        raise ValueError(UNDECLARED)
    schema["declared"] = True
    if schema["columns"] is not None and d is not None and len(schema["columns"]) != d:
        raise ValueError(f"the schema names {len(schema['columns'])} columns but the releases have d = {d}.")
    return schema


def _base_settings(first: dict | None, d: int | None) -> dict:
    """The settings every release of a file shares, read off its first release (none for an empty file)."""
    if not first:
        return {}
    return {
        "epsilon": first["epsilon"],
        "delta": first["delta"],
        "neighbors": first["neighbors"],
        "neighbors_words": describe_neighbors(first["neighbors"]),
        "d": d,
    }


def publishable_file(
    releases: dict,
    *,
    schema: dict | None = None,
    settings: dict | None = None,
    titles: dict | None = None,
    left_out: dict | None = None,
    purpose: str = "",
    created: str | None = None,
    earlier=(),
) -> dict:
    """The publishable file of ``releases`` (mechanism -> :func:`dppca_core.publish` output), self-describing.

    Refuses (ValueError) a release that is not ``publish()`` of fresh randomness, and any release of a mechanism
    without a guarantee or with a retracted one (:func:`refusal`): those belong in ``left_out`` (mechanism -> why).
    A release drawn after a non-private choice (``publish(..., nonprivate_choices=...)``) states no guarantee: the
    file's first line then says it is not publishable. ``schema``: the public schema ({"columns": [...],
    "replacement": {column: value}, "label": name or None, "declared": bool}, e.g.
    :meth:`dppca_core.data.schema.PublicSchema.as_dict`); one with ``"declared": False`` (columns suggested by
    reading the cells) is refused, and a schema the caller gives without the key is recorded as declared (the
    caller named it); ``settings``: the public settings the releases were
    drawn with (the scaling and its bounds, centring, radius, k and its rule, the budget split); ``titles``:
    mechanism -> display name; ``purpose``: what the release is for, in words; ``earlier``: the spends on the same
    data before these releases that shaped them ({"what", "privacy", "delta"} each: the planner's private stand-in, an
    earlier release), stated under ``spent_before`` and composed into ``together`` (issue 55: one total everywhere).
    """
    for mech, pub in releases.items():
        _check_entry(mech, pub)
    first = next(iter(releases.values()), None)
    d = len(first["components"]) if first else None
    schema = _declared_schema(schema, d)
    base = _base_settings(first, d)
    releases = {mech: _scaling_stated(pub, settings) for mech, pub in releases.items()}
    words = in_words(releases, titles)
    for mech, pub in releases.items():  # the R, scales and mean each release used, per column (public or published)
        words[mech]["used"] = reading.used(pub, settings, schema["columns"])
    eps = first["epsilon"] if first else None
    file = {
        "export": PUBLISHABLE,
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "software": {"name": "dppca-explorer", "version": __version__},
        "created": created or _dt.date.today().isoformat(),
        "purpose": purpose
        or (
            "Principal components: the few directions across the features along which the rows "
            "vary most, released with differential privacy so that no one person's row can be "
            "learned from them."
        ),
        "schema": schema,
        "settings": {**base, **(settings or {})},
        "units": dict(UNITS),
        "releases": {
            mech: {
                **pub,
                "title": words[mech]["title"],
                "provenance": provenance.as_dict(get_mechanism(pub["mechanism"])),
            }
            for mech, pub in releases.items()
        },
        "left_out": [
            {"mechanism": m, "title": get_mechanism(m).display_name, "reason": why}
            for m, why in (left_out or {}).items()
        ],
        "in_words": words,
        "spent_before": [
            {"what": str(e["what"]), "privacy": dict(e["privacy"]), "delta": float(e["delta"])} for e in earlier or ()
        ],
        "together": together(releases, earlier),
        "context": [dict(c) for c in DEPLOYMENTS],
        "recommendation": "",
    }
    if has_guarantee(file):
        file["recommendation"] = recommendation(words, eps)
    else:
        file["export"] = NOT_PUBLISHABLE
        file["recommendation"] = "Do not publish: " + (
            "no release has a guarantee." if not releases else "a choice made before the releases was not private."
        )
    return file


def _scaling_stated(pub: dict, settings: dict | None) -> dict:
    """``pub`` whose parameters say the public scaling its rows had before it read them: with the columns divided by
    public bounds the release read rows already scaled (its own option "none"); its parameters then say "bounds"
    with the bounds, as a release that divided them itself says, so that they agree with the file's settings."""
    scaling = (settings or {}).get("scaling") or {}
    parameters = pub.get("parameters", {})
    if scaling.get("rule") != "bounds" or not scaling.get("bounds") or parameters.get("scale") != "none":
        return pub
    return {**pub, "parameters": {**parameters, "scale": "bounds", "column_bounds": list(scaling["bounds"])}}


def file_json(file: dict) -> str:
    """The file as JSON text whose first line is its first key, "export" (what the file is)."""
    body = json.dumps({k: v for k, v in file.items() if k != "export"}, indent=1, allow_nan=False, ensure_ascii=False)
    return '{"export": ' + json.dumps(file["export"], ensure_ascii=False) + ",\n" + body[1:].lstrip("\n")
