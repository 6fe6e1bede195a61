"""The mechanism colours stay distinguishable under the common colour-vision deficiencies.

Each colour is simulated as a dichromat sees it with the matrices of Machado, Oliveira & Fernandes (2009, IEEE TVCG
15(6), Table 1, severity 1.0, applied in linear sRGB), then compared in CIELAB (D65). ΔE*ab of about 2.3 is the
just-noticeable difference; we ask for 15 between any two mechanisms of a task (the ones one chart can show together),
enough to tell two lines apart at a glance.
"""

import itertools

import numpy as np
import pytest

import dppca_core as dc
from dppca_core import figures

#: Machado et al. (2009), severity 1.0: linear RGB -> linear RGB as seen with each deficiency
CVD = {
    "normal": np.eye(3),
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
    "tritanopia": np.array(
        [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]]
    ),
}
SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
WHITE_D65 = np.array([0.95047, 1.0, 1.08883])
MIN_DELTA_E = 15.0


def linear_rgb(hex_colour: str) -> np.ndarray:
    c = np.array([int(hex_colour.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4)]) / 255
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(linear: np.ndarray) -> np.ndarray:
    t = SRGB_TO_XYZ @ np.clip(linear, 0, 1) / WHITE_D65
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_lab_of_known_colours():
    """White is L*=100, black L*=0, and sRGB red is (53.24, 80.09, 67.20) (the standard D65 value)."""
    assert lab(linear_rgb("#ffffff")) == pytest.approx([100, 0, 0], abs=0.05)
    assert lab(linear_rgb("#000000")) == pytest.approx([0, 0, 0], abs=1e-9)
    assert lab(linear_rgb("#ff0000")) == pytest.approx([53.24, 80.09, 67.20], abs=0.1)


def test_simulation_merges_what_it_should():
    """The check can fail: red and green, distinct to normal vision, come close for a deuteranope."""
    red, green = linear_rgb("#d62728"), linear_rgb("#2ca02c")  # plotly's default red and green
    normal = np.linalg.norm(lab(red) - lab(green))
    deutan = np.linalg.norm(lab(CVD["deuteranopia"] @ red) - lab(CVD["deuteranopia"] @ green))
    assert normal > 60 and deutan < MIN_DELTA_E


@pytest.mark.parametrize("task", ["pca", "tensor"])
@pytest.mark.parametrize("vision", list(CVD))
def test_mechanism_colours_stay_apart(task, vision):
    names = dc.mechanism_names(task)
    seen = {n: lab(CVD[vision] @ linear_rgb(figures.mechanism_color(n))) for n in names}
    closest = min(((np.linalg.norm(seen[a] - seen[b]), a, b) for a, b in itertools.combinations(names, 2)))
    assert closest[0] >= MIN_DELTA_E, f"{vision}: {closest[1]} and {closest[2]} are ΔE {closest[0]:.1f} apart"


#: every mechanism's colour as it was when colours came from registration order; each now declares its own
#: (registry ``color``), and none may change: a colour is how readers find a mechanism across every chart
COLOURS = {
    "non_private": "#0072b2",
    "analyze_gauss": "#d55e00",
    "mod_sulq": "#009e73",
    "private_power": "#cc79a7",
    "dps_pca": "#e69f00",
    "cape_pca": "#56b4e9",
    "dist_conventional": "#000000",
    "dist_local": "#8700f0",
    "ldp_gaussian": "#692d0f",
    "ldp_sparse": "#4b3c5a",
    "private_oja": "#9678ff",
    "dp_pca": "#b4b469",
    "wishart_sn": "#2d2da5",
    "ppca_exponential": "#a55a2d",
    "amin_iterative": "#690f78",
    "coinpress": "#3c5a4b",
    "trace_sensitive": "#d2a5a5",
    "topk_dp_pca": "#d20fb4",
    "tail_sensitive": "#ff4b78",
    "spatial_sign": "#2d003c",
    "otd_non_private": "#d55e00",
    "otd_agn": "#009e73",
    "otd_avn": "#cc79a7",
    "otd_cape_agn": "#e69f00",
    "otd_conventional": "#56b4e9",
    "otd_local": "#000000",
}


def test_every_mechanism_keeps_its_colour():
    assert {name: figures.mechanism_color(name) for name in dc.mechanism_names()} == COLOURS
    assert all(dc.get_mechanism(name).color == colour for name, colour in COLOURS.items())  # declared, not derived


def test_a_mechanism_without_a_colour_gets_a_free_one():
    import dataclasses

    from dppca_core import registry

    spec = dataclasses.replace(dc.get_mechanism("otd_agn"), name="otd_uncoloured", color="")
    registry.register(spec)
    try:
        colour = figures.mechanism_color("otd_uncoloured")
        assert colour == figures.PALETTE[0]  # the first palette colour no tensor mechanism declares
        assert colour not in {COLOURS[m] for m in dc.mechanism_names("tensor") if m in COLOURS}
    finally:
        registry.unregister("otd_uncoloured")
