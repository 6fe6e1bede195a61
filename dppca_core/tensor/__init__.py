"""Private orthogonal tensor decomposition for latent-variable models (task "tensor").

Modules: :mod:`.symmetric` (unique coordinates of symmetric matrices and tensors), :mod:`.moments` (inputs
and the empirical moments M2, M3), :mod:`.synthetic` (mixture of Gaussians and single topic model with known
parameters), :mod:`.power` (whitening and the tensor power method), :mod:`.calibration` (sensitivities,
K-norm mechanism, correlated noise), :mod:`.metrics` (q_comp, weight error, random baseline),
:mod:`.mechanisms` (the registered mechanisms), :mod:`.auditing` (their audit design) and
:mod:`.experiments` (the comparisons the Tensor page draws).

Importing :mod:`dppca_core.mechanisms` registers the mechanisms; this package itself imports nothing heavy.
"""

from .moments import Documents, TensorData, prepare_tensor_input  # noqa: F401

__all__ = ["Documents", "TensorData", "prepare_tensor_input"]
