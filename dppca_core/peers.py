"""Other libraries' PCA behind one interface, to audit them (:func:`dppca_core.audit.audit_external`) and to
compare them with ours on the same data.

Each adapter makes ``release(X, seed) -> {"components": (d, k), "eigenvalues": (k,), ...}`` for one setting and
states the claim and the input domain it passes, read from the library's own privacy map or code:

* ``opendp``: OpenDP's eigendecomposition measurement, ``opendp.extras.sklearn.decomposition.make_private_pca``
  (the measurement behind ``opendp.extras.sklearn.decomposition.PCA``), on
  ``array2_domain(norm=R, p=2, origin=origin, size=n)``: rows within R of a public origin, n public. The claim is
  the measurement's own privacy map at ``d_in = 2`` (a changed row is one addition and one removal under the
  symmetric distance of a fixed-size dataset: replace one row), pure DP (``max_divergence``). OpenDP asks for
  three features before it builds this measurement: "contrib" (code not yet vetted by OpenDP's review),
  "idealized-numerics" (the proof assumes exact arithmetic, not floating point) and "honest-but-curious" (it
  runs a Python post-processing function it cannot check); the adapter enables them, in this process only, when
  the measurement is built. OpenDP draws its noise from the operating system: ``seed`` cannot make its runs
  reproducible, so audits of OpenDP are reproducible in distribution only.
* ``diffprivlib``: ``diffprivlib.models.PCA(epsilon, data_norm=R, centered=True)``. Its documentation states
  epsilon-DP (pure) for rows of norm at most ``data_norm``; with ``centered=True`` the whole epsilon goes to the
  eigendecomposition (``models/utils.py``, ``covariance_eig``: Laplace noise on the eigenvalues with sensitivity
  2 in units of R^2, the trace-norm change of one replaced row, and Bingham sampling of the eigenvectors, after
  Amin et al. 2019), so the relation is replace one row and the domain's origin is 0. ``random_state=seed``.
  diffprivlib 0.6.6 (the latest release) does not import with scikit-learn 1.9 (``sklearn.tree._tree.DOUBLE``
  was removed); it imports and runs with scikit-learn 1.8.0.
* ``sklearn``: scikit-learn's ``PCA``, the non-private control. It claims nothing; the claim passed is the
  caller's epsilon, which an audit must refute.
* ``ours:<mechanism>``: a registered mechanism through :func:`dppca_core.run` (``analyze_gauss`` by default);
  the claim is the release's own (``Release.published()``: epsilon, delta, neighbours), origin 0 (no centring).

Every library is imported when first used, never at import time: none of them is a dependency of the package.
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import math
import sys
import threading
import time
import types
from dataclasses import dataclass, field
from importlib import metadata

import numpy as np

from .api import run
from .registry import get_mechanism

#: The libraries with an adapter (ours are named "ours:<mechanism>").
LIBRARIES = ("opendp", "diffprivlib", "sklearn")
#: Our mechanism shown beside the libraries by default.
OURS_DEFAULT = "ours:analyze_gauss"
#: What to install when a library is missing or does not import (checked on this project's machine).
WORKING_VERSIONS = {
    "opendp": "opendp 0.16.0 (pip install 'opendp[scikit-learn]==0.16.0')",
    "diffprivlib": "diffprivlib 0.6.6 with scikit-learn 1.8.0 (pip install diffprivlib==0.6.6 "
    "'scikit-learn==1.8.0', in an environment of its own: diffprivlib 0.6.6 does not import with "
    "scikit-learn 1.9)",
    "sklearn": "scikit-learn 1.9.1 (pip install scikit-learn==1.9.1)",
}
TITLES = {"opendp": "OpenDP PCA", "diffprivlib": "diffprivlib PCA", "sklearn": "scikit-learn PCA (not private)"}
_MODULES = {
    "opendp": "opendp.extras.sklearn.decomposition",
    "diffprivlib": "diffprivlib.models",
    "sklearn": "sklearn.decomposition",
}
_DISTRIBUTIONS = {"opendp": "opendp", "diffprivlib": "diffprivlib", "sklearn": "scikit-learn"}


def title(name: str) -> str:
    """A peer's name for people: "OpenDP PCA", "ours: Analyze Gauss"."""
    if name.startswith("ours:"):
        return f"ours: {get_mechanism(name[5:]).display_name}"
    return TITLES[_check_name(name)]


