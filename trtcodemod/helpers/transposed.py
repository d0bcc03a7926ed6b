"""Transposed convolutions called with ``output_size=`` (TRT356): the size kept in the graph while exporting.

``nn.ConvTranspose2d(...)(x, output_size=s)`` turns ``s`` into an ``output_padding`` in Python
(``_output_padding``: ``s`` less the smallest output the input gives). While tracing, the
TorchScript exporter records that padding as the example's number, so at another size the graph
adds the traced example's padding: ENet's decoder (``ext = self.ext_tconv1(ext, output_size=...)``)
then adds a map one row short or long to its unpooled branch, and ONNX Runtime refuses the Add.
The subclasses here compute, while exporting, the transposed convolution with the largest padding
``_output_padding`` allows (``stride - 1``) and slice it to ``s``'s spatial sizes, which stay traced
values. A transposed convolution's output is a window of the full one starting at ``padding``; a
larger ``output_padding`` only extends that window at its end, so the first ``s`` positions are the
same values. Everywhere else each forward is torch's own.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


@torch.jit.unused
def _trt_transposed_to_size(input, weight, bias, stride, padding, dilation, groups, output_size, count):
    # type: (Tensor, Tensor, Optional[Tensor], List[int], List[int], List[int], int, List[int], int) -> Tensor
    """The transposed convolution of ``count`` spatial axes with ``output_padding = stride - 1``, sliced to
    the last ``count`` entries of ``output_size`` (traced sizes while exporting, so they stay in the graph)."""
    extra = [s - 1 for s in stride]
    convolve = (torch.nn.functional.conv_transpose1d, torch.nn.functional.conv_transpose2d,
                torch.nn.functional.conv_transpose3d)[count - 1]
    full = convolve(input, weight, bias, stride, padding, extra, groups, dilation)
    sizes = list(output_size)[-count:]
    for axis in range(count):
        full = full.narrow(full.dim() - count + axis, 0, sizes[axis])
    return full


@torch.jit.unused
def _trt_transposed_sized(output_size):
    # type: (Optional[List[int]]) -> bool
    """Is this forward the one to size in the graph: an ``output_size`` given, while exporting to ONNX?"""
    return output_size is not None and _trt_onnx_exporting()


class _TrtConvTranspose1d(torch.nn.ConvTranspose1d):
    """``nn.ConvTranspose1d`` whose ``output_size`` stays a graph size while exporting (same state, same repr)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # torch.fx keeps torch.nn's modules whole (a leaf, by the name of their module), as it kept the original
        self.__module__ = torch.nn.ConvTranspose1d.__module__

    def forward(self, input, output_size=None):
        # type: (Tensor, Optional[List[int]]) -> Tensor
        if not torch.jit.is_scripting():
            if _trt_transposed_sized(output_size):
                return _trt_transposed_to_size(input, self.weight, self.bias, self.stride, self.padding,
                                               self.dilation, self.groups, output_size, 1)
        if self.padding_mode != "zeros":
            raise ValueError("Only `zeros` padding mode is supported for ConvTranspose1d")
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, 1,
                                              self.dilation)
        return torch.nn.functional.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                                    output_padding, self.groups, self.dilation)

    def _get_name(self):
        return "ConvTranspose1d"


class _TrtConvTranspose2d(torch.nn.ConvTranspose2d):
    """``nn.ConvTranspose2d`` whose ``output_size`` stays a graph size while exporting (same state, same repr)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # torch.fx keeps torch.nn's modules whole (a leaf, by the name of their module), as it kept the original
        self.__module__ = torch.nn.ConvTranspose2d.__module__

    def forward(self, input, output_size=None):
        # type: (Tensor, Optional[List[int]]) -> Tensor
        if not torch.jit.is_scripting():
            if _trt_transposed_sized(output_size):
                return _trt_transposed_to_size(input, self.weight, self.bias, self.stride, self.padding,
                                               self.dilation, self.groups, output_size, 2)
        if self.padding_mode != "zeros":
            raise ValueError("Only `zeros` padding mode is supported for ConvTranspose2d")
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, 2,
                                              self.dilation)
        return torch.nn.functional.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                                    output_padding, self.groups, self.dilation)

    def _get_name(self):
        return "ConvTranspose2d"


class _TrtConvTranspose3d(torch.nn.ConvTranspose3d):
    """``nn.ConvTranspose3d`` whose ``output_size`` stays a graph size while exporting (same state, same repr)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # torch.fx keeps torch.nn's modules whole (a leaf, by the name of their module), as it kept the original
        self.__module__ = torch.nn.ConvTranspose3d.__module__

    def forward(self, input, output_size=None):
        # type: (Tensor, Optional[List[int]]) -> Tensor
        if not torch.jit.is_scripting():
            if _trt_transposed_sized(output_size):
                return _trt_transposed_to_size(input, self.weight, self.bias, self.stride, self.padding,
                                               self.dilation, self.groups, output_size, 3)
        if self.padding_mode != "zeros":
            raise ValueError("Only `zeros` padding mode is supported for ConvTranspose3d")
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, 3,
                                              self.dilation)
        return torch.nn.functional.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                                    output_padding, self.groups, self.dilation)

    def _get_name(self):
        return "ConvTranspose3d"
