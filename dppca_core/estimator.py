"""A scikit-learn compatible estimator around :func:`dppca_core.run`."""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .api import run
from .validation import check_matrix


class DPPCA(TransformerMixin, BaseEstimator):
    """Differentially private PCA with the scikit-learn estimator API.

    Rows are clipped to ``data_norm`` (a public bound) before fitting; no centring is done,
    because the empirical mean is not private: centre with a public centre beforehand if needed.

    Parameters
    ----------
    n_components : int
        Number of components k.
    mechanism : str
        Registry name, see :func:`dppca_core.list_mechanisms`.
    epsilon, delta : float
        Privacy parameters (delta ignored by pure-DP mechanisms).
    data_norm : float
        Public clipping radius R.
    neighbors : {"replace", "add_remove"}
        Neighbouring relation of the guarantee.
    random_state : None, int or numpy.random.Generator
    mechanism_params : dict, optional
        Extra mechanism parameters.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Rows are the released principal directions (scikit-learn layout).
    release_ : dict
        The published release (:meth:`dppca_core.Release.published`): components, guarantee, privacy curve,
        public parameters. Nothing computed from the raw data without noise is stored on the estimator, so a
        fitted (or pickled) estimator can be handed to a third party.
    n_features_in_ : int
    """

    def __init__(self, n_components=2, mechanism="analyze_gauss", epsilon=1.0, delta=1e-6, data_norm=1.0,
                 neighbors="replace", random_state=None, mechanism_params=None):
        self.n_components = n_components
        self.mechanism = mechanism
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.neighbors = neighbors
        self.random_state = random_state
        self.mechanism_params = mechanism_params

    def fit(self, X, y=None):
        X = check_matrix(X)
        release = run(self.mechanism, X, self.n_components, self.epsilon, delta=self.delta,
                      neighbors=self.neighbors, data_norm=self.data_norm, seed=self.random_state,
                      **(self.mechanism_params or {}))
        self.release_ = release.published()
        self.components_ = release.components.T.copy()
        self.n_features_in_ = X.shape[1]
        return self

    def _check_features(self, X):
        check_is_fitted(self, "components_")
        X = check_matrix(X, min_rows=1)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but DPPCA was fitted with {self.n_features_in_}.")
        return X

    def transform(self, X):
        """Project rows on the released components (no centring, see class docstring)."""
        return self._check_features(X) @ self.components_.T

    def inverse_transform(self, X):
        check_is_fitted(self, "components_")
        Z = check_matrix(X, min_rows=1)
        if Z.shape[1] != self.components_.shape[0]:
            raise ValueError(f"expected {self.components_.shape[0]} columns (n_components), got {Z.shape[1]}.")
        return Z @ self.components_
