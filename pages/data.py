"""Data: choose, synthesize or upload a dataset, choose a public clipping radius and the centring, look at it."""

import numpy as np
import pandas as pd
import streamlit as st

from dppca_core import figures
from dppca_core.pipeline.choices import choose_k
from ui import column_bounds, compute, data, data_warnings, scenario, server_files, session, show
from ui import table_hints, table_schema
from ui.errors import boundary
from ui.shell import ensure_navigation
from ui.text import NUMBER_FORMAT, literal, md_escape
from dppca_core.reading import number

ensure_navigation()

scn = scenario.values()
s = scenario.Settings(scn)
presenting = show.heading("Data")
#: in presenter mode the scree and the loadings go here, under the bar, on the first screen; else after the controls
figures_slot = st.container() if presenting else st

KINDS = {
    "synthetic": "Synthesize",
    "preset": "Paper setting",
    "sample": "Shipped dataset",
    "upload": "Upload CSV / Parquet",
    "server": "File on the server (streamed)",
}
CENTRING = {
    "none": "none (private)",
    "private": "private mean (from the budget)",
    "empirical": "empirical mean (NOT private)",
}


def _kind() -> str:
    return s.source.split(":", 1)[0]


def _set_kind():
    kind = st.session_state["w:srckind"]
    if kind in ("synthetic", "upload"):
        scenario.set_value("src", kind)
    elif kind == "server":
        got = st.session_state.get(session.STREAM_KEY)
        scenario.set_value("src", "server:" + (got["relative"] if got else "?"))
    elif kind == "preset" and data.presets():
        scenario.set_value("src", "preset:" + next(iter(data.presets())))
    elif kind == "sample" and data.samples():
        scenario.set_value("src", "sample:" + next(iter(data.samples())))


def _choice(label: str, prefix: str, names: list, fmt=str):
    current = s.source.split(":", 1)[1] if ":" in s.source else names[0]
    key = f"w:{prefix}name"
    st.session_state[key] = current if current in names else names[0]

    def _copy():
        scenario.set_value("src", f"{prefix}:{st.session_state[key]}")

    st.selectbox(label, names, key=key, on_change=_copy, format_func=fmt)
    if s.source != f"{prefix}:{st.session_state[key]}":
        scenario.set_value("src", f"{prefix}:{st.session_state[key]}")


def _source_controls():
    st.session_state["w:srckind"] = _kind()
    options = [
        k
        for k in KINDS
        if (k != "preset" or data.presets())
        and (k != "sample" or data.samples())
        and (k != "server" or server_files.root() is not None or _kind() == "server")
    ]
    st.segmented_control("Source", options, format_func=KINDS.get, key="w:srckind", on_change=_set_kind, required=True)
    kind = _kind()
    if kind == "synthetic":
        c = st.columns(6)
        c[0].number_input(
            "rows n",
            10,
            200_000,
            step=100,
            **scenario.bind("n"),
            help=f"n × d is capped at {scenario.MAX_CELLS:,} cells on this server.",
        )
        c[1].number_input("features d", 2, 500, step=1, **scenario.bind("d"))
        c[2].number_input("planted rank", 1, 50, step=1, **scenario.bind("rank"))
        c[3].number_input(
            "spike strength",
            0.0,
            1000.0,
            step=0.5,
            format=NUMBER_FORMAT,
            help="Variance of the planted directions relative to the isotropic noise (the eigengap).",
            **scenario.bind("spike"),
        )
        c[4].number_input("row sparsity s (0 = dense)", 0, 500, step=1, **scenario.bind("sparse"))
        c[5].number_input("data seed", 0, scenario.SEED_MAX, step=1, **scenario.bind("dseed"))
    elif kind == "preset":
        names = list(data.presets())
        _choice(
            "Paper setting", "preset", names, lambda n: f"{data.presets()[n].description} ({data.presets()[n].paper})"
        )
        st.number_input("data seed", 0, scenario.SEED_MAX, step=1, **scenario.bind("dseed"))
    elif kind == "sample":
        _choice("Dataset", "sample", list(data.samples()), lambda n: data.samples()[n].get("title", n))
        st.caption(
            "Small public datasets shipped with the app (sources and licences in sample_data/README.md); "
            "their labels are kept aside to show what a private projection is good for."
        )
    elif kind == "server":
        _server_controls()
    else:
        table_schema.upload_controls()


def _server_controls():
    """A file, folder or glob under the operator's data folder, streamed into sufficient statistics."""
    if server_files.root() is None:
        st.info(server_files.OFF, icon=":material/folder_off:")
        st.stop()
    _server_inputs()
    _server_read()


