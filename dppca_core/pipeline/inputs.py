"""The mechanisms' input and the non-private reference they are scored against, as the dashboard and its exported
script build them (:func:`prepare_input`), and what each complete release of
:func:`dppca_core.pipeline.experiments.repeat` reads (:func:`release_input`).

The reference reads the data: it is **not private**; it shows what privacy costs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .choices import DEFAULT_RADIUS_BOUNDS, DEFAULT_RADIUS_QUANTILE, clipped_squares, rms_scales
from .options import ReleaseOptions
from ..data.prepare import PreparedData, center_data, prepare
from ..validation import check_matrix


@dataclass(frozen=True)
class Reference:
    """The non-private answer: all eigenvectors of a Gram matrix (descending), and the matrix itself (captured
    energy is measured against it)."""

    vectors: np.ndarray
    eigenvalues: np.ndarray
    gram: np.ndarray

    @classmethod
    def from_gram(cls, gram: np.ndarray) -> "Reference":
        values, vectors = np.linalg.eigh(gram)
        order = np.argsort(values)[::-1]
        return cls(vectors[:, order], values[order], gram)

    @classmethod
    def of(cls, data: PreparedData, centred: bool = False) -> "Reference":
        """Of the prepared (clipped, scaled) rows; ``centred``: of the rows centred with their own mean (the target
        a privately centred release aims at)."""
        if not centred:
            return cls.from_gram(data.gram)
        rows = data.rows
        c = rows - rows.mean(axis=0)
        return cls.from_gram(c.T @ c)


@dataclass(frozen=True)
class RadiusRule:
    """The public settings of a clipping radius chosen privately inside each release
    (:func:`dppca_core.pipeline.choices.private_radius`): the candidates' bounds (data units) and the target quantile."""

    bounds: tuple[float, float] = DEFAULT_RADIUS_BOUNDS
    quantile: float = DEFAULT_RADIUS_QUANTILE

    def __post_init__(self):
        low, high = (float(b) for b in self.bounds)
        if not (math.isfinite(low) and math.isfinite(high) and 0 < low < high):
            raise ValueError(
                f"radius bounds must be two positive numbers, the lower first (got {self.bounds!r}); "
                "give public bounds on the rows' norms in the data's units."
            )
        if not 0 < float(self.quantile) < 1:
            raise ValueError(f"the radius quantile must lie strictly between 0 and 1 (got {self.quantile!r}).")
        object.__setattr__(self, "bounds", (low, high))  # two floats: rules of the same numbers are equal
        object.__setattr__(self, "quantile", float(self.quantile))

    @classmethod
    def of(cls, options: ReleaseOptions) -> "RadiusRule | None":
        """The rule of ``options`` (``data_norm="private"`` with its bounds and quantile), or None for a public R."""
        return cls(options.radius_bounds, options.radius_quantile) if options.private_radius else None

    def release_args(self) -> dict:
        return {"radius_bounds": tuple(float(b) for b in self.bounds), "radius_quantile": float(self.quantile)}


@dataclass(frozen=True)
class ScaleRule:
    """Columns scaled privately inside each release (``release_pca(scale="private")``): column j is divided by a
    private root-mean-square from the budget's scale share, with public bounds ``bounds[j]`` on ``|x_j|``
    (:func:`dppca_core.pipeline.choices.private_column_scales`)."""

    bounds: tuple[float, ...]

    def __post_init__(self):
        b = np.asarray(self.bounds, dtype=float).reshape(-1)
        if b.size == 0 or not np.all(np.isfinite(b)) or not np.all(b > 0):
            raise ValueError(
                f"scaling the columns privately needs one positive, finite public bound per column (got "
                f"{self.bounds!r}); a bound is the largest absolute value the column can take."
            )
        object.__setattr__(self, "bounds", tuple(float(v) for v in b))

    @classmethod
    def of(cls, options: ReleaseOptions) -> "ScaleRule | None":
        """The rule of ``options`` (``scale="private"`` with its column bounds), or None."""
        return cls(options.column_bounds or ()) if options.scale == "private" else None

    def release_args(self) -> dict:
        return {"scale": "private", "column_bounds": self.bounds}

    def exact_scales(self, X) -> np.ndarray:
        """The scales the private ones aim at, read from the rows without noise: b_j sqrt(mean_i min(x_ij^2, b_j^2) /
        b_j^2) (floored as the private ones are). **Not private**: the reference's scaling, to show what scaling
        privately costs."""
        X = check_matrix(X)
        b = np.asarray(self.bounds)
        if b.size != X.shape[1]:
            raise ValueError(f"give one public bound per column: {X.shape[1]} numbers (got {b.size}).")
        return rms_scales(clipped_squares(X, b).mean(axis=0), b)


