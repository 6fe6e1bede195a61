"""One number formatter for everything a person reads (issue 57): ``dppca_core.reading.number``, at most four
significant digits, a power of ten for the very small and very large, whole counts kept whole; and the sentences of
the library that said R = 2.449489742783178, ε = 1.09861, "3.09e-06 to 100" read at a glance."""

import math
import re

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dppca_core as dc
from dppca_core import risk
from dppca_core.figures.alt import figure_summary
from dppca_core.reading import number, span

SUPERSCRIPTS = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


@pytest.mark.parametrize(
    "value, shown",
    [
        (math.log(3), "1.099"),  # ln 3 from the ε dial, shown 1.09861 before
        (math.sqrt(6), "2.449"),  # R = √d after scaling by the bounds, shown 2.449489742783178 before
        (291532.4, "291,500"),  # "weighs it 291,532 times more"
        (3.0912e-6, "3.091 × 10⁻⁶"),  # the scree's smallest share, "3.09e-06" before
        (1e-6, "10⁻⁶"),
        (100.0, "100"),
        (0.1, "0.1"),
        (0.00012345, "0.0001234"),
        (2.5e10, "2.5 × 10¹⁰"),
        (9999.9, "10,000"),
        (-0.03456, "-0.03456"),
        (float("inf"), "∞"),
        (float("nan"), "n/a"),
        (None, "n/a"),
        (0.0, "0"),
        (12345, "12,345"),  # a count is whole
        (np.int64(442), "442"),
    ],
)
def test_a_number_reads_at_a_glance(value, shown):
    assert number(value) == shown


def _read(text: str) -> float:
    """The value a formatted number stands for."""
    sign, body = (-1.0, text[1:]) if text.startswith("-") else (1.0, text)
    mantissa, power = (body.split(" × 10") + [""])[:2] if " × " in body else ("1", body[2:])
    if " × " in body or re.fullmatch("10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+", body):
        return sign * float(mantissa) * 10.0 ** int(power.translate(SUPERSCRIPTS))
    return sign * float(body.replace(",", ""))


def _significant(text: str) -> int:
    """Significant digits written: of the mantissa, leading zeros and a whole number's trailing zeros not counted."""
    mantissa = text.lstrip("-").split(" × ")[0]
    if re.fullmatch("10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+", mantissa):  # a bare power: 10⁻⁶
        return 1
    digits = mantissa.replace(",", "")
    whole = "." not in digits
    digits = digits.replace(".", "").lstrip("0")
    return len(digits.rstrip("0") if whole else digits)


@given(st.floats(min_value=1e-12, max_value=1e14) | st.floats(min_value=-1e14, max_value=-1e-12))
def test_at_most_four_significant_digits_and_within_rounding_of_the_value(value):
    shown = number(value)
    assert _significant(shown) <= 4, shown
    assert _read(shown) == pytest.approx(value, rel=5e-4), shown


def test_a_range_reads_as_one_number_when_its_ends_do():
    assert span(3.0912e-6, 100.0) == "3.091 × 10⁻⁶ to 100" and span(1.00001, 1.00002) == "1"


def test_the_guarantee_sentence_of_a_release_at_ln_3():
    X = np.random.default_rng(0).normal(size=(60, 4)) / 4
    release = dc.run("analyze_gauss", X, 2, math.log(3), 1e-6, seed=0)
    text = release.guarantee_text()
    assert "epsilon = 1.099" in text and "delta = 10⁻⁶" in text and "1.09861" not in text, text


def test_the_reference_sentence_does_not_repeat_a_value():
    """ "ε = 0.1 equals 0.1 (0.1, suggested)" (issue 57)."""
    said = risk.context_sentence(0.1)
    assert said.startswith("epsilon = 0.1 is itself a reference point (suggested).") and "0.1 (0.1" not in said
    assert risk.context_sentence(math.log(3)).startswith("epsilon = 1.099 equals ln 3 (suggested).")
    assert "ln 2 (0.6931, suggested) and ln 3 (1.099, suggested)" in risk.context_sentence(1.0)


def test_a_figure_summary_reads_its_range_at_a_glance():
    fig = go.Figure(go.Bar(x=[1, 2, 3], y=[100.0, 2.5, 3.0912e-6]), layout=dict(title="Scree", yaxis_title="share"))
    assert "share 3.09 × 10⁻⁶ to 100 over" in figure_summary(fig)
