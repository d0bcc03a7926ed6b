"""Max unpooling (``F.max_unpool1d/2d/3d``, ``nn.MaxUnpool1d/2d/3d``) as a scatter while exporting (TRT340).

The TorchScript exporter cannot convert ``aten::max_unpool2d``/``3d`` (its symbolic checks a
traced size as a Python bool: "cond must be a bool, but got a Tensor") nor ``max_unpool1d``,
and TensorRT parses no ONNX MaxUnpool. Each ``_trt_max_unpool<n>d`` is torch's function itself
outside ``torch.onnx.export``; while exporting, zeros of the unpooled size with the input
written at the flat per-channel indices (ScatterElements, which every TensorRT release parses):
the same values bit for bit (a copy, no arithmetic) wherever the indices are unique, or a
repeated index carries the same value each time, as max pooling's indices do.

The indices come from max pooling, which exports as a MaxPool whose Indices output TensorRT's MaxPool
does not produce: ``_trt_max_pool2d`` picks the maxima and their indices from the windows instead.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


@torch.jit.unused
def _trt_unpool_takes(input, indices, count: int) -> bool:
    """A real tensor with one or two leading axes before ``count`` spatial ones, and int64 indices of
    the same rank (anything else keeps torch's function, and its error). Sizes are not compared: while
    tracing they are traced values, and reading them would bake them in."""
    return (isinstance(input, torch.Tensor) and isinstance(indices, torch.Tensor) and not input.is_complex()
            and indices.dtype == torch.int64 and input.dim() in (count + 1, count + 2)
            and indices.dim() == input.dim() and _trt_onnx_exporting())


@torch.jit.unused
def _trt_unpool_per_axis(value, count: int) -> list:
    """An int or a sequence of ``count`` ints as a list of ``count`` (torch's ``_single``/``_pair``/``_triple``)."""
    if isinstance(value, (list, tuple)):
        values = list(value)
        return values * count if len(values) == 1 else values
    return [value] * count


@torch.jit.unused
def _trt_max_unpool_scatter(input, indices, count: int, kernel_size, stride, padding, output_size):
    """Zeros of the unpooled size, ``input`` written at ``indices`` (flat per channel) by one scatter.

    The default size is torch's, ``(in - 1) * stride - 2 * padding + kernel`` per spatial axis, computed
    from the input's sizes as the graph computes them (traced while exporting, so a dynamic axis stays
    dynamic); a given ``output_size`` gives its last ``count`` entries, as torch takes them."""
    kernel = _trt_unpool_per_axis(kernel_size, count)
    step = kernel if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) \
        else _trt_unpool_per_axis(stride, count)
    pad = _trt_unpool_per_axis(padding, count)
    first = input.dim() - count
    if output_size is None:
        sizes = [(input.shape[first + i] - 1) * step[i] - 2 * pad[i] + kernel[i] for i in range(count)]
    else:
        sizes = list(output_size)[-count:]
    zeros = input.new_zeros((*input.shape[:first], *sizes))
    flat = zeros.flatten(first).scatter(first, indices.flatten(first), input.flatten(first))
    # the leading sizes from the input itself, so the exporter's shape inference keeps the static ones (the
    # channels, which a following Concat and InstanceNormalization need)
    return flat.view(*input.shape[:first], *sizes)


def _trt_max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    # type: (Tensor, Tensor, BroadcastingList1[int], Optional[BroadcastingList1[int]], BroadcastingList1[int], Optional[List[int]]) -> Tensor
    """``F.max_unpool1d``; while exporting, the input scattered into zeros of the unpooled length."""
    if torch.jit.is_scripting():
        return torch.nn.functional.max_unpool1d(input, indices, kernel_size, stride, padding, output_size)
    if _trt_unpool_takes(input, indices, 1):
        return _trt_max_unpool_scatter(input, indices, 1, kernel_size, stride, padding, output_size)
    return torch.nn.functional.max_unpool1d(input, indices, kernel_size, stride, padding, output_size)


def _trt_max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    # type: (Tensor, Tensor, BroadcastingList2[int], Optional[BroadcastingList2[int]], BroadcastingList2[int], Optional[List[int]]) -> Tensor
    """``F.max_unpool2d``; while exporting, the input scattered into zeros of the unpooled size."""
    if torch.jit.is_scripting():
        return torch.nn.functional.max_unpool2d(input, indices, kernel_size, stride, padding, output_size)
    if _trt_unpool_takes(input, indices, 2):
        return _trt_max_unpool_scatter(input, indices, 2, kernel_size, stride, padding, output_size)
    return torch.nn.functional.max_unpool2d(input, indices, kernel_size, stride, padding, output_size)


def _trt_max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    # type: (Tensor, Tensor, BroadcastingList3[int], Optional[BroadcastingList3[int]], BroadcastingList3[int], Optional[List[int]]) -> Tensor
    """``F.max_unpool3d``; while exporting, the input scattered into zeros of the unpooled size."""
    if torch.jit.is_scripting():
        return torch.nn.functional.max_unpool3d(input, indices, kernel_size, stride, padding, output_size)
    if _trt_unpool_takes(input, indices, 3):
        return _trt_max_unpool_scatter(input, indices, 3, kernel_size, stride, padding, output_size)
    return torch.nn.functional.max_unpool3d(input, indices, kernel_size, stride, padding, output_size)


class _TrtMaxUnpool1d(torch.nn.MaxUnpool1d):
    """``nn.MaxUnpool1d`` whose forward is :func:`_trt_max_unpool1d` (same state, same repr)."""

    def forward(self, input, indices, output_size=None):
        # type: (Tensor, Tensor, Optional[List[int]]) -> Tensor
        if torch.jit.is_scripting():
            return torch.nn.functional.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                                                      output_size)
        return _trt_max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def _get_name(self):
        return "MaxUnpool1d"


