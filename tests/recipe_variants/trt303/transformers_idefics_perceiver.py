"""The Perceiver resampler's attention, einsums over a leading ellipsis with spaces: transformers.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/idefics/perceiver.py,
``IdeficsPerceiverAttention.forward`` (lines 142-169: ``torch.einsum("... i d, ... j d -> ... i j",
q * self.qk_scale, k)`` on line 161, then ``torch.einsum("... i j, ... j d -> ... i d", attn, v)``
on line 166; a port of the Flamingo resampler). Written here in our own words: the layer norms of
the queries and keys are left out; the latents attend to the context joined with themselves, the
scores are stabilised by their row maximum, as in the original.
"""

import torch
from torch import nn


class PerceiverAttention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qk_scale = self.head_dim ** -0.5
        self.q_proj, self.k_proj, self.v_proj = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.output_proj = nn.Linear(dim, dim)

    def forward(self, context, latents):
        b = context.shape[0]
        q = self.q_proj(latents)
        k = self.k_proj(torch.cat([context, latents], dim=-2))
        v = self.v_proj(torch.cat([context, latents], dim=-2))
        q, k, v = [t.reshape(b, t.shape[1], self.heads, self.head_dim).transpose(1, 2) for t in (q, k, v)]
        scores = torch.einsum("... i d, ... j d -> ... i j", q * self.qk_scale, k)
        attn = (scores - scores.amax(dim=-1, keepdim=True).detach()).softmax(dim=-1)
        resampled = torch.einsum("... i j, ... j d -> ... i d", attn, v)
        return self.output_proj(resampled.transpose(1, 2).flatten(-2))


def build() -> nn.Module:
    return PerceiverAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(2, 6, 8, generator=generator), torch.randn(2, 3, 8, generator=generator)


DYNAMIC = {"context": {0: "batch", 1: "context"}, "latents": {0: "batch", 1: "latents"}}
