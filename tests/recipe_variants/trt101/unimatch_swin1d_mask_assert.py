"""UniMatch's "self_swin2d_cross_swin1d" layer: the cross branch asserts that its 1-D window mask was passed.

Reduced from autonomousvision/unimatch (GitHub, commit 943a990), unimatch/transformer.py:100-131
(``TransformerLayer.forward``): under ``if is_self_attn:`` (a tensor test) the self branch holds
``if attn_num_splits > 1:`` split-window 2-D attention ``else:`` full 2-D attention, and the cross
branch ``if attn_num_splits > 1: assert shifted_window_attn_mask_1d is not None`` before the
split-window 1-D attention with that mask. ``TransformerBlock.forward`` (lines 175-184) passes
``shifted_window_attn_mask_1d=None`` to the self-attention call: there the cross branch cannot
run, so computing both branches is no rewrite of this code. Written here in our own words: the
mask is an additive bias per window, windows are plain chunks.
"""

import torch
from torch import nn


def attend(q, k, v, bias=None):
    scores = q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5
    if bias is not None:
        scores = scores + bias
    return torch.softmax(scores, dim=-1) @ v


def windows_2d(q, k, v, splits):
    b, n, c = q.shape
    return attend(*(t.reshape(b, splits, n // splits, c) for t in (q, k, v))).reshape(b, n, c)


def row_windows(q, k, v, width, splits, bias):
    b, n, c = q.shape
    parts = [t.reshape(b, n // width, splits, width // splits, c) for t in (q, k, v)]
    return attend(*parts, bias=bias).reshape(b, n, c)


class TransformerLayer(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.q_proj = nn.Linear(dim, dim, bias=False)
        self.k_proj = nn.Linear(dim, dim, bias=False)
        self.v_proj = nn.Linear(dim, dim, bias=False)

    def forward(self, source, target, width: int, attn_num_splits: int, shifted_window_attn_mask_1d=None):
        query, key, value = source, target, target
        is_self_attn = (query - key).abs().max() < 1e-6
        query, key, value = self.q_proj(query), self.k_proj(key), self.v_proj(value)
        if is_self_attn:
            if attn_num_splits > 1:
                message = windows_2d(query, key, value, attn_num_splits)
            else:
                message = attend(query, key, value)
        else:
            if attn_num_splits > 1:
                assert shifted_window_attn_mask_1d is not None
                message = row_windows(query, key, value, width, attn_num_splits, shifted_window_attn_mask_1d)
            else:
                message = attend(query, key, value)
        return source + message


class Block(nn.Module):
    def __init__(self, dim=8, attn_num_splits=2):
        super().__init__()
        self.attn_num_splits = attn_num_splits
        self.self_attn = TransformerLayer(dim)
        self.cross_attn = TransformerLayer(dim)

    def forward(self, feature0, feature1):
        b, c, h, w = feature0.shape
        window = w // self.attn_num_splits
        mask_1d = torch.zeros(self.attn_num_splits, window, window, device=feature0.device)
        mask_1d[-1, :, window // 2:] = -100.0
        source = feature0.flatten(2).transpose(1, 2)
        target = feature1.flatten(2).transpose(1, 2)
        source = self.self_attn(source, source, w, self.attn_num_splits, None)
        out = self.cross_attn(source, target, w, self.attn_num_splits, mask_1d)
        return out.transpose(1, 2).reshape(b, c, h, w)


def build() -> nn.Module:
    return Block()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 8, 4, 6, generator=generator), torch.randn(1, 8, 4, 6, generator=generator))


DYNAMIC = {"feature0": {0: "batch", 2: "height"}, "feature1": {0: "batch", 2: "height"}}