class _TrtMaxUnpool2d(torch.nn.MaxUnpool2d):
    """``nn.MaxUnpool2d`` whose forward is :func:`_trt_max_unpool2d` (same state, same repr)."""

    def forward(self, input, indices, output_size=None):
        # type: (Tensor, Tensor, Optional[List[int]]) -> Tensor
        if torch.jit.is_scripting():
            return torch.nn.functional.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                                                      output_size)
        return _trt_max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def _get_name(self):
        return "MaxUnpool2d"


class _TrtMaxUnpool3d(torch.nn.MaxUnpool3d):
    """``nn.MaxUnpool3d`` whose forward is :func:`_trt_max_unpool3d` (same state, same repr)."""

    def forward(self, input, indices, output_size=None):
        # type: (Tensor, Tensor, Optional[List[int]]) -> Tensor
        if torch.jit.is_scripting():
            return torch.nn.functional.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                                                      output_size)
        return _trt_max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def _get_name(self):
        return "MaxUnpool3d"


# --- the indices of max pooling, which TensorRT's MaxPool does not produce ------------------------


@torch.jit.unused
def _trt_max_pool2d_indices(input, values, kernel_size, stride, padding, dilation):
    """Each window's maximum and its flat per-channel index, as torch's kernel picks them: the last NaN of
    the window where it holds one, else the first element equal to the maximum (so the first one where
    every element is -inf), padding never. The window's elements are strided slices of the input padded
    with zeros (masked out), one per kernel offset, stacked on a new axis; the pick is an ArgMax of
    distinct priorities, the value and the index GatherElements of the window's elements and of the
    offsets' flat positions (the value so taken, not MaxPool's: ONNX Runtime's MaxPool passes over a NaN,
    torch's picks it). ``values`` (a MaxPool's output) gives the output's sizes, traced while exporting,
    ceil mode included."""
    kh, kw = _trt_unpool_per_axis(kernel_size, 2)
    sh, sw = _trt_unpool_per_axis(kernel_size if stride is None or (isinstance(stride, (list, tuple))
                                                                     and len(stride) == 0) else stride, 2)
    ph, pw = _trt_unpool_per_axis(padding, 2)
    dh, dw = _trt_unpool_per_axis(dilation, 2)
    height, width = input.shape[-2], input.shape[-1]
    out_h, out_w = values.shape[-2], values.shape[-1]
    padded = torch.nn.functional.pad(input, (pw, pw + (kw - 1) * dw + sw, ph, ph + (kh - 1) * dh + sh))
    rows = torch.arange(out_h, device=input.device) * sh - ph
    cols = torch.arange(out_w, device=input.device) * sw - pw
    windows, inside, flat = [], [], []
    for i in range(kh):
        for j in range(kw):
            windows.append(padded[..., i * dh:i * dh + (out_h - 1) * sh + 1:sh, j * dw:j * dw + (out_w - 1) * sw + 1:sw])
            r = (rows + i * dh)[:, None]
            c = (cols + j * dw)[None, :]
            inside.append((r >= 0) & (r < height) & (c >= 0) & (c < width))
            flat.append(r * width + c)
    stacked = torch.stack(windows, -3)
    valid = torch.stack(inside, 0)
    positions = torch.stack(flat, 0)
    count = kh * kw
    order = torch.arange(count, device=input.device)[:, None, None]
    nan = torch.isnan(stacked) & valid
    peak = torch.where(valid, stacked, torch.full_like(stacked, -torch.inf)).amax(-3, keepdim=True)
    equal = (stacked == peak) & valid
    zero = torch.zeros_like(order)
    priority = torch.where(nan, order + count + 1, torch.where(equal, count - order, zero))
    chosen = priority.argmax(-3, keepdim=True)
    # shaped as the MaxPool's output, whose sizes the exporter's shape inference knows (the channels, which a
    # following Concat and InstanceNormalization need; the strided slices lose them)
    picked = torch.gather(stacked, -3, chosen).view(values.shape)
    return picked, torch.gather(positions.expand(stacked.shape), -3, chosen).view(values.shape)


def _trt_max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    # type: (Tensor, BroadcastingList2[int], Optional[BroadcastingList2[int]], BroadcastingList2[int], BroadcastingList2[int], bool, bool) -> Tuple[Tensor, Tensor]
    """``F.max_pool2d(..., return_indices=True)``; while exporting, the maxima and their indices picked from
    the windows (:func:`_trt_max_pool2d_indices`), a MaxPool without its Indices output giving the sizes."""
    if torch.jit.is_scripting():  # the rule writes this call only where `return_indices=True` is literal
        return torch.nn.functional.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if (return_indices and isinstance(input, torch.Tensor) and input.is_floating_point()
            and input.dim() in (3, 4) and _trt_onnx_exporting()):
        sizes = torch.nn.functional.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)
        return _trt_max_pool2d_indices(input, sizes, kernel_size, stride, padding, dilation)
    return torch.nn.functional.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode,
                                          return_indices)


class _TrtMaxPool2d(torch.nn.MaxPool2d):
    """``nn.MaxPool2d`` whose forward is :func:`_trt_max_pool2d` (same state, same repr)."""

    def forward(self, input):
        if torch.jit.is_scripting():  # `return_indices` is one of the module's constants: torch's own dispatch
            return torch.nn.functional.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                                  ceil_mode=self.ceil_mode, return_indices=self.return_indices)
        return _trt_max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                               self.return_indices)

    def _get_name(self):
        return "MaxPool2d"
