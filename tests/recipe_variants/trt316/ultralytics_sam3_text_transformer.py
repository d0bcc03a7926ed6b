"""Ultralytics' SAM 3 text encoder: a causal transformer over the tokens of a prompt.

Reduced from ultralytics 8.4.190 (the PyPI wheel), ultralytics/models/sam/sam3/text_encoder_ve.py:
``ResidualAttentionBlock.__init__`` (lines 20-51: ``nn.MultiheadAttention(d_model, n_head,
batch_first=True)``, LayerNorms and an MLP in an ``OrderedDict``), ``ResidualAttentionBlock.attention``
and ``forward`` (lines 53-80: key and value default to the query, a non-boolean mask is cast to the
query's dtype, the module is called with ``need_weights=False`` and ``attn_mask``), ``Transformer``
(lines 83-129, the blocks in a ``ModuleList``, gradient checkpointing in training only) and
``TextTransformer`` (lines 149-236: a causal mask of ``-inf`` above the diagonal is built once for
``context_length`` tokens and kept as a buffer, then cut to the prompt's length ``seq_len`` with the
position embedding; the pooled token is the one with the largest id, ``argmax`` pooling, projected by a
matrix). Written here in our own words and small; LayerScale is off (``ls_init_value=None``) as in the
default. The prompt's length (up to ``context_length``) is the sequence length.
"""

from collections import OrderedDict

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class ResidualAttentionBlock(nn.Module):
    def __init__(self, d_model: int, n_head: int, mlp_ratio: float = 4.0) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, n_head, batch_first=True)
        self.ln_1 = nn.LayerNorm(d_model)
        self.ln_2 = nn.LayerNorm(d_model)
        self.ls_1 = nn.Identity()
        self.ls_2 = nn.Identity()
        width = int(d_model * mlp_ratio)
        self.mlp = nn.Sequential(OrderedDict([("c_fc", nn.Linear(d_model, width)), ("gelu", nn.GELU()),
                                              ("c_proj", nn.Linear(width, d_model))]))

    def attention(self, q_x, k_x=None, v_x=None, attn_mask=None):
        k_x = k_x if k_x is not None else q_x
        v_x = v_x if v_x is not None else q_x
        if attn_mask is not None and attn_mask.dtype != torch.bool:
            attn_mask = attn_mask.to(q_x.dtype)
        return self.attn(q_x, k_x, v_x, need_weights=False, attn_mask=attn_mask)[0]

    def forward(self, q_x, k_x=None, v_x=None, attn_mask=None):
        x = q_x + self.ls_1(self.attention(q_x=self.ln_1(q_x), k_x=k_x, v_x=v_x, attn_mask=attn_mask))
        return x + self.ls_2(self.mlp(self.ln_2(x)))


class Transformer(nn.Module):
    def __init__(self, width: int, layers: int, heads: int) -> None:
        super().__init__()
        self.grad_checkpointing = False
        self.resblocks = nn.ModuleList([ResidualAttentionBlock(width, heads) for _ in range(layers)])

    def forward(self, x, attn_mask=None):
        for r in self.resblocks:
            if self.grad_checkpointing and not torch.jit.is_scripting() and self.training:
                x = checkpoint(r, x, None, None, attn_mask, use_reentrant=False)
            else:
                x = r(x, attn_mask=attn_mask)
        return x


class TextTransformer(nn.Module):
    def __init__(self, context_length=16, vocab_size=50, width=32, heads=4, layers=2, output_dim=24) -> None:
        super().__init__()
        self.num_pos = self.context_length = context_length
        self.token_embedding = nn.Embedding(vocab_size, width)
        self.positional_embedding = nn.Parameter(torch.randn(self.num_pos, width) * 0.01)
        self.transformer = Transformer(width, layers, heads)
        self.ln_final = nn.LayerNorm(width)
        self.register_buffer("attn_mask", self.build_causal_mask(), persistent=False)
        self.text_projection = nn.Parameter(torch.randn(width, output_dim) * width**-0.5)

    def build_causal_mask(self) -> torch.Tensor:
        mask = torch.empty(self.num_pos, self.num_pos)
        mask.fill_(float("-inf"))
        mask.triu_(1)
        return mask

    def forward(self, text: torch.Tensor) -> torch.Tensor:
        seq_len = text.shape[1]
        x = self.token_embedding(text)
        attn_mask = self.attn_mask
        if attn_mask is not None:
            attn_mask = attn_mask[:seq_len, :seq_len]
        x = x + self.positional_embedding[:seq_len]
        x = self.transformer(x, attn_mask=attn_mask)
        x = self.ln_final(x)
        pooled = x[torch.arange(x.shape[0]), text.argmax(dim=-1)]
        return pooled @ self.text_projection


def build() -> nn.Module:
    return TextTransformer().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randint(0, 50, (2, 7), generator=generator),)


DYNAMIC = {"text": {0: "batch", 1: "tokens"}}
