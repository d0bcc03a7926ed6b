"""kornia's LightGlue: learnable Fourier positional encodings of the keypoints, their cosines and sines stacked and
doubled along the last axis, applied in a self-attention block by a rotation that unflattens, unbinds and stacks
along ``-1``.

Reduced from kornia==0.9.0 (PyPI; kornia/kornia), kornia/feature/lightglue.py: ``LearnableFourierPositionalEncoding
.forward`` (lines 105-110) projects the keypoints with ``self.Wr`` (a ``Linear(M, F_dim // 2, bias=False)``, line
102), stacks ``torch.cos`` and ``torch.sin`` of it on a new axis 0, ``.unsqueeze(-3)`` and returns
``emb.repeat_interleave(2, dim=-1)`` (line 110) on the 5-D stack; ``rotate_half`` (lines 73-77: ``x.unflatten(-1,
(-1, 2))``, ``unbind(dim=-1)``, ``torch.stack((-x2, x1), dim=-1).flatten(start_dim=-2)``) and
``apply_cached_rotary_emb`` (lines 80-82) rotate the queries and keys in ``SelfBlock.forward`` (lines 208-233:
``qkv.unflatten(-1, (self.num_heads, -1, 3)).transpose(1, 2)``, scaled dot-product attention, ``out_proj`` and
``self.ffn(torch.cat([x, message], -1))``); ``LightGlue`` builds the encoding once per image (lines 868-869). Kept:
the encoding's ``repeat_interleave`` with the axis by keyword on a plain name, the rotation and the block's ``-1``
axes. Reduced: one self block and no cross block, no keypoint normalisation, pruning or matching head, a smaller
``FFN``. The TorchScript exporter makes the shared ``-1`` a 4 (the stack's rank is 5), and the block's
``Concat`` along 4 of 3-D tensors is refused. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"kpts": {0: "batch", 1: "points"}, "desc": {0: "batch", 1: "points"}}
CALL = "return emb.repeat_interleave(2, dim=-1)"


def rotate_half(x):
    x = x.unflatten(-1, (-1, 2))
    x1, x2 = x.unbind(dim=-1)
    return torch.stack((-x2, x1), dim=-1).flatten(start_dim=-2)


def apply_cached_rotary_emb(freqs, t):
    return (t * freqs[0]) + (rotate_half(t) * freqs[1])


class LearnableFourierPositionalEncoding(nn.Module):
    def __init__(self, M: int, dim: int, gamma: float = 1.0) -> None:
        super().__init__()
        self.Wr = nn.Linear(M, dim // 2, bias=False)
        nn.init.normal_(self.Wr.weight.data, mean=0, std=gamma ** -2)

    def forward(self, x):
        projected = self.Wr(x)
        cosines, sines = torch.cos(projected), torch.sin(projected)
        emb = torch.stack([cosines, sines], 0).unsqueeze(-3)
        return emb.repeat_interleave(2, dim=-1)


class SelfBlock(nn.Module):
    def __init__(self, embed_dim: int = 8, num_heads: int = 2) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.Wqkv = nn.Linear(embed_dim, 3 * embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)
        self.ffn = nn.Sequential(nn.Linear(2 * embed_dim, embed_dim), nn.GELU())

    def forward(self, x, encoding):
        qkv = self.Wqkv(x)
        qkv = qkv.unflatten(-1, (self.num_heads, -1, 3)).transpose(1, 2)
        q, k, v = qkv[..., 0], qkv[..., 1], qkv[..., 2]
        q = apply_cached_rotary_emb(encoding, q)
        k = apply_cached_rotary_emb(encoding, k)
        context = F.scaled_dot_product_attention(q, k, v)
        message = self.out_proj(context.transpose(1, 2).flatten(start_dim=-2))
        return x + self.ffn(torch.cat([x, message], -1))


class TinyLightGlue(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.posenc = LearnableFourierPositionalEncoding(2, dim // heads)
        self.block = SelfBlock(dim, heads)

    def forward(self, kpts, desc):
        encoding = self.posenc(kpts)
        return self.block(desc, encoding)


def build() -> nn.Module:
    torch.manual_seed(0)
    return TinyLightGlue().eval()


def inputs(generator: torch.Generator, batch: int = 1, points: int = 6) -> tuple[torch.Tensor, ...]:
    kpts = torch.rand(batch, points, 2, generator=generator) * 2 - 1
    return kpts, torch.randn(batch, points, 8, generator=generator)
