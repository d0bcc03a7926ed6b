"""The stereo_matching port of UniMatch's transformer layer: both branches of the tensor test hold a split test.

Reduced from stereo_matching 0.2.0 (the PyPI wheel), stereo_matching/models/unimatch/modeling_unimatch.py:599-621
(``_UniMatchTransformerLayer.forward``): ``is_self_attn = (query - key).abs().max() < 1e-6``, then
``if is_self_attn:`` with ``if attn_num_splits > 1:`` split-window 2-D ``else:`` full 2-D attention,
``else:`` with ``if attn_num_splits > 1:`` split-window 1-D ``else:`` full 1-D attention, each
assigning ``message``; ``attn_num_splits`` is a Python int the feature transformer passes on
(zoo 33's ``sm_unimatch``). Written here in our own words with small attentions and one layer
norm; windows are plain chunks.
"""

import torch
from torch import nn


def attend(q, k, v):
    weights = torch.softmax(q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5, dim=-1)
    return weights @ v


def windows_2d(q, k, v, splits):
    b, n, c = q.shape
    return attend(*(t.reshape(b, splits, n // splits, c) for t in (q, k, v))).reshape(b, n, c)


def rows(q, k, v, width):
    b, n, c = q.shape
    return attend(*(t.reshape(b, n // width, width, c) for t in (q, k, v))).reshape(b, n, c)


def row_windows(q, k, v, width, splits):
    b, n, c = q.shape
    return attend(*(t.reshape(b, n // width, splits, width // splits, c) for t in (q, k, v))).reshape(b, n, c)


class TransformerLayer(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.q_proj = nn.Linear(dim, dim, bias=False)
        self.k_proj = nn.Linear(dim, dim, bias=False)
        self.v_proj = nn.Linear(dim, dim, bias=False)
        self.norm = nn.LayerNorm(dim)

    def forward(self, source, target, width, attn_num_splits):
        query, key, value = source, target, target
        is_self_attn = (query - key).abs().max() < 1e-6
        query = self.q_proj(query)
        key = self.k_proj(key)
        value = self.v_proj(value)

        if is_self_attn:
            if attn_num_splits > 1:
                message = windows_2d(query, key, value, attn_num_splits)
            else:
                message = attend(query, key, value)
        else:
            if attn_num_splits > 1:
                message = row_windows(query, key, value, width, attn_num_splits)
            else:
                message = rows(query, key, value, width)

        return source + self.norm(message)


class Attention(nn.Module):
    """The layer on two images' features with the feature transformer's split count (a Python int): called
    with one image twice, as the block's self-attention does, it takes the self branch."""

    def __init__(self, dim=8, attn_num_splits=2):
        super().__init__()
        self.attn_num_splits = attn_num_splits
        self.layer = TransformerLayer(dim)

    def forward(self, feature0, feature1):
        b, c, h, w = feature0.shape
        source = feature0.flatten(2).transpose(1, 2)
        target = feature1.flatten(2).transpose(1, 2)
        out = self.layer(source, target, w, self.attn_num_splits)
        return out.transpose(1, 2).reshape(b, c, h, w)


def build() -> nn.Module:
    return Attention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 8, 4, 6, generator=generator), torch.randn(1, 8, 4, 6, generator=generator))


DYNAMIC = {"feature0": {0: "batch", 2: "height"}, "feature1": {0: "batch", 2: "height"}}
