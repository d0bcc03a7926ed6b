"""DeBERTa-v2's disentangled attention: the position-to-content term asks a
``@torch.jit.script`` function, ``build_rpos``, for the relative positions of the keys, which
branches on the sizes (``if key_layer.size(-2) != query_layer.size(-2)``: build them again for the
keys, else return the given ones) and returns from both branches.

Reduced from transformers 4.47.0 (the PyPI wheel), src/transformers/models/deberta_v2/
modeling_deberta_v2.py: ``build_relative_position`` (lines 78-107), ``build_rpos`` (lines
133-143) and ``DisentangledSelfAttention.disentangled_attention_bias`` (lines 287-365; the call at
line 340, with ``max_relative_positions`` and ``position_buckets`` in the order it passes them).
Written here in our own words: one head, no log buckets (``position_buckets`` is -1), the
content-to-position and position-to-content terms only, and a softmax over the scores times the
values at the end.
"""

import torch
from torch import nn


def build_relative_position(query_layer, key_layer, bucket_size: int = -1, max_position: int = -1):
    query_size = query_layer.size(-2)
    key_size = key_layer.size(-2)
    q_ids = torch.arange(query_size, dtype=torch.long, device=query_layer.device)
    k_ids = torch.arange(key_size, dtype=torch.long, device=key_layer.device)
    rel_pos_ids = q_ids[:, None] - k_ids[None, :]
    return rel_pos_ids.to(torch.long)[:query_size, :].unsqueeze(0)


@torch.jit.script
def build_rpos(query_layer, key_layer, relative_pos, position_buckets: int, max_relative_positions: int):
    if key_layer.size(-2) != query_layer.size(-2):
        return build_relative_position(
            key_layer,
            key_layer,
            bucket_size=position_buckets,
            max_position=max_relative_positions,
        )
    else:
        return relative_pos


class DisentangledSelfAttention(nn.Module):
    def __init__(self, hidden: int = 8, span: int = 4) -> None:
        super().__init__()
        self.query_proj, self.key_proj, self.value_proj = (nn.Linear(hidden, hidden) for _ in range(3))
        self.pos_key_proj, self.pos_query_proj = nn.Linear(hidden, hidden), nn.Linear(hidden, hidden)
        self.rel_embeddings = nn.Parameter(torch.randn(2 * span, hidden))
        self.pos_ebd_size = span
        self.position_buckets = -1
        self.max_relative_positions = span

    def forward(self, hidden_states):
        query_layer = self.query_proj(hidden_states)
        key_layer = self.key_proj(hidden_states)
        value_layer = self.value_proj(hidden_states)
        relative_pos = build_relative_position(query_layer, key_layer, self.position_buckets,
                                               self.max_relative_positions)
        att_span = self.pos_ebd_size
        pos_key_layer = self.pos_key_proj(self.rel_embeddings).unsqueeze(0)
        pos_query_layer = self.pos_query_proj(self.rel_embeddings).unsqueeze(0)
        scale = query_layer.size(-1) ** 0.5

        c2p_att = torch.bmm(query_layer, pos_key_layer.expand(query_layer.size(0), -1, -1).transpose(-1, -2))
        c2p_pos = torch.clamp(relative_pos + att_span, 0, att_span * 2 - 1)
        c2p_att = torch.gather(c2p_att, dim=-1, index=c2p_pos.expand(
            [query_layer.size(0), query_layer.size(1), relative_pos.size(-1)]))

        r_pos = build_rpos(
            query_layer,
            key_layer,
            relative_pos,
            self.max_relative_positions,
            self.position_buckets,
        )
        p2c_pos = torch.clamp(-r_pos + att_span, 0, att_span * 2 - 1)
        p2c_att = torch.bmm(key_layer, pos_query_layer.expand(key_layer.size(0), -1, -1).transpose(-1, -2))
        p2c_att = torch.gather(p2c_att, dim=-1, index=p2c_pos.expand(
            [query_layer.size(0), key_layer.size(-2), key_layer.size(-2)])).transpose(-1, -2)

        scores = (query_layer @ key_layer.transpose(-1, -2) + c2p_att + p2c_att) / scale
        return scores.softmax(-1) @ value_layer


def build() -> nn.Module:
    return DisentangledSelfAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, 8, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch", 1: "tokens"}}
