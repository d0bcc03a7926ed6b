"""Ultralytics' RT-DETR predictor: the decoder's normalized boxes scaled to the original image.

Reduced from ultralytics 8.4.190 (the pinned wheel), ultralytics/models/rtdetr/predict.py,
``RTDETRPredictor.postprocess`` (lines 34-69): the predictions (batch, queries, 6) are split into
boxes (cx, cy, w, h, normalized), scores and labels; the boxes go to corners with ``ops.xywh2xyxy``
(ultralytics/utils/ops.py, lines 264-284: half the size off and on the centre), are put back
together with the scores and labels, and are scaled with ``pred[..., [0, 2]] *= ow`` and
``pred[..., [1, 3]] *= oh`` (lines 66-67), the original image's width and height. The score
threshold and the per-image Results objects of the original are left out; the image size comes in
as a tensor of one (height, width) pair per batch. Written here in our own words.
"""

import torch
from torch import nn


def xywh2xyxy(x):
    y = torch.empty_like(x)
    xy = x[..., :2]
    wh = x[..., 2:] / 2
    y[..., :2] = xy - wh
    y[..., 2:] = xy + wh
    return y


class RTDETRScale(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.decoder = nn.Linear(16, 6)

    def forward(self, queries, image_hw):
        preds = self.decoder(queries)
        bboxes, scores, labels = preds.split((4, 1, 1), dim=-1)
        bbox = xywh2xyxy(bboxes.sigmoid())
        pred = torch.cat([bbox, scores.sigmoid(), labels], dim=-1)
        oh, ow = image_hw[:, None, 0:1], image_hw[:, None, 1:2]
        pred[..., [0, 2]] *= ow
        pred[..., [1, 3]] *= oh
        return pred


def build() -> nn.Module:
    return RTDETRScale().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    queries = torch.randn(2, 30, 16, generator=generator)
    image_hw = torch.tensor([[480.0, 640.0], [720.0, 1280.0]])
    return (queries, image_hw)


DYNAMIC = {"queries": {0: "batch", 1: "queries"}, "image_hw": {0: "batch"}}