def _server_inputs() -> None:
    """The path, the site column and the declared columns, and the buttons that read the file or cancel a read."""
    current = s.source.split(":", 1)[1] if s.source.startswith("server:") else ""
    c = st.columns([3, 2])
    relative = c[0].text_input(
        "path in the data folder (a CSV or Parquet file, a folder, or a glob)",
        value="" if current == "?" else current,
        key="server_path",
        help="Read in chunks: memory does not grow with the number of rows. Only files "
        f"inside the data folder are served: at most {server_files.MAX_FILES:,} files "
        f"and {number(server_files.MAX_TOTAL_BYTES / 1e9)} GB per read.",
    )
    sites = c[1].text_input(
        "site column (optional)",
        key="server_sites",
        help="A column naming each row's site, for the distributed mechanisms.",
    )
    declared = scenario.declared_columns(scn)
    if "server_cols" not in st.session_state:  # seeded from the declaration; what is typed stays until read
        st.session_state["server_cols"] = ", ".join(declared or [])
    names = st.text_input(
        "columns to analyse, in order (separated by commas; empty: the numeric columns of the "
        "first 1,000 rows, read from the data)",
        key="server_cols",
        help="The columns are part of what is public about the table: declare them, and every "
        "missing or non-numeric cell becomes its column's public value (Columns below), so "
        "the number of rows and of columns never depends on one person's cells.",
    )
    b = st.columns([1, 1, 4])
    if b[0].button("Read the file", type="primary", key="server_read", icon=":material/download:"):
        _read_server_files(relative, sites, [n.strip() for n in names.split(",") if n.strip()])
    b[1].button(
        "Cancel",
        key="server_cancel",
        icon=":material/stop_circle:",
        help="Stops a read in progress (the click interrupts it); nothing is kept.",
    )


def _server_read() -> None:
    """What the last read of the path found (or how to read it), and the table's public schema."""
    got = st.session_state.get(session.STREAM_KEY)
    current = s.source.split(":", 1)[1] if s.source.startswith("server:") else ""
    if not got or got["relative"] != current:
        st.info(
            "Give a path and press **Read the file**: the rows are clipped to the radius R below while reading, "
            "so a new R means reading again. Mechanisms that read individual rows (Private Oja, DP-PCA), the "
            "projection views, the score plot and centring are not available for a streamed file."
        )
        st.stop()
    stats = got["stats"]
    diag = stats.diagnostics
    st.caption(
        f"Not private, for you only: {diag.get('rows_read', stats.n):,} rows read, "
        f"{diag.get('cells_replaced', 0):,} missing or non-numeric cell(s) replaced by their column's public "
        f"value, {stats.n_clipped:,} rows clipped."
    )
    if stats.schema is not None:
        st.caption("What is public about this table: " + md_escape(stats.schema.describe()))
        if not stats.schema.declared and scenario.declared_columns(scn) is None:
            box = st.container(border=True)
            box.markdown(
                ":material/help: **Suggested from the first 1,000 rows, not declared yet.** Explore with these "
                "columns freely; **publishing needs a schema that you declare**: check them (or name others in "
                "the box above and read the file again), then declare them."
            )
            box.button(
                "Declare these columns",
                key="declare_server_schema",
                type="primary",
                icon=":material/verified:",
                on_click=table_schema.declare,
                args=(list(stats.columns), ""),
            )
    table_schema.fill_form(list(stats.columns), "Read the file again to use new values.")


def _read_server_files(relative: str, sites: str, columns: list):
    """Read what the path names through the gate; the session keeps the statistics only once the read is complete
    (a failed or cancelled read changes nothing)."""
    found = server_files.find(relative)
    size = f"{found.total_bytes / 1e6:,.1f} MB" if found.total_bytes < 1e9 else f"{found.total_bytes / 1e9:,.2f} GB"
    bar = st.progress(0.0, text=f"reading {len(found.paths)} file(s), {size}…")

    def progress(rows: int, clipped: int) -> bool:
        bar.progress(min(0.99, rows / (rows + 1e6)), text=f"{rows:,} rows read, {clipped:,} clipped at R")
        return True

    fill = {c: v for c, v in scenario.fill_values(scn).items() if c in columns}
    try:
        stats = server_files.read(found, float(s.radius), sites.strip() or None, progress, columns or None, fill)
    finally:
        bar.empty()
    st.session_state[session.STREAM_KEY] = {"relative": found.relative, "stats": stats}
    scenario.set_value("src", "server:" + found.relative)
    if columns:  # named by the analyst: declared; suggested from the first rows, they stay a suggestion
        scenario.declare_columns(stats.columns)


