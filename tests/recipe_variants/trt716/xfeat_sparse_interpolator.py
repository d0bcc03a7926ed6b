"""XFeat's sparse descriptor sampling: descriptors read at keypoints given in pixels of the input image.

Reduced from verlab/accelerated_features at e92685f57f8318b18725c5c8c0bd28c7fe188d9a: ``InterpolateSparse2d``
(modules/interpolator.py, lines 9-32; ``normgrid`` at line 19) as ``XFeat.detectAndCompute`` calls it
(modules/xfeat.py, lines 65-90: ``B, _, _H1, _W1 = x.shape`` of the image, then ``self.interpolator(M1,
mkpts, H = _H1, W = _W1)`` on the 1/8 feature map). Written here in our own words, with a two-layer
backbone and the keypoints given as an input in place of the NMS. Form kept: the positions are mapped to
[-1, 1] by dividing by ``torch.tensor([W-1, H-1], device=..., dtype=x.dtype)``, the image's width and
height handed down as plain parameters: the TorchScript export keeps the example's numbers, so at another
image size every descriptor is read at the wrong place.
"""

import torch
import torch.nn.functional as F
from torch import nn


class SparseSampler(nn.Module):
    def __init__(self, mode: str = "bilinear") -> None:
        super().__init__()
        self.mode = mode

    def to_unit(self, pts, H, W):
        return 2. * (pts / (torch.tensor([W - 1, H - 1], device=pts.device, dtype=pts.dtype))) - 1.

    def forward(self, feats, pts, H, W):
        grid = self.to_unit(pts, H, W).unsqueeze(-2).to(feats.dtype)
        out = F.grid_sample(feats, grid, mode=self.mode, align_corners=False)
        return out.permute(0, 2, 3, 1).squeeze(-2)


class SparseDescriptors(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 8, 3, stride=4, padding=1), nn.ReLU(), nn.Conv2d(8, 16, 3, stride=2,
                                                                                               padding=1))
        self.sampler = SparseSampler()

    def forward(self, image, keypoints):
        B, _, H, W = image.shape
        feats = self.net(image)
        desc = self.sampler(feats, keypoints, H=H, W=W)
        return F.normalize(desc, dim=-1)


def build() -> nn.Module:
    torch.manual_seed(0)
    return SparseDescriptors().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    image = torch.rand(1, 1, 32, 48, generator=generator)
    keypoints = torch.rand(1, 10, 2, generator=generator) * torch.tensor([47.0, 31.0])
    return image, keypoints


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}, "keypoints": {0: "batch", 1: "points"}}
