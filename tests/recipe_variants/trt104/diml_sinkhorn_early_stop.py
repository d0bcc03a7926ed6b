"""DIML re-ranks retrieved images by an optimal-transport match between feature maps: ``Sinkhorn``
alternates the two scalings for at most 100 passes and stops early, ``if err.item() < thresh:
break``, once the row scaling moves by less than 0.1. The ``range`` is a constant, yet the trip
count is the data's: a traced export unrolls as many passes as the example took before the break.

Reduced from wl-zhao/DIML at commit c15dbea696f68ddf889dcacfcaacd315d16a34ac,
utilities/diml.py, ``Sinkhorn`` (lines 4-16), called by ``calc_similarity`` (lines 18-40,
stage 1). Written here in our own words: ``calc_similarity`` keeps its stage-1 path only (the
cost from the cosine similarity of two feature maps, the marginals from the ReLU'd attention of
each map's pooled feature, normalised); ``Sinkhorn`` keeps its loop, its early stop and its
unannotated parameters. Before, TRT104 did not report the loop (its bound is a constant); now a
recorded run (the export's TracerWarning at the ``.item()``) shows the condition reads a tensor.
"""

import torch
import torch.nn.functional as F
from torch import nn


def Sinkhorn(K, u, v):
    r = torch.ones_like(u)
    c = torch.ones_like(v)
    thresh = 1e-1
    for _ in range(100):
        r0 = r
        r = u / torch.matmul(K, c.unsqueeze(-1)).squeeze(-1)
        c = v / torch.matmul(K.permute(0, 2, 1).contiguous(), r.unsqueeze(-1)).squeeze(-1)
        err = (r - r0).abs().mean()
        if err.item() < thresh:
            break
    T = torch.matmul(r.unsqueeze(-1), c.unsqueeze(-2)) * K
    return T


class Rerank(nn.Module):
    def forward(self, anchor: torch.Tensor, fb: torch.Tensor) -> torch.Tensor:
        n, _, r = fb.shape
        sim = torch.einsum("cm,ncs->nsm", anchor, fb).reshape(n, r, r)
        cost = torch.exp(-(1.0 - sim) / 0.05)
        att = F.relu(torch.einsum("c,ncr->nr", anchor.mean(1), fb))
        u = att / (att.sum(dim=1, keepdim=True) + 1e-5)
        att = F.relu(torch.einsum("cr,nc->nr", anchor, fb.mean(2)))
        v = att / (att.sum(dim=1, keepdim=True) + 1e-5)
        return torch.sum(Sinkhorn(cost, u, v) * sim, dim=(1, 2))


def build() -> nn.Module:
    return Rerank()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    anchor = F.normalize(torch.rand(8, 4, generator=generator), dim=0)
    fb = F.normalize(torch.rand(3, 8, 4, generator=generator), dim=1)
    return anchor, fb


DYNAMIC = {"anchor": {1: "regions"}, "fb": {0: "images", 2: "regions"}}
