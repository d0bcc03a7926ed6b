"""In-place comparisons (``x.gt_(v)``) exported in the input's own type (TRT323).

``x.gt_(0.5)`` writes ``x > 0.5`` into ``x`` as ``x``'s type: 1.0 and 0.0 for a float tensor. The
TorchScript exporter (torch 2.13, any opset) writes it as the comparison alone: ONNX ``Greater``,
whose output is bool, and nothing casts it back. The graph's output is then bool where the model
returns float32, and arithmetic on it downstream is either promoted otherwise (``* 2`` of a bool
exports as an int64 product) or refused (``Add`` of a bool and a float: ONNX Runtime rejects the
graph). ``_trt_compare_`` is the in-place method itself everywhere except while that exporter
traces, where it writes the comparison cast to the input's type into the input (zeroed, then the
0/1 added), which exports as the comparison and a ``Cast``, an input of the graph included. The
dynamo exporter writes the cast itself: it keeps the method.
"""

import torch


def _trt_compare_(input, op, other=None):
    # type: (Tensor, str, Optional[Union[Tensor, float, int, bool]]) -> Tensor
    """``input.<op>_(other)`` (``gt``, ``ge``, ``lt``, ``le``, ``eq``, ``ne``, ``logical_and``,
    ``logical_or``, ``logical_xor``, ``logical_not``); while the TorchScript exporter traces, the
    comparison cast to the input's type and written into it."""
    if torch.jit.is_scripting():
        if other is None:
            return _trt_compare_scripted(input, op, None)
        if isinstance(other, torch.Tensor):
            return _trt_compare_scripted(input, op, other)
        # Each type refined: torch.tensor has no overload for the Union. A number becomes a 0-d tensor, which
        # takes part in type promotion as the number does (a float one in the default float type).
        if isinstance(other, bool):
            return _trt_compare_scripted(input, op, torch.tensor(other))
        if isinstance(other, int):
            return _trt_compare_scripted(input, op, torch.tensor(other))
        return _trt_compare_scripted(input, op, torch.tensor(other))
    return _trt_compare_eager(input, op, other)


@torch.jit.unused
def _trt_compare_eager(input, op, other):
    if isinstance(input, torch.Tensor) and torch.jit.is_tracing() and torch.onnx.is_in_onnx_export():
        result = getattr(torch, op)(input) if other is None else getattr(torch, op)(input, other)
        # Zeroed and the 0/1 added, not copied: the exporter has no symbolic for the `aten::copy` that a
        # copy into one of the graph's inputs becomes (a comparison of a forward argument).
        if input.dtype == torch.bool:
            return input.zero_().logical_or_(result)
        return input.zero_().add_(result.to(input.dtype))
    return getattr(input, op + "_")() if other is None else getattr(input, op + "_")(other)


def _trt_compare_scripted(input, op, other):
    # type: (Tensor, str, Optional[Tensor]) -> Tensor
    if other is None:
        if op == "logical_not":
            return input.logical_not_()
        raise RuntimeError(op + "_ takes another operand")
    if op == "gt":
        return input.gt_(other)
    if op == "ge":
        return input.ge_(other)
    if op == "lt":
        return input.lt_(other)
    if op == "le":
        return input.le_(other)
    if op == "eq":
        return input.eq_(other)
    if op == "ne":
        return input.ne_(other)
    if op == "logical_and":
        return input.logical_and_(other)
    if op == "logical_or":
        return input.logical_or_(other)
    if op == "logical_xor":
        return input.logical_xor_(other)
    raise RuntimeError("no in-place comparison " + op + "_")
