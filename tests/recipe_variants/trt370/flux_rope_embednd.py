"""FLUX.1's N-d rotary embedding, first release: float32 position ids times float64 frequencies (``einsum``).

Reduced from black-forest-labs/flux (GitHub, commit 1f71c43377442214387f8f07b32500df79ba1067, the initial
commit), src/flux/math.py: ``rope(pos, dim, theta)`` (lines 15-22) builds ``scale = torch.arange(0, dim, 2,
dtype=torch.float64, ...) / dim`` (line 17), ``omega = 1.0 / (theta**scale)`` and takes
``torch.einsum("...n,d->...nd", pos, omega)`` (line 19), stacks cos, -sin, sin, cos into 2x2 rotations and
returns them ``.float()``; ``apply_rope`` (lines 25-30) turns queries and keys with them. ``EmbedND.forward``
(src/flux/modules/layers.py:18-25) calls ``rope`` on each axis of the ids, and ``Flux.forward`` on the text and
image ids joined (src/flux/model.py:100-101), which the sampler makes float32 (``torch.zeros(h // 2, w // 2, 3)``
plus ``arange``s, src/flux/sampling.py:41-44). Commit 4343061 ("Add trt support for BF16") later made the scale
``dtype=pos.dtype``. Kept: the float64 scale, the ellipsis equation, the stacked rotations and their ``.float()``,
the pair rotation of queries and keys, one axis per id column. Reduced: no einops (the rotations' split is a
``reshape``), one attention layer of two heads over given tokens and ids. Eager mode promotes the float32 ids to
float64; the exported ``Einsum`` keeps float and double, and ONNX Runtime refuses to load the graph. Written here
in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch", 1: "tokens"}, "ids": {0: "batch", 1: "tokens"}}


def rope(pos, dim, theta):
    scale = torch.arange(0, dim, 2, dtype=torch.float64, device=pos.device) / dim
    omega = 1.0 / (theta ** scale)
    out = torch.einsum("...n,d->...nd", pos, omega)
    out = torch.stack([torch.cos(out), -torch.sin(out), torch.sin(out), torch.cos(out)], dim=-1)
    out = out.reshape(out.shape[0], out.shape[1], out.shape[2], 2, 2)
    return out.float()


def apply_rope(xq, xk, freqs_cis):
    xq_ = xq.float().reshape(*xq.shape[:-1], -1, 1, 2)
    xk_ = xk.float().reshape(*xk.shape[:-1], -1, 1, 2)
    xq_out = freqs_cis[..., 0] * xq_[..., 0] + freqs_cis[..., 1] * xq_[..., 1]
    xk_out = freqs_cis[..., 0] * xk_[..., 0] + freqs_cis[..., 1] * xk_[..., 1]
    return xq_out.reshape(*xq.shape).type_as(xq), xk_out.reshape(*xk.shape).type_as(xk)


class EmbedND(nn.Module):
    def __init__(self, theta: int, axes_dim: list) -> None:
        super().__init__()
        self.theta = theta
        self.axes_dim = axes_dim

    def forward(self, ids):
        emb = torch.cat([rope(ids[..., i], self.axes_dim[i], self.theta) for i in range(len(self.axes_dim))],
                        dim=-3)
        return emb.unsqueeze(1)


class RotaryTokens(nn.Module):
    """Tokens ``(batch, tokens, 16)`` and their (time, row, column) ids ``(batch, tokens, 3)``, two heads of 8."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.pe_embedder = EmbedND(theta=10000, axes_dim=[2, 2, 4])
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, ids):
        pe = self.pe_embedder(ids)
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k = apply_rope(q, k, pe)
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        return self.proj(out.transpose(1, 2).reshape(b, n, c))


def build() -> nn.Module:
    torch.manual_seed(0)
    return RotaryTokens().eval()


def inputs(generator):
    ids = torch.zeros(2, 6, 3)
    ids[..., 1] = torch.arange(6).float() // 3
    ids[..., 2] = torch.arange(6).float() % 3
    return torch.rand(2, 6, 16, generator=generator), ids
