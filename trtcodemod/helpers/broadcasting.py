"""A value written through a subscript, broadcast in the graph to the written part's run-time shape (TRT388).

``t[..., 2] = v`` where ``v`` has fewer elements than ``t[..., 2]`` (a ``(b, n, 1)`` value into ``(b, n, p)``,
a row into a batch) broadcasts in eager mode. The TorchScript exporter writes the assignment as an
``index_put`` and broadcasts the value with a ``Reshape``/``Expand`` to the shape the written part had in
the traced example: at any other size of a dynamic axis ONNX Runtime refuses that ``Reshape`` ("the input
tensor cannot be reshaped to the requested shape") and TensorRT's parser fixes the write to the example's
shape. Expanded to the written part's shape first (``expand_as``, whose target shape the graph reads from
the tensor at run time), the value needs no broadcast, and the export follows every size.

The helper is the value itself outside a TorchScript export (the assignment then broadcasts it as before);
while the exporter traces, the value expanded to the written part's shape where that is a broadcast
(``expand_as`` raises where the assignment would too; a value of more axes than the part is left as it is).
"""

import torch


def _trt_broadcast_written(value, written):
    # type: (Tensor, Tensor) -> Tensor
    """``value`` as ``written[...] = value`` takes it; expanded to ``written``'s shape while the TorchScript
    exporter traces."""
    if torch.jit.is_scripting():
        return value
    return _trt_broadcast_written_eager(value, written)


@torch.jit.unused
def _trt_broadcast_written_eager(value, written):
    """The value, or its expansion to ``written``'s shape while the TorchScript exporter traces (never runs
    when scripted)."""
    if not (torch.jit.is_tracing() and torch.onnx.is_in_onnx_export()):
        return value
    if not isinstance(value, torch.Tensor) or value.dim() > written.dim():
        return value
    return value.expand_as(written)
