"""Small data builders for tests (independent of dppca_core.data.datasets)."""

import numpy as np


def spiked_rows(n, d, k, spikes=(4.0, 3.0, 2.0), noise=0.3, seed=0):
    """Gaussian rows with k spiked directions, scaled so that rows have norm <= 1 (clipped)."""
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.normal(size=(d, k)))
    scales = np.asarray(spikes[:k], dtype=float)
    X = rng.normal(size=(n, k)) * scales @ U.T + noise * rng.normal(size=(n, d))
    X /= np.sqrt(np.sum(scales**2) + noise**2 * d) * 2.0
    norms = np.maximum(np.linalg.norm(X, axis=1), 1.0)
    return X / norms[:, None], U


def sparse_spiked_rows(n, d, k, s, spikes=(4.0, 3.0, 2.0), noise=0.3, seed=0):
    """Like spiked_rows, but the leading subspace is supported on s random rows."""
    rng = np.random.default_rng(seed)
    support = np.sort(rng.choice(d, size=s, replace=False))
    block, _ = np.linalg.qr(rng.normal(size=(s, k)))
    U = np.zeros((d, k))
    U[support] = block
    scales = np.asarray(spikes[:k], dtype=float)
    X = rng.normal(size=(n, k)) * scales @ U.T + noise * rng.normal(size=(n, d))
    X /= np.sqrt(np.sum(scales**2) + noise**2 * d) * 2.0
    norms = np.maximum(np.linalg.norm(X, axis=1), 1.0)
    return X / norms[:, None], U, support


def draw_releases(at):
    """Press the Report's "Draw releases to publish" as a user does: tick the box that confirms the spend the page
    states (issue 55), then the button; returns ``at`` after the run."""
    (box,) = [c for c in at.checkbox if c.key and c.key.startswith("confirm_spend")]
    box.check().run()
    at.button(key="draw_releases").click()
    return at.run()
