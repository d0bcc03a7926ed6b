"""DeBERTa's (v1) disentangled attention: after the position-to-content gather, a
``@torch.jit.script`` function, ``uneven_size_corrected``, gathers once more when the query and
key lengths differ (``if query_layer.size(-2) != key_layer.size(-2)``: a ``torch.gather`` along
the key axis, else the scores unchanged), next to the scripted ``build_rpos`` with the same test.

Reduced from transformers 4.47.0 (the PyPI wheel), src/transformers/models/deberta/
modeling_deberta.py: ``build_relative_position`` (lines 88-114), ``pos_dynamic_expand`` (lines
127-129), ``build_rpos`` (lines 140-145), ``uneven_size_corrected`` (lines 153-159) and
``DisentangledSelfAttention.disentangled_att_bias`` (lines 307-361; the calls at lines 347 and
358). Written here in our own words: one head and the position-to-content term only, added to the
content scores before a softmax over the values.
"""

import torch
from torch import nn


@torch.jit.script
def build_relative_position(query_layer, key_layer):
    query_size = query_layer.size(-2)
    key_size = key_layer.size(-2)
    q_ids = torch.arange(query_size, dtype=torch.long, device=query_layer.device)
    k_ids = torch.arange(key_size, dtype=torch.long, device=key_layer.device)
    rel_pos_ids = q_ids[:, None] - k_ids.view(1, -1).repeat(query_size, 1)
    return rel_pos_ids[:query_size, :].unsqueeze(0)


@torch.jit.script
def pos_dynamic_expand(pos_index, p2c_att, key_layer):
    return pos_index.expand(p2c_att.size()[:2] + (pos_index.size(-2), key_layer.size(-2)))


@torch.jit.script
def build_rpos(query_layer: torch.Tensor, key_layer: torch.Tensor, relative_pos):
    if query_layer.size(-2) != key_layer.size(-2):
        return build_relative_position(query_layer, key_layer)
    else:
        return relative_pos


@torch.jit.script
def uneven_size_corrected(p2c_att, query_layer: torch.Tensor, key_layer: torch.Tensor, relative_pos):
    if query_layer.size(-2) != key_layer.size(-2):
        pos_index = relative_pos[:, :, :, 0].unsqueeze(-1)
        return torch.gather(p2c_att, dim=2, index=pos_dynamic_expand(pos_index, p2c_att, key_layer))
    else:
        return p2c_att


class DisentangledSelfAttention(nn.Module):
    def __init__(self, hidden: int = 8, span: int = 4) -> None:
        super().__init__()
        self.in_proj = nn.Linear(hidden, 3 * hidden)
        self.pos_q_proj = nn.Linear(hidden, hidden)
        self.rel_embeddings = nn.Parameter(torch.randn(2 * span, hidden))
        self.max_relative_positions = span

    def forward(self, hidden_states):
        query_layer, key_layer, value_layer = self.in_proj(hidden_states).unsqueeze(1).chunk(3, dim=-1)
        relative_pos = build_relative_position(query_layer, key_layer).unsqueeze(1)
        att_span = self.max_relative_positions
        pos_query_layer = self.pos_q_proj(self.rel_embeddings).unsqueeze(0)
        pos_query_layer = pos_query_layer / (pos_query_layer.size(-1) ** 0.5)

        r_pos = build_rpos(
            query_layer,
            key_layer,
            relative_pos,
        )
        p2c_pos = torch.clamp(-r_pos + att_span, 0, att_span * 2 - 1)
        p2c_att = torch.matmul(key_layer, pos_query_layer.transpose(-1, -2))
        p2c_att = torch.gather(p2c_att, dim=-1, index=p2c_pos.expand(
            [query_layer.size(0), query_layer.size(1), key_layer.size(-2), key_layer.size(-2)])).transpose(-1, -2)
        p2c_att = uneven_size_corrected(p2c_att, query_layer, key_layer, relative_pos)

        scores = query_layer @ key_layer.transpose(-1, -2) / (query_layer.size(-1) ** 0.5) + p2c_att
        return (scores.softmax(-1) @ value_layer)[:, 0]


def build() -> nn.Module:
    return DisentangledSelfAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 8, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch", 1: "tokens"}}
