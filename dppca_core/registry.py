"""The one registry of mechanisms and the metadata pages build their widgets from."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import pandas as pd

from .privacy import PrivacyCurve
from .validation import Interval

if TYPE_CHECKING:
    from .mechanisms.rates import Rate

MODELS = ("central", "local", "distributed")
#: what a mechanism's structure follows: the paper's text, the authors' code, or our reading where neither was read
STRUCTURES = {"paper": "as the paper", "authors_code": "as the authors' code", "inferred": "inferred"}
#: what a reproduction made of one of the paper's claims (the statuses of dppca_core.reproduce)
VERDICTS = ("reproduced", "not reproduced", "reversed", "not run")
GUARANTEES = ("pure", "approximate", "none", "retracted")
TASKS = ("pca", "tensor")


@dataclass(frozen=True)
class Param:
    """One tunable parameter of a mechanism: its type, range, default and help text.

    ``kind`` is "int", "float", "choice", "bool" or "sites" (an int number of equal sites, a list of
    site sizes or one site label per row; the mechanism validates it against n). ``low``/``high`` are inclusive bounds;
    ``log`` suggests a log-scaled widget. ``default`` may be None when the mechanism derives
    it from other inputs (the help text then says how).
    """

    name: str
    kind: str
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    log: bool = False

    def validate(self, value):
        if value is None and self.default is None:
            return None
        if self.kind == "sites":
            return self._validate_sites(value)
        if self.kind == "bool":
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{self.name} must be True or False (got {value!r}).")
            return bool(value)
        if self.kind == "choice":
            if value not in self.choices:
                raise ValueError(f"{self.name}={value!r} is not allowed; choose one of {list(self.choices)}.")
            return value
        return self.range.check(value, self.name)

    @property
    def range(self) -> Interval:
        """The declared range of an "int", "float" or "sites" (a number of sites) parameter: checked by
        :meth:`dppca_core.validation.Interval.check`, the library's one rule for a bounded number."""
        return Interval("float" if self.kind == "float" else "int", self.low, self.high)

    def _validate_sites(self, value):
        """An int number of sites in [low, high], a list of site sizes, or one hashable label per row.

        Sizes and labels are checked against n by the mechanism (:func:`dppca_core.data.sites.split_sites`).
        """
        if isinstance(value, (bool, np.bool_)):
            raise ValueError(
                f"{self.name} must be a number of sites, a list of site sizes or one label per row " f"(got {value!r})."
            )
        if isinstance(value, Integral):
            return self.range.check(value, self.name, "a number of sites")
        if isinstance(value, (str, bytes, Real)):
            raise ValueError(
                f"{self.name} must be a whole number of sites, a list of site sizes or one label per "
                f"row (got {value!r})."
            )
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{self.name} could not be read as site sizes or labels ({exc}).") from None
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(
                f"{self.name} must be a flat list of site sizes or one label per row " f"(got shape {arr.shape})."
            )
        if arr.dtype == object:
            kinds = {type(v).__name__ for v in arr.tolist()}
            if len(kinds) > 1:
                raise ValueError(f"{self.name} labels mix types {sorted(kinds)}; use one type (e.g. all strings).")
        if arr.dtype.kind in "fc":
            if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
                raise ValueError(f"{self.name} holds non-integer numbers; give whole site sizes or labels.")
            arr = arr.astype(np.int64)
        if arr.dtype.kind not in "iuUSO":
            raise ValueError(f"{self.name} must hold whole numbers or text labels (got dtype {arr.dtype}).")
        return arr

    def as_dict(self) -> dict:
        out = {"name": self.name, "kind": self.kind, "default": self.default, "help": self.help}
        if self.kind in ("int", "float", "sites"):
            out.update(low=self.low, high=self.high, log=self.log)
        if self.kind == "choice":
            out["choices"] = list(self.choices)
        return out


#: the sites of a distributed mechanism (PCA or tensor): shared here, where every mechanism module can import it
SITES_PARAM = Param(
    "sites", "sites", 5, "Number of equal sites, a list of site sizes, or one site label per row.", low=1, high=50
)


@dataclass(frozen=True)
class AuditRecord:
    """A mechanism's last audit under one relation, as docs/audit-table.md reports it (a test keeps the two equal):
    the statistic its design attacks, the median share of the target its lower bound reached at the claim (over the
    table's seeds), whether the claim itself was refuted, and the power check: ``refuted_at`` the multiple of its
    claim (2, 3) it was run at and refuted on every seed, or None where no such run was made."""

    relation: str
    statistic: str
    share: float
    refuted_at: float | None = None
    refuted: bool = False


