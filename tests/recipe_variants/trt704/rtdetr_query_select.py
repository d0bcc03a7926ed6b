"""The decoder's queries tiled by ``len`` of the flattened encoder memory: RT-DETR in transformers.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/rt_detr/modeling_rt_detr.py,
``RTDetrModel.forward`` (lines 1629-1701: the projected feature maps flattened and concatenated into
``source_flatten``, ``batch_size = len(source_flatten)``, the top-k encoder scores select the
reference features, and with ``learn_initial_query`` the queries are
``self.weight_embedding.tile([batch_size, 1, 1])``, line 1699). Written here in our own words, with
a few channels, no decoder, and the learned queries held in a parameter.
"""

import torch
from torch import nn


class QuerySelect(nn.Module):
    def __init__(self, d_model=8, num_queries=4) -> None:
        super().__init__()
        self.num_queries = num_queries
        self.input_proj = nn.ModuleList([nn.Conv2d(3, d_model, 1), nn.Conv2d(5, d_model, 1)])
        self.enc_score_head = nn.Linear(d_model, 3)
        self.weight_embedding = nn.Parameter(torch.randn(1, num_queries, d_model))

    def forward(self, feat0, feat1):
        sources = [proj(feat) for proj, feat in zip(self.input_proj, (feat0, feat1))]
        source_flatten = torch.cat([source.flatten(2).transpose(1, 2) for source in sources], 1)
        batch_size = len(source_flatten)
        enc_outputs_class = self.enc_score_head(source_flatten)
        _, topk_ind = torch.topk(enc_outputs_class.max(-1).values, self.num_queries, dim=1)
        reference = source_flatten.gather(dim=1, index=topk_ind.unsqueeze(-1).repeat(1, 1, source_flatten.shape[-1]))
        target = self.weight_embedding.tile([batch_size, 1, 1])
        return target + reference


def build() -> nn.Module:
    return QuerySelect()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(2, 3, 4, 4, generator=generator), torch.randn(2, 5, 2, 2, generator=generator)


DYNAMIC = {"feat0": {0: "batch"}, "feat1": {0: "batch"}}
