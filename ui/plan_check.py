"""Whether a plan's promise held, for the Report: the exploration's seeded releases on the rows (not private, for the
data owner) and what each release drawn to publish can tell about the targets from its own published numbers
(post-processing: :func:`dppca_core.planning.release_evidence`, publishable with it)."""

from __future__ import annotations

import numpy as np

from dppca_core.audit.bounds import clopper_pearson_arrays
from dppca_core.planning import TARGETS, evidence_words, release_evidence
from dppca_core.registry import display_name

#: the targets the exploration's repetitions measure (RunResult's per-repetition arrays; the energy in percent)
MEASURED = {"subspace_distance": ("distance", 1.0), "energy": ("energy", 0.01), "f1": ("f1", 1.0)}


def on_rows(planned: dict, results: dict | None, n_rows: int | None) -> str | None:
    """How many of the exploration's releases of the planned mechanism met every target, against the promise; None
    when the Report has none of them."""
    if planned.get("n") and n_rows and int(planned["n"]) != int(n_rows):
        return (
            f"It was planned for {int(planned['n']):,} rows, not this table's {int(n_rows):,}: its promise is for that "
            "many rows, which these rows cannot check."
        )
    res = (results or {}).get(planned["mechanism"])
    if res is None:
        return None
    targets = planned.get("targets", {})
    measured = {t: v for t, v in targets.items() if t in MEASURED and getattr(res, MEASURED[t][0]) is not None}
    if not measured:
        return None
    met = np.ones(len(res.distance), dtype=bool)
    for name, target in measured.items():
        attr, unit = MEASURED[name]
        met &= TARGETS[name].meets(np.asarray(getattr(res, attr), dtype=float) * unit, target)
    count, reps = int(met.sum()), int(met.size)
    lo, hi = clopper_pearson_arrays(np.array([count]), reps, 0.95)
    confidence = float(planned.get("confidence", 0.9))
    verdict = (
        f"consistent with the promised {100 * confidence:.0f}%"
        if hi[0] >= confidence
        else f"below the promised {100 * confidence:.0f}%: the promise did not hold on these rows"
    )
    left = [TARGETS[t].label for t in targets if t not in measured]
    more = f" ({', '.join(left)} not measured here)" if left else ""
    return (
        f"Did it hold? On your rows, {count} of {reps} of the exploration's releases met every target{more} (95% "
        f"interval {100 * lo[0]:.0f}% to {100 * hi[0]:.0f}%): {verdict}. Those releases are seeded and scored "
        "against the exact answer: for you, not private."
    )


def release_lines(file: dict | None, planned: dict | None) -> list[str]:
    """For each release of a publishable file: what its own numbers say (the plan's targets, when the scenario is
    still the plan's and the release is its mechanism's; else its bounds alone)."""
    out = []
    for mech, published in ((file or {}).get("releases") or {}).items():
        evidence = release_evidence(published)
        if planned and mech == planned["mechanism"] and planned.get("targets"):
            words = evidence_words(evidence, planned["targets"])
        else:
            words = [bounds_words(evidence)]
        out.append(f"{display_name(mech)}: " + " ".join(words))
    return out


def bounds_words(evidence: dict) -> str:
    """'From its own published numbers, with 95% confidence: subspace distance at most 0.1, ...'."""
    said = []
    for name, bound in evidence["bounds"].items():
        if bound is None:
            continue
        info = TARGETS[name]
        said.append(f"{info.label} {'at most' if info.lower_is_better else 'at least'} {bound:.3g}{info.unit}")
    if not said:
        if evidence.get("noisy"):
            return "Its own published numbers are too noisy to bound its accuracy (the gaps they show are within their noise)."
        return f"It cannot bound its own accuracy ({evidence['why']})."
    return (
        f"From its own published numbers ({evidence['why']}), with {100 * evidence['level']:.0f}% confidence: "
        f"{', '.join(said)} (worst cases: a release usually does better)."
    )
