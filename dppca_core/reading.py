"""How to read a published release: its numbers post-processed for a reader, and the warnings a reader needs.

Pure functions of a :func:`dppca_core.publish` output (and the public settings and schema beside it): nothing here
reads data, so every value is post-processing of published numbers and spends no budget.

* :func:`shares`: the released shares of variance, each in [0, 1] and their total at most 1, with 95% intervals
  from the published noise scale (the raw ratios, variance over a noisy total, can fall below 0 or add up to more
  than 1).
* :func:`used`: the clipping radius R, the column scales and the mean a release used, per column.
* :func:`score_panels`: the score plot's counts per panel (negative noisy counts shown as 0).
* :func:`delta_warning`: a δ above 1/n, in words.
* :func:`number`: any number a person reads (ε, δ, R, a ratio, a range), at most four significant digits: the one
  formatter of the app, the brief, the deck and the guarantee sentences. The exact values stay in the JSON, the link
  and the scenario file.

The publishable file carries them (:func:`dppca_core.publishable.in_words`), so that its brief, its deck and every
reader of the JSON see the same numbers.
"""

from __future__ import annotations

import math

#: significant digits of a number a person reads (:func:`number`)
DIGITS = 4
#: below this (and from :data:`LARGE` up) a number is written with a power of ten: 3.09 × 10⁻⁶
SMALL = 1e-4
LARGE = 1e9
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
#: the 95% normal quantile of the intervals
Z95 = 1.96
#: the shares are read only when the noisy total variance is more than this many noise s.d.s above 0
#: (dppca_core.publishable.TOTAL_NOISE_MULTIPLE: nearer 0 a ratio to it has no stable estimate)
TOTAL_NOISE_MULTIPLE = 2.0


def shares(pub: dict) -> dict:
    """The released shares of variance of ``pub``, post-processed for a reader.

    Each released variance v_i (the variance along component i, private) is raised to 0 when the noise made it
    negative, and the released total T to at least the sum of those: share_i = max(v_i, 0) / max(T, sum_j max(v_j,
    0)), so each share lies in [0, 1] and their total is at most 1. The 95% interval of a share is share_i ± 1.96
    (s / T') sqrt(1 + share_i^2) (the delta method for a ratio of two values each with the published noise s.d. s),
    kept in [0, 1]. Returns {"measured": "yes", "too noisy" or "no eigenvalue share", "honest": whether the variances
    come from their own share of the budget (else from the noise that chose the directions, which overstates them),
    "shares", "low", "high" (None unless measured or read from the noisy matrix), "total", "noise_sd",
    "sentence"}. With k chosen privately every candidate component is read (the release publishes them all).
    """
    outputs, facts = pub.get("outputs", {}), pub.get("facts", {})
    ratios = outputs.get("candidate_ratios") or outputs.get("explained_variance_ratio")
    total = outputs.get("total_variance")
    honest = "eigenvalues" in facts.get("budget", {})
    out = {"measured": "no eigenvalue share", "honest": honest, "shares": None, "low": None, "high": None}
    out.update(total=None, noise_sd=None)
    if not ratios or not total:
        out["sentence"] = "This release published no shares of variance (its budget gave the eigenvalues no share)."
        return out
    sd = facts.get("eigenvalue_noise_scale")
    if sd is None:  # Analyze Gauss's noisy matrix: v' E v for a unit v has s.d. about sqrt(2) sigma
        sd = math.sqrt(2.0) * float(pub.get("noise_scale") or 0.0)
    variances = [max(float(r) * float(total), 0.0) for r in ratios]
    kept = max(float(total), math.fsum(variances))
    out["noise_sd"] = float(sd)
    if float(total) <= TOTAL_NOISE_MULTIPLE * float(sd) or kept <= 0:
        out["measured"] = "too noisy"
        out["sentence"] = (
            "No share of variance can be read from this release: the noise on the total variance is as large as "
            "the total itself."
        )
        return out
    values = [v / kept for v in variances]
    errors = [Z95 * float(sd) / kept * math.sqrt(1.0 + v * v) for v in values]
    out.update(
        measured="yes" if honest else "no eigenvalue share",
        shares=values,
        low=[max(v - e, 0.0) for v, e in zip(values, errors)],
        high=[min(v + e, 1.0) for v, e in zip(values, errors)],
        total=math.fsum(values),
    )
    out["sentence"] = (
        "Shares of the total variance along each released component, as the release measured them privately: a "
        "variance the noise made negative is shown as 0, and the total is at least the sum of the parts, so each "
        "share lies between 0 and 1 and they add up to at most 100%; the bars span 95% of the noise."
        if honest
        else "Shares read from the noisy matrix that chose the directions: the same noise that picked them makes "
        "them look larger than they are (an eigenvalue share of the budget measures them honestly)."
    )
    return out


