"""Pooling whose window or stride the trace computes from a size, as gathered windows while exporting (TRT395).

PSPNet's pyramid pooling as pytorch-semseg writes it pools with ``F.avg_pool2d(x, (int(h / p), int(w / p)),
stride=...)``: a window and a stride computed from the input's own size. Read with ``int()``, the trace bakes the
example's numbers into the kernel, so the graph pools the wrong windows at every other size; kept traced (TRT712's
``_trt_size_int``), the numbers stop the TorchScript exporter, whose pooling symbolics take constants only ("Failed
to export a node ... because it is not constant"). Each helper is torch's function itself outside
``torch.onnx.export``, and there whenever the window and stride are Python ints. While exporting with a traced
window or stride (0-d tensors), with no padding, a dilation of 1 and no ``ceil_mode``, it gathers each pooled axis's
windows (positions ``i * stride + j`` for the ``(size - window) // stride + 1`` outputs ``i`` and offsets
``j < window``: a Range, a Gather and a Reshape, all with dynamic sizes) and takes their mean (their maximum): the
same elements torch's kernel pools.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting
from trtcodemod.helpers.whole_pooling import _trt_whole_per_axis


def _trt_traced_avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    # type: (Tensor, BroadcastingList1[int], Optional[BroadcastingList1[int]], BroadcastingList1[int], bool, bool) -> Tensor
    """``F.avg_pool1d(...)``; while exporting with a traced window or stride, the mean of the gathered windows."""
    if not torch.jit.is_scripting():
        if _trt_onnx_exporting():
            pooled = _trt_traced_pool(input, 1, False, kernel_size, stride, padding, 1, ceil_mode, None)
            if pooled is not None:
                return pooled
    if stride is None:
        return torch.nn.functional.avg_pool1d(input, kernel_size, padding=padding, ceil_mode=ceil_mode,
                                              count_include_pad=count_include_pad)
    return torch.nn.functional.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def _trt_traced_avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                           divisor_override=None):
    # type: (Tensor, BroadcastingList2[int], Optional[BroadcastingList2[int]], BroadcastingList2[int], bool, bool, Optional[int]) -> Tensor
    """``F.avg_pool2d(...)``; while exporting with a traced window or stride, the mean of the gathered windows."""
    if not torch.jit.is_scripting():
        if _trt_onnx_exporting():
            pooled = _trt_traced_pool(input, 2, False, kernel_size, stride, padding, 1, ceil_mode, divisor_override)
            if pooled is not None:
                return pooled
    if stride is None:
        return torch.nn.functional.avg_pool2d(input, kernel_size, padding=padding, ceil_mode=ceil_mode,
                                              count_include_pad=count_include_pad, divisor_override=divisor_override)
    return torch.nn.functional.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                          divisor_override)


def _trt_traced_avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                           divisor_override=None):
    # type: (Tensor, BroadcastingList3[int], Optional[BroadcastingList3[int]], BroadcastingList3[int], bool, bool, Optional[int]) -> Tensor
    """``F.avg_pool3d(...)``; while exporting with a traced window or stride, the mean of the gathered windows."""
    if not torch.jit.is_scripting():
        if _trt_onnx_exporting():
            pooled = _trt_traced_pool(input, 3, False, kernel_size, stride, padding, 1, ceil_mode, divisor_override)
            if pooled is not None:
                return pooled
    if stride is None:
        return torch.nn.functional.avg_pool3d(input, kernel_size, padding=padding, ceil_mode=ceil_mode,
                                              count_include_pad=count_include_pad, divisor_override=divisor_override)
    return torch.nn.functional.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                          divisor_override)


def _trt_traced_max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    # type: (Tensor, BroadcastingList1[int], Optional[BroadcastingList1[int]], BroadcastingList1[int], BroadcastingList1[int], bool) -> Tensor
    """``F.max_pool1d(...)`` (without ``return_indices``); while exporting with a traced window or stride, the
    maximum of the gathered windows."""
    if torch.jit.is_scripting():
        return torch.nn.functional.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    if _trt_onnx_exporting():
        pooled = _trt_traced_pool(input, 1, True, kernel_size, stride, padding, dilation, ceil_mode, None)
        if pooled is not None:
            return pooled
    return torch.nn.functional.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _trt_traced_max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    # type: (Tensor, BroadcastingList2[int], Optional[BroadcastingList2[int]], BroadcastingList2[int], BroadcastingList2[int], bool) -> Tensor
    """``F.max_pool2d(...)`` (without ``return_indices``); while exporting with a traced window or stride, the
    maximum of the gathered windows."""
    if torch.jit.is_scripting():
        return torch.nn.functional.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)
    if _trt_onnx_exporting():
        pooled = _trt_traced_pool(input, 2, True, kernel_size, stride, padding, dilation, ceil_mode, None)
        if pooled is not None:
            return pooled
    return torch.nn.functional.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _trt_traced_max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    # type: (Tensor, BroadcastingList3[int], Optional[BroadcastingList3[int]], BroadcastingList3[int], BroadcastingList3[int], bool) -> Tensor
    """``F.max_pool3d(...)`` (without ``return_indices``); while exporting with a traced window or stride, the
    maximum of the gathered windows."""
    if torch.jit.is_scripting():
        return torch.nn.functional.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)
    if _trt_onnx_exporting():
        pooled = _trt_traced_pool(input, 3, True, kernel_size, stride, padding, dilation, ceil_mode, None)
        if pooled is not None:
            return pooled
    return torch.nn.functional.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


@torch.jit.unused
def _trt_traced_number(value) -> bool:
    """A Python int (not a bool) or a traced integer size (a 0-d integer tensor)."""
    if isinstance(value, torch.Tensor):
        return value.dim() == 0 and not value.is_floating_point() and value.dtype != torch.bool
    return type(value) is int


@torch.jit.unused
def _trt_traced_pool(input, count: int, maximum: bool, kernel_size, stride, padding, dilation, ceil_mode,
                     divisor_override):
    """The pooling as the mean (maximum) of gathered windows, or None where its arguments are all Python ints (torch's
    pooling exports them) or leave that meaning (padding, dilation, ``ceil_mode``, a divisor): torch's call then."""
    kernel = _trt_whole_per_axis(kernel_size, count)
    step = kernel if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) \
        else _trt_whole_per_axis(stride, count)
    if kernel is None or step is None:
        return None
    if not any(isinstance(v, torch.Tensor) for v in kernel + step):
        return None
    if not all(_trt_traced_number(v) for v in kernel + step):
        return None
    pads, spreads = _trt_whole_per_axis(padding, count), _trt_whole_per_axis(dilation, count)
    if pads is None or spreads is None or any(type(p) is not int or p != 0 for p in pads) \
            or any(type(d) is not int or d != 1 for d in spreads) or ceil_mode or divisor_override is not None:
        return None
    if not (isinstance(input, torch.Tensor) and input.is_floating_point() and input.dim() in (count + 1, count + 2)):
        return None
    first = input.dim() - count
    out = input
    windows = []
    for i in range(count):
        axis = first + 2 * i  # each axis pooled before this one gained a window axis after it
        size = out.shape[axis]
        window = kernel[i] if isinstance(kernel[i], torch.Tensor) else torch.tensor(kernel[i])
        hop = step[i] if isinstance(step[i], torch.Tensor) else torch.tensor(step[i])
        outputs = torch.div(size - window, hop, rounding_mode="floor") + 1
        starts = torch.arange(outputs, device=input.device) * hop
        positions = starts.unsqueeze(1) + torch.arange(window, device=input.device).unsqueeze(0)
        out = out.index_select(axis, positions.reshape(-1))
        out = out.reshape(list(out.shape[:axis]) + [outputs, window] + list(out.shape[axis + 1:]))
        windows.append(axis + 1)
    return out.amax(windows) if maximum else out.mean(windows)
