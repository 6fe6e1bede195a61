"""``DPPCA``: differentially private PCA with scikit-learn's estimator API (a drop-in for ``sklearn.decomposition.PCA``
where privacy allows).

Every fitted attribute is read from the published part of one :func:`dppca_core.release_pca` release (one composed
budget split between the subspace, the spectrum and, when centring privately, the mean) or is public schema
(number and names of the columns). Nothing computed from the raw data without noise is stored on the estimator, so
a fitted or pickled estimator can be handed to a third party. The one raw-data quantity the analyst is told about,
the number of clipped rows, is shown as a :class:`ClippingWarning` to the person running ``fit`` and kept nowhere.

The user guide is docs/estimator.md.
"""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from .pipeline.budget import DEFAULT_SHARES, BudgetSplit, published_row_count
from .pipeline.budget import release_with as complete_release
from .pipeline.options import ReleaseOptions
from .registry import get_mechanism
from .privacy.randomness import RandomSource, random_source
from .validation import check_k

#: share of the rows that must have been clipped for ``fit`` to warn (a notable share: below it, clipping a few
#: outliers to a public radius is an ordinary bias-for-noise trade)
CLIP_WARNING_SHARE = 0.05
#: a private eigenvalue at or below this fraction of the average variance per feature is read as this floor in the
#: probabilistic PCA model (noise can push a small eigenvalue to zero, which would make the model degenerate)
_VARIANCE_FLOOR = 1e-6
#: fitted attributes that exist only when the release holds what they are computed from
_OPTIONAL = ("explained_variance_", "explained_variance_ratio_", "singular_values_", "noise_variance_", "n_samples_")


class ClippingWarning(UserWarning):
    """A notable share of the rows had norm above ``data_norm`` and was clipped to it by ``DPPCA.fit``.

    Clipping biases every private output towards the clipped rows' directions and shrinks them. The count in the
    message is computed from the raw data without noise: it is shown to the person running ``fit`` only, is not
    covered by the privacy guarantee and is never stored on the estimator or published. Choose ``data_norm`` from
    public bounds on the features, never from the data: with ``|x_j| <= b_j``, ``data_norm = sqrt(sum_j b_j**2)``.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import dppca_core as dc
    >>> X = np.random.default_rng(0).normal(size=(2000, 5))  # rows of norm about 2.2, above data_norm = 1
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always", dc.ClippingWarning)
    ...     model = dc.DPPCA(n_components=2, epsilon=1.0, data_norm=1.0, random_state=0).fit(X)
    >>> [w.category.__name__ for w in caught]
    ['ClippingWarning']
    """


def _random_source(random_state) -> RandomSource:
    """Where all of a fit's randomness comes from.

    None (fresh operating-system randomness through a cryptographic generator: the only kind a release to hand out
    may use), an int (the same seed as ``release_pca(seed=...)``), a Generator (used, and advanced, as is) or a
    legacy RandomState (a Generator seeded from four draws of it, so a fixed RandomState reproduces). All but None
    are recorded as seeded in ``release_``.
    """
    if isinstance(random_state, (bool, np.bool_)):
        raise ValueError(
            f"random_state must be None, an int >= 0, a numpy Generator or RandomState (got " f"{random_state!r})."
        )
    if isinstance(random_state, np.random.RandomState):
        return random_source(np.random.default_rng(random_state.randint(0, 2**32, size=4, dtype=np.uint64)))
    try:
        return random_source(random_state)
    except ValueError:
        raise ValueError(
            f"random_state must be None, an int >= 0, a numpy Generator or RandomState (got " f"{random_state!r})."
        ) from None


def _refuse_silent_conversions(X) -> None:
    """Refuse what scikit-learn's validation would convert silently into wrong numbers.

    A masked array would lose its mask (masked cells read as whatever they hold) and dates would become days since
    1970; the library refuses both with the same advice as :func:`dppca_core.validation.check_matrix`.
    """
    if np.ma.isMaskedArray(X) and np.ma.getmaskarray(X).any():
        raise ValueError(
            "X is a masked array with masked entries; fill them (X.filled(value)) or drop those rows "
            "before the analysis."
        )
    dtypes = list(X.dtypes) if hasattr(X, "dtypes") and hasattr(X.dtypes, "__iter__") else [getattr(X, "dtype", None)]
    if any(getattr(t, "kind", "") in ("m", "M") for t in dtypes):
        raise ValueError(
            "X holds dates or times; convert them to numbers first (e.g. days since a public reference "
            "date) or drop those columns."
        )


class DPPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Differentially private PCA with the scikit-learn estimator API.

    ``fit`` makes one private release (:func:`dppca_core.release_pca`) under the total budget (epsilon, delta),
    split between the subspace (the components), the spectrum (top eigenvalues and the total variance, from which
    the explained variance and its ratio follow) and, with ``center="private"``, the mean. Rows are first clipped to
    the public radius ``data_norm``. Every fitted attribute is computed from what that release publishes.

    Parameters
    ----------
    n_components : int, float in (0, 1) or None, default=None
        int: the number of components k (1 <= k <= n_features). None: all features. A float f: the smallest k whose
        PRIVATE explained-variance ratios sum to more than f. To choose it, the release covers all n_features
        components and eigenvalues with the budget given (the choice is post-processing of the release, so it costs
        nothing more) and the first k are kept; mechanisms whose noise grows with k are then less accurate than
        with an int. If the private ratios never exceed f, k = n_features.
    mechanism : str, default="analyze_gauss"
        Registry name, see :func:`dppca_core.list_mechanisms`.
    epsilon, delta : float, default=1.0, 1e-6
        The total privacy budget of everything the fit releases (delta ignored by pure-DP mechanisms).
    data_norm : float or "private", default=1.0
        Public clipping radius R: rows with a larger norm are scaled down to it. Choose it from public bounds on the
        features, never from the data: with ``|x_j| <= b_j``, ``data_norm = sqrt(sum_j b_j**2)``. "private": chosen as a
        private quantile of the row norms from the radius share (``radius_bounds``, ``radius_quantile``). A notable
        share of clipped rows raises a :class:`ClippingWarning`.
    neighbors : {"replace", "add_remove"}, default="replace"
        Neighbouring relation of the guarantee. Under "add_remove" the number of rows is private too, so
        ``explained_variance_``, ``noise_variance_`` and the likelihood exist only if the release holds a private
        count.
    center : {"none", "private", "empirical"} or None, default=None
        "private": centre with a mean released from its own share of the budget (``mean_``). "none": no centring
        (``mean_`` is zero; the analysis is of second moments about the origin: centre with a public vector first if
        you have one). "empirical": the data's own mean, only with ``mechanism="non_private"`` (it is not private).
        None: "empirical" for the non-private reference (as scikit-learn's PCA), "none" otherwise.
    budget : BudgetSplit, dict or None, default=None
        Shares of the budget. A dict with a "subspace" key is a full split; without it, the given extra shares
        ("mean", "eigenvalues", "scores") and the rest to the subspace. None: 10% to the eigenvalues (plus 10% to
        the mean when ``center="private"``), the rest to the subspace. An eigenvalue share of 0 leaves the spectrum
        attributes out unless the mechanism releases its own eigenvalues and trace (Analyze Gauss does).
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Source of all the release's noise; a fixed int gives the same release each fit. The seed regenerates the
        noise, so a fitted estimator is pickled without it (see Notes); prefer None for a release you publish.
    mechanism_params : dict or None, default=None
        Extra parameters of the mechanism.
    radius_bounds : (float, float) or None, default=None
        With ``data_norm="private"``: public bounds on the radius (the library's default when None).
    radius_quantile : float, default=0.9
        With ``data_norm="private"``: the public target quantile of the row norms.
    scale : {"none", "bounds", "private"}, default="none"
        Divide column j by the public bound ``column_bounds[j]`` ("bounds", free) or by a private root-mean-square
        from the scale share ("private") before anything else.
    column_bounds : array-like of shape (n_features,) or None
        Public bounds on ``|x_j|`` for ``scale`` "bounds" or "private".

    Attributes
    ----------
    components_ : ndarray of shape (``n_components_``, ``n_features_in_``)
        Private principal directions (rows, orthonormal), from the subspace share.
    mean_ : ndarray of shape (``n_features_in_``,)
        The private mean (mean share) with ``center="private"``; zeros with ``center="none"``. ``transform``
        subtracts it, ``inverse_transform`` adds it back.
    explained_variance_ : ndarray of shape (``n_components_``,)
        The private variance along ``components_[i]`` (eigenvalue share) in the data's units: lambda_i R^2 / (n - 1),
        negatives set to 0 (post-processing); ``components_`` are ordered by it. Needs n: public under "replace".
    explained_variance_ratio_ : ndarray of shape (``n_components_``,)
        Private eigenvalues over the private total variance (the noisy trace, raised to at least the sum of the
        released eigenvalues so the ratios sum to at most 1).
    singular_values_ : ndarray of shape (``n_components_``,)
        R sqrt(lambda_i): the singular values of the (clipped, centred as chosen) data matrix, private.
    noise_variance_ : float
        Private total variance minus the top ``n_components_`` eigenvalues, per remaining feature (0 when
        ``n_components_`` = n_features), in the data's units: the isotropic noise of the probabilistic PCA model.
    n_components_ : int
    n_samples_ : int
        Number of rows: public under "replace" (and published), a private count under "add_remove" if released.
    scale_ : ndarray of shape (``n_features_in_``,)
        The column scales the data were divided by (ones without scaling).
    data_norm_ : float
        The clipping radius used (chosen privately with ``data_norm="private"``).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names (public schema), when X has string column names.
    release_ : dict
        The published release (:meth:`dppca_core.Release.published`): components, private eigenvalues and
        outputs (mean, total variance, ratios, score histogram), the guarantee and its privacy curve, the budget
        shares, public parameters. It holds all the components released (n_features of them when n_components is
        a float). Nothing computed from the raw data without noise is stored on the estimator.

    Notes
    -----
    Differences from ``sklearn.decomposition.PCA``: no empirical centring (private or no centring), no whitening,
    no ``svd_solver``/``tol``/``iterated_power``/``copy``, ``n_components="mle"`` is not offered, sparse input is
    refused, and the output depends on ``random_state`` (noise) even for a full-rank fit.

    Handing out: the fitted attributes and ``release_`` are covered by the guarantee; pickling (or deep-copying) a
    fitted estimator stores ``random_state=None``, because with the seed anyone could regenerate and subtract the
    noise. ``fit`` warns with a :class:`ClippingWarning` when a notable share of rows was clipped (the count is not
    private and is kept nowhere).

    Examples
    --------
    >>> import numpy as np
    >>> import dppca_core as dc
    >>> X = np.random.default_rng(0).normal(size=(2000, 5)) / 4  # rows of norm about 0.56: none clipped at 1
    >>> model = dc.DPPCA(n_components=2, mechanism="analyze_gauss", epsilon=1.0, data_norm=1.0, random_state=0)
    >>> model.fit(X).transform(X).shape
    (2000, 2)
    >>> model.components_.shape, model.explained_variance_ratio_.shape
    ((2, 5), (2,))
    """

    def __init__(
        self,
        n_components=None,
        *,
        mechanism="analyze_gauss",
        epsilon=1.0,
        delta=1e-6,
        data_norm=1.0,
        neighbors="replace",
        center=None,
        budget=None,
        random_state=None,
        mechanism_params=None,
        radius_bounds=None,
        radius_quantile=0.9,
        scale="none",
        column_bounds=None,
    ):
        self.n_components = n_components
        self.mechanism = mechanism
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.neighbors = neighbors
        self.center = center
        self.budget = budget
        self.random_state = random_state
        self.mechanism_params = mechanism_params
        self.radius_bounds = radius_bounds
        self.radius_quantile = radius_quantile
        self.scale = scale
        self.column_bounds = column_bounds

    # ------------------------------------------------------------------ scikit-learn plumbing
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # the output is random (noise), but a fixed random_state fixes it: deterministic in scikit-learn's sense
        tags.non_deterministic = False
        tags.input_tags.sparse = False  # dense rows only: clipping and the Gram matrix are computed densely
        tags.input_tags.allow_nan = False  # a missing value has no norm to clip: impute first
        tags.transformer_tags.preserves_dtype = ["float64"]  # every release is computed in float64
        return tags

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    def __getstate__(self):
        """Pickle (or deep-copy) a fitted estimator without its ``random_state``.

        The seed, or a Generator's or RandomState's state (whose generators can be stepped back), lets anyone
        regenerate the release's noise and subtract it from the published values, which undoes the privacy. A fitted
        estimator is meant to be handed out, so its pickle stores ``random_state=None``; an unfitted one (e.g. the
        clones a search sends to its workers) keeps it.
        """
        state = dict(super().__getstate__())  # object.__getstate__ returns the live __dict__: never edit it
        if "components_" in state and state.get("random_state") is not None:
            state["random_state"] = None
        return state

    def _validate(self, X, *, reset: bool):
        _refuse_silent_conversions(X)
        return validate_data(
            self, X, reset=reset, dtype=np.float64, accept_sparse=False, ensure_min_samples=2 if reset else 1
        )

    # ------------------------------------------------------------------ parameters
    def _center(self, spec) -> str:
        """The centring asked for: as given (checked with the other options of the release), or by default the
        empirical mean for the non-private reference (what scikit-learn's PCA does) and none for a private
        mechanism."""
        if self.center is None:
            return "empirical" if spec.guarantee == "none" else "none"
        return self.center

    def _budget(self, center: str):
        """The budget as given (a BudgetSplit or a dict of shares, checked with the other options of the release), or
        by default 10% to the eigenvalues and to each step that needs a share, the rest to the subspace."""
        if self.budget is not None:
            return self.budget
        needed = {
            "mean": center == "private",
            "radius": isinstance(self.data_norm, str),
            "scale": self.scale == "private",
        }
        extras = {"eigenvalues": DEFAULT_SHARES["eigenvalues"]}
        extras.update({part: DEFAULT_SHARES[part] for part, used in needed.items() if used})
        return BudgetSplit.with_extras(**extras)

    def _requested_k(self, d: int, spec) -> tuple[int, float | None]:
        """(k to release, fraction of variance or None). None and a float release all d components."""
        nc = self.n_components
        if nc is None:
            k, fraction = d, None
        elif isinstance(nc, (Integral,)) and not isinstance(nc, (bool, np.bool_)):
            return check_k(nc, d, name="n_components"), None  # the library's one rule for k
        elif isinstance(nc, Real) and not isinstance(nc, (bool, np.bool_)) and 0.0 < nc < 1.0:
            k, fraction = d, float(nc)
        else:
            raise ValueError(
                f"n_components must be an int in [1, n_features], None (all features) or a float "
                f"strictly between 0 and 1 (a share of the variance); got {nc!r}."
            )
        if spec.max_k is not None and spec.max_k < d:
            what = "a float n_components needs" if fraction is not None else "n_components=None asks for"
            raise ValueError(
                f"{what} all {d} components, but {spec.name} releases at most {spec.max_k}; pass an "
                f"int n_components <= {spec.max_k} or choose another mechanism."
            )
        return k, fraction

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Release a private PCA of X and set the fitted attributes from what the release publishes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows are individuals; they are clipped to ``data_norm``.
        y : ignored

        Returns
        -------
        self
        """
        X = self._validate(X, reset=True)
        n, d = X.shape
        spec = get_mechanism(self.mechanism)
        k, fraction = self._requested_k(d, spec)
        center = self._center(spec)
        bounds = {} if self.radius_bounds is None else {"radius_bounds": self.radius_bounds}
        # every option is checked by the options object and the release's plan: one rule per option, one message
        options = ReleaseOptions(
            k="auto" if fraction is not None else k,
            epsilon=self.epsilon,
            delta=self.delta,
            neighbors=self.neighbors,
            data_norm=self.data_norm,
            budget=self._budget(center),
            center=center,
            variance_target=fraction,
            radius_quantile=self.radius_quantile,
            scale=self.scale,
            column_bounds=self.column_bounds,
            params=self.mechanism_params or {},
            **bounds,
        )
        if (
            fraction is not None
            and options.budget.eigenvalues <= 0
            and not spec.releases_eigenvalues
            and spec.guarantee != "none"
        ):
            raise ValueError(
                f"a float n_components is chosen from private explained-variance ratios, but the budget "
                f"gives the eigenvalues no share and {spec.name} does not release its own; give "
                "'eigenvalues' a share (e.g. budget={'eigenvalues': 0.1}) or pass an int."
            )
        release = complete_release(self.mechanism, X, options, seed=_random_source(self.random_state))
        _warn_clipping(release.diagnostics, n, release.parameters["data_norm"])
        # from here on only the published release is read: nothing else about X reaches the estimator
        self._set_from_published(release.published(), d, center)
        return self

    def _set_from_published(self, pub: dict, d: int, center: str) -> None:
        for name in _OPTIONAL:
            self.__dict__.pop(name, None)  # a refit must not keep attributes the new release does not support
        params, outputs = pub["parameters"], pub["outputs"]
        R = float(params["data_norm"])
        V = np.asarray(pub["components"], dtype=float)  # (d, k), ordered by the private variances
        k = V.shape[1]
        self.release_ = pub
        self.components_ = np.ascontiguousarray(V.T)
        self.n_components_ = int(k)
        self.scale_ = _column_scales(pub, d)
        self.mean_ = (np.asarray(outputs["mean"], dtype=float) if center != "none" else np.zeros(d)) * self.scale_
        self.data_norm_ = R
        if pub["eigenvalues"] is None or outputs.get("total_variance") is None:
            return
        # the variances along components_ (release_pca pairs and orders them); negatives set to 0 (post-processing)
        lam = np.maximum(np.asarray(pub["eigenvalues"], dtype=float), 0.0)
        trace = max(float(outputs["total_variance"]), float(lam.sum()), np.finfo(float).tiny)
        self.explained_variance_ratio_ = lam / trace
        self.singular_values_ = R * np.sqrt(lam)
        n = params.get("n")
        if n is None:  # add/remove: a private count, where the release holds one (mean, column scales, radius)
            n = published_row_count(outputs)[0]
        if n is None:
            return
        denom = max(float(n) - 1.0, 1.0)
        self.n_samples_ = int(max(round(float(n)), 1))
        self.explained_variance_ = lam * R**2 / denom
        rest = max(trace - float(lam.sum()), 0.0)
        self.noise_variance_ = float(rest * R**2 / denom / (d - k)) if k < d else 0.0

    # ------------------------------------------------------------------ transforms
    def transform(self, X):
        """Project rows on the private components after subtracting ``mean_`` (zero with ``center="none"``)."""
        check_is_fitted(self)
        X = self._validate(X, reset=False) / self.scale_
        return X @ self.components_.T - (self.mean_ / self.scale_) @ self.components_.T

    def inverse_transform(self, X):
        """Map scores back to the feature space: ``X @ components_ + mean_``."""
        check_is_fitted(self)
        Z = check_array(X, dtype=np.float64, input_name="X")
        if Z.shape[1] != self.n_components_:
            raise ValueError(
                f"X has {Z.shape[1]} columns, but inverse_transform expects n_components_ = "
                f"{self.n_components_} (the output of transform)."
            )
        return (Z @ self.components_) * self.scale_ + self.mean_

    # ------------------------------------------------------------------ probabilistic PCA model
    def _model(self) -> tuple[np.ndarray, float]:
        """(variance along each component, variance off the components), floored so the model is proper."""
        if not hasattr(self, "explained_variance_"):
            raise ValueError(
                "the probabilistic PCA model needs explained_variance_ and noise_variance_, which this "
                "fit did not release: give 'eigenvalues' a share of the budget (and, under "
                "neighbors='add_remove', a private count), or use neighbors='replace'."
            )
        d, k = self.n_features_in_, self.n_components_
        total = float(self.explained_variance_.sum()) + (d - k) * self.noise_variance_
        floor = max(_VARIANCE_FLOOR * total / d, np.finfo(float).tiny)
        noise = max(self.noise_variance_, floor)
        along = np.maximum(self.explained_variance_, noise)  # as PCA: a component is never below the noise level
        return along, noise

    def get_covariance(self):
        """Covariance of the probabilistic PCA model with the private components, eigenvalues and noise variance."""
        check_is_fitted(self)
        along, noise = self._model()
        C = self.components_
        scaled = (C.T * (along - noise)) @ C + noise * np.eye(self.n_features_in_)
        return scaled * np.outer(self.scale_, self.scale_)  # back to the data's units (scale_ is 1 without scaling)

    def get_precision(self):
        """Inverse of :meth:`get_covariance` (the components are orthonormal, so in closed form)."""
        check_is_fitted(self)
        along, noise = self._model()
        C = self.components_
        scaled = (C.T * (1.0 / along - 1.0 / noise)) @ C + np.eye(self.n_features_in_) / noise
        return scaled / np.outer(self.scale_, self.scale_)

    def score_samples(self, X):
        """Log-likelihood of each row under the probabilistic PCA model built from the private attributes.

        The model is N(``mean_``, C) with ``C = components_.T @ diag(explained_variance_) @ components_`` plus
        ``noise_variance_`` off the components (Tipping & Bishop 1999), all private; evaluating it on rows you hold
        publishes nothing.
        """
        check_is_fitted(self)
        X = self._validate(X, reset=False)
        along, noise = self._model()
        d, k = self.n_features_in_, self.n_components_
        centred = (X - self.mean_) / self.scale_
        scores = centred @ self.components_.T
        quad = (scores**2 / along).sum(axis=1)
        logdet = float(np.log(along).sum())
        if k < d:
            off = np.maximum(np.einsum("ij,ij->i", centred, centred) - np.einsum("ij,ij->i", scores, scores), 0.0)
            quad = quad + off / noise
            logdet += (d - k) * math.log(noise)
        # a density in the data's units: the change of variables x -> x / scale_ contributes -sum(log scale_)
        return -0.5 * (d * math.log(2.0 * math.pi) + logdet + quad) - float(np.log(self.scale_).sum())

    def score(self, X, y=None):
        """Average log-likelihood of the rows of X (see :meth:`score_samples`)."""
        return float(np.mean(self.score_samples(X)))


def _column_scales(pub: dict, d: int) -> np.ndarray:
    """The column scales the release divided the data by (ones without scaling): public bounds or private scales."""
    scale = pub["parameters"].get("scale", "none")
    if scale == "private":
        return np.asarray(pub["outputs"]["column_scales"], dtype=float)
    if scale == "bounds":
        return np.asarray(pub["parameters"]["column_bounds"], dtype=float)
    return np.ones(d)


def _warn_clipping(diagnostics, n: int, data_norm: float) -> None:
    """Tell the person running fit how many rows were clipped, when it is a notable share. Never stored."""
    clipped = int(diagnostics.get("rows_clipped", 0) or 0)
    again = int(diagnostics.get("rows_clipped_after_centring", 0) or 0)
    advice = (
        "Choose data_norm from public bounds on the features, never from the data: with |x_j| <= b_j, "
        "data_norm = sqrt(sum_j b_j**2) (see docs/estimator.md). This count is computed from the raw data "
        "without noise: it is shown to you only, and is not part of the release."
    )
    if clipped >= CLIP_WARNING_SHARE * n and clipped > 0:
        warnings.warn(
            f"{clipped} of {n} rows ({clipped / n:.0%}) had norm above data_norm = {data_norm:g} and were "
            f"clipped to it, which biases the release. {advice}",
            ClippingWarning,
            stacklevel=3,
        )
    elif again >= CLIP_WARNING_SHARE * n and again > 0:
        warnings.warn(
            f"after centring with the private mean, {again} of {n} rows ({again / n:.0%}) had norm above "
            f"data_norm = {data_norm:g} and were clipped again (a centred row can lie up to twice data_norm "
            "from the mean), which biases the release; a larger public data_norm avoids it at the cost of "
            "more noise. This count is computed from the raw data without noise: it is shown to you only, "
            "and is not part of the release.",
            ClippingWarning,
            stacklevel=3,
        )
