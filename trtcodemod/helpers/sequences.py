"""``torch.nn.utils.rnn.pad_sequence`` while the TorchScript exporter traces (TRT378).

The exporter has no symbolic for ``aten::pad_sequence``, so a model that pads a list of variable-length items (the
per-utterance length regulator of FastSpeech 2 in speechbrain and ESPnet) stops exporting there. While it traces, the
helper writes the same tensor with fixed operators: the items concatenated behind one another with one row of the
padding value after them (Concat, Pad), and one Gather by an index computed from the items' traced lengths.
"""

import torch


def _trt_pad_sequence(sequences, batch_first, padding_value):
    # type: (List[Tensor], bool, float) -> Tensor
    """``torch.nn.utils.rnn.pad_sequence(sequences, batch_first, padding_value)``; while the TorchScript exporter
    traces a non-empty list of floating-point tensors of one dtype and rank, the same tensor written
    with Concat, Pad, Range, comparisons and one Gather, its lengths the items' traced sizes."""
    if torch.jit.is_scripting():
        return torch.nn.utils.rnn.pad_sequence(sequences, batch_first, padding_value)
    return _trt_pad_sequence_eager(sequences, batch_first, padding_value)


@torch.jit.unused
def _trt_pad_sequence_eager(sequences, batch_first, padding_value):
    """torch's own call, except while the TorchScript exporter traces a list or tuple of floating-point tensors of
    one dtype, device and rank (1 or more; torch's call refuses trailing sizes that differ) (never runs when
    scripted). There torch's call runs first
    on the example, for its errors only; its nodes feed nothing, so the exporter drops them. Then the items are
    concatenated along the first axis with one row of ``padding_value`` after them (``flat``, ``total + 1`` rows),
    and the output's row ``p`` of item ``i`` is ``flat[start_i + p]`` where ``p < length_i``, else the padding row
    ``flat[total]``: ``start_i`` the sum of the lengths before ``i`` (summed in int64 by a triangle of ones, not
    CumSum, which TensorRT takes for floats only), the longest length the number of rows."""
    if not (torch.jit.is_tracing() and torch.onnx.is_in_onnx_export()
            and isinstance(sequences, (list, tuple)) and len(sequences) > 0
            and all(isinstance(item, torch.Tensor) for item in sequences)
            and isinstance(batch_first, bool) and type(padding_value) in (int, float)):
        return torch.nn.utils.rnn.pad_sequence(sequences, batch_first, padding_value)
    first = sequences[0]
    if not (first.dim() >= 1 and first.is_floating_point()
            and all(item.dtype == first.dtype and item.device == first.device and item.dim() == first.dim()
                    for item in sequences)):
        return torch.nn.utils.rnn.pad_sequence(sequences, batch_first, padding_value)
    # The example's errors (trailing sizes that differ); its nodes feed nothing. The trailing sizes are not compared
    # here: the trace holds them as tensors, and a comparison would bake the example's answer into the graph.
    torch.nn.utils.rnn.pad_sequence(sequences, batch_first, padding_value)
    lengths = torch.stack([torch._shape_as_tensor(item)[0] for item in sequences])
    items = torch.arange(len(sequences), device=first.device)
    starts = (lengths[None, :] * (items[None, :] < items[:, None]).to(torch.int64)).sum(1)
    total = lengths.sum()
    flat = torch.nn.functional.pad(torch.cat(list(sequences), 0), [0, 0] * (first.dim() - 1) + [0, 1],
                                   value=padding_value)
    positions = torch.arange(lengths.max(), device=first.device)
    inside = positions[None, :] < lengths[:, None]
    index = torch.where(inside, starts[:, None] + positions[None, :], total)
    padded = flat[index]
    return padded if batch_first else padded.transpose(0, 1)
