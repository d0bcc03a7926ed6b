"""Exact adaptive average pooling without the ONNX export's size restrictions.

``F.adaptive_avg_pool2d(x, s)`` exports (TorchScript exporter) only when ``s`` is 1
or divides the input size *and* the input size is static; with a dynamic spatial
axis, a ``None`` entry or a non-dividing size the export fails. These helpers
compute PyTorch's bins directly: bin ``i`` of ``o`` over an axis of length ``n``
spans ``[floor(i*n/o), ceil((i+1)*n/o))``, with the bin limits computed as tensors
from the input's shape, so a traced export stays correct for every size.

Each bin gathers its own elements and masks the unused slots with ``torch.where``
before summing, so an inf or NaN stays inside the bins that contain it (an
averaging matrix or a cumulative-sum difference would spread ``0*inf`` and
``inf-inf`` NaNs to other bins). Like PyTorch, it sums first and divides by the
bin size last, accumulating float16/bfloat16 in float32.

Outside ``torch.onnx.export`` the helpers are ``F.adaptive_avg_pool1d/2d`` themselves,
so eager results, strides (``x.view(n, -1)`` after the pool keeps working), gradients,
quantized inputs and speed are torch's own.
"""

from __future__ import annotations

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_adaptive_bin_sum(x: torch.Tensor, dim: int, bins: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Sums of ``x`` over the ``bins`` adaptive-pooling bins of axis ``dim``, and each bin's size."""
    dim, last = dim % x.dim(), x.dim() - 1  # the exporter mishandles negative axes in movedim
    n = x.shape[dim]  # a traced value, not a constant, when exporting with dynamic axes
    i = torch.arange(bins, device=x.device)
    step = max(bins, 1)  # bins == 0 gives an empty result; never divide by zero
    # Bin i spans [floor(i*n/bins), ceil((i+1)*n/bins)); all terms are >= 0, so the
    # truncating division (a plain ONNX Div) is the floor.
    start = torch.div(i * n, step, rounding_mode="trunc")
    end = torch.div((i + 1) * n + step - 1, step, rounding_mode="trunc")
    if bins == 1:
        return x.sum(dim, keepdim=True), end - start
    # No bin is longer than n // bins + 2; slots past a bin's end are masked out.
    slots = start[:, None] + torch.arange(n // step + 2, device=x.device)
    inside = slots < end[:, None]
    index = torch.minimum(slots, end[:, None] - 1)
    values = x.movedim(dim, last)[..., index]  # (..., bins, slots)
    sums = torch.where(inside, values, torch.zeros((), dtype=x.dtype, device=x.device)).sum(-1)
    return sums.movedim(last, dim), end - start


def _trt_adaptive_avg_pool1d(input: torch.Tensor, output_size: list[int]) -> torch.Tensor:
    """``F.adaptive_avg_pool1d``; while exporting to ONNX, exact bins that follow dynamic lengths."""
    if torch.jit.is_scripting():
        return torch.nn.functional.adaptive_avg_pool1d(input, output_size)
    if _trt_onnx_exporting() and isinstance(input, torch.Tensor) and input.dim() in (2, 3) and input.is_floating_point():
        size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
        if type(size) is int and size >= 0:
            return _trt_adaptive_avg_pool1d_onnx(input, size)
    return torch.nn.functional.adaptive_avg_pool1d(input, output_size)


def _trt_adaptive_avg_pool1d_onnx(input: torch.Tensor, size: int) -> torch.Tensor:
    """Adaptive average pooling of the last axis of a floating 2-D/3-D ``input`` into ``size`` bins."""
    if size == 1:
        return input.mean(-1, keepdim=True)
    acc = input.float() if input.dtype in (torch.float16, torch.bfloat16) else input
    sums, counts = _trt_adaptive_bin_sum(acc, -1, size)
    return (sums / counts.to(acc.dtype)).to(input.dtype)


def _trt_adaptive_avg_pool2d(input: torch.Tensor, output_size: list[int]) -> torch.Tensor:
    """``F.adaptive_avg_pool2d``; while exporting to ONNX, exact bins that follow dynamic sizes."""
    if torch.jit.is_scripting():
        # TorchScript passes an int as a one-element list; F.adaptive_avg_pool2d wants two.
        sizes = output_size * 2 if len(output_size) == 1 else output_size
        return torch.nn.functional.adaptive_avg_pool2d(input, sizes)
    if _trt_onnx_exporting() and isinstance(input, torch.Tensor) and input.dim() in (3, 4) and input.is_floating_point():
        sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size, output_size)
        if len(sizes) == 2 and all(size is None or (type(size) is int and size >= 0) for size in sizes):
            return _trt_adaptive_avg_pool2d_onnx(input, sizes)
    return torch.nn.functional.adaptive_avg_pool2d(input, output_size)


def _trt_adaptive_avg_pool2d_onnx(input: torch.Tensor, sizes: tuple) -> torch.Tensor:
    """Adaptive average pooling of a floating 3-D/4-D ``input``; ``sizes`` is (height, width),
    ``None`` keeping an axis."""
    if all(size in (1, None) for size in sizes) and sizes != (None, None):
        # One bin per pooled axis: the mean, which exports as a single ReduceMean.
        return input.mean(tuple(d for d, size in zip((-2, -1), sizes) if size == 1), keepdim=True)
    acc = input.float() if input.dtype in (torch.float16, torch.bfloat16) else input
    total = acc
    count = torch.ones((1, 1), dtype=acc.dtype, device=acc.device)
    if sizes[1] is not None:  # pool the width first, then the height
        total, counts_w = _trt_adaptive_bin_sum(total, -1, sizes[1])
        count = count * counts_w.to(acc.dtype)[None, :]
    if sizes[0] is not None:
        total, counts_h = _trt_adaptive_bin_sum(total, -2, sizes[0])
        count = count * counts_h.to(acc.dtype)[:, None]
    return (total / count).to(input.dtype)


def _trt_area_resize(input: torch.Tensor, size: list[int]) -> torch.Tensor:
    """``F.interpolate(input, size=size, mode="area")``, which is adaptive average pooling; while
    exporting to ONNX, a floating 4-D input takes the exact bins that follow dynamic sizes."""
    if torch.jit.is_scripting():
        return torch.nn.functional.interpolate(input, size=size, mode="area")
    if _trt_onnx_exporting() and isinstance(input, torch.Tensor) and input.dim() == 4 and input.is_floating_point():
        sizes = tuple(size) if isinstance(size, (tuple, list)) else (size, size)
        if len(sizes) == 2 and all(type(s) is int and s >= 0 for s in sizes):
            return _trt_adaptive_avg_pool2d_onnx(input, sizes)
    return torch.nn.functional.interpolate(input, size=size, mode="area")


class _TrtAdaptiveAvgPool1d(torch.nn.AdaptiveAvgPool1d):
    """``nn.AdaptiveAvgPool1d`` that exports with dynamic lengths (same arguments, no parameters)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return _trt_adaptive_avg_pool1d(input, self.output_size)


class _TrtAdaptiveAvgPool2d(torch.nn.AdaptiveAvgPool2d):
    """``nn.AdaptiveAvgPool2d`` that exports with dynamic sizes (same arguments, no parameters)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return _trt_adaptive_avg_pool2d(input, self.output_size)
