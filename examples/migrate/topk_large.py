"""A pre-NMS top-k of 5000 candidates: TensorRT's TopK takes K below 3840, so the model does not build.

With ``--unsafe`` (TRT804's assumption: equal scores keep ONNX's lower-index-first order, and
TensorRT keeps the rounds' CumSum in float32), migrate exports the top-k as two TopK rounds
(3839 + 1161) with the same detections; eager mode keeps the original call.

    trtcodemod migrate examples/migrate/topk_large.py --model build --inputs inputs --unsafe --exporter both

No dynamic axes: the verifier's resized input set draws fresh float noise, whose equal scores
eager PyTorch and ONNX Runtime order differently (the original export already differs there).
"""

import torch
from torch import nn


class PreNms(nn.Module):
    def __init__(self, nms_pre: int = 5000) -> None:
        super().__init__()
        self.nms_pre = nms_pre

    def forward(self, scores: torch.Tensor, boxes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        top, keep = scores.topk(self.nms_pre, dim=1)
        picked = torch.gather(boxes, 1, keep.unsqueeze(-1).expand(-1, -1, boxes.shape[-1]))
        return top, picked


def build() -> nn.Module:
    return PreNms()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Distinct scores: among equal ones eager PyTorch and ONNX Runtime may pick other boxes.
    scores = torch.randperm(12000, generator=generator).float().view(2, 6000) / 12000
    return scores, torch.rand(2, 6000, 4, generator=generator)
