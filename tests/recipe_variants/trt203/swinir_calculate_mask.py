"""SwinIR's attention mask for an input size other than the training one: ``calculate_mask`` writes
the region numbers into ``img_mask[:, h, w, :]``, empty where the size equals the window.

Reduced from JingyunLiang/SwinIR@33f616625268d08ba600f8db89388eec0328edb1 models/network_swinir.py
(``SwinTransformerBlock.calculate_mask``: the zeros mask of the given size, the three slices per axis, the
loop writing ``cnt``, the windows' pairwise differences turned into -100 / 0; ``forward`` calls it for a
size other than ``input_resolution``), written here in our own words. The sizes are read from the input, so the trace follows them (the
export succeeds without the fix; the fix must keep it following them).
"""

import torch
from torch import nn


class MaskedBlock(nn.Module):
    def __init__(self, window: int = 4, resolution: tuple = (8, 8)) -> None:
        super().__init__()
        self.window_size = window
        self.shift_size = window // 2
        self.input_resolution = resolution

    def calculate_mask(self, x_size):
        H, W = x_size
        ws, ss = self.window_size, self.shift_size
        img_mask = torch.zeros((1, H, W, 1))
        parts = (slice(0, -ws), slice(-ws, -ss), slice(-ss, None))  # the same three for rows and columns
        cnt = 0
        for h in parts:
            for w in parts:
                img_mask[:, h, w, :] = cnt
                cnt += 1
        windows = img_mask.view(-1, ws * ws)
        attn_mask = windows.unsqueeze(1) - windows.unsqueeze(2)
        return attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_size = (x.shape[2], x.shape[3])
        mask = self.calculate_mask(x_size)
        scores = torch.einsum("bchw,bchw->bhw", x, x).flatten(1)
        return scores.unsqueeze(-1) + mask.mean(0).sum(0)


def build() -> nn.Module:
    return MaskedBlock()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 4, 4, generator=generator),)  # the size equals the window


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
