"""The detector: backbone and head from sibling modules.

    trtcodemod verify examples/verify/pkg_detector/model.py --model build --inputs inputs --unsafe --select ALL,TRT401 \\
        --dynamic-axes '{"image": {"0": "batch", "1": "height", "2": "width"}}'
"""

import torch
from torch import nn

from .backbone import TinyBackbone
from .heads import ScoreHead


class Detector(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.backbone = TinyBackbone()
        self.head = ScoreHead()

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(image)).sigmoid()


def build() -> nn.Module:
    return Detector()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 16, 16, generator=generator),)
