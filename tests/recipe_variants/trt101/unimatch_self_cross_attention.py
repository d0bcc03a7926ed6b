"""UniMatch's transformer layer in its "self_swin2d_cross_1d" mode: a tensor test picks 2-D or 1-D attention.

Reduced from autonomousvision/unimatch (GitHub, commit 943a990), unimatch/transformer.py:55-98
(``TransformerLayer.forward``): ``is_self_attn = (query - key).abs().max() < 1e-6`` tells the
self-attention call (a feature attended with itself) from the cross-attention one; under
``elif attn_type == 'self_swin2d_cross_1d':`` and ``if self.nhead > 1: raise ... else:``, the
self branch holds ``if attn_num_splits > 1:`` (split-window attention) ``else:`` (full 2-D
attention), the cross branch one full 1-D attention along the width. Written here in our own
words with small attentions: windows are plain chunks, no shifted masks, one head.
"""

import torch
from torch import nn


def full_attention(q, k, v):
    scores = torch.matmul(q, k.transpose(1, 2)) / q.shape[-1] ** 0.5
    return torch.matmul(torch.softmax(scores, dim=-1), v)


def window_attention(q, k, v, splits):
    # the tokens cut into `splits` consecutive windows, attention inside each
    b, n, c = q.shape
    size = n // splits
    q, k, v = (t.reshape(b * splits, size, c) for t in (q, k, v))
    return full_attention(q, k, v).reshape(b, n, c)


def row_attention(q, k, v, h, w):
    # 1-D attention: each token sees only the tokens of its own row
    b, n, c = q.shape
    q, k, v = (t.reshape(b * h, w, c) for t in (q, k, v))
    return full_attention(q, k, v).reshape(b, n, c)


class AttentionLayer(nn.Module):
    def __init__(self, dim=8, nhead=1):
        super().__init__()
        self.nhead = nhead
        self.q_proj = nn.Linear(dim, dim, bias=False)
        self.k_proj = nn.Linear(dim, dim, bias=False)
        self.v_proj = nn.Linear(dim, dim, bias=False)
        self.merge = nn.Linear(dim, dim, bias=False)

    def forward(self, source, target, height, width, attn_type="self_swin2d_cross_1d", attn_num_splits=2):
        query, key, value = source, target, target
        # the self-attention call passes one tensor twice
        is_self_attn = (query - key).abs().max() < 1e-6
        query, key, value = self.q_proj(query), self.k_proj(key), self.v_proj(value)
        if attn_type == "full":
            message = full_attention(query, key, value)
        elif attn_type == "self_swin2d_cross_1d":
            if self.nhead > 1:
                raise NotImplementedError
            else:
                if is_self_attn:
                    if attn_num_splits > 1:
                        message = window_attention(query, key, value, attn_num_splits)
                    else:
                        # whole-image attention
                        message = full_attention(query, key, value)
                else:
                    # along the row only
                    message = row_attention(query, key, value, height, width)
        else:
            message = query
        return source + self.merge(message)


class Attention(nn.Module):
    """One layer on two images' features: the block calls it with one image twice (self-attention), then
    with the other image's (cross-attention); identical images make that second call a self-attention too."""

    def __init__(self, dim=8):
        super().__init__()
        self.layer = AttentionLayer(dim)

    def forward(self, feature0, feature1):
        b, c, h, w = feature0.shape
        source = feature0.flatten(2).transpose(1, 2)
        target = feature1.flatten(2).transpose(1, 2)
        out = self.layer(source, target, h, w)
        return out.transpose(1, 2).reshape(b, c, h, w)


def build() -> nn.Module:
    return Attention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 8, 4, 6, generator=generator), torch.randn(1, 8, 4, 6, generator=generator))


DYNAMIC = {"feature0": {0: "batch", 3: "width"}, "feature1": {0: "batch", 3: "width"}}
