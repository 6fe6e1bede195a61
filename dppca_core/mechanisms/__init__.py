"""Built-in mechanisms. Importing a module registers its mechanisms, in this order (how lists show them, and the
order in which the charts give the families their colours: dppca_core.figures.base); then every other module of this
package, so a new mechanism's module registers itself with no edit here. A module that fails to import fails here,
loudly."""

import importlib
import pkgutil

from . import central, distributed, local, streaming, wishart  # noqa: F401
from . import exponential  # noqa: F401
from . import coinpress, trace_sensitive, topk_dppca  # noqa: F401  (issue 39)
from . import tail_sensitive  # noqa: F401  (issue 39)
from . import spatial_sign  # noqa: F401  (issue 56)
from ..tensor import mechanisms as _tensor_mechanisms  # noqa: F401  (task="tensor")

#: the modules of this package that declare no mechanism: helpers of the others, and the provenance script (imported
#: here, ``python -m`` would run it a second time)
HELPERS = {"dp_pca_steps", "fantope", "provenance", "rates", "sources"}
for _module in pkgutil.iter_modules(__path__):  # a module not listed above: a new one, registered after the others
    if _module.name not in HELPERS:
        importlib.import_module(f"{__name__}.{_module.name}")
