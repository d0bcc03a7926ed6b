"""MaxViT's windowed attention, both products written as spaced, upper-case einsums: torchvision.

Reduced from torchvision 0.29.1 (the PyPI wheel), torchvision/models/maxvit.py,
``RelativePositionalMultiHeadAttention.forward`` (lines 184-211: the scores are
``einsum("B G H I D, B G H J D -> B G H I J", q, k)`` on line 202 and the output
``einsum("B G H I J, B G H J D -> B G H I D", dot_prod, v)`` on line 207). Written here in our own
words: the relative position bias table is left out (a learned bias added to the scores); the
query/key/value projection, the head split and the merge are kept. Three batch labels (batch,
window group, head) lead both operands, spaces between every label.
"""

import torch
import torch.nn.functional as F
from torch import nn


class WindowAttention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.scale = self.head_dim ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, g, p, d = x.shape
        q, k, v = torch.chunk(self.qkv(x), 3, dim=-1)
        q = q.reshape(b, g, p, self.heads, self.head_dim).permute(0, 1, 3, 2, 4)
        k = k.reshape(b, g, p, self.heads, self.head_dim).permute(0, 1, 3, 2, 4)
        v = v.reshape(b, g, p, self.heads, self.head_dim).permute(0, 1, 3, 2, 4)
        k = k * self.scale
        scores = torch.einsum("B G H I D, B G H J D -> B G H I J", q, k)
        weights = F.softmax(scores, dim=-1)
        mixed = torch.einsum("B G H I J, B G H J D -> B G H I D", weights, v)
        return self.out(mixed.permute(0, 1, 3, 2, 4).reshape(b, g, p, d))


def build() -> nn.Module:
    return WindowAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 4, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "groups", 2: "tokens"}}
