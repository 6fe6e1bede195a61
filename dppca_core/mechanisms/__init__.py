"""Built-in mechanisms. Importing a module registers its mechanisms."""
from . import central, distributed, local, streaming, wishart  # noqa: F401

try:  # mechanisms that live in their own modules register on import
    from . import exponential  # noqa: F401
except ImportError:  # pragma: no cover - only while a module is being written
    pass
from . import coinpress, trace_sensitive, topk_dppca  # noqa: E402,F401  (issue 39; after the others: colours stay)
from ..tensor import mechanisms as _tensor_mechanisms  # noqa: E402,F401  (task="tensor"; last, so earlier colours stay)
