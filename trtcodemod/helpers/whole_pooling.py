"""Pooling whose window is the whole input axis, as a reduction while exporting (TRT342).

``F.avg_pool2d(x, x.size()[2:])`` (and ``max_pool``, 1-D to 3-D) reads its window from the sizes of
the tensor it pools: a global pooling. While the TorchScript exporter traces, those sizes are
traced values, and the symbolic needs a constant kernel ("Failed to export a node ... because it is
not constant"). With padding 0, a window as long as its axis gives one output whatever the stride or
``ceil_mode``: the mean (the maximum) over that axis. Each helper is torch's function itself outside
``torch.onnx.export``; while exporting, a ``mean`` (``amax``) over those axes with ``keepdim``
(ReduceMean / ReduceMax, which TensorRT parses), then torch's pooling with a window of 1 on them
where another axis keeps a window of its own.

``whole`` has one entry per pooled axis, in order: the axis of the input whose size TRT342 proved the
window on that axis reads (from the same tensor), or None. An entry is taken only where it names that
very axis at the input's rank (``x.size()[2:]`` read as axes 2 and 3 holds for a 4-D input only);
the helper does not compare traced sizes (reading them would bake them in).
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_whole_avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                          whole=None):
    # type: (Tensor, BroadcastingList1[int], Optional[BroadcastingList1[int]], BroadcastingList1[int], bool, bool, Any) -> Tensor
    """``F.avg_pool1d(...)``; while exporting, a mean over the ``whole`` axis. (A stride of None is left out of
    torch's call, as the original call leaves it out: torch's builtin takes none under ``torch.jit.script``, nor
    in a graph ``torch.fx`` records and scripts.)"""
    if not torch.jit.is_scripting():
        if _trt_onnx_exporting():
            pooled = _trt_whole_pool(input, 1, False, kernel_size, stride, padding, 1, ceil_mode, count_include_pad,
                                     None, whole)
            if pooled is not None:
                return pooled
    if stride is None:
        return torch.nn.functional.avg_pool1d(input, kernel_size, padding=padding, ceil_mode=ceil_mode,
                                              count_include_pad=count_include_pad)
    return torch.nn.functional.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def _trt_whole_avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                          divisor_override=None, whole=None):
    # type: (Tensor, BroadcastingList2[int], Optional[BroadcastingList2[int]], BroadcastingList2[int], bool, bool, Optional[int], Any) -> Tensor
    """``F.avg_pool2d(...)``; while exporting, a mean over the ``whole`` axes (a stride of None left out of
    torch's call, as in :func:`_trt_whole_avg_pool1d`)."""
    if not torch.jit.is_scripting():
        if _trt_onnx_exporting():
            pooled = _trt_whole_pool(input, 2, False, kernel_size, stride, padding, 1, ceil_mode, count_include_pad,
                                     divisor_override, whole)
            if pooled is not None:
                return pooled
    if stride is None:
        return torch.nn.functional.avg_pool2d(input, kernel_size, padding=padding, ceil_mode=ceil_mode,
                                              count_include_pad=count_include_pad, divisor_override=divisor_override)
    return torch.nn.functional.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                          divisor_override)


def _trt_whole_avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                          divisor_override=None, whole=None):
    # type: (Tensor, BroadcastingList3[int], Optional[BroadcastingList3[int]], BroadcastingList3[int], bool, bool, Optional[int], Any) -> Tensor
    """``F.avg_pool3d(...)``; while exporting, a mean over the ``whole`` axes (a stride of None left out of
    torch's call, as in :func:`_trt_whole_avg_pool1d`)."""
    if not torch.jit.is_scripting():
        if _trt_onnx_exporting():
            pooled = _trt_whole_pool(input, 3, False, kernel_size, stride, padding, 1, ceil_mode, count_include_pad,
                                     divisor_override, whole)
            if pooled is not None:
                return pooled
    if stride is None:
        return torch.nn.functional.avg_pool3d(input, kernel_size, padding=padding, ceil_mode=ceil_mode,
                                              count_include_pad=count_include_pad, divisor_override=divisor_override)
    return torch.nn.functional.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                          divisor_override)