@dataclass(frozen=True)
class Verdict:
    """One claim of the paper and what a reproduction made of it (a test keeps it equal to docs/reproduce.md):
    ``reproduction`` its key, ``claim`` the claim as that reproduction states it (its start is enough), ``status``
    one of :data:`VERDICTS` ("not run" where the algorithm the claim is about never ran)."""

    reproduction: str
    claim: str
    status: str

    def __post_init__(self):
        if self.status not in VERDICTS:
            raise ValueError(f"a verdict is one of {VERDICTS} (got {self.status!r}).")


@dataclass(frozen=True)
class Provenance:
    """Where a mechanism comes from, declared with it: ``read`` what was read (the paper's sections, the authors' code,
    an abstract only); ``calibration`` the paper's, or corrected and why; ``structure`` one of :data:`STRUCTURES` (as
    the paper, as the authors' code, inferred) with ``structure_note``; ``proof`` which neighbouring relations its
    proof covers and what the paper states; ``audits`` its last audit per relation; ``verdicts`` its reproductions'
    verdicts. :mod:`dppca_core.mechanisms.provenance` renders it for the app, docs/mechanisms.md and the publishable
    file."""

    read: str
    calibration: str
    structure: str
    proof: str
    structure_note: str = ""
    audits: tuple[AuditRecord, ...] = ()
    verdicts: tuple[Verdict, ...] = ()

    def __post_init__(self):
        if self.structure not in STRUCTURES:
            raise ValueError(f"structure must be one of {sorted(STRUCTURES)} (got {self.structure!r}).")
        if not (self.read and self.calibration and self.proof):
            raise ValueError("a provenance says what was read, how the noise is calibrated and what the proof covers.")


@dataclass
class Output:
    """What a mechanism function returns; :func:`dppca_core.run` wraps it into a Release.

    Each mechanism sorts what it computed into three places, by what its privacy proof covers:

    * ``components``, ``eigenvalues`` (only when privatised) and ``outputs``: released values the proof
      covers (noisy statistics and post-processing of them, e.g. the iterates of a noisy power method);
    * ``facts``: data-independent values (what the noise is added to, per-site noise levels, communication);
    * ``diagnostics``: anything computed from the raw data without noise (acceptance rates, traces, counts).
      These are never published.

    ``privacy`` is the exact privacy curve the run earns (e.g. mu-GDP for Gaussian noise); ``guarantee`` and
    ``delta`` override the registry's guarantee and the delta spent for this run (e.g. a pure variant).
    """

    components: np.ndarray
    noise_scale: float | None = None
    eigenvalues: np.ndarray | None = None
    outputs: dict = field(default_factory=dict)
    facts: dict = field(default_factory=dict)
    diagnostics: dict = field(default_factory=dict)
    privacy: PrivacyCurve | None = None
    guarantee: str | None = None
    delta: float | None = None
    caveat: str = ""
    state: dict | None = None  # the noisy statistic itself, for refinement (never published; see Release.state)


