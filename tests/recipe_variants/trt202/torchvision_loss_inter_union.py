"""torchvision's intersection for the IoU losses: the overlap area written only where the
boxes overlap, ``intsctk[mask] = (xkis2[mask] - xkis1[mask]) * (ykis2[mask] - ykis1[mask])``:
a value computed from rows selected by the same mask, one per selected box. TRT202 reports it
and leaves it (assumption (1) of its doc: ``torch.where`` cannot place a per-row value).

Reduced from pytorch/vision at tag v0.29.1 (the PyPI release the zoo unpacks),
torchvision/ops/_utils.py:88-107 (``_loss_inter_union``: the corners unbound, the
intersection's corners by ``torch.max``/``torch.min``, ``intsctk = torch.zeros_like(x1)``,
``mask = (ykis2 > ykis1) & (xkis2 > xkis1)``, the masked write, the union), written here in our
own words; the union is returned added to the intersection as one output.
"""

import torch
from torch import Tensor, nn


class InterUnion(nn.Module):
    def forward(self, boxes1: Tensor, boxes2: Tensor) -> Tensor:
        x1, y1, x2, y2 = boxes1.unbind(dim=-1)
        x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
        xkis1 = torch.max(x1, x1g)
        ykis1 = torch.max(y1, y1g)
        xkis2 = torch.min(x2, x2g)
        ykis2 = torch.min(y2, y2g)
        intsctk = torch.zeros_like(x1)
        mask = (ykis2 > ykis1) & (xkis2 > xkis1)
        intsctk[mask] = (xkis2[mask] - xkis1[mask]) * (ykis2[mask] - ykis1[mask])
        unionk = (x2 - x1) * (y2 - y1) + (x2g - x1g) * (y2g - y1g) - intsctk
        return torch.stack([intsctk, unionk], dim=-1)


def build() -> nn.Module:
    return InterUnion()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    low = torch.rand(6, 2, generator=generator)
    boxes1 = torch.cat([low, low + torch.rand(6, 2, generator=generator)], dim=-1)
    low = torch.rand(6, 2, generator=generator)
    boxes2 = torch.cat([low, low + torch.rand(6, 2, generator=generator)], dim=-1)
    return boxes1, boxes2


DYNAMIC = {"boxes1": {0: "boxes"}, "boxes2": {0: "boxes"}}
