"""A convolution kernel whose shape the TorchScript exporter knows (TRT324).

The TorchScript exporter's convolution symbolic needs the kernel's spatial sizes when it writes
the ONNX ``Conv``; it reads them from the kernel's type in the traced graph. A kernel built in
forward from a tensor's size (a depthwise filter repeated to the image's channel count,
``k.repeat(x.size(1), 1, 1, 1)``, as SSIM windows and kornia's ``sharpness`` build theirs) is a
``Tile`` whose repeats are computed in the graph, so its whole shape is unknown there, and the
export stops with "ONNX export of convolution for kernel of unknown shape". ``_trt_conv_kernel``
is the kernel itself everywhere except while the TorchScript exporter traces, where it reshapes
the kernel to its own shape with every axis but the first given as the traced number: the values
are the same, and the graph's Reshape tells the exporter the kernel's spatial sizes. Those axes
are then constants of the graph: right where the kernel's shape does not change with the
inputs' dynamic axes (the rule's assumption, which migrate checks at other sizes).
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_conv_kernel(weight):
    """``weight``; while the TorchScript exporter traces, the same values with the sizes of every
    axis but the first as constants (a Reshape), so that the exported Conv knows its kernel's shape.
    """
    if torch.jit.is_scripting():
        return weight
    if isinstance(weight, torch.Tensor) and torch.jit.is_tracing() and torch.onnx.is_in_onnx_export():
        return weight.reshape([weight.shape[0]] + [int(size) for size in weight.shape[1:]])
    return weight


def _trt_grouped_conv_patches(input, weight, bias=None, stride=1, padding=0, dilation=1):
    """``conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups)`` with the group count read from
    the shapes (``input``'s channels over ``weight``'s second axis) instead of taken as a number: the input's
    patches, one strided slice per kernel offset, times each group's kernel in one batched matmul. Every
    slice bound and kernel size is a constant; the batch, the group count and the output's sizes are the
    tensors' own, so an exported graph follows them (an ONNX ``Conv`` keeps its group count as a constant).
    """
    dims = weight.dim() - 2
    unbatched = input.dim() == dims + 1
    if unbatched:
        input = input.unsqueeze(0)
    kernel = [int(size) for size in weight.shape[2:]]

    def per_axis(value):
        return [int(v) for v in value] if isinstance(value, (tuple, list)) else [int(value)] * dims

    stride, dilation = per_axis(stride), per_axis(dilation)
    if isinstance(padding, str):
        if padding == "valid":
            before = after = [0] * dims
        else:  # "same" (stride 1): the extra padding, if any, goes after
            total = [d * (k - 1) for d, k in zip(dilation, kernel)]
            before = [t // 2 for t in total]
            after = [t - b for t, b in zip(total, before)]
    else:
        before = after = per_axis(padding)
    pads = []
    for b, a in zip(reversed(before), reversed(after)):
        pads += [b, a]
    if any(pads):
        input = torch.nn.functional.pad(input, pads)
    offsets = [[]]
    for k in kernel:
        offsets = [offset + [i] for offset in offsets for i in range(k)]
    patches = []
    for offset in offsets:
        index = [slice(None), slice(None)]
        for i, k, d, s in zip(offset, kernel, dilation, stride):
            start, last = i * d, d * (k - 1)
            index.append(slice(start, start - last if start < last else None, s))
        patches.append(input[tuple(index)])
    # Sizes read one at a time (each a traced size while exporting); a view computed inside an operator
    # (``unflatten``'s) would keep the traced numbers instead.
    batch, spatial = input.size(0), [patches[0].size(2 + axis) for axis in range(dims)]
    per_group, count = int(weight.shape[1]), len(offsets)
    # (N, C, K, L) -> (N, G, C/G * K, L): each group's channels with their kernel offsets, as the kernel lays
    # them out.
    columns = torch.stack(patches, 2).flatten(3)
    columns = columns.reshape([batch, -1, per_group * count, columns.size(3)])
    kernels = weight.reshape([columns.size(1), -1, per_group * count])
    out = torch.matmul(kernels, columns).reshape([batch, -1] + spatial)
    if bias is not None:
        out = out + bias.reshape([1, -1] + [1] * dims)
    return out.squeeze(0) if unbatched else out


def _trt_sized_groups_conv(conv, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``conv(input, weight, bias, stride, padding, dilation, groups)``; while the TorchScript exporter traces,
    the same convolution as patches times kernels (:func:`_trt_grouped_conv_patches`), whose group count
    follows the input's channels: a group count computed from the batch (per-sample kernels with the batch
    folded into the groups, ``groups=self.groups * B``) is not baked into the graph as the ``Conv``'s
    constant attribute.
    """
    if torch.jit.is_scripting():
        return conv(input, weight, bias, stride, padding, dilation, groups)
    if torch.jit.is_tracing() and torch.onnx.is_in_onnx_export():
        return _trt_grouped_conv_patches(input, weight, bias, stride, padding, dilation)
    return conv(input, weight, bias, stride, padding, dilation, groups)


def _trt_conv_params(value, dims):
    """``value``, except a one-element list or tuple, which becomes a tuple of ``dims`` copies of
    its element (TRT357). ``nn.Conv2d(..., stride=[2])`` keeps ``stride == (2,)`` and computes as
    with ``(2, 2)``, but the exporters write the one element into the ONNX ``Conv``'s ``strides``
    (the TorchScript one also ``pads`` and ``dilations``), one too few for a 2-D convolution.
    """
    if isinstance(value, (list, tuple)) and len(value) == 1:
        return tuple(value) * dims
    return value


def _trt_conv_exported(module, input, dims):
    """What ``module._conv_forward(input, ...)`` computes, its one-element stride, padding and dilation
    given one element per spatial axis (torch's own code otherwise)."""
    conv = torch.nn.functional.conv2d if dims == 2 else torch.nn.functional.conv3d
    stride, dilation = _trt_conv_params(module.stride, dims), _trt_conv_params(module.dilation, dims)
    if module.padding_mode != "zeros":
        padded = torch.nn.functional.pad(input, module._reversed_padding_repeated_twice, mode=module.padding_mode)
        return conv(padded, module.weight, module.bias, stride, (0,) * dims, dilation, module.groups)
    return conv(input, module.weight, module.bias, stride, _trt_conv_params(module.padding, dims), dilation,
                module.groups)


class _TrtConv2d(torch.nn.Conv2d):
    """``nn.Conv2d`` (same arguments, attributes and state) that, while exporting, passes its stride,
    padding and dilation with one element per spatial axis (TRT357): the Conv node's attributes then
    have the right length where the module was given one-element ones."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        if not torch.jit.is_scripting():
            if _trt_onnx_exporting():
                return _trt_conv_exported(self, input, 2)
        return self._conv_forward(input, self.weight, self.bias)


class _TrtConv3d(torch.nn.Conv3d):
    """``nn.Conv3d`` (same arguments, attributes and state) that, while exporting, passes its stride,
    padding and dilation with one element per spatial axis (TRT357)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        if not torch.jit.is_scripting():
            if _trt_onnx_exporting():
                return _trt_conv_exported(self, input, 3)
        return self._conv_forward(input, self.weight, self.bias)
