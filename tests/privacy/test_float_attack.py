"""The floating-point attack on "value + noise": it identifies releases made with numpy's float samplers, and finds
nothing in what the library publishes now.

Threat model (the guarantee's own): the attacker knows every row but one and the code. For a published
``fl(fl(total + z) / n)`` they recompute the exact total under D and under D' and ask, for each hypothesis, whether
some output z of the sampler can produce the published float. With numpy's Gaussian (s times a ziggurat value
r w_i: a sparse set of floats) or Laplace (s log(2U) with U on a 2^-53 grid), the answer is often "impossible"
under one hypothesis and "possible" under the other, which tells the two datasets apart with certainty (Mironov,
CCS 2012; Jin et al., IEEE S&P 2022). The library now releases integers on a grid with integer noise
(dppca_core.privacy.exact), so every published value is possible under both hypotheses.
"""

import math

import numpy as np
import pytest

import dppca_core as dc
from dppca_core.pipeline.budget import BudgetSplit
from dppca_core.privacy import gaussian_mu

RELEASES = 1000


# ------------------------------------------------------------------------------ numpy's samplers, modelled
def _untemper(y: int) -> int:
    """Inverse of MT19937's output tempering."""
    y ^= y >> 18
    y ^= (y << 15) & 0xEFC60000
    res = y
    for _ in range(5):
        res = y ^ ((res << 7) & 0x9D2C5680)
    y = res & 0xFFFFFFFF
    res = y
    for _ in range(3):
        res = y ^ (res >> 11)
    return res & 0xFFFFFFFF


def _generator_whose_next_word_is(word: int) -> np.random.Generator:
    """An MT19937 generator set so that its next 64-bit output is ``word`` (two tempered 32-bit outputs)."""
    bg = np.random.MT19937(0)
    state = bg.state
    key = state["state"]["key"].copy()
    key[622], key[623] = _untemper(word >> 32), _untemper(word & 0xFFFFFFFF)
    state["state"]["key"], state["state"]["pos"] = key, 622
    bg.state = state
    return np.random.Generator(bg)


@pytest.fixture(scope="module")
def ziggurat_widths():
    """numpy's ziggurat layer widths w_i: its standard normal returns +-r * w_i for a 52-bit integer r. Read off
    numpy itself, by feeding it the word with layer i, sign +, r = 1."""
    widths = np.array([_generator_whose_next_word_is((1 << 9) | i).standard_normal() for i in range(256)])
    check = np.abs(np.random.default_rng(3).standard_normal(500))
    assert all(_is_ziggurat_value(x, widths) for x in check)  # the model covers numpy's real output
    return widths


def _is_ziggurat_value(x: float, widths: np.ndarray) -> bool:
    r = np.rint(abs(x) / widths)
    return bool(np.any((r * widths == abs(x)) & (r < 2.0**52) & (r >= 1)))


def _floats_near(value: float, count: int) -> list:
    out, lo, hi = [value], value, value
    for _ in range(count):
        lo, hi = math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)
        out += [lo, hi]
    return out


def _normal_can_give(z: float, s: float, widths: np.ndarray) -> bool:
    """Some ziggurat value x has fl(s * x) == z."""
    return any(math.isfinite(x) and s * x == z and _is_ziggurat_value(x, widths) for x in _floats_near(z / s, 3))


def _laplace_can_give(z: float, s: float) -> bool:
    """Some U = k 2^-53 gives numpy's Laplace output z: s log(2U) (U < 1/2) or -s log(2 - U - U) (U >= 1/2)."""
    if z < 0:
        centre = math.exp(z / s) / 2.0 * 2.0**53
        for k in range(max(int(centre) - 3, 1), int(centre) + 4):
            u = k * 2.0**-53
            if u < 0.5 and s * math.log(u + u) == z:
                return True
        return False
    centre = (2.0 - math.exp(-z / s)) / 2.0 * 2.0**53
    for k in range(int(centre) - 3, int(centre) + 4):
        u = k * 2.0**-53
        if 0.5 <= u < 1.0 and 0.0 - s * math.log(2.0 - u - u) == z:
            return True
    return False


