"""What the two reproductions of Liu et al. (NeurIPS 2022) share: Private Oja's step size from the law's public
eigengap, and the name of the error they measure. :mod:`.liu_example` and :mod:`.liu_spiked_model` read them."""

from __future__ import annotations

#: the error both reproductions measure against the law's planted direction
PLANTED_METRIC = "sin angle to the planted direction"


def oja_rate(law) -> dict:
    """Private Oja's step size c1/(c2 + t) with c1 = 2/(lambda_1 - lambda_2) of the (public) law: the paper's
    schedule alpha/((lambda_1 - lambda_2)(xi + t)) with alpha = 2 > 1/2 and xi = 10."""
    gap = float(law.eigenvalues[0] - law.eigenvalues[1])
    return {"lr_c1": min(2.0 / gap, 1e6), "lr_c2": 10.0}
