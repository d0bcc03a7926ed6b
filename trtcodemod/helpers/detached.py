"""``x.data`` whose sizes a trace keeps (TRT354).

``x.data`` is a new tensor that shares ``x``'s storage outside autograd. While ``torch.jit.trace``
(which the TorchScript exporter runs) records the model, that tensor is no traced value: its sizes
are the example's Python ints, and a ``view``/``reshape`` built from ``x.data.size()`` keeps them
as constants, with no ``TracerWarning``. The helper is ``x.data`` everywhere else; while a trace
records, it hands back ``x`` itself, whose sizes are the same numbers and are recorded.
"""

import torch


def _trt_sized_data(value):
    """``value.data``; the tensor itself while a trace records the model (the same sizes, traced)."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return value
    return value.data