def _possible(published: float, total: float, n: int, can_give) -> bool:
    """Some noise z the sampler can draw gives fl(fl(total + z) / n) == published."""
    for y in _floats_near(published * n, 4):
        if y / n != published:
            continue
        z0 = y - total
        spread = max(1, int(math.ulp(y) / max(math.ulp(z0), 5e-324)) + 2)
        if any(total + z == y and can_give(z) for z in _floats_near(z0, min(spread, 64))):
            return True
    return False


# ------------------------------------------------------------------------------ the data and its neighbour
def _neighbours(n=2000, d=20):
    X = np.random.default_rng(0).normal(size=(n, d)) * np.r_[3, 2, 1.5, np.full(d - 3, 0.3)] / 8
    Xp = X.copy()
    Xp[0] = -X[0]  # replace row 0
    return X, Xp


def _old_style_mean_releases(laplace: bool):
    """The mean as the library released it before: fl(fl(total + numpy noise) / n)."""
    X, Xp = _neighbours()
    rows, rows_p = dc.prepare(X).rows, dc.prepare(Xp).rows
    total, total_p = rows.sum(axis=0), rows_p.sum(axis=0)
    mu = math.sqrt(0.1) * gaussian_mu(1.0, 1e-6)
    s = 2.0 / mu if not laplace else 2.0 * math.sqrt(X.shape[1]) / 0.1
    rng = np.random.default_rng(11)
    noise = (lambda: rng.laplace(0.0, s, X.shape[1])) if laplace else (lambda: rng.normal(0.0, s, X.shape[1]))
    return [(total + noise()) / X.shape[0] for _ in range(RELEASES)], total, total_p, X.shape[0], s


@pytest.mark.parametrize("laplace", [False, True], ids=["gaussian", "laplace"])
def test_the_attack_identifies_releases_made_with_float_noise(laplace, ziggurat_widths):
    """What release_pca published before this change: 80% (Gaussian) and 100% (Laplace) of releases of D are
    impossible under D', and none is impossible under D (the model of the sampler is right)."""
    releases, total, total_p, n, s = _old_style_mean_releases(laplace)
    can_give = (lambda z: _laplace_can_give(z, s)) if laplace else (lambda z: _normal_can_give(z, s, ziggurat_widths))
    releases = releases[:300] if not laplace else releases[:200]  # enough for the bound below, and fast
    identified = 0
    for pub in releases:
        for j in range(len(pub)):
            assert _possible(pub[j], total[j], n, can_give)
        if any(not _possible(pub[j], total_p[j], n, can_give) for j in range(len(pub))):
            identified += 1
    share = identified / len(releases)
    assert share >= (0.999 if laplace else 0.80), share


def _grid_integer(value: float, step: float) -> bool:
    q = value / step
    return q == math.floor(q) and abs(q) < 2.0**53