def used(pub: dict, settings: dict | None = None, columns: list | None = None) -> dict:
    """What ``pub`` used, per column: the scale it divided the column by (a public bound, a private scale or 1), the
    mean it centred with (its private mean, in the column's own unit: the published mean times the scale), and the
    clipping radius R (public, or chosen privately by the release), with how each was chosen."""
    settings = settings or {}
    outputs, parameters = pub.get("outputs", {}), pub.get("parameters", {})
    d = len(pub["components"])
    columns = list(columns) if columns else [f"feature {j + 1}" for j in range(d)]
    scaling = settings.get("scaling") or {}
    if outputs.get("column_scales") is not None:
        scales, scale_rule = [float(s) for s in outputs["column_scales"]], "chosen privately by this release"
    elif scaling.get("rule") == "bounds" and scaling.get("bounds"):
        scales, scale_rule = [float(b) for b in scaling["bounds"]], "public bounds"
    elif parameters.get("column_bounds") is not None:
        scales, scale_rule = [float(b) for b in parameters["column_bounds"]], "public bounds"
    else:
        scales, scale_rule = [1.0] * d, "none (the columns as they are)"
    mean = outputs.get("mean")
    radius = outputs.get("radius")
    if isinstance(radius, dict):
        R, radius_rule = float(radius["value"]), "chosen privately by this release"
    else:
        R = float(parameters.get("data_norm")) if parameters.get("data_norm") is not None else None
        radius_rule = "a public bound"
    rows = [
        {
            "column": str(name),
            "divided by": scales[j],
            "mean": None if mean is None else float(mean[j]) * scales[j],
        }
        for j, name in enumerate(columns)
    ]
    return {
        "radius": R,
        "radius_rule": radius_rule,
        "scale_rule": scale_rule,
        "centred": mean is not None,
        "columns": rows,
    }


def score_panels(pub: dict) -> dict | None:
    """The score plot of ``pub`` per panel (each group's, or every row's): {"dims": 1 or 2, "edges": (x edges, y
    edges or None), "panels": {name: counts with negative noisy counts shown as 0}}, or None when it published none."""
    scores = pub.get("outputs", {}).get("scores")
    if not scores:
        return None
    dims = int(scores.get("dims", 2))
    edges = scores["edges"]
    ex, ey = (edges[0], edges[1]) if dims == 2 else (edges, None)
    counts = scores["counts"]
    groups = scores.get("groups")
    named = dict(zip(map(str, groups), counts)) if groups else {"every row": counts}

    def floor0(c):
        return [floor0(x) for x in c] if isinstance(c, list) else max(float(c), 0.0)

    return {
        "dims": dims,
        "edges": (list(ex), None if ey is None else list(ey)),
        "panels": {k: floor0(v) for k, v in named.items()},
    }


def delta_warning(delta: float, n: int | None) -> str | None:
    """Why a δ above 1/n is too large, in words (None when δ <= 1/n or n is unknown): a mechanism that publishes one
    row in full with probability δ, chosen at random, meets (ε, δ)-DP for any ε, and with δ > 1/n it would publish
    about δ n >= 1 rows."""
    if not delta or not n or delta <= 1.0 / n:
        return None
    return (
        f"δ = {delta:g} is larger than 1/n = {1.0 / n:.2g} (n = {n:,} rows): a release that showed each row in "
        f"full with probability δ would meet this guarantee while showing about {delta * n:.3g} rows. Choose δ "
        f"well below 1/n (1e-6, or at most 1/n² = {1.0 / n**2:.2g})."
    )


def number(value, digits: int = DIGITS) -> str:
    """``value`` as a person reads it, at a glance: at most ``digits`` significant digits with the trailing zeros
    dropped (ln 3 = 1.0986... is "1.099", 2.4494897 is "2.449"), thousands separated by commas ("291,500"), a power
    of ten below 0.0001 or from 10⁹ up ("3.09 × 10⁻⁶", δ = 1e-6 is "10⁻⁶"), "∞" for an infinite value and "n/a" for
    None or NaN. A Python or numpy integer is a count and is written whole ("12,345"). Every number a page, a
    record, the brief or a guarantee sentence shows goes through here; the exact value stays in the JSON and the
    link."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int) or (hasattr(value, "dtype") and getattr(value.dtype, "kind", "") in "iu"):
        return f"{int(value):,}"
    x = float(value)
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mantissa, exponent = f"{abs(x):.{digits - 1}e}".split("e")
    exponent = int(exponent)
    if SMALL <= abs(x) < LARGE:
        rounded = float(f"{abs(x):.{digits - 1}e}")
        places = max(digits - 1 - exponent, 0)
        text = f"{rounded:,.{places}f}"
        return sign + (text.rstrip("0").rstrip(".") if "." in text else text)
    mantissa = mantissa.rstrip("0").rstrip(".")
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return sign + (power if mantissa == "1" else f"{mantissa} × {power}")


def span(low, high, digits: int = DIGITS) -> str:
    """A range of values in words ("3.09 × 10⁻⁶ to 100"; one number when both ends read the same)."""
    a, b = number(low, digits), number(high, digits)
    return a if a == b else f"{a} to {b}"
