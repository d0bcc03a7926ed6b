"""The detections an NMS kept, as a mask over all detections, with ``torch.isin``: SAM 3 video.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/sam3_video/
modeling_sam3_video.py, ``nms_masks``, the mask NMS of the detector's outputs (lines
1885-1924: ``valid_inds = torch.where(is_valid, is_valid.cumsum(dim=0) - 1, -1)`` and
``keep = torch.isin(valid_inds, kept_inds)``, line 1923). Written here in our own words: the
indices the NMS kept come in as an input, and the kept detections' scores come out. The count
is taken as ``long``: the original's ``cumsum`` of a bool tensor is a second blocker, outside this
recipe (the TorchScript exporter writes a CumSum of bool, which ONNX Runtime refuses to load).
"""

import torch
from torch import nn


class NmsKeep(nn.Module):
    def __init__(self, prob_threshold: float = 0.0) -> None:
        super().__init__()
        self.prob_threshold = prob_threshold

    def forward(self, pred_probs, kept_inds):
        is_valid = pred_probs > self.prob_threshold
        # -1 marks an invalid detection, which no kept index names
        valid_inds = torch.where(is_valid, is_valid.long().cumsum(dim=0) - 1, -1)
        keep = torch.isin(valid_inds, kept_inds)
        return torch.where(keep, pred_probs, torch.zeros_like(pred_probs))


def build() -> nn.Module:
    return NmsKeep()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(9, generator=generator), torch.tensor([0, 2, 3])


DYNAMIC = {"pred_probs": {0: "detections"}, "kept_inds": {0: "kept"}}