def _check_name(name: str) -> str:
    if name in LIBRARIES:
        return name
    if isinstance(name, str) and name.startswith("ours:"):
        get_mechanism(name[5:])  # a clear ValueError for an unknown mechanism
        return name
    raise ValueError(
        f"unknown library {name!r}; choose one of {list(LIBRARIES)} or 'ours:<mechanism>' "
        "(e.g. 'ours:analyze_gauss')."
    )


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=None)
def status(name: str) -> str | None:
    """None when the library's PCA can be used here, else why not and the version that works, in words."""
    if _check_name(name).startswith("ours:"):
        return None
    installed = _version(_DISTRIBUTIONS[name])
    if installed is None:
        return f"{TITLES[name]}: {_DISTRIBUTIONS[name]} is not installed; install {WORKING_VERSIONS[name]}."
    try:
        importlib.import_module(_MODULES[name])
    except Exception as exc:  # a third party's import: any failure is reported, never raised
        sklearn = _version("scikit-learn")
        return (
            f"{TITLES[name]}: {_DISTRIBUTIONS[name]} {installed} is installed but does not import here "
            f"(scikit-learn {sklearn}; {type(exc).__name__}: {exc}). Use {WORKING_VERSIONS[name]}."
        )
    return None


def available(names=LIBRARIES) -> list[str]:
    """The libraries among ``names`` whose PCA can be used here."""
    return [name for name in names if status(name) is None]


# -- one setting of one library -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PeerSetting:
    """A library's PCA at one setting: its release callable, the claim and domain it passes, and their source."""

    name: str
    release: object
    epsilon: float
    delta: float
    neighbors: str
    data_norm: float
    origin: tuple
    output_family: str | None
    source: str
    private: bool = True

    @property
    def claim(self) -> str:
        return (
            f"({self.epsilon:g}, {self.delta:g})-DP, {self.neighbors} one row"
            if self.private
            else f"none (a claim of ({self.epsilon:g}, {self.delta:g})-DP is audited as a control)"
        )

    @property
    def domain(self) -> str:
        centre = "0" if not any(self.origin) else "(" + ", ".join(f"{v:g}" for v in self.origin) + ")"
        return f"rows within {self.data_norm:g} of {centre}"


def setting(
    name: str, *, epsilon: float, delta: float = 1e-6, data_norm: float = 1.0, n: int, d: int, k: int, origin=None
) -> PeerSetting:
    """The adapter of library ``name`` at (epsilon, delta), on rows within ``data_norm`` of ``origin`` (n rows,
    d columns, k components). ValueError when the library cannot be used here (:func:`status`)."""
    problem = status(_check_name(name))
    if problem:
        raise ValueError(problem)
    origin = tuple(float(v) for v in (np.zeros(d) if origin is None else np.asarray(origin, dtype=float)))
    if name == "opendp":
        release = OpenDPRelease(float(epsilon), float(data_norm), origin, int(n), int(d), int(k))
        claimed = release.measurement().map(2)
        return PeerSetting(
            name,
            release,
            float(claimed),
            0.0,
            "replace",
            float(data_norm),
            origin,
            None,
            "OpenDP's privacy map of make_private_pca at d_in = 2 (one changed row), max_divergence",
        )
    if name == "diffprivlib":
        if any(origin):
            raise ValueError("diffprivlib's PCA with centered=True declares rows around 0; leave origin at 0.")
        return PeerSetting(
            name,
            DiffprivlibRelease(float(epsilon), float(data_norm), int(k)),
            float(epsilon),
            0.0,
            "replace",
            float(data_norm),
            origin,
            None,
            "diffprivlib.models.PCA docstring (epsilon-DP, rows of norm <= data_norm) and "
            "models/utils.py covariance_eig (eigenvalue sensitivity 2: replace one row)",
        )
    if name == "sklearn":
        return PeerSetting(
            name,
            SklearnRelease(int(k)),
            float(epsilon),
            float(delta),
            "replace",
            float(data_norm),
            origin,
            None,
            "scikit-learn makes no privacy claim",
            private=False,
        )
    mechanism = name[5:]
    release = OursRelease(mechanism, float(epsilon), float(delta), float(data_norm), int(k))
    published, curve = release.run(np.zeros((int(n), int(d))), 0)
    return PeerSetting(
        name,
        release,
        float(published["epsilon"]),
        float(published["delta"]),
        published["neighbors"],
        float(data_norm),
        tuple(0.0 for _ in range(d)),
        "gaussian" if curve.kind == "gdp" else None,
        "the release's own guarantee (Release.published)",
    )


@dataclass(frozen=True)
class SklearnRelease:
    """scikit-learn's PCA (full SVD: deterministic, so ``seed`` changes nothing)."""

    k: int

    def __call__(self, X, seed):
        from sklearn.decomposition import PCA

        model = PCA(n_components=self.k, svd_solver="full").fit(X)
        return {"components": model.components_.T, "eigenvalues": model.explained_variance_, "mean": model.mean_}


