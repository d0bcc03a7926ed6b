"""DeDoDe's keypoint sampling: an inline max-pool NMS of a ``(B, H, W)`` score map, then top-k.

Reduced from Parskatt/DeDoDe at 6d156183f4dc84cd704ae779eebc8350995c5b06, DeDoDe/utils.py,
``sample_keypoints`` (lines 116-150; the NMS at line 137). The detector's score map has shape
``(B, H, W)`` (``B,H,W = scoremap.shape``), and with ``use_nms`` the function keeps its local maxima
in one expression, ``scoremap * (scoremap == F.max_pool2d(scoremap, (3, 3), stride = 1, padding =
1))``: a tuple kernel, the map multiplied by the bool mask. With ``sample_topk`` it takes the
top-k flat indices and gathers their coordinates from a normalised grid. The score map is a softmax
over one convolution's logits here (the detector is a VGG and a decoder), the other options
(upsampling, coverage, sharpening, border removal, multinomial sampling) are left out, and the grid
is built from the map's sizes. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def get_grid(B, H, W, device):
    ys = torch.linspace(-1 + 1 / H, 1 - 1 / H, H, device=device)
    xs = torch.linspace(-1 + 1 / W, 1 - 1 / W, W, device=device)
    grid = torch.stack(torch.meshgrid(xs, ys, indexing="xy"), dim=-1)
    return grid.reshape(1, H * W, 2).expand(B, H * W, 2)


def sample_keypoints(scoremap, num_samples=16, use_nms=True):
    B, H, W = scoremap.shape
    grid = get_grid(B, H, W, device=scoremap.device)
    if use_nms:
        scoremap = scoremap * (scoremap == F.max_pool2d(scoremap, (3, 3), stride = 1, padding = 1))
    scores, inds = torch.topk(scoremap.reshape(B, H * W), k=num_samples)
    kps = torch.gather(grid, dim=1, index=inds[..., None].expand(B, num_samples, 2))
    return torch.cat([kps, scores[..., None]], dim=-1)


class Detector(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 1, 3, padding=1)

    def forward(self, images):
        logits = self.head(images)[:, 0]
        B, H, W = logits.shape
        scoremap = logits.reshape(B, H * W).softmax(dim=-1).reshape(B, H, W)
        return sample_keypoints(scoremap)


def build() -> nn.Module:
    return Detector().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 24, 32, generator=generator),)


DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
