"""The axis of ``repeat_interleave`` counted from the front while exporting (TRT373).

The TorchScript exporter's ``repeat_interleave`` symbolic (opset 9 and 13, torch 2.13) reads a negative ``dim``
as the traced graph's ``Constant`` tensor itself and adds the input's rank to it in place. The trace keeps one
``Constant`` per value for the whole graph, so every other use of that value changes with it: a ``-1`` beside
(``x.reshape(b, c, -1)``, ``torch.cat(..., dim=-1)``, ``x.shape[-1]``) becomes the rank minus one, and the graph
fails to load or computes other values far from the ``repeat_interleave``. The helper is the axis unchanged outside
an export; while exporting it gives a negative axis in range as the same axis counted from the front, which the
symbolic reads without writing anything.
"""

import torch


def _trt_export_dim(tensor, dim):
    # type: (Tensor, int) -> int
    """``dim``; while exporting to ONNX, a negative ``dim`` within ``tensor``'s rank counted from the front."""
    if torch.jit.is_scripting():
        return dim
    return _trt_export_dim_eager(tensor, dim)


@torch.jit.unused
def _trt_export_dim_eager(tensor, dim):
    """``dim``, made non-negative while exporting where it is an int within the rank (never runs when scripted);
    anything else as it is, for torch to take or refuse as it would."""
    if not torch.onnx.is_in_onnx_export() or not isinstance(tensor, torch.Tensor):
        return dim
    if type(dim) is not int or dim >= 0:
        return dim
    rank = tensor.dim()
    return dim + rank if -rank <= dim else dim


def _trt_repeat_interleave(tensor, repeats, dim):
    # type: (Tensor, Union[int, Tensor], int) -> Tensor
    """``tensor.repeat_interleave(repeats, dim=dim)``; while exporting to ONNX, along ``dim`` counted from the front
    (for a receiver that cannot be read twice: ``x.repeat_interleave(2, dim=-1).repeat_interleave(2, dim=-2)``)."""
    if torch.jit.is_scripting():
        if isinstance(repeats, int):
            return tensor.repeat_interleave(repeats, dim=dim)
        return tensor.repeat_interleave(repeats, dim=dim)
    return tensor.repeat_interleave(repeats, dim=_trt_export_dim_eager(tensor, dim))


# ``torch.repeat_interleave`` by a tensor of counts (TRT376: a TTS length regulator repeating each token's features
# for its predicted number of frames). The TorchScript exporter writes it as a loop over ONNX sequences
# (SplitToSequence, SequenceAt, SequenceInsert, ConcatFromSequence), which no TensorRT release parses; while it
# traces, the helper gathers the same rows by an index computed with fixed operators.


def _trt_repeat_counts(tensor, repeats, dim):
    # type: (Tensor, Union[int, Tensor], int) -> Tensor
    """``torch.repeat_interleave(tensor, repeats, dim=dim)``; while the TorchScript exporter traces a 1-D integer
    tensor of counts, the same rows gathered along ``dim`` by an index computed with fixed operators."""
    if torch.jit.is_scripting():
        if isinstance(repeats, int):
            return torch.repeat_interleave(tensor, repeats, dim=dim)
        return torch.repeat_interleave(tensor, repeats, dim=dim)
    return _trt_repeat_counts_eager(tensor, repeats, dim)


@torch.jit.unused
def _trt_repeat_counts_eager(tensor, repeats, dim):
    """torch's own call, except while the TorchScript exporter traces a tensor repeated by a 1-D integer tensor of
    counts along an axis within its rank (never runs when scripted). There torch's call runs first on the example,
    for its errors only (negative counts, a count per element that does not match: the export stops as it would);
    its nodes feed nothing, so the exporter drops them. Then the output's position ``p`` takes the element ``j``
    for which ``ends[j - 1] <= p < ends[j]`` (``ends`` the running sum of the counts, summed exactly in int64 by a
    triangle of ones rather than CumSum, which TensorRT takes for floats only): ``j`` is how many ends are at most
    ``p``, a comparison and a sum. The output has ``repeats.sum()`` positions: none for counts that are all 0."""
    if not (torch.jit.is_tracing() and torch.onnx.is_in_onnx_export() and isinstance(tensor, torch.Tensor)
            and isinstance(repeats, torch.Tensor) and repeats.dim() == 1 and type(dim) is int
            and -tensor.dim() <= dim < tensor.dim()
            and repeats.dtype in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)):
        return torch.repeat_interleave(tensor, repeats, dim=dim)
    torch.repeat_interleave(tensor, repeats, dim=dim)  # the example's errors; the graph keeps nothing of it
    # One count repeats every element (torch broadcasts a count tensor of one element): spread it over the axis.
    counts = repeats.to(torch.int64).expand(tensor.shape[dim])
    items = torch.arange(counts.shape[0], device=counts.device)
    ends = (counts[None, :] * (items[None, :] <= items[:, None]).to(torch.int64)).sum(1)
    positions = torch.arange(counts.sum(), device=counts.device)
    index = (ends[None, :] <= positions[:, None]).to(torch.int64).sum(1)
    return tensor.index_select(dim, index)
