"""pbloem's ``former``: causal self-attention masked through ``torch.triu_indices`` of the attention matrix's sizes.

Reduced from pbloem/former @ ba8a22f6fc9b73e2bdb174007161afb34c711848: former/modules.py's ``SelfAttention``
(lines 10-88) splits the embedding into heads, folds them into the batch, takes ``dot = torch.bmm(queries,
keys.transpose(1, 2))`` and, with ``mask=True``, calls ``mask_(dot, maskval=float('-inf'), mask_diagonal=False)``
(line 77) before the softmax. ``mask_`` (former/util/util.py, lines 3-17) reads ``b, h, w = matrices.size()`` and
writes the mask value in place at ``torch.triu_indices(h, w, offset=0 if mask_diagonal else 1)`` (line 16) of every
matrix. Kept: the heads split from one projection, the scaling of queries and keys, the in-place mask at the
triangle's indices, the softmax and the heads' unification. Reduced: no shape assertions, one attention layer.
Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch", 1: "tokens"}}
#: The line of the triangle's indices (the rule's finding).
CALL = "upper = torch.triu_indices(rows, cols, offset=0 if mask_diagonal else 1)"
EMB, HEADS = 8, 2


def mask_(matrices, maskval=0.0, mask_diagonal=True):
    """Writes ``maskval`` in place above the diagonal of each matrix (on it too with ``mask_diagonal``)."""
    _, rows, cols = matrices.size()
    upper = torch.triu_indices(rows, cols, offset=0 if mask_diagonal else 1)
    matrices[:, upper[0], upper[1]] = maskval


class SelfAttention(nn.Module):
    def __init__(self, emb, heads=8, mask=False):
        super().__init__()
        self.emb, self.heads, self.mask = emb, heads, mask
        self.tokeys = nn.Linear(emb, emb, bias=False)
        self.toqueries = nn.Linear(emb, emb, bias=False)
        self.tovalues = nn.Linear(emb, emb, bias=False)
        self.unifyheads = nn.Linear(emb, emb)

    def forward(self, x):
        b, t, e = x.size()
        h = self.heads
        s = e // h
        keys = self.tokeys(x).view(b, t, h, s).transpose(1, 2).contiguous().view(b * h, t, s)
        queries = self.toqueries(x).view(b, t, h, s).transpose(1, 2).contiguous().view(b * h, t, s)
        values = self.tovalues(x).view(b, t, h, s).transpose(1, 2).contiguous().view(b * h, t, s)
        queries = queries / (e ** (1 / 4))
        keys = keys / (e ** (1 / 4))
        dot = torch.bmm(queries, keys.transpose(1, 2))
        if self.mask:
            mask_(dot, maskval=float("-inf"), mask_diagonal=False)
        dot = F.softmax(dot, dim=2)
        out = torch.bmm(dot, values).view(b, h, t, s)
        out = out.transpose(1, 2).contiguous().view(b, t, s * h)
        return self.unifyheads(out)


def build() -> nn.Module:
    return SelfAttention(EMB, heads=HEADS, mask=True).eval()


def inputs(generator: torch.Generator, b: int = 2, t: int = 5) -> tuple[torch.Tensor, ...]:
    """A batch of token embeddings."""
    return (torch.randn(b, t, EMB, generator=generator),)
