"""Sequential audits (dppca_core/audit/sequential.py): the looks, the shared trials, early refutation, error split."""

import numpy as np
import pytest

from dppca_core.audit import audit
from dppca_core.audit.sequential import look_points, sequential_audit
from dppca_core.privacy import gaussian_epsilon, gaussian_mu


def test_look_points_are_whole_chunks_ending_at_the_plan():
    assert look_points(10_000) == (2500, 5000, 10_000)
    assert look_points(10_000, (0.1, 0.25, 0.5, 1.0)) == (1000, 2500, 5000, 10_000)
    assert look_points(600, (0.1, 0.25, 0.5, 1)) == (250, 500, 600)  # 10% and 25% both round up to the first chunk
    assert look_points(100) == (100,)
    with pytest.raises(ValueError, match="shares of the planned trials"):
        look_points(1000, (0.5, 1.5))


def test_half_noise_is_refuted_at_the_first_look():
    eps, delta = 1.0, 1e-5
    broken = gaussian_epsilon(2 * gaussian_mu(eps, delta), delta)
    looks = (0.1, 0.25, 0.5, 1.0)
    seq = sequential_audit("analyze_gauss", eps, delta, trials=10_000, seed=0, run_epsilon=broken, looks=looks)
    assert seq.refuted and seq.trials_used == 1000 and len(seq.history) == 1
    assert seq.result.confidence == pytest.approx(1 - 0.05 / 4)  # each look at the Bonferroni share of the error
    assert "Refuted after 1,000 of 10,000" in seq.words()
    # the first look is the fixed audit of its 1,000 trials at the per-look confidence: same trials, same verdict
    fixed = audit("analyze_gauss", eps, delta, trials=1000, seed=0, run_epsilon=broken, confidence=1 - 0.05 / 4)
    assert np.array_equal(fixed.scores_d, seq.result.scores_d) and fixed.epsilon_lower == seq.result.epsilon_lower


def test_a_correct_claim_runs_every_planned_trial_and_matches_the_fixed_verdict():
    seq = sequential_audit("analyze_gauss", 1.0, 1e-5, trials=10_000, seed=1)
    fixed = audit("analyze_gauss", 1.0, 1e-5, trials=10_000, seed=1)
    assert not seq.refuted and not fixed.violated
    assert seq.trials_used == 10_000 and [h[0] for h in seq.history] == [2500, 5000, 10_000]
    assert np.array_equal(seq.result.scores_d, fixed.scores_d)
    # the last look's bound is at the stricter per-look level: never above the fixed audit's
    assert seq.result.epsilon_lower <= fixed.epsilon_lower
    assert "Not refuted after all 10,000" in seq.words()
