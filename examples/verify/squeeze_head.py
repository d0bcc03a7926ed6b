"""Objectness head of a single-stage detector: ``(batch, 1, anchors)`` squeezed to ``(batch, anchors)``.

With the anchor axis dynamic, the TorchScript exporter guards ``logits.squeeze(1)`` with an
ONNX ``If`` (squeeze if the axis is 1, else pass through): branches of different rank, which
TensorRT rejects. ``trtcodemod apply --unsafe`` (TRT401) indexes the axis instead.

    trtcodemod verify examples/verify/squeeze_head.py --model build --inputs inputs --unsafe --select ALL,TRT401 \\
        --dynamic-axes '{"feats": {"0": "batch", "2": "height", "3": "width"}}'
"""

import torch
from torch import nn


class ObjectnessHead(nn.Module):
    def __init__(self, channels: int = 16) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU())
        self.objectness = nn.Conv2d(channels, 1, 1)

    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        logits = self.objectness(self.stem(feats)).flatten(2)  # (batch, 1, anchors)
        scores = logits.squeeze(1).sigmoid()  # (batch, anchors)
        return scores


def build() -> nn.Module:
    return ObjectnessHead()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 16, 8, 8, generator=generator),)
