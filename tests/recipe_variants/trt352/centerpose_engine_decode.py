"""The keypoint test of CenterNet's pose decoding as a TensorRT demo's post-processing method rewrote it.

Reduced from tensorboy/centerpose @ 555d753cd82693476f91f78c53aa4147f5a83015, demo/centernet_tensorrt_engine.py:
the engine's ``multi_pose_decode`` method (lines 120-213) gates the joint peaks with
``mask = (hm_score > thresh).float()`` and ``hm_score = (1 - mask) * -1 + mask * hm_score`` (lines
187-188), takes the nearest peak with ``min_dist, min_ind = dist.min(dim=3)`` and
``hm_score = hm_score.gather(2, min_ind).unsqueeze(-1)`` (lines 193-195), then marks the keypoints to
keep as regressed with ``mask = (hm_kps[..., 0:1] < l) + (hm_kps[..., 0:1] > r) + (hm_kps[..., 1:2] < t)
+ (hm_kps[..., 1:2] > b) + (hm_score < thresh) + (min_dist > (torch.max(b - t, r - l) * 0.3))`` (lines
207-209). Written here in our own words for a few candidate peaks per keypoint from a small head.
"""

import torch
from torch import nn


class EngineDecode(nn.Module):
    def __init__(self, peaks: int = 3) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 2 + 3 * peaks + 4, 3, padding=1)
        self.peaks = peaks

    def forward(self, img):
        out = self.head(img)
        flat = out.flatten(2).permute(0, 2, 1)  # n x hw x channels
        k = self.peaks
        thresh = 0.1
        kps = flat[..., 0:2] * 4
        hm_score = flat[..., 2:2 + k].sigmoid()
        hm_xy = torch.stack([flat[..., 2 + k:2 + 2 * k], flat[..., 2 + 2 * k:2 + 3 * k]], dim=-1) * 4
        mask = (hm_score > thresh).float()
        hm_score = (1 - mask) * -1 + mask * hm_score
        hm_xy = (1 - mask.unsqueeze(-1)) * (-10000) + mask.unsqueeze(-1) * hm_xy
        dist = ((kps.unsqueeze(2) - hm_xy) ** 2).sum(dim=3) ** 0.5
        min_dist, min_ind = dist.min(dim=2)
        hm_score = hm_score.gather(2, min_ind.unsqueeze(-1))
        min_dist = min_dist.unsqueeze(-1)
        hm_kps = hm_xy.gather(2, min_ind[..., None, None].expand(-1, -1, 1, 2)).squeeze(2)
        l, t = flat[..., -4:-3] - 2, flat[..., -3:-2] - 2
        r, b = flat[..., -2:-1] + 2, flat[..., -1:] + 2
        mask = (hm_kps[..., 0:1] < l) + (hm_kps[..., 0:1] > r) + \
            (hm_kps[..., 1:2] < t) + (hm_kps[..., 1:2] > b) + \
            (hm_score < thresh) + (min_dist > (torch.max(b - t, r - l) * 0.3))
        mask = (mask > 0).float().expand_as(kps)
        return (1 - mask) * hm_kps + mask * kps


def build() -> nn.Module:
    return EngineDecode()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"img": {0: "n", 2: "h", 3: "w"}}
