"""``torch.histc`` exported as a count of bin indices.

The TorchScript exporter has no symbolic for ``aten::histc`` (torch 2.13, any opset). With an
explicit range ``min < max``, torch puts each element ``x`` with ``min <= x <= max`` (NaN never)
in bin ``int((x - min) * bins / (max - min))``, computed in the input's dtype, and ``max`` itself
in the last bin; the histogram has the input's dtype. The same arithmetic in the same order, a
comparison of each element's bin with every bin number and a sum (Sub, Mul, Div, Cast, Min,
Equal, And, ReduceSum) gives the same counts. ``_trt_histc`` is ``torch.histc`` itself everywhere except
inside ``torch.onnx.export``.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_histc(input, bins: int = 100, min: int | float = 0, max: int | float = 0):
    """``torch.histc(input, bins, min, max)``; while exporting with a range ``min < max``, the
    counts of each element's bin (``numel * bins`` comparisons)."""
    if torch.jit.is_scripting():
        return torch.histc(input, bins, min, max)
    if _trt_onnx_exporting() and _trt_binnable(input, bins, min, max):
        return _trt_bin_counts(input, bins, min, max)
    return torch.histc(input, bins, min, max)


def _trt_binnable(input, bins: int, min: float, max: float) -> bool:
    """A float32/float64 tensor, a Python int ``bins >= 1`` and a range of Python numbers that is
    still increasing in the input's dtype: what the count takes (a range taken from the data, with
    ``min == max``, and what torch refuses keep torch's function and its error)."""
    if not isinstance(input, torch.Tensor) or input.dtype not in (torch.float32, torch.float64):
        return False
    if type(bins) is not int or bins < 1:
        return False
    for bound in (min, max):
        if type(bound) not in (int, float):
            return False
    low = torch.tensor(min, dtype=input.dtype)
    high = torch.tensor(max, dtype=input.dtype)
    return bool(torch.isfinite(low)) and bool(torch.isfinite(high)) and bool(low < high)


@torch.jit.unused
def _trt_bin_counts(input, bins: int, min: float, max: float):
    """How many elements fall in each of ``bins`` equal bins over ``[min, max]``, as torch counts."""
    flat = input.reshape(-1)
    low = torch.full((), min, dtype=input.dtype, device=input.device)
    high = torch.full((), max, dtype=input.dtype, device=input.device)
    inside = (flat >= low) & (flat <= high)  # NaN is outside
    # torch's order of operations: (x - min) * bins / (max - min), truncated; max is in the last bin.
    # A minimum (ONNX Min), not a clamp: TensorRT clips floating tensors only.
    index = torch.minimum(((flat - low) * bins / (high - low)).to(torch.int64),
                          torch.full((), bins - 1, dtype=torch.int64, device=input.device))
    number = torch.arange(bins, device=input.device)
    hits = (index.unsqueeze(1) == number.unsqueeze(0)) & inside.unsqueeze(1)
    return hits.sum(0).to(input.dtype)