#: how the rows are centred before the mechanisms see them: "none", "private" (a private mean released inside each
#: release from its own budget share) or "empirical" (the data's own mean: NOT private)
CENTRING = ("none", "private", "empirical")


@dataclass(frozen=True)
class ExperimentInput:
    """What the mechanisms are run on and the non-private reference they are scored against.

    ``center`` is the centring asked for; ``private`` is False when a data-dependent step without noise was
    applied (the empirical mean); ``note`` says what was done, in words. With ``scale`` (a :class:`ScaleRule`) each
    release scales the columns itself: it reads ``rows`` (the data's units; centred with the empirical mean when
    that centring was asked for), and ``data`` holds the rows divided by the exact scales, for the reference.
    """

    data: PreparedData
    reference: Reference
    center: str
    private: bool
    note: str
    radius: RadiusRule | None = None
    scale: ScaleRule | None = None
    rows: np.ndarray | None = field(default=None, repr=False)

    @property
    def release_radius(self):
        """The clipping radius each release uses: the public one, or "private" (chosen inside each release)."""
        return self.data.data_norm if self.radius is None else "private"

    @property
    def release_center(self) -> str:
        """The centring each release does itself: "private" (its mean is part of the release) or "none" (the rows
        arrive uncentred, or already centred with the empirical mean)."""
        return "private" if self.center == "private" else "none"


def scale_columns(X, bounds) -> np.ndarray:
    """Each column divided by its public bound (|x_j| <= b_j becomes |x_j / b_j| <= 1, so rows have norm <= sqrt(d)).

    The bounds must be fixed without looking at the data (a questionnaire's scale, a sensor's range): dividing by
    a public constant is data-independent, so it costs no privacy. Bounds read from the data are not private.
    """
    X = check_matrix(X)
    b = np.asarray(bounds, dtype=float)
    if b.shape != (X.shape[1],) or not np.all(np.isfinite(b)) or not np.all(b > 0):
        raise ValueError(
            f"give one positive, finite public bound per column: {X.shape[1]} numbers (got "
            f"{b.size}); a bound is the largest absolute value the column can take."
        )
    return X / b


