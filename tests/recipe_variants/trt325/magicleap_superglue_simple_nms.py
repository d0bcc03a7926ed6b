"""SuperPoint's keypoint scores and SuperGlue's ``simple_nms``, as Magic Leap released them.

Reduced from magicleap/SuperGluePretrainedNetwork at ddcf11f42e7e0732a0c4607648f9448ea8d73590,
models/superpoint.py: ``simple_nms`` (lines 47-62) and the score part of ``SuperPoint.forward``
(lines 160-167). The detector head's 65 channels go through a softmax, the dustbin channel is
dropped and the 8x8 cells are unfolded into a score map of shape ``(b, h*8, w*8)``: a batch of maps
with no channel axis. ``simple_nms`` defines a closure ``max_pool(x)`` that calls
``torch.nn.functional.max_pool2d(x, kernel_size=nms_radius*2+1, stride=1, padding=nms_radius)``
on that 3-D map, keeps the maxima, and twice suppresses their neighbourhoods (a max pool of the
float mask) and recovers the maxima left outside them. The encoder is one convolution here, and
the keypoint extraction after the NMS (``torch.nonzero`` per image) is left out. Written here in our
own words.
"""

import torch
from torch import nn


def simple_nms(scores, nms_radius: int):
    assert nms_radius >= 0

    def max_pool(x):
        return torch.nn.functional.max_pool2d(
            x, kernel_size=nms_radius * 2 + 1, stride=1, padding=nms_radius)

    zeros = torch.zeros_like(scores)
    max_mask = scores == max_pool(scores)
    for _ in range(2):
        supp_mask = max_pool(max_mask.float()) > 0
        supp_scores = torch.where(supp_mask, zeros, scores)
        new_max_mask = supp_scores == max_pool(supp_scores)
        max_mask = max_mask | (new_max_mask & (~supp_mask))
    return torch.where(max_mask, scores, zeros)


class SuperPointScores(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Conv2d(1, 8, 8, stride=8)
        self.convPb = nn.Conv2d(8, 65, 1)
        self.nms_radius = 2

    def forward(self, image):
        scores = self.convPb(torch.relu(self.encoder(image)))
        scores = torch.nn.functional.softmax(scores, 1)[:, :-1]
        b, _, h, w = scores.shape
        scores = scores.permute(0, 2, 3, 1).reshape(b, h, w, 8, 8)
        scores = scores.permute(0, 1, 3, 2, 4).reshape(b, h * 8, w * 8)
        return simple_nms(scores, self.nms_radius)


def build() -> nn.Module:
    return SuperPointScores().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 1, 48, 64, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
