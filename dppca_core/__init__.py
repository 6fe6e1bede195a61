"""dppca_core: differentially private PCA mechanisms, calibration, metrics and data.

UI-free; every function takes numpy arrays and an explicit ``numpy.random.Generator``
(or seed) for randomness.
"""
from . import datasets, metrics, privacy  # noqa: F401
from .api import run
from .budget import BudgetSplit, release_pca, release_with
from .options import ReleaseOptions
from .planning import Plan, Standin, plan
from .prepare import PreparedData, gram_from_chunks, prepare
from .registry import get_mechanism, list_mechanisms, mechanism_names
from .randomness import secure_generator
from .release import Release, publish
from .stats import SufficientStats, sufficient_stats

try:
    from .estimator import DPPCA, ClippingWarning
except ImportError:  # pragma: no cover - scikit-learn missing
    DPPCA = ClippingWarning = None

__all__ = ["run", "release_pca", "release_with", "ReleaseOptions", "BudgetSplit", "plan", "Plan", "Standin",
           "sufficient_stats", "SufficientStats", "Release", "publish", "secure_generator", "list_mechanisms",
           "get_mechanism", "mechanism_names", "prepare",
           "gram_from_chunks", "PreparedData", "metrics", "privacy", "datasets", "DPPCA", "ClippingWarning"]
__version__ = "0.1.0"
