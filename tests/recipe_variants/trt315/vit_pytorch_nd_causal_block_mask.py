"""vit-pytorch's N-d ViT attention with a causal mask along chosen grid axes, through a block mask.

Reduced from vit-pytorch 1.26.11 (the PyPI wheel), vit_pytorch/vit_nd_masking.py:
``nd_causal_mask_fn`` (lines 13-43; the mask function over flattened patch coordinates, a class
token that sees and is seen by all), ``create_nd_block_mask`` (lines 79-85,
``create_block_mask(mask_fn, 1, heads, n, n)``) and ``nd_attention`` (lines 87-92:
``flex_attention(q, k, v, block_mask = block_mask, scale = scale)``). Written here in our own words.
The original takes that call only where the compiled kernel is available (CUDA, AVX2 CPUs) and
otherwise computes the attention by hand; the platform check is left out so the variant always takes
the ``flex_attention`` path the rule is about. As in the original, the block mask is built once with
the model for its fixed grid (building one inside ``forward`` would stop the TorchScript trace at
``create_block_mask``'s ``vmap`` before the call). Form kept: the function imported by name, called
with ``block_mask=`` and ``scale=`` keywords; the mask is a causal one over one grid axis with the
class token exempt.
"""

import math

import torch
from torch import nn
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

GRID = (3, 4)  # patches per axis: rows are causal, columns are not


def causal_along_rows(grid, causal_axes):
    def keep(b, h, q_idx, kv_idx):
        q_is_cls = q_idx == 0
        kv_is_cls = kv_idx == 0
        q_patch = (q_idx - 1).clamp(min=0)
        kv_patch = (kv_idx - 1).clamp(min=0)
        allowed = torch.ones(q_patch.shape, dtype=torch.bool, device=q_patch.device)
        for axis in causal_axes:
            stride = math.prod(grid[axis + 1:])
            allowed = allowed & ((q_patch // stride) % grid[axis] >= (kv_patch // stride) % grid[axis])
        return allowed | q_is_cls | kv_is_cls

    return keep


class NdAttention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.to_out = nn.Linear(dim, dim)
        self.mask_fn = causal_along_rows(GRID, (0,))
        n = 1 + math.prod(GRID)
        self.block_mask = create_block_mask(self.mask_fn, 1, heads, n, n, device="cpu")

    def forward(self, tokens):
        b, n, d = tokens.shape
        q, k, v = (t.reshape(b, n, self.heads, -1).transpose(1, 2) for t in self.to_qkv(tokens).chunk(3, dim=-1))
        out = flex_attention(q, k, v, block_mask=self.block_mask, scale=self.scale)
        return self.to_out(out.transpose(1, 2).reshape(b, n, d))


def build() -> nn.Module:
    return NdAttention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1 + math.prod(GRID), 16, generator=generator),)


DYNAMIC = {"tokens": {0: "batch"}}
