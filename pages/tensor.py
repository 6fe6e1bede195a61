"""Tensor: private orthogonal tensor decomposition across sites (capeAGN against conventional, local,
non-private and random vectors) on mixtures of Gaussians and single topic models with known parameters."""
import numpy as np
import pandas as pd
import streamlit as st

import dppca_core as dc
from dppca_core.figures import base as fig_base
from dppca_core.figures import tensor as fig_tensor
from dppca_core.tensor import experiments as ex
from dppca_core.tensor import metrics as tm

from ui.errors import boundary
from ui.shell import ensure_navigation

ensure_navigation()

#: Every setting of this page, in one place: kind, default, range (or options), label and help. Canonical values
#: live in st.session_state["tensor:<field>"]; each widget has the key "tensor:w:<field>" and copies its value
#: back when changed, so the values survive page switches and can be set from outside (URL, scenarios).
SETTINGS = {
    "model": {"kind": "choice", "default": "MOG", "options": ("MOG", "STM"), "label": "model",
              "help": "MOG: mixture of spherical Gaussians (σ² = 0.05, the paper's). STM: single topic model "
                      "(documents of three words, each document from one topic)."},
    "D": {"kind": "int", "default": 10, "low": 3, "high": 60, "label": "dimension D",
          "help": "Features (MOG) or vocabulary size (STM). The paper uses D = 10 and D = 50."},
    "K": {"kind": "int", "default": 5, "low": 2, "high": 12, "label": "components K",
          "help": "Mixture components or topics (K ≤ D). The paper uses K = 5 and K = 10."},
    "sites": {"kind": "int", "default": 5, "low": 2, "high": 20, "label": "sites S",
              "help": "Equal sites holding disjoint samples (the paper: S = 5)."},
    "n_per_site": {"kind": "int", "default": 1000, "low": 100, "high": 20000, "label": "samples per site N_s",
                   "help": "The sample-size sweep uses ¼, ½, 1, 2 and 4 times this."},
    "epsilon": {"kind": "float", "default": 1.0, "options": (0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0,
                                                             20.0, 50.0), "label": "ε (total, both stages)",
                "help": "Privacy budget of the whole release; the ε sweep marks it with a dotted line."},
    "delta": {"kind": "float", "default": 0.01, "options": (1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.05),
              "label": "δ (total, both stages)", "help": "The paper uses δ = 0.01."},
    "split": {"kind": "float", "default": 0.5, "low": 0.1, "high": 0.9, "step": 0.05,
              "label": "share of ε and δ for M2 (whitening)",
              "help": "The rest goes to the third moment M3. The paper splits equally (0.5)."},
    "reps": {"kind": "int", "default": 5, "low": 2, "high": 20, "label": "repetitions",
             "help": "Fresh data and noise per repetition; the bands span 95% of them."},
    "seed": {"kind": "int", "default": 0, "low": 0, "high": 1_000_000, "label": "seed",
             "help": "Seed of the data and the noise (the model's components are fixed)."},
}
PREFIX, WIDGET = "tensor:", "tensor:w:"
EPS_GRID = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)
N_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)
SHOWN = ("otd_cape_agn", "otd_conventional", "otd_local", "otd_non_private", ex.RANDOM)
PRESETS = {"paper: D = 10, K = 5": (10, 5), "paper: D = 50, K = 10": (50, 10)}


def _coerce(field: str, value):
    """A value of the field's type inside its range, or ValueError saying what is allowed."""
    spec = SETTINGS[field]
    if spec["kind"] == "choice" or "options" in spec:
        if value not in spec["options"]:
            raise ValueError(f"{spec['label']} must be one of {list(spec['options'])} (got {value!r}).")
        return value
    value = int(value) if spec["kind"] == "int" else float(value)
    if not spec["low"] <= value <= spec["high"]:
        raise ValueError(f"{spec['label']} = {value} is out of range: choose a value in "
                         f"[{spec['low']}, {spec['high']}].")
    return value


def settings() -> dict:
    """The page's current settings (canonical values, created from the defaults on first use)."""
    for field, spec in SETTINGS.items():
        st.session_state.setdefault(PREFIX + field, spec["default"])
    return {field: st.session_state[PREFIX + field] for field in SETTINGS}