def prepare_input(X, data_norm, center: str = "none", scale=None, radius: RadiusRule | None = None) -> ExperimentInput:
    """The mechanisms' input and the reference, as the dashboard and its exported script build them.

    Order: divide each column by its public bound (``scale``, optional; or a :class:`ScaleRule`: see below), centre
    (``center``, one of :data:`CENTRING`), clip rows to the public radius ``data_norm`` and scale them to the unit
    ball. A private mean is computed inside each release (:func:`dppca_core.release_pca`), so its input stays the
    clipped rows and the reference is the PCA of those rows centred with their exact mean (what the private release
    aims at). ``X`` may be a :class:`dppca_core.data.stats.SufficientStats` (a file streamed into n and the Gram matrix)
    when there is no centring and no scaling.

    ``data_norm="private"``: each release chooses R itself from its radius share (``radius``, a
    :class:`RadiusRule`, default bounds and quantile). The rows are kept clipped to the rule's upper bound (the
    largest R it can choose: clipping there first changes nothing), and the reference is their PCA: what an
    analyst who could read the data would compute, so the diagnostics include what clipping at the private R costs.

    ``scale=ScaleRule(bounds)``: each release divides column j by a private root-mean-square (its scale share)
    before anything else, so it reads the raw rows (``ExperimentInput.rows``; centred first with the empirical mean
    when ``center="empirical"``). The reference is the PCA of the rows divided by their exact root-mean-squares
    (:meth:`ScaleRule.exact_scales`, not private), then centred and clipped as above: what the private scales aim
    at, so the diagnostics include what scaling privately costs.
    """
    from ..data.stats import SufficientStats

    if center not in CENTRING:
        raise ValueError(f"center={center!r}: use one of {list(CENTRING)}.")
    if isinstance(scale, ScaleRule):
        if isinstance(X, SufficientStats):
            raise ValueError(
                "scaling the columns privately reads each row, which a file streamed into sufficient "
                "statistics no longer has: turn the scaling off (or upload a sample of the rows)."
            )
        centred = center_data(check_matrix(X), "empirical" if center == "empirical" else "none")
        rows = centred.X
        inp = prepare_input(
            rows, data_norm, "none" if center == "empirical" else center, tuple(scale.exact_scales(rows)), radius
        )
        note = (centred.note if center == "empirical" else inp.note) + " " + PRIVATE_SCALE_NOTE
        return ExperimentInput(
            inp.data, inp.reference, center, inp.private and centred.private, note, inp.radius, scale, rows
        )
    if isinstance(data_norm, str):
        if data_norm != "private":
            raise ValueError(f"data_norm={data_norm!r}: give a public radius (a number) or 'private'.")
        if isinstance(X, SufficientStats):
            raise ValueError(
                "choosing R privately reads each row's norm, which a file streamed into sufficient "
                "statistics no longer has: give a public R for it (or upload a sample of the rows)."
            )
        radius = radius or RadiusRule()
        inp = prepare_input(X, float(radius.bounds[1]), center, scale)
        return ExperimentInput(inp.data, inp.reference, inp.center, inp.private, inp.note, radius)
    if radius is not None:
        raise ValueError("a radius rule applies only to data_norm='private'; drop it or choose R privately.")
    if isinstance(X, SufficientStats):
        if center != "none" or scale is not None:
            raise ValueError(
                "a file streamed into sufficient statistics keeps no rows: it can only be analysed "
                "uncentred and unscaled (set centring to none and scaling off)."
            )
        data = prepare(X, data_norm)
        return ExperimentInput(
            data, Reference.from_gram(data.gram), "none", True, "No centring: the uncentred second moment is analysed."
        )
    if scale is not None:
        X = scale_columns(X, scale)
    if center == "private":
        data = prepare(X, data_norm)
        return ExperimentInput(data, Reference.of(data, centred=True), center, True, PRIVATE_CENTRE_NOTE)
    centred = center_data(X, center)
    data = prepare(centred.X, data_norm)
    return ExperimentInput(data, Reference.of(data), center, centred.private, centred.note)


def oracle_radius(data: PreparedData, quantile: float = DEFAULT_RADIUS_QUANTILE) -> float:
    """The exact ``quantile`` of the rows' norms in the data's units: the R a private radius aims at, read from the
    data without noise. **Not private**: an oracle, to show what choosing R privately costs against knowing it."""
    if not 0 < float(quantile) < 1:
        raise ValueError(f"the quantile must lie strictly between 0 and 1 (got {quantile!r}).")
    if not data.has_rows:
        raise ValueError("the oracle radius reads each row's norm: it needs the rows, not streamed statistics.")
    norms = np.linalg.norm(data.rows, axis=1) * data.data_norm
    radius = float(np.quantile(norms, float(quantile)))
    if not radius > 0:
        raise ValueError("the rows' norms are 0 at this quantile: there is no radius to compare with.")
    return radius


