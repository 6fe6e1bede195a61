"""What a release's privacy guarantee means for one person: the attacker's best test, posterior belief, context.

Everything here is computed from a release's exact privacy curve (:class:`dppca_core.privacy.PrivacyCurve`,
``Release.privacy``), never from the data, so it is exact for the mechanism's real calibration and cheap enough
to follow the epsilon control live. Functions accept a :class:`~dppca_core.release.Release`, a
:class:`~dppca_core.privacy.PrivacyCurve`, or a list of either (several releases from the same data, composed
with :func:`dppca_core.privacy.compose`).

The attacker
------------
The worst-case attacker of differential privacy knows every row but one person's, and the mechanism. It wants
to tell two neighbouring datasets apart: D (the person's row is in the data; under replace-one: the row holds
one value) against D' (the row is absent; or holds another value). Any decision rule is a statistical test with
a false-positive rate alpha (says "in" when the row is out) and a false-negative rate beta (says "out" when it
is in). The *trade-off function* f(alpha) is the smallest beta any test can reach at false-positive rate alpha
(Dong, Roth & Su 2022). It is

* mu-GDP (every Gaussian mechanism here, mu = sensitivity / sigma, composed over iterations):
  f(alpha) = Phi(Phi^-1(1 - alpha) - mu), exact;
* epsilon-DP (pure): f(alpha) = max(0, 1 - e^eps alpha, e^-eps (1 - alpha));
* (epsilon, delta)-DP: f(alpha) = max(0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha))
  (Kairouz, Oh & Viswanath 2015; Dong, Roth & Su 2022, Proposition 2.5: (epsilon, delta)-DP is equivalent to
  this curve, so nothing finer can be read from the pair alone);
* no guarantee: f = 0 (the attacker can be right every time).

Posterior belief: what is bounded, and why this bound
-----------------------------------------------------
Give the attacker a prior p that the row is in (D). After seeing the output o its posterior is
p L(o) / (1 - p + p L(o)), with L(o) the likelihood ratio of o under D and D'. Pure epsilon-DP bounds
L(o) <= e^eps for *every* output, so the posterior is at most

    q(p, eps) = p e^eps / (1 - p + p e^eps),

for every output, every prior and every side information (the bound is attained by randomized response).

For Gaussian mechanisms and (epsilon, delta)-DP there is no bound over all outputs: the likelihood ratio of
Gaussian noise is unbounded, and (epsilon, delta)-DP allows full disclosure with probability delta. What does
hold, and what this module reports, is a *high-probability* bound:

    the posterior exceeds q(p, eps') with probability at most t(eps'), whichever dataset is the true one,

where t(eps') is the largest probability, over all pairs of output distributions that the release's trade-off
function allows, that the privacy loss ln L exceeds eps' (:func:`privacy_loss_tail`). Derivation: the test
"say D when ln L(o) > eps'" has power t = P_D[ln L > eps'] and false-positive rate
alpha = P_D'[ln L > eps'] <= e^-eps' t, so t <= 1 - f(e^-eps' t); t(eps') is the largest such t, and the bound
is attained by a two-point pair whose trade-off touches f, so it is tight for the guarantee. Under D' the
probability is smaller still (at most e^-eps' t). Given a tolerated probability ``tail``, :func:`tail_epsilon`
returns the smallest eps' with t(eps') <= tail, in closed form eps' = ln(tail / f(1 - tail)) (f is symmetric);
for pure DP this is eps itself, for (epsilon, delta)-DP it is eps - ln(1 - delta / tail) (finite only when
tail > delta; Kasiviswanathan & Smith 2014 first related (epsilon, delta)-DP to Bayesian statements of
this kind), and for mu-GDP it is
ln(tail) - ln Phi(Phi^-1(tail) - mu).

Why this rather than "except with probability delta(eps)": delta(eps) of the (epsilon, delta) reading is
*not* the probability that the posterior bound fails (it is E[(1 - e^(eps - ln L))+], which is smaller), so that
wording would overstate the protection; and the bound here uses only the trade-off function, so it also holds
for adaptive compositions and for attackers with any side information (mixtures keep the trade-off bound),
which the exact tail of one Gaussian would not. The alternative reading through the trade-off function, the
attacker's best probability of guessing membership correctly, is :func:`max_success_probability`.

References: Dong, Roth & Su (2022), "Gaussian Differential Privacy", JRSS-B; Kairouz, Oh & Viswanath (2015),
"The Composition Theorem for Differential Privacy", ICML; Balle & Wang (2018), ICML; Kasiviswanathan & Smith
(2014), "On the 'Semantics' of Differential Privacy: A Bayesian Formulation", J. Privacy and Confidentiality;
Wasserman & Zhou (2010), JASA (the hypothesis-testing reading of DP).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit, log_ndtr, ndtr, ndtri

from .epsilon_references import (
    EPS_REFERENCES,  # noqa: F401
    MODELS,  # noqa: F401
    SCOPES,  # noqa: F401
    EpsilonReference,  # noqa: F401
    context_sentence,  # noqa: F401
    nearest_references,  # noqa: F401
    reference_points,  # noqa: F401
    reference_tuples,  # noqa: F401
)
from .privacy import PrivacyCurve, compose, gaussian_delta, gaussian_epsilon
from .reading import number
from .audit.teaching import TEACHING_TRIALS, teaching_audit, worst_case_scores  # noqa: F401  (the teaching example)

#: priors at which the view marks the posterior (1%, 10%, 50%)
DEFAULT_PRIORS = (0.01, 0.1, 0.5)
#: tolerated probability that a high-probability posterior bound fails, when none is given (one in a million)
DEFAULT_TAIL = 1e-6

# ---------------------------------------------------------------------------------------------------------------
# Which curve


def curve_of(obj, delta: float | None = None) -> PrivacyCurve:
    """The privacy curve of a Release, a PrivacyCurve, or a list of either (composed).

    For a list, several releases from the same data compose (:func:`dppca_core.privacy.compose`); a mixture of
    Gaussian and pure / (epsilon, delta) releases needs a total ``delta``, which defaults to the sum of the
    releases' claimed deltas (each release spends the delta it claims).
    """
    if isinstance(obj, PrivacyCurve):
        return obj
    if hasattr(obj, "privacy") and isinstance(obj.privacy, PrivacyCurve):
        return obj.privacy
    if isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
        items = list(obj)
        curves = [curve_of(x) for x in items]
        if delta is None and items and all(hasattr(x, "privacy") for x in items):
            total = math.fsum(float(x.delta) for x in items)
            delta = total if total > 0 else None
        return compose(curves, delta=delta)
    raise ValueError(
        f"expected a Release, a PrivacyCurve or a list of them, not {type(obj).__name__}; "
        "pass release.privacy or the release itself."
    )


def neighbors_of(obj, default: str = "add_remove") -> str:
    """The neighbouring relation of a Release (or of all releases in a list, if they agree), else ``default``."""
    if hasattr(obj, "neighbors"):
        return obj.neighbors
    if isinstance(obj, (list, tuple)):
        rel = {getattr(x, "neighbors", None) for x in obj}
        if len(rel) == 1 and None not in rel:
            return rel.pop()
    return default


# ---------------------------------------------------------------------------------------------------------------
# The attacker's best test


def tradeoff(obj, alpha):
    """The trade-off function: the smallest false-negative rate beta any membership test can have at
    false-positive rate ``alpha`` (array or scalar in [0, 1])."""
    curve = curve_of(obj)
    alpha = np.asarray(alpha, dtype=float)
    if np.any(~np.isfinite(alpha)) or np.any((alpha < 0) | (alpha > 1)):
        raise ValueError("alpha (the false-positive rate) must lie in [0, 1].")
    return curve.false_negative_floor(alpha)


def tradeoff_curve(obj, points: int = 401) -> tuple[np.ndarray, np.ndarray]:
    """(alpha, beta) arrays tracing the trade-off curve on [0, 1], with the kinks of piecewise-linear curves
    included so that the drawn curve is exact."""
    if int(points) != points or points < 3:
        raise ValueError(f"points must be a whole number >= 3 (got {points!r}).")
    curve = curve_of(obj)
    alpha = np.linspace(0.0, 1.0, int(points))
    if curve.kind == "gdp":
        # dense near 0 and 1, where the Gaussian curve bends fastest
        alpha = np.union1d(alpha, ndtr(np.linspace(-8, 8, int(points))))
    elif curve.kind in ("pure", "approx"):
        e = curve.epsilon
        kinks = [(1 - curve.delta) * expit(-e), 1 - curve.delta, (1 - curve.delta) * math.exp(-min(e, 700.0))]
        alpha = np.union1d(alpha, np.clip(kinks, 0, 1))
    return alpha, np.asarray(tradeoff(curve, alpha), dtype=float)


def attacker_advantage(obj) -> float:
    """The best attacker's advantage: max over tests of (true-positive rate - false-positive rate).

    Equals the total-variation distance between the output distributions on neighbouring data (0: no test beats
    a coin; 1: some test is always right). mu-GDP: 2 Phi(mu/2) - 1. (epsilon, delta)-DP:
    (e^eps - 1 + 2 delta) / (e^eps + 1), i.e. tanh(eps/2) for pure DP. No guarantee: 1.
    """
    curve = curve_of(obj)
    if curve.kind == "none":
        return 1.0
    if curve.kind == "gdp":
        return float(ndtr(curve.mu / 2.0) - ndtr(-curve.mu / 2.0))
    e, d = curve.epsilon, curve.delta
    return float(min(1.0, math.tanh(e / 2.0) + 2.0 * d * expit(-e)))


def _check_epsilon(epsilon) -> float:
    """epsilon as a float >= 0 (infinity allowed), or a ValueError saying so."""
    epsilon = float(epsilon)
    if not (epsilon >= 0 and not math.isnan(epsilon)):
        raise ValueError(f"epsilon must be a number >= 0 (got {epsilon!r}).")
    return epsilon


def delta_at(obj, epsilon: float) -> float:
    """Smallest delta such that the release is (epsilon, delta)-DP: its full privacy profile.

    GDP: Balle & Wang's delta(eps; mu). Pure and (eps0, delta0)-DP: the profile implied by the trade-off curve,
    max(delta0, 1 - (1 - delta0)(1 + e^eps)/(1 + e^eps0)), which is below 1 also for eps < eps0 (e.g. pure DP
    is (eps', delta')-DP for every eps' < eps). No guarantee: 1.
    """
    epsilon = _check_epsilon(epsilon)
    curve = curve_of(obj)
    if curve.kind == "none":
        return 1.0
    if curve.kind == "gdp":
        return gaussian_delta(epsilon, curve.mu) if math.isfinite(epsilon) else 0.0
    e0, d0 = curve.epsilon, curve.delta
    if epsilon >= e0:
        return d0
    # (1 + e^eps) / (1 + e^eps0) computed without overflow
    ratio = math.exp(epsilon - e0) * (1.0 + math.exp(-epsilon)) / (1.0 + math.exp(-e0))
    return float(max(d0, 1.0 - (1.0 - d0) * ratio))


def epsilon_at(obj, delta: float) -> float:
    """Smallest epsilon such that the release is (epsilon, delta)-DP, at any delta in [0, 1): the reading of the
    guarantee at a chosen delta (inf where none holds, e.g. delta below an approximate release's own delta).

    At the claimed delta it gives back the claimed epsilon (exactly for pure and (epsilon, delta) releases, and to
    root-finding precision for Gaussian ones, which earn it exactly).
    """
    delta = float(delta)
    if not (0.0 <= delta < 1.0):
        raise ValueError(f"delta must lie in [0, 1) (got {delta!r}).")
    curve = curve_of(obj)
    if curve.kind == "none":
        return math.inf
    if curve.kind == "gdp":
        if delta == 0.0:
            return 0.0 if curve.mu == 0 else math.inf
        return gaussian_epsilon(curve.mu, delta)
    e0, d0 = curve.epsilon, curve.delta
    if delta < d0:
        return math.inf
    # invert max(d0, 1 - (1 - d0)(1 + e^eps)/(1 + e^eps0)) = delta: e^eps = r (1 + e^eps0) - 1, r = (1-delta)/(1-d0)
    r = (1.0 - delta) / (1.0 - d0)
    inner = r + (r - 1.0) * math.exp(-e0)  # e^(eps - eps0)
    if inner <= math.exp(-e0):
        return 0.0
    return float(max(0.0, e0 + math.log(inner)))


# ---------------------------------------------------------------------------------------------------------------
# Posterior belief


def posterior(prior, epsilon):
    """q(p, eps) = p e^eps / (1 - p + p e^eps): the largest posterior a likelihood ratio of at most e^eps allows.

    Vectorised over ``prior`` and ``epsilon``; computed as expit(eps + logit(p)) so large epsilon does not
    overflow; monotone increasing in both arguments.
    """
    p = np.asarray(prior, dtype=float)
    e = np.asarray(epsilon, dtype=float)
    if np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("prior must lie in [0, 1] (a probability, e.g. 0.1 for 10%).")
    if np.any(np.isnan(e)) or np.any(e < 0):
        raise ValueError("epsilon must be >= 0 (inf for no guarantee).")
    with np.errstate(divide="ignore"):
        logit = np.log(p) - np.log1p(-p)
    z = np.where(np.isinf(e), np.where(p > 0, np.inf, -np.inf), e + logit)
    out = expit(np.where(np.isnan(z), -np.inf, z))
    out = np.where(p == 0, 0.0, np.where(p == 1, 1.0, out))
    return float(out) if out.ndim == 0 else out


def privacy_loss_tail(obj, epsilon: float) -> float:
    """t(eps): the largest probability, over every pair of output distributions the guarantee allows, that the
    privacy loss ln(P_D(o) / P_D'(o)) exceeds ``epsilon`` when D is true; i.e. the largest probability that a
    release lifts an attacker's posterior above q(p, eps) (see the module docstring for the derivation).

    Pure eps0-DP: 0 for eps >= eps0. (eps0, delta0)-DP: min(1, delta0 / (1 - e^(eps0 - eps)) for eps > eps0,
    (1 - e^-eps0 (1 - delta0)) / (1 - e^-(eps0 + eps))). mu-GDP: Phi(-u) where u solves
    ln Phi(-u) - ln Phi(-u - mu) = eps. No guarantee: 1.
    """
    epsilon = _check_epsilon(epsilon)
    curve = curve_of(obj)
    if curve.kind == "none":
        return 1.0
    if math.isinf(epsilon):
        return 0.0 if curve.kind != "approx" else curve.delta
    if curve.kind == "gdp":
        mu = curve.mu
        if epsilon == 0.0:
            return 1.0 if mu > 0 else 0.0
        if mu == 0.0:
            return 0.0

        def g(u):
            return float(log_ndtr(-u) - log_ndtr(-u - mu)) - epsilon

        lo, hi = -40.0, 1.0
        if g(lo) >= 0:
            return 1.0
        while g(hi) < 0:
            hi = 2.0 * hi + 1.0
        u = brentq(g, lo, hi, xtol=1e-13, rtol=1e-14)
        return float(ndtr(-u))
    e0, d0 = curve.epsilon, curve.delta
    bounds = [1.0]
    if epsilon > e0:
        bounds.append(d0 / -math.expm1(e0 - epsilon))
    denom = -math.expm1(-(e0 + epsilon))
    if denom > 0:
        bounds.append((1.0 - math.exp(-e0) * (1.0 - d0)) / denom)
    return float(max(0.0, min(bounds)))


def tail_epsilon(obj, tail: float) -> float:
    """The smallest eps' with :func:`privacy_loss_tail` (eps') <= ``tail``: the posterior can exceed
    q(p, eps') with probability at most ``tail``. Closed form eps' = ln(tail / f(1 - tail)); pure DP: eps;
    (eps, delta): eps - ln(1 - delta/tail), inf if tail <= delta; mu-GDP: ln(tail) - ln Phi(Phi^-1(tail) - mu).
    """
    tail = float(tail)
    curve = curve_of(obj)
    if curve.kind == "pure" and tail == 0.0:
        return curve.epsilon
    if not (0.0 < tail < 1.0):
        raise ValueError(
            f"tail must lie strictly between 0 and 1 (got {tail!r}), e.g. 1e-6; only pure DP "
            "gives a bound that holds with probability 1 (tail = 0)."
        )
    if curve.kind == "none":
        return math.inf
    if curve.kind == "gdp":
        if curve.mu == 0:
            return 0.0
        return float(max(0.0, math.log(tail) - log_ndtr(ndtri(tail) - curve.mu)))
    e0, d0 = curve.epsilon, curve.delta
    # f(1 - tail) = max(0, 1 - d0 - e^e0 (1 - tail), e^-e0 (tail - d0))
    f_val = max(0.0, 1.0 - d0 - math.exp(min(e0, 700.0)) * (1.0 - tail), math.exp(-e0) * (tail - d0))
    if f_val <= 0.0:
        return math.inf
    return float(max(0.0, math.log(tail) - math.log(f_val)))


def default_tail(obj) -> float:
    """The tolerated failure probability used when none is given: 0 for pure DP (the bound always holds),
    :data:`DEFAULT_TAIL` (1e-6) for Gaussian DP, and max(1e-6, 2 delta) for (epsilon, delta)-DP (so that the
    bound is at most q(p, epsilon + ln 2); at tail <= delta no bound below 1 exists)."""
    curve = curve_of(obj)
    if curve.kind == "pure":
        return 0.0
    if curve.kind == "approx":
        return max(DEFAULT_TAIL, 2.0 * curve.delta)
    return DEFAULT_TAIL


@dataclass(frozen=True)
class PosteriorBound:
    """How sure an attacker with a given prior can become.

    ``posterior`` = q(prior, epsilon) bounds the attacker's belief that the row is in (or holds the value),
    except with probability at most ``tail`` over the release (``tail`` = 0: for every output). ``kind`` is the
    curve's kind; ``epsilon`` is the level used (the release's epsilon for pure DP, :func:`tail_epsilon` else).
    """

    prior: float
    posterior: float
    epsilon: float
    tail: float
    kind: str

    @property
    def always(self) -> bool:
        """True when the bound holds for every possible output (pure DP)."""
        return self.tail == 0.0

    def as_dict(self) -> dict:
        return {
            "prior": self.prior,
            "posterior": self.posterior,
            "epsilon": None if math.isinf(self.epsilon) else self.epsilon,
            "tail": self.tail,
            "kind": self.kind,
            "holds_for_every_output": self.always,
        }


def posterior_bound(obj, prior: float, tail: float | None = None) -> PosteriorBound:
    """The largest posterior an attacker with ``prior`` can reach, with the probability ``tail`` that it fails.

    Pure DP: q(p, eps), for every output (a ``tail`` > 0 can only lower the level for tails near 1, so passing
    e.g. ``tail=release.delta`` is safe for every kind). Gaussian and (epsilon, delta)-DP:
    q(p, :func:`tail_epsilon` (tail)), exceeded with probability at most ``tail`` (default :func:`default_tail`).
    No guarantee: 1 (the attacker can become certain).
    """
    prior = float(prior)
    if not (0.0 <= prior <= 1.0):
        raise ValueError(f"prior must lie in [0, 1] (got {prior!r}), e.g. 0.1 for an attacker 10% sure.")
    curve = curve_of(obj)
    if tail is None:
        tail = default_tail(curve)
    tail = float(tail)
    if curve.kind == "none":
        return PosteriorBound(prior, 1.0 if prior > 0 else 0.0, math.inf, 0.0, "none")
    eps = curve.epsilon if (curve.kind == "pure" and tail == 0.0) else tail_epsilon(curve, tail)
    if curve.kind == "pure" and eps >= curve.epsilon:
        eps, tail = curve.epsilon, 0.0  # a tolerated failure cannot improve on the bound that always holds
    return PosteriorBound(prior, posterior(prior, eps), eps, tail, curve.kind)


def posterior_curve(obj, priors, tail: float | None = None) -> np.ndarray:
    """The posterior bound over an array of priors (one tail, hence one epsilon level, for the whole curve)."""
    b = posterior_bound(obj, 0.5, tail)
    if b.kind == "none":
        return np.where(np.asarray(priors, dtype=float) > 0, 1.0, 0.0)
    return np.asarray(posterior(priors, b.epsilon), dtype=float)


def max_success_probability(obj, prior: float) -> float:
    """The best attacker's probability of guessing correctly whether the row is in, given prior ``prior``.

    1 - min over alpha of ((1 - p) alpha + p f(alpha)) with f the trade-off function: a bound on the attacker's
    posterior success (averaged over outputs) that holds for every kind of guarantee, with no failure
    probability. Guessing from the prior alone achieves max(p, 1 - p). Pure / (epsilon, delta)-DP:
    1 - (1 - delta) min(p, 1 - p, 1/(1 + e^eps)); mu-GDP: at z = ln((1-p)/p)/mu + mu/2 the error is
    (1 - p) Phi(-z) + p Phi(z - mu).
    """
    p = float(prior)
    if not (0.0 <= p <= 1.0):
        raise ValueError(f"prior must lie in [0, 1] (got {prior!r}).")
    curve = curve_of(obj)
    if curve.kind == "none" or p in (0.0, 1.0):
        return 1.0
    if curve.kind == "gdp":
        mu = curve.mu
        if mu == 0:
            return max(p, 1 - p)
        z = math.log((1 - p) / p) / mu + mu / 2.0
        err = (1 - p) * ndtr(-z) + p * ndtr(z - mu)
        return float(1.0 - err)
    e, d = curve.epsilon, curve.delta
    return float(1.0 - (1.0 - d) * min(p, 1.0 - p, expit(-e)))


# ---------------------------------------------------------------------------------------------------------------
# In words


def format_percent(x: float, upper: bool = True) -> str:
    """A probability as a percentage, rounded *up* (``upper``, for upper bounds such as a posterior bound) or
    *down* (``upper=False``, for lower bounds such as the attacker's smallest miss rate), so that a bound stays a
    bound: three significant digits below 10% ("2.7%", "0.0123%"), one decimal up to 99.9%, two up to 99.99%."""
    x = float(x)
    if not (0.0 <= x <= 1.0):
        raise ValueError(f"expected a probability in [0, 1], got {x!r}.")
    if x == 0.0 or x == 1.0:
        return f"{100 * x:.0f}%"
    pct = 100.0 * x
    if x > 0.9999:
        return "more than 99.99%" if upper else "99.99%"
    if x >= 0.1:
        decimals = 1 if x < 0.999 else 2
    else:
        decimals = max(0, 2 - math.floor(math.log10(pct)))
    step = 10.0**-decimals
    v = (math.ceil(pct / step - 1e-9) if upper else math.floor(pct / step + 1e-9)) * step
    out = f"{v:.{decimals}f}"
    if "." in out:
        out = out.rstrip("0").rstrip(".")
    return out + "%"


#: above this an upper bound on a probability no longer limits anything one would notice: the words then say what
#: the guarantee allows ("more than 99.99%"), never "at most more than 99.99%"
SATURATED = 0.9999
#: the clause that says so beside a saturated bound
SATURATED_WORDS = "the guarantee no longer rules out near certainty"


def at_most(x: float) -> str:
    """An upper bound on a probability in words: "at most 76.9%" (rounded up, :func:`format_percent`), or above
    99.99% "more than 99.99%" (what the guarantee allows; :data:`SATURATED_WORDS` says why it is not a bound)."""
    return "more than 99.99%" if float(x) > SATURATED else f"at most {format_percent(x)}"


def _prior_words(p: float) -> str:
    return f"{100 * p:g}%"


def _tail_words(tail: float) -> str:
    if tail <= 0:
        return ""
    odds = 1.0 / tail
    if odds >= 10 and abs(odds - round(odds)) < 1e-6 * odds:
        return f"1 in {round(odds):,}"
    return number(tail, 2)


def posterior_sentence(bound: PosteriorBound, neighbors: str = "add_remove") -> str:
    """The posterior bound in plain words, e.g. "An attacker who was 10% sure that this person's row is in the
    data can become at most 23.2% sure." (with the failure probability where the bound is not absolute)."""
    target = (
        "that this person's row is in the data"
        if neighbors == "add_remove"
        else "that this person's row holds one particular value rather than another"
    )
    start = f"An attacker who was {_prior_words(bound.prior)} sure {target}"
    if bound.kind == "none":
        return f"{start} can become certain: this release gives no protection."
    text = f"{start} can become {at_most(bound.posterior)} sure"
    if bound.posterior > SATURATED:
        text += f" ({SATURATED_WORDS})"
    if bound.always:
        return text + ", whatever the release shows."
    return text + f", except with probability at most {_tail_words(bound.tail)}."


def advantage_sentence(obj) -> str:
    """The best attacker's advantage in words (as a 50/50 guessing game)."""
    adv = attacker_advantage(obj)
    if adv >= 1.0:
        return "With no guarantee, an attacker can tell whether this person's row is in the data every time."
    return (
        f"Asked to guess whether this person's row is in the data when both are equally likely, the best "
        f"attacker is right {at_most(0.5 + adv / 2)} of the time (a coin toss: 50%)."
    )


def two_numbers_sentence(obj) -> str:
    """The two numbers shown for an attacker who starts at 50/50, reconciled in one sentence: how often its best
    guess is right on average over releases (:func:`attacker_advantage`), and how sure one release can make it
    (:func:`posterior_bound` at prior 50%, with its failure probability). A rare, revealing release teaches more than
    the average one, so the second is the larger; for a pure guarantee they are the same number."""
    curve = curve_of(obj)
    if curve.kind == "none":
        return "With no guarantee an attacker who starts at 50/50 can be right, and certain, every time."
    guess = at_most(0.5 + attacker_advantage(curve) / 2)
    bound = posterior_bound(curve, 0.5)
    sure = at_most(bound.posterior)
    if guess == sure:
        return (
            f"Both numbers start from 50/50 and agree here: the best attacker's guess is right {guess} of the "
            f"time, and no release makes it more sure than that."
        )
    tail = (
        "whatever the release shows" if bound.always else f"a bound every release keeps but {_tail_words(bound.tail)}"
    )
    return (
        f"Both numbers start from 50/50 and answer two questions: on average over releases the best attacker's "
        f"guess is right {guess} of the time, while one release can make it {sure} sure ({tail}): a rare, "
        "revealing release teaches more than the average one."
    )


def risk_summary(
    obj, priors=DEFAULT_PRIORS, tail: float | None = None, neighbors: str | None = None, deltas=(1e-5, 1e-6, 1e-8)
) -> dict:
    """Every number of the disclosure-risk view, JSON-serialisable (infinities as None), with sentences.

    Keys: privacy (the curve), description, advantage, guess_accuracy (50/50 prior), epsilon_at (dict
    delta -> epsilon), tail, tail_epsilon, posterior (list of PosteriorBound dicts with "sentence" and
    "success" = :func:`max_success_probability`), sentences.
    """
    curve = curve_of(obj)
    rel = neighbors or neighbors_of(obj)
    bounds = [posterior_bound(curve, p, tail) for p in priors]
    used_tail = bounds[0].tail if bounds else (default_tail(curve) if tail is None else tail)

    def fin(x):
        return None if x is None or math.isinf(x) else float(x)

    post = []
    for b in bounds:
        d = b.as_dict()
        d["sentence"] = posterior_sentence(b, rel)
        d["success"] = max_success_probability(curve, b.prior)
        post.append(d)
    adv = attacker_advantage(curve)
    return {
        "privacy": curve.as_dict(),
        "description": curve.describe(),
        "neighbors": rel,
        "advantage": adv,
        "guess_accuracy": 0.5 + adv / 2,
        "epsilon_at": {f"{d:g}": fin(epsilon_at(curve, d)) for d in deltas},
        "tail": used_tail,
        "tail_epsilon": fin(bounds[0].epsilon) if bounds else None,
        "posterior": post,
        "sentences": [advantage_sentence(curve), two_numbers_sentence(curve)] + [p["sentence"] for p in post],
    }