def _copy_back(field: str) -> None:
    st.session_state[PREFIX + field] = st.session_state[WIDGET + field]


def widget(field: str, container=st) -> None:
    """The one widget of a field, bound to its canonical value."""
    spec = SETTINGS[field]
    key = WIDGET + field
    if key not in st.session_state:
        st.session_state[key] = st.session_state[PREFIX + field]
    common = dict(key=key, help=spec["help"], on_change=_copy_back, args=(field,))
    if spec["kind"] == "choice":
        container.radio(spec["label"], spec["options"], horizontal=True, **common)
    elif "options" in spec:
        container.select_slider(spec["label"], options=spec["options"], format_func=lambda v: f"{v:g}", **common)
    elif spec["kind"] == "int":
        container.number_input(spec["label"], min_value=spec["low"], max_value=spec["high"], step=1, **common)
    else:
        container.slider(spec["label"], spec["low"], spec["high"], step=spec.get("step", 0.05), **common)


def _preset(D: int, K: int) -> None:
    for field, value in (("D", D), ("K", K)):
        st.session_state[PREFIX + field] = value
        st.session_state[WIDGET + field] = value


@st.cache_data(max_entries=1024, show_spinner=False)
def _repetition(kind, D, K, sites, n_per_site, epsilons, delta, split, rep, seed):
    model = ex.model_for(kind, D, K)
    return ex.repetition(model, sites, n_per_site, epsilons, delta, split, rep, seed)


@st.cache_data(max_entries=64, show_spinner=False)
def _example(kind, D, K, sites, n_per_site, epsilon, delta, split, seed):
    model = ex.model_for(kind, D, K)
    return ex.example(model, sites, n_per_site, epsilon, delta, split, seed)


st.title("Tensor decomposition: mixtures and topics across sites")
st.markdown(
    "Latent-variable models (a **mixture of Gaussians**, a **single topic model**) can be learned from their "
    "second and third moments: whiten with M2, then split the projected third moment into orthogonal rank-one "
    "parts with the **tensor power method**. Privately, noise goes on both moments. With **capeAGN** the sites "
    "add correlated noise that cancels in the aggregate, so the result carries the noise of one pooled analysis; "
    "*conventional* sites each add their own full noise (about S times the variance), and *local* is one site "
    "alone. Error: **q_comp**, the mean distance from each recovered component to the nearest true one (0 is "
    "perfect; random vectors show the no-information level)."
)

with st.sidebar:
    with boundary("the controls"):
        settings()
        st.subheader("Tensor settings")
        widget("model")
        c = st.columns(2)
        for (label, (D, K)), col in zip(PRESETS.items(), c):
            col.button(label, on_click=_preset, args=(D, K), key=f"{PREFIX}preset:{D}x{K}", width="stretch")
        for field in ("D", "K", "sites", "n_per_site", "epsilon", "delta", "split", "reps", "seed"):
            widget(field)

ready = False
with boundary("the tensor settings"):
    vals = {field: _coerce(field, value) for field, value in settings().items()}
    if vals["K"] > vals["D"]:
        raise ValueError(f"K = {vals['K']} components need at least K dimensions: choose K ≤ D = {vals['D']}.")
    kind = vals["model"].lower()
    model = ex.model_for(kind, vals["D"], vals["K"])
    eps_values = tuple(sorted(set(EPS_GRID) | {float(vals["epsilon"])}))
    n_values = tuple(sorted({max(50, int(round(f * vals["n_per_site"]))) for f in N_FACTORS}))
    common = (kind, vals["D"], vals["K"], vals["sites"])
    budget = (float(vals["delta"]), float(vals["split"]))

    bar = st.progress(0.0, text="running the comparison…")
    units = [("eps", vals["n_per_site"], eps_values, r) for r in range(vals["reps"])]
    units += [("n", n, (float(vals["epsilon"]),), r) for n in n_values for r in range(vals["reps"])]
    rows = {"eps": [], "n": []}
    for i, (axis, n, epsilons, rep) in enumerate(units):
        rows[axis] += _repetition(*common, n, epsilons, *budget, rep, vals["seed"])
        bar.progress((i + 1) / len(units), text=f"repetition {rep + 1} of {vals['reps']}, N_s = {n:,}")
    bar.empty()
    by_eps, by_n = pd.DataFrame(rows["eps"]), pd.DataFrame(rows["n"])

    at_eps = by_eps[by_eps["epsilon"] == float(vals["epsilon"])].groupby("mechanism")["q_comp"]
    cols = st.columns(len(SHOWN))
    for col, mech in zip(cols, SHOWN):
        col.metric(f"q_comp · {ex.LABELS[mech]}", f"{at_eps.mean()[mech]:.3f}",
                   delta=f"± {at_eps.std()[mech]:.3f} s.d.", delta_color="off", delta_arrow="off",
                   help=f"Mean over {vals['reps']} repetitions at ε = {vals['epsilon']:g}, "
                        f"N_s = {vals['n_per_site']:,} (a diagnostic against the true model).")
    st.caption(f"{vals['model']} with D = {vals['D']}, K = {vals['K']}; S = {vals['sites']} sites of "
               f"N_s = {vals['n_per_site']:,} samples; δ = {vals['delta']:g}; {vals['split']:.0%} of ε and δ to M2.")
    ready = True
