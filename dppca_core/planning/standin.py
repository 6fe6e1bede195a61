"""The public stand-in a plan simulates on: a stated spectrum, a law, a published release, a spectrum released
privately (its cost counted) or the exact one (not private)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..pipeline.budget import BudgetSplit, release_pca
from ..pipeline.experiments import prepare_input
from ..privacy import PrivacyCurve
from ..registry import display_name
from ..validation import check_int_range

# ---------------------------------------------------------------------------------------------------------------
# The stand-in


def _tuple(values) -> tuple:
    return tuple(float(v) for v in np.asarray(values, dtype=float).ravel())


#: how many times a repetition's spectrum is drawn again when it came out all <= 0 (:meth:`Standin.spectrum_draw`)
DRAW_TRIES = 100


def cost_curve(cost: tuple) -> PrivacyCurve:
    """The privacy curve of a stand-in's ``cost`` (:meth:`PrivacyCurve.as_dict` items)."""
    spec = dict(cost)
    kind = spec.pop("kind")
    return PrivacyCurve.gdp(spec["mu"]) if kind == "gdp" else PrivacyCurve(kind, **spec)


@dataclass(frozen=True)
class Standin:
    """A public stand-in for the data: the covariance of the rows (their second moment where the analysis is not
    centred) as eigenvalues in the data's units (before clipping to R), the eigenvectors (None: the coordinate axes,
    which every rotation-invariant mechanism treats alike), a planted row support for sparse targets, a mean (for a
    privately centred analysis), where it came from and what it cost.

    ``privacy`` is "public" (a law, a stated spectrum, a release already published: planning on it costs nothing),
    "private" (released now from the data with ``cost``, its privacy curve as :meth:`PrivacyCurve.as_dict` items,
    which the plan adds to its total) or "not private" (read from the data without noise: exploration only).
    ``spread``: the standard deviation of each eigenvalue when they were released with noise (None: known exactly);
    each simulated repetition then draws its own spectrum around them (a parametric bootstrap), so the plan covers
    what the noisy stand-in does not pin down.

    Parameters
    ----------
    eigenvalues : tuple of float
        The rows' covariance eigenvalues (at least two, finite, not negative, not all 0), in the data's units.
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
    spread : tuple of float, optional
        The standard deviation of each eigenvalue released with noise.

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
    >>> dc.plan({"subspace_distance": 0.3}, n=5000, d=10, k=2, standin=standin, mechanisms=["analyze_gauss"],
    ...         reps=20, seed=0).epsilon
    0.05
    """

    eigenvalues: tuple
    basis: tuple | None = None
    support: tuple | None = None
    mean: tuple | None = None
    source: str = "a stated covariance spectrum"
    privacy: str = "public"
    cost: tuple | None = None
    notes: tuple = ()
    spread: tuple | None = None

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
        if self.spread is not None and (len(self.spread) != values.size or not all(v >= 0 for v in self.spread)):
            raise ValueError("the stand-in's spread must hold one standard deviation >= 0 per eigenvalue.")
        if self.privacy not in ("public", "private", "not private"):
            raise ValueError(f"privacy must be 'public', 'private' or 'not private' (got {self.privacy!r}).")

    @property
    def d(self) -> int:
        return len(self.eigenvalues)

    @property
    def values(self) -> np.ndarray:
        return np.asarray(self.eigenvalues, dtype=float)

    def basis_matrix(self) -> np.ndarray:
        return np.eye(self.d) if self.basis is None else np.asarray(self.basis, dtype=float)

    def mean_vector(self) -> np.ndarray:
        return np.zeros(self.d) if self.mean is None else np.asarray(self.mean, dtype=float)

    def cost_curve(self) -> PrivacyCurve | None:
        return None if self.cost is None else cost_curve(self.cost)

    def spectrum_draw(self, rng) -> np.ndarray:
        """The eigenvalues of one repetition: the stand-in's, or drawn around them with ``spread`` (floored at 0,
        descending), conditioned on the data having some variance: a draw that is all <= 0 is drawn again (at most
        DRAW_TRIES times, then the stand-in's own values stand)."""
        if self.spread is None:
            return self.values
        for _ in range(DRAW_TRIES):
            drawn = np.maximum(self.values + np.asarray(self.spread) * rng.standard_normal(self.d), 0.0)
            if drawn.sum() > 0:
                return np.sort(drawn)[::-1]
        return self.values

    def repetition(self, rng) -> "Standin":
        """The stand-in one simulated repetition uses: its eigenvalues drawn around the stand-in's (``spread``), else
        itself."""
        if self.spread is None:
            return self
        return replace(self, eigenvalues=_tuple(self.spectrum_draw(rng)), spread=None)

    def draw_rows(self, n: int, rng) -> np.ndarray:
        """n Gaussian rows with the stand-in's mean and covariance, in the data's units (not clipped)."""
        Z = rng.standard_normal((int(n), self.d)) * np.sqrt(self.values)
        rows = Z @ self.basis_matrix().T if self.basis is not None else Z
        return rows + self.mean_vector() if self.mean is not None else rows

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
        larger, the stand-in's eigengap is too wide and the plan optimistic). ``spread``: the standard deviation of each
        given value (released with noise), the tail's being that of the total shared among its directions."""
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
            values = np.sort(np.r_[values, np.full(d - given, rest)])[::-1]
            notes.append(
                f"The {d - given} variances beyond the {given} given were taken equal (the rest of the total "
                "spread evenly): if the largest of them is larger, the real eigengap is narrower and the plan "
                "optimistic."
            )
        if np.any(values < 0):
            notes.append("negative variances (noise in a released spectrum) were raised to 0.")
            values = np.sort(np.maximum(values, 0.0))[::-1]
        sd = None
        if spread is not None:
            sd = np.full(d, float(spread))
            sd[given:] = float(spread) / max(d - given, 1)
        return cls(_tuple(values), source=source, notes=tuple(notes), spread=None if sd is None else _tuple(sd))

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
        release that publishes the most variances). Its variances along the released components (and its total
        variance, for the directions it did not release) are sums over the rows clipped to its R and divided by it:
        divided by n (its public n, its published noisy count, or ``n``) and times R^2, they are per-row variances in
        the data's units; their published noise scale is the stand-in's ``spread``. Already published: planning on
        it costs nothing more."""
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
        total = pub.get("outputs", {}).get("total_variance")
        scale = R * R / float(count)
        noise = pub.get("facts", {}).get("eigenvalue_noise_scale")
        made = cls.from_spectrum(
            np.asarray(eig, dtype=float) * scale,
            d=d,
            total=None if total is None else float(total) * scale,
            spread=None if noise is None else float(noise) * scale,
            source=f"a published release ({display_name(pub.get('mechanism', ''))}, ε = "
            f"{pub.get('epsilon', float('nan')):g}, {len(eig)} variances)",
        )
        mean = pub.get("outputs", {}).get("mean")
        return replace(made, mean=_tuple(mean) if mean is not None else None)

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
        eigenvalue_share: float = 0.5,
    ) -> "Standin":
        """A spectrum released now from the rows ``X`` with (``epsilon``, ``delta``) of budget: Analyze Gauss with all
        d components and an eigenvalue share (and a mean share when ``center="private"``), read as
        :meth:`from_release`. This reads the rows once; the stand-in records its privacy curve, and a plan on it adds
        that to its total. Under add/remove (n private) it always releases a private mean, whose noisy row count
        converts its sums to per-row variances."""
        X = np.asarray(X, dtype=float)
        if neighbors == "add_remove":
            center = "private"
        extras = {"eigenvalues": eigenvalue_share, "mean": 0.1 if center == "private" else 0.0}
        release = release_pca(
            "analyze_gauss",
            X,
            X.shape[1],
            epsilon,
            delta,
            neighbors,
            data_norm,
            seed,
            budget=BudgetSplit.with_extras(**extras),
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
        """The exact spectrum of the rows ``X`` clipped to ``data_norm`` (centred with their own mean when
        ``center`` is not "none"): **not private**, for the data owner's exploration only."""
        inp = prepare_input(np.asarray(X, dtype=float), data_norm, "empirical" if center != "none" else "none")
        n, R = inp.data.n, inp.data.data_norm
        made = cls.from_spectrum(
            np.maximum(inp.reference.eigenvalues, 0.0) * R * R / n, source="the data's exact spectrum (NOT private)"
        )
        mean = np.asarray(X, dtype=float).mean(axis=0) if center != "none" else None
        return replace(made, privacy="not private", mean=None if mean is None else _tuple(mean))

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
