"""Seeded releases, audits and exact-noise draws whose every published bit is pinned by the golden records.

Each case is a function of no arguments returning a plain structure (dicts, lists, numbers, strings), hashed
bit-exactly (floats written with ``repr``, which round-trips). ``make_golden.py`` records each case once, in the
test module of its mechanism's module (the library's in ``tests/test_golden.py``); ``tests/test_golden.py``
recomputes every case and compares. A change that moves any published value of a seeded release fails the test,
which names the case (``python -m tests.golden.make_golden --fields CASE --against main`` names the fields).

The cases cover every registered mechanism through ``run``, every central mechanism through ``release_pca`` with
a mean, eigenvalues and scores, every private option of ``release_pca`` (private radius, scales private or by
bounds, k = "auto", groups declared or found privately, a private frame, a sparse plot, add/remove), the
scikit-learn estimator, audits of a few mechanisms, and the exact samplers and sums directly.
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
from fractions import Fraction

import numpy as np

import dppca_core as dc
from dppca_core.release import to_plain
from tests.helpers import spiked_rows
from tests.support.releases import SETTINGS

#: the published keys hashed: the public settings neighbours publish alike (``guarantee_text`` is a sentence built
#: from the others, ``export`` says how the file was made) and what the noise touched
RELEASE_KEYS = tuple(key for key in SETTINGS if key not in ("guarantee_text", "export")) + (
    "components",
    "eigenvalues",
    "outputs",
)
EPS, DELTA = 1.0, 1e-6


def table(n: int = 400, d: int = 6, seed: int = 0) -> np.ndarray:
    """Rows with an offset (the mean matters) and norm <= 1."""
    X, _ = spiked_rows(n, d, 2, seed=seed)
    return X * 0.7 + 0.25 / math.sqrt(d)


def units_table(n: int = 400, d: int = 6, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The same rows in units 1000x apart, with public bounds per column."""
    units = np.array([1.0, 1000.0, 0.001, 5.0, 1.0, 250.0][:d])
    return table(n, d, seed) * units, units


