"""Bandit's convolutional time-frequency module: a scripted ``nn.Sequential`` of residual convolution blocks.

Reduced from ZFTurbo/Music-Source-Separation-Training @ ccc011abf7f89dd7922bb2888d48493b575c0289,
models/bandit/core/model/bsrnn/tfmodel.py:300: ``ConvolutionalTimeFreqModule.__init__`` builds ``self.seqband =
torch.jit.script(nn.Sequential(*[ResidualConvolution(...) for _ in range(2 * n_modules)]))``; forward moves the
embedding axis to the channels, runs the scripted stack and moves it back. ``ResidualConvolution`` is an instance
norm, a 3x3 convolution with ``padding="same"`` and a Tanhshrink, a 1x1 convolution back to the embedding width and
a residual add. Kept: the scripted ``nn.Sequential`` of the file's own blocks, built from a comprehension, and the
permutes around it. Reduced: two blocks of a small width instead of 24 of 128. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"z": {0: "batch", 1: "bands", 2: "time"}}
#: The line of the scripted stack (the rule's finding the failing call needs).
CALL = "self.seqband = torch.jit.script(nn.Sequential("
EMB = 6


class ResidualConvolution(nn.Module):
    def __init__(self, emb_dim: int = EMB, rnn_dim: int = 8) -> None:
        super().__init__()
        self.norm = nn.InstanceNorm2d(emb_dim, affine=True)
        self.conv = nn.Sequential(nn.Conv2d(emb_dim, rnn_dim, kernel_size=(3, 3), padding="same"), nn.Tanhshrink())
        self.fc = nn.Conv2d(rnn_dim, emb_dim, kernel_size=(1, 1), padding="same")

    def forward(self, z):
        z0 = torch.clone(z)
        z = self.norm(z)
        z = self.conv(z)
        z = self.fc(z)
        return z + z0


class ConvolutionalTimeFreqModule(nn.Module):
    def __init__(self, n_modules: int = 1, emb_dim: int = EMB, rnn_dim: int = 8) -> None:
        super().__init__()
        self.seqband = torch.jit.script(nn.Sequential(
            *[ResidualConvolution(emb_dim=emb_dim, rnn_dim=rnn_dim) for _ in range(2 * n_modules)]))

    def forward(self, z):
        z = torch.permute(z, (0, 3, 1, 2))
        z = self.seqband(z)
        return torch.permute(z, (0, 2, 3, 1))


def build() -> nn.Module:
    model = ConvolutionalTimeFreqModule()
    generator = torch.Generator().manual_seed(3)
    with torch.no_grad():  # trained affine norms, not the identity they start as
        for block in model.seqband:
            block.norm.weight.copy_(torch.rand(EMB, generator=generator) + 0.5)
            block.norm.bias.copy_(torch.randn(EMB, generator=generator) * 0.1)
    return model.eval()


def inputs(generator: torch.Generator, batch: int = 1, bands: int = 5, time: int = 7) -> tuple[torch.Tensor, ...]:
    """Band embeddings ``(batch, bands, time, emb)``."""
    return (torch.randn(batch, bands, time, EMB, generator=generator),)
