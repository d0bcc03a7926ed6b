"""``torch.einsum`` and ``torch.outer`` of operands of two dtypes, exported with one (TRT370).

Eager mode promotes the operands of ``torch.einsum`` and ``torch.outer`` to one dtype (``torch.promote_types``
of theirs: an ``int64`` range times ``float32`` frequencies is ``float32``). Both exporters write ``einsum`` as one
ONNX ``Einsum`` node of the operands as they are, which ONNX Runtime refuses to load ("Type parameter (T) of
Optype (Einsum) bound to different types"); the TorchScript exporter writes ``outer`` as an ``Einsum`` after casting
the second operand to the first's dtype, so an ``int64`` range times float frequencies is an ``int64`` product of
truncated frequencies. The helpers are the original call outside an ONNX export; while exporting, they cast the
operands to their promoted dtype first, which is what eager mode computes with.
"""

import torch


def _trt_promoted_einsum(equation, operands):
    # type: (str, List[Tensor]) -> Tensor
    """``torch.einsum(equation, operands)``; while exporting to ONNX, of the operands cast to one dtype."""
    if torch.jit.is_scripting():
        return torch.einsum(equation, operands)
    return _trt_promoted_einsum_eager(equation, operands)


@torch.jit.unused
def _trt_promoted_einsum_eager(equation, operands):
    """``torch.einsum``, of operands cast to their promoted dtype while exporting (never runs when scripted)."""
    if torch.onnx.is_in_onnx_export():
        operands = _trt_promoted_operands(list(operands))
    return torch.einsum(equation, operands)


def _trt_promoted_outer(first, second):
    # type: (Tensor, Tensor) -> Tensor
    """``torch.outer(first, second)``; while exporting to ONNX, of the operands cast to one dtype."""
    if torch.jit.is_scripting():
        return torch.outer(first, second)
    return _trt_promoted_outer_eager(first, second)


@torch.jit.unused
def _trt_promoted_outer_eager(first, second):
    """``torch.outer``, of operands cast to their promoted dtype while exporting (never runs when scripted)."""
    if torch.onnx.is_in_onnx_export():
        first, second = _trt_promoted_operands([first, second])
    return torch.outer(first, second)


@torch.jit.unused
def _trt_promoted_operands(operands):
    """The tensors of ``operands`` cast to the dtype eager mode promotes them to (``torch.promote_types`` of all,
    which einsum and outer use: a 0-d ``float64`` operand makes ``float64``, unlike ``torch.result_type``);
    anything else as it is, for torch to refuse as it would."""
    tensors = [t for t in operands if isinstance(t, torch.Tensor)]
    if len(tensors) < 2:
        return operands
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    return [t.to(dtype) if isinstance(t, torch.Tensor) and t.dtype != dtype else t for t in operands]
