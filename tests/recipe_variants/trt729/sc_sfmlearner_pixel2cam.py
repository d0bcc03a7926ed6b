"""SC-SfMLearner's copy of the pixel-grid global, called from its ``inverse_warp2`` on a (B, 1, H, W) depth.

Reduced from JiawangBian/SC-SfMLearner-Release @ 781d128de170a9f717fd0473111653787fadcfce,
inverse_warp.py:5-45 (``pixel_coords[:, :, :h, :w]`` after the same global test) and :232
(``pixel2cam(depth.squeeze(1), intrinsics.inverse())``), written here in our own words; the
intrinsics are a buffer, inverted once when the model is built.
"""

import torch
from torch import nn

pixel_coords = None


def set_id_grid(depth):
    global pixel_coords
    b, h, w = depth.size()
    i_range = torch.arange(0, h).view(1, h, 1).expand(1, h, w).type_as(depth)
    j_range = torch.arange(0, w).view(1, 1, w).expand(1, h, w).type_as(depth)
    ones = torch.ones(1, h, w).type_as(depth)
    pixel_coords = torch.stack((j_range, i_range, ones), dim=1)


def pixel2cam(depth, intrinsics_inv):
    global pixel_coords
    b, h, w = depth.size()
    if (pixel_coords is None) or pixel_coords.size(2) < h:
        set_id_grid(depth)
    current = pixel_coords[:, :, :h, :w].expand(b, 3, h, w).reshape(b, 3, -1)
    cam_coords = (intrinsics_inv @ current).reshape(b, 3, h, w)
    return cam_coords * depth.unsqueeze(1)


class Backproject(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.depth = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 1, 1))
        k = torch.tensor([[8.0, 0.0, 4.0], [0.0, 8.0, 3.0], [0.0, 0.0, 1.0]])
        self.register_buffer("intrinsics_inv", torch.linalg.inv(k))

    def forward(self, img):
        depth = self.depth(img).abs() + 0.5
        return pixel2cam(depth.squeeze(1), self.intrinsics_inv.expand(img.shape[0], 3, 3))


def build() -> nn.Module:
    return Backproject()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"img": {0: "b", 2: "h", 3: "w"}}
