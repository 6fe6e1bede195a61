"""dppca_core: differentially private PCA mechanisms, calibration, metrics and data.

UI-free; every function takes numpy arrays and an explicit ``numpy.random.Generator``
(or seed) for randomness. The modules are grouped by what they do (docs/architecture.md): ``privacy/``,
``data/``, ``pipeline/``, ``mechanisms/``, ``compiled/``. The modules that moved there still import from their
old paths for one release (``_MOVED``), with a DeprecationWarning naming the new path.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: old module (under dppca_core) -> its new path; importing the old path warns and gives the new module
_MOVED = {
    "exact": "privacy.exact",
    "exact_kernels": "compiled.exact_kernels",
    "randomness": "privacy.randomness",
    "shares": "privacy.shares",
    "histogram": "privacy.histogram",
    "bingham": "privacy.bingham",
    "kernels": "compiled.kernels",
    "_compiled": "compiled.loops",
    "fantope": "mechanisms.fantope",
    "tables": "data.tables",
    "prepare": "data.prepare",
    "sites": "data.sites",
    "synthetic": "data.synthetic",
    "datasets": "data.datasets",
    "stats": "data.stats",
    "budget": "pipeline.budget",
    "choices": "pipeline.choices",
    "scores": "pipeline.scores",
    "ledger": "pipeline.ledger",
    "options": "pipeline.options",
    "experiments": "pipeline.experiments",
}


def _outside_caller() -> int:
    """The stack level of the first frame outside the import machinery and this file (where the warning points)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and (frame.f_code.co_filename == __file__ or "importlib" in frame.f_code.co_filename):
        frame = frame.f_back
        # warnings.warn itself skips the frozen import machinery's frames: count the others only
        level += frame is not None and "_bootstrap" not in frame.f_code.co_filename
    return level


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``dppca_core.<old>`` for the modules of ``_MOVED``: the module at its new path, with a warning."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, old = fullname.rpartition(".")
        return importlib.util.spec_from_loader(fullname, self) if package == __name__ and old in _MOVED else None

    def create_module(self, spec):
        new = f"{__name__}.{_MOVED[spec.name.rpartition('.')[2]]}"
        warnings.warn(
            f"{spec.name} moved to {new}; import it from there ({spec.name} goes in the next release)",
            DeprecationWarning,
            stacklevel=_outside_caller(),
        )
        return importlib.import_module(new)

    def exec_module(self, module):
        """The module was imported at its new path; nothing to run."""


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.insert(0, _MovedModules())  # before the editable install's finder, which knows the old files


def __getattr__(name: str):
    """``dppca_core.datasets`` and the other moved modules as attributes (imported, so with the warning)."""
    if name in _MOVED:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


from . import metrics, privacy  # noqa: E402, F401
from .data import datasets as _datasets  # noqa: E402, F401  (loaded with the package, as before the move)
from .api import run  # noqa: E402
from .data.prepare import PreparedData, gram_from_chunks, prepare  # noqa: E402
from .data.stats import SufficientStats, sufficient_stats  # noqa: E402
from .pipeline.budget import BudgetSplit, release_pca, release_with  # noqa: E402
from .pipeline.options import ReleaseOptions  # noqa: E402
from .planning import Plan, Standin, plan  # noqa: E402
from .privacy.randomness import secure_generator  # noqa: E402
from .registry import get_mechanism, list_mechanisms, mechanism_names  # noqa: E402
from .release import Release, publish  # noqa: E402
from .version import __version__  # noqa: E402, F401  (the one place it is written; pyproject.toml reads it)

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
