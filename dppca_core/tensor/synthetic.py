"""Synthetic latent-variable models with known components and weights (the paper's settings).

* Mixture of spherical Gaussians: K mean vectors a_k in R^D with ||a_k|| <= 1 (a public fact of the model:
  ``mean_bound``, onto whose ball the mechanisms project their estimates), mixing weights w, common noise
  variance sigma^2 (paper: 0.05). Samples t = a_h + z are used with a **public** clipping radius
  R = sqrt(max_k ||a_k||^2 + D sigma^2) + 5 sigma, fixed by the model, not by the data: ||t|| is a
  sigma-Lipschitz function of the standard normal z / sigma with mean at most sqrt(||a_h||^2 + D sigma^2), so
  P(||t|| > R) <= exp(-25 / 2) ~ 4e-6 and clipping (which would bias the moments) is rare.
* Single topic model: K topics, each a distribution a_k over D words, topic probabilities w; a document draws
  its topic h ~ w, then its L words i.i.d. from a_h.

The paper's sizes are the presets: (D, K) = (10, 5) and (50, 10).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import as_generator, check_int_range
from .moments import MAX_DIM, Documents

PRESETS = {"D = 10, K = 5 (paper)": (10, 5), "D = 50, K = 10 (paper)": (50, 10)}
PAPER_SIGMA2 = 0.05
#: the paper's mixture model: every component mean has norm at most 1 (public)
MEAN_BOUND = 1.0


@dataclass(frozen=True)
class LatentModel:
    """A latent-variable model with known parameters, and a sampler."""

    kind: str  # "mog" or "stm"
    components: np.ndarray  # D x K: mean vectors (MOG) or word distributions (STM)
    weights: np.ndarray  # K, summing to 1
    sigma2: float = 0.0  # MOG noise variance (original units); 0 for STM
    data_norm: float = 1.0  # public clipping radius of the samples (1 for STM: one-hot words)
    length: int = 3  # STM words per document
    mean_bound: float | None = None  # MOG: the public bound on every ||a_k|| (original units); None for STM

    @property
    def params(self) -> dict:
        """The public facts of the model every tensor mechanism takes: sigma2 and, for the mixture, the bound on
        the means' norms."""
        return {"sigma2": self.sigma2, **({"mean_bound": self.mean_bound} if self.mean_bound is not None else {})}

    @property
    def D(self) -> int:
        return self.components.shape[0]

    @property
    def K(self) -> int:
        return self.components.shape[1]

    def sample(self, n: int, rng) -> np.ndarray | Documents:
        """n samples: an n x D float array (MOG) or a :class:`Documents` corpus (STM)."""
        n = check_int_range(n, "n", 2, 10**8)
        rng = as_generator(rng)
        topics = rng.choice(self.K, size=n, p=self.weights)
        if self.kind == "mog":
            return self.components.T[topics] + rng.normal(0.0, np.sqrt(self.sigma2), size=(n, self.D))
        cdf = np.cumsum(self.components, axis=0)
        cdf[-1] = 1.0
        u = rng.random((n, self.length))
        words = np.empty((n, self.length), dtype=np.int64)
        for k in range(self.K):
            rows = topics == k
            words[rows] = np.searchsorted(cdf[:, k], u[rows], side="right")
        return Documents(np.minimum(words, self.D - 1), self.D)

    def population_moments(self) -> tuple[np.ndarray, np.ndarray]:
        """M2 = sum w_k a_k a_k^T and M3 = sum w_k a_k (x) a_k (x) a_k (original units)."""
        A, w = self.components, self.weights
        return (A * w) @ A.T, np.einsum("k,ik,jk,lk->ijl", w, A, A, A)


def _check_sizes(D, K):
    D = check_int_range(D, "D", 2, MAX_DIM)
    K = check_int_range(K, "K", 1, D)
    return D, K


def _weights(K: int) -> np.ndarray:
    w = np.linspace(1.0, 2.0, K)
    return w / w.sum()


def mog_model(D: int, K: int, sigma2: float = PAPER_SIGMA2, seed: int = 0) -> LatentModel:
    """K mean vectors with norms in [0.7, 1] and well-separated directions (smallest singular value of the
    unit directions >= 0.35, redrawn otherwise), weights proportional to 1 .. 2, noise variance sigma2; the model
    declares ||a_k|| <= 1, the paper's bound (``mean_bound``)."""
    D, K = _check_sizes(D, K)
    if not (np.isfinite(sigma2) and sigma2 >= 0):
        raise ValueError(f"sigma2 must be a finite number >= 0 (got {sigma2!r}).")
    rng = np.random.default_rng([seed, 1])
    for _ in range(1000):
        G = rng.standard_normal((D, K))
        G /= np.linalg.norm(G, axis=0)
        if np.linalg.svd(G, compute_uv=False)[-1] >= 0.35 or K == 1:
            break
    A = G * rng.uniform(0.7, 1.0, K)
    radius = float(np.sqrt(np.max(np.sum(A**2, axis=0)) + D * sigma2) + 5.0 * np.sqrt(sigma2))
    return LatentModel("mog", A, _weights(K), float(sigma2), max(radius, 1.0), mean_bound=MEAN_BOUND)


def stm_model(D: int, K: int, seed: int = 0, length: int = 3) -> LatentModel:
    """K topics over D words: topic k puts 3/4 of its mass on its own block of about D/K words (Dirichlet(2)
    within the block) and 1/4 on a Dirichlet(1) background over all words; weights proportional to 1 .. 2."""
    D, K = _check_sizes(D, K)
    length = check_int_range(length, "length", 3, 10_000)
    rng = np.random.default_rng([seed, 2])
    A = np.zeros((D, K))
    for k, block in enumerate(np.array_split(np.arange(D), K)):
        A[block, k] += 0.75 * rng.dirichlet(2.0 * np.ones(block.size))
        A[:, k] += 0.25 * rng.dirichlet(np.ones(D))
    return LatentModel("stm", A / A.sum(axis=0), _weights(K), 0.0, 1.0, length)


def make_model(kind: str, D: int, K: int, seed: int = 0, sigma2: float = PAPER_SIGMA2) -> LatentModel:
    """``kind`` "mog" or "stm" (case-insensitive)."""
    kind = str(kind).lower()
    if kind == "mog":
        return mog_model(D, K, sigma2, seed)
    if kind == "stm":
        return stm_model(D, K, seed)
    raise ValueError(f"model must be 'mog' (mixture of Gaussians) or 'stm' (single topic model), not {kind!r}.")
