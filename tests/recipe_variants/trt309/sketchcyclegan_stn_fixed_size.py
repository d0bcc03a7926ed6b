"""SketchCycleGAN's geometric spatial transformer: the input resampled onto a grid of a fixed output size.

Reduced from MsRCAtN/SketchCycleGAN at 2752afa5bdb058901359f16d234f3bde8ed2f475, models/stn.py,
``STNGeometricTransform`` (lines 5-26; the grid at line 23): a small localization network (a 7x7
convolution, ReLU, global average pooling) and a linear layer give each image its 2x3 affine
matrix (the layer starts at the identity: zero weights, bias ``[1, 0, 0, 0, 1, 0]``), and
``F.affine_grid(theta, [B, x.size(1), self.out_h, self.out_w], align_corners=False)`` builds the
sampling grid from a size written out as a list: the batch read once as ``B = x.size(0)``, the
channels read from the input, the height and width the module's own (256x256 in the original,
12x10 here), so any input size is resampled to one output size. The weights are moved off the
identity in ``build`` (as after training). Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class GeometricSTN(nn.Module):
    def __init__(self, channels: int = 3, out_size: tuple[int, int] = (12, 10)) -> None:
        super().__init__()
        self.out_h, self.out_w = out_size
        self.localization = nn.Sequential(nn.Conv2d(channels, 8, kernel_size=7), nn.ReLU(True), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(8, 6)
        self.fc.weight.data.zero_()
        self.fc.bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def forward(self, x):
        B = x.size(0)
        xs = self.localization(x).view(B, -1)
        theta = self.fc(xs).view(-1, 2, 3)
        grid = F.affine_grid(theta, [B, x.size(1), self.out_h, self.out_w], align_corners=False)
        return F.grid_sample(x, grid, align_corners=False)


def build() -> nn.Module:
    torch.manual_seed(0)
    model = GeometricSTN()
    with torch.no_grad():
        model.fc.weight.normal_(0.0, 0.2)
    return model.eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 16, 14, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
