"""NumPy on sizes: CenterFormer's batch index grid for gathering the top objects.

Reduced from TuSimple/centerformer @ 5a949b88ed7bb15aafb39bf78c95f1452063ebea,
det3d/models/bbox_heads/center_head_iou_1d.py:366-373 (``batch, _, H, W = ...size()``,
``np.indices((batch, obj_num))[0]``, the name rebound to ``torch.from_numpy(...).to(...)``),
written here in our own words.
"""

import numpy as np
import torch
from torch import nn


class Gather(nn.Module):
    def forward(self, hm, order):
        batch, _, H, W = hm.size()
        obj_num = order.shape[1]
        batch_id = np.indices((batch, obj_num))[0]
        batch_id = torch.from_numpy(batch_id).to(order)
        return hm.view(batch, -1)[batch_id, order] * 2.0


def build() -> nn.Module:
    return Gather()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    hm = torch.randn(2, 1, 4, 5, generator=generator)
    return hm, torch.randint(0, 20, (2, 3), generator=generator)


DYNAMIC = {"hm": {0: "b"}, "order": {0: "b", 1: "k"}}
