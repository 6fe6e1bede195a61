"""The toy mechanism of the checklist run: registered from its module alone, private as Analyze Gauss."""

import numpy as np

import dppca_core as dc
from dppca_core import figures


def test_the_toy_is_registered_with_a_family_and_a_colour_of_its_own():
    spec = dc.get_mechanism("toy_checklist")
    assert spec.family_name == "toy_checklist (central)"
    others = {figures.mechanism_color(m) for m in dc.mechanism_names("pca") if m != "toy_checklist"}
    assert figures.mechanism_color("toy_checklist") not in others


def test_the_toy_spends_what_analyze_gauss_spends():
    X = np.random.default_rng(0).normal(size=(200, 5)) / 4
    toy, gauss = (dc.run(m, X, 2, 1.0, 1e-6, seed=3) for m in ("toy_checklist", "analyze_gauss"))
    assert toy.noise_scale == gauss.noise_scale and toy.privacy.mu == gauss.privacy.mu
    assert np.allclose(toy.components.T @ toy.components, np.eye(2))
