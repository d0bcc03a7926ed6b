"""A sum of bool tensors as a logical or: CenterNet's keypoint decoding drops the keypoints it cannot trust.

Reduced from xingyizhou/CenterNet @ 4c50fd3a46bdf63dbf2082c5cbb3458d39579e6c, src/lib/models/decode.py:
``multi_pose_decode`` (lines 497-571) matches each regressed keypoint with the nearest heatmap peak,
then marks the keypoints to keep as regressed: ``mask = (hm_kps[..., 0:1] < l) + (hm_kps[..., 0:1] > r) +
(hm_kps[..., 1:2] < t) + (hm_kps[..., 1:2] > b) + (hm_score < thresh) + (min_dist > (torch.max(b - t,
r - l) * 0.3))`` (lines 562-564), ``mask = (mask > 0).float()`` and ``kps = (1 - mask) * hm_kps + mask *
kps``. Written here in our own words for one joint map and boxes from a small head.
"""

import torch
from torch import nn


class KeypointMask(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 9, 3, padding=1)

    def forward(self, img):
        out = self.head(img)
        n, _, h, w = out.shape
        flat = out.flatten(2).permute(0, 2, 1)  # n x hw x 9
        kps = flat[..., 0:2] * 4  # regressed keypoint
        peak = flat[..., 2:4] * 4  # nearest heatmap peak
        score = flat[..., 4:5].sigmoid()
        l, t = flat[..., 5:6] - 2, flat[..., 6:7] - 2
        r, b = flat[..., 7:8] + 2, flat[..., 8:9] + 2
        dist = ((kps - peak) ** 2).sum(-1, keepdim=True) ** 0.5
        mask = (peak[..., 0:1] < l) + (peak[..., 0:1] > r) + \
               (peak[..., 1:2] < t) + (peak[..., 1:2] > b) + \
               (score < 0.1) + (dist > (torch.max(b - t, r - l) * 0.3))
        mask = (mask > 0).float().expand(n, h * w, 2)
        return (1 - mask) * peak + mask * kps


def build() -> nn.Module:
    return KeypointMask()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"img": {0: "n", 2: "h", 3: "w"}}