@dataclass(frozen=True)
class MechanismSpec:
    """Metadata and entry point of one mechanism.

    ``func(data, k, epsilon, delta, neighbors, rng, **params) -> Output`` where ``data`` is a
    :class:`dppca_core.data.prepare.PreparedData` with rows of norm <= 1. ``releases_eigenvalues`` says that the
    release includes private eigenvalue estimates. ``audit_statistic`` names the test statistic the privacy proof
    is tight for, which :func:`dppca_core.audit.audit` uses (:func:`dppca_core.audit.design_for` says which
    design each name selects).

    ``gaussian_dp`` says that an "approximate" guarantee is in fact mu-Gaussian DP (Gaussian noise only), so
    other Gaussian releases compose with it exactly; False for mechanisms that mix in other noise (histograms).

    ``task`` is "pca" (subspace estimation; the Explore and Trade-offs pages list these) or "tensor"
    (orthogonal tensor decomposition). ``prepare_input(X, data_norm)`` replaces :func:`dppca_core.data.prepare`
    for mechanisms whose input is not rows to clip (it must return an object with ``n``, ``d``, ``data_norm``
    and ``n_clipped``). ``audit_design(d=, n=, neighbors=, statistic=, epsilon=, delta=)`` returns an
    :class:`dppca_core.audit.design.AuditDesign` for mechanisms the generic designs do not fit (or None to leave
    that statistic to them). ``local_randomizer(x, epsilon, delta, rng) -> (message, PrivacyCurve)`` is a local
    mechanism's per-user randomiser, the level its guarantee is stated at (the audit attacks that message).
    ``audit_params`` are mechanism parameters an audit runs with unless the caller gives others (e.g. one site,
    where a person's guarantee is that of their own site's messages).

    ``ordered_basis`` says that the released components come in decreasing order of the mechanism's own estimate
    of the variance along them (eigenvectors of a noisy matrix, a power method's singular vectors). False for
    mechanisms that release a subspace in an arbitrary basis (a sampler's state, a Fantope solution, a QR factor):
    :func:`dppca_core.release_pca` then orders the basis with its private variance matrix (post-processing).

    ``audit_batch(data, k, epsilon, delta, neighbors, generators, **params) -> list[dict]`` (optional) runs the
    mechanism once per generator of ``generators`` (an iterable; each generator is valid until the next is drawn)
    and returns, for each run, what :meth:`dppca_core.Release.published` holds under "components", "eigenvalues"
    and "outputs", bit for bit: an audit then scores many trials without a :class:`~dppca_core.Release` each
    (:func:`dppca_core.audit.audit`; without it, every trial is a full :func:`dppca_core.run`).

    Everything else the app shows of a mechanism is declared here too, so a new mechanism is one module:
    ``provenance`` (:class:`Provenance`: what was read of the paper, the calibration, the structure, what the proof
    covers, the last audit, the reproductions' verdicts; every built-in mechanism declares one), ``family`` (the
    mechanisms charts colour alike, each with its own marker: :attr:`family_name`; left empty, its module's mechanisms
    of its model), ``short_name`` (how charts, tables and legends name it; default: the title without
    its details, :attr:`short_title`), ``audit_descriptions`` (statistic name -> how the audit reads it, in plain
    words, for the statistics of its own designs; the Audit page shows it) and ``rate`` (its error rate, a
    first-order level and the regimes where the rate holds, :class:`dppca_core.mechanisms.rates.Rate`, read by
    :mod:`dppca_core.theory`; None: no rate is known).

    ``threaded_reps`` says that the mechanism spends its time outside BLAS, in loops that release the GIL (a
    compiled sequential pass, row gathers), so :func:`dppca_core.pipeline.experiments.repeat` runs its repetitions on two
    threads. The others keep one: BLAS already uses every core for them, and threads on top only contend
    (measured in ``docs/benchmarks.md``).
    """

    name: str
    title: str
    paper: str
    model: str
    guarantee: str
    func: Callable[..., Output]
    params: tuple[Param, ...] = ()
    notes: str = ""
    relations: tuple[str, ...] = ("replace", "add_remove")
    uses_delta: bool = True
    needs_rows: bool = False
    caveat: str = ""
    max_k: int | None = None
    releases_eigenvalues: bool = False
    audit_statistic: str = "subspace_energy"
    task: str = "pca"
    gaussian_dp: bool = True
    prepare_input: Callable | None = None
    audit_design: Callable | None = None
    local_randomizer: Callable | None = None
    audit_params: dict = field(default_factory=dict)
    threaded_reps: bool = False
    ordered_basis: bool = True
    audit_batch: Callable | None = None
    family: str = ""
    short_name: str = ""
    audit_descriptions: dict = field(default_factory=dict)
    rate: Rate | None = None
    provenance: Provenance | None = None

    def __post_init__(self):
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}")
        if self.guarantee not in GUARANTEES:
            raise ValueError(f"guarantee must be one of {GUARANTEES}")
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}")

    def uses_delta_with(self, resolved: dict) -> bool:
        """Whether a run with these (resolved) parameters spends delta: not for a pure variant (noise="laplace")."""
        return self.uses_delta and resolved.get("noise") != "laplace"

    @property
    def short_title(self) -> str:
        """The declared ``short_name``, else the title without its parenthesised details and subtitle ("Private
        (noisy) power method" -> "Private power method", "capePCA: correlated-noise distributed PCA" -> "capePCA"):
        for charts, tables and legends."""
        if self.short_name:
            return self.short_name
        short = re.sub(r"\s*\([^)]*\)", "", self.title)
        return re.split(r":| —", short)[0].strip() or self.name

    @property
    def family_name(self) -> str:
        """The mechanism's family: the ``family`` it declares, else the mechanisms of its model declared in its module
        ("central (central)" for mechanisms/central.py's, "mechanisms (distributed)" for tensor/mechanisms.py's
        distributed ones). Charts give a family one colour and each member its own marker (dppca_core.figures)."""
        return self.family or f"{self.func.__module__.rsplit('.', 1)[-1]} ({self.model})"

    @property
    def display_name(self) -> str:
        """How charts, tables and legends name the mechanism: the short title, marked when its guarantee was
        retracted (never the registry id)."""
        return f"{self.short_title} {RETRACTED_MARK}" if self.guarantee == "retracted" else self.short_title

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def resolve_params(self, given: dict) -> dict:
        """Defaults filled in, every value validated; unknown names raise ValueError."""
        known = {p.name: p for p in self.params}
        unknown = sorted(set(given) - set(known))
        if unknown:
            hint = f"it accepts {sorted(known)}" if known else "it takes no extra parameters"
            raise ValueError(f"{self.name} does not take parameter(s) {unknown}; {hint}.")
        return {name: p.validate(given.get(name, p.default)) for name, p in known.items()}


