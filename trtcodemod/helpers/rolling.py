"""``torch.roll`` by a shift computed at run time, exported as a gather (TRT353).

Both ONNX exporters write ``torch.roll`` as two slices and a concatenation whose bounds they need as
constants. With a shift computed from a size (a shifted window of half the window, ``h // 2``):
the TorchScript exporter stops where the shift is negated ("Failed to export a node ... onnx::Neg
... because it is not constant") and, where it is not, slices at the traced example's shift (the
graph rolls by the same amount at every size, without a warning); the dynamo exporter stops
("Error when translating node ... aten.roll.default"). ``_trt_roll`` is ``torch.roll`` itself
except inside ``torch.onnx.export``, where each rolled axis of length ``n`` takes its elements at
``(arange(n) - shift) mod n`` with ``index_select``: a Range, a Sub, a Mod and a Gather that both
exporters keep in terms of the traced sizes and shifts. The divisor is ``arange(n) * 0 + n``, a
tensor as long as the axis, so an empty axis divides nothing (ONNX Runtime refuses a Mod by a zero
scalar even over no elements). The elements are the original's, moved, so the values are exact.
Without dims the flattened tensor is rolled and viewed back: a ``Reshape``, which in ONNX reads a 0
in the target shape as "keep the input's dimension", so an empty tensor of rank 2 or more fails in
the graph there, as any view of a flattened empty tensor does.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_roll(input, shifts, dims=None):
    # type: (Tensor, BroadcastingList1[int], Optional[BroadcastingList1[int]]) -> Tensor
    """``torch.roll(input, shifts, dims)``; while exporting to ONNX, one gather per rolled axis.

    A receiver of the method form that is not a tensor but has its own ``roll`` keeps its method;
    an fx ``Proxy`` records ``torch.roll``. Shifts and dims of different lengths, or several shifts
    without dims, go to ``torch.roll`` (which raises).
    """
    if torch.jit.is_scripting():  # the one-element list of a single shift or dim rolls as the int
        if dims is None:
            return torch.roll(input, shifts)
        return torch.roll(input, shifts, dims)
    if not isinstance(input, (torch.Tensor, torch.fx.Proxy)) and hasattr(input, "roll"):
        if dims is None:
            return input.roll(shifts)
        return input.roll(shifts, dims)
    if isinstance(input, torch.Tensor) and _trt_onnx_exporting():
        shift_list = list(shifts) if isinstance(shifts, (tuple, list)) else [shifts]
        if dims is None:
            dim_list = [0]
        else:
            dim_list = list(dims) if isinstance(dims, (tuple, list)) else [dims]
        if len(shift_list) == len(dim_list) and (dims is not None or len(shift_list) == 1) and input.dim() > 0:
            out = input.reshape(-1) if dims is None else input
            for shift, dim in zip(shift_list, dim_list):
                index = torch.arange(out.shape[dim], device=out.device)
                index = torch.remainder(index - shift, index * 0 + out.shape[dim])
                out = out.index_select(dim, index)
            return out.view(input.shape) if dims is None else out
    if dims is None:
        return torch.roll(input, shifts)
    return torch.roll(input, shifts, dims)
