"""perceiver-io's rotary frequency encoding: int64 positions per example (shifted by left padding) times floats.

Reduced from krasserm/perceiver-io (GitHub, commit 46c63250d93eb351bcd8ff8ba9113f5025941dd9),
perceiver/model/core/position.py: ``positions(b, n, shift)`` (lines 9-17) repeats ``torch.arange(n)`` over the
batch (int64), subtracts a per-example shift and clamps at 0; ``FrequencyPositionEncoding.forward(abs_pos)``
(lines 67-71) takes ``torch.einsum("b n, f -> b n f", abs_pos, self.inv_freq)`` of them and a float32 buffer
and repeats each frequency twice; ``RotaryPositionEmbedding.rotate`` (lines 30-42) turns queries and keys with
its sines and cosines. Perceiver AR's ``forward`` (perceiver/model/core/modules.py:768-793) takes the shift
from a left-padding mask (``pad_mask.sum(dim=1, keepdim=True)``) and passes
``positions(b, n, shift=shift, device=x.device)`` to its input adapter (adapter.py:29-32). Kept: the batched
int64 positions, the shift from the padding mask, the clamp, the spaced equation, the pair rotation of
queries and keys. Reduced: no einops (``repeat(..., r=2)`` is ``repeat_interleave``, the channel pairs
strided slices, the axes written as positive numbers), one attention layer over given embeddings instead of the
Perceiver AR stack. Eager mode promotes the int64 positions to float32; the exported ``Einsum`` keeps both types
and ONNX Runtime refuses to load the graph. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch", 1: "tokens"}, "pad_mask": {0: "batch", 1: "tokens"}}


def positions(b, n, shift=None, device=None):
    pos = torch.arange(n, device=device).unsqueeze(0).expand(b, n)
    if shift is not None:
        pos = pos - shift
    return torch.clamp(pos, min=0)


class FrequencyPositionEncoding(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim)))

    def forward(self, abs_pos):
        pos_enc = torch.einsum("b n, f -> b n f", abs_pos, self.inv_freq)
        return pos_enc.repeat_interleave(2, dim=2)


def rotate(t, frq_pos_enc):
    first, second = t[..., 0::2], t[..., 1::2]
    turned = torch.stack((-second, first), dim=-1).reshape(t.shape)
    return t * frq_pos_enc.cos() + turned * frq_pos_enc.sin()


class RotaryTokens(nn.Module):
    """Embedded tokens ``(batch, tokens, dim)``, left-padded where ``pad_mask`` is true, through one attention."""

    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.frq_pos_encoding = FrequencyPositionEncoding(dim)
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)

    def forward(self, x, pad_mask):
        b, n = x.shape[0], x.shape[1]
        shift = pad_mask.sum(dim=1, keepdim=True)
        frq = self.frq_pos_encoding(positions(b, n, shift=shift, device=x.device)).unsqueeze(1)
        q = rotate(self.q(x).unsqueeze(1), frq)
        k = rotate(self.k(x).unsqueeze(1), frq)
        scores = torch.matmul(q, k.transpose(2, 3)) / x.shape[-1] ** 0.5
        scores = scores.masked_fill(pad_mask[:, None, None, :], -1e4)
        return (scores.softmax(dim=-1) @ self.v(x).unsqueeze(1))[:, 0]


def build() -> nn.Module:
    torch.manual_seed(0)
    return RotaryTokens().eval()


def inputs(generator):
    pad_mask = torch.zeros(2, 6, dtype=torch.bool)
    pad_mask[1, :2] = True
    return torch.rand(2, 6, 8, generator=generator), pad_mask