_REGISTRY: dict[str, MechanismSpec] = {}
#: the mark every chart, table and legend puts beside a mechanism whose privacy claim was retracted
RETRACTED_MARK = "⚠ retracted: not private"


def register(spec: MechanismSpec) -> MechanismSpec:
    if spec.name in _REGISTRY:
        raise ValueError(f"mechanism {spec.name!r} is already registered")
    _REGISTRY[spec.name] = spec
    return spec


def unregister(name: str) -> MechanismSpec:
    """Remove a registered mechanism (e.g. one a test registered from its own module); returns its spec."""
    if name not in _REGISTRY:
        raise ValueError(f"mechanism {name!r} is not registered.")
    return _REGISTRY.pop(name)


def mechanism(**meta):
    """Decorator: register the decorated function as a mechanism with metadata ``meta``."""

    def wrap(func):
        register(MechanismSpec(func=func, **meta))
        return func

    return wrap


def get_mechanism(name: str) -> MechanismSpec:
    """The registry entry of one mechanism: its metadata and the function :func:`dppca_core.run` calls.

    Parameters
    ----------
    name : str
        Registry name (:func:`mechanism_names`, :func:`list_mechanisms`).

    Returns
    -------
    MechanismSpec
        Title, paper, model, guarantee, the relations its proof covers, its own parameters with their defaults,
        notes, and its entry point.

    Raises
    ------
    ValueError
        For a name that is not registered, listing the names that are.

    Examples
    --------
    >>> import dppca_core as dc
    >>> spec = dc.get_mechanism("analyze_gauss")
    >>> spec.title, spec.model, spec.relations
    ('Analyze Gauss', 'central', ('replace', 'add_remove'))
    >>> dc.get_mechanism("pca")
    Traceback (most recent call last):
        ...
    ValueError: unknown mechanism 'pca'; choose one of [...] (see list_mechanisms()).
    """
    _load_builtin()
    if name not in _REGISTRY:
        raise ValueError(f"unknown mechanism {name!r}; choose one of {sorted(_REGISTRY)} (see list_mechanisms()).")
    return _REGISTRY[name]


def display_name(name: str) -> str:
    """The display name of a registered mechanism (:attr:`MechanismSpec.display_name`); any other label as is."""
    _load_builtin()
    spec = _REGISTRY.get(name)
    return spec.display_name if spec is not None else str(name)


def mechanism_names(task: str | None = None) -> list[str]:
    """Registered names, in registration order; ``task`` ("pca" or "tensor") keeps that task's only.

    Parameters
    ----------
    task : {"pca", "tensor"}, optional
        Keep the mechanisms of that task only (default: every mechanism).

    Returns
    -------
    list of str
        The names :func:`dppca_core.run` accepts.

    Examples
    --------
    >>> import dppca_core as dc
    >>> dc.mechanism_names("pca")[:3]
    ['non_private', 'analyze_gauss', 'mod_sulq']
    >>> "otd_agn" in dc.mechanism_names("tensor")
    True
    """
    _load_builtin()
    return [name for name, spec in _REGISTRY.items() if task is None or spec.task == task]


def list_mechanisms() -> pd.DataFrame:
    """One row per mechanism with its metadata (name, title, paper, model, guarantee, parameters, notes, ...).

    Returns
    -------
    pandas.DataFrame
        One row per registered mechanism, in registration order: ``name`` (what :func:`dppca_core.run` takes),
        ``title``, ``paper``, ``model`` (central, streaming, local, distributed), ``guarantee``, ``parameters`` (its
        own parameters with their defaults), ``notes`` (where a paper's calibration was corrected), ``relations`` (the
        neighbouring relations its proof covers), and more.

    Examples
    --------
    >>> import dppca_core as dc
    >>> table = dc.list_mechanisms()
    >>> table.set_index("name").loc["analyze_gauss", "title"]
    'Analyze Gauss'
    >>> list(table.columns[:4])
    ['name', 'title', 'paper', 'model']
    """
    _load_builtin()
    rows = [
        {
            "name": s.name,
            "title": s.title,
            "paper": s.paper,
            "model": s.model,
            "guarantee": s.guarantee,
            "parameters": [p.as_dict() for p in s.params],
            "notes": s.notes,
            "relations": list(s.relations),
            "uses_delta": s.uses_delta,
            "needs_rows": s.needs_rows,
            "releases_eigenvalues": s.releases_eigenvalues,
            "task": s.task,
            "caveat": s.caveat,
            "ordered_basis": s.ordered_basis,
        }
        for s in _REGISTRY.values()
    ]
    return pd.DataFrame(rows)


def _load_builtin() -> None:
    from . import mechanisms  # noqa: F401  (importing registers the built-in mechanisms)
