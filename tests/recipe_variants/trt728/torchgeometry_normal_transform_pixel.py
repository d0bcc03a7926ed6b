"""torchgeometry's (kornia's former repository) 2-D pixel-to-[-1, 1] matrix: a 3 x 3 literal built in
the forward pass, its two scales then set in place from the image size.

Reduced from arraiyopensource/torchgeometry at commit 61af3bcd83b19cb64b9a62b1fc0a0aeb17094b31 (the
repository kornia grew from, January 2021), kornia/geometry/warp/homography_warper.py,
``normal_transform_pixel`` (lines 280-305): ``tr_mat`` bound to ``torch.tensor`` of ``[[1.0, 0.0,
-1.0], [0.0, 1.0, -1.0], [0.0, 0.0, 1.0]]`` (the device and dtype given), the denominators (``eps`` for a one-pixel
side, else ``size - 1.0``), then ``tr_mat[0, 0] = tr_mat[0, 0] * 2.0 / width_denom`` and the same for
the height; ``normalize_homography`` (lines 340-374) calls it with the image sizes of each warp.
Written here in our own words: the model maps keypoints given in pixels of its image to the
[-1, 1] coordinates ``grid_sample`` reads and samples the image there (the inverse and the
homography composition of ``normalize_homography`` are left out).
"""

from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn


def normal_transform_pixel(height: int, width: int, eps: float = 1e-14,
                           device: Optional[torch.device] = None,
                           dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    tr_mat = torch.tensor([[1.0, 0.0, -1.0],
                           [0.0, 1.0, -1.0],
                           [0.0, 0.0, 1.0]], device=device, dtype=dtype)
    width_denom: float = eps if width == 1 else width - 1.0
    height_denom: float = eps if height == 1 else height - 1.0
    tr_mat[0, 0] = tr_mat[0, 0] * 2.0 / width_denom
    tr_mat[1, 1] = tr_mat[1, 1] * 2.0 / height_denom
    return tr_mat.unsqueeze(0)


class KeypointSampler(nn.Module):
    def forward(self, image: torch.Tensor, keypoints: torch.Tensor) -> torch.Tensor:
        # image: (B, C, H, W); keypoints: (B, N, 2) as (x, y) in pixels -> (B, C, N) image values there
        height, width = image.shape[-2:]
        norm_from_pix = normal_transform_pixel(height, width, device=image.device, dtype=image.dtype)
        homogeneous = torch.cat([keypoints, torch.ones_like(keypoints[..., :1])], dim=-1)
        normalized = (homogeneous @ norm_from_pix.transpose(1, 2))[..., :2]
        return F.grid_sample(image, normalized.unsqueeze(2), align_corners=True).squeeze(-1)


def build() -> nn.Module:
    return KeypointSampler().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    image = torch.randn(2, 3, 6, 9, generator=generator)
    keypoints = torch.rand(2, 5, 2, generator=generator) * torch.tensor([8.0, 5.0])
    return image, keypoints


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}, "keypoints": {0: "batch", 1: "points"}}
