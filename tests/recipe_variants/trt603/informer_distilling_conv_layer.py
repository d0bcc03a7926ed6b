"""Informer's self-attention distilling (time-series forecasting): between encoder layers a
``ConvLayer`` halves the sequence with a circular 1-D convolution, batch norm, ELU and an
``nn.MaxPool1d(kernel_size=3, stride=2, padding=1)`` built in ``__init__``, on the tokens permuted
to ``(B, C, L)`` and transposed back.

Reduced from zhouhaoyi/Informer2020 at commit 29f2a739226a509202a092b464163da81fa74960,
models/encoder.py, ``ConvLayer.__init__`` lines 6-16 (the padding chosen from
``torch.__version__``, ``nn.Conv1d(..., padding_mode='circular')``, ``nn.BatchNorm1d``,
``nn.ELU``, line 16 ``self.maxPool = nn.MaxPool1d(kernel_size=3, stride=2, padding=1)``) and
``ConvLayer.forward`` lines 18-24. Written here in our own words; a linear token embedding and a
second distilling layer stand in for the encoder's attention layers between them (Informer stacks
``EncoderLayer``/``ConvLayer`` pairs).
"""

import torch
from torch import nn


class ConvLayer(nn.Module):
    def __init__(self, c_in: int) -> None:
        super().__init__()
        padding = 1 if torch.__version__ >= "1.5.0" else 2
        self.downConv = nn.Conv1d(in_channels=c_in, out_channels=c_in, kernel_size=3, padding=padding,
                                  padding_mode="circular")
        self.norm = nn.BatchNorm1d(c_in)
        self.activation = nn.ELU()
        self.maxPool = nn.MaxPool1d(kernel_size=3, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.downConv(x.permute(0, 2, 1))
        x = self.activation(self.norm(x))
        x = self.maxPool(x)
        return x.transpose(1, 2)


class DistillingEncoder(nn.Module):
    def __init__(self, c_in: int = 3, d_model: int = 8) -> None:
        super().__init__()
        self.embed = nn.Linear(c_in, d_model)
        self.conv_layers = nn.ModuleList([ConvLayer(d_model) for _ in range(2)])

    def forward(self, x_enc: torch.Tensor) -> torch.Tensor:
        x = self.embed(x_enc)
        for conv_layer in self.conv_layers:
            x = conv_layer(x)
        return x


def build() -> nn.Module:
    return DistillingEncoder()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 16, 3, generator=generator),)


DYNAMIC = {"x_enc": {0: "batch", 1: "length"}}
