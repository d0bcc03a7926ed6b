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

A bin count may itself be read from a shape (SAFMN's pyramid pools to ``(h // 2**i, w // 2**i)``):
while the TorchScript exporter traces, that is a 0-d integer tensor, and the bins are computed from
it in the graph as from the axis's length, so the pyramid follows every input size.

Outside ``torch.onnx.export`` the helpers are ``F.adaptive_avg_pool1d/2d`` themselves,
so eager results, strides (``x.view(n, -1)`` after the pool keeps working), gradients,
quantized inputs and speed are torch's own.
"""

from __future__ import annotations

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting
from trtcodemod.helpers.splitting import _trt_traced_count


def _trt_adaptive_bin_bounds(x: torch.Tensor, dim: int, bins: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Where each of the ``bins`` adaptive-pooling bins of axis ``dim`` of ``x`` starts and ends."""
    n = x.shape[dim]  # a traced value, not a constant, when exporting with dynamic axes
    i = torch.arange(bins, device=x.device)
    step = _trt_adaptive_bin_step(bins)  # bins == 0 gives an empty result; never divide by zero
    # Bin i spans [floor(i*n/bins), ceil((i+1)*n/bins)); all terms are >= 0, so the
    # truncating division (a plain ONNX Div) is the floor.
    start = torch.div(i * n, step, rounding_mode="trunc")
    end = torch.div((i + 1) * n + step - 1, step, rounding_mode="trunc")
    return start, end


def _trt_adaptive_bin_gather(x: torch.Tensor, dim: int, bins: int, start: torch.Tensor,
                             end: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The elements of each of the ``bins`` bins ``[start, end)`` of axis ``dim`` of ``x``, that axis
    split into ``(bins, slots)`` in place (one Gather of a 2-D index: the result is contiguous, as
    torch's pooling output is, so a ``view`` after the pool traces), and which slots are inside
    their bin, shaped to broadcast against it. A slot past its bin's end repeats the bin's last
    element, never an element of another bin."""
    dim = dim % x.dim()
    n = x.shape[dim]
    width = n // _trt_adaptive_bin_step(bins) + 2  # no bin is longer than n // bins + 2
    slots = start[:, None] + torch.arange(width, device=x.device)
    inside = slots < end[:, None]
    index = torch.minimum(slots, end[:, None] - 1)
    values = x[(slice(None),) * dim + (index,)]
    return values, inside[(Ellipsis,) + (None,) * (x.dim() - dim - 1)]


def _trt_adaptive_bin_step(bins):
    """``max(bins, 1)``, kept in the graph for a traced count (never runs when scripted)."""
    if isinstance(bins, torch.Tensor):
        return bins.clamp(min=1)
    return max(bins, 1)


def _trt_pool_bins(size) -> bool:
    """A bin count the export form takes: a positive ``int``, or a count read from a shape while the
    TorchScript exporter traces (a 0-d integer tensor), which the graph keeps as it is."""
    return (type(size) is int and size >= 1) or (torch.jit.is_tracing() and _trt_traced_count(size))


def _trt_adaptive_bin_sum(x: torch.Tensor, dim: int, bins: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Sums of ``x`` over the ``bins`` adaptive-pooling bins of axis ``dim``, and each bin's size."""
    start, end = _trt_adaptive_bin_bounds(x, dim, bins)
    if type(bins) is int and bins == 1:
        return x.sum(dim, keepdim=True), end - start
    values, inside = _trt_adaptive_bin_gather(x, dim, bins, start, end)
    # Slots past a bin's end are masked out.
    sums = torch.where(inside, values, torch.zeros((), dtype=x.dtype, device=x.device)).sum(dim % x.dim() + 1)
    return sums, end - start


def _trt_adaptive_bin_max(x: torch.Tensor, dim: int, bins: int) -> torch.Tensor:
    """Maxima of ``x`` over the ``bins`` adaptive-pooling bins of axis ``dim``: a slot past its bin's
    end repeats an element of the bin, so every slot is read (NaN where a bin holds one)."""
    if type(bins) is int and bins == 1:
        return x.amax(dim, keepdim=True)
    start, end = _trt_adaptive_bin_bounds(x, dim, bins)
    values, _ = _trt_adaptive_bin_gather(x, dim, bins, start, end)
    return values.amax(dim % x.dim() + 1)


def _trt_adaptive_avg_pool1d(input: torch.Tensor, output_size: list[int]) -> torch.Tensor:
    """``F.adaptive_avg_pool1d``; while exporting to ONNX, exact bins that follow dynamic lengths."""
    if torch.jit.is_scripting():
        return torch.nn.functional.adaptive_avg_pool1d(input, output_size)
    if _trt_onnx_exporting() and isinstance(input, torch.Tensor) and input.dim() in (2, 3) and input.is_floating_point():
        size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
        if (type(size) is int and size >= 0) or _trt_pool_bins(size):
            return _trt_adaptive_avg_pool1d_onnx(input, size)
    return torch.nn.functional.adaptive_avg_pool1d(input, output_size)


def _trt_adaptive_avg_pool1d_onnx(input: torch.Tensor, size: int) -> torch.Tensor:
    """Adaptive average pooling of the last axis of a floating 2-D/3-D ``input`` into ``size`` bins."""
    if type(size) is int and size == 1:
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
        if len(sizes) == 2 and all(size is None or (type(size) is int and size >= 0) or _trt_pool_bins(size)
                                   for size in sizes):
            return _trt_adaptive_avg_pool2d_onnx(input, sizes)
    return torch.nn.functional.adaptive_avg_pool2d(input, output_size)


def _trt_adaptive_avg_pool2d_onnx(input: torch.Tensor, sizes: tuple) -> torch.Tensor:
    """Adaptive average pooling of a floating 3-D/4-D ``input``; ``sizes`` is (height, width),
    ``None`` keeping an axis."""
    if (all(size is None or (type(size) is int and size == 1) for size in sizes)
            and not (sizes[0] is None and sizes[1] is None)):
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
        if len(sizes) == 2 and all((type(s) is int and s >= 0) or _trt_pool_bins(s) for s in sizes):
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


def _trt_no_elements(x: torch.Tensor) -> bool:
    """``x.numel() == 0``, read from ``nbytes`` while the TorchScript exporter traces (a Python int
    there, where ``numel()`` is a traced value turned into a bool with a TracerWarning)."""
    if torch.jit.is_tracing():
        return x.nbytes == 0
    return x.numel() == 0


def _trt_adaptive_max_pool1d(input, output_size):
    # type: (Tensor, BroadcastingList1[int]) -> Tensor
    """``F.adaptive_max_pool1d(input, output_size)``; while exporting to ONNX, the maximum of each of
    PyTorch's exact bins, computed from the traced length so the graph follows any length.

    (The type comment keeps ``torch.jit.script`` taking an int or a one-element sequence, as torch's
    own function does.)"""
    if torch.jit.is_scripting():
        return torch.nn.functional.adaptive_max_pool1d(input, output_size)
    # An empty input keeps torch's function: its empty result, or its error for an empty pooled axis.
    if (_trt_onnx_exporting() and isinstance(input, torch.Tensor) and input.dim() in (2, 3)
            and input.is_floating_point() and not _trt_no_elements(input)):
        size = output_size[0] if isinstance(output_size, (tuple, list)) and len(output_size) == 1 else output_size
        if _trt_pool_bins(size):
            return _trt_adaptive_bin_max(input, -1, size)
    return torch.nn.functional.adaptive_max_pool1d(input, output_size)


def _trt_adaptive_max_pool2d(input, output_size):
    # type: (Tensor, BroadcastingList2[int]) -> Tensor
    """``F.adaptive_max_pool2d(input, output_size)``; while exporting to ONNX, the maximum of each of
    PyTorch's exact bins (``None`` keeps an axis), computed from the traced sizes so the graph
    follows any height and width. The maximum is separable: the width's bins, then the height's."""
    if torch.jit.is_scripting():
        return torch.nn.functional.adaptive_max_pool2d(input, output_size)
    if (_trt_onnx_exporting() and isinstance(input, torch.Tensor) and input.dim() in (3, 4)
            and input.is_floating_point() and not _trt_no_elements(input)):  # empty: torch's result or error
        sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size, output_size)
        if (len(sizes) == 2 and not (sizes[0] is None and sizes[1] is None)
                and all(size is None or _trt_pool_bins(size) for size in sizes)):
            out = input
            if sizes[1] is not None:
                out = _trt_adaptive_bin_max(out, -1, sizes[1])
            if sizes[0] is not None:
                out = _trt_adaptive_bin_max(out, -2, sizes[0])
            return out
    return torch.nn.functional.adaptive_max_pool2d(input, output_size)


class _TrtAdaptiveMaxPool1d(torch.nn.AdaptiveMaxPool1d):
    """``nn.AdaptiveMaxPool1d`` (without ``return_indices``) that exports with dynamic lengths (same
    arguments, no parameters)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return _trt_adaptive_max_pool1d(input, self.output_size)


class _TrtAdaptiveMaxPool2d(torch.nn.AdaptiveMaxPool2d):
    """``nn.AdaptiveMaxPool2d`` (without ``return_indices``) that exports with dynamic sizes (same
    arguments, no parameters)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return _trt_adaptive_max_pool2d(input, self.output_size)


def _trt_pool_1d_int(value):
    """One int from an int or a one-element tuple or list, else None (a Python value while tracing)."""
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    return value if type(value) is int else None


def _trt_pool_1d_window(kernel_size, stride, padding, dilation):
    """Kernel, stride, padding and dilation of a 1-D pooling as ints (an omitted stride is the
    kernel), or None where one is not a plain valid int: the caller keeps torch's function then."""
    k, p, d = _trt_pool_1d_int(kernel_size), _trt_pool_1d_int(padding), _trt_pool_1d_int(dilation)
    s = k if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else _trt_pool_1d_int(stride)
    if k is None or s is None or p is None or d is None:
        return None
    if k < 1 or s < 1 or d < 1 or p < 0 or 2 * p > (k - 1) * d + 1:
        return None  # torch raises; let it
    return k, s, p, d


def _trt_avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    # type: (Tensor, BroadcastingList1[int], Optional[BroadcastingList1[int]], BroadcastingList1[int], bool, bool) -> Tensor
    """``F.avg_pool1d``; while exporting to ONNX, the same pooling as a 2-D window over an added
    axis of size 1, which is taken away again by index: an ONNX AveragePool of a 2-D kernel
    (TensorRT pools 2-D and 3-D windows only) and a Gather of a constant index, not a Squeeze.

    torch computes ``avg_pool1d`` itself as ``avg_pool2d`` of the input unsqueezed at -2, so the
    values are torch's bit for bit. Outside an export it is ``F.avg_pool1d`` itself. (The type
    comment keeps ``torch.jit.script`` taking ints or one-element sequences, as torch's own
    function does.)"""
    if torch.jit.is_scripting():
        if stride is None:
            return torch.nn.functional.avg_pool1d(input, kernel_size, padding=padding, ceil_mode=ceil_mode,
                                                  count_include_pad=count_include_pad)
        return torch.nn.functional.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)
    if (_trt_onnx_exporting() and isinstance(input, torch.Tensor) and input.dim() in (2, 3)
            and input.is_floating_point() and type(ceil_mode) is bool and type(count_include_pad) is bool):
        window = _trt_pool_1d_window(kernel_size, stride, padding, 1)
        if window is not None:
            k, s, p, _ = window
            return torch.nn.functional.avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode,
                                                  count_include_pad).select(-2, 0)
    return torch.nn.functional.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def _trt_max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    # type: (Tensor, BroadcastingList1[int], Optional[BroadcastingList1[int]], BroadcastingList1[int], BroadcastingList1[int], bool) -> Tensor
    """``F.max_pool1d`` (without ``return_indices``); while exporting to ONNX, the same pooling as a
    2-D window over an added axis of size 1, taken away again by index: an ONNX MaxPool of a 2-D
    kernel and a Gather. Outside an export it is ``F.max_pool1d`` itself."""
    if torch.jit.is_scripting():
        return torch.nn.functional.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    if (_trt_onnx_exporting() and isinstance(input, torch.Tensor) and input.dim() in (2, 3)
            and input.is_floating_point() and type(ceil_mode) is bool):
        window = _trt_pool_1d_window(kernel_size, stride, padding, dilation)
        if window is not None:
            k, s, p, d = window
            return torch.nn.functional.max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d),
                                                  ceil_mode).select(-2, 0)
    return torch.nn.functional.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