@dataclass(frozen=True)
class DiffprivlibRelease:
    """diffprivlib's PCA with centered=True (all of epsilon on the eigendecomposition)."""

    epsilon: float
    data_norm: float
    k: int

    def __call__(self, X, seed):
        import warnings

        from diffprivlib.models import PCA

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = PCA(
                n_components=self.k,
                epsilon=self.epsilon,
                data_norm=self.data_norm,
                centered=True,
                random_state=int(seed),
            ).fit(np.asarray(X, dtype=float))
        return {"components": model.components_.T, "eigenvalues": model.explained_variance_}


@dataclass(frozen=True)
class OpenDPRelease:
    """OpenDP's make_private_pca on a bounded domain with a public origin; the measurement is built once per
    setting and process (:func:`_opendp_measurement`)."""

    epsilon: float
    data_norm: float
    origin: tuple
    n: int
    d: int
    k: int

    def measurement(self):
        return _opendp_measurement(self.epsilon, self.data_norm, self.origin, self.n, self.d, self.k)

    def __call__(self, X, seed):  # OpenDP samples from the operating system: seed cannot be used
        out = self.measurement()(np.asarray(X, dtype=float))
        Vt = np.asarray(out.Vt, dtype=float)
        S = np.asarray(out.S, dtype=float)
        return {"components": Vt.T[:, : self.k], "eigenvalues": S[: self.k] ** 2}


@functools.lru_cache(maxsize=32)
def _opendp_measurement(epsilon, data_norm, origin, n, d, k):
    import opendp.prelude as dp
    from opendp.extras.sklearn.decomposition import make_private_pca

    dp.enable_features("contrib", "idealized-numerics", "honest-but-curious")
    domain = dp.numpy.array2_domain(
        norm=data_norm, p=2, origin=np.asarray(origin, dtype=float), size=n, num_columns=d, T=float
    )
    return make_private_pca(domain, dp.symmetric_distance(), epsilon, num_components=k)


@dataclass(frozen=True)
class OursRelease:
    """A registered mechanism through :func:`dppca_core.run`."""

    mechanism: str
    epsilon: float
    delta: float
    data_norm: float
    k: int

    def run(self, X, seed):
        release = run(
            self.mechanism, X, self.k, self.epsilon, self.delta, "replace", data_norm=self.data_norm, seed=int(seed)
        )
        return release.published(), release.privacy

    def __call__(self, X, seed):
        published = self.run(X, seed)[0]
        out = {"components": published["components"]}
        if published.get("eigenvalues") is not None:
            out["eigenvalues"] = published["eigenvalues"]
        return out


# -- auditing and comparing -----------------------------------------------------------------------------------


def audit_peer(
    name: str,
    *,
    epsilon: float,
    delta: float = 1e-6,
    data_norm: float = 1.0,
    n: int = 10,
    d: int = 2,
    k: int = 2,
    trials: int = 2000,
    seed=0,
    scheduler=None,
    progress=None,
):
    """Audit library ``name`` at the claim its adapter passes (:func:`setting`) on its declared domain.

    Returns (AuditResult, PeerSetting)."""
    from .audit import audit_external

    peer = setting(name, epsilon=epsilon, delta=delta, data_norm=data_norm, n=n, d=d, k=k)
    result = audit_external(
        peer.release,
        epsilon=peer.epsilon,
        delta=peer.delta,
        data_norm=peer.data_norm,
        origin=peer.origin,
        n=n,
        d=d,
        k=k,
        neighbors=peer.neighbors,
        trials=trials,
        seed=seed,
        scheduler=scheduler,
        output_family=peer.output_family,
        progress=progress,
        label=title(name),
    )
    return result, peer


@dataclass(frozen=True)
class PeerRuns:
    """Repetitions of one library at one epsilon on the user's data."""

    name: str
    epsilon: float
    distance: np.ndarray
    energy: np.ndarray
    fit_seconds: np.ndarray
    error: str | None = None
    extra: dict = field(default_factory=dict)


