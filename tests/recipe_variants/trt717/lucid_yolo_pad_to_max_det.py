"""Pad each image's kept detections to ``max_det`` rows, returning early when there are already enough: lucid_yolo.

Reduced from lucid_yolo 0.5.0.dev2 (the wheel, as zoo 34 installs it), ``lucid_yolo/decode/common.py``,
``pad_detections`` (lines 96-102) and its index-side twin ``pad_anchor_indices`` (lines 133-139), which
``NMSDecoder._decode_image`` (``lucid_yolo/decode/nms_path.py:206-214``) calls after a confidence
threshold and ``batched_nms(...)[:max_det]``: ``kept = detections.shape[-2]``, ``if kept >= max_det:
return detections``, then a shape list whose detection axis is set to ``max_det - kept``, a fill of it
(``new_zeros``; ``torch.full`` of the pad index in the indices' dtype and device) and a ``torch.cat``
along that axis. Written here in our own words, with the NMS left out (another rule's subject): the
candidates above a score threshold, capped at ``max_det``. The example keeps ``max_det`` rows, so the
TorchScript export keeps the early return (a ``TracerWarning`` at the ``if``) and returns fewer rows
than ``max_det`` wherever fewer candidates pass.
"""

import torch
from torch import nn

PAD_INDEX = -1


def pad_rows(rows: torch.Tensor, max_det: int) -> torch.Tensor:
    kept = rows.shape[-2]
    if kept >= max_det:
        return rows
    pad_shape = list(rows.shape)
    pad_shape[-2] = max_det - kept
    padding = rows.new_zeros(pad_shape)
    return torch.cat((rows, padding), dim=-2)


def pad_indices(indices: torch.Tensor, max_det: int) -> torch.Tensor:
    kept = indices.shape[-1]
    if kept >= max_det:
        return indices
    pad_shape = list(indices.shape)
    pad_shape[-1] = max_det - kept
    padding = torch.full(pad_shape, PAD_INDEX, dtype=indices.dtype, device=indices.device)
    return torch.cat((indices, padding), dim=-1)


class PaddedDecode(nn.Module):
    def __init__(self, max_det: int = 6, threshold: float = 0.5) -> None:
        super().__init__()
        self.max_det, self.threshold = max_det, threshold
        self.head = nn.Linear(6, 6)

    def forward(self, x):
        rows = self.head(x)
        scores = rows[:, 4].sigmoid()
        anchors = (scores >= self.threshold).nonzero().flatten()[: self.max_det]
        kept = torch.cat((rows[anchors, :4], scores[anchors, None], rows[anchors, 5:]), dim=-1)
        rows, indices = pad_rows(kept, self.max_det), pad_indices(anchors, self.max_det)
        return torch.cat((rows, indices[:, None].to(rows.dtype)), dim=-1)  # one output: the indices a column


def build() -> nn.Module:
    model = PaddedDecode()
    with torch.no_grad():
        model.head.weight.copy_(torch.eye(6))
        model.head.bias.zero_()
    return model


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    rows = torch.randn(12, 6, generator=generator)
    rows[:, 4] = 3.0  # every candidate passes: the example keeps max_det rows
    return (rows,)


DYNAMIC = {"x": {0: "n"}}
