import numpy as np
import pytest

import dppca_core as dc
from dppca_core import theory


@pytest.mark.parametrize("mech", list(theory.RATES))
def test_rates_fall_with_n_and_epsilon(mech):
    base = dict(n=2000, d=20, k=3, epsilon=1.0, delta=1e-6, s=5)
    by_n = theory.rate(mech, "n", [1000, 10000, 100000], **base)
    by_eps = theory.rate(mech, "eps", [0.1, 1.0, 10.0], **base)
    assert np.all(np.diff(by_n) < 0) and np.all(np.isfinite(by_n))
    assert np.all(np.diff(by_eps) <= 0)


def test_analyze_gauss_rate_is_inverse_in_n_and_epsilon_shape():
    r = theory.rate("analyze_gauss", "n", [1000, 2000], n=1000, d=20, k=3, epsilon=1.0, delta=1e-6, term="privacy")
    assert r[0] / r[1] == pytest.approx(2.0)
    s = theory.rate("analyze_gauss", "n", [1000, 4000], n=1000, d=20, k=3, epsilon=1.0, delta=1e-6,
                    term="statistical")
    assert s[0] / s[1] == pytest.approx(2.0)
    assert set(theory.RATES) <= set(dc.mechanism_names())
    with pytest.raises(ValueError, match="no theoretical rate"):
        theory.rate("wishart_sn", "n", [1], n=1, d=2, k=1, epsilon=1, delta=1e-6)
