"""Hugging Face transformers' SigLIP vision tower head: a learned probe attends to the image's tokens.

Reduced from transformers 5.24.0 (the PyPI wheel), src/transformers/models/siglip/modeling_siglip.py:
``SiglipMultiheadAttentionPoolingHead.__init__`` (lines 624-631: a probe parameter of one token,
``torch.nn.MultiheadAttention(config.hidden_size, config.num_attention_heads, batch_first=True)``,
a LayerNorm and ``SiglipMLP``), its ``forward`` (lines 633-643: the probe repeated over the batch
is the query, the tokens are key and value, then a residual MLP, and the first token is returned)
and ``SiglipMLP`` (lines 310-322, two linears around the activation). The tokens come from a patch
embedding (``SiglipVisionEmbeddings``: a strided convolution, flattened, transposed), here without
the position embedding and the encoder layers between, so their number follows the image size
(``(H // 4) * (W // 4)``), the key and value length of the attention. Written in our own words.
"""

import torch
from torch import nn


class SiglipMLP(nn.Module):
    def __init__(self, hidden_size: int, intermediate_size: int) -> None:
        super().__init__()
        self.activation_fn = nn.GELU(approximate="tanh")
        self.fc1 = nn.Linear(hidden_size, intermediate_size)
        self.fc2 = nn.Linear(intermediate_size, hidden_size)

    def forward(self, hidden_states):
        return self.fc2(self.activation_fn(self.fc1(hidden_states)))


class SiglipMultiheadAttentionPoolingHead(nn.Module):
    def __init__(self, hidden_size: int, num_attention_heads: int, layer_norm_eps: float = 1e-6) -> None:
        super().__init__()
        self.probe = nn.Parameter(torch.randn(1, 1, hidden_size))
        self.attention = torch.nn.MultiheadAttention(hidden_size, num_attention_heads, batch_first=True)
        self.layernorm = nn.LayerNorm(hidden_size, eps=layer_norm_eps)
        self.mlp = SiglipMLP(hidden_size, 2 * hidden_size)

    def forward(self, hidden_state):
        batch_size = hidden_state.shape[0]
        probe = self.probe.repeat(batch_size, 1, 1)
        hidden_state = self.attention(probe, hidden_state, hidden_state)[0]
        residual = hidden_state
        hidden_state = self.layernorm(hidden_state)
        hidden_state = residual + self.mlp(hidden_state)
        return hidden_state[:, 0]


class SiglipVisionHead(nn.Module):
    def __init__(self, hidden_size: int = 32, heads: int = 4, patch_size: int = 4) -> None:
        super().__init__()
        self.patch_embedding = nn.Conv2d(3, hidden_size, kernel_size=patch_size, stride=patch_size)
        self.post_layernorm = nn.LayerNorm(hidden_size, eps=1e-6)
        self.head = SiglipMultiheadAttentionPoolingHead(hidden_size, heads)

    def forward(self, pixel_values):
        embeddings = self.patch_embedding(pixel_values).flatten(2).transpose(1, 2)
        return self.head(self.post_layernorm(embeddings))


def build() -> nn.Module:
    return SiglipVisionHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 12, 16, generator=generator),)


DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
