"""The Wishart mechanism of dppca_core/mechanisms/wishart.py, whose guarantee is retracted: the attack that refutes it
(and its golden cases, recorded at the end)."""

import math

import numpy as np

import dppca_core as dc
from dppca_core.mechanisms.wishart import wishart_noise
from tests.helpers import spiked_rows

X_SMALL, _ = spiked_rows(400, 8, 3, seed=1)


def test_wishart_is_flagged_retracted_and_fails_the_support_attack():
    # docs/papers.md#wishart-sn-retraction: with D' lacking the row u = e1, P[Y - A_D not PSD] = 1 - e^{-eps} under D'
    # and 0 under D. 400 trials each: binomial s.e. ~0.024, so 0.63 +- 0.1 is a 4-s.e. band.
    rng = np.random.default_rng(0)
    d, eps = 5, 1.0
    others = rng.normal(size=(30, d))
    others /= np.linalg.norm(others, axis=1, keepdims=True) * 2
    u = np.eye(d)[0]
    D, D_prime = np.vstack([others, u]), np.vstack([others, np.zeros(d)])
    A_D = D.T @ D
    flagged = {"D": 0, "D'": 0}
    for name, data in (("D", D), ("D'", D_prime)):
        gram = dc.prepare(data).gram
        for t in range(400):
            Y = gram + wishart_noise(d, eps, np.random.default_rng(t))
            flagged[name] += np.linalg.eigvalsh(Y - A_D).min() < -1e-9
    assert flagged["D"] == 0
    assert abs(flagged["D'"] / 400 - (1 - math.exp(-eps))) < 0.1
    rel = dc.run("wishart_sn", X_SMALL, 2, 1.0, seed=0)
    assert rel.guarantee == "retracted" and "claim is false" in rel.guarantee_text()


#: golden digests of this module's seeded cases (case, output, structure): `python -m tests.golden.make_golden`
GOLDEN = """
audit/wishart_sn 0719283ec962ff77983fbdf9 a109f9f3d595933d
release/wishart_sn def20c97f676bd52bda1509c 90cfed230f5a1af6
run/wishart_sn 05418df003b191d09861cd10 977db1786a0ca23f
run/wishart_sn/add_remove c6965d779861587bc3ccebb5 9da4580d871390aa
"""
