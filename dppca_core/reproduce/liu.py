"""Liu et al., DP-PCA: Statistically Optimal and Differentially Private PCA (NeurIPS 2022): Private Oja against
DP-PCA on the paper's Example 4.1 (:func:`liu_example_41`, declared in :mod:`.liu_example`) and its spiked model
(:func:`liu_spiked`, declared in :mod:`.liu_spiked_model`); what both share is in :mod:`.liu_common`. This module
declares the paper (``PAPER``), the two reproduction functions, and keeps the names it always offered."""

from __future__ import annotations

from .core import Paper, reproduction_function
from .dp_pca_routes import (
    ALG_FALLBACK as ALG_FALLBACK,
    THEOREM_EPS as THEOREM_EPS,
    dp_pca_algorithm as dp_pca_algorithm,
    rows_needed as rows_needed,
)
from .liu_example import LIU_EXAMPLE_41
from .liu_spiked_model import LIU_SPIKED


PAPER = Paper(
    "liu",
    "Liu et al.: DP-PCA",
    "Xiyang Liu, Weihao Kong, Prateek Jain & Sewoong Oh, DP-PCA: Statistically Optimal and "
    "Differentially Private PCA, NeurIPS 2022",
    "Private Oja (private_oja) against DP-PCA (dp_pca) on the paper's Example 4.1 and its spiked " "model.",
    (
        LIU_EXAMPLE_41,
        LIU_SPIKED,
    ),
)

liu_example_41 = reproduction_function(LIU_EXAMPLE_41)
liu_spiked = reproduction_function(LIU_SPIKED)
