"""Tensor: private orthogonal tensor decomposition across sites (capeAGN against conventional, local,
non-private and random vectors) on mixtures of Gaussians and single topic models with known parameters."""

import streamlit as st

import dppca_core as dc
from dppca_core.figures import tensor as fig_tensor
from dppca_core.tensor import experiments as ex
from dppca_core.tensor import metrics as tm

from ui import scenario, show
from ui import tensor as computed
from ui.errors import boundary
from ui.shell import ensure_navigation
from dppca_core.reading import number

ensure_navigation()

TENSOR_EPS = (0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0)
TENSOR_DELTA = (1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.05)
SHOWN = ("otd_cape_agn", "otd_conventional", "otd_local", "otd_non_private", ex.RANDOM)
PRESETS = {"paper: D = 10, K = 5": (10, 5), "paper: D = 50, K = 10": (50, 10)}


def _preset(D: int, K: int) -> None:
    scenario.set_value("tD", D)
    scenario.set_value("tK", K)


show.heading(  # the bar names the page, and the ε sweep shares the first screen with it
    "Tensor decomposition: mixtures and topics across sites",
    "Latent-variable models (a **mixture of Gaussians**, a **single topic model**) can be learned from their "
    "second and third moments: whiten with M2, then split the projected third moment into orthogonal rank-one "
    "parts with the **tensor power method**. Privately, noise goes on both moments. With **capeAGN** the sites "
    "add correlated noise that cancels in the aggregate, so the result carries the noise of one pooled analysis; "
    "*conventional* sites each add their own full noise (about S times the variance), and *local* is one site "
    "alone. Error: **q_comp**, the mean distance from each recovered component to the nearest true one (0 is "
    "perfect; random vectors show the no-information level).",
)

with st.sidebar:
    st.subheader("Tensor settings")
    current = scenario.values()
    s = scenario.Settings(current)
    st.radio(
        "model",
        ("MOG", "STM"),
        horizontal=True,
        **scenario.bind("tmodel"),
        help="MOG: mixture of spherical Gaussians (σ² = 0.05, the paper's). STM: single topic model "
        "(documents of three words, each document from one topic).",
    )
    for label, (D, K) in PRESETS.items():  # one per line: side by side, the labels were cut at 1280x720
        st.button(label, on_click=_preset, args=(D, K), key=f"tensor_preset:{D}x{K}", width="stretch")
    st.number_input(
        "dimension D",
        3,
        60,
        step=1,
        **scenario.bind("tD"),
        help="Features (MOG) or vocabulary size (STM). The paper uses D = 10 and D = 50.",
    )
    st.number_input(
        "components K",
        2,
        12,
        step=1,
        **scenario.bind("tK"),
        help="Mixture components or topics (K ≤ D). The paper uses K = 5 and K = 10.",
    )
    st.number_input("sites S", 2, 20, step=1, **scenario.bind("tsites"), help="Equal sites holding disjoint samples.")
    st.number_input(
        "samples per site N_s",
        100,
        20_000,
        step=100,
        **scenario.bind("tn"),
        help="The sample-size sweep uses ¼, ½, 1, 2 and 4 times this.",
    )
    st.select_slider(
        "ε (total, both stages)",
        options=scenario.with_current(TENSOR_EPS, s.tensor_epsilon),
        format_func=number,
        **scenario.bind("teps"),
    )
    st.select_slider(
        "δ (total, both stages)",
        options=scenario.with_current(TENSOR_DELTA, s.tensor_delta),
        format_func=number,
        **scenario.bind("tdelta"),
        help="The paper uses δ = 0.01.",
    )
    st.slider(
        "share of ε and δ for M2 (whitening)",
        0.1,
        0.9,
        step=0.05,
        **scenario.bind("tsplit"),
        help="The rest goes to the third moment M3. The paper splits equally (0.5).",
    )
    st.number_input(
        "repetitions",
        2,
        20,
        step=1,
        **scenario.bind("treps"),
        help="Fresh data and noise per repetition; the bands span 95% of them.",
    )
    st.number_input(
        "seed",
        0,
        1_000_000,
        step=1,
        **scenario.bind("tseed"),
        help="Seed of the data and the noise (the model's components are fixed).",
    )
