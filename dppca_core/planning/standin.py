"""The public stand-in a plan simulates on: a stated spectrum, a law, a published release, a spectrum released
privately (its cost counted) or the exact one (not private); a noisy one with the band of spectra it is consistent
with (:mod:`.band`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..pipeline.budget import BudgetSplit, release_pca
from ..pipeline.experiments import prepare_input
from ..privacy import PrivacyCurve
from ..registry import display_name
from ..validation import check_int_range
from .band import STANDIN_LEVEL, release_band, value_band

# ---------------------------------------------------------------------------------------------------------------
# The stand-in


def _tuple(values) -> tuple:
    return tuple(float(v) for v in np.asarray(values, dtype=float).ravel())


#: the share of a private stand-in's budget that releases its mean (when the analysis centres privately)
STANDIN_MEAN_SHARE = 0.1
#: where in its band a spectrum a plan checks lies, on the line from the band's centre (0) to its hardest corner (1:
#: the top k variances at their lower ends, the others at their upper ends; -1 is the opposite corner). A distance or
#: support target gets harder as every gap between the top k and the rest narrows, so the corner alone is checked (a
#: captured-energy target is planned through a distance that guarantees it: :meth:`Standin.targets_for`); the
#: variances' error and the score plot are not monotone in the gaps, so they are checked along the band, at four
#: spectra (not a worst case, and the plan says so)
CORNER_ONLY = (1.0,)
ALONG_THE_BAND = (1.0, 0.5, 0.0, -1.0)
#: targets whose difficulty grows as every gap between the top k variances and the rest narrows
MONOTONE_TARGETS = ("subspace_distance", "f1")
#: how many times :meth:`Standin.exact_rows` pulls rows beyond R in and sets the moments again
RECLIP_ROUNDS = 8


def cost_curve(cost: tuple) -> PrivacyCurve:
    """The privacy curve of a stand-in's ``cost`` (:meth:`PrivacyCurve.as_dict` items)."""
    spec = dict(cost)
    kind = spec.pop("kind")
    return PrivacyCurve.gdp(spec["mu"]) if kind == "gdp" else PrivacyCurve(kind, **spec)


