"""The colours of the mechanisms' families stay distinguishable under the common colour-vision deficiencies, stand
out on white, and the members of a family are told apart by their marks.

Charts colour a mechanism by its family (the registry's ``family_name``) and mark the member with its own marker,
bar pattern or dash (dppca_core/figures/base.py). The checks compare the families and members registered now: no
table lists a mechanism's colour, so a new mechanism or family is checked without editing this file.

Each colour is simulated as a dichromat sees it with the matrices of Machado, Oliveira & Fernandes (2009, IEEE TVCG
15(6), Table 1, severity 1.0, applied in linear sRGB), then compared in CIELAB (D65). ΔE*ab of about 2.3 is the
just-noticeable difference; we ask for 15 between any two families of a task (the ones one chart can show together),
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


def families(task: str) -> dict[str, list[str]]:
    """{family: its members} of the mechanisms registered for ``task`` now, in registration order."""
    out: dict[str, list[str]] = {}
    for name in dc.mechanism_names(task):
        out.setdefault(dc.get_mechanism(name).family_name, []).append(name)
    return out


def family_colours(task: str) -> dict[str, str]:
    """{family: its colour}, after checking that every member of a family is drawn in the family's one colour."""
    out = {}
    for family, members in families(task).items():
        colours = {figures.mechanism_color(m) for m in members}
        assert len(colours) == 1, f"{family}: its members are drawn in {colours}"
        out[family] = colours.pop()
    return out


def contrast_on_white(hex_colour: str) -> float:
    """The WCAG 2.1 contrast ratio of a colour against white (1 to 21)."""
    luminance = np.array([0.2126, 0.7152, 0.0722]) @ linear_rgb(hex_colour)
    return 1.05 / (luminance + 0.05)


@pytest.mark.parametrize("task", ["pca", "tensor"])
@pytest.mark.parametrize("vision", list(CVD))
def test_family_colours_stay_apart(task, vision):
    """Whatever families are registered (none listed here): any two of a task stay ΔE 15 apart for everyone."""
    colours = family_colours(task)
    assert len(set(colours.values())) == len(colours), f"two {task} families share a colour: {colours}"
    seen = {f: lab(CVD[vision] @ linear_rgb(c)) for f, c in colours.items()}
    pairs = [(np.linalg.norm(seen[a] - seen[b]), a, b) for a, b in itertools.combinations(seen, 2)]
    if pairs:
        closest = min(pairs)
        assert closest[0] >= MIN_DELTA_E, f"{vision}: {closest[1]} and {closest[2]} are ΔE {closest[0]:.1f} apart"


@pytest.mark.parametrize("task", ["pca", "tensor"])
def test_family_colours_stand_out_on_white(task):
    """WCAG 2.1 success criterion 1.4.11 (non-text contrast): a line or bar needs 3:1 against the white plot."""
    low = {f: round(contrast_on_white(c), 2) for f, c in family_colours(task).items() if contrast_on_white(c) < 3.0}
    assert not low, f"below 3:1 on white: {low}"


@pytest.mark.parametrize("task", ["pca", "tensor"])
def test_the_members_of_a_family_are_told_apart(task):
    """Within a family every member has its own marker, bar pattern and line dash (none reused)."""
    for family, members in families(task).items():
        for mark in (figures.mechanism_symbol, figures.mechanism_pattern, figures.mechanism_dash):
            marks = [mark(m) for m in members]
            assert len(set(marks)) == len(marks), f"{family}: {mark.__name__} repeats in {dict(zip(members, marks))}"


def test_the_palette_itself_is_told_apart_and_ordered_by_contrast():
    """Any two palette colours are ΔE 15.8 apart under every vision (so any subset of families is), and those below
    3:1 on white come last, after every one above (the families take them in order)."""
    for vision, matrix in CVD.items():
        seen = [lab(matrix @ linear_rgb(c)) for c in figures.PALETTE]
        closest = min(np.linalg.norm(a - b) for a, b in itertools.combinations(seen, 2))
        assert closest >= 15.8, f"{vision}: {closest:.1f}"
    enough = [contrast_on_white(c) >= 3.0 for c in figures.PALETTE]
    assert enough == sorted(enough, reverse=True) and sum(enough) >= 14


def test_a_new_family_takes_the_next_colour_and_a_new_member_the_next_mark():
    """Registering needs no colour: a mechanism of a new family gets the first colour its task's families leave, one
    joining a family gets that family's colour and its next marker; the others keep theirs."""
    import dataclasses

    from dppca_core import registry

    before = {name: (figures.mechanism_color(name), figures.mechanism_symbol(name)) for name in dc.mechanism_names()}
    base = dc.get_mechanism("otd_agn")
    registry.register(dataclasses.replace(base, name="otd_new_family", family="a family of its own"))
    registry.register(dataclasses.replace(base, name="otd_new_member"))
    try:
        used = set(family_colours("tensor").values()) - {figures.mechanism_color("otd_new_family")}
        assert figures.mechanism_color("otd_new_family") == next(c for c in figures.PALETTE if c not in used)
        kin = [m for m in dc.mechanism_names("tensor") if dc.get_mechanism(m).family_name == base.family_name]
        assert figures.mechanism_color("otd_new_member") == figures.mechanism_color("otd_agn")
        assert figures.mechanism_symbol("otd_new_member") == figures.SYMBOLS[len(kin) - 1]
        assert {n: (figures.mechanism_color(n), figures.mechanism_symbol(n)) for n in before} == before
    finally:
        registry.unregister("otd_new_family")
        registry.unregister("otd_new_member")
