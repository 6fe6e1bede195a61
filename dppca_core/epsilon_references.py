"""The same epsilon in context: published epsilons with their sources, what their budgets cover, and where a
release's epsilon sits among them (the risk page's ruler, the epsilon control's marks).

Split from :mod:`dppca_core.risk`, which re-exports every name, so ``dppca_core.risk.reference_points`` and the
others keep working.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .reading import number

#: what the budget of a reference point covers
SCOPES = ("guidance", "per_donation", "per_day", "total")
#: the trust model of a reference point: "central" (a curator adds noise to statistics), "local" (each device
#: randomises its own report before it leaves), or "n/a" (a suggestion, not a deployment)
MODELS = ("central", "local", "n/a")


@dataclass(frozen=True)
class EpsilonReference:
    """One published epsilon, with what it covers.

    ``scope``: "guidance" (a suggested value), "per_donation" (one report from one device), "per_day" (what one
    person can spend in a day), "total" (a whole data product). ``confirmed``: whether the value and its scope
    were checked against the source text (or a faithful copy of it); ``note`` says what was and was not.
    """

    value: float
    label: str
    what: str
    scope: str
    model: str
    source: str
    url: str
    confirmed: bool
    note: str = ""
    delta: float | None = None

    def as_tuple(self) -> tuple[float, str, str]:
        """(value, label, one-line source) as the older (value, label, source) reference lists used."""
        flag = "" if self.confirmed else " [not confirmed]"
        return (self.value, self.label, f"{self.what}; {self.source}{flag}")


#: Dwork's survey, where the guidance values stand (Remark 1)
_DWORK = "C. Dwork (2008), 'Differential Privacy: A Survey of Results', TAMC 2008, Remark 1"
_DWORK_URL = "https://doi.org/10.1007/978-3-540-79228-4_1"
#: Apple's overview, where its per-donation budgets stand
_APPLE = "Apple, 'Differential Privacy Overview' (PDF, 2017)"
_APPLE_URL = "https://www.apple.com/privacy/docs/Differential_Privacy_Overview.pdf"


def _dwork(value: float, label: str, what: str, source: str = _DWORK, note: str = "") -> EpsilonReference:
    """A value of Dwork's suggested range: guidance, no trust model, confirmed in the survey."""
    return EpsilonReference(value, label, what, "guidance", "n/a", source, _DWORK_URL, True, note)


def _apple(value: float, label: str, what: str, note: str) -> EpsilonReference:
    """One of Apple's local budgets per donation, confirmed in its overview (``note`` says how far)."""
    return EpsilonReference(value, label, what, "per_donation", "local", _APPLE, _APPLE_URL, True, note)


EPS_REFERENCES: tuple[EpsilonReference, ...] = (
    _dwork(
        0.01,
        "0.01",
        "Dwork's suggested range: 'say, 0.01, 0.1, or in some cases, ln 2 or ln 3'",
        source="C. Dwork (2008), 'Differential Privacy: A Survey of Results', TAMC 2008, LNCS 4978, Remark 1",
        note="Quote checked in a copy of the survey's Remark 1. The earlier attribution to Dwork's 2011 CACM "
        "article 'A Firm Foundation for Private Data Analysis' could not be confirmed, so the 2008 survey is cited.",
    ),
    _dwork(0.1, "0.1", "Dwork's suggested range (see 0.01)"),
    _dwork(math.log(2), "ln 2", "Dwork's suggested range: 'in some cases, ln 2 or ln 3' (odds may double)"),
    _dwork(math.log(3), "ln 3", "Dwork's suggested range: 'in some cases, ln 2 or ln 3' (odds may triple)"),
    _apple(
        2.0,
        "Apple Health",
        "Apple, Health type usage: epsilon = 2 per donation, one donation per day",
        "epsilon = 2 confirmed in copies of the overview; 'one donation per day' only from secondary summaries of "
        "it. Apple's budget is per donation (a privatised report from one device), in the local model.",
    ),
    _apple(
        4.0,
        "Apple emoji",
        "Apple, emoji suggestions: epsilon = 4 per donation, one donation per day",
        "Quoted: 'For emoji, Apple uses a privacy budget with epsilon of 4, and submits one donation per day.' "
        "Lookup Hints and Safari domain detection also use epsilon = 4.",
    ),
    _apple(
        8.0,
        "Apple QuickType",
        "Apple, QuickType keyboard: epsilon = 8 per donation, two donations per day",
        "epsilon = 8 confirmed in copies of the overview; 'two donations per day' only from secondary summaries, "
        "so up to 16 per day. Corrects the earlier label 'epsilon = 8 per day'.",
    ),
    EpsilonReference(
        16.0,
        "macOS: 16/day",
        "Measured on macOS 10.12: up to 16 per day for emoji, new words, deeplinks and lookup "
        "hints together (1 or 2 per report), renewed daily",
        "per_day",
        "local",
        "J. Tang, A. Korolova, X. Bai, X. Wang, X. Wang (2017), 'Privacy Loss in Apple's Implementation of "
        "Differential Privacy on MacOS 10.12', arXiv:1709.02753",
        "https://arxiv.org/abs/1709.02753",
        True,
        "Confirmed from the paper's abstract. The daily budget renews, so the total grows with the days since "
        "opt-in.",
    ),
    EpsilonReference(
        17.14,
        "2020 Census",
        "US 2020 Census redistricting data (P.L. 94-171), persons file: total epsilon = 17.14 "
        "(19.61 with the housing-unit file's 2.47)",
        "total",
        "central",
        "US Census Bureau (2021-06-09), 'Census Bureau Sets Key Parameters to Protect Privacy in 2020 Census "
        "Results'",
        "https://www.census.gov/newsroom/press-releases/2021/2020-census-key-parameters.html",
        True,
        "Values quoted from the press release. The Bureau accounted in zero-concentrated DP; the delta of the "
        "(epsilon, delta) reading, 1e-10, comes from secondary sources only. The budget covers the whole data "
        "product, for every person, not one query.",
        delta=1e-10,
    ),
    EpsilonReference(
        0.5,
        "LDP PCA paper",
        "A local-DP PCA paper's synthetic experiments at epsilon = 0.5",
        "guidance",
        "local",
        "D. Wang & J. Xu (2020), 'Principal Component Analysis in the Local Differential Privacy Model', "
        "Theoretical Computer Science 809",
        "",
        False,
        "Not confirmed: the experiment settings could not be checked against the paper's text. A research "
        "setting, not a deployment.",
    ),
)