class _TrtAvgPool1d(torch.nn.AvgPool1d):
    """``nn.AvgPool1d`` that exports as a 2-D pooling (same arguments, attributes and state)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return _trt_avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                               self.count_include_pad)


class _TrtMaxPool1d(torch.nn.MaxPool1d):
    """``nn.MaxPool1d`` (without ``return_indices``) that exports as a 2-D pooling (same arguments,
    attributes and state)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return _trt_max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


def _trt_pool_class(cls):
    """``cls``, for a call that builds a module of a class named at run time (``getattr(nn, name)``,
    a registry, a class passed in): where it is ``nn.AvgPool1d`` or ``nn.MaxPool1d`` itself, what
    builds the same module as ``_TrtAvgPool1d`` / ``_TrtMaxPool1d``, which export a 2-D pooling; a
    ``functools.partial`` of one keeps its arguments. Any other class or callable (a subclass, the
    2-D pools, a user's factory) is returned as it is."""
    import functools  # the helpers import only torch at the top

    if type(cls) is functools.partial:
        inner = _trt_pool_class(cls.func)
        return cls if inner is cls.func else functools.partial(inner, *cls.args, **cls.keywords)
    if cls is torch.nn.AvgPool1d:
        return _TrtAvgPool1d
    if cls is torch.nn.MaxPool1d:
        return _trt_max_pool1d_module
    return cls


