"""Top-k with a capped K (``topk(x, min(C, x.shape[d]))``), exported with a constant K."""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_topk_capped(input: torch.Tensor, k: int, cap: int, size_dim: int, dim: int = -1, largest: bool = True,
                     sorted: bool = True):
    """``torch.topk(input, k, dim, largest, sorted)`` where ``k`` is ``min(cap, input.shape[size_dim])``.

    Outside ``torch.onnx.export`` this is ``torch.topk(input, k, ...)`` itself, with the
    ``k`` the caller computed: same values, indices, gradients and errors.

    While exporting, a floating-point tensor whose capped axis is the top-k axis, with
    ``largest=True`` and a Python int ``cap`` between 1 and 3839, takes a form with a
    constant K: ``cap`` entries of ``-inf`` are appended along the axis, ``topk(cap)``
    selects from that, and both results are cut to the axis' size. The cut keeps
    ``min(cap, n)`` entries for every size ``n`` of the axis (a slice clamps at the end),
    which is what ``k`` is, instead of the one branch of ``min`` a trace records.
    Appended entries sort after every input entry except ``-inf`` ones, and ONNX's TopK
    puts the lower index first among equal values: an input ``-inf`` is kept before an
    appended one. The padded TopK is always sorted: the cut needs the input entries first,
    and ``sorted=False`` leaves the order unspecified, so sorted is one of its orders.
    """
    if torch.jit.is_scripting():
        return torch.topk(input, k, dim=dim, largest=largest, sorted=sorted)
    if (
        _trt_onnx_exporting()
        and isinstance(input, torch.Tensor)
        and input.is_floating_point()
        and input.dim() >= 1
        and type(cap) is int
        and 0 < cap < 3840
        and type(size_dim) is int
        and type(dim) is int
        and -input.dim() <= size_dim < input.dim()
        and -input.dim() <= dim < input.dim()
        and size_dim % input.dim() == dim % input.dim()
        and largest is True
    ):
        axis = dim % input.dim()
        size = input.shape[axis]
        # A constant block of -inf (an initializer) expanded to the input's other sizes.
        block = [1] * input.dim()
        block[axis] = cap
        fill = torch.full(block, float("-inf"), dtype=input.dtype, device=input.device)
        fill = fill.expand(input.shape[:axis] + (cap,) + input.shape[axis + 1:])
        # sorted=True whatever the caller asked: an unsorted TopK (ONNX Runtime's) may put an
        # appended -inf before an input entry, and the cut would drop that entry.
        values, indices = torch.topk(torch.cat([input, fill], axis), cap, dim=axis, largest=True, sorted=True)
        keep = (slice(None),) * axis + (slice(0, size),)
        return torch.return_types.topk((values[keep], indices[keep]))
    if not isinstance(input, torch.Tensor):
        return input.topk(k, dim=dim, largest=largest, sorted=sorted)
    return torch.topk(input, k, dim=dim, largest=largest, sorted=sorted)
