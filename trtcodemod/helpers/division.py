"""Floor division (``//``, ``torch.floor_divide``) that exports as floor division (TRT339).

The TorchScript exporter writes ``aten::floor_divide`` (every tensor ``//``, a traced size's too) as
a ``Div`` that truncates toward zero, with a cast for floats (torch 2.13, opset 17): ``-7 // 2`` is
-4 in torch and -3 in the graph, and ``-(-h // s)`` (the ceiling idiom) one smaller than eager
mode even at the traced size. The helpers are ``//`` itself everywhere but in an export, where an
integer quotient is ``torch.div(..., rounding_mode="floor")`` (exported exactly: Div, Mod, a
sign test and a step down) and a floating one repeats torch's own kernel step by step (``fmod``,
the exact quotient of the difference, the step down where the signs differ, the rounding of
``floor``): the same values bit for bit, signed zeros and NaN included.
"""


import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_floor_divide(input, other):
    # type: (Tensor, Union[Tensor, int, float]) -> Tensor
    """``input // other``; while exporting, a floor division the graph computes as torch does."""
    if torch.jit.is_scripting():
        if isinstance(other, torch.Tensor):
            return torch.floor_divide(input, other)
        if isinstance(other, int):
            return torch.floor_divide(input, other)
        return torch.floor_divide(input, other)
    if isinstance(input, torch.Tensor) and not input.is_complex() and _trt_onnx_exporting():
        if isinstance(other, torch.Tensor) and not other.is_complex():
            return _trt_floor_divide_onnx(input, other)
        if isinstance(other, (int, float)) and not isinstance(other, bool):
            return _trt_floor_divide_onnx(input, other)
    return input // other


def _trt_div_floor(input, other):
    # type: (Tensor, Union[Tensor, int, float]) -> Tensor
    """``torch.div(input, other, rounding_mode="floor")``; while exporting, the same quotient as
    :func:`_trt_floor_divide` computes (the exporter writes a float one as ``Floor(Div)``, which floors
    the rounded quotient: ``1.0 // 0.1`` is 9.0 in torch and 10.0 there)."""
    if torch.jit.is_scripting():  # each type of `other` refined: torch.div has no overload for the Union
        if isinstance(other, torch.Tensor):
            return torch.div(input, other, rounding_mode="floor")
        if isinstance(other, int):
            return torch.div(input, other, rounding_mode="floor")
        return torch.div(input, other, rounding_mode="floor")
    if isinstance(input, torch.Tensor) and not input.is_complex() and _trt_onnx_exporting():
        if (isinstance(other, torch.Tensor) and not other.is_complex()) or \
                (isinstance(other, (int, float)) and not isinstance(other, bool)):
            return _trt_floor_divide_onnx(input, other)
    return torch.div(input, other, rounding_mode="floor")


@torch.jit.unused
def _trt_floor_divide_onnx(input, other):
    dtype = torch.result_type(input, other)
    if dtype == torch.bool:
        return input // other  # torch refuses it: keep its error
    if not dtype.is_floating_point:
        return torch.div(input, other, rounding_mode="floor")
    # torch's floating kernel (c10's div_floor_floating), each step rounded to the quotient's type as torch's
    # is; a half or bfloat16 tensor divided by a Python number is computed in float (the number is not rounded
    # to the half type first), as torch does, and rounded at the end.
    compute = dtype
    if not isinstance(other, torch.Tensor) and dtype in (torch.float16, torch.bfloat16):
        compute = torch.float32
    a = input.to(compute)
    b = other.to(compute) if isinstance(other, torch.Tensor) else torch.zeros((), dtype=compute, device=a.device) + other
    mod = torch.fmod(a, b)
    div = (a - mod) / b
    div = torch.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    floor = torch.floor(div)
    floor = torch.where(div - floor > 0.5, floor + 1, floor)
    # A zero quotient takes the sign of a / b. Its sign is applied as a product with +-1: ONNX Runtime's
    # Where turns a -0.0 it picks from its first branch into 0.0, and its optimizer swaps the branches
    # of a Where whose condition is a Not (`!=`), so no -0.0 goes through a Where here.
    ratio = a / b
    one = torch.ones((), dtype=compute, device=a.device)
    negative = (ratio < 0) | ((ratio == 0) & (torch.reciprocal(ratio) < 0))
    nonzero = div != 0
    quotient = torch.where(nonzero, floor, torch.zeros_like(one)) * torch.where(nonzero, one, torch.where(negative, -one, one))
    return torch.where(b == 0, ratio, quotient).to(dtype)
