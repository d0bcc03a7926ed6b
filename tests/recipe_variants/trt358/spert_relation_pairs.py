"""SpERT's relation classifier: each candidate relation's two entity spans and sizes, paired per sentence.

Reduced from lavis-nlp/spert at a53f468bebfa9de6d66456dcfbf4b62aef237bf7: ``util.batch_index``
(spert/util.py, lines 169-176) takes every sentence's rows with a comprehension stacked at once,
``torch.stack([tensor[i][index[i]] for i in range(index.shape[0])])``; ``SpERT._classify_relations``
(spert/models.py, lines 142-175) gives it the max-pooled entity spans and the size embeddings with
``relations`` holding two entity positions per candidate, views each pair as one vector, max-pools the
context between the two entities and classifies the concatenation (``_classify_entities``, lines
123-140, pools the spans). Left out: the ``pad`` branch of ``batch_index`` (ragged rows), the chunking
over ``_max_pairs`` and the BERT encoder (its last hidden state is an input here). Written here in our
own words.
"""

import torch
from torch import nn


def batch_index(tensor, index):
    if tensor.shape[0] != index.shape[0]:
        raise Exception()
    return torch.stack([tensor[i][index[i]] for i in range(index.shape[0])])


class RelationHead(nn.Module):
    def __init__(self, hidden: int = 8, size_dim: int = 3, relation_types: int = 4) -> None:
        super().__init__()
        self.size_embeddings = nn.Embedding(12, size_dim)
        self.rel_classifier = nn.Linear(3 * hidden + 2 * size_dim, relation_types)

    def forward(self, h, entity_masks, entity_sizes, relations, rel_masks):
        # each entity candidate's span, max-pooled over its tokens
        m = (entity_masks.unsqueeze(-1) == 0).float() * (-1e30)
        spans = (m + h.unsqueeze(1).repeat(1, entity_masks.shape[1], 1, 1)).max(dim=2)[0]
        sizes = self.size_embeddings(entity_sizes)
        batch_size = relations.shape[0]
        pairs = batch_index(spans, relations)
        pairs = pairs.view(batch_size, pairs.shape[1], -1)
        size_pairs = batch_index(sizes, relations)
        size_pairs = size_pairs.view(batch_size, size_pairs.shape[1], -1)
        # the context between the two entities, max-pooled
        m = ((rel_masks == 0).float() * (-1e30)).unsqueeze(-1)
        context = (m + h.unsqueeze(1).repeat(1, relations.shape[1], 1, 1)).max(dim=2)[0]
        return torch.sigmoid(self.rel_classifier(torch.cat([context, pairs, size_pairs], dim=2)))


def build() -> nn.Module:
    return RelationHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    batch, tokens, entities, pairs = 2, 7, 5, 4
    h = torch.randn(batch, tokens, 8, generator=generator)
    entity_masks = torch.rand(batch, entities, tokens, generator=generator) < 0.4
    entity_sizes = torch.randint(1, 12, (batch, entities), generator=generator)
    relations = torch.randint(0, entities, (batch, pairs, 2), generator=generator)
    rel_masks = torch.rand(batch, pairs, tokens, generator=generator) < 0.5
    return h, entity_masks, entity_sizes, relations, rel_masks


DYNAMIC = {"h": {0: "batch"}, "entity_masks": {0: "batch"}, "entity_sizes": {0: "batch"},
           "relations": {0: "batch", 1: "pairs"}, "rel_masks": {0: "batch", 1: "pairs"}}