def _preprocessing_controls(ds):
    c = st.columns([3, 3, 3])
    c[0].radio(
        "Centring",
        list(CENTRING),
        format_func=CENTRING.get,
        **scenario.bind("center"),
        help="Without centring, PCA finds the directions of largest second moment: when the data's mean is "
        "far from 0, the first component points at the mean. A private mean uses its own share of the "
        "budget (sidebar on Explore: Budget split). The data's own mean is not private.",
    )
    with c[1]:
        _radius_controls()
    with c[2]:
        column_bounds.popover(ds)
        if s.scaling == "bounds":
            st.caption("Columns scaled by their bounds: " + scenario.SCALE_SOURCES[s.bounds_from][0] + ".")
        elif scenario.private_scaling(scn):
            st.slider(
                "scaling share of the budget",
                0.05,
                0.3,
                step=0.05,
                format="%.2f",
                **scenario.bind("bscale"),
                help="The share of each release's (ε, δ) spent on the column scales (noisy sums of squares, "
                "one per column); the subspace gets what the other shares leave.",
            )
            st.caption(
                "Each release scales each column privately: it divides column j by a private root-mean-square "
                f"(noisy Σ min(x², bound²) over the rows) with {s.scale_share:.0%} of its budget; "
                f"the bounds: {scenario.SCALE_SOURCES[s.bounds_from][0]}. The scales chosen are part of the "
                "release: Explore and the Report show them. On a few hundred rows at ε ≈ 1 they are noisy: "
                "public bounds are then the better choice."
            )
        if s.scaling != "none":
            st.button("Turn the scaling off", key="scale_off", on_click=scenario.set_value, args=("scale", "none"))


def _radius_controls() -> None:
    """R: a public number (from a bound you know, or from the hints: not private), or chosen privately inside each
    release from its own budget share (public bounds on R, a target quantile of the row norms)."""
    st.radio(
        "R comes from",
        list(scenario.R_SOURCES),
        format_func=lambda v: scenario.R_SOURCES[v][0],
        **scenario.bind("rfrom"),
        help="Say where R came from: a release to publish states its guarantee only when R was chosen without "
        "reading these data, or privately; an R read from the hints below makes it state none.",
    )
    if not scenario.private_radius(scn):
        st.number_input(
            "public clipping radius R",
            min_value=1e-9,
            format=NUMBER_FORMAT,
            **scenario.bind("R"),
            help="Rows with norm above R are scaled down to R. Choose R from public knowledge (e.g. the "
            "possible range of each feature), not from these data.",
        )
        return
    b = st.columns(2)
    b[0].number_input(
        "smallest R",
        min_value=1e-9,
        format=NUMBER_FORMAT,
        **scenario.bind("rlo"),
        help="Public bounds on R, in the data's units (after any scaling): a wide range costs a few "
        "more noisy counts, never privacy.",
    )
    b[1].number_input("largest R", min_value=1e-9, format=NUMBER_FORMAT, **scenario.bind("rhi"))
    st.slider(
        "target quantile of the row norms",
        0.5,
        0.99,
        step=0.01,
        **scenario.bind("rq"),
        help="R lands near this quantile of the rows' norms: about (1 − quantile) of the rows are clipped.",
    )
    st.slider(
        "radius share of the budget",
        0.05,
        0.3,
        step=0.05,
        format="%.2f",
        **scenario.bind("bradius"),
        help="The share of each release's (ε, δ) spent on choosing R (a noisy binary search over the "
        "candidates); the subspace gets what the other shares leave.",
    )
    st.caption(
        f"Each release chooses R privately: a noisy binary search for the {number(s.radius_quantile)} quantile of the "
        f"rows' norms between {number(s.radius_low)} and {number(s.radius_high)}, with {s.radius_share:.0%} of its budget. "
        "The R chosen is part of the release: Explore and the Report show it."
    )


def _radius_hints(ds, prep):
    """Hints about R from the rows' norms (after any scaling): a non-private diagnostic for the analyst."""
    if not ds.has_rows or prep.radius is not None:  # a private R reads no hint
        return
    if isinstance(prep, compute.PrivatelyScaled):  # in the units R applies to: the exact scales (not private)
        rows = prep.rows / prep.scale.exact_scales(prep.rows)
    else:
        scale = data.column_scale(ds, scn)
        rows = ds.X if scale is None else ds.X / np.asarray(scale)
    norms = np.linalg.norm(rows, axis=1)
    R, clipped = float(s.radius), prep.data.n_clipped
    median = float(np.median(norms))
    hint = None
    if clipped > 0.5 * ds.n:
        st.warning(
            f"{clipped:,} of {ds.n:,} rows ({100 * clipped / ds.n:.0f}%) have a norm above R = {number(R)} and are "
            "clipped: the spectrum is distorted. A public bound on the rows' norms is larger.",
            icon=":material/content_cut:",
        )
        hint = float(column_bounds.largest_values(norms[:, None])[0])
    elif median < R / 10:
        st.warning(
            f"R = {number(R)} is far above the rows' norms (median {number(median, 3)}): after dividing by R the signal is "
            "tiny, so the noise of every mechanism dominates. Use the tightest public bound you can justify.",
            icon=":material/zoom_out_map:",
        )
        hint = float(column_bounds.largest_values(norms[:, None])[0])
    if hint is not None:
        st.button(
            f"Use R = {number(hint)}, the rows' largest norm (read from the data: NOT private)",
            key="use_hint_R",
            on_click=_use_hint,
            args=(hint,),
        )
    st.caption(
        "These hints look at the rows (not private): use them on data you may inspect, and set R from public "
        "knowledge for a real guarantee."
    )


