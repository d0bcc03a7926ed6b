"""icefall's Zipformer front end: 2-D convolutional subsampling and the frame counts after it.

Reduced from k2-fsa/icefall at commit 36e0420c7e3e849a25b3d24dbf913c424f3d23c9,
egs/librispeech/ASR/zipformer/subsampling.py, ``Conv2dSubsampling.__init__`` and ``forward``
(lines 194-332; the lengths at lines 324-329). Features ``(N, T, idim)`` go through three
convolutions (kernel 3; stride 2 in time on the second, 2 in frequency on the third) to ``(N,
(T - 7) // 2, odim)``, and each utterance's frame count ``x_lens`` (an int64 tensor) becomes
``(x_lens - 7) // 2``, written twice: once under ``torch.jit.is_scripting() or
torch.jit.is_tracing()`` and once, in eager mode, inside ``warnings.catch_warnings()`` (to hide
the old ``__floordiv__`` deprecation warning). An utterance shorter than 7 frames in a padded
batch has a negative count: eager torch floors (4 frames give -2), the TorchScript export
truncates (-1). Written here in our own words: SiLU for icefall's SwooshR, without the Balancer,
Whiten, ScaleGrad and dropout modules (identities at inference), the ConvNeXt block (a residual
of the same shape) and the ``assert`` that compares the longest count with the output's length
through ``.item()``.
"""

import warnings
from typing import Tuple

import torch
from torch import nn


class BiasNorm(nn.Module):
    def __init__(self, num_channels: int) -> None:
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(num_channels))
        self.log_scale = nn.Parameter(torch.tensor(0.0))

    def forward(self, x):
        scales = ((x - self.bias) ** 2).mean(dim=-1, keepdim=True) ** -0.5
        return x * scales * self.log_scale.exp()


class Conv2dSubsampling(nn.Module):
    def __init__(self, in_channels=13, out_channels=8, layer1_channels=2, layer2_channels=4,
                 layer3_channels=4) -> None:
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, layer1_channels, kernel_size=3, padding=(0, 1)),
            nn.SiLU(),
            nn.Conv2d(layer1_channels, layer2_channels, kernel_size=3, stride=2, padding=0),
            nn.SiLU(),
            nn.Conv2d(layer2_channels, layer3_channels, kernel_size=3, stride=(1, 2)),
            nn.SiLU(),
        )
        self.out_width = (((in_channels - 1) // 2) - 1) // 2
        self.out = nn.Linear(self.out_width * layer3_channels, out_channels)
        self.out_norm = BiasNorm(out_channels)

    def forward(self, x: torch.Tensor, x_lens: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        x = x.unsqueeze(1)
        x = self.conv(x)
        b, c, t, f = x.size()
        x = x.transpose(1, 2).reshape(b, t, c * f)
        x = self.out(x)
        x = self.out_norm(x)

        if torch.jit.is_scripting() or torch.jit.is_tracing():
            x_lens = (x_lens - 7) // 2
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                x_lens = (x_lens - 7) // 2
        return x, x_lens


def build() -> nn.Module:
    return Conv2dSubsampling().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # A padded batch of 21 frames: a full utterance, a short one and one shorter than the subsampling's 7.
    return torch.randn(3, 21, 13, generator=generator), torch.tensor([21, 12, 4])


DYNAMIC = {"x": {0: "batch", 1: "frames"}, "x_lens": {0: "batch"}}
