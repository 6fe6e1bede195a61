"""dppca_core: differentially private PCA mechanisms, calibration, metrics and data.

UI-free; every function takes numpy arrays and an explicit ``numpy.random.Generator``
(or seed) for randomness. The modules are grouped by what they do (docs/architecture.md): ``privacy/``,
``data/``, ``pipeline/``, ``mechanisms/``, ``compiled/``; import a module from its package (``dppca_core.data.stats``,
``dppca_core.pipeline.experiments``), or the names this package exports.
"""

from . import metrics, privacy  # noqa: F401
from .data import datasets  # noqa: F401  (``dc.datasets``: the synthetic laws and the shipped samples)
from .api import run
from .data.prepare import PreparedData, gram_from_chunks, prepare
from .data.stats import SufficientStats, sufficient_stats
from .pipeline.budget import BudgetSplit, release_pca, release_with
from .pipeline.options import ReleaseOptions
from .planning import Plan, Standin, plan
from .privacy.randomness import secure_generator
from .registry import get_mechanism, list_mechanisms, mechanism_names
from .release import Release, publish
from .version import __version__  # noqa: F401  (the one place it is written; pyproject.toml reads it)

try:
    from .estimator import DPPCA, ClippingWarning
except ImportError:  # pragma: no cover - scikit-learn missing
    DPPCA = ClippingWarning = None

__all__ = [
    "run",
    "release_pca",
    "release_with",
    "ReleaseOptions",
    "BudgetSplit",
    "plan",
    "Plan",
    "Standin",
    "sufficient_stats",
    "SufficientStats",
    "Release",
    "publish",
    "secure_generator",
    "list_mechanisms",
    "get_mechanism",
    "mechanism_names",
    "prepare",
    "gram_from_chunks",
    "PreparedData",
    "metrics",
    "privacy",
    "datasets",
    "DPPCA",
    "ClippingWarning",
]
