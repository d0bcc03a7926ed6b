"""Swin's detection backbone: the shifted-window attention mask of a stage, built by writing a
region number into ``img_mask[:, h, w, :]`` for each pair of row and column slices; where the
padded size equals the window, ``slice(0, -window)`` is empty.

Reduced from SwinTransformer/Swin-Transformer-Object-Detection@c7b20110addde0f74b1fbf812b403d16a59a87a9
mmdet/models/backbones/swin_transformer.py:362-390 (``BasicLayer.forward``: ``Hp``/``Wp`` rounded up to the
window with ``np.ceil``, the zeros mask, the three slices per axis, the double loop writing ``cnt``, the
windows' pairwise differences turned into -100 / 0), written here in our own words; the blocks are one
linear layer biased by the mask's row sums. Upstream issue #227 ("ONNX export fails for small image size").
"""

import numpy as np
import torch
from torch import nn


class WindowStage(nn.Module):
    def __init__(self, channels: int = 6, window: int = 4) -> None:
        super().__init__()
        self.window = window
        self.shift = window // 2
        self.mix = nn.Linear(channels, channels)

    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        _, _, rows, cols = feats.shape
        tokens = feats.flatten(2).transpose(1, 2)
        padded_rows = int(np.ceil(rows / self.window)) * self.window
        padded_cols = int(np.ceil(cols / self.window)) * self.window
        img_mask = torch.zeros((1, padded_rows, padded_cols, 1), device=feats.device)
        row_parts = (slice(0, -self.window), slice(-self.window, -self.shift), slice(-self.shift, None))
        col_parts = (slice(0, -self.window), slice(-self.window, -self.shift), slice(-self.shift, None))
        cnt = 0
        for h in row_parts:
            for w in col_parts:
                img_mask[:, h, w, :] = cnt
                cnt += 1
        windows = img_mask.view(-1, self.window * self.window)
        attn_mask = windows.unsqueeze(1) - windows.unsqueeze(2)
        attn_mask = attn_mask.masked_fill(attn_mask != 0, -100.0).masked_fill(attn_mask == 0, 0.0)
        return self.mix(tokens) + attn_mask.sum() / 100.0


def build() -> nn.Module:
    return WindowStage()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, 4, 4, generator=generator),)  # the padded size equals the window


DYNAMIC = {"feats": {0: "batch"}}
