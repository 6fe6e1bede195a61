"""Inputs of the tensor mechanisms and the empirical moments M2 and M3 they release privately.

Two latent-variable models (Anandkumar, Ge, Hsu, Kakade & Telgarsky 2014) are supported:

* **Mixture of spherical Gaussians (MOG).** Rows t = a_h + z with z ~ N(0, sigma^2 I). Rows are clipped to
  the public radius ``data_norm`` = R and divided by it, so x = t / R has norm <= 1 and noise variance
  s^2 = sigma^2 / R^2. Moments (Hsu & Kakade 2013), in those scaled units:
  M2 = (1/n) sum x x^T - s^2 I,
  M3 = (1/n) sum x (x) x (x) x - s^2 sum_d (m (x) e_d (x) e_d + e_d (x) m (x) e_d + e_d (x) e_d (x) m), m = mean x.
* **Single topic model (STM).** Documents of L >= 3 words from a vocabulary of D words, all words of a document
  drawn from its one topic. Only the first three words are read (the estimator of the paper):
  M2 = sym((1/n) sum e_w1 e_w2^T), M3 = sym((1/n) sum e_w1 (x) e_w2 (x) e_w3), where sym averages over the
  permutations of the indices. The raw averages are NOT symmetric for finite n; releasing their antisymmetric
  part would identify documents exactly, so only the symmetrised moments are ever formed.

Both moments are returned as their unique coordinates (see :mod:`.symmetric`). M3 is accumulated over chunks
of rows (one GEMM per chunk), so memory is O(d^3 + chunk d^2), never O(n d^3).
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np

from ..data.prepare import PreparedData, prepare
from .symmetric import delta_unique, n_unique, symmetrize, to_unique, to_upper, unique_from_pairs, upper_index

MODELS = ("mog", "stm")
#: Largest dimension the tensor mechanisms accept (a d x d x d tensor is built; d = 100 is 8 MB).
MAX_DIM = 100
#: Floats per chunk of row outer products when accumulating M3 (16 MB).
CHUNK_FLOATS = 2_000_000
#: Largest mixture noise variance in units of the scaled rows, s^2 = sigma^2 / data_norm^2. The corrections s^2 I
#: and s^2 T(m) are subtracted from moments of rows of norm <= 1 (entries at most 1); beyond 2^52 the data's part
#: is below the rounding of the correction, so the corrected moments no longer depend on the data.
MAX_SCALED_VARIANCE = 2.0**52


class Documents:
    """A corpus for the single topic model: word indices per document and the (public) vocabulary size.

    Parameters
    ----------
    words : array-like of int, shape (n, L) with L >= 3
        ``words[i, l]`` is the vocabulary index (0 .. vocabulary_size - 1) of the l-th word of document i.
        Only the first three words of each document are read.
    vocabulary_size : int
        D, the number of distinct words. It is public (like the number of columns of a data matrix), so it is
        given, never inferred from the words.
    """

    def __init__(self, words, vocabulary_size: int):
        if isinstance(vocabulary_size, bool) or not isinstance(vocabulary_size, Integral) or vocabulary_size < 2:
            raise ValueError(f"vocabulary_size must be a whole number >= 2 (got {vocabulary_size!r}).")
        try:
            arr = np.asarray(words)
        except (TypeError, ValueError) as exc:  # ragged lists
            raise ValueError(
                f"words must be an n x L array of word indices ({exc}); pad or cut documents to "
                "a common length L >= 3."
            ) from None
        if arr.ndim != 2 or arr.shape[1] < 3:
            raise ValueError(f"words must be an n x L array with L >= 3 words per document (got shape {arr.shape}).")
        if arr.shape[0] < 2:
            raise ValueError(f"the corpus has {arr.shape[0]} document(s); at least 2 are needed.")
        if arr.dtype.kind not in "iu":
            if arr.dtype.kind != "f" or not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
                raise ValueError("words must hold whole-number vocabulary indices.")
            arr = arr.astype(np.int64)
        if arr.min() < 0 or arr.max() >= vocabulary_size:
            raise ValueError(
                f"word indices must lie in 0 .. {vocabulary_size - 1} (vocabulary_size = "
                f"{vocabulary_size}); found {int(arr.min())} .. {int(arr.max())}."
            )
        self.words = np.ascontiguousarray(arr[:, :3], dtype=np.int64)
        self.words.setflags(write=False)
        self.vocabulary_size = int(vocabulary_size)

    @property
    def n(self) -> int:
        return self.words.shape[0]

    def __repr__(self) -> str:
        return f"Documents(n={self.n}, vocabulary_size={self.vocabulary_size})"


class TensorData:
    """Prepared input of a tensor mechanism: the scaled rows (MOG) or the first three words (STM).

    Attributes ``n``, ``d``, ``data_norm``, ``n_clipped`` and ``model`` are what :func:`dppca_core.run` and the
    mechanisms read. Moments of any subset of samples (a site) are computed once and cached on the object,
    so repetitions and mechanisms sharing one ``TensorData`` share the work. The cache holds raw-data
    statistics: never publish them.
    """

    has_rows = True

    def __init__(self, model: str, n: int, d: int, data_norm: float, n_clipped: int = 0, rows=None, words=None):
        if model not in MODELS:
            raise ValueError(f"model must be one of {MODELS} (got {model!r}).")
        if d > MAX_DIM:
            raise ValueError(
                f"d = {d} is too large for the tensor mechanisms (they build a d x d x d tensor): "
                f"use d <= {MAX_DIM}, e.g. by keeping the most frequent words or features."
            )
        self.model, self.n, self.d = model, int(n), int(d)
        self.data_norm, self.n_clipped = float(data_norm), int(n_clipped)
        self._rows, self._words = rows, words
        self._cache: dict = {}

    def moments(self, idx=None, sigma2: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """Unique coordinates (upper(M2), unique(M3)) of the symmetric moments of the samples ``idx``.

        ``sigma2`` is the MOG noise variance in the data's original units (ignored for STM); the moments use
        s^2 = sigma2 / data_norm^2 because rows are divided by data_norm.
        """
        idx = np.arange(self.n) if idx is None else np.asarray(idx)
        s2 = self.scaled_variance(sigma2)
        key = (idx.size, int(idx[0]), int(idx[-1]), hash(idx.tobytes()), s2)
        if key not in self._cache:
            if self.model == "mog":
                self._cache[key] = mog_moments(self._rows[idx], s2)
            else:
                self._cache[key] = stm_moments(self._words[idx], self.d)
        return self._cache[key]

    def scaled_variance(self, sigma2: float) -> float:
        """s^2 = sigma2 / data_norm^2: the mixture's noise variance in units of the scaled rows (0 for the topic
        model). Computed as sigma2 / R / R, so R^2 cannot overflow or underflow on its own; ValueError above
        :data:`MAX_SCALED_VARIANCE`, naming the smallest usable data_norm."""
        if self.model != "mog":
            return 0.0
        s2 = float(sigma2) / self.data_norm / self.data_norm
        if not s2 <= MAX_SCALED_VARIANCE:
            raise ValueError(
                f"sigma2 / data_norm^2 = {s2:.3g} (sigma2 = {sigma2:g}, data_norm = {self.data_norm:g}): the mixture's "
                f"noise variance in units of the clipped rows is above 2^52 = {MAX_SCALED_VARIANCE:.2g}, where its "
                "correction of the moments swamps the data's own (at most 1) in double precision. Use data_norm >= "
                f"{math.sqrt(float(sigma2) / MAX_SCALED_VARIANCE) * (1 + 1e-12):.3g} for this sigma2, or a smaller "
                "sigma2 (0 ignores the noise)."
            )
        return s2

    def __repr__(self) -> str:
        return (
            f"TensorData(model={self.model!r}, n={self.n}, d={self.d}, data_norm={self.data_norm:g}, "
            f"n_clipped={self.n_clipped})"
        )


def prepare_tensor_input(X, data_norm: float = 1.0) -> TensorData:
    """The ``prepare_input`` hook of the tensor mechanisms.

    ``X`` is a :class:`TensorData` (passed through), a :class:`Documents` corpus (single topic model; leave
    ``data_norm`` at 1: one-hot words have norm 1), or a numeric n x d array / DataFrame of mixture samples,
    whose rows are clipped to the public radius ``data_norm`` and divided by it.
    """
    if isinstance(X, TensorData):
        if not math.isclose(X.data_norm, data_norm):
            raise ValueError(
                f"the tensor input was prepared with data_norm = {X.data_norm:g}, not {data_norm:g}; "
                "prepare it again or pass the same data_norm."
            )
        return X
    if isinstance(X, Documents):
        if not math.isclose(data_norm, 1.0):
            raise ValueError("documents are one-hot words of norm 1: leave data_norm at 1 for the topic model.")
        return TensorData("stm", X.n, X.vocabulary_size, 1.0, 0, words=X.words)
    if isinstance(X, PreparedData):
        raise ValueError(
            "the tensor mechanisms need the samples themselves; pass the n x d array (mixture model) "
            "or a Documents corpus (topic model), not a PreparedData."
        )
    arr = np.asarray(X) if not hasattr(X, "dtypes") else X
    if getattr(arr, "dtype", None) is not None and getattr(arr, "dtype").kind in "iu" and getattr(arr, "ndim", 0) == 2:
        raise ValueError(
            "an integer array looks like word indices: wrap it as Documents(words, vocabulary_size=D) "
            "for the topic model, or convert mixture samples to floats."
        )
    prepared = prepare(X, data_norm)
    return TensorData("mog", prepared.n, prepared.d, data_norm, prepared.n_clipped, rows=prepared.rows)


def third_moment(rows: np.ndarray) -> np.ndarray:
    """(1/n) sum_i x_i (x) x_i (x) x_i, accumulated over chunks of rows: one (d x m) @ (m x d^2) product each."""
    n, d = rows.shape
    chunk = max(1, CHUNK_FLOATS // max(d * d, 1))
    acc = np.zeros((d, d * d))
    for start in range(0, n, chunk):
        block = rows[start : start + chunk]
        outer = (block[:, :, None] * block[:, None, :]).reshape(block.shape[0], d * d)
        acc += block.T @ outer
    return acc.reshape(d, d, d) / n


def third_moment_unique(rows: np.ndarray) -> np.ndarray:
    """Unique entries of (1/n) sum_i x_i (x) x_i (x) x_i without the full tensor: per chunk, the products
    x_j x_k for the d(d+1)/2 pairs j <= k, then one (d x m) @ (m x d(d+1)/2) product (half of
    :func:`third_moment`'s work)."""
    n, d = rows.shape
    J, K = upper_index(d)
    chunk = max(1, CHUNK_FLOATS // max(J.size, 1))
    acc = np.zeros((d, J.size))
    for start in range(0, n, chunk):
        block = rows[start : start + chunk]
        acc += block.T @ (block[:, J] * block[:, K])
    return unique_from_pairs(acc) / n


def mog_moments(rows: np.ndarray, s2: float) -> tuple[np.ndarray, np.ndarray]:
    """Unique coordinates of the mixture moments of scaled rows (norm <= 1) with noise variance s2.

    x (x) x (x) x is symmetric, so its unique entries are read directly (no symmetrisation needed)."""
    n, d = rows.shape
    M2 = rows.T @ rows / n - s2 * np.eye(d)
    M2 = (M2 + M2.T) / 2.0
    u3 = third_moment_unique(rows)
    if s2:
        u3 = u3 - s2 * delta_unique(rows.mean(axis=0))
    return to_upper(M2), u3


def stm_moments(words: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Unique coordinates of the symmetrised topic-model moments of the first three words of each document."""
    n = words.shape[0]
    w1, w2, w3 = words[:, 0], words[:, 1], words[:, 2]
    pairs = np.bincount(w1 * d + w2, minlength=d * d).reshape(d, d) / n
    M2 = (pairs + pairs.T) / 2.0
    triples = np.bincount((w1 * d + w2) * d + w3, minlength=d**3).reshape(d, d, d) / n
    return to_upper(M2), to_unique(symmetrize(triples))


def raw_stm_moments(words: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """The paper's unsymmetrised averages (full D x D and D x D x D), for tests and teaching only: their
    antisymmetric parts are exact functions of the documents and must never be released."""
    n = words.shape[0]
    w1, w2, w3 = words[:, 0], words[:, 1], words[:, 2]
    pairs = np.bincount(w1 * d + w2, minlength=d * d).reshape(d, d) / n
    triples = np.bincount((w1 * d + w2) * d + w3, minlength=d**3).reshape(d, d, d) / n
    return pairs, triples


__all__ = [
    "Documents",
    "TensorData",
    "prepare_tensor_input",
    "mog_moments",
    "stm_moments",
    "third_moment",
    "third_moment_unique",
    "raw_stm_moments",
    "n_unique",
    "MODELS",
    "MAX_DIM",
]
