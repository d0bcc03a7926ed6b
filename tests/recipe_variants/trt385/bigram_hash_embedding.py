"""A bigram hash embedding of token ids: each consecutive pair hashed by XOR of the ids times two constants.

Reduced from openai/parameter-golf @ 4908dc46f21ed3fdd08d2fdca285deb2194b9599,
records/track_10min_16mb/2026-03-20_10L_Int5MLP_MuonWD04_SWA50/train_gpt.py: ``BigramHashEmbedding.bigram_hash``
(line 604) casts the tokens to int32 and writes, after a first column of ``mod``,
``torch.bitwise_xor(36313 * t[..., 1:], 27191 * t[..., :-1]) % mod``; ``forward`` embeds the hashes, projects them to
the model width and scales them. Kept: the hash, its first column, the embedding, the projection and the scale.
Reduced: a small table and width, a plain linear projection (no casting wrapper). Written here in our own words.
"""

import torch
from torch import Tensor, nn

DYNAMIC = {"token_ids": {0: "batch", 1: "tokens"}}
#: The line of the hash (the rule's finding).
CALL = "out[..., 1:] = torch.bitwise_xor(36313 * t[..., 1:], 27191 * t[..., :-1]) % mod"


class BigramHashEmbedding(nn.Module):
    def __init__(self, bigram_vocab_size: int = 1021, bigram_dim: int = 8, model_dim: int = 16):
        super().__init__()
        self.bigram_vocab_size = bigram_vocab_size
        self.embed = nn.Embedding(bigram_vocab_size, bigram_dim)
        self.proj = nn.Linear(bigram_dim, model_dim, bias=False)
        self.scale = nn.Parameter(torch.tensor(0.05, dtype=torch.float32))

    def bigram_hash(self, tokens: Tensor) -> Tensor:
        t = tokens.to(torch.int32)
        mod = self.bigram_vocab_size - 1
        out = torch.empty_like(t)
        out[..., 0] = mod
        out[..., 1:] = torch.bitwise_xor(36313 * t[..., 1:], 27191 * t[..., :-1]) % mod
        return out.long()

    def forward(self, token_ids: Tensor) -> Tensor:
        h = self.proj(self.embed(self.bigram_hash(token_ids)))
        return h * self.scale.to(dtype=h.dtype)


def build() -> nn.Module:
    return BigramHashEmbedding().eval()


def inputs(generator: torch.Generator, batch: int = 2, tokens: int = 9) -> tuple[torch.Tensor, ...]:
    """Token ids of a 50k vocabulary (their products with the constants pass 2**31 and wrap in int32)."""
    return (torch.randint(0, 50257, (batch, tokens), generator=generator),)