def _trt_max_pool1d_module(*args, **kwargs):
    """``nn.MaxPool1d(*args, **kwargs)``, of the class ``_TrtMaxPool1d`` unless it returns indices
    (which ``_TrtMaxPool1d`` does not): built once by torch, so its errors and attributes are torch's."""
    module = torch.nn.MaxPool1d(*args, **kwargs)
    if not module.return_indices:
        module.__class__ = _TrtMaxPool1d  # the same object and state; a subclass adding nothing but forward
    return module


def _trt_unbatched(input, spatial: int) -> bool:
    """Whether ``input`` is an unbatched floating tensor of a ``spatial``-D pooling (rank ``spatial + 1``)
    while ``torch.onnx.export`` runs: the exporter writes such a pooling with ``spatial``-D attributes on
    an input without its batch axis, which ONNX Runtime and TensorRT refuse."""
    return (_trt_onnx_exporting() and isinstance(input, torch.Tensor) and input.dim() == spatial + 1
            and input.is_floating_point())


def _trt_unbatched_max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    # type: (Tensor, BroadcastingList2[int], Optional[BroadcastingList2[int]], BroadcastingList2[int], BroadcastingList2[int], bool) -> Tensor
    """``F.max_pool2d`` (without ``return_indices``); while exporting an unbatched ``(C, H, W)`` input to
    ONNX, the pooling of the input with a batch axis of 1 added, taken away again by index (a Gather of
    a constant index, not a Squeeze): a MaxPool of a 4-D input. torch pools an unbatched input as that
    batch of one, so the values are torch's. Outside an export it is ``F.max_pool2d`` itself."""
    if torch.jit.is_scripting():
        return torch.nn.functional.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)
    if _trt_unbatched(input, 2):
        return torch.nn.functional.max_pool2d(input.unsqueeze(0), kernel_size, stride, padding, dilation,
                                              ceil_mode).select(0, 0)
    return torch.nn.functional.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _trt_unbatched_max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    # type: (Tensor, BroadcastingList3[int], Optional[BroadcastingList3[int]], BroadcastingList3[int], BroadcastingList3[int], bool) -> Tensor
    """``F.max_pool3d`` (without ``return_indices``); while exporting an unbatched ``(C, D, H, W)`` input
    to ONNX, the pooling of the input with a batch axis of 1 added, taken away again by index.
    Outside an export it is ``F.max_pool3d`` itself."""
    if torch.jit.is_scripting():
        return torch.nn.functional.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)
    if _trt_unbatched(input, 3):
        return torch.nn.functional.max_pool3d(input.unsqueeze(0), kernel_size, stride, padding, dilation,
                                              ceil_mode).select(0, 0)
    return torch.nn.functional.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _trt_unbatched_avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                    divisor_override=None):
    # type: (Tensor, BroadcastingList2[int], Optional[BroadcastingList2[int]], BroadcastingList2[int], bool, bool, Optional[int]) -> Tensor
    """``F.avg_pool2d``; while exporting an unbatched ``(C, H, W)`` input to ONNX, the pooling of the
    input with a batch axis of 1 added, taken away again by index. Outside an export it is
    ``F.avg_pool2d`` itself."""
    if torch.jit.is_scripting():
        if stride is None:  # aten::avg_pool2d takes no None stride
            return torch.nn.functional.avg_pool2d(input, kernel_size, padding=padding, ceil_mode=ceil_mode,
                                                  count_include_pad=count_include_pad,
                                                  divisor_override=divisor_override)
        return torch.nn.functional.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                              divisor_override)
    if _trt_unbatched(input, 2):
        return torch.nn.functional.avg_pool2d(input.unsqueeze(0), kernel_size, stride, padding, ceil_mode,
                                              count_include_pad, divisor_override).select(0, 0)
    return torch.nn.functional.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                          divisor_override)


