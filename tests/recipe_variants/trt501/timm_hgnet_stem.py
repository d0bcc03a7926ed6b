"""PP-HGNetV2's stem in timm: after the first strided convolution the map is padded by one zero
column on the right and one zero row at the bottom, ``F.pad(x, (0, 1, 0, 1))``, so that a
2x2 convolution branch and a 2x2 stride-1 max pool keep its size; the second branch is padded
the same way once more before its next convolution, and the two branches are concatenated.

Reduced from huggingface/pytorch-image-models at tag v1.0.31 (the PyPI release the zoo
unpacks), timm/models/hgnet.py:171-237 (``StemV2.__init__``: ``stem1`` a strided 3x3
ConvBNAct, ``stem2a`` and ``stem2b`` 2x2 convolutions, ``pool = nn.MaxPool2d(2, stride=1,
ceil_mode=True)``; ``forward``: the two literal pads at :228 and :230, the pool, the
concatenation, ``stem3`` and ``stem4``), written here in our own words with plain
``Conv2d``+``ReLU`` for ConvBNAct and small channel counts.
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def _conv(in_chs: int, out_chs: int, kernel_size: int, stride: int = 1) -> nn.Module:
    return nn.Sequential(nn.Conv2d(in_chs, out_chs, kernel_size, stride, padding=(kernel_size - 1) // 2), nn.ReLU())


class StemV2(nn.Module):
    def __init__(self, in_chs: int = 3, mid_chs: int = 4, out_chs: int = 6) -> None:
        super().__init__()
        self.stem1 = _conv(in_chs, mid_chs, 3, stride=2)
        self.stem2a = _conv(mid_chs, mid_chs // 2, 2)
        self.stem2b = _conv(mid_chs // 2, mid_chs, 2)
        self.stem3 = _conv(mid_chs * 2, mid_chs, 3, stride=2)
        self.stem4 = _conv(mid_chs, out_chs, 1)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=1, ceil_mode=True)

    def forward(self, x: Tensor) -> Tensor:
        x = self.stem1(x)
        x = F.pad(x, (0, 1, 0, 1))
        x2 = self.stem2a(x)
        x2 = F.pad(x2, (0, 1, 0, 1))
        x2 = self.stem2b(x2)
        x1 = self.pool(x)
        x = torch.cat([x1, x2], dim=1)
        x = self.stem3(x)
        return self.stem4(x)


def build() -> nn.Module:
    return StemV2()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 12, 10, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
