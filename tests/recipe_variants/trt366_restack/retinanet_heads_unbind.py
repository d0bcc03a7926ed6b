"""A detector's backbone and heads exported for a batch handed on as its rows and stacked back by the feature helper.

Reduced from oriented_det 0.4.1 (PyPI; DL4EO/oriented-det), export/wrappers.py:81
(``RetinaNetBackboneHeadExportWrapper.forward``: ``img_list: Sequence[torch.Tensor] = torch.unbind(images, dim=0)``,
"use unbind so batch size stays symbolic for ONNX", handed to ``extract_backbone_features``) and
oriented_det/models/utils.py:437 (``images_tensor = torch.stack(images, dim=0)``, then the backbone), in our own
words: a two-level pyramid and a classification and box head per level.
"""

from typing import List, Sequence, Tuple

import torch
from torch import nn

DYNAMIC = {"images": {0: "batch"}}


def pyramid_features(backbone: nn.Module, images: Sequence[torch.Tensor]) -> List[torch.Tensor]:
    batch = torch.stack(images, dim=0)
    return list(backbone(batch))


class Pyramid(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.down = nn.Conv2d(8, 8, 3, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        p3 = self.stem(x).relu()
        return p3, self.down(p3).relu()


class HeadsExport(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.backbone = Pyramid()
        self.cls = nn.Conv2d(8, 4, 1)
        self.box = nn.Conv2d(8, 5, 1)

    def forward(self, images: torch.Tensor) -> Tuple[torch.Tensor, ...]:
        rows: Sequence[torch.Tensor] = torch.unbind(images, dim=0)
        levels = pyramid_features(self.backbone, rows)
        out: List[torch.Tensor] = []
        for level in levels:
            out.append(self.cls(level).sigmoid())
            out.append(self.box(level))
        return tuple(out)


def build() -> nn.Module:
    return HeadsExport()


def inputs(generator: torch.Generator) -> Tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 16, 16, generator=generator),)
