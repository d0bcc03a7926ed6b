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


def _trt_conv_kernel(weight):
    """``weight``; while the TorchScript exporter traces, the same values with the sizes of every
    axis but the first as constants (a Reshape), so that the exported Conv knows its kernel's shape.
    """
    if torch.jit.is_scripting():
        return weight
    if isinstance(weight, torch.Tensor) and torch.jit.is_tracing() and torch.onnx.is_in_onnx_export():
        return weight.reshape([weight.shape[0]] + [int(size) for size in weight.shape[1:]])
    return weight
