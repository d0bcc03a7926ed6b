"""Post-processing of a BEV detection head (CenterPoint / PointPillars style).

For N candidate boxes the head predicts class logits and a box encoded as
(x, y, w, l, sin(yaw), cos(yaw)). Post-processing keeps the confident candidates,
down-weights one class, decodes the heading and lists the classes present. It shows
the constructs trtcodemod's indexing and operator rules handle, in context:

- TRT201 ``bool-mask-index``: ``box_preds[keep]`` with ``keep = scores > thresh``
  becomes ``_trt_mask_index(box_preds, keep)``: the same indexing in eager mode, and
  explicit integer positions in the exported graph (the NonZero reads a float tensor,
  the selection is a plain Gather).
- TRT202 ``bool-mask-assign``: ``scores[labels == 0] *= ...`` is reported (it exports
  as NonZero + ScatterND); rewriting it is left to the author.
- TRT301 ``atan2``: the heading ``torch.atan2(sin, cos)``. Objects pointing straight
  backwards have sin = 0 and cos = -1; torch's exported Atan/Where graph returns -pi
  for them instead of pi. The inserted ``_trt_atan2`` is ``torch.atan2`` in eager mode
  and exports a graph that is exact on such edges.
- TRT302 ``unique``: ``torch.unique(labels)`` exports as ONNX ``Unique``, which no
  TensorRT parses; ``_trt_unique`` sorts (TopK) and keeps the first of each run.

Run ``trtcodemod apply --dry-run examples/detection_postprocess.py`` to see the rewrites.
"""

from __future__ import annotations

import torch
from torch import nn


class DetectionPostprocess(nn.Module):
    def __init__(self, num_classes: int = 3, score_thresh: float = 0.3, class0_scale: float = 0.5) -> None:
        super().__init__()
        self.class_bias = nn.Parameter(torch.zeros(num_classes))
        self.score_thresh = score_thresh
        self.class0_scale = class0_scale

    def forward(self, cls_logits, box_preds):
        """cls_logits: (N, C); box_preds: (N, 6) = x, y, w, l, sin(yaw), cos(yaw)."""
        scores, labels = (cls_logits + self.class_bias).sigmoid().max(dim=1)
        keep = scores > self.score_thresh
        boxes = box_preds[keep]
        scores = scores[keep]
        labels = labels[keep]
        # Pedestrians (class 0) are over-confident in this head.
        scores[labels == 0] *= self.class0_scale
        yaw = torch.atan2(boxes[:, 4], boxes[:, 5])
        present = torch.unique(labels)
        return torch.cat([boxes[:, :4], yaw[:, None]], dim=1), scores, labels, present


def build() -> nn.Module:
    torch.manual_seed(0)
    return DetectionPostprocess().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    n, num_classes = 32, 3
    cls_logits = torch.randn(n, num_classes, generator=generator)
    centers = torch.rand(n, 2, generator=generator) * 50
    sizes = torch.rand(n, 2, generator=generator) * 4 + 0.5
    yaw = (torch.rand(n, generator=generator) * 2 - 1) * torch.pi
    box_preds = torch.cat([centers, sizes, yaw.sin()[:, None], yaw.cos()[:, None]], dim=1)
    # Headings exactly on the axes, as a quantized or axis-aligned prior produces them:
    # backwards (0, -1), sideways (+-1, 0), forwards (0, 1); made confident so they are kept.
    box_preds[:4, 4:] = torch.tensor([[0.0, -1.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    cls_logits[:4, 1] = 5.0
    return cls_logits, box_preds
