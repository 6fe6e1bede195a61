"""A plan's public inputs checked into the simulation's hashable setting (:class:`.simulation.Setting`, the cache
key of :func:`dppca_core.planning.plan`), each refused in plain words."""

from __future__ import annotations

import json

from ..pipeline.experiments import RadiusRule
from ..privacy import check_neighbors
from ..registry import display_name, get_mechanism
from ..validation import check_delta, check_float_range, check_int_range, check_k, check_positive
from .simulation import Setting
from .standin import Standin
from .targets import TARGET_PARTS, check_targets, default_reps

#: the mechanisms a plan compares when none are named (central, from the Gram matrix alone, fast); a sparse target
#: (support F1) adds DPS-PCA with one site and its truncation at the support's size
DEFAULT_MECHANISMS = ("analyze_gauss", "private_power", "mod_sulq", "trace_sensitive")
SPARSE_MECHANISMS = ("dps_pca",)


def make_setting(
    targets,
    *,
    n,
    d,
    k,
    spectrum,
    standin,
    delta,
    confidence,
    neighbors,
    data_norm,
    radius_rule,
    center,
    parts,
    mechanisms,
    mechanism_params,
    sparsity,
    reps,
    seed,
    max_epsilon,
) -> Setting:
    n = check_int_range(n, "n", 2)
    d = check_int_range(d, "d", 2)
    k = check_k(k, d)
    standin = _checked_standin(spectrum, standin, d)
    checked = check_targets(targets, k, d)
    delta = check_delta(delta)
    confidence = check_float_range(confidence, "confidence", 0.5, 0.995)
    check_neighbors(neighbors)
    if center not in ("none", "private"):
        raise ValueError(f"center={center!r}: use 'none' or 'private' (a private mean from its own share).")
    _check_centring(standin, center)
    data_norm, radius = _checked_radius(data_norm, radius_rule)
    wanted = _released_parts(parts, checked)
    sparse = "f1" in checked
    sparsity = _checked_sparsity(sparsity, standin, d, sparse)
    chosen, params = _chosen_mechanisms(mechanisms, mechanism_params, neighbors, k, sparse, sparsity)
    reps = default_reps(confidence) if reps is None else check_int_range(reps, "reps", 20, 2000)
    max_epsilon = check_float_range(max_epsilon, "max_epsilon", 0.05, 100.0)
    return Setting(
        tuple(checked.items()),
        n,
        d,
        k,
        standin,
        delta,
        confidence,
        neighbors,
        data_norm,
        radius,
        center,
        wanted,
        chosen,
        params,
        sparsity,
        reps,
        int(seed),
        max_epsilon,
    )


def _released_parts(parts, checked: dict) -> tuple[str, ...]:
    """The parts a plan releases besides the components, sorted: those asked for in ``parts`` ('eigenvalues',
    'scores') and those its ``checked`` targets read."""
    wanted = set(parts or ())
    unknown = wanted - {"eigenvalues", "scores"}
    if unknown:
        raise ValueError(f"parts may hold 'eigenvalues' and 'scores' (got {sorted(unknown)}).")
    wanted |= {TARGET_PARTS[name] for name in checked if name in TARGET_PARTS}
    return tuple(sorted(wanted))


def _checked_sparsity(sparsity, standin: Standin, d: int, sparse: bool) -> int | None:
    """The support's size a plan assumes: ``sparsity`` checked into 1..d, or, for a ``sparse`` target (support F1)
    without one, the sparse stand-in's support size; refused in words when a sparse target has neither."""
    if sparse and sparsity is None:
        if standin.support is None:
            raise ValueError(
                "a support F1 target needs the support's size: give sparsity=s or a sparse stand-in "
                "(Standin.spiked(..., sparsity=s))."
            )
        sparsity = len(standin.support)
    return None if sparsity is None else check_int_range(sparsity, "sparsity", 1, d)


def _chosen_mechanisms(mechanisms, mechanism_params, neighbors: str, k: int, sparse: bool, sparsity) -> tuple:
    """(the mechanisms a plan compares, their parameters as sorted (name, JSON) pairs): the named ones, or the
    defaults (with DPS-PCA at one site and the support's size for a ``sparse`` target), checked by
    :func:`_comparable`."""
    names = tuple(mechanisms) if mechanisms is not None else DEFAULT_MECHANISMS + (SPARSE_MECHANISMS if sparse else ())
    params = dict(mechanism_params or {})
    if sparse and mechanisms is None:
        params.setdefault("dps_pca", {"sites": 1, "sparsity": sparsity})
    chosen = tuple(_comparable(names, neighbors, k, params, named=mechanisms is not None))
    return chosen, tuple(sorted((m, json.dumps(params.get(m, {}), sort_keys=True)) for m in chosen))


