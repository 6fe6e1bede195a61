"""Utility metrics. These use the raw data or the truth as reference: diagnostics, not releases.

The functions below are the mathematics; ``METRICS`` declares the ones the app scores each release with
(:class:`Metric`: name, words, range, direction, the function of a :class:`Scoring` and what it needs). Everything
else reads that declaration: :func:`dppca_core.pipeline.experiments.repeat` scores every release with each metric
that applies, the results table has a column per metric, the scenario's ``metric`` and ``spreadm`` settings (and so
the link and the scenario file) accept its name, the Explore and Trade-offs pickers list it and the exports carry it.
Adding a metric is its function under a :func:`metric` declaration here, and its test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = [
    "Metric",
    "Scoring",
    "metric",
    "register_metric",
    "unregister_metric",
    "subspace_distance",
    "principal_angles",
    "random_subspace_distance",
    "captured_energy",
    "captured_energy_ratio",
    "row_support",
    "support_recovery",
    "random_support_f1",
    "align_components",
    "orthonormalize",
]


def _basis(U, name: str) -> np.ndarray:
    U = np.asarray(U, dtype=float)
    if U.ndim == 1:
        U = U[:, None]
    if U.ndim != 2:
        raise ValueError(f"{name} must be a d x k matrix of column vectors (got shape {U.shape}).")
    return U


def _pair(U, V):
    U, V = _basis(U, "U"), _basis(V, "V")
    if U.shape[0] != V.shape[0]:
        raise ValueError(f"U and V live in different dimensions ({U.shape[0]} vs {V.shape[0]}).")
    return U, V


def orthonormalize(U) -> np.ndarray:
    """Orthonormal basis of span(U) (thin QR with a positive diagonal).

    Parameters
    ----------
    U : array-like of shape (d, k) or (d,)
        Columns spanning a subspace (linearly independent).

    Returns
    -------
    ndarray of shape (d, k)
        Orthonormal columns with the same span, the first column along U's first.

    Raises
    ------
    ValueError
        When U is not a d x k matrix of column vectors.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca_core import metrics
    >>> Q = metrics.orthonormalize([[1.0, 1.0], [0.0, 1.0], [0.0, 0.0]])
    >>> np.allclose(Q.T @ Q, np.eye(2)), np.allclose(Q[:, 0], [1, 0, 0])
    (True, True)
    """
    Q, R = np.linalg.qr(_basis(U, "U"))
    signs = np.sign(np.diag(R))
    signs[signs == 0] = 1.0
    return Q * signs


def _sines_and_cosines(U, V):
    """Sines and cosines of the principal angles of two orthonormal bases, both accurate to rounding.

    The cosines are the singular values of U^T V and the sines those of the residual V - U (U^T V) = (I - U U^T) V
    (for k_U >= k_V; the roles swap otherwise). The residual is formed directly, so a sine of 1e-15 comes out as
    1e-15, where sqrt(1 - cos^2) would lose it to cancellation (it cannot resolve angles below ~1e-8).
    Returns (sines ascending, cosines descending), each of length min(k_U, k_V).
    """
    if U.shape[1] < V.shape[1]:
        U, V = V, U
    overlap = U.T @ V
    cos = np.linalg.svd(overlap, compute_uv=False)
    sin = np.sort(np.linalg.svd(V - U @ overlap, compute_uv=False))
    return np.clip(sin, 0.0, 1.0), np.clip(cos, 0.0, 1.0)


def principal_angles(U, V) -> np.ndarray:
    """Principal angles (radians, ascending) between span(U) and span(V), accurate for small and large angles.

    Small angles come from the sines (arcsin of the singular values of (I - U U^T) V), large ones from the cosines
    (arccos of those of U^T V), switching at 45 degrees where both are well conditioned, as
    ``scipy.linalg.subspace_angles`` does.

    Parameters
    ----------
    U, V : array-like of shape (d, k) and (d, k')
        Columns spanning the two subspaces (orthonormalised first); a vector of length d is one column.

    Returns
    -------
    ndarray of shape (min(k, k'),)
        The angles in radians, ascending.

    Raises
    ------
    ValueError
        When U or V is neither a vector nor a matrix, or the two have different numbers of rows d.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca_core import metrics
    >>> U = np.eye(4)[:, :2]
    >>> V = np.c_[np.eye(4)[:, 0], (np.eye(4)[:, 1] + np.eye(4)[:, 2]) / np.sqrt(2)]  # shares one axis, 45 degrees off
    >>> np.degrees(metrics.principal_angles(U, V)).round(6)
    array([ 0., 45.])
    """
    U, V = _pair(U, V)
    sin, cos = _sines_and_cosines(orthonormalize(U), orthonormalize(V))
    small = cos**2 >= 0.5  # angle <= 45 degrees: arcsin of the sine is the accurate one
    return np.where(small, np.arcsin(sin), np.arccos(cos))


def subspace_distance(U, V) -> float:
    """||sin Theta(U, V)||_F = ||(I - U U^T) V||_F = ||U U^T - V V^T||_F / sqrt(2) for orthonormal U, V of equal k.

    Computed from the residual (I - U U^T) V, which is accurate to machine precision (1e-16 for identical
    subspaces), not as sqrt(k - ||U^T V||_F^2), which floors at ~1e-8 by cancellation. For subspaces of different
    dimensions the projector formula ||U U^T - V V^T||_F / sqrt(2) is used as written (also exact: a difference of
    O(1) entries).

    Parameters
    ----------
    U, V : array-like of shape (d, k) and (d, k')
        A release's ``components`` and the exact ones, say: any columns spanning the two subspaces, as for
        :func:`principal_angles`.

    Returns
    -------
    float
        0 for the same subspace; sqrt(k) at most; :func:`random_subspace_distance` for a random one.

    Raises
    ------
    ValueError
        As :func:`principal_angles`: U and V must be matrices (or vectors) with the same number of rows.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca_core import metrics
    >>> exact = np.eye(3)[:, :1]
    >>> released = [[0.6], [0.8], [0.0]]  # tilted off the first axis by arccos(0.6), 53.1 degrees
    >>> round(metrics.subspace_distance(released, exact), 6)  # sin(53.1 degrees)
    0.8
    >>> round(float(np.linalg.norm(np.sin(metrics.principal_angles(released, exact)))), 6)  # ||sin Theta||_F
    0.8
    >>> metrics.subspace_distance(exact, 2 * exact)  # the same span, whatever the scale
    0.0
    >>> round(metrics.subspace_distance(np.eye(3)[:, :2], exact), 6)  # k != k': the projector formula
    0.707107
    """
    U, V = _pair(U, V)
    U, V = orthonormalize(U), orthonormalize(V)
    if U.shape[1] == V.shape[1]:
        return float(np.linalg.norm(V - U @ (U.T @ V)))
    return float(np.linalg.norm(U @ U.T - V @ V.T) / np.sqrt(2.0))


def random_subspace_distance(d: int, k: int) -> float:
    """sqrt(E ||sin Theta||_F^2) for a uniformly random k-subspace: sqrt(k (1 - k/d)).

    The 'no information' reference line.

    Parameters
    ----------
    d, k : int
        Dimension and the subspaces' number of components.

    Returns
    -------
    float
        The distance a release with no information about the data reaches on average.

    Examples
    --------
    >>> from dppca_core import metrics
    >>> metrics.random_subspace_distance(4, 2)
    1.0
    """
    return float(np.sqrt(k * (1.0 - k / d)))


def random_support_f1(d: int, selected: int, truth: int) -> float:
    """The expected F1 of ``selected`` of the d rows chosen at random against a support of ``truth`` rows: the chance
    level of :func:`support_recovery`. E[hits] = selected truth / d, so E[F1] = 2 E[hits] / (selected + truth) =
    2 selected truth / (d (selected + truth)) (precision truth / d, recall selected / d on average).

    Parameters
    ----------
    d : int
        Rows (features) to choose from.
    selected : int
        Rows chosen.
    truth : int
        Rows of the true support.

    Returns
    -------
    float
        The expected F1 of a random choice.

    Raises
    ------
    ValueError
        When ``selected`` or ``truth`` is not in 1..d.

    Examples
    --------
    >>> from dppca_core import metrics
    >>> metrics.random_support_f1(10, 3, 3)
    0.3
    """
    if not (1 <= selected <= d and 1 <= truth <= d):
        raise ValueError(f"need 1 <= selected, truth <= d = {d} (got {selected}, {truth}).")
    return 2.0 * selected * truth / (d * (selected + truth))


def captured_energy(V, A) -> float:
    """tr(V^T A V): the variance of A captured by the columns of V.

    Parameters
    ----------
    V : array-like of shape (d, k)
        The directions (orthonormal columns).
    A : array-like of shape (d, d)
        A covariance or second-moment matrix.

    Returns
    -------
    float
        The variance captured.

    Raises
    ------
    ValueError
        When A is not d x d.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca_core import metrics
    >>> metrics.captured_energy(np.eye(3)[:, :2], np.diag([4.0, 2.0, 1.0]))
    6.0
    """
    V = _basis(V, "V")
    A = np.asarray(A, dtype=float)
    if A.shape != (V.shape[0], V.shape[0]):
        raise ValueError(f"A must be {V.shape[0]} x {V.shape[0]} (got {A.shape}).")
    return float(np.trace(V.T @ A @ V))


def captured_energy_ratio(V, A, k: int | None = None) -> float:
    """tr(V^T A V) / (sum of the k largest eigenvalues of A), 1 = optimal.

    Parameters
    ----------
    V, A : array-like of shape (d, k) and (d, d)
        The directions and the matrix, as for :func:`captured_energy`.
    k : int, optional
        How many of A's eigenvalues the best case sums (default: V's number of columns).

    Returns
    -------
    float
        In [0, 1] for orthonormal V: 1 when V spans A's top-k eigenvectors.

    Raises
    ------
    ValueError
        When the best rank-k energy of A is not positive, or A is not d x d.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca_core import metrics
    >>> metrics.captured_energy_ratio(np.eye(3)[:, [0, 2]], np.diag([4.0, 2.0, 1.0]))  # (4 + 1) / (4 + 2)
    0.8333333333333334
    """
    V = _basis(V, "V")
    k = V.shape[1] if k is None else int(k)
    eig = np.linalg.eigvalsh(np.asarray(A, dtype=float))[::-1]
    best = float(np.sum(eig[:k]))
    if best <= 0:
        raise ValueError("the best rank-k energy of A is not positive; the ratio is undefined.")
    return captured_energy(V, A) / best


def row_support(V, s: int | None = None, *, tol: float = 1e-12) -> np.ndarray:
    """Indices of the row support: the s rows of largest norm, or the non-zero rows if s is None.

    Parameters
    ----------
    V : array-like of shape (d, k)
        Loadings, one row per feature.
    s : int, optional
        How many rows (the support size); None: every row of norm above ``tol``.
    tol : float
        The norm below which a row counts as zero when ``s`` is None.

    Returns
    -------
    ndarray of int
        The row indices, ascending.

    Raises
    ------
    ValueError
        When s is not in 1..d.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca_core import metrics
    >>> V = np.array([[0.6, 0.0], [0.8, 0.0], [0.0, 0.0], [0.0, 1.0]])
    >>> metrics.row_support(V), metrics.row_support(V, 2)
    (array([0, 1, 3]), array([1, 3]))
    """
    V = _basis(V, "V")
    norms = np.linalg.norm(V, axis=1)
    if s is None:
        return np.flatnonzero(norms > tol)
    if not 1 <= s <= V.shape[0]:
        raise ValueError(f"s = {s} is out of range: choose 1 <= s <= d = {V.shape[0]}.")
    return np.sort(np.argsort(-norms, kind="stable")[:s])


def support_recovery(V, true_support, s: int | None = None) -> dict:
    """Precision, recall, F1 and exact match of V's row support against ``true_support``.

    ``true_support`` is an index array or a boolean mask of length d.

    Parameters
    ----------
    V : array-like of shape (d, k)
        Loadings, one row per feature.
    true_support : array-like of int, or of bool of length d
        The true support.
    s : int, optional
        The support size read off V (:func:`row_support`).

    Returns
    -------
    dict
        ``precision``, ``recall``, ``f1`` (floats) and ``exact`` (the same rows).

    Raises
    ------
    ValueError
        For a boolean mask of the wrong length or s out of range.

    Examples
    --------
    >>> from dppca_core import metrics
    >>> loadings = [[0.6, 0.0], [0.8, 0.0], [0.0, 0.0], [0.0, 1.0]]  # rows 3 and 1 have the largest norms
    >>> metrics.support_recovery(loadings, [1, 3], s=2)
    {'precision': 1.0, 'recall': 1.0, 'f1': 1.0, 'exact': True}
    >>> metrics.support_recovery(loadings, [True, True, False, False], s=2)  # a mask: rows 0 and 1
    {'precision': 0.5, 'recall': 0.5, 'f1': 0.5, 'exact': False}
    """
    V = _basis(V, "V")
    truth = np.asarray(true_support)
    if truth.dtype == bool:
        if truth.shape != (V.shape[0],):
            raise ValueError(f"a boolean support mask must have length d = {V.shape[0]}.")
        truth = np.flatnonzero(truth)
    truth_set = set(int(i) for i in truth.ravel())
    found = set(int(i) for i in row_support(V, s))
    hits = len(truth_set & found)
    precision = hits / len(found) if found else 0.0
    recall = hits / len(truth_set) if truth_set else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "exact": found == truth_set}


def align_components(V, reference) -> np.ndarray:
    """Rotate V within its span to best match ``reference`` (orthogonal Procrustes).

    For side-by-side plots of loadings: the span is unchanged, only the basis inside it.

    Parameters
    ----------
    V : array-like of shape (d, k)
        The components to rotate (orthonormal columns).
    reference : array-like of shape (d, k)
        The components to match.

    Returns
    -------
    ndarray of shape (d, k)
        V @ Q for the orthogonal Q that brings V closest to ``reference`` (Frobenius norm).

    Raises
    ------
    ValueError
        When V and ``reference`` are not matrices of the same number of rows.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca_core import metrics
    >>> reference = np.eye(3)[:, :2]
    >>> flipped = -reference[:, ::-1]  # the same span, columns swapped and negated
    >>> np.allclose(metrics.align_components(flipped, reference), reference)
    True
    """
    V, R = _pair(V, reference)
    U, _, Wt = np.linalg.svd(V.T @ R)
    return V @ (U @ Wt)


@dataclass(frozen=True)
class Scoring:
    """What a metric reads of one release (:class:`Metric`'s ``score`` takes one).

    Parameters
    ----------
    components : ndarray of shape (d, k)
        The release's components.
    reference : ndarray of shape (d, k)
        The exact top-k basis of the same data (clipped, centred as the release) at the release's own k.
    gram : ndarray of shape (d, d)
        That data's second-moment matrix.
    eigenvalues : ndarray of shape (d,)
        Its eigenvalues, descending.
    support : ndarray of int, optional
        The true support's row indices; None when no support is scored.
    s : int
        Rows read off the components for the support (0: as many as the support has).

    Examples
    --------
    >>> import numpy as np
    >>> from dppca_core import metrics
    >>> C = np.diag([4.0, 2.0, 1.0])
    >>> scoring = metrics.Scoring(np.eye(3)[:, [0, 2]], np.eye(3)[:, :2], C, np.array([4.0, 2.0, 1.0]))
    >>> round(metrics.METRICS["energy"].score(scoring), 2)  # (4 + 1) / (4 + 2), in %
    83.33
    """

    components: np.ndarray
    reference: np.ndarray
    gram: np.ndarray
    eigenvalues: np.ndarray
    support: np.ndarray | None = None
    s: int = 0


@dataclass(frozen=True)
class Metric:
    """A metric every release is scored with (declared with :func:`metric`, listed in ``METRICS`` by name).

    Parameters
    ----------
    name : str
        Its name in the scenario (``metric``, ``spreadm``), the link and ``Repetitions.metric``.
    label : str
        How pages and tables name it.
    score : callable
        A :class:`Scoring` to a float.
    column : str
        Its column in the results table (``dppca_core.pipeline.experiments.results_table``).
    symbol : str
        A short axis title (its symbol or unit).
    lower_is_better : bool
        Its direction.
    default_target : float
        The planner's target when none is given, in its unit.
    unit : str
        Its unit ("" for none).
    low, high : float
        Its range; ``high`` None: it depends on the shape (a subspace distance of k of d dimensions is at most
        sqrt(min(k, d - k)), :meth:`upper`).
    fmt : str
        How the results table writes a value.
    needs : tuple of str
        The :class:`Scoring` fields it reads that may be None; a release where one is None is not scored.

    Examples
    --------
    >>> from dppca_core import metrics
    >>> f1 = metrics.METRICS["f1"]
    >>> f1.describe(), f1.needs, f1.upper(2, 10)
    ('Support recovery F1, higher is better', ('support',), 1.0)
    """

    name: str
    label: str
    score: Callable[[Scoring], float]
    column: str
    symbol: str
    lower_is_better: bool
    default_target: float
    unit: str = ""
    low: float = 0.0
    high: float | None = 1.0
    fmt: str = "{:.3f}"
    needs: tuple[str, ...] = ()

    def applies(self, scoring: Scoring) -> bool:
        return all(getattr(scoring, name) is not None for name in self.needs)

    def upper(self, k: int, d: int) -> float:
        return float(np.sqrt(min(k, d - k))) if self.high is None else self.high

    def describe(self) -> str:
        better = "lower" if self.lower_is_better else "higher"
        return f"{self.label}{f' ({self.unit})' if self.unit else ''}, {better} is better"

    def check_target(self, target: float, k: int, d: int) -> float:
        """``target`` if it lies in the metric's range, else ValueError saying the range and the unit."""
        hi = self.upper(k, d)
        if not (np.isfinite(target) and self.low <= target <= hi):
            raise ValueError(
                f"a target for {self.label} must lie between {self.low:g} and {hi:.3g}"
                f"{' ' + self.unit if self.unit else ''} (got {target:g})."
            )
        return float(target)

    def meets(self, values, target: float) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        return values <= target if self.lower_is_better else values >= target


#: the metrics every release is scored with, by name, in the order tables and pickers show them
METRICS: dict[str, Metric] = {}


def register_metric(metric: Metric) -> Metric:
    """Add ``metric`` to ``METRICS``: every release is then scored with it (:func:`metric` is the decorator form).

    Parameters
    ----------
    metric : Metric
        The declaration.

    Returns
    -------
    Metric
        ``metric``.

    Raises
    ------
    ValueError
        For a name already registered, or a need a :class:`Scoring` does not hold.

    Examples
    --------
    >>> from dppca_core import metrics
    >>> metrics.register_metric(metrics.METRICS["f1"])
    Traceback (most recent call last):
        ...
    ValueError: a metric named 'f1' is already registered.
    """
    if metric.name in METRICS:
        raise ValueError(f"a metric named {metric.name!r} is already registered.")
    if not set(metric.needs) <= set(Scoring.__dataclass_fields__):
        raise ValueError(
            f"{metric.name} needs {list(metric.needs)}; a Scoring holds {list(Scoring.__dataclass_fields__)}."
        )
    METRICS[metric.name] = metric
    return metric


def unregister_metric(name: str) -> Metric:
    """Remove a registered metric (e.g. one a test registered).

    Parameters
    ----------
    name : str
        The metric's key in ``METRICS``.

    Returns
    -------
    Metric
        The declaration removed.

    Raises
    ------
    KeyError
        When no metric of that name is registered.

    Examples
    --------
    >>> from dppca_core import metrics
    >>> rank = metrics.Metric("rank", "Components kept", lambda s: s.components.shape[1], "k", "k", False, 2.0)
    >>> metrics.register_metric(rank).name in metrics.METRICS
    True
    >>> metrics.unregister_metric("rank").label, "rank" in metrics.METRICS
    ('Components kept', False)
    """
    return METRICS.pop(name)


def metric(name: str, label: str, **meta):
    """Decorator: register the decorated function of a :class:`Scoring` as the metric ``name``.

    Parameters
    ----------
    name : str
        The metric's name.
    label : str
        How pages and tables name it.
    **meta
        The other fields of its :class:`Metric` (``column``, ``symbol``, ``lower_is_better``, ``default_target``,
        ``unit``, ``low``, ``high``, ``fmt``, ``needs``).

    Returns
    -------
    callable
        The decorator; it registers the function and returns it unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> from dppca_core import metrics
    >>> @metrics.metric("peak", "Largest loading", column="peak", symbol="max |V|", lower_is_better=False,
    ...                 default_target=0.5)
    ... def peak(s):
    ...     return float(np.max(np.abs(s.components)))
    >>> "peak" in metrics.METRICS
    True
    >>> _ = metrics.unregister_metric("peak")
    """

    def wrap(score):
        register_metric(Metric(name, label, score, **meta))
        return score

    return wrap


@metric(
    "subspace_distance",
    "Subspace distance ‖sin Θ‖_F",
    column="subspace distance",
    symbol="‖sin Θ‖_F",
    high=None,
    lower_is_better=True,
    default_target=0.3,
)
def _distance(s: Scoring) -> float:
    return subspace_distance(s.components, s.reference)


@metric(
    "energy",
    "Captured energy",
    column="captured energy %",
    symbol="% of optimal",
    unit="% of optimal",
    high=100.0,
    lower_is_better=False,
    default_target=90.0,
    fmt="{:.1f}",
)
def _energy(s: Scoring) -> float:
    best = float(np.sum(s.eigenvalues[: s.reference.shape[1]]))
    return 100.0 * captured_energy(s.components, s.gram) / best if best > 0 else np.nan


@metric(
    "f1",
    "Support recovery F1",
    column="support F1",
    symbol="F1",
    lower_is_better=False,
    default_target=0.8,
    fmt="{:.2f}",
    needs=("support",),
)
def _f1(s: Scoring) -> float:
    return support_recovery(s.components, np.asarray(s.support), s.s if s.s > 0 else len(s.support))["f1"]
