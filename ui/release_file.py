"""The publishable file: releases drawn with fresh randomness, from the configuration the page shows, with the
public schema and settings.

It holds only :func:`dppca_core.publish` of those releases (:mod:`dppca_core.publishable`); mechanisms without a
guarantee or with a retracted one are left out, and after a non-private choice its first line says it is not
publishable. The publishable brief and deck (:mod:`dppca_core.handout.brief`) are built from it alone. It never
mixes with an exploration record (:mod:`ui.report`). Pure functions (no Streamlit calls).
"""

from __future__ import annotations

import dppca_core as dc
from dppca_core import publishable
from dppca_core.data import datasets as dsets
from dppca_core.pipeline import experiments
from dppca_core.privacy import describe_neighbors
from dppca_core.reading import number
from dppca_core.registry import display_name
from dppca_core.scenario import release as translation

from . import scenario
from .report import synthesised
from .report_words import CENTRING_WORDS, scale_words


def left_out(mechs) -> dict:
    """{mechanism: why it is left out of the publishable file} for the mechanisms without a guarantee or with a
    retracted one (:func:`dppca_core.publishable.refusal`)."""
    return {m: why for m in mechs if (why := publishable.refusal(m))}


def publishable_options(data, mechs: list, vals: dict, labels=None, rows=None) -> tuple:
    """(what each release reads, {mechanism: ReleaseOptions}) for every mechanism of ``mechs`` that has a guarantee
    (:func:`left_out` are not drawn): exactly the scenario's configuration, translated as the pages translate it
    (:func:`dppca_core.scenario.release.scenario_options`) and read from the prepared ``data``
    (:func:`dppca_core.pipeline.inputs.release_input`). ``labels``: the data's label column, for a score plot by
    group. ``rows``: with the columns scaled privately, the raw rows each release reads
    (:func:`ui.compute.release_rows`). The options say, before anything is drawn, what each release will spend
    (:func:`dppca_core.pipeline.budget.planned_curve`)."""
    drawn = [m for m in mechs if not publishable.refusal(m)]
    X, options = None, {}
    for mech, asked in translation.scenario_options(vals, labels, data.d, drawn).items():
        X, options[mech] = experiments.release_input(data, asked, rows)
    return X, options


def publishable_releases(data, mechs: list, vals: dict, labels=None, rows=None) -> dict:
    """One publishable release per mechanism that has a guarantee (:func:`publishable_options`): drawn with fresh
    operating-system randomness (``seed=None``) and exported with :func:`dppca_core.publish`, which states no
    guarantee and names the choices when a data-dependent choice was not private
    (:func:`ui.scenario.nonprivate_choices`)."""
    choices = scenario.nonprivate_choices(vals)
    X, options = publishable_options(data, mechs, vals, labels, rows)
    return {
        mech: dc.publish(dc.release_with(mech, X, opts, seed=None), nonprivate_choices=choices)
        for mech, opts in options.items()
    }


def brief_outlook(vals: dict) -> str | None:
    """Why the brief of releases drawn now could not judge them, before they are drawn (None when it can): no
    release's budget split gives the eigenvalues a share, so none measures the variance its directions capture, and
    the brief can only end with "Do not judge these directions yet" (:func:`dppca_core.publishable.recommendation`)."""
    if scenario.private_k(vals) or scenario.Settings(vals).eigenvalue_share > 0:
        return None
    return (
        "With this budget split the brief will not be able to say whether the directions are worth publishing: "
        "no release gives the eigenvalues a share, so none measures the share of variance its directions capture "
        "(the brief's private scree and its verdict against directions drawn at random need it), and the brief "
        'will end with "Do not judge these directions yet". Give the eigenvalues a share before drawing, or '
        "draw anyway: the brief still shows each release's loadings, score plot and settings."
    )


def public_schema(ds) -> dict:
    """The data's public schema: the analysed columns in order, what a missing or bad cell of each becomes and the
    label column (from ``Dataset.schema`` when the data declare one; the columns alone otherwise)."""
    schema = getattr(ds, "schema", None)
    declared = schema.as_dict() if schema is not None else {}
    columns = [str(c) for c in ds.columns]  # the analysed features, in the order of the components' rows
    replacement = {str(k): v for k, v in (declared.get("replacement") or {}).items() if str(k) in columns}
    label = declared.get("label")
    return {
        "columns": columns,
        "replacement": replacement,
        "label": None if label is None else str(label),
        "declared": bool(declared.get("declared", True)),  # a suggested schema is refused by publishable_file
    }