def _trt_unbatched_avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                    divisor_override=None):
    # type: (Tensor, BroadcastingList3[int], Optional[BroadcastingList3[int]], BroadcastingList3[int], bool, bool, Optional[int]) -> Tensor
    """``F.avg_pool3d``; while exporting an unbatched ``(C, D, H, W)`` input to ONNX, the pooling of the
    input with a batch axis of 1 added, taken away again by index. Outside an export it is
    ``F.avg_pool3d`` itself."""
    if torch.jit.is_scripting():
        if stride is None:  # aten::avg_pool3d takes no None stride
            return torch.nn.functional.avg_pool3d(input, kernel_size, padding=padding, ceil_mode=ceil_mode,
                                                  count_include_pad=count_include_pad,
                                                  divisor_override=divisor_override)
        return torch.nn.functional.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                              divisor_override)
    if _trt_unbatched(input, 3):
        return torch.nn.functional.avg_pool3d(input.unsqueeze(0), kernel_size, stride, padding, ceil_mode,
                                              count_include_pad, divisor_override).select(0, 0)
    return torch.nn.functional.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                          divisor_override)


def _trt_unbatched_lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    # type: (Tensor, Union[int, float], BroadcastingList2[int], Optional[BroadcastingList2[int]], bool) -> Tensor
    """``F.lp_pool2d``; while exporting an unbatched ``(C, H, W)`` input to ONNX, the pooling of the
    input with a batch axis of 1 added, taken away again by index. Outside an export it is
    ``F.lp_pool2d`` itself."""
    if torch.jit.is_scripting():
        return torch.nn.functional.lp_pool2d(input, norm_type, kernel_size, stride, ceil_mode)
    if _trt_unbatched(input, 2):
        return torch.nn.functional.lp_pool2d(input.unsqueeze(0), norm_type, kernel_size, stride,
                                             ceil_mode).select(0, 0)
    return torch.nn.functional.lp_pool2d(input, norm_type, kernel_size, stride, ceil_mode)