@dataclass(frozen=True)
class Standin:
    """A public stand-in for the data: the covariance of the rows (their second moment where the analysis is not
    centred) as eigenvalues in the data's units, the eigenvectors (None: the coordinate axes, which every
    rotation-invariant mechanism treats alike), a planted row support for sparse targets, a mean (for a privately
    centred analysis), where it came from and what it cost.

    ``privacy`` is "public" (a law, a stated spectrum, a release already published: planning on it costs nothing),
    "private" (released now from the data with ``cost``, its privacy curve as :meth:`PrivacyCurve.as_dict` items,
    which the plan adds to its total) or "not private" (read from the data without noise: exploration only).

    ``low``, ``high``: for a spectrum released with noise, the band every eigenvalue lies in, jointly with
    probability ``level`` over that noise (:mod:`.band`; None: known exactly). A plan then holds for every spectrum
    in the band (:meth:`consistent`), or declines when the band leaves the top k undistinguished from the rest.
    ``fixed``: the spectrum is the rows' own (one table, not a population): each simulated repetition reuses it
    exactly, with fresh release noise, instead of drawing a fresh sample from it (whose spectrum spreads: its top
    gap comes out wider on average, an optimism a table does not have).
    ``centred``: whether the spectrum is of the rows centred (True) or of their second moment (False), when it was
    read from rows (None: stated or a law, taken as meant for the plan's centring); a plan whose releases centre
    otherwise refuses it.

    Parameters
    ----------
    eigenvalues : tuple of float
        The rows' covariance eigenvalues (at least two, finite, not negative, not all 0), in the data's units,
        descending.
    basis : tuple, optional
        The eigenvectors as a d x d nested tuple (None: the coordinate axes).
    support : tuple of int, optional
        A planted row support (for an F1 target).
    mean : tuple of float, optional
        The rows' mean, for a privately centred analysis.
    source : str
        Where the stand-in came from, in words.
    privacy : {"public", "private", "not private"}
        What planning on it costs (see above).
    cost : tuple, optional
        The privacy curve of a stand-in released now, as :meth:`PrivacyCurve.as_dict` items.
    notes : tuple of str
        What was said about it in words.
    low, high : tuple of float, optional
        The band of a spectrum released with noise (both or neither).
    fixed : bool
        The spectrum is the rows' own: repetitions reuse it.
    level : float, optional
        The joint probability of the band.
    centred : bool, optional
        Whether a spectrum read from rows is of the centred rows.

    Raises
    ------
    ValueError
        In words, for eigenvalues that cannot be a covariance spectrum or fields of the wrong length.

    Examples
    --------
    >>> import dppca_core as dc
    >>> standin = dc.Standin(eigenvalues=(4.0, 2.0) + (0.1,) * 8)
    >>> standin.d, standin.privacy
    (10, 'public')
    """

    eigenvalues: tuple
    basis: tuple | None = None
    support: tuple | None = None
    mean: tuple | None = None
    source: str = "a stated covariance spectrum"
    privacy: str = "public"
    cost: tuple | None = None
    notes: tuple = ()
    low: tuple | None = None
    high: tuple | None = None
    fixed: bool = False
    level: float | None = None
    centred: bool | None = None

    def __post_init__(self):
        values = np.asarray(self.eigenvalues, dtype=float)
        if (
            values.ndim != 1
            or values.size < 2
            or not np.all(np.isfinite(values))
            or np.any(values < 0)
            or not values.sum() > 0
        ):
            raise ValueError(
                "a stand-in spectrum is a list of at least two finite variances >= 0, not all zero "
                f"(got {[float(v) for v in np.round(values, 6)][:10]})."
            )
        if np.any(np.diff(values) > 0):
            raise ValueError(
                "the stand-in's eigenvalues must be in descending order (Standin.from_spectrum sorts " "them)."
            )
        if self.basis is not None and np.asarray(self.basis).shape != (values.size, values.size):
            raise ValueError("the stand-in's basis must be d x d.")
        if self.mean is not None and len(self.mean) != values.size:
            raise ValueError("the stand-in's mean must have d entries.")
        if (self.low is None) != (self.high is None):
            raise ValueError("a stand-in's band needs both ends (low and high) or neither.")
        if self.low is not None and not (
            len(self.low) == len(self.high) == values.size
            and all(0 <= a <= b for a, b in zip(self.low, self.high))
            and all(np.isfinite(self.high))
        ):
            raise ValueError("the stand-in's band must hold one interval 0 <= low <= high per eigenvalue.")
        if self.privacy not in ("public", "private", "not private"):
            raise ValueError(f"privacy must be 'public', 'private' or 'not private' (got {self.privacy!r}).")

    @property
    def d(self) -> int:
        return len(self.eigenvalues)

    @property
    def values(self) -> np.ndarray:
        return np.asarray(self.eigenvalues, dtype=float)

    @property
    def banded(self) -> bool:
        return self.low is not None

    def basis_matrix(self) -> np.ndarray:
        return np.eye(self.d) if self.basis is None else np.asarray(self.basis, dtype=float)

    def mean_vector(self) -> np.ndarray:
        return np.zeros(self.d) if self.mean is None else np.asarray(self.mean, dtype=float)

    def cost_curve(self) -> PrivacyCurve | None:
        return None if self.cost is None else cost_curve(self.cost)

    # -- the spectra a noisy stand-in is consistent with ----------------------------------------------------------

    def corner(self, k: int) -> np.ndarray:
        """The hardest spectrum in the band for k components: the top k at their lower ends, the others at their
        upper ends (the stand-in's own values when it has no band). Not sorted: its k-th value may fall below the
        next (:meth:`gap`)."""
        if not self.banded:
            return self.values
        return np.r_[np.asarray(self.low)[:k], np.asarray(self.high)[k:]]

    def gap(self, k: int) -> float:
        """The smallest gap between the k-th variance and the next that the stand-in is consistent with (its band's
        corner; <= 0: the top k may not be distinguishable from the rest at all)."""
        corner = self.corner(k)
        return float(np.min(corner[:k]) - np.max(corner[k:])) if k < self.d else float(np.min(corner))

    def consistent(self, k: int, targets=()) -> list["Standin"]:
        """The spectra a plan for k components must hold on: the stand-in itself when it has no band; else the
        band's hardest corner, and for targets that are not harder at a narrower gap (not in
        :data:`MONOTONE_TARGETS`) also half way to the band's centre, the centre and the opposite corner
        (:data:`ALONG_THE_BAND`). Each without a band, its values descending."""
        if not self.banded:
            return [self]
        centre = (np.asarray(self.low) + np.asarray(self.high)) / 2.0
        corner = self.corner(k)
        steps = CORNER_ONLY if all(t in MONOTONE_TARGETS for t in targets) else ALONG_THE_BAND
        out = []
        for s in steps:
            values = np.sort(np.maximum(s * corner + (1.0 - s) * centre, 0.0))[::-1]
            if values.sum() > 0:
                out.append(replace(self, eigenvalues=_tuple(values), low=None, high=None))
        return out or [replace(self, low=None, high=None)]

    def targets_for(self, targets: tuple, k: int) -> tuple[tuple, list]:
        """(the targets a plan simulates on this stand-in, notes): the targets themselves, except that on a banded
        stand-in a captured energy of at least b becomes the subspace distance that guarantees it on every spectrum
        of the band. The energy lost is at most (lambda_1 - lambda_d) ||sin Theta||_F^2, so a distance of at most
        sqrt((1 - b) S / (lambda_1 - lambda_d)), with S the top k's sum at its lowest and the spread at its widest,
        keeps the share at least b (combined with any distance target by the smaller)."""
        given = dict(targets)
        if not self.banded or "energy" not in given:
            return tuple(targets), []
        lo, hi = np.asarray(self.low), np.asarray(self.high)
        spread = float(hi[0] - lo[-1])
        most = math.sqrt(min(k, self.d - k)) if k < self.d else 0.0
        needed = most if spread <= 0 else min(math.sqrt((1.0 - given["energy"]) * float(lo[:k].sum()) / spread), most)
        distance = min(given.get("subspace_distance", math.inf), needed)
        out = [(name, value) for name, value in targets if name not in ("energy", "subspace_distance")]
        out.insert(0, ("subspace_distance", max(distance, 0.0)))
        note = (
            f"The captured energy is planned through the subspace distance that guarantees it on every spectrum of "
            f"the stand-in's band (energy lost <= (largest - smallest variance) x distance squared): distance "
            f"<= {distance:.3g}."
        )
        return tuple(out), [note]

    def band_words(self, k: int) -> str:
        """The band in a sentence (Markdown-free)."""
        lo, hi = np.asarray(self.low), np.asarray(self.high)
        return (
            f"with probability {100 * self.level:.0f}% over its own noise, variance {k} lies in "
            f"[{lo[k - 1]:.3g}, {hi[k - 1]:.3g}] and variance {k + 1} in [{lo[k]:.3g}, {hi[k]:.3g}]"
            if k < self.d
            else f"with probability {100 * self.level:.0f}% over its own noise, variance {k} is at least {lo[k - 1]:.3g}"
        )

    # -- rows -----------------------------------------------------------------------------------------------------

    def draw_rows(self, n: int, rng) -> np.ndarray:
        """n Gaussian rows with the stand-in's mean and covariance, in the data's units (not clipped)."""
        Z = rng.standard_normal((int(n), self.d)) * np.sqrt(self.values)
        rows = Z @ self.basis_matrix().T if self.basis is not None else Z
        return rows + self.mean_vector() if self.mean is not None else rows

    def exact_rows(self, n: int, rng, radius: float | None = None) -> np.ndarray:
        """n rows whose mean and covariance (second moment when the stand-in has no mean) are exactly the
        stand-in's: a table with this very spectrum (:attr:`fixed`), in a random arrangement. With ``radius`` (the
        R the release clips to), rows beyond it are pulled in and the moments set again, a few times: a spectrum
        read from rows already clipped to R describes rows inside R, and clipping Gaussian rows again would shrink
        it (a plan then spends more than it needs)."""
        Z = rng.standard_normal((int(n), self.d))
        rows = self._with_moments(Z)
        for _ in range(RECLIP_ROUNDS if radius else 0):
            norms = np.linalg.norm(rows, axis=1)
            if not np.any(norms > radius * (1 + 1e-6)):
                break
            rows = self._with_moments(rows * np.minimum(1.0, radius / np.maximum(norms, 1e-300))[:, None])
        return rows

    def _with_moments(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` moved (an affine map) to the stand-in's mean and covariance exactly."""
        centre = rows.mean(axis=0) if self.mean is not None else np.zeros(self.d)
        Z = rows - centre
        L = np.linalg.cholesky(Z.T @ Z / Z.shape[0] + 1e-12 * np.eye(self.d))
        W = np.linalg.solve(L, Z.T).T  # whitened: identity second moment
        out = W * np.sqrt(self.values) if self.basis is None else W @ (self.basis_matrix() * np.sqrt(self.values)).T
        return out + self.mean_vector() if self.mean is not None else out

    # -- constructors ------------------------------------------------------------------------------------------

    @classmethod
    def from_spectrum(
        cls,
        values,
        d: int | None = None,
        total: float | None = None,
        source: str = "a stated covariance spectrum",
        spread: float | None = None,
    ) -> "Standin":
        """From eigenvalues (data units, any order). Fewer than ``d`` values need ``total`` (the trace): the rest of
        it is spread evenly over the other d - len(values) directions (stated in ``notes``: if the next variance is
        larger, the stand-in's eigengap is too wide and the plan optimistic). ``spread``: the standard deviation of
        each given value (released with noise), the tail's being that of the total shared among its directions; the
        stand-in then carries the band of :func:`.band.value_band`."""
        values = np.sort(np.asarray(values, dtype=float).ravel())[::-1]
        given = values.size
        d = values.size if d is None else check_int_range(d, "d", 2)
        notes = []
        if values.size > d:
            raise ValueError(f"the spectrum has {values.size} values for d = {d} features.")
        if values.size < d:
            if total is None:
                raise ValueError(
                    f"the spectrum has {values.size} values for d = {d} features: give the total variance "
                    "(total=...) to spread the rest over the other directions, or all d values."
                )
            rest = max(float(total) - float(values.sum()), 0.0) / (d - given)
            values = np.r_[values, np.full(d - given, rest)]
            notes.append(
                f"The {d - given} variances beyond the {given} given were taken equal (the rest of the total "
                "spread evenly): if the largest of them is larger, the real eigengap is narrower and the plan "
                "optimistic."
            )
        if np.any(values < 0):
            notes.append("negative variances (noise in a released spectrum) were raised to 0.")
        band = {}
        if spread is not None:
            sd = np.full(d, float(spread))
            sd[given:] = float(spread) / max(d - given, 1)
            order = np.argsort(-values, kind="stable")
            low, high = value_band(values[order], sd[order])
            band = dict(low=_tuple(low), high=_tuple(high), level=STANDIN_LEVEL)
        values = np.sort(np.maximum(values, 0.0))[::-1]
        return cls(_tuple(values), source=source, notes=tuple(notes), **band)

    @classmethod
    def from_law(cls, law, source: str | None = None) -> "Standin":
        """From a synthetic law (:class:`dppca_core.data.datasets.SyntheticData`: its covariance, planted support and
        public scaling; the rows it drew are not read)."""
        cov = np.asarray(law.covariance, dtype=float)
        values, vectors = np.linalg.eigh((cov + cov.T) / 2.0)
        order = np.argsort(values)[::-1]
        values, vectors = np.maximum(values[order], 0.0), vectors[:, order]
        support = np.asarray(law.support)
        sparse = support.size < cov.shape[0]
        return cls(
            _tuple(values),
            basis=tuple(map(_tuple, vectors)),
            support=_tuple(support) if sparse else None,
            source=source or f"the law of the {law.name} data ({law.description})",
        )

    @classmethod
    def spiked(
        cls,
        d: int,
        k: int,
        spike: float = 10.0,
        eigengap: float | None = None,
        noise: float = 1.0,
        sparsity: int | None = None,
        data_norm: float = 1.0,
        seed: int = 0,
    ) -> "Standin":
        """The spiked (optionally row-sparse) law of :func:`dppca_core.data.datasets.spiked_covariance`, with its public
        scaling to the radius ``data_norm``; ``seed`` draws its planted directions (and support). A sparse direction's
        entries decide how hard its support is to find: a plan holds for the directions of this law."""
        from ..data.synthetic import spiked_covariance

        law = spiked_covariance(
            n=2,
            d=d,
            k=k,
            spike=spike,
            eigengap=eigengap,
            noise=noise,
            sparsity=sparsity,
            seed=seed,
            data_norm=data_norm,
        )
        return cls.from_law(law, source=f"a spiked law: {law.description}")

    @classmethod
    def from_release(cls, published: dict, n: float | None = None) -> "Standin":
        """From a previous publishable release: one :func:`dppca_core.publish` output, or a publishable file (its
        release that publishes the most variances). Its variances (and its total variance, for the directions it did
        not release) are sums over the rows clipped to its R and divided by it: divided by n (its public n, its
        published noisy count, or ``n``) and times R^2, they are per-row variances in the data's units.

        Their published noise gives the band the stand-in carries (:mod:`.band`): Analyze Gauss's own eigenvalues
        (no eigenvalue share) are those of the Gram matrix plus symmetric Gaussian noise (:func:`.band.gram_band`
        when all d are published, Weyl's band otherwise); variances released from an eigenvalue share each have
        their own noise (:func:`.band.value_band`). A release centred with a private mean also widens each lower end
        by the rank-one term of that mean's noise (:func:`.band.mean_shift`). The spectrum is the rows' own
        (``fixed``), with the released components as its eigenvectors when all d were released. Already published:
        planning on it costs nothing more."""
        pub = _release_entry(published)
        params = pub.get("parameters", {})
        count = n if n is not None else params.get("n") or pub.get("outputs", {}).get("count")
        if not count or count <= 0:
            raise ValueError(
                "this release does not publish n (add/remove neighbours): give n=..., e.g. a released " "noisy count."
            )
        R = float(params.get("data_norm", 1.0))
        d = int(params.get("d", len(pub["components"])))
        eig = pub.get("eigenvalues")
        if not eig:
            raise ValueError(
                "this release publishes no variances: draw one with an eigenvalue share "
                "(BudgetSplit.with_extras(eigenvalues=...)) to plan from it."
            )
        scale = R * R / float(count)
        made = _released_spectrum(pub, np.asarray(eig, dtype=float), d, float(count), scale)
        mean = pub.get("outputs", {}).get("mean")
        basis = None
        if len(eig) == d and np.asarray(pub["components"]).shape == (d, d):
            basis = tuple(map(_tuple, np.asarray(pub["components"], dtype=float)))
        centred = params.get("center", "none") != "none"
        return replace(made, mean=_tuple(mean) if mean is not None else None, basis=basis, fixed=True, centred=centred)

    @classmethod
    def private(
        cls,
        X,
        epsilon: float,
        delta: float = 1e-6,
        *,
        data_norm: float = 1.0,
        neighbors: str = "replace",
        center: str = "none",
        seed=None,
    ) -> "Standin":
        """A spectrum released now from the rows ``X`` with (``epsilon``, ``delta``) of budget: Analyze Gauss with all
        d components, its eigenvalues those of its own noisy Gram matrix (and a mean share when
        ``center="private"``: the spectrum is then that of the rows centred as the planned releases centre them),
        read as :meth:`from_release`, with the band of spectra its noise leaves open. This reads the rows once; the
        stand-in records its privacy curve, and a plan on it adds that to its total. Under add/remove (n private) its
        sums become per-row variances through the noisy row count of a private mean, so it is released centred only
        (``center="private"``; refused otherwise, before anything is spent)."""
        X = np.asarray(X, dtype=float)
        if neighbors == "add_remove" and center != "private":
            raise ValueError(
                "under add/remove the number of rows is private: a spectrum released from them is read through the "
                "noisy count of a private mean, so it describes the rows centred. Plan a release centred with a "
                "private mean (center='private'), or state a spectrum."
            )
        release = release_pca(
            "analyze_gauss",
            X,
            X.shape[1],
            epsilon,
            delta,
            neighbors,
            data_norm,
            seed,
            budget=BudgetSplit.with_extras(mean=STANDIN_MEAN_SHARE if center == "private" else 0.0),
            center=center,
        )
        cost = tuple(release.privacy.as_dict().items())
        published = release.published()
        if not max(published["eigenvalues"]) > 0:  # the noise swamped every variance: spent, and of no use
            raise StandinTooNoisy(
                f"the spectrum released with ε = {epsilon:g} is all noise (every variance came out "
                "at 0 or below): spend more ε on the stand-in, or state a spectrum.",
                cost,
            )
        made = cls.from_release(published, n=X.shape[0] if neighbors == "replace" else None)
        return replace(
            made,
            source=f"a spectrum released privately now (ε = {epsilon:g}, δ = {delta:g})",
            privacy="private",
            cost=cost,
        )

    @classmethod
    def exact(cls, X, data_norm: float = 1.0, center: str = "none") -> "Standin":
        """The exact spectrum of the rows ``X`` as a release's reference reads them: clipped to ``data_norm``, then
        centred with their own mean for ``center="private"`` (what a privately centred release aims at), or centred
        first and clipped for ``"empirical"``: **not private**, for the data owner's exploration only. The rows' own
        spectrum (``fixed``), with the mean of the rows the release centres."""
        X = np.asarray(X, dtype=float)
        inp = prepare_input(X, data_norm, center if center in ("none", "private") else "empirical")
        n, R = inp.data.n, inp.data.data_norm
        made = cls.from_spectrum(
            np.maximum(inp.reference.eigenvalues, 0.0) * R * R / n, source="the data's exact spectrum (NOT private)"
        )
        mean = None if center == "none" else inp.data.rows.mean(axis=0) * R if center == "private" else X.mean(axis=0)
        return replace(
            made,
            privacy="not private",
            mean=None if mean is None else _tuple(mean),
            fixed=True,
            centred=center != "none",
        )

    def describe(self) -> str:
        words = {
            "public": "public",
            "private": "released privately (its cost is counted)",
            "not private": "NOT private: read from the data without noise",
        }[self.privacy]
        return f"{self.source}; {words}"


class StandinTooNoisy(ValueError):
    """A private stand-in whose released spectrum is all noise. The release was made: ``cost`` (its privacy curve
    as :meth:`PrivacyCurve.as_dict` items) is spent on the rows all the same and must be counted."""

    def __init__(self, message: str, cost: tuple):
        super().__init__(message)
        self.cost = cost


def _released_spectrum(pub: dict, eig: np.ndarray, d: int, count: float, scale: float) -> Standin:
    """The stand-in of a release's variances ``eig`` (the Gram matrix's units) with the band their published noise
    leaves open (:func:`.band.release_band`), in the data's units (times ``scale``, R^2 / n)."""
    total = pub.get("outputs", {}).get("total_variance")
    source = f"a published release ({display_name(pub.get('mechanism', ''))}, ε = {pub.get('epsilon', float('nan')):g}"
    made = Standin.from_spectrum(
        eig * scale,
        d=d,
        total=None if total is None else float(total) * scale,
        source=f"{source}, {eig.size} variances)",
    )
    band = release_band(pub, eig, d, count)
    if band is None:
        return made
    low, high = band[0] * scale, band[1] * scale
    notes = tuple(n for n in made.notes if not n.startswith("negative variances"))  # the band holds them
    return replace(made, low=_tuple(low), high=_tuple(high), level=STANDIN_LEVEL, notes=notes)


def _release_entry(published: dict) -> dict:
    if not isinstance(published, dict):
        raise ValueError("give a release as published (a dict from publish() or a publishable file).")
    if "releases" in published:
        entries = [r for r in published["releases"].values() if r.get("eigenvalues")]
        if not entries:
            raise ValueError("no release of this file publishes variances: one with an eigenvalue share is needed.")
        return max(entries, key=lambda r: len(r["eigenvalues"]))
    if "components" not in published:
        raise ValueError("this is not a published release (no components).")
    return published
