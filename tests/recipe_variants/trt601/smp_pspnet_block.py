"""PSPNet's pyramid pooling in segmentation_models_pytorch: one ``nn.Sequential`` per bin size,
the pool built with a keyword ``output_size=(pool_size, pool_size)``, upsampled back and
concatenated.

Reduced from segmentation_models_pytorch 0.6.0 (the PyPI wheel the second zoo unpacks),
segmentation_models_pytorch/decoders/pspnet/decoder.py, ``PSPBlock.__init__`` lines 25-30
(``nn.Sequential(nn.AdaptiveAvgPool2d(output_size=(pool_size, pool_size)), Conv2dReLU(...))``),
``PSPBlock.forward`` lines 32-47 and ``PSPModule`` (sizes ``(1, 2, 3, 6)``, the blocks'
outputs concatenated with the input). Written here in our own words; a 1x1 convolution and ReLU
stand in for smp's ``Conv2dReLU``. smp's ``forward`` also has an ONNX-export branch that pools
with ``F.interpolate(..., mode="area")`` instead (its own workaround); it is left out here, as
the TorchScript exporter lowers an area resize to the same adaptive pooling and fails the same
way with dynamic spatial axes (README: "The adaptive-pooling recipe on real-code variants").
"""

import torch
import torch.nn.functional as F
from torch import nn


class PSPBlock(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, pool_size: int) -> None:
        super().__init__()
        self.pool_size = pool_size
        self.pool = nn.Sequential(
            nn.AdaptiveAvgPool2d(output_size=(pool_size, pool_size)),
            nn.Conv2d(in_channels, out_channels, kernel_size=1),
            nn.ReLU(),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        height, width = x.shape[2:]
        x = self.pool(x)
        return F.interpolate(x, size=(height, width), mode="bilinear", align_corners=True)


class PSPModule(nn.Module):
    def __init__(self, in_channels: int = 4, sizes: tuple[int, ...] = (1, 2, 3, 6)) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([PSPBlock(in_channels, in_channels // len(sizes), size) for size in sizes])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xs = [block(x) for block in self.blocks] + [x]
        return torch.cat(xs, dim=1)


def build() -> nn.Module:
    return PSPModule()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 4, 12, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
