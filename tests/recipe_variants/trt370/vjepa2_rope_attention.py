"""V-JEPA 2's 3D rotary attention: int64 token indices split into frame, row and column, times float frequencies.

Reduced from facebookresearch/vjepa2 (GitHub, commit c2963a47433ecca0ad4f06ec28bcfa8cb5b5cefb),
src/models/utils/modules.py: ``rotate_queries_or_keys(x, pos)`` (lines 26-55) builds float frequencies in
``x``'s dtype and takes ``freq = torch.einsum("..., f -> ... f", pos, omega)`` (line 34);
``RoPEAttention.forward`` (from line 331) takes ``mask = torch.arange(int(grid_depth * self.grid_size *
self.grid_size), device=x.device)`` when no mask is given (int64, line 343), splits it into frame, row and column
indices with ``//`` and subtraction (``separate_positions``, lines 316-329, returning them int64) and rotates the
query and key thirds with each (lines 350-359); the V-JEPA 2 ViTs build it with ``use_rope=True``
(src/models/vision_transformer.py:384). Kept: the int64 index range, the floor divisions, the ellipsis
equation, the frequencies' repeat and pair rotation, the three thirds. Reduced: no given mask, no SDPA (the
original's manual attention path), a grid of 2 by 2 patches per frame. Eager mode promotes the int64 indices to
float32; the exported ``Einsum`` keeps both types and ONNX Runtime refuses to load the graph. Written here in our
own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch"}}


def rotate_queries_or_keys(x, pos):
    half = x.shape[-1] // 2
    omega = torch.arange(half, dtype=x.dtype, device=x.device)
    omega /= half
    omega = 1.0 / 10000 ** omega
    freq = torch.einsum("..., f -> ... f", pos, omega)
    sin = freq.sin().repeat(1, 1, 1, 2)
    cos = freq.cos().repeat(1, 1, 1, 2)
    pairs = x.unflatten(-1, (-1, 2))
    first, second = pairs.unbind(dim=-1)
    turned = torch.stack((-second, first), dim=-1).flatten(-2)
    return x * cos + turned * sin


class GridRoPEAttention(nn.Module):
    def __init__(self, dim: int = 24, num_heads: int = 2, grid_size: int = 2) -> None:
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = head_dim ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.axis_dim = 2 * ((head_dim // 3) // 2)
        self.grid_size = grid_size

    def separate_positions(self, ids):
        per_frame = self.grid_size * self.grid_size
        frames = ids // per_frame
        within = ids - per_frame * frames
        rows = within // self.grid_size
        cols = within - self.grid_size * rows
        return frames, rows, cols

    def forward(self, x):
        batch, tokens, channels = x.size()
        depth = int(tokens // (self.grid_size * self.grid_size))
        qkv = self.qkv(x).unflatten(-1, (3, self.num_heads, -1)).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        ids = torch.arange(int(depth * self.grid_size * self.grid_size), device=x.device)
        turned_q, turned_k = [], []
        for start, pos in zip(range(0, 3 * self.axis_dim, self.axis_dim), self.separate_positions(ids)):
            stop = start + self.axis_dim
            turned_q.append(rotate_queries_or_keys(q[..., start:stop], pos=pos))
            turned_k.append(rotate_queries_or_keys(k[..., start:stop], pos=pos))
        q = torch.cat(turned_q, dim=-1)
        k = torch.cat(turned_k, dim=-1)
        attn = ((q @ k.transpose(-2, -1)) * self.scale).softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(batch, tokens, channels)
        return self.proj(out)


def build() -> nn.Module:
    torch.manual_seed(0)
    return GridRoPEAttention().eval()


def inputs(generator):
    return (torch.rand(2, 8, 24, generator=generator),)
