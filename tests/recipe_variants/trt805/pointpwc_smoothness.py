"""PointPWC-Net's flow smoothness: how far each point's flow is from its 8 nearest neighbours'.

Reduced from DylanWusee/PointPWC @ f882e4c396b338d6144bf3d07b335ccaf155bdcf, models.py:245-260
(``computeSmooth``: ``_, kidx = torch.topk(sqrdist, 9, dim = -1, largest=False, sorted=False)``,
then the norms of the flow differences summed over the 9 and divided by 8). Written here in our
own words over points laid out as [B, N, 3].
"""

import torch
from torch import nn


def square_distance(src, dst):
    return (src.unsqueeze(2) - dst.unsqueeze(1)).pow(2).sum(-1)


def group(values, kidx):
    b, n, k = kidx.shape
    flat = kidx.reshape(b, n * k, 1).expand(-1, -1, values.shape[-1])
    return torch.gather(values, 1, flat).view(b, n, k, values.shape[-1])


class Smoothness(nn.Module):
    def forward(self, pc, flow):
        sqrdist = square_distance(pc, pc)
        _, kidx = torch.topk(sqrdist, 9, -1, False, False)
        grouped_flow = group(flow, kidx)
        return torch.norm(grouped_flow - flow.unsqueeze(2), dim=3).sum(dim=2) / 8.0


def build() -> nn.Module:
    return Smoothness()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(2, 20, 3, generator=generator), torch.randn(2, 20, 3, generator=generator)


DYNAMIC = {"pc": {0: "batch", 1: "points"}, "flow": {0: "batch", 1: "points"}}