def fit_runs(
    name: str,
    rows: np.ndarray,
    gram: np.ndarray,
    *,
    k: int,
    epsilon: float,
    delta: float,
    reps: int,
    seed: int,
    data_norm: float = 1.0,
) -> PeerRuns:
    """``reps`` releases of ``name`` on ``rows`` (norm at most ``data_norm``): subspace distance to the top-k
    eigenvectors of ``gram`` (the non-private reference), captured energy as a % of the best rank-k energy, and
    the seconds of each fit."""
    from . import metrics

    n, d = rows.shape
    peer = setting(name, epsilon=epsilon, delta=delta, data_norm=data_norm, n=n, d=d, k=k)
    values, vectors = np.linalg.eigh(gram)
    reference, best = vectors[:, ::-1][:, :k], float(np.sum(values[::-1][:k]))
    distance, energy, seconds = [], [], []
    for rep in range(int(reps)):
        started = time.perf_counter()
        out = peer.release(rows, int(np.random.SeedSequence([int(seed), rep]).generate_state(1)[0]))
        seconds.append(time.perf_counter() - started)
        V = np.asarray(out["components"], dtype=float)[:, :k]
        distance.append(metrics.subspace_distance(V, reference))
        energy.append(100.0 * metrics.captured_energy(V, gram) / best if best > 0 else math.nan)
    return PeerRuns(name, float(epsilon), np.asarray(distance), np.asarray(energy), np.asarray(seconds))


def compare_one(
    name: str,
    rows: np.ndarray,
    gram: np.ndarray,
    *,
    k: int,
    epsilons,
    epsilon: float,
    delta: float,
    reps: int,
    seed: int,
    audit_trials: int = 200,
):
    """One row group of the comparison: :func:`fit_runs` at each of ``epsilons`` (and ``epsilon``), and the verdict
    of a short audit (:func:`audit_peer`, ``audit_trials`` per dataset on a 10-row, 2-column domain) at
    ``epsilon``: (list of PeerRuns, verdict in words)."""
    grid = sorted({float(e) for e in epsilons} | {float(epsilon)})
    runs = [fit_runs(name, rows, gram, k=k, epsilon=e, delta=delta, reps=reps, seed=seed) for e in grid]
    verdict = "not audited"
    if audit_trials:
        result, _ = audit_peer(name, epsilon=epsilon, delta=delta, n=10, d=2, k=2, trials=int(audit_trials), seed=0)
        verdict = (
            f"refuted (ε ≥ {result.epsilon_lower:.3g})"
            if result.violated
            else f"no violation (ε ≥ {result.epsilon_lower:.3g})"
        )
    return runs, verdict


def _child(connection, func, args, kwargs) -> None:
    try:
        connection.send((True, func(*args, **kwargs)))
    except Exception as exc:  # reported to the parent in words
        connection.send((False, f"{type(exc).__name__}: {exc}"))
    finally:
        connection.close()


def start_without_main_script(process, func=None) -> None:
    """``process.start()``, without the child first running the parent's main script again.

    A "spawn" or "forkserver" child runs the module ``sys.modules["__main__"]`` names before its target (as
    ``__mp_main__``), so that functions defined there can be found. Under Streamlit that module is the app script
    itself: every child would run the whole app again outside a session (measured: the upload worker and the
    library comparison did), and block once its warnings fill an unread output pipe. When ``func`` is not defined
    in the main script, the child is started with a stand-in main module whose name tells multiprocessing there is
    nothing to run (a name ending in ``.__main__``); the real one is put back at once.
    """
    if func is not None and getattr(func, "__module__", None) == "__main__":
        process.start()
        return
    with _MAIN_LOCK:  # two starts at once must not put the stand-in back as the real main module
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = _NO_MAIN_SCRIPT
        try:
            process.start()
        finally:
            if main is not None:
                sys.modules["__main__"] = main


_NO_MAIN_SCRIPT = types.ModuleType("__main__")
_NO_MAIN_SCRIPT.__spec__ = importlib.machinery.ModuleSpec("dppca_core.__main__", None)
_MAIN_LOCK = threading.Lock()


def with_time_budget(func, seconds: float, *args, **kwargs):
    """``(result, None)``; ``(None, "did not finish in N s")`` when ``func`` runs longer than ``seconds``; or
    ``(None, "failed: ...")`` when it raises.

    ``func`` (a picklable, module-level function) runs in a child process, started afresh ("spawn": safe from a
    threaded server), which is ended when the budget is spent, so a slow library costs no CPU after it."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(child, func, args, kwargs), daemon=True)
    start_without_main_script(process, func)
    child.close()
    try:
        if not parent.poll(seconds):
            return None, f"did not finish in {seconds:g} s"
        ok, value = parent.recv()
        return (value, None) if ok else (None, f"failed: {value}")
    except EOFError:
        return None, f"failed: the worker process ended without a result (exit code {process.exitcode})"
    finally:
        parent.close()
        if process.is_alive():
            process.terminate()
        process.join(5)


__all__ = [
    "LIBRARIES",
    "OURS_DEFAULT",
    "WORKING_VERSIONS",
    "title",
    "status",
    "available",
    "setting",
    "PeerSetting",
    "audit_peer",
    "fit_runs",
    "PeerRuns",
    "compare_one",
    "with_time_budget",
    "start_without_main_script",
]