def data_kind(vals: dict) -> str:
    """What kind of data the releases read, in public words (never a file's name)."""
    src = scenario.Settings(vals).source
    if synthesised(vals):
        return "synthetic data made by the app"
    if src.startswith("sample:"):
        return "the shipped sample " + dsets.SAMPLES.get(src.split(":", 1)[1], {}).get("title", src.split(":", 1)[1])
    return "a file on the server" if src.startswith("server:") else "an uploaded table"


def public_settings(vals: dict, n: int | None = None, has_labels: bool = True) -> dict:
    """The public settings every publishable release was drawn with (the publishable file's "settings"): the privacy
    budget and its split (with a groups share only when the data have a label column, ``has_labels``: each release
    states its own split), the scaling rule with its bounds, the centring, the clipping radius, k and how it was
    chosen, and n under replace-one (where it is public). Nothing read from the data."""
    s = scenario.Settings(vals)
    split = scenario.budget(vals, has_labels=has_labels)
    bounds = scenario.bounds(vals)
    scaling = {
        "rule": s.scaling,
        "bounds": bounds if s.scaling in ("bounds", "private") and bounds else None,
        "bounds_from": scenario.SCALE_SOURCES[s.bounds_from][0] if s.scaling != "none" else None,
        "words": {
            "none": "the columns as they are (no scaling)",
            "bounds": "each column divided by its public bound",
            "private": scale_words(vals),
        }[s.scaling],
    }
    if scenario.private_radius(vals):
        radius = {
            "rule": "private",
            "value": None,
            "bounds": [s.radius_low, s.radius_high],
            "quantile": s.radius_quantile,
            "share": s.radius_share,
            "words": (
                f"chosen privately inside each release: a noisy search for the {number(s.radius_quantile)} quantile "
                f"of the rows' lengths between {number(s.radius_low)} and {number(s.radius_high)}"
            ),
        }
    else:
        radius = {
            "rule": s.radius_from,
            "value": s.radius,
            "bounds": None,
            "quantile": None,
            "share": None,
            "words": f"R = {number(s.radius)}, "
            + (
                "a public bound, set without reading the data"
                if s.radius_from == "public"
                else scenario.R_SOURCES[s.radius_from][0]
            ),
        }
    k = (
        {"rule": "private", "value": None, "variance_target": s.variance_target, "words": k_rule_words_public(vals)}
        if scenario.private_k(vals)
        else {"rule": "public", "value": int(s.k), "variance_target": None, "words": "a number chosen in advance"}
    )
    return {
        "epsilon": s.epsilon,
        "delta": s.delta,
        "neighbors": s.neighbors,
        "neighbors_words": describe_neighbors(s.neighbors),
        "data": data_kind(vals),
        "n": int(n) if n is not None and s.neighbors == "replace" else None,
        "mechanisms": scenario.mechanisms(vals),
        "k": k,
        "scaling": scaling,
        "centring": {"rule": s.centring, "words": CENTRING_WORDS[s.centring]},
        "radius": radius,
        "budget_split": split.as_dict() if split is not None else {"subspace": 1.0},
    }


def k_rule_words_public(vals: dict) -> str:
    """The rule of a private k in words (:func:`ui.scenario.k_rule_words`)."""
    return "chosen privately inside each release: " + scenario.k_rule_words(vals)


def publishable_file(published: dict, vals: dict | None = None, ds=None, purpose: str = "", earlier=()) -> dict:
    """The publishable file (:func:`dppca_core.publishable.publishable_file`) of ``published`` (mechanism ->
    :func:`dppca_core.publish` output) with the scenario's public schema and settings, and the mechanisms it left out
    with the reason. ``vals`` and ``ds`` may be None (a file with the releases' own settings only). ``earlier``: this
    session's spends on the same table before these releases (the budget book), composed into the file's total."""
    has_labels = ds is None or getattr(ds, "labels", None) is not None
    settings = public_settings(vals, getattr(ds, "n", None), has_labels) if vals is not None else None
    schema = public_schema(ds) if ds is not None else None
    titles = {m: display_name(m) for m in published}
    return publishable.publishable_file(
        published,
        schema=schema,
        settings=settings,
        titles=titles,
        left_out=left_out(scenario.mechanisms(vals)) if vals is not None else None,
        purpose=purpose,
        earlier=earlier,
    )


def releases_json(published: dict, vals: dict | None = None, ds=None) -> str:
    """The publishable file as JSON under a first line that says what it is (valid JSON: the first key is "export");
    ``published`` is {mechanism: dppca_core.publish(release, ...)}, or a file :func:`publishable_file` built."""
    file = published if "format_version" in published else publishable_file(published, vals, ds)
    return publishable.file_json(file)
