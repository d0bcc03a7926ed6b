"""kornia's SigLIP 2 vision encoder head: probe attention pooling over tokens with a padding mask.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/models/siglip2/vision_encoder.py:
``SigLip2MultiheadAttentionPoolingHead.__init__`` (lines 181-193: the probe, and
``nn.MultiheadAttention(embed_dim=config.hidden_size, num_heads=config.num_attention_heads,
batch_first=True)`` written with keywords over several lines) and its ``forward`` (lines 195-258:
an optional ``(B, N)`` mask of the tokens to pool becomes an additive ``key_padding_mask``, zeros
with the dtype's finite minimum at the padding tokens, expanded over the batch; the probe attends to
the tokens as key and value, then a residual MLP, and the first token is returned). kornia also
accepts 3-D and 4-D masks and builds the mask in the autocast dtype under ``torch.autocast``; those
branches are left out here. Written in our own words; the number of tokens ``N`` (the key length) is
a run-time size, as the mask's second axis.
"""

import torch
from torch import nn


class SigLip2VisionMLP(nn.Module):
    def __init__(self, hidden_size: int, intermediate_size: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(hidden_size, intermediate_size)
        self.activation = nn.GELU(approximate="tanh")
        self.fc2 = nn.Linear(intermediate_size, hidden_size)

    def forward(self, hidden_states):
        return self.fc2(self.activation(self.fc1(hidden_states)))


class SigLip2MultiheadAttentionPoolingHead(nn.Module):
    def __init__(self, hidden_size: int = 32, num_attention_heads: int = 4, layer_norm_eps: float = 1e-6) -> None:
        super().__init__()
        self.probe = nn.Parameter(torch.randn(1, 1, hidden_size))
        self.attention = nn.MultiheadAttention(
            embed_dim=hidden_size,
            num_heads=num_attention_heads,
            batch_first=True,
        )
        self.layernorm = nn.LayerNorm(hidden_size, eps=layer_norm_eps)
        self.mlp = SigLip2VisionMLP(hidden_size, 2 * hidden_size)

    def forward(self, hidden_state: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        batch_size = hidden_state.shape[0]
        probe = self.probe.repeat(batch_size, 1, 1)
        key_padding_mask = None
        if attention_mask is not None:
            keep = attention_mask.bool()
            score_dtype = hidden_state.dtype
            key_padding_mask = torch.zeros(keep.shape, dtype=score_dtype, device=hidden_state.device)
            key_padding_mask = key_padding_mask.masked_fill(~keep, torch.finfo(score_dtype).min)
            key_padding_mask = key_padding_mask.expand(batch_size, -1)
        hidden_state, _ = self.attention(probe, hidden_state, hidden_state, key_padding_mask=key_padding_mask)
        residual = hidden_state
        hidden_state = self.layernorm(hidden_state)
        hidden_state = residual + self.mlp(hidden_state)
        return hidden_state[:, 0]


def build() -> nn.Module:
    return SigLip2MultiheadAttentionPoolingHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    tokens = torch.randn(2, 9, 32, generator=generator)
    mask = torch.ones(2, 9, dtype=torch.long)
    mask[1, 6:] = 0
    return tokens, mask


DYNAMIC = {"hidden_state": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"}}