def labels(n: int = 400) -> np.ndarray:
    """Three groups of unequal size (a public set of labels)."""
    return np.array(["north"] * (n // 2) + ["south"] * (n // 3) + ["east"] * (n - n // 2 - n // 3))


def release_fields(release) -> dict:
    published = release.published()
    return {key: published[key] for key in RELEASE_KEYS}


def _k_for(name: str, want: int = 2) -> int:
    max_k = dc.get_mechanism(name).max_k
    return want if max_k is None else min(want, max_k)


def _run_params(name: str) -> dict:
    return {"sites": 3} if dc.get_mechanism(name).model == "distributed" else {}


def _run_input(name: str):
    spec = dc.get_mechanism(name)
    if spec.task == "tensor":
        from dppca_core.tensor.moments import prepare_tensor_input

        return prepare_tensor_input(table(60, 3, seed=4) * 0.8)
    return table(200, 5, seed=1)


def run_case(name: str, neighbors: str = "replace", **extra):
    def case():
        spec = dc.get_mechanism(name)
        if neighbors not in spec.relations:
            return {"refused": neighbors}
        rel = dc.run(
            name, _run_input(name), _k_for(name), EPS, DELTA, neighbors, seed=11, **{**_run_params(name), **extra}
        )
        return release_fields(rel)

    return case


#: the central mechanisms release_pca serves with every part
CENTRAL = (
    "non_private",
    "analyze_gauss",
    "mod_sulq",
    "private_power",
    "private_oja",
    "dp_pca",
    "wishart_sn",
    "ppca_exponential",
    "amin_iterative",
)
FULL_SPLIT = dict(mean=0.1, eigenvalues=0.1, scores=0.1)


def release_case(name: str, **options):
    def case():
        X = table()
        budget = options.pop("budget", dc.BudgetSplit.with_extras(**FULL_SPLIT))
        extra = {"center": "private", "budget": budget}
        if name == "non_private":
            extra = {"center": "empirical", "budget": budget}
        rel = dc.release_pca(name, X, _k_for(name), EPS, DELTA, seed=5, **extra, **options)
        return release_fields(rel)

    return case


def option_case(**options):
    """release_pca of Analyze Gauss (or ``mechanism``) with one set of private options."""

    def case():
        opts = dict(options)
        mechanism = opts.pop("mechanism", "analyze_gauss")
        X, units = units_table() if opts.get("scale", "none") != "none" else (table(), None)
        if units is not None:
            opts["column_bounds"] = units * 1.2
        if opts.pop("groups", False):
            opts["score_groups"] = labels()
        if opts.pop("declared_labels", False):
            opts["score_group_labels"] = ["north", "south", "east"]
        split = opts.pop("split")
        k = opts.pop("k", 2)
        rel = dc.release_pca(
            mechanism,
            X,
            k,
            EPS,
            1e-5,
            opts.pop("neighbors", "replace"),
            seed=7,
            budget=dc.BudgetSplit.with_extras(**split),
            **opts,
        )
        return release_fields(rel)

    return case


#: the private choices of a release taken all at once (its radius, column scales, centre, k and score frame)
EVERY_PRIVATE_CHOICE = dict(
    data_norm="private", scale="private", center="private", k="auto", variance_target=0.8, score_frame="private"
)
OPTIONS = {
    "mean_add_remove": dict(
        split=dict(mean=0.1, eigenvalues=0.1, scores=0.1), center="private", neighbors="add_remove"
    ),
    "private_radius": dict(split=dict(radius=0.1, eigenvalues=0.1), data_norm="private"),
    "scale_private": dict(split=dict(scale=0.1, mean=0.1), scale="private", center="private"),
    "scale_bounds": dict(split=dict(mean=0.1, scores=0.1), scale="bounds", center="private"),
    "k_auto": dict(split=dict(eigenvalues=0.2), k="auto", variance_target=0.8),
    "groups_declared": dict(split=dict(scores=0.2), groups=True, declared_labels=True),
    "groups_private": dict(split=dict(scores=0.2, groups=0.05), groups=True),
    "frame_private": dict(split=dict(scores=0.2, frame=0.05), score_frame="private"),
    "sparse_scores": dict(split=dict(scores=0.2), score_kind="sparse", score_bins=30),
    "every_choice": dict(
        split=dict(mean=0.1, eigenvalues=0.1, scores=0.1, radius=0.1, scale=0.1, frame=0.05, groups=0.05),
        **EVERY_PRIVATE_CHOICE,
        groups=True,
        score_kind="sparse",
    ),
    "every_choice_add_remove": dict(
        split=dict(mean=0.1, eigenvalues=0.1, scores=0.1, radius=0.1, scale=0.1, frame=0.05),
        **EVERY_PRIVATE_CHOICE,
        neighbors="add_remove",
    ),
    "rotated_basis": dict(mechanism="ppca_exponential", split=dict(eigenvalues=0.2, scores=0.1), k=3),
    "laplace_parts": dict(
        mechanism="private_power", split=dict(mean=0.1, eigenvalues=0.1, scores=0.1), center="private", noise="laplace"
    ),
}


def estimator_case():
    X = table()
    model = dc.DPPCA(n_components=0.8, center="private", random_state=3, epsilon=2.0).fit(X)
    return {
        "release": {key: model.release_[key] for key in RELEASE_KEYS},
        "transform": to_plain(model.transform(X[:25])),
    }


def audit_case(name: str, trials: int = 200, **options):
    def case():
        from dppca_core.audit import audit

        result = audit(name, EPS, DELTA, trials=trials, seed=2, **options)
        # the trade-off curve (issue 40) is read from the same scores and tested on its own (tests/audit/test_audit_curve.py)
        fields = {f: getattr(result, f) for f in result.__dataclass_fields__ if f not in ("seconds", "curve")}
        if fields.get("lower_test") is None:  # only the bounded-range reading has a second test (issue 40)
            fields.pop("lower_test", None)
        return to_plain(fields)

    return case


AUDITS = {
    "analyze_gauss": dict(),
    "analyze_gauss_add_remove": dict(neighbors="add_remove"),
    "analyze_gauss_d3_n30": dict(d=3, n=30),
    "mod_sulq": dict(),
    "private_power": dict(),
    "non_private": dict(),
    "wishart_sn": dict(),
    "ldp_gaussian": dict(),
    "private_oja": dict(),
    "cape_pca": dict(),
    "ppca_exponential": dict(),
}


def sampler_case(kind: str, size: int, scale: str):
    def case():
        from dppca_core.privacy import exact

        draw = exact.rounded_normal if kind == "normal" else exact.rounded_laplace
        rng = np.random.default_rng(size)
        first = draw(size, Fraction(scale), rng)
        second = draw(size, Fraction(scale), rng)  # the stream left after the first draw
        return {"first": to_plain(first), "second": to_plain(second), "after": int(rng.integers(1 << 62))}

    return case


def sums_case():
    from dppca_core.privacy import exact

    rng = np.random.default_rng(9)
    terms = rng.uniform(-1, 1, size=(3000, 7)) * np.array([1, 1e-3, 1e-9, 1e-14, 0.5, 1, 2.0**-45])
    terms[5] = [1.0, -1.0, 0.0, -0.0, 2.0**-40, -(2.0**-41), 1 - 2.0**-53]
    sums = exact.FixedSums(terms[:1000]).add(terms[1000:]).add(np.zeros((0, 7)))
    grid = exact._exact_on_grid(sums, 2.0**-20)
    noisy = exact.noisy_on_grid(sums, 2.0**-20, Fraction(3, 2), np.random.default_rng(1))
    return {
        "totals": [str(t) for t in sums.totals],
        "values": to_plain(sums.values()),
        "grid": to_plain(grid),
        "noisy": to_plain(noisy),
    }


def cases_by_group() -> dict[str, dict]:
    """Every case, grouped as the fixture stores them: ``mechanisms/<name>`` (its runs under each relation, its
    complete release and audits, where it has them) and ``library/<part>`` (the private options, the estimator, the
    exact samplers and sums). A registered mechanism always has its group: its two runs come from the registry, so a
    new mechanism's cases exist as soon as it is registered, and tests/test_golden.py names it until they are
    recorded (``python -m tests.golden.make_golden`` writes only the missing ones, in the test module of its module:
    :func:`tests.golden.make_golden.home`)."""
    groups: dict[str, dict] = {}

    def add(group: str, name: str, case) -> None:
        groups.setdefault(group, {})[name] = case

    for name in dc.mechanism_names():
        add(f"mechanisms/{name}", f"run/{name}", run_case(name))
        add(f"mechanisms/{name}", f"run/{name}/add_remove", run_case(name, "add_remove"))
    add("mechanisms/private_power", "run/private_power/laplace", run_case("private_power", noise="laplace"))
    add("mechanisms/trace_sensitive", "run/trace_sensitive/auto", run_case("trace_sensitive", route="auto"))
    add("mechanisms/tail_sensitive", "run/tail_sensitive/auto", run_case("tail_sensitive", route="auto"))
    for name in CENTRAL:
        add(f"mechanisms/{name}", f"release/{name}", release_case(name))
    for label, options in OPTIONS.items():
        add("library/options", f"option/{label}", option_case(**options))
    add("library/estimator", "estimator", estimator_case)
    for label, options in AUDITS.items():
        name = label.split("_add_remove")[0].split("_d3")[0]
        add(f"mechanisms/{name}", f"audit/{label}", audit_case(name, **options))
    for kind in ("normal", "laplace"):
        for size in (1, 7, 127, 128, 1000):
            for scale in ("3/2", "1000003/1024"):
                add("library/samplers", f"sampler/{kind}/{size}/{scale}", sampler_case(kind, size, scale))
    add("library/sums", "sums", sums_case)
    return groups


def all_cases() -> dict:
    """Every case by its name (the groups of :func:`cases_by_group` flattened)."""
    return {name: case for group in cases_by_group().values() for name, case in group.items()}


# -- hashing ---------------------------------------------------------------------------------------------------


def canonical(value) -> str:
    """JSON with sorted keys; floats by ``repr`` (bit-exact: repr round-trips a float64)."""
    return json.dumps(to_plain(value), sort_keys=True, allow_nan=True)


def shape_of(value):
    """The structure without the numbers: keys, list lengths, types (the same on any platform)."""
    if isinstance(value, dict):
        return {str(k): shape_of(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, list):
        return [shape_of(v) for v in value]
    if isinstance(value, bool) or value is None:
        return type(value).__name__
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def digest(result) -> dict:
    """Per top-level field: the SHA-256 of its canonical JSON and of its structure."""
    plain = to_plain(result)
    fields = plain if isinstance(plain, dict) else {"value": plain}
    return {
        key: {
            "exact": hashlib.sha256(canonical(v).encode()).hexdigest()[:24],
            "shape": hashlib.sha256(json.dumps(shape_of(v)).encode()).hexdigest()[:16],
        }
        for key, v in fields.items()
    }


def case_digest(result) -> tuple[str, str]:
    """(the SHA-256 of the whole output's canonical JSON, that of its structure): a case's record."""
    plain = to_plain(result)
    return (
        hashlib.sha256(canonical(plain).encode()).hexdigest()[:24],
        hashlib.sha256(json.dumps(shape_of(plain)).encode()).hexdigest()[:16],
    )


def widest_vectors() -> str | None:
    """The widest vectors of this processor ("avx512", "avx2" or "narrower"), as numba reads them: on a processor with
    AVX-512 the fixture's bits were not reproduced, even with OpenBLAS's AVX2 kernels forced (tests/test_golden.py)."""
    try:
        from llvmlite import binding

        features = binding.get_host_cpu_features().flatten()
    except Exception:  # noqa: BLE001 - no llvmlite (no numba), or a platform it cannot read
        return None
    return "avx512" if "+avx512f" in features else "avx2" if "+avx2" in features else "narrower"


def fingerprint() -> dict:
    """What the bits depend on beyond the code: the machine, numpy, its BLAS, numba and the vectors it compiles for."""
    from threadpoolctl import threadpool_info

    try:
        import numba

        numba_version = numba.__version__
    except ImportError:  # pragma: no cover
        numba_version = None
    blas = sorted(
        f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')}"
        for i in threadpool_info()
        if i.get("user_api") == "blas"
    )
    return {
        "machine": platform.machine(),
        "numpy": np.__version__,
        "blas": blas,
        "numba": numba_version,
        "vectors": widest_vectors(),
    }
