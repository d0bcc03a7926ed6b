"""Bicubic ``F.interpolate`` exported as two weight matrices, not as a cubic ``Resize`` (TRT727).

Both PyTorch exporters turn ``F.interpolate(x, ..., mode="bicubic")`` into an ONNX ``Resize``
with ``mode="cubic"``, which TensorRT's parser rejects (it resizes nearest and linear only).
Bicubic interpolation is separable and linear in the input: each output row is a fixed
combination of four input rows. So ``_trt_bicubic_onnx`` builds PyTorch's own weights as an
``(out_h, in_h)`` and an ``(out_w, in_w)`` matrix from the input and output sizes (Range,
Floor, Min/Max, Equal, Mul, Add: all parsed by TensorRT, and dynamic when the sizes are) and
computes ``Wh @ x @ Ww^T`` (two MatMuls).

The weights are PyTorch's (``upsample_bicubic2d``): the cubic convolution kernel with
A = -0.75, the source coordinate ``scale * (i + 0.5) - 0.5`` (``scale * i`` with
``align_corners=True``), ``scale`` being ``1 / scale_factor`` when a scale factor is given and
not recomputed and ``in / out`` otherwise, and the four taps clamped to the border. What
differs is only the summation order (rounding), and that a matrix product multiplies every
input element by its weight, zero or not: 0 * inf and 0 * NaN are NaN, so one inf or NaN turns
the whole output plane of its image and channel into NaN (or inf), where PyTorch's four-tap sum changes
only the outputs beside it.

``_trt_interpolate`` has ``F.interpolate``'s signature and is ``F.interpolate`` itself outside
``torch.onnx.export``; only while exporting does a bicubic, non-antialiased call on a 4-D
floating tensor take the weight matrices.
"""

from __future__ import annotations

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                     recompute_scale_factor=None, antialias=False):
    """``F.interpolate``; while exporting to ONNX, bicubic as matrix products TensorRT parses."""
    if (not torch.jit.is_scripting() and mode == "bicubic" and not antialias and _trt_onnx_exporting()
            and isinstance(input, torch.Tensor) and input.dim() == 4 and input.is_floating_point()
            and (size is None) != (scale_factor is None)):
        return _trt_bicubic_onnx(input, size, scale_factor, bool(align_corners), bool(recompute_scale_factor))
    return torch.nn.functional.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor,
                                           antialias)


def _trt_bicubic_onnx(input, size, scale_factor, align_corners, recompute_scale_factor):
    """``F.interpolate(input, size or scale_factor, mode="bicubic")`` of a 4-D floating tensor as
    ``Wh @ input @ Ww^T``; float16/bfloat16 are computed in float32 and rounded back."""
    dtype = input.dtype
    compute = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    x = input if dtype == compute else input.to(compute)
    in_h, in_w = x.shape[-2], x.shape[-1]
    if size is not None:
        out_h, out_w = (size[0], size[1]) if isinstance(size, (tuple, list)) else (size, size)
        scale_h = scale_w = None
    else:
        scale_h, scale_w = (scale_factor[0], scale_factor[1]) if isinstance(scale_factor, (tuple, list)) \
            else (scale_factor, scale_factor)
        out_h, out_w = _trt_scaled_size(in_h, scale_h), _trt_scaled_size(in_w, scale_w)
        if recompute_scale_factor:
            scale_h = scale_w = None  # the coordinates then come from the sizes, as in PyTorch
    weight_h = _trt_cubic_weights(in_h, out_h, scale_h, align_corners, compute, x.device)
    weight_w = _trt_cubic_weights(in_w, out_w, scale_w, align_corners, compute, x.device)
    out = torch.matmul(torch.matmul(weight_h, x), weight_w.transpose(0, 1))
    return out if out.dtype == dtype else out.to(dtype)


def _trt_scaled_size(size, factor):
    """``floor(size * factor)``: PyTorch's output size for a scale factor (a traced size stays
    traced; the TorchScript exporter's own ``F.interpolate`` computes it in float32 too)."""
    if isinstance(size, torch.Tensor):
        return torch.floor(size.to(torch.float32) * factor).to(torch.int64)
    return int(size * factor) if isinstance(size, int) else torch.sym_int(size * factor)


def _trt_cubic_weights(in_size, out_size, scale, align_corners, dtype, device):
    """The ``(out_size, in_size)`` matrix of PyTorch's bicubic weights along one axis.

    ``scale`` is the user's scale factor (None: from the sizes). Sizes may be ints, symbolic
    ints (dynamo exporter) or traced 0-d tensors (TorchScript exporter).
    """
    rows = torch.arange(out_size, device=device).to(dtype)
    cols = torch.arange(in_size, device=device).to(dtype)
    # The sizes as 1-element tensors counted from the ranges, not sliced from them (``rows[-1:]``): a
    # slice's length is symbolic for the dynamo exporter, which then cannot prove it broadcasts
    # against ``rows`` when the output size is computed (``h // 4``), and the export fails.
    n_out = torch.ones_like(rows).sum(0, keepdim=True)
    n_in = torch.ones_like(cols).sum(0, keepdim=True)
    if align_corners:
        # (in - 1) / (out - 1), and 0 for a single output (its coordinate is 0 either way).
        real = rows * ((n_in - 1) / torch.clamp(n_out - 1, min=1))
    else:
        if scale is not None and scale > 0:
            step = torch.full((1,), 1.0 / scale, dtype=dtype, device=device)
        else:
            step = n_in / n_out
        real = step * (rows + 0.5) - 0.5
    index = torch.floor(real)
    t = torch.clamp(real - index, 0, 1)
    a = -0.75
    # PyTorch's cubic convolution coefficients for the taps at index - 1, index, index + 1, index + 2.
    s = t + 1
    c0 = ((a * s - 5 * a) * s + 8 * a) * s - 4 * a
    c1 = ((a + 2) * t - (a + 3)) * t * t + 1
    u = 1 - t
    c2 = ((a + 2) * u - (a + 3)) * u * u + 1
    s = u + 1
    c3 = ((a * s - 5 * a) * s + 8 * a) * s - 4 * a
    last = n_in - 1
    weights = None
    for offset, coefficient in ((-1, c0), (0, c1), (1, c2), (2, c3)):
        # Taps past the border read the border element, as in PyTorch: their weights add up there.
        tap = torch.minimum(torch.clamp(index + offset, min=0), last)
        term = (tap[:, None] == cols[None, :]).to(dtype) * coefficient[:, None]
        weights = term if weights is None else weights + term
    return weights


class _TrtUpsample(torch.nn.Upsample):
    """``nn.Upsample`` whose bicubic mode exports as weight matrices (same arguments, no parameters)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        if torch.jit.is_scripting():
            # TorchScript compiles only this branch: nn.Upsample's own call.
            return torch.nn.functional.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                                                   recompute_scale_factor=self.recompute_scale_factor)
        return _trt_interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                                recompute_scale_factor=self.recompute_scale_factor)