def _check_centring(standin: Standin, center: str) -> None:
    """A stand-in read from rows with another centring than the planned releases' describes another matrix (the
    uncentred second moment's top direction is the mean): refused in words."""
    if standin.centred is not None and standin.centred != (center == "private"):
        read = "centred" if standin.centred else "uncentred (their second moment)"
        raise ValueError(
            f"the stand-in's spectrum is of the rows {read}, but the planned releases "
            f"{'centre them with a private mean' if center == 'private' else 'do not centre them'}: it describes "
            "another matrix. Release the stand-in with the same centring (Standin.private(..., center=...))."
        )


def _checked_standin(spectrum, standin, d: int) -> Standin:
    """The data's stand-in of :func:`plan`: ``standin``, or one made from ``spectrum`` (exactly one given), with d
    features."""
    if (spectrum is None) == (standin is None):
        raise ValueError(
            "give the data's stand-in: spectrum=[...] (the covariance eigenvalues) or " "standin=Standin(...)."
        )
    if standin is None:
        standin = Standin.from_spectrum(spectrum, d=d)
    if not isinstance(standin, Standin):
        raise ValueError("standin must be a Standin (e.g. Standin.spiked(...), Standin.from_release(...)).")
    if standin.d != d:
        raise ValueError(f"the stand-in has {standin.d} features but d = {d}.")
    return standin


def _checked_radius(data_norm, radius_rule: RadiusRule | None) -> tuple:
    """(data_norm, the private radius's (bounds, quantile) or None): a public radius checked, or "private" with its
    rule (default :class:`RadiusRule`)."""
    if isinstance(data_norm, str):
        if data_norm != "private":
            raise ValueError(f"data_norm={data_norm!r}: give a public radius (a number) or 'private'.")
        rule = radius_rule or RadiusRule()
        return data_norm, (tuple(float(b) for b in rule.bounds), float(rule.quantile))
    data_norm = check_positive(data_norm, "data_norm (the clipping radius R)")
    if radius_rule is not None:
        raise ValueError("a radius rule applies only to data_norm='private'.")
    return data_norm, None


def _comparable(names: tuple, neighbors: str, k: int, params: dict, named: bool) -> list:
    """The mechanisms of ``names`` a plan compares: private PCA mechanisms with a guarantee for ``neighbors`` that
    release k components, their parameters checked. A mechanism the caller ``named`` without a guarantee for the
    relation is refused; a default one is left out."""
    chosen = []
    for mech in names:
        spec = get_mechanism(mech)
        if spec.task != "pca" or spec.guarantee not in ("approximate", "pure"):
            raise ValueError(f"{display_name(mech)} has no privacy guarantee: a plan compares private mechanisms only.")
        if neighbors not in spec.relations:
            if named:
                relation = neighbors.replace("_", "/")
                raise ValueError(f"{display_name(mech)} has no guarantee for neighbours that {relation}" " a row.")
            continue
        if spec.max_k is not None and k > spec.max_k:
            continue
        spec.resolve_params(params.get(mech, {}))  # refused parameters fail here, in the mechanism's words
        chosen.append(mech)
    if not chosen:
        raise ValueError("no mechanism to compare: name some with mechanisms=[...].")
    return chosen


# ---------------------------------------------------------------------------------------------------------------
# Checking a plan


def plan_notes(s: Setting) -> list[str]:
    """What a plan assumes, in sentences: the stand-in's own notes, its band and table, n."""
    notes = list(s.standin.notes)
    if s.standin.banded:
        notes.append(
            f"The stand-in was released with noise: {s.standin.band_words(s.k)}. The plan holds on every spectrum "
            "in that band (checked on the hardest: the top variances at their lower ends, the others at their "
            "upper ends), so the stated share of releases is promised with that probability."
        )
        notes += s.standin.targets_for(s.targets, s.k)[1]
        if any(t in ("explained_variance_error", "score_readability") for t in s.target_map):
            notes.append(
                "The explained-variance error and the score plot's readability do not grow steadily harder across "
                "the band: they were checked on four of its spectra (its two corners, its centre and half way), "
                "not on a worst case."
            )
    if s.standin.fixed:
        notes.append(
            "The stand-in is the spectrum of the rows themselves (after clipping and centring as the release does): "
            "each simulated release keeps it and draws fresh noise. Where the release reads rows, they are rows with "
            "exactly this spectrum and mean, kept inside R. It assumes the compared mechanisms treat "
            "every direction alike (their noise is the same in every orientation), and, for another n than the "
            "rows', more rows of the same kind."
        )
    if s.neighbors == "add_remove":
        notes.append(
            f"Under add/remove n is private: the plan used n = {s.n:,} (a released count or a public " "estimate)."
        )
    return notes
