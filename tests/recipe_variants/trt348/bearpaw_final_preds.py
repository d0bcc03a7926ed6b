"""pytorch-pose's final keypoint predictions (stacked hourglass), before the transform back to the image.

Reduced from bearpaw/pytorch-pose (commit edc7aec), pose/utils/evaluation.py: ``final_preds`` (lines
75-97) takes ``coords = get_preds(output)`` (the 1-based (x, y) of each heatmap's maximum, lines 11-25)
and loops ``for n in range(coords.size(0)): for p in range(coords.size(1))`` with ``hm = output[n][p]``,
``px = int(math.floor(coords[n][p][0]))``, a test against the resolution ``res`` (a list), ``diff =
torch.Tensor([hm[py - 1][px] - hm[py - 1][px - 2], hm[py][px - 1] - hm[py - 2][px - 1]])`` and
``coords[n][p] += diff.sign() * .25``, then adds 0.5. Written here in our own words; the resolution is
the heatmap's size.
"""

import math

import torch
from torch import nn


def get_preds(scores):
    maxval, idx = torch.max(scores.view(scores.size(0), scores.size(1), -1), 2)
    maxval = maxval.view(scores.size(0), scores.size(1), 1)
    idx = idx.view(scores.size(0), scores.size(1), 1) + 1
    preds = idx.repeat(1, 1, 2).float()
    preds[:, :, 0] = (preds[:, :, 0] - 1) % scores.size(3) + 1
    preds[:, :, 1] = torch.floor((preds[:, :, 1] - 1) / scores.size(3)) + 1
    return preds * maxval.gt(0).repeat(1, 1, 2).float()


def final_preds(output, res):
    coords = get_preds(output)
    for n in range(coords.size(0)):
        for p in range(coords.size(1)):
            hm = output[n][p]
            px = int(math.floor(coords[n][p][0]))
            py = int(math.floor(coords[n][p][1]))
            if px > 1 and px < res[0] and py > 1 and py < res[1]:
                diff = torch.Tensor([hm[py - 1][px] - hm[py - 1][px - 2], hm[py][px - 1] - hm[py - 2][px - 1]])
                coords[n][p] += diff.sign() * .25
    coords += 0.5
    return coords


class Hourglass(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)

    def forward(self, x):
        output = self.conv(x)
        return final_preds(output, [output.size(3), output.size(2)])


def build() -> nn.Module:
    torch.manual_seed(0)
    return Hourglass().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 16, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
