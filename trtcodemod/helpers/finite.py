"""Tests for infinities without the float64 Cast the TorchScript exporter writes for them (TRT733).

The TorchScript exporter writes ``aten::isinf`` (and ``isfinite``, and each replacement of
``nan_to_num``) as ONNX ``IsInf`` of its input cast to float64, a dtype TensorRT does not have
(torch 2.13, ``symbolic_opset10.isinf``); ``isposinf`` and ``isneginf`` do not export at all.
Each helper here is the torch function itself everywhere except inside ``torch.onnx.export``,
where a floating-point tensor takes comparisons TensorRT parses in its own dtype: ``|x| == inf``,
``|x| < inf`` (false for NaN, as ``isfinite``), ``x == inf``, ``x == -inf``, and ``nan_to_num`` as
three ``Where`` on those tests and ``x != x``. Each is exact (comparisons with infinity round
nothing), so the exported graph computes the function's values; integer and bool inputs, which
hold no infinity, give the constant answer in the input's shape.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_isinf(input):
    """``torch.isinf(input)``; while exporting, ``input.abs() == inf``."""
    if torch.jit.is_scripting():
        return torch.isinf(input)
    if isinstance(input, torch.Tensor) and not input.is_complex() and _trt_onnx_exporting():
        if not input.is_floating_point():
            return torch.zeros_like(input, dtype=torch.bool)
        return input.abs() == float("inf")
    return torch.isinf(input)


def _trt_isfinite(input):
    """``torch.isfinite(input)``; while exporting, ``input.abs() < inf`` (NaN compares false)."""
    if torch.jit.is_scripting():
        return torch.isfinite(input)
    if isinstance(input, torch.Tensor) and not input.is_complex() and _trt_onnx_exporting():
        if not input.is_floating_point():
            return torch.ones_like(input, dtype=torch.bool)
        return input.abs() < float("inf")
    return torch.isfinite(input)


def _trt_isposinf(input):
    """``torch.isposinf(input)``; while exporting, ``input == inf``."""
    if torch.jit.is_scripting():
        return torch.isposinf(input)
    if isinstance(input, torch.Tensor) and not input.is_complex() and _trt_onnx_exporting():
        if not input.is_floating_point():
            return torch.zeros_like(input, dtype=torch.bool)
        return input == float("inf")
    return torch.isposinf(input)


def _trt_isneginf(input):
    """``torch.isneginf(input)``; while exporting, ``input == -inf``."""
    if torch.jit.is_scripting():
        return torch.isneginf(input)
    if isinstance(input, torch.Tensor) and not input.is_complex() and _trt_onnx_exporting():
        if not input.is_floating_point():
            return torch.zeros_like(input, dtype=torch.bool)
        return input == -float("inf")
    return torch.isneginf(input)


def _trt_nan_to_num(input, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None):
    """``torch.nan_to_num(input, nan, posinf, neginf)``; while exporting, three ``Where`` on
    ``x == inf``, ``x == -inf`` and ``isnan(x)`` (infinities become the dtype's largest and
    smallest finite values unless given, as in torch)."""
    if torch.jit.is_scripting():
        return torch.nan_to_num(input, nan, posinf, neginf)
    if isinstance(input, torch.Tensor) and input.is_floating_point() and _trt_onnx_exporting():
        info = torch.finfo(input.dtype)
        high = info.max if posinf is None else posinf
        low = info.min if neginf is None else neginf
        # 0-d replacements broadcast: a ``full_like`` would be a ConstantOfShape of the input's
        # shape, which the exporter folds to the example's size where it infers that shape
        # statically (an Einsum's output), so the graph would refuse any other size.
        kept = torch.where(input == float("inf"), input.new_full((), high), input)
        kept = torch.where(input == -float("inf"), input.new_full((), low), kept)
        # isnan, not `input != input`: ONNX Runtime's optimizer turns a Where on a Not into a Where with its
        # branches swapped, and its Where reads a -0.0 from the first branch as 0.0 (`kept` may hold -0.0).
        return torch.where(torch.isnan(input), input.new_full((), nan), kept)
    return torch.nan_to_num(input, nan, posinf, neginf)
