"""``int()`` of a size over a float: Swin's window reverse recovers the batch size.

Reduced from microsoft/Swin-Transformer @ f82860bfb5225915aca09c3227159ee9e1df874d,
models/swin_transformer.py:71-74 (``B = int(windows.shape[0] / (H * W / window_size /
window_size))`` in ``window_reverse(windows, window_size, H, W)``), written here in our own
words; the batch axis is the dynamic one (the resolution is fixed by the configuration).
"""

import torch
from torch import nn


def window_reverse(windows, window_size, H, W):
    B = int(windows.shape[0] / (H * W / window_size / window_size))
    x = windows.view(B, H // window_size, W // window_size, window_size, window_size, -1)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)


class Reverse(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.window_size = 2

    def forward(self, windows):
        return window_reverse(windows * 2, self.window_size, 4, 6)


def build() -> nn.Module:
    return Reverse()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(6 * 2, 2, 2, 3, generator=generator),)


DYNAMIC = {"windows": {0: "n"}}