def _trt_whole_max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, whole=None):
    # type: (Tensor, BroadcastingList1[int], Optional[BroadcastingList1[int]], BroadcastingList1[int], BroadcastingList1[int], bool, Any) -> Tensor
    """``F.max_pool1d(...)`` (without ``return_indices``); while exporting, an ``amax`` over the ``whole`` axis."""
    if torch.jit.is_scripting():
        return torch.nn.functional.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    if _trt_onnx_exporting():
        pooled = _trt_whole_pool(input, 1, True, kernel_size, stride, padding, dilation, ceil_mode, True, None, whole)
        if pooled is not None:
            return pooled
    return torch.nn.functional.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _trt_whole_max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, whole=None):
    # type: (Tensor, BroadcastingList2[int], Optional[BroadcastingList2[int]], BroadcastingList2[int], BroadcastingList2[int], bool, Any) -> Tensor
    """``F.max_pool2d(...)`` (without ``return_indices``); while exporting, an ``amax`` over the ``whole`` axes."""
    if torch.jit.is_scripting():
        return torch.nn.functional.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)
    if _trt_onnx_exporting():
        pooled = _trt_whole_pool(input, 2, True, kernel_size, stride, padding, dilation, ceil_mode, True, None, whole)
        if pooled is not None:
            return pooled
    return torch.nn.functional.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _trt_whole_max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, whole=None):
    # type: (Tensor, BroadcastingList3[int], Optional[BroadcastingList3[int]], BroadcastingList3[int], BroadcastingList3[int], bool, Any) -> Tensor
    """``F.max_pool3d(...)`` (without ``return_indices``); while exporting, an ``amax`` over the ``whole`` axes."""
    if torch.jit.is_scripting():
        return torch.nn.functional.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)
    if _trt_onnx_exporting():
        pooled = _trt_whole_pool(input, 3, True, kernel_size, stride, padding, dilation, ceil_mode, True, None, whole)
        if pooled is not None:
            return pooled
    return torch.nn.functional.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


@torch.jit.unused
def _trt_whole_per_axis(value, count: int):
    """An int (or a traced size) or a sequence of 1 or ``count`` of them as a list of ``count`` (torch's
    ``_pair``/``_triple``), else None."""
    if isinstance(value, (list, tuple)):
        values = list(value)
        if len(values) == 1:
            return values * count
        return values if len(values) == count else None
    return [value] * count


@torch.jit.unused
def _trt_whole_int(value, wanted=None) -> bool:
    """A Python int (not a bool, not a traced size), equal to ``wanted`` where that is given."""
    return type(value) is int and (wanted is None or value == wanted)


@torch.jit.unused
def _trt_whole_pool(input, count: int, maximum: bool, kernel_size, stride, padding, dilation, ceil_mode,
                    count_include_pad, divisor_override, whole):
    """The pooling with the ``whole`` axes reduced (mean or amax, ``keepdim``) and torch's pooling with a
    window of 1 on them where another axis pools a window of its own; None where the arguments do not
    keep that meaning (torch's call is made instead, with its error or its graph).

    Taken: a floating tensor with one or two leading axes before the ``count`` pooled ones; on each
    ``whole`` axis, padding 0 and dilation 1 (a window as long as the axis then gives one output for
    any stride and ``ceil_mode``); no ``divisor_override``; on the other axes, Python ints."""
    if isinstance(whole, (list, tuple)) and len(whole) > 0 and all(isinstance(w, (list, tuple)) for w in whole):
        # One entry per pooling a module's attribute may hold (`F.avg_pool3d if conv_3D else F.avg_pool2d`): the
        # one of this function's number of pooled axes.
        whole = next((w for w in whole if len(w) == count), None)
    if not (isinstance(input, torch.Tensor) and input.is_floating_point() and input.dim() in (count + 1, count + 2)
            and isinstance(whole, (list, tuple)) and divisor_override is None):
        return None
    first = input.dim() - count
    if len(whole) != count:
        return None
    reduced = [first + i for i in range(count)
               if _trt_whole_int(whole[i]) and -input.dim() <= whole[i] < input.dim()
               and whole[i] % input.dim() == first + i]
    if not reduced:
        return None
    kernel = _trt_whole_per_axis(kernel_size, count)
    step = kernel if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) \
        else _trt_whole_per_axis(stride, count)
    pad = _trt_whole_per_axis(padding, count)
    spread = _trt_whole_per_axis(dilation, count)
    if kernel is None or step is None or pad is None or spread is None:
        return None
    window, strides, pads, dilations = [], [], [], []
    for i in range(count):
        if first + i in reduced:
            if not (_trt_whole_int(pad[i], 0) and _trt_whole_int(spread[i], 1)):
                return None
            window.append(1)
            strides.append(1)
            pads.append(0)
            dilations.append(1)
        else:
            if not all(_trt_whole_int(v) for v in (kernel[i], step[i], pad[i], spread[i])):
                return None
            window.append(kernel[i])
            strides.append(step[i])
            pads.append(pad[i])
            dilations.append(spread[i])
    pooled = input.amax(reduced, keepdim=True) if maximum else input.mean(reduced, keepdim=True)
    if all(v == 1 for v in window + strides + dilations) and all(v == 0 for v in pads):
        return pooled
    if maximum:
        function = (torch.nn.functional.max_pool1d, torch.nn.functional.max_pool2d,
                    torch.nn.functional.max_pool3d)[count - 1]
        return function(pooled, window, strides, pads, dilations, bool(ceil_mode))
    if count == 1:
        return torch.nn.functional.avg_pool1d(pooled, window, strides, pads, bool(ceil_mode), bool(count_include_pad))
    function = torch.nn.functional.avg_pool2d if count == 2 else torch.nn.functional.avg_pool3d
    return function(pooled, window, strides, pads, bool(ceil_mode), bool(count_include_pad))
