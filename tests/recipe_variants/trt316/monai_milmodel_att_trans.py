"""MONAI's multiple-instance model in its ``att_trans`` mode: a transformer over a bag of instances.

Reduced from MONAI 1.6.1 (the PyPI wheel), monai/networks/nets/milmodel.py: ``MILModel.__init__``
(lines 62-171; the backbone's ``fc`` is read for ``nfc`` and replaced by ``nn.Identity`` at lines
77-78, and the ``att_trans`` branch at lines 131-134 builds ``nn.TransformerEncoderLayer(d_model=nfc,
nhead=8, dropout=trans_dropout)`` and wraps it in ``nn.TransformerEncoder(transformer,
num_layers=trans_blocks)``), ``MILModel.calc_head`` (lines 173-226, the ``att_trans`` branch at lines
191-200: the instances are put first with ``permute(1, 0, 2)`` for the sequence-first encoder,
permuted back, pooled with softmax attention weights and classified) and ``MILModel.forward``
(lines 228-237: a ``[B, N, C, H, W]`` bag is reshaped to ``B * N`` images for the backbone and the
features back to ``[B, N, nfc]``; its ``no_head`` switch is left out). Written here in our own words; MONAI's backbone is a torchvision
ResNet-50, here a small convolutional network with the same ``fc`` attribute. The number of
instances ``N`` in a bag is the sequence length of the encoder.
"""

import torch
from torch import nn


class SmallBackbone(nn.Module):
    def __init__(self, features: int = 32) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, features, kernel_size=3, stride=2, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(features, 1000)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(torch.relu(self.conv(x))), 1))


class MILModel(nn.Module):
    def __init__(self, num_classes: int = 3, trans_blocks: int = 2, trans_dropout: float = 0.0) -> None:
        super().__init__()
        net = SmallBackbone()
        nfc = net.fc.in_features
        net.fc = torch.nn.Identity()
        self.mil_mode = "att_trans"
        transformer = nn.TransformerEncoderLayer(d_model=nfc, nhead=8, dropout=trans_dropout)
        self.transformer = nn.TransformerEncoder(transformer, num_layers=trans_blocks)
        self.attention = nn.Sequential(nn.Linear(nfc, 64), nn.Tanh(), nn.Linear(64, 1))
        self.myfc = nn.Linear(nfc, num_classes)
        self.net = net

    def calc_head(self, x: torch.Tensor) -> torch.Tensor:
        if self.mil_mode == "att_trans" and self.transformer is not None:
            x = x.permute(1, 0, 2)
            x = self.transformer(x)
            x = x.permute(1, 0, 2)
            a = self.attention(x)
            a = torch.softmax(a, dim=1)
            x = torch.sum(x * a, dim=1)
            x = self.myfc(x)
        else:
            raise ValueError("Wrong model mode" + str(self.mil_mode))
        return x

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        sh = x.shape
        x = x.reshape(sh[0] * sh[1], sh[2], sh[3], sh[4])
        x = self.net(x)
        x = x.reshape(sh[0], sh[1], -1)
        return self.calc_head(x)


def build() -> nn.Module:
    return MILModel().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 3, 8, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "instances"}}
