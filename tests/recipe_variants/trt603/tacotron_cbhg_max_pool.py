"""Tacotron's CBHG (text-to-speech): the outputs of a bank of 1-D convolutions (kernels 1..K,
each cut back to ``T`` frames) are concatenated and max-pooled along time by an
``nn.MaxPool1d(kernel_size=2, stride=1, padding=1)`` built in ``__init__``, whose one extra frame is
sliced off again (``[:, :, :T]``) before the projections, the residual and the highway layers.

Reduced from r9y9/tacotron_pytorch at commit 62db7217c10da3edb34f67b185cc0e2b04cdf77e,
tacotron_pytorch/tacotron.py, ``CBHG.__init__`` lines 68-92 (the bank, line 76
``self.max_pool1d = nn.MaxPool1d(kernel_size=2, stride=1, padding=1)``, the projections,
``pre_highway``, the highways) and ``CBHG.forward`` lines 94-136 (``T = x.size(-1)``, the bank
outputs cut to ``T`` and concatenated, line 108 ``x = self.max_pool1d(x)[:, :, :T]``, the
projections, the transpose back, ``x += inputs``, the highways); ``BatchNormConv1d`` (lines 28-42)
and ``Highway`` (lines 45-58). Written here in our own words: a bank of K=4 instead of 16, two
highway layers instead of four; the transpose is unconditional (the original transposes when the
last axis has ``in_dim`` features, which the input here always has) and the bidirectional GRU after
the highways is left out.
"""

import torch
from torch import nn


class BatchNormConv1d(nn.Module):
    def __init__(self, in_dim: int, out_dim: int, kernel_size: int, stride: int, padding: int,
                 activation=None) -> None:
        super().__init__()
        self.conv1d = nn.Conv1d(in_dim, out_dim, kernel_size=kernel_size, stride=stride, padding=padding,
                                bias=False)
        self.bn = nn.BatchNorm1d(out_dim)
        self.activation = activation

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv1d(x)
        if self.activation is not None:
            x = self.activation(x)
        return self.bn(x)


class Highway(nn.Module):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.H = nn.Linear(size, size)
        self.T = nn.Linear(size, size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = torch.sigmoid(self.T(x))
        return torch.relu(self.H(x)) * gate + x * (1.0 - gate)


class CBHG(nn.Module):
    def __init__(self, in_dim: int = 8, K: int = 4, projections=(8, 8)) -> None:
        super().__init__()
        self.in_dim = in_dim
        self.relu = nn.ReLU()
        self.conv1d_banks = nn.ModuleList(
            [BatchNormConv1d(in_dim, in_dim, kernel_size=k, stride=1, padding=k // 2, activation=self.relu)
             for k in range(1, K + 1)])
        self.max_pool1d = nn.MaxPool1d(kernel_size=2, stride=1, padding=1)
        in_sizes = [K * in_dim] + list(projections[:-1])
        activations = [self.relu] * (len(projections) - 1) + [None]
        self.conv1d_projections = nn.ModuleList(
            [BatchNormConv1d(n_in, n_out, kernel_size=3, stride=1, padding=1, activation=act)
             for n_in, n_out, act in zip(in_sizes, projections, activations)])
        self.pre_highway = nn.Linear(projections[-1], in_dim, bias=False)
        self.highways = nn.ModuleList([Highway(in_dim) for _ in range(2)])

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        x = inputs.transpose(1, 2)  # (B, in_dim, T)
        T = x.size(-1)
        x = torch.cat([conv1d(x)[:, :, :T] for conv1d in self.conv1d_banks], dim=1)
        x = self.max_pool1d(x)[:, :, :T]
        for conv1d in self.conv1d_projections:
            x = conv1d(x)
        x = x.transpose(1, 2)
        if x.size(-1) != self.in_dim:
            x = self.pre_highway(x)
        x += inputs
        for highway in self.highways:
            x = highway(x)
        return x


def build() -> nn.Module:
    return CBHG()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 11, 8, generator=generator),)


DYNAMIC = {"inputs": {0: "batch", 1: "frames"}}