ready = False
with boundary("the tensor settings"):
    vals = computed.settings(scenario.values())
    bar = st.progress(0.0, text="running the comparison…")
    by_eps, by_n = computed.sweeps(vals, progress=lambda done, text: bar.progress(done, text=text))
    bar.empty()

    at_eps = by_eps[by_eps["epsilon"] == float(vals.epsilon)].groupby("mechanism")["q_comp"]
    cols = st.columns(len(SHOWN))
    for col, mech in zip(cols, SHOWN):
        col.metric(
            f"q_comp · {ex.LABELS[mech]}",
            f"{at_eps.mean()[mech]:.3f}",
            delta=f"± {at_eps.std()[mech]:.3f} s.d.",
            delta_color="off",
            delta_arrow="off",
            help=f"Mean over {vals.reps} repetitions at ε = {number(vals.epsilon)}, "
            f"N_s = {vals.n_per_site:,} (a diagnostic against the true model).",
        )
    st.caption(
        f"{vals.model} with D = {vals.D}, K = {vals.K}; S = {vals.sites} sites of "
        f"N_s = {vals.n_per_site:,} samples; δ = {number(vals.delta)}; {vals.split:.0%} of ε and δ to M2."
    )
    ready = True
if not ready:
    st.stop()


def _sweep(title: str, where: str, rows, axis: str, axis_title: str, marker: float, caption: str, main=False) -> None:
    """q_comp of each shown mechanism against one setting (``axis``), the chosen value marked, and what it shows."""
    st.subheader(title)
    with boundary(where):
        show.cached_chart(
            fig_tensor.qcomp_sweep,
            (computed.summary(rows, axis, SHOWN), axis, axis_title),
            dict(labels=ex.LABELS, marker=float(marker)),
            main=main,
        )
        st.caption(caption)


_sweep(
    "Error against ε",
    "the ε sweep",
    by_eps,
    "epsilon",
    "ε (total)",
    vals.epsilon,
    f"N_s = {vals.n_per_site:,} per site. Noise s.d. falls like 1/ε: capeAGN reaches the non-private error first, "
    "conventional and local need larger ε.",
    main=True,
)
_sweep(
    "Error against the sample size per site",
    "the sample-size sweep",
    by_n,
    "n_per_site",
    "samples per site N_s",
    vals.n_per_site,
    f"ε = {number(vals.epsilon)}. The sensitivities are proportional to 1/N_s, so more samples per site means less "
    "noise at the same ε.",
)

st.subheader("Recovered against true components")
with boundary("the component view"):
    model, aligned, weights = computed.components(vals)
    show.cached_chart(
        fig_tensor.components_compare,
        (model.components, aligned),
        dict(labels=ex.LABELS, feature="word" if vals.kind == "stm" else "coordinate"),
    )
    show.cached_chart(fig_tensor.weights_compare, (model.weights, weights), dict(labels=ex.LABELS))
    st.caption(
        "One data set (repetition 0) at the chosen ε; each recovered component is placed beside the true "
        "one it is matched to. "
        + (
            "Topic estimates are post-processed into distributions (negative "
            "entries set to 0, columns summing to 1), as in the paper."
            if vals.kind == "stm"
            else "Mixture means are in the data's units (rows were clipped to a public radius and scaled back) and "
            "projected onto the ball ‖a_k‖ ≤ 1 the model declares public, so a noise-swamped estimate is no "
            "farther from the truth than a random guess."
        )
    )

with st.expander("What each mechanism does, its calibration and trust assumptions"):
    with boundary("the mechanism notes"):
        for mech in SHOWN[:-1] + ("otd_agn", "otd_avn"):
            spec = dc.get_mechanism(mech)
            st.markdown(f"**{spec.title}** ({spec.paper}; guarantee: {spec.guarantee}). {spec.notes}")
        st.markdown("**Random vectors**: " + tm.random_components.__doc__.split(": ", 1)[1].replace("\n", " "))