def _use_hint(radius: float) -> None:
    scenario.set_value("R", radius)
    scenario.set_value("rfrom", "hints")


with boundary("the data source"):
    _source_controls()

with boundary("the data summary"):
    if _kind() == "upload" and not st.session_state.get(session.UPLOAD_KEY):
        st.stop()
    ds = data.load_dataset(scn)
    for name, value in table_hints.table_facts(scn, ds).items():  # the link and scenario file say the table's shape
        if scn[name] != value:
            scenario.set_value(name, value)
    if ds.has_rows and s.scaling == "none":  # as soon as the table is read, whatever R is (issue 35)
        data_warnings.units_warning(ds.columns, ds.X)
    st.subheader("Preprocessing")
    _preprocessing_controls(ds)
    prep = compute.prepare(ds, scn)
    k = int(s.k)
    st.caption(md_escape(ds.note))
    m = st.columns(5)
    m[0].metric("rows n", f"{ds.n:,}")
    m[1].metric("features d", ds.d)
    m[2].metric(
        "rows clipped at R" if prep.radius is None else "rows above the largest R",
        f"{prep.data.n_clipped:,}",
        help="Rows whose norm exceeded the public radius R (or, with R chosen privately, its upper bound) "
        "and were scaled down to it (not private).",
    )
    m[3].metric("share clipped", f"{100 * prep.data.n_clipped / ds.n:.1f}%")
    m[4].metric("labels", "yes" if ds.labels is not None else "no")
    if scenario.private_k(scn):  # what the rule would keep without noise: a non-private diagnostic
        k = choose_k(prep.eigenvalues / max(float(np.sum(prep.eigenvalues)), 1e-300), s.variance_target)
        st.caption(
            f"k is chosen privately inside each release (Explore: 'k comes from'); on the exact scree below the "
            f"same rule would keep k = {k} (read from the data without noise: not private)."
        )
    elif k >= ds.d:
        st.error(
            f"k = {k} components with only {ds.d} features: every method would look perfect (the whole space). "
            f"Choose k below {ds.d} on the Explore page.",
            icon=":material/warning:",
        )
    if ds.label_kind == "continuous":
        st.warning(
            f"The label column {literal(ds.name if ds.labels is None else '')}looks continuous (many distinct "
            "numbers): it will not be used as classes. Choose a class label, or none.",
            icon=":material/label:",
        )
    if s.centring == "empirical":
        st.error(prep.center_note, icon=":material/gpp_bad:")
    elif s.centring == "private":
        st.info(prep.center_note, icon=":material/shield:")
    _radius_hints(ds, prep)
    data_warnings.dominant_feature_warning(ds, prep)
    if s.centring == "none" and ds.has_rows:
        mean_dir = ds.X.mean(axis=0)
        if np.linalg.norm(mean_dir) > 0:
            cosine = abs(float(prep.reference[:, 0] @ mean_dir) / np.linalg.norm(mean_dir))
            if cosine > 0.9:
                st.info(
                    "The first component points almost exactly at the data's mean (uncentred data: the mean "
                    "dominates the second moment). To study the spread around the mean instead, centre with a "
                    "private mean.",
                    icon=":material/info:",
                )
    left, right = figures_slot.columns(2)
    show.cached_chart(figures.scree, (prep.eigenvalues, k), container=left, main=presenting)
    show.cached_chart(
        figures.loadings,
        (prep.reference[:, :k], ds.columns, f"Leading loadings (top {k}, non-private)"),
        container=right,
        main=presenting,
    )
    if ds.has_rows:
        with st.expander("First rows of the (raw) data"):
            st.dataframe(pd.DataFrame(ds.X[:20], columns=ds.columns), width="stretch")
    st.caption(
        "Scree plot, loadings and the hints above are computed from the data without privacy: diagnostics. "
        "The private scree and score plot are on the Explore page."
    )
