"""Apple's Depth Pro inference: metric depth from canonical inverse depth and a field of view predicted in degrees.

Reduced from apple/ml-depth-pro at 9efe5c1def37a26c5367a71df664b18e1306c708, src/depth_pro/depth_pro.py,
``DepthPro.infer`` (lines 243-300; the conversion at line 283): the network gives canonical inverse depth
and the horizontal field of view in degrees (``fov_deg``, from its FOV head); with no focal length
given, ``f_px = 0.5 * W / torch.tan(0.5 * torch.deg2rad(fov_deg.to(torch.float)))``, the degrees cast
to float first and the width ``W`` read from the image's shape (``_, _, H, W = x.shape``), then
``inverse_depth = canonical_inverse_depth * (W / f_px)`` and ``depth = 1.0 / torch.clamp(inverse_depth,
min=1e-4, max=1e4)``. The encoder, decoder and FOV head are a few layers here (a convolution for the
inverse depth, a pooled linear layer for the field of view), and the resize to the network's 1536x1536
and back is left out (the model runs at the image's size). Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class DepthProInfer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 1, kernel_size=3, padding=1)
        self.fov = nn.Linear(3, 1)

    def forward(self, x):
        _, _, H, W = x.shape
        canonical_inverse_depth = F.softplus(self.head(x))
        fov_deg = 40.0 + 30.0 * torch.tanh(self.fov(x.mean(dim=(2, 3))))
        f_px = 0.5 * W / torch.tan(0.5 * torch.deg2rad(fov_deg.to(torch.float)))
        inverse_depth = canonical_inverse_depth * (W / f_px)[:, :, None, None]
        depth = 1.0 / torch.clamp(inverse_depth, min=1e-4, max=1e4)
        return depth.squeeze(1), f_px.squeeze(1)


def build() -> nn.Module:
    torch.manual_seed(0)
    return DepthProInfer().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 10, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