PRIVATE_SCALE_NOTE = (
    "Each release divides every column by a private root-mean-square from its own share of the "
    "budget (with public bounds on the columns); the reference is the PCA of the columns divided by "
    "their exact root-mean-squares (not private: what the private scales aim at)."
)
PRIVATE_CENTRE_NOTE = (
    "Centred with a private mean released from its own share of the budget (see the budget "
    "split); the rows are clipped to R again after centring. The reference is the PCA of the "
    "rows centred with their exact mean (what the private release aims at)."
)


def input_for(X, options: ReleaseOptions) -> ExperimentInput:
    """The mechanisms' input and the reference for releases with ``options`` (:func:`prepare_input` with the radius
    and the scaling those options hold: the one place their rules are read from the options).

    ``options.center`` may be "empirical" (applied here, not private), ``options.scale`` "bounds" (the columns
    divided here by ``column_bounds``, free) or "private" (each release scales them itself), ``options.data_norm``
    a public R or "private" (each release chooses R with ``radius_bounds`` and ``radius_quantile``).
    """
    if options.scale == "bounds":
        scale = options.column_bounds
    else:
        scale = ScaleRule.of(options)
    return prepare_input(X, options.data_norm, options.center, scale, RadiusRule.of(options))


def release_input(data, options: ReleaseOptions, rows=None) -> tuple:
    """What each complete release with ``options`` reads from the prepared input, and the options it runs with:
    (X, options).

    ``data`` is the :class:`ExperimentInput` (or its :class:`PreparedData`) that :func:`input_for` made from the same
    options. Public R and scaling: the prepared rows, with their R. R chosen privately: the rows in the data's units,
    clipped to the rule's upper bound (the largest R it can choose: clipping there first changes nothing). Columns
    scaled privately: the raw rows ``rows`` (:attr:`ExperimentInput.rows`), which each release scales with its own
    private scales before choosing or applying R. What the input already did is not done again: an empirical
    centring or a scaling by public bounds leaves the release's ``center`` "none" and its ``scale`` "none".

    Raises
    ------
    ValueError
        When the input was prepared for other options (another radius, another centring or scaling), or the raw
        rows a private scaling reads are missing.
    """
    if isinstance(data, ExperimentInput):
        _check_input(data, options)
        data, rows = data.data, data.rows if rows is None else rows
    changes = {}
    if options.center == "empirical":
        changes["center"] = "none"  # centred with the data's mean when the input was prepared
    if options.scale == "bounds":
        changes.update(scale="none", column_bounds=None)  # divided by the public bounds when the input was prepared
    clipped_at = float(options.radius_bounds[1]) if options.private_radius else options.data_norm
    if data.data_norm != clipped_at:
        raise ValueError(
            f"the input was clipped to R = {data.data_norm:g}, but these options clip to {clipped_at:g}: prepare "
            "the input from the same options (experiments.input_for)."
        )
    if options.scale == "private":
        if rows is None:
            raise ValueError("scaling the columns privately reads the raw rows: pass them (ExperimentInput.rows).")
        X = rows
    else:
        X = data.rows * data.data_norm if options.private_radius else data
    return X, options.replace(**changes) if changes else options


def _check_input(inp: ExperimentInput, options: ReleaseOptions) -> None:
    """ValueError when ``inp`` was not prepared with the centring, radius rule and scaling of ``options``."""
    asked = {"centring": options.center, "radius rule": RadiusRule.of(options), "scaling": ScaleRule.of(options)}
    made = {"centring": inp.center, "radius rule": inp.radius, "scaling": inp.scale}
    differ = [what for what in asked if asked[what] != made[what]]
    if differ:
        raise ValueError(
            f"the input was prepared with another {' and '.join(differ)} than these options ask for: prepare it from "
            "the same options (experiments.input_for)."
        )