def reference_points(confirmed_only: bool = False, scope: str | None = None) -> list[EpsilonReference]:
    """The reference points, sorted by value; optionally only confirmed ones, or one scope."""
    if scope is not None and scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES} (got {scope!r}).")
    refs = [r for r in EPS_REFERENCES if (r.confirmed or not confirmed_only) and (scope is None or r.scope == scope)]
    return sorted(refs, key=lambda r: r.value)


def reference_tuples(confirmed_only: bool = False) -> list[tuple[float, str, str]]:
    """(value, label, source) triples, the shape the epsilon control and the older ruler take."""
    return [r.as_tuple() for r in reference_points(confirmed_only)]


def nearest_references(
    epsilon: float, confirmed_only: bool = True
) -> tuple[EpsilonReference | None, EpsilonReference | None]:
    """The reference point just below (or equal to) and just above ``epsilon``, on a log scale."""
    epsilon = float(epsilon)
    if not (epsilon > 0):
        raise ValueError(f"epsilon must be > 0 (got {epsilon!r}).")
    refs = reference_points(confirmed_only)
    below = [r for r in refs if r.value <= epsilon]
    above = [r for r in refs if r.value > epsilon]
    return (below[-1] if below else None, above[0] if above else None)


_SCOPE_WORDS = {"guidance": "suggested", "per_donation": "per donation", "per_day": "per day", "total": "total"}


def context_sentence(epsilon: float) -> str:
    """Where ``epsilon`` sits among the confirmed reference points, in words, with the budgets' scopes."""
    if math.isinf(epsilon):
        return "No privacy guarantee: no reference point applies."
    below, above = nearest_references(epsilon)

    def scope(r) -> str:
        return _SCOPE_WORDS[r.scope] + (", local model" if r.model == "local" else "")

    def name(r) -> str:  # a label that is its own value ("0.1") is not followed by the value again
        return f"{r.label} ({scope(r)})" if r.label == number(r.value) else f"{r.label} ({number(r.value)}, {scope(r)})"

    shown = number(epsilon)
    if below is not None and math.isclose(below.value, epsilon, rel_tol=1e-3):
        text = (
            f"epsilon = {shown} is itself a reference point ({scope(below)})."
            if below.label == number(below.value)
            else f"epsilon = {shown} equals {below.label} ({scope(below)})."
        )
    elif below is None:
        text = f"epsilon = {shown} is below every reference point (the smallest: {name(above)})."
    elif above is None:
        text = f"epsilon = {shown} is above every reference point (the largest: {name(below)})."
    else:
        text = f"epsilon = {shown} lies between {name(below)} and {name(above)}."
    return (
        text + " Budgets per donation or per day (local model) and totals for a whole product are not the "
        "same unit as the epsilon of one release here; compare with care."
    )
