"""A detection head that hands its batch of predictions to a helper as a list comprehension of the rows, which
stacks them back and cuts the result into feature levels.

Reduced from RangiLyu/nanodet at commit be9b4a9001d7f9b6fc89c2df31ae8d428e35b4f0 (2024-01-08):
nanodet/model/head/gfl_head.py, ``GFLHead.forward`` (lines 190-206: per level, the class and box convolutions
concatenated and flattened, the levels concatenated and permuted to (B, cells, channels)), ``GFLHead.loss``
(lines 208-211: the predictions split into class scores and box distributions) and ``GFLHead.target_assign``
(lines 364-441; at lines 435-436 ``images_to_levels([c for c in cls_preds], num_level_cells)``, the same for the
box predictions), and nanodet/util/misc.py, ``images_to_levels`` (lines 27-39: ``torch.stack(target, 0)``, then
``target[:, start:end].squeeze(0)`` per level). In our own words: two levels from two strided convolutions, the
cell counts from the levels' sizes; the grid cells, the assignment and the losses left out (in nanodet this runs
while training; here the levels are the model's outputs).
"""

from typing import Tuple

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch"}}


def images_to_levels(target, num_level_anchors):
    target = torch.stack(target, 0)
    level_targets = []
    start = 0
    for n in num_level_anchors:
        end = start + n
        level_targets.append(target[:, start:end].squeeze(0))
        start = end
    return level_targets


class GFLHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.num_classes = 3
        self.reg_max = 2
        self.stem = nn.Conv2d(3, 8, 3, stride=4, padding=1)
        self.down = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.gfl_cls = nn.Conv2d(8, self.num_classes, 1)
        self.gfl_reg = nn.Conv2d(8, 4 * (self.reg_max + 1), 1)

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, ...]:
        p3 = self.stem(x).relu()
        feats = (p3, self.down(p3).relu())
        outputs = []
        for feat in feats:
            output = torch.cat([self.gfl_cls(feat), self.gfl_reg(feat)], dim=1)
            outputs.append(output.flatten(start_dim=2))
        preds = torch.cat(outputs, dim=2).permute(0, 2, 1)
        cls_preds, reg_preds = preds.split([self.num_classes, 4 * (self.reg_max + 1)], dim=-1)
        return self.target_assign(cls_preds, reg_preds, [feat.shape[-2:] for feat in feats])

    def target_assign(self, cls_preds, reg_preds, featmap_sizes):
        num_level_cells = [size[0] * size[1] for size in featmap_sizes]
        mlvl_cls_preds = images_to_levels([c for c in cls_preds], num_level_cells)
        mlvl_reg_preds = images_to_levels([r for r in reg_preds], num_level_cells)
        return tuple(mlvl_cls_preds + mlvl_reg_preds)


def build() -> nn.Module:
    return GFLHead()


def inputs(generator: torch.Generator) -> Tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 16, 16, generator=generator),)
