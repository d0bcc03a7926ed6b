"""A length stepped up in a ``while True`` loop until the U-Net's downsamplings divide it.

Reduced from huawei-noah/Speech-Backbones @ e1bab216f6bd866990ac0234c732591a8facb43b,
Grad-TTS/model/utils.py:13-17 (``fix_len_compatibility(length, num_downsamplings_in_unet=2)``: ``while
True: if length % (2**num_downsamplings_in_unet) == 0: return length`` then ``length += 1``; the decoder's
mel frames are padded to that length before its 2-D U-Net), written here in our own words. Traced, the
loop runs as many times as the example needed and returns the example's length. The loop is TRT717's.
"""

import torch
import torch.nn.functional as F
from torch import nn


def compatible_length(length: int, halvings: int = 2) -> int:
    while True:
        if length % (2**halvings) == 0:
            return length
        length += 1


class Decoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.down = nn.Conv1d(4, 4, 4, stride=4)
        self.up = nn.ConvTranspose1d(4, 4, 4, stride=4)

    def forward(self, mel):
        frames = mel.shape[-1]
        padded = compatible_length(frames)
        y = self.up(self.down(F.pad(mel, (0, padded - frames))))
        return y[:, :, :frames]


def build() -> nn.Module:
    return Decoder()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 4, 16, generator=generator),)


DYNAMIC = {"mel": {2: "frames"}}
