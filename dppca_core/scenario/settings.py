"""Every setting of a scenario under a name a reader understands: ``Settings(vals).eigenvalue_share`` rather than
``vals["beig"]``.

A scenario travels as a dict keyed by the short names a link carries (``beig``, ``rfrom``, ``kvar``: the keys of
:data:`~dppca_core.scenario.FIELDS`), and the link and the scenario file keep those names. Code that reads a scenario
reads it through this view, so that a page never spells a short name. The view holds the dict itself, not a copy: a
value set afterwards (``ui.scenario.set_value``) is read at once; a setting the dict lacks reads as its default. The
view only reads: a setting is changed through the scenario (``ui.scenario.set_value(Settings.epsilon.key, ...)``).

On the class, each name is the setting itself (:class:`Setting`): its short name (``Settings.epsilon.key == "eps"``),
its :class:`~dppca_core.scenario.Field` (kind, default, range) and its default. A setting whose value is text that a
helper parses (a comma list, a JSON list or object) ends in ``_text``: read it with the helper (``ui.scenario.bounds``,
``declared_columns``, ``mechanisms``, ``declared_groups``).
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar, overload

from .fields import FIELDS, Field

__all__ = ["Setting", "Settings"]

T = TypeVar("T")


class Setting(Generic[T]):
    """One setting of :class:`Settings`: read on a view, its value; read on the class, the setting (its ``key``, its
    ``field`` and its ``default``)."""

    __slots__ = ("key", "name")

    def __init__(self, key: str) -> None:
        if key not in FIELDS:
            raise KeyError(f"{key!r} is not a setting of the scenario")
        self.key = key
        self.name = key

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, view: None, owner=None) -> Setting[T]: ...

    @overload
    def __get__(self, view: Settings, owner=None) -> T: ...

    def __get__(self, view, owner=None):
        if view is None:
            return self
        return view.values.get(self.key, FIELDS[self.key].default)

    def __set__(self, view, value) -> None:
        raise AttributeError(f"Settings only reads: set {self.name} through the scenario (its key is {self.key!r})")

    @property
    def field(self) -> Field:
        """The setting's kind, default and allowed values."""
        return FIELDS[self.key]

    @property
    def default(self) -> T:
        return FIELDS[self.key].default

    def __repr__(self) -> str:
        return f"Settings.{self.name} ({self.key!r})"


