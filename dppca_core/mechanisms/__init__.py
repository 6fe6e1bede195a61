"""Built-in mechanisms. Importing a module registers its mechanisms, in this order (a mechanism's colour is
declared with it, so the order only sets how lists show them); a module that fails to import fails here, loudly."""

from . import central, distributed, local, streaming, wishart  # noqa: F401
from . import exponential  # noqa: F401
from . import coinpress, trace_sensitive, topk_dppca  # noqa: F401  (issue 39)
from . import tail_sensitive  # noqa: F401  (issue 39)
from . import spatial_sign  # noqa: F401  (issue 56)
from ..tensor import mechanisms as _tensor_mechanisms  # noqa: F401  (task="tensor")
