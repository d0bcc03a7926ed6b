"""UperNet's pyramid pooling module in transformers: the pool built from a loop variable
(``nn.AdaptiveAvgPool2d(pool_scale)``), kept in a plain list registered with ``add_module``.

Reduced from transformers 5.24.0 (the PyPI wheel the second zoo unpacks),
src/transformers/models/upernet/modeling_upernet.py, ``UperNetPyramidPoolingBlock`` lines 62-75
(``self.layers = [nn.AdaptiveAvgPool2d(pool_scale), UperNetConvModule(...)]`` and the
``add_module`` loop) and ``UperNetPyramidPoolingModule`` lines 91-114 (one block per scale of
``(1, 2, 3, 6)``, each output resized back with ``nn.functional.interpolate(..., size=x.size()[2:],
mode="bilinear")``). Written here in our own words: a 1x1 convolution stands in for
``UperNetConvModule`` and the module returns the concatenated outputs instead of a list.
"""

import torch
from torch import nn


class PoolingBlock(nn.Module):
    def __init__(self, pool_scale: int, in_channels: int, channels: int) -> None:
        super().__init__()
        self.layers = [nn.AdaptiveAvgPool2d(pool_scale), nn.Conv2d(in_channels, channels, kernel_size=1)]
        for i, layer in enumerate(self.layers):
            self.add_module(str(i), layer)

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        hidden_state = input
        for layer in self.layers:
            hidden_state = layer(hidden_state)
        return hidden_state


class PyramidPoolingModule(nn.Module):
    def __init__(self, pool_scales: tuple[int, ...] = (1, 2, 3, 6), in_channels: int = 3, channels: int = 2) -> None:
        super().__init__()
        self.blocks = []
        for i, pool_scale in enumerate(pool_scales):
            block = PoolingBlock(pool_scale, in_channels, channels)
            self.blocks.append(block)
            self.add_module(str(i), block)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        outs = []
        for ppm in self.blocks:
            out = ppm(x)
            outs.append(nn.functional.interpolate(out, size=x.size()[2:], mode="bilinear", align_corners=False))
        return torch.cat(outs, dim=1)


def build() -> nn.Module:
    return PyramidPoolingModule()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 12, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