@pytest.mark.parametrize("mechanism", ["analyze_gauss", "ppca_exponential"], ids=["gaussian", "laplace"])
def test_release_pca_publishes_only_grid_values_and_integer_counts(mechanism):
    """Every published "value + noise" of a complete release is an integer on its grid: the integer noise can be any
    integer, so every published value is possible under both neighbours (identified: none, over 1,000 releases: 500
    of D and 500 of D'). The mean is the grid sum divided by n (post-processing): a function of an integer sum, which
    the attacker recovers exactly. With a pure-DP mechanism the extras are rounded Laplace, on their grid too."""
    X, Xp = _neighbours(n=400, d=6)
    budget = BudgetSplit.with_extras(mean=0.1, eigenvalues=0.1, scores=0.1)
    identified = 0
    for i in range(RELEASES // 2):
        for data in (X, Xp):
            rel = dc.release_pca(mechanism, data, 1, 1.0, 1e-6, budget=budget, center="private", seed=i, score_bins=4)
            pub = rel.published()
            out, facts = pub["outputs"], pub["facts"]
            assert rel.privacy.kind == ("gdp" if mechanism == "analyze_gauss" else "pure")
            step = facts["eigenvalue_grid"]
            assert all(_grid_integer(v, step) for v in out["variances_released"]["values"])
            assert _grid_integer(out["total_variance"], step)
            counts = np.asarray(out["scores"]["counts"])
            assert counts.dtype.kind == "i" and all(isinstance(c, int) for c in out["scores"]["counts"])
            # the mean: its released sum is on the mean's grid (some integer noise gives it under D and under D'),
            # and the published mean is that sum's post-processing
            n, R, gstep = 400, pub["parameters"]["data_norm"], facts["mean_grid"]
            total = np.asarray(out["mean_sum"])
            identified += sum(not _grid_integer(v, gstep) for v in total)
            mean = total / n
            mean = mean / max(1.0, float(np.linalg.norm(mean)))
            assert np.array_equal(mean * R, np.asarray(out["mean"]))
    assert identified == 0


def test_the_estimators_attributes_are_functions_of_grid_values():
    X, _ = _neighbours(n=400, d=6)
    est = dc.DPPCA(2, epsilon=1.0, center="private", random_state=0).fit(X)
    pub = est.release_
    step = pub["facts"]["eigenvalue_grid"]
    assert all(_grid_integer(v, step) for v in pub["outputs"]["variances_released"]["values"])
    lam = np.maximum(np.asarray(pub["eigenvalues"]), 0.0)
    n, R = pub["parameters"]["n"], pub["parameters"]["data_norm"]
    assert np.array_equal(est.explained_variance_, lam * R**2 / (n - 1))
    assert np.array_equal(est.mean_, np.asarray(pub["outputs"]["mean"]))


def test_amin_iterative_releases_its_eigenvalues_on_a_grid():
    X, _ = _neighbours(n=400, d=6)
    amin = dc.run("amin_iterative", X, 2, 2.0, seed=3)
    assert amin.eigenvalues is not None and amin.privacy.kind == "pure"
    step = amin.noise_scale / float(round(amin.noise_scale / 2.0 ** math.floor(math.log2(amin.noise_scale) - 20)))
    grid = 2.0 ** (math.floor(math.log2(amin.noise_scale)) - 20)
    assert all(_grid_integer(v, grid) for v in amin.eigenvalues) and step > 0
    with pytest.raises(ValueError, match="replace"):
        dc.run("amin_iterative", X, 2, 2.0, neighbors="add_remove", eigenvalue_share=0.2, seed=3)


def test_the_reports_publishable_export_carries_only_grid_values_and_integer_counts():
    """The Report's "Draw releases to publish" export, read back from its JSON (which keeps every bit): the released
    sums, variances and total are integers on their grids and the score counts are integers, release after release,
    for D and for D' (so none is impossible under either: the noise can be any integer), over 1,000 exports."""
    import json

    from ui import release_file, scenario

    X, Xp = _neighbours(n=400, d=6)
    vals = {
        **scenario.DEFAULTS,
        "mechs": "analyze_gauss",
        "k": 1,
        "center": "private",
        "bmean": 0.1,
        "beig": 0.1,
        "bscores": 0.1,
    }
    identified = 0
    for _ in range(RELEASES // 2):  # 1,000 exports: 500 of D and 500 of D'
        for data in (X, Xp):
            text = release_file.releases_json(
                release_file.publishable_releases(dc.prepare(data, 1.0), ["analyze_gauss"], vals)
            )
            pub = json.loads(text)["releases"]["analyze_gauss"]
            out, facts = pub["outputs"], pub["facts"]
            assert pub["fresh_randomness"] is True and pub["guarantee"] != "none"
            step = facts["eigenvalue_grid"]
            identified += sum(not _grid_integer(v, step) for v in out["variances_released"]["values"])
            identified += not _grid_integer(out["total_variance"], step)
            identified += sum(not _grid_integer(v, facts["mean_grid"]) for v in out["mean_sum"])
            assert all(type(c) is int for c in np.ravel(np.asarray(out["scores"]["counts"], dtype=object)))
    assert identified == 0