if not ready:
    st.stop()

st.subheader("Error against ε")
with boundary("the ε sweep"):
    summary = ex.summarize(by_eps, "epsilon")
    st.plotly_chart(fig_tensor.qcomp_sweep(summary[summary.mechanism.isin(SHOWN)], "epsilon", "ε (total)",
                                           labels=ex.LABELS, marker=float(vals["epsilon"])),
                    config=fig_base.PLOTLY_CONFIG, width="stretch")
    st.caption(f"N_s = {vals['n_per_site']:,} per site. Noise s.d. falls like 1/ε: capeAGN reaches the "
               "non-private error first, conventional and local need larger ε.")

st.subheader("Error against the sample size per site")
with boundary("the sample-size sweep"):
    summary = ex.summarize(by_n, "n_per_site")
    st.plotly_chart(fig_tensor.qcomp_sweep(summary[summary.mechanism.isin(SHOWN)], "n_per_site",
                                           "samples per site N_s", labels=ex.LABELS,
                                           marker=float(vals["n_per_site"])),
                    config=fig_base.PLOTLY_CONFIG, width="stretch")
    st.caption(f"ε = {vals['epsilon']:g}. The sensitivities are proportional to 1/N_s, so more samples per "
               "site means less noise at the same ε.")

st.subheader("Recovered against true components")
with boundary("the component view"):
    result = _example(*common, vals["n_per_site"], float(vals["epsilon"]), *budget, vals["seed"])
    aligned, weights = {}, {}
    for mech, res in result.items():
        match = tm.matching(res["components"], model.components)
        aligned[mech] = tm.aligned(res["components"], model.components)
        w = np.full(model.K, np.nan)
        w[match] = res["weights"]
        weights[mech] = w
    st.plotly_chart(fig_tensor.components_compare(model.components, aligned, labels=ex.LABELS,
                                                  feature="word" if kind == "stm" else "coordinate"),
                    config=fig_base.PLOTLY_CONFIG, width="stretch")
    st.plotly_chart(fig_tensor.weights_compare(model.weights, weights, labels=ex.LABELS),
                    config=fig_base.PLOTLY_CONFIG, width="stretch")
    st.caption("One data set (repetition 0) at the chosen ε; each recovered component is placed beside the true "
               "one it is matched to. " + ("Topic estimates are post-processed into distributions (negative "
               "entries set to 0, columns summing to 1), as in the paper." if kind == "stm" else
               "Mixture means are in the data's units (rows were clipped to a public radius and scaled back)."))

with st.expander("What each mechanism does, its calibration and trust assumptions"):
    with boundary("the mechanism notes"):
        for mech in SHOWN[:-1] + ("otd_agn", "otd_avn"):
            spec = dc.get_mechanism(mech)
            st.markdown(f"**{spec.title}** ({spec.paper}; guarantee: {spec.guarantee}). {spec.notes}")
        st.markdown("**Random vectors**: " + tm.random_components.__doc__.split(": ", 1)[1].replace("\n", " "))
