"""Data: choose or synthesize a dataset, preprocess it privately, and look at its spectrum."""
import numpy as np
import pandas as pd
import streamlit as st

from dppca_core import figures
from ui import data, scenario, show
from ui.errors import boundary
from ui.text import md_escape
from ui.shell import ensure_navigation

ensure_navigation()

st.title("Data")
scn = scenario.values()

KINDS = {"synthetic": "Synthesize", "preset": "Paper setting", "sample": "Shipped dataset", "upload": "Upload CSV / Parquet"}


def _kind() -> str:
    return scn["src"].split(":", 1)[0]


def _set_kind():
    kind = st.session_state["w:srckind"]
    if kind == "synthetic" or kind == "upload":
        scn["src"] = kind
    elif kind == "preset" and data.presets():
        scn["src"] = "preset:" + next(iter(data.presets()))
    elif kind == "sample" and data.samples():
        scn["src"] = "sample:" + next(iter(data.samples()))


def _source_controls():
    if "w:srckind" not in st.session_state:
        st.session_state["w:srckind"] = _kind()
    options = [k for k in KINDS if (k != "preset" or data.presets()) and (k != "sample" or data.samples())]
    st.segmented_control("Source", options, format_func=KINDS.get, key="w:srckind", on_change=_set_kind,
                         required=True)
    kind = _kind()
    if kind == "synthetic":
        c = st.columns(6)
        c[0].number_input("rows n", 10, 200_000, step=100, **scenario.bind("n"))
        c[1].number_input("features d", 2, 500, step=1, **scenario.bind("d"))
        c[2].number_input("planted rank", 1, 50, step=1, **scenario.bind("rank"))
        c[3].number_input("spike strength", 0.0, 1000.0, step=0.5, format="%g",
                          help="Variance of the planted directions relative to the isotropic noise (the eigengap).",
                          **scenario.bind("spike"))
        c[4].number_input("row sparsity s (0 = dense)", 0, 500, step=1, **scenario.bind("sparse"))
        c[5].number_input("data seed", 0, 2**31 - 1, step=1, **scenario.bind("dseed"))
    elif kind == "preset":
        names = list(data.presets())
        _choice("Paper setting", "preset", names,
                lambda n: f"{data.presets()[n].description} ({data.presets()[n].paper})")
        st.number_input("data seed", 0, 2**31 - 1, step=1, **scenario.bind("dseed"))
    elif kind == "sample":
        _choice("Dataset", "sample", list(data.samples()), lambda n: data.samples()[n].get("title", n))
        st.caption("Small public datasets shipped in sample_data/ (sources and licences in sample_data/README.md); "
                   "their labels are kept aside to show what a private projection is good for.")
    else:
        _upload_controls()


def _choice(label: str, prefix: str, names: list, fmt=str):
    current = scn["src"].split(":", 1)[1] if ":" in scn["src"] else names[0]
    key = f"w:{prefix}name"
    if key not in st.session_state or st.session_state[key] not in names:
        st.session_state[key] = current if current in names else names[0]

    def _copy():
        scn["src"] = f"{prefix}:{st.session_state[key]}"

    st.selectbox(label, names, key=key, on_change=_copy, format_func=fmt)
    _copy()


def _upload_controls():
    file = st.file_uploader("CSV or Parquet file (rows are people, columns are features)", type=["csv", "parquet", "pq"],
                            help="Limits: 50 MB and 20 million cells; larger files are refused with a message.")
    if file is not None:
        raw = file.getvalue()
        old = st.session_state.get(data.UPLOAD_KEY, {})
        if old.get("bytes") != raw:
            st.session_state[data.UPLOAD_KEY] = {"name": file.name, "bytes": raw, "columns": (), "label": ""}
    up = st.session_state.get(data.UPLOAD_KEY)
    if not up:
        st.info("Upload a file to analyse it. Uploaded data stay in this browser session and are not put in the URL.")
        return
    numeric, every = data.table_columns(up["name"], up["bytes"])
    label = st.selectbox("Label column (optional, not analysed)", [""] + every,
                         index=(1 + every.index(up["label"])) if up["label"] in every else 0)
    cols = st.multiselect("Columns to analyse", [c for c in numeric if c != label],
                          default=[c for c in (up["columns"] or numeric) if c != label and c in numeric])
    up["label"], up["columns"] = label, tuple(cols)


def _preprocessing_controls():
    c = st.columns([2, 1, 3])
    c[0].radio("Centring", ["none", "empirical"], horizontal=True,
               format_func={"none": "none (private)", "empirical": "empirical mean (NOT private)"}.get,
               **scenario.bind("center"))
    c[1].number_input("public clipping radius R", min_value=1e-9, format="%g", **scenario.bind("R"),
                      help="Rows with norm above R are scaled down to R. R must be chosen without looking at the data.")
    c[2].warning(
        "Rescaling by the data's own largest row norm, or centring with the data's own mean, is **not private**: "
        "the scale and the mean depend on every row. Use a public R (and no or a public centre) for a real guarantee.",
        icon=":material/privacy_tip:")


with boundary("the data source"):
    _source_controls()

st.subheader("Preprocessing")
_preprocessing_controls()

with boundary("the data summary"):
    ds = data.load_dataset(scn)
    prep = data.prepare(ds, scn)
    k = max(1, min(int(scn["k"]), ds.d))
    st.caption(md_escape(ds.note))
    m = st.columns(5)
    m[0].metric("rows n", f"{ds.n:,}")
    m[1].metric("features d", ds.d)
    m[2].metric("rows clipped at R", f"{prep.data.n_clipped:,}",
                help="Rows whose norm exceeded the public radius R and were scaled down to it.")
    m[3].metric("share clipped", f"{100 * prep.data.n_clipped / ds.n:.1f}%")
    m[4].metric("labels", "yes" if ds.labels is not None else "no")
    if not prep.center_private:
        st.error(prep.center_note, icon=":material/gpp_bad:")
    if prep.data.n_clipped > 0.5 * ds.n:
        st.warning("More than half of the rows were clipped: R is small for these data, so the spectrum is distorted.")
    left, right = st.columns(2)
    show.chart(figures.scree(prep.eigenvalues, k), container=left)
    show.chart(figures.loadings(prep.reference[:, :k], ds.columns, f"Leading loadings (top {k}, non-private)"),
               container=right)
    with st.expander("First rows of the (raw) data"):
        st.dataframe(pd.DataFrame(ds.X[:20], columns=ds.columns), width="stretch")
    st.caption("Scree plot and loadings are computed from the clipped data without privacy: they are diagnostics.")

