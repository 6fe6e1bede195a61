"""What the boundary tests share (tests/test_release_boundary.py, the exports' and the handout's): a pair of
neighbouring tables whose differing row is far outside the clipping radius, and each mechanism's k and parameters
for a small run; the shape of a published value, and the settings neighbours publish alike (tests/data/
test_public_schema.py, tests/app/test_app_schema.py)."""

import dataclasses

import numpy as np

import dppca_core as dc
from dppca_core.pipeline import experiments


#: the PCA mechanisms with a guarantee, and each with each relation it states a guarantee under
NAMES = [m for m in dc.mechanism_names("pca") if dc.get_mechanism(m).guarantee != "none"]
CASES = [(m, nb) for m in NAMES for nb in dc.get_mechanism(m).relations]

#: the seeds a field must keep its value over to count as noise-free
SEEDS = range(4)


def boundary_neighbours(neighbors):
    """(D, D'): 30 rows of norm at most 1 after a first row of norm 5; D' without that row (``add_remove``) or with
    a small one in its place (``replace``)."""
    rng = np.random.default_rng(11)
    base = rng.normal(size=(29, 4)) * [0.4, 0.3, 0.2, 0.1]
    base /= np.maximum(np.linalg.norm(base, axis=1, keepdims=True), 1.0)
    big = np.array([[5.0, 0.0, 0.0, 0.0]])  # far outside the clipping radius 1
    D = np.vstack([big, base])
    D_prime = base if neighbors == "add_remove" else np.vstack([[[0.0, 0.5, 0.0, 0.0]], base])
    return D, D_prime


def mechanism_params(name):
    """The parameters a small run of ``name`` needs: two sites for a distributed mechanism, three sweeps for PPCA."""
    spec = dc.get_mechanism(name)
    out = {}
    if any(p.name == "sites" for p in spec.params):
        out["sites"] = 2
    if name == "ppca_exponential":
        out["sweeps"] = 3
    return out


def k_for(name):
    """k = 2, or 1 for a mechanism that releases one direction."""
    return 1 if dc.get_mechanism(name).max_k == 1 else 2


#: the published fields that are public settings: equal between neighbours, value for value
SETTINGS = (
    "mechanism",
    "guarantee",
    "epsilon",
    "delta",
    "neighbors",
    "privacy",
    "guarantee_text",
    "parameters",
    "noise_scale",
    "facts",
    "fresh_randomness",
    "export",
)


def structure(value):
    """Every key, length and type of a published value, not its numbers."""
    if isinstance(value, dict):
        return {k: structure(v) for k, v in value.items()}
    if isinstance(value, list):
        return ["list", len(value), [structure(v) for v in value]]
    return type(value).__name__


def assert_same_public_shape(a: dict, b: dict):
    assert structure(a) == structure(b)
    for key in SETTINGS:
        assert a[key] == b[key], key


def release_pca_per_repetition(mechanism, X, options, reps, seed):
    """What ``experiments.repeat(mechanism, ..., options, reps=reps, seed=seed)`` must give, repetition by
    repetition: :func:`dppca_core.release_pca` (the keyword convenience people call) on ``X`` with every field of
    ``options`` as its keyword, at each repetition's seed."""
    fields = {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
    params = fields.pop("params")
    seeds = [np.random.default_rng(experiments.rep_seed(seed, rep, mechanism)) for rep in range(reps)]
    return [dc.release_pca(mechanism, X, **fields, seed=rep_seed, **params) for rep_seed in seeds]
