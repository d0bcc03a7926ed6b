"""A running logical or written as ``+``: TraDeS snaps regressed keypoints to heatmap peaks unless a test fails.

Reduced from JialianW/TraDeS @ 0443c36c2ec716ade2fd2e9748deed1d36f172cd, src/lib/model/decode.py:
``_update_kps_with_hm`` (lines 12-80) first gates the peaks with ``mask = (hm_score > thresh).float()``
(line 35), later starts the tests over with ``mask = (hm_score < thresh)`` (line 49) and adds the box
tests to it, ``mask = (hm_kps[..., 0:1] < l) + (hm_kps[..., 0:1] > r) + (hm_kps[..., 1:2] < t) +
(hm_kps[..., 1:2] > b) + mask`` (lines 56-57 with boxes, 68-69 with a margin around the keypoints
otherwise), then ``mask = (mask > 0).float()`` and ``kps = (1 - mask) * hm_kps + mask * kps``. Written
here in our own words for maps from a small head; both branches are kept, chosen by a flag.
"""

import torch
from torch import nn


class KeypointRefine(nn.Module):
    def __init__(self, with_boxes: bool = True) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 9, 3, padding=1)
        self.with_boxes = with_boxes

    def forward(self, img):
        out = self.head(img)
        flat = out.flatten(2).permute(0, 2, 1)  # n x hw x 9
        kps = flat[..., 0:2] * 4
        peak = flat[..., 2:4] * 4
        score = flat[..., 4:5].sigmoid()
        thresh = 0.2
        mask = (score > thresh).float()
        score = (1 - mask) * -1 + mask * score
        peak = (1 - mask) * (-10000) + mask * peak
        mask = (score < thresh)
        if self.with_boxes:
            l, t = flat[..., 5:6] - 2, flat[..., 6:7] - 2
            r, b = flat[..., 7:8] + 2, flat[..., 8:9] + 2
            mask = (peak[..., 0:1] < l) + (peak[..., 0:1] > r) + \
                   (peak[..., 1:2] < t) + (peak[..., 1:2] > b) + mask
        else:
            l = kps[..., 0:1].min(dim=1, keepdim=True)[0]
            t = kps[..., 1:2].min(dim=1, keepdim=True)[0]
            r = kps[..., 0:1].max(dim=1, keepdim=True)[0]
            b = kps[..., 1:2].max(dim=1, keepdim=True)[0]
            l, r = l - (r - l) * 0.25, r + (r - l) * 0.25
            t, b = t - (b - t) * 0.25, b + (b - t) * 0.25
            mask = (peak[..., 0:1] < l) + (peak[..., 0:1] > r) + \
                   (peak[..., 1:2] < t) + (peak[..., 1:2] > b) + mask
        mask = (mask > 0).float()
        mask = mask.expand_as(kps)
        return (1 - mask) * peak + mask * kps


def build() -> nn.Module:
    return KeypointRefine()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"img": {0: "n", 2: "h", 3: "w"}}
