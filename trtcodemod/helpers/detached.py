"""``x.data`` whose sizes and values a trace keeps (TRT354).

``x.data`` is a new tensor that shares ``x``'s storage outside autograd. While ``torch.jit.trace``
(which the TorchScript exporter runs) records the model, that tensor is no traced value: its sizes
are the example's Python ints, and a ``view``/``reshape`` built from ``x.data.size()`` keeps them
as constants, with no ``TracerWarning``. The helper is ``x.data`` everywhere else; while a trace
records, it hands back ``x`` itself, whose sizes are the same numbers and are recorded. Its values
alike: read through ``x.data`` (``x.data + grid``) they are a constant of the example's values in the
trace; ``_trt_traced_data`` hands back ``x.detach()`` while a trace records.
"""

import torch


def _trt_sized_data(value):
    """``value.data``; the tensor itself while a trace records the model (the same sizes, traced)."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return value
    return value.data


def _trt_traced_data(value):
    """``value.data``; while a trace records the model, ``value.detach()``: the same values outside
    autograd, which the trace records (``.data``'s values would be the example's constant)."""
    if not torch.jit.is_scripting():
        if torch.jit.is_tracing() and isinstance(value, torch.Tensor):
            return value.detach()
    return value.data