class Settings:
    """A scenario's values (a dict keyed by the link's short names) read by name. Each attribute below is one setting
    (the short name it reads in brackets, as the link and the scenario file write it)."""

    __slots__ = ("values",)

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    # -- the data ----------------------------------------------------------------------------------------------
    source = Setting[str]("src")  # synthetic, upload, preset:NAME, sample:NAME, server:PATH
    rows = Setting[int]("n")  # a synthetic table's rows
    features = Setting[int]("d")  # a synthetic table's columns
    planted_rank = Setting[int]("rank")
    spike_strength = Setting[float]("spike")
    planted_sparsity = Setting[int]("sparse")  # 0: dense
    data_seed = Setting[int]("dseed")
    centring = Setting[str]("center")  # none, private, empirical
    radius = Setting[float]("R")  # the public clipping radius
    radius_from = Setting[str]("rfrom")  # public, hints, private
    radius_low = Setting[float]("rlo")  # a private radius's public bounds
    radius_high = Setting[float]("rhi")
    radius_quantile = Setting[float]("rq")
    scaling = Setting[str]("scale")  # none, bounds, private
    bounds_text = Setting[str]("bounds")  # the public per-column bounds, a comma list
    bounds_from = Setting[str]("sfrom")  # public, hints
    scale_share = Setting[float]("bscale")
    columns_text = Setting[str]("cols")  # the declared columns, a JSON list ("" until declared)
    label_column = Setting[str]("label")
    bad_cells = Setting[str]("badcells")  # replace, drop_rows
    fill_text = Setting[str]("fill")  # each column's public value for a bad cell, a JSON object
    # -- Explore -----------------------------------------------------------------------------------------------
    mechanisms_text = Setting[str]("mechs")  # a comma list
    epsilon = Setting[float]("eps")
    delta = Setting[float]("delta")
    k = Setting[int]("k")
    k_from = Setting[str]("kfrom")  # public, private
    variance_target = Setting[float]("kvar")  # a private k's explained-variance target
    support_size = Setting[int]("s")
    neighbors = Setting[str]("nb")  # replace, add_remove
    repetitions = Setting[int]("reps")
    seed = Setting[int]("seed")
    view = Setting[str]("view")
    spread_metric = Setting[str]("spreadm")
    mean_share = Setting[float]("bmean")
    eigenvalue_share = Setting[float]("beig")
    scores_share = Setting[float]("bscores")
    radius_share = Setting[float]("bradius")
    scores_by_group = Setting[bool]("sgroup")
    score_groups_text = Setting[str]("slabels")  # the groups declared public, a JSON list ("" = found privately)
    score_frame = Setting[str]("sframe")  # public, private
    score_kind = Setting[str]("skind")  # additive, sparse
    # -- Trade-offs and the plan from targets --------------------------------------------------------------------
    sweep_axis = Setting[str]("sweep")
    metric = Setting[str]("metric")
    sweep_repetitions = Setting[int]("sreps")
    target = Setting[float]("target")
    sweep_low = Setting[float]("slo")  # the swept range beyond the grid (0: the grid's own end)
    sweep_high = Setting[float]("shi")
    log_y = Setting[bool]("logy")
    oracle_radius = Setting[bool]("oracle")
    plan_targets_text = Setting[str]("ptarget")  # a comma list
    plan_distance = Setting[float]("pdist")
    plan_energy = Setting[float]("penergy")
    plan_f1 = Setting[float]("pf1")
    plan_variance_error = Setting[float]("peverr")
    plan_score_readability = Setting[float]("pscore")
    plan_confidence = Setting[float]("pconf")
    plan_standin = Setting[str]("pon")  # law, stated, private
    plan_spectrum = Setting[str]("pspec")
    plan_total_variance = Setting[float]("ptotal")
    plan_standin_epsilon = Setting[float]("peps0")
    plan_rows = Setting[int]("pn")  # 0: the data's own n
    # -- Distributed ---------------------------------------------------------------------------------------------
    sites = Setting[int]("dsites")
    uneven_sites = Setting[bool]("duneven")
    sites_by_label = Setting[bool]("dbylabel")
    distributed_epsilon = Setting[float]("deps")
    distributed_repetitions = Setting[int]("dreps")
    # -- Audit ---------------------------------------------------------------------------------------------------
    audit_mechanism = Setting[str]("amech")
    audit_epsilon = Setting[float]("aeps")
    audit_delta = Setting[float]("adelta")
    audit_trials = Setting[int]("atrials")
    audit_neighbors = Setting[str]("anb")
    audit_factor = Setting[int]("afactor")
    # -- Tensor --------------------------------------------------------------------------------------------------
    tensor_model = Setting[str]("tmodel")
    tensor_dimension = Setting[int]("tD")
    tensor_components = Setting[int]("tK")
    tensor_sites = Setting[int]("tsites")
    tensor_rows = Setting[int]("tn")
    tensor_epsilon = Setting[float]("teps")
    tensor_delta = Setting[float]("tdelta")
    tensor_split = Setting[float]("tsplit")
    tensor_repetitions = Setting[int]("treps")
    tensor_seed = Setting[int]("tseed")
    # -- how the app is shown, the Lesson, the Class, Reproduce --------------------------------------------------
    presenting = Setting[bool]("present")
    lesson_step = Setting[int]("step")
    class_room = Setting[str]("room")
    paper = Setting[str]("rpaper")
    paper_grid = Setting[str]("rgrid")
    paper_repetitions = Setting[int]("rreps")
    paper_seed = Setting[int]("rseed")

    @classmethod
    def named(cls) -> dict[str, Setting]:
        """Every setting by its name here (in the order above)."""
        return {name: value for name, value in vars(cls).items() if isinstance(value, Setting)}

    def __repr__(self) -> str:
        return f"Settings({self.values!r})"
