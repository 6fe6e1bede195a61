"""Exports of two kinds, never mixed: exploration records and publishable releases.

* An **exploration record** (the Report's HTML, its slides, its Python script, the Trade-offs and Reproduce CSVs)
  holds what the pages show: seeded runs, non-private diagnostics, the exact (non-private) PCA, the scenario's link
  with its seeds. Its first line says so. For data the app did not synthesise (an upload, a server file, a shipped
  sample) the record describes the raw data and must stay with the data owner; it is never called a release, and it
  leaves out the released numbers of its seeded runs (whoever holds the seed regenerates their noise): the
  components, score-plot counts, R, scales and k of any one run.
* A **publishable file** (:func:`publishable_file`, :func:`releases_json`) holds only :func:`dppca_core.publish` of
  releases drawn with fresh randomness, from the configuration the page shows, with the public schema and settings
  (:mod:`dppca_core.publishable`); mechanisms without a guarantee or with a retracted one are left out, and after a
  non-private choice its first line says it is not publishable. The publishable brief and deck (:mod:`dppca_core.handout.brief`) are
  built from it alone.

Pure functions (no Streamlit calls) so they can be tested directly. Every user-controlled string (file and
column names, the data note, the link) is HTML-escaped in the HTML and written as a Python literal in the script.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import html
import json
import os
from dataclasses import dataclass

import pandas as pd

import dppca_core as dc
from dppca_core.data import datasets as dsets
from dppca_core import publishable, reading, risk
from dppca_core.pipeline import experiments
from dppca_core.privacy import describe_neighbors
from dppca_core.registry import display_name, get_mechanism
from dppca_core.scenario import release as translation

from . import scenario
from dppca_core.reading import number

#: first line of every exploration record of data the app did not synthesise (fixed text: no user input in it)
PRIVATE_RECORD = (
    "Exploration record, not a release: it describes the raw data (non-private diagnostics, the exact "
    "PCA, seeded runs and their seeds). Keep it with the data owner; do not publish it."
)
#: first line of every exploration record of data the app synthesised
PUBLIC_RECORD = (
    "Exploration record of data the app synthesised: nothing in it is private (the data describe no "
    "person). It is not a release."
)
#: first line of the publishable file (dppca_core.publishable.PUBLISHABLE)
PUBLISHABLE = publishable.PUBLISHABLE
RELEASED_NUMBERS = ("components", "eigenvalues", "outputs")
CENTRING_WORDS = {
    "none": "none: the uncentred second moment is analysed (private)",
    "private": "with a private mean released from its own share of the budget",
    "empirical": "with the data's own (empirical) mean: NOT private",
}
#: environment variable: the app's public address (e.g. https://dppca.example.org), used in a record's links; without
#: it a record links relatively (never to the address the browser used, such as localhost)
PUBLIC_URL_ENV = "DPPCA_PUBLIC_URL"


def synthesised(vals: dict) -> bool:
    """True when the app made the data itself (synthetic or a paper's setting): nothing about them is private.
    Uploads, server files and the shipped samples are treated as private data."""
    return vals["src"] == "synthetic" or vals["src"].startswith("preset:")


def record_line(vals: dict) -> str:
    """The first line of an exploration record of this scenario's data."""
    return PUBLIC_RECORD if synthesised(vals) else PRIVATE_RECORD


def public_base() -> str:
    """The start of every link a record or a deck holds: the operator's public address (:data:`PUBLIC_URL_ENV`,
    without a trailing slash) when set, else "" (the links are relative): never the address the browser used."""
    return os.environ.get(PUBLIC_URL_ENV, "").strip().rstrip("/")


def record_link(page_path: str, vals: dict | None = None) -> str:
    """The scenario's link as a record shows it: the operator's public address (:data:`PUBLIC_URL_ENV`) when set,
    else a relative link ("/report?..."), so that a record never names the address the browser used (localhost)."""
    query = scenario.query_string(vals)
    return f"{public_base()}/{page_path}" + (f"?{query}" if query else "")


def shows_seeded_numbers(vals: dict) -> bool:
    """Whether a record may show the released numbers of its seeded runs: only for data the app synthesised (for
    other data whoever holds the seed, which the link records, regenerates the noise)."""
    return synthesised(vals)


def csv_record(frame: pd.DataFrame, first_line: str) -> bytes:
    """A CSV whose first line is a comment naming the record's kind (read it back with ``comment="#"``)."""
    return (f"# {first_line}\n# Made with DP-PCA Explorer {dc.__version__}.\n" + frame.to_csv(index=False)).encode()


def results_table(results: dict) -> pd.DataFrame:
    """One row per mechanism (display names): guarantee, noise scale and mean [95% band] of each diagnostic."""
    return experiments.results_table(results)


def budget_table(results: dict) -> pd.DataFrame | None:
    """One row per (mechanism, part) of a split budget, in the unit in which the parts add up
    (:func:`dppca_core.publishable.budget_parts`: Gaussian parts' shares of μ², pure parts' ε), each mechanism's
    shares adding up to exactly 100% with a total row; None without a split."""
    rows = []
    for mech, res in results.items():
        parts = budget_parts(res.published)
        if parts is None:
            continue
        unit = "μ²" if parts["unit"] == "mu^2" else "ε"
        for part in parts["parts"]:
            rows.append(
                {
                    "mechanism": display_name(mech),
                    "part": part["part"],
                    "share": f"{part['percent']}%",
                    "adds up in": unit,
                    "amount": number(part["amount"]),
                }
            )
        rows.append(
            {
                "mechanism": display_name(mech),
                "part": "total",
                "share": "100%",
                "adds up in": unit,
                "amount": number(parts["total"]),
            }
        )
    return pd.DataFrame(rows) if rows else None


def budget_parts(published: dict) -> dict | None:
    """A published release's budget parts in units that add up (:func:`dppca_core.publishable.budget_parts`), or
    None when its whole budget went to the subspace."""
    parts = published.get("facts", {}).get("budget")
    if not parts:
        return None
    return publishable.budget_parts(parts, published["privacy"], published["epsilon"], published["delta"])


def budget_sentences(results: dict) -> list[str]:
    """The sentence saying in which unit each mechanism's parts add up and that the total is not their sum (one per
    distinct sentence)."""
    out = []
    for res in results.values():
        parts = budget_parts(res.published)
        if parts is not None and parts["sentence"] not in out:
            out.append(parts["sentence"])
    return out


def guarantee_words(results: dict, vals: dict) -> list[str]:
    """Each mechanism's guarantee in plain words: ε and δ, the attacker's odds and its best test (from the release's
    exact privacy curve, :mod:`dppca_core.publishable`), or why it has none."""
    out = []
    for mech, res in results.items():
        name = display_name(mech)
        if res.guarantee == "retracted":
            out.append(f"{name}: RETRACTED, not private (its claimed guarantee does not hold).")
            continue
        if res.privacy.kind == "none":
            out.append(f"{name}: no privacy; the exact analysis, shown as the reference.")
            continue
        delta = f", δ = {number(vals['delta'])}" if res.privacy.kind != "pure" else ""
        odds = publishable.odds(res.privacy, vals["nb"])["sentence"]
        test = publishable.best_test(res.privacy, vals["nb"])["sentence"]
        out.append(f"{name} (ε = {number(vals['eps'])}{delta} for each release): {odds} {test}")
    return out


def published_json(releases: dict, numbers: bool = True) -> str:
    """Seeded runs' ``published()`` dicts as JSON, for an exploration record. ``releases`` maps a mechanism to a
    ``published()`` dict (or a result holding one); ``numbers=False`` keeps the guarantee and parameters but
    leaves out the released numbers (for data that are not the app's own: the seed regenerates the noise)."""
    out = {}
    for mech, pub in releases.items():
        pub = getattr(pub, "published", pub)
        out[mech] = pub if numbers else {k: v for k, v in pub.items() if k not in RELEASED_NUMBERS}
    return json.dumps(out, indent=1, allow_nan=False)


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
    if scenario.private_k(vals) or vals["beig"] > 0:
        return None
    return (
        "With this budget split the brief will not be able to say whether the directions are worth publishing: "
        "no release gives the eigenvalues a share, so none measures the share of variance its directions capture "
        "(the brief's private scree and its verdict against directions drawn at random need it), and the brief "
        'will end with "Do not judge these directions yet". Give the eigenvalues a share before drawing, or '
        "draw anyway: the brief still shows each release's loadings, score plot and settings."
    )


def delta_notice(vals: dict, ds) -> str | None:
    """A δ above 1/n, in words, for the page (:func:`dppca_core.reading.delta_warning`); under add/remove n is
    private, so the count is a hint for the data owner (the brief says it only where n is public)."""
    found = reading.delta_warning(vals["delta"], getattr(ds, "n", None))
    if found and vals["nb"] != "replace":
        found += " (Here n is private: a hint read from the data, for you only.)"
    return found


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
    src = vals["src"]
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
    split = scenario.budget(vals, has_labels=has_labels)
    bounds = scenario.bounds(vals)
    scaling = {
        "rule": vals["scale"],
        "bounds": bounds if vals["scale"] in ("bounds", "private") and bounds else None,
        "bounds_from": scenario.SCALE_SOURCES[vals["sfrom"]][0] if vals["scale"] != "none" else None,
        "words": {
            "none": "the columns as they are (no scaling)",
            "bounds": "each column divided by its public bound",
            "private": scale_words(vals),
        }[vals["scale"]],
    }
    if scenario.private_radius(vals):
        radius = {
            "rule": "private",
            "value": None,
            "bounds": [vals["rlo"], vals["rhi"]],
            "quantile": vals["rq"],
            "share": vals["bradius"],
            "words": (
                f"chosen privately inside each release: a noisy search for the {number(vals['rq'])} quantile "
                f"of the rows' lengths between {number(vals['rlo'])} and {number(vals['rhi'])}"
            ),
        }
    else:
        radius = {
            "rule": vals["rfrom"],
            "value": vals["R"],
            "bounds": None,
            "quantile": None,
            "share": None,
            "words": f"R = {number(vals['R'])}, "
            + (
                "a public bound, set without reading the data"
                if vals["rfrom"] == "public"
                else scenario.R_SOURCES[vals["rfrom"]][0]
            ),
        }
    k = (
        {"rule": "private", "value": None, "variance_target": vals["kvar"], "words": k_rule_words_public(vals)}
        if scenario.private_k(vals)
        else {"rule": "public", "value": int(vals["k"]), "variance_target": None, "words": "a number chosen in advance"}
    )
    return {
        "epsilon": vals["eps"],
        "delta": vals["delta"],
        "neighbors": vals["nb"],
        "neighbors_words": describe_neighbors(vals["nb"]),
        "data": data_kind(vals),
        "n": int(n) if n is not None and vals["nb"] == "replace" else None,
        "mechanisms": scenario.mechanisms(vals),
        "k": k,
        "scaling": scaling,
        "centring": {"rule": vals["center"], "words": CENTRING_WORDS[vals["center"]]},
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


# -- the Report's first screen, in words ---------------------------------------------------------------------


def _names(mechs) -> str:
    names = [display_name(m) for m in mechs]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def data_words(vals: dict, ds) -> str:
    """What the data are, in words, with the true number of rows and features."""
    src = vals["src"]
    shape = f"{ds.n:,} rows × {ds.d} features"
    if src == "synthetic":
        sparse = f", the signal on {vals['sparse']} of the features" if vals["sparse"] else ""
        return (
            f"synthetic data made by the app: {shape}, {vals['rank']} planted directions of strength "
            f"{number(vals['spike'])}{sparse} (data seed {vals['dseed']})"
        )
    if src.startswith("preset:"):
        return f"synthetic data made by the app from a paper's setting: {shape} ({ds.note}; data seed {vals['dseed']})"
    if src.startswith("sample:"):
        title = dsets.SAMPLES.get(src.split(":", 1)[1], {}).get("title", ds.name)
        return f"the shipped sample {title}: {shape}"
    if src.startswith("server:"):
        return f"the server file {ds.name}: {shape}, streamed into sufficient statistics"
    return f"the uploaded file {ds.name}: {shape}"


def settings_in_words(vals: dict, ds, prep) -> pd.DataFrame:
    """Only the settings that apply to these data, in words (the true n and d; no setting of another page)."""
    mechs = scenario.mechanisms(vals)
    rows = [("Data", data_words(vals, ds))]
    if vals["scale"] == "bounds":
        rows.append(
            ("Scaling", "each column divided by a bound on its values: " + scenario.SCALE_SOURCES[vals["sfrom"]][0])
        )
    elif scenario.private_scaling(vals):
        rows.append(
            (
                "Scaling",
                f"{scale_words(vals)}; the bounds: {scenario.SCALE_SOURCES[vals['sfrom']][0]} (the "
                "scales each release chose are published with it: see the scales table)",
            )
        )
    rows.append(("Centring", CENTRING_WORDS[vals["center"]]))
    rows.append(("Clipping radius", radius_words(vals, prep)))
    rows.append(("Mechanisms", _names(mechs) if mechs else "none"))
    rows.append(
        (
            "Privacy budget",
            f"ε = {number(vals['eps'])}, δ = {number(vals['delta'])} for each release; neighbouring "
            f"datasets {describe_neighbors(vals['nb'])}",
        )
    )
    split = scenario.budget(vals)
    if split is not None:
        parts = ", ".join(f"{part} {share:.0%}" for part, share in split.as_dict().items() if share > 0)
        rows.append(("Budget split", f"{parts} of each release's budget"))
    rows.append(
        (
            "Components",
            f"k chosen privately inside each release: {scenario.k_rule_words(vals)} (the k each "
            "release chose is published with it)"
            if scenario.private_k(vals)
            else f"k = {vals['k']}",
        )
    )
    if vals["s"] or ds.support is not None:
        rows.append(("Support size", f"s = {vals['s'] or len(ds.support)} rows scored for support recovery"))
    for mech in mechs:
        params = {
            k: v for k, v in scenario.mech_params(mech, vals).items() if not scenario.is_default(f"{mech}.{k}", v)
        }
        if params:
            rows.append((f"{display_name(mech)} parameters", ", ".join(f"{k} = {v}" for k, v in params.items())))
    rows.append(
        (
            "Repetitions",
            f"{vals['reps']} runs per mechanism, noise seed {vals['seed']} (seeded: to explore "
            "and reproduce, never to publish)",
        )
    )
    return pd.DataFrame(rows, columns=["setting", "value"])


def radius_words(vals: dict, prep) -> str:
    """Where R came from, in words: a public number, or chosen privately inside each release by its rule."""
    if prep.radius is None:
        return (
            f"R = {number(vals['R'])}, {scenario.R_SOURCES[vals['rfrom']][0]}; {prep.data.n_clipped:,} rows were longer "
            "and clipped (a non-private count)"
        )
    low, high = prep.radius.bounds
    return (
        f"chosen privately inside each release with {vals['bradius']:.0%} of its budget: a noisy search for the "
        f"{number(prep.radius.quantile)} quantile of the rows' norms between {number(low)} and {number(high)} (the R each release "
        "chose is published with it: see the radius table)"
    )


def scale_words(vals: dict) -> str:
    """A private column scaling in words."""
    return (
        f"each column divided by a private root-mean-square chosen inside each release with {vals['bscale']:.0%} "
        "of its budget, from public bounds on the columns"
    )


def k_table(results: dict, vals: dict) -> pd.DataFrame | None:
    """The k each mechanism's releases chose privately (a published output of each release) and the rule; None when
    k was public."""
    rows = [
        {
            "mechanism": display_name(mech),
            "k of the first release": int(res.k[0]),
            "k chosen over repetitions": experiments.describe_k(res.k),
            "rule": scenario.k_rule_words(vals),
        }
        for mech, res in results.items()
        if res.k is not None
    ]
    return pd.DataFrame(rows) if rows else None


def scales_table(results: dict, columns: list) -> pd.DataFrame | None:
    """The column scales each mechanism's releases chose privately (a published output of each release): per column,
    the first release's and the mean and 95% range over the repetitions. None when no release scaled privately."""
    frame = {"column": [str(c) for c in columns]}
    for mech, res in results.items():
        if res.scales is None:
            continue
        name = display_name(mech)
        frame[f"{name}: first release"] = [number(v) for v in res.scales[0]]
        frame[f"{name}: mean [95% of repetitions]"] = [
            "{:.4g} [{:.4g}, {:.4g}]".format(*experiments.summary(column)) for column in res.scales.T
        ]
    return pd.DataFrame(frame) if len(frame) > 1 else None


def radius_table(results: dict) -> pd.DataFrame | None:
    """The clipping radius each mechanism's releases chose privately (a published output of each release): the first
    repetition's and the mean and 95% range over the repetitions. None when R was public."""
    rows = []
    for mech, res in results.items():
        if res.radius is None:
            continue
        mean, lo, hi = experiments.summary(res.radius)
        rows.append(
            {
                "mechanism": display_name(mech),
                "R of the first release": number(res.radius[0]),
                "mean R over repetitions": number(mean),
                "95% of repetitions": f"{number(lo)} to {number(hi)}",
            }
        )
    return pd.DataFrame(rows) if rows else None


def without_single_runs(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (:func:`radius_table`, :func:`scales_table`, :func:`k_table`) without the columns holding one seeded
    run's released value: for a record of data the app did not make, which keeps the summaries over repetitions."""
    return table[[c for c in table.columns if "first release" not in c]]


def privacy_statement(vals: dict) -> str:
    """Whether every data-dependent choice before the release is private, in one sentence (or which are not)."""
    choices = scenario.nonprivate_choices(vals)
    if not choices:
        made = [
            "the clipping radius R " + ("chosen privately" if scenario.private_radius(vals) else "from a public bound")
        ]
        made.append({"none": "no centring", "private": "a private mean"}.get(vals["center"], vals["center"]))
        if vals["scale"] == "bounds":
            made.append("scaling by public bounds")
        elif scenario.private_scaling(vals):
            made.append(f"each column scaled privately ({vals['bscale']:.0%} of the budget)")
        if scenario.private_k(vals):
            made.append(
                f"k chosen privately from the eigenvalue share (explained-variance target {number(vals['kvar'])})"
            )
        return (
            "Every choice that depends on the data is private (" + ", ".join(made) + "): each release states "
            "its full guarantee."
        )
    return (
        "Not every choice that depends on the data is private, so a release states no guarantee. Not private: "
        + "; ".join(choices)
        + "."
    )


def _percent(x: float) -> str:
    return f"{x:.0f}%" if x >= 10 else f"{number(x, 2)}%"


#: more than this share of the rows clipped at a public R: the diagnostics' reference is the PCA of distorted rows
MOST_CLIPPED = 0.5


def clipping_words(vals: dict, prep) -> str | None:
    """Why the diagnostics mislead when most rows are clipped at a public R (None otherwise): the reference they are
    scored against is the exact PCA of the clipped rows, so "captured energy 99.9%" can sit beside a spectrum the
    clipping flattened. A count read from the data: not private, for the data owner."""
    if getattr(prep, "radius", None) is not None:  # R chosen privately: each release clips at its own R
        return None
    n, clipped = prep.data.n, prep.data.n_clipped
    if not n or clipped <= MOST_CLIPPED * n:
        return None
    return (
        f"{clipped:,} of {n:,} rows ({100 * clipped / n:.0f}%) are longer than R = {number(vals['R'])} and clipped: every "
        "number here compares the releases with the exact PCA of the clipped rows, whose spectrum the clipping "
        "distorts, so a high captured energy says little about the data's own directions. Set R from a public "
        "bound on the rows' length (Data page). A count read from the data: not private."
    )


def summary_sentences(vals: dict, ds, results: dict, random_level: float, prep=None) -> list[str]:
    """A summary for a non-technical reader: what was compared, at which ε, what privacy costs (after the clipping
    warning when most rows are clipped: ``prep``, :func:`clipping_words`), what ε means for one person (from the
    first mechanism with a guarantee)."""
    kept = (
        "letting each release choose k privately (the smallest k whose private explained-variance ratios sum "
        f"above {number(vals['kvar'])})"
        if scenario.private_k(vals)
        else f"keeping k = {vals['k']} components"
    )
    out = [
        f"We compared {_names(results)} on {data_words(vals, ds)}, at a privacy budget of ε = {number(vals['eps'])} "
        f"(δ = {number(vals['delta'])}) for each release, {kept}."
    ]
    clipping = None if prep is None else clipping_words(vals, prep)
    if clipping:
        out.append(clipping)
    for mech, res in results.items():
        spec = get_mechanism(mech)
        if spec.guarantee == "none":
            out.append(f"{display_name(mech)} is the exact analysis without privacy, shown as the reference.")
            continue
        energy = experiments.summary(res.energy)
        distance = experiments.summary(res.distance)[0]
        cost = (
            f"What privacy costs with {display_name(mech)}: its private result keeps {_percent(energy[0])} of the "
            f"variance the exact, non-private analysis captures (95% of runs between {_percent(energy[1])} and "
            f"{_percent(energy[2])})"
        )
        if distance >= 0.95 * random_level:
            cost += "; its directions are no better than random ones here: at this ε the noise hides the pattern."
        elif distance <= 0.1 * random_level:
            cost += "; its directions are close to the exact ones."
        else:
            cost += "."
        if spec.guarantee == "retracted":
            cost += " Its privacy claim was retracted: it is NOT private, whatever its accuracy."
        out.append(cost)
    curves = {m: r.privacy for m, r in results.items() if r.privacy.kind != "none"}
    if curves:
        mech, curve = next(iter(curves.items()))
        sentences = risk.risk_summary(curve, neighbors=vals["nb"])["sentences"]
        person = [s for s in sentences if "10% sure" in s] or sentences[-1:]
        out.append(
            f"What ε = {number(vals['eps'])} means for one person ({display_name(mech)}): {sentences[0]} "
            + " ".join(person)
        )
    out.append(privacy_statement(vals))
    return out


# -- the HTML record -----------------------------------------------------------------------------------------


def _runs_block(vals: dict, results: dict) -> str:
    if not results:
        return ""
    public = synthesised(vals)
    what = (
        "first repetition of each mechanism, seeded: nothing here is private, the data are the app's own"
        if public
        else "guarantees and parameters only: these runs use the noise seed in the link, so their "
        "numbers are left out (anyone with the seed could regenerate the noise)"
    )
    return (
        f"<details><summary>The runs shown ({what}). Not releases: a release to publish is drawn with "
        f"fresh randomness on the Report page.</summary>"
        f"<pre>{html.escape(published_json(results, numbers=public))}</pre></details>"
    )


def build_html(
    vals: dict,
    link: str,
    results: dict,
    figures: list,
    tables: dict,
    data_note: str,
    risk_sentences: dict | None = None,
    summary: list | None = None,
    budget_words: list | None = None,
) -> str:
    """The Report as a self-contained exploration record (plotly.js embedded once, so the file opens offline).

    Its ``<title>`` and first visible line say which kind of export it is (:func:`record_line`). The runs
    behind it use the scenario's noise seed, which the link records: their released numbers are included only
    for data the app synthesised.
    """
    parts = []
    for i, fig in enumerate(figures):
        parts.append(
            fig.to_html(
                full_html=False,
                include_plotlyjs=True if i == 0 else False,
                config={"displaylogo": False, "toImageButtonOptions": {"format": "png"}},
            )
        )
    guarantees = "".join(
        f"<li><b>{html.escape(display_name(m))}</b>: {html.escape(r.guarantee_text)}"
        + (" <span class='bad'>RETRACTED — not private</span>" if r.guarantee == "retracted" else "")
        + "</li>"
        for m, r in results.items()
    )
    said = {"How the budget is split": "".join(f"<p class='note'>{html.escape(x)}</p>" for x in budget_words or [])}
    table_html = "".join(
        f"<h2>{html.escape(name)}</h2>{df.to_html(index=False, border=0, classes='t', escape=True)}"
        + said.get(name, "")
        for name, df in tables.items()
    )
    risk_html = "".join(
        f"<li><b>{html.escape(display_name(m))}</b><ul>"
        + "".join(f"<li>{html.escape(x)}</li>" for x in sentences)
        + "</ul></li>"
        for m, sentences in (risk_sentences or {}).items()
    )
    risk_block = f"<h2>What the guarantee means for one person</h2><ul>{risk_html}</ul>" if risk_html else ""
    summary_block = (
        "<h2>Summary</h2><ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in summary) + "</ul>" if summary else ""
    )
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    safe_link = html.escape(link, quote=True)
    first = html.escape(record_line(vals))
    kind = "exploration record of synthetic data" if synthesised(vals) else "exploration record (not a release)"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>DP-PCA Explorer: {kind}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:1100px;margin:2rem auto;padding:0 1rem;color:#222}}
table.t{{border-collapse:collapse;margin:.5rem 0}} table.t td,table.t th{{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:left}}
.bad{{background:#c62828;color:#fff;padding:0 .4rem;border-radius:4px}} .note{{color:#555;font-size:.9rem}}
.record{{border:2px solid #8a6d00;background:#fff8e1;padding:.6rem .8rem;font-weight:600}}
.link{{overflow-wrap:anywhere;word-break:break-all}} pre{{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8rem}}</style></head>
<body><p class="record">{first}</p>
<h1>DP-PCA Explorer: exploration record</h1>
<p class="note">Generated {stamp} by DP-PCA Explorer {dc.__version__}. Data: {html.escape(data_note)}</p>
{summary_block}
<h2>Guarantees of the mechanisms compared</h2><ul>{guarantees}</ul>
{risk_block}
{_runs_block(vals, results)}
<p class="note">The metrics and figures below are diagnostics computed with the raw data as reference (the exact,
non-private PCA of the clipped data): <b>not private, for exploration</b>.</p>
{table_html}
<h2>Figures</h2>{''.join(parts)}
<p class="note">The scenario's link (every setting that differs from the defaults, seeds included; an uploaded
file is not part of it): <a class="link" href="{safe_link}">{html.escape(link)}</a></p>
</body></html>"""


# -- the record, built when it is downloaded ------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """What the Report page computed for its exploration record: the record's HTML and slides are built from it
    when their buttons are pressed (:func:`record_html`, :func:`record_deck`), never on a rerun."""

    vals: dict
    ds: object
    prep: object
    results: dict
    k: int
    main: object  # the quantile dotplot the page shows
    loadings: object  # the page's loadings figure (seeded runs beside the exact PCA)
    budget_fig: object  # the budget bar, or None
    curves: dict  # {mechanism: privacy curve}
    last_sweep: dict | None
    link: str
    summary: list
    settings: pd.DataFrame
    table: pd.DataFrame
    shares: pd.DataFrame | None
    tables: dict
    risk_sentences: dict
    budget_words: list
    audit: object = None  # the last audit run on the Audit page in this session (synthetic neighbours), or None


def record_figures(record: Record) -> tuple[list, list, object, list]:
    """(every figure of the HTML record, the further figures of the slides, the posterior figure, extra summary
    lines). For data the app did not make the loadings show the exact PCA alone and the private score plot is left
    out: a seeded run's released numbers stay out of the record (:func:`shows_seeded_numbers`)."""
    from dppca_core import figures
    from dppca_core.figures import risk as risk_figures

    from . import compute, views

    vals, prep, k = record.vals, record.prep, record.k
    seeded = shows_seeded_numbers(vals)
    loadings = record.loadings
    if not seeded:
        loadings = figures.loadings_compare(prep.reference[:, :k], {}, record.ds.columns)
        loadings.update_layout(title=EXACT_LOADINGS)
    more = [loadings, figures.scree(prep.eigenvalues, k)] + ([record.budget_fig] if record.budget_fig else [])
    curves = record.curves
    risk_figs = [risk_figures.tradeoff_figure(curves), risk_figures.posterior_figure(curves)] if curves else []
    extra = []
    plot = views.score_plot(record.ds, prep, record.results) if seeded else None
    if plot is not None:  # the private score plot (by group when asked), beside the exact one
        more.append(plot[0])
        extra.append(plot[1])
    audited = audit_record(record.audit)
    if audited is not None:  # the audit runs on the app's own neighbouring datasets: its numbers are no one's data
        more.append(audited[0])
        extra.append(audited[1])
    last = record.last_sweep
    if last is not None:
        more.append(
            figures.sweep(
                last["frame"],
                last["axis"],
                last["metric"],
                compute.METRICS[last["metric"]],
                y_title=experiments.METRICS[last["metric"]].symbol,
            )
        )
    return [record.main, *more[:2], *risk_figs, *more[2:]], more, (risk_figs[1] if risk_figs else None), extra


def audit_record(result) -> tuple | None:
    """(the curve of the last audit, its reading with the mechanism named) for a record, or None."""
    from . import audit_curve

    drawn = (
        None
        if result is None
        else audit_curve.figure(
            result, title=f"Audit of {display_name(result.mechanism)}: the attack's whole trade-off against the claim"
        )
    )
    if drawn is None:
        return None
    return drawn[0], f"Audit of {display_name(result.mechanism)}: {drawn[1]}"


#: the title of a record's loadings figure when the seeded runs' components are left out
EXACT_LOADINGS = "Loadings of component 1: exact PCA only (seeded runs left out)"


def record_html(record: Record) -> str:
    """The Report's HTML record (:func:`build_html`) of ``record``."""
    figs, _, _, extra = record_figures(record)
    return build_html(
        record.vals,
        record.link,
        record.results,
        figs,
        record.tables,
        record.ds.note,
        record.risk_sentences,
        record.summary + extra,
        record.budget_words,
    )


def record_deck(record: Record) -> str:
    """The Report's slides (:func:`dppca_core.handout.slides.report_slides`) of ``record``: an exploration record like the HTML."""
    from dppca_core.handout import slides

    _, more, posterior, extra = record_figures(record)
    results = record.results
    return slides.build_deck(
        "DP-PCA Explorer: " + ", ".join(display_name(m) for m in results),
        record_line(record.vals),
        slides.report_slides(
            results,
            record.summary + extra,
            record.settings,
            record.main,
            record.table,
            record.shares,
            record.risk_sentences,
            posterior,
            more,
            guarantee_words(results, record.vals),
            record.budget_words,
        ),
        record.link,
        data_words(record.vals, record.ds),
    )


# -- the Python script ---------------------------------------------------------------------------------------


def load_lines(vals: dict, upload: dict | None = None, path: str | None = None) -> list[str]:
    """The lines that read or make the data (``X``, ``labels``, ``support``). ``path``: the Python expression of the
    data file's path (default: the script's first argument)."""
    src = vals["src"]
    if src == "synthetic":
        sparse = vals["sparse"] or None
        return [
            f"syn = datasets.spiked_covariance(n={vals['n']}, d={vals['d']}, k={vals['rank']}, "
            f"spike={vals['spike']!r}, sparsity={sparse!r}, seed={vals['dseed']})",
            "X = syn.X",
            "support = syn.support if len(syn.support) < X.shape[1] else None  # planted support, when sparse",
        ]
    if src.startswith("preset:"):
        name = src.split(":", 1)[1]
        return [
            f"preset = datasets.PRESETS[{name!r}]",
            f"syn = preset.make(**preset.defaults, seed={vals['dseed']})",
            "X = syn.X",
            "support = syn.support if len(syn.support) < X.shape[1] else None  # planted support, when sparse",
        ]
    if src.startswith("sample:"):
        return [
            f"table = datasets.load_sample({src.split(':', 1)[1]!r})",
            "X, labels = table.X, table.labels",
            "support = None",
        ]
    if src.startswith("server:"):
        path = path or f"sys.argv[1] if len(sys.argv) > 1 else {src.split(':', 1)[1]!r}"
        return [
            "# the file read on the server, streamed into sufficient statistics (pass its path)",
            f"X = dc.sufficient_stats({path}, "
            f"columns={scenario.declared_columns(vals)!r}, data_norm={vals['R']!r}, on_bad='replace', "
            f"fill={scenario.fill_values(vals) or None!r})",
            "support = None",
        ]
    upload = upload or {}
    columns = list(upload.get("columns") or ()) or None
    return [
        "# the uploaded table is not part of the link: "
        + ("pass its path as the first argument" if path is None else "set its path above"),
        f"table = datasets.load_table({path or 'sys.argv[1]'}, columns={columns!r}, "
        f"label={upload.get('label') or None!r}, on_bad={upload.get('on_bad', 'error')!r}, "
        f"fill={upload.get('fill') or None!r})",
        "X, labels = table.X, table.labels",
        "support = None",
    ]


def reads_a_file(vals: dict) -> bool:
    """Whether the scenario's data come from a file the script or notebook must be given (an upload, a server file)."""
    return vals["src"] == "upload" or vals["src"].startswith("server:")


#: how a downloaded script or notebook says, in one line, that dppca_core is missing and how to install it
IMPORT_LINES = (
    """try:
    import dppca_core as dc
    from dppca_core.data import datasets
    from dppca_core.pipeline import experiments{more}
except ImportError as exc:  # not installed for this Python: say how, in one line
    sys.exit(f"{{exc}}: install the DP-PCA Explorer project first: {{sys.executable}} -m pip install -e <the project's "
             "folder> (the folder holding pyproject.toml), then run this {what} again.")
MADE_WITH = "%s"  # the DP-PCA Explorer version that wrote this record (another may draw other numbers from a seed)
if dc.__version__ != MADE_WITH:
    print(f"Written by DP-PCA Explorer {{MADE_WITH}}; this Python has {{dc.__version__}}: numbers may differ.")"""
    % dc.__version__
)


def split_code(split) -> str:
    """A budget split as Python, its subspace share and every other share above 0 (None: the whole budget goes to the
    subspace)."""
    if split is None:
        return "None"
    shares = {part: share for part, share in split.as_dict().items() if share > 0 or part == "subspace"}
    return "dc.BudgetSplit(" + ", ".join(f"{part}={share!r}" for part, share in shares.items()) + ")"


#: what stands for the data's label column in the options a script or notebook states (the code names its own)
LABEL_COLUMN = "labels"
#: the options a script always states, default or not (what a reader looks for first)
STATED_OPTIONS = ("k", "epsilon", "delta", "neighbors", "data_norm", "center")


def options_code(options, indent: int = 4) -> str:
    """One release's options as Python: ``dc.ReleaseOptions(...)`` with :data:`STATED_OPTIONS` (and a private
    radius's bounds and quantile) and every option that differs from its default, the score plot's groups being the code's own label column (a name, not a value),
    wrapped to lines of at most about 110 characters."""
    parts = []
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        stated = f.name in STATED_OPTIONS or (options.private_radius and f.name.startswith("radius_"))
        if stated or value != default:
            code = (
                LABEL_COLUMN if f.name == "score_groups" else split_code(value) if f.name == "budget" else repr(value)
            )
            parts.append(f"{f.name}={code}")
    lines, line = [], "dc.ReleaseOptions("
    for part in parts:
        if len(line) + len(part) > 110 and not line.endswith("("):
            lines.append(line.rstrip())
            line = " " * (indent + 4)
        line += part + ", "
    return "\n".join([*lines, line.rstrip(", ") + ")"])


def options_lines(vals: dict, has_labels: bool, name: str = "OPTIONS") -> list[str]:
    """``OPTIONS = {mechanism: dc.ReleaseOptions(...)}``: the scenario's releases as the pages run them (the one
    translation, :func:`dppca_core.scenario.release.scenario_options`), the score plot's groups from the code's label
    column when the data have one (``has_labels``)."""
    options = translation.scenario_options(vals, LABEL_COLUMN if has_labels else None)
    return [
        "# every option of each mechanism's releases, as the page runs them (dppca_core.scenario.release)",
        f"{name} = {{",
        *(f"    {mech!r}: {options_code(opts, 4)}," for mech, opts in options.items()),
        "}",
    ]


def prepare_lines(vals: dict, has_labels: bool) -> list[str]:
    """The lines that state each release's options (``OPTIONS``, :func:`options_lines`) and build the mechanisms'
    input from them (``inp``), as the pages do: column scaling, centring, clipping radius."""
    first = translation.mechanisms(vals)[0]
    return [
        *options_lines(vals, has_labels),
        f"# the page's path: column scaling ({vals['scale']}), centring ({vals['center']}), clipping radius R "
        f"({vals['rfrom']}), the same for every mechanism",
        f"inp = experiments.input_for(X, OPTIONS[{first!r}])",
    ]


def compare_lines(vals: dict) -> list[str]:
    """The lines that run the Report's seeded repetitions and make its table (``table``, ``runs``)."""
    return [
        f"table, runs = experiments.compare(inp, OPTIONS, reps={vals['reps']}, seed={vals['seed']}, support=support, "
        f"s={vals['s']})",
    ]


def build_script(vals: dict, upload: dict | None = None, *, has_labels: bool) -> str:
    """A Python script that prints the Report's results table for this scenario (same seeds, same numbers).

    It states each mechanism's options as the page translates them (:func:`options_lines`) and runs the library path
    the page runs (:func:`dppca_core.pipeline.experiments.input_for` then
    :func:`dppca_core.pipeline.experiments.compare`). It needs only the installed ``dppca_core`` package
    (``pip install -e`` the project) and runs from any folder; without the package it stops with one line saying how
    to install it. ``upload``: the uploaded file's column choice (columns, label, what to do with bad cells), so the
    script reads the same table; ``has_labels``: whether the page's data have a label column (a score plot by group
    uses it), so the script asks each release what the page asks.
    """
    body = "\n".join(
        [
            "labels = None  # the label column, where the data have one (a score plot by group uses it)",
            *load_lines(vals, upload),
            *prepare_lines(vals, has_labels),
            *compare_lines(vals),
            "print(table.to_string(index=False))",
        ]
    )
    return f'''"""{record_line(vals)}

Reproduces a DP-PCA Explorer exploration: prints the Report's table (generated by DP-PCA Explorer {dc.__version__}).
Needs the dppca_core package: install the DP-PCA Explorer project once (pip install -e <its folder>, with
the Python that runs this script); then it runs from any folder.
Scenario: ?{scenario.query_string(vals)}
"""
import sys

{IMPORT_LINES.format(more="", what="script")}

{body}
'''
