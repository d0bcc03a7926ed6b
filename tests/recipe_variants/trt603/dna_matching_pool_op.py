"""MIC-DKFZ/dynamic-network-architectures' ``PlainConvEncoder`` (nnU-Net's encoders) on 1-D data:
the pooling class comes from ``get_matching_pool_op(conv_op, pool_type=pool)``, which picks
``nn.AvgPool1d``/``nn.MaxPool1d``/... from the convolution's class, and the returned class is called at
once with ``kernel_size`` and ``stride`` keywords; the pool is the first module of an ``nn.Sequential``
stage, and ``forward`` runs the stages (``x = s(x)``), so no line of the user's calls the pool itself.

Reduced from MIC-DKFZ/dynamic-network-architectures at commit d35f85c7b92cbf3e9443b412fdc7c81f8e2e7b12:
dynamic_network_architectures/building_blocks/helper.py lines 41-75 (``get_matching_pool_op``: the
dimension from the conv class, then the 1-D branch returning ``nn.AvgPool1d`` / ``nn.MaxPool1d``) and
building_blocks/plain_conv_encoder.py lines 50-58 (a stage whose stride is not 1 starts with
``get_matching_pool_op(conv_op, pool_type=pool)(kernel_size=strides[s], stride=strides[s])``, line 54)
and 83-91 (``forward``: ``x = s(x)`` at line 86). Written here in our own words, with one convolution per stage.
"""

import torch
from torch import nn


def conv_dim(conv_op: type) -> int:
    if conv_op is nn.Conv1d:
        return 1
    if conv_op is nn.Conv2d:
        return 2
    if conv_op is nn.Conv3d:
        return 3
    raise ValueError(f"not a convolution class: {conv_op}")


def matching_pool(conv_op: type, pool_type: str = "avg", adaptive: bool = False) -> type:
    assert pool_type in ("avg", "max")
    dim = conv_dim(conv_op)
    if dim == 1:
        if pool_type == "avg":
            return nn.AdaptiveAvgPool1d if adaptive else nn.AvgPool1d
        return nn.AdaptiveMaxPool1d if adaptive else nn.MaxPool1d
    if dim == 2:
        if pool_type == "avg":
            return nn.AdaptiveAvgPool2d if adaptive else nn.AvgPool2d
        return nn.AdaptiveMaxPool2d if adaptive else nn.MaxPool2d
    if pool_type == "avg":
        return nn.AdaptiveAvgPool3d if adaptive else nn.AvgPool3d
    return nn.AdaptiveMaxPool3d if adaptive else nn.MaxPool3d


class PlainEncoder(nn.Module):
    def __init__(self, conv_op: type = nn.Conv1d, channels=(4, 8, 8), strides=(1, 2, 3), pool: str = "max") -> None:
        super().__init__()
        stages = []
        c_in = 3
        for s, c_out in enumerate(channels):
            parts = []
            if strides[s] != 1:
                parts.append(matching_pool(conv_op, pool_type=pool)(kernel_size=strides[s], stride=strides[s]))
            parts.append(conv_op(c_in, c_out, 3, padding=1))
            parts.append(nn.LeakyReLU(0.01))
            stages.append(nn.Sequential(*parts))
            c_in = c_out
        self.stages = nn.Sequential(*stages)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skips = []
        for s in self.stages:
            x = s(x)
            skips.append(x.amax(-1))
        return torch.cat(skips, dim=1)


class TwoEncoders(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.max_encoder = PlainEncoder(pool="max")
        self.avg_encoder = PlainEncoder(pool="avg", strides=(2, 1, 2))

    def forward(self, series: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.max_encoder(series), self.avg_encoder(series)], dim=1)


def build() -> nn.Module:
    return TwoEncoders()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 30, generator=generator),)


DYNAMIC = {"series": {0: "batch", 2: "length"}}
