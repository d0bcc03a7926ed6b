"""MTGNN's mix-hop propagation: self-loops added with ``torch.eye(adj.size(0))`` before the graph diffusion.

Reduced from nnzhan/MTGNN at f811746fa7022ebf336f9ecd2434af5f365ecbf6, layer.py, ``mixprop.forward``
(lines 65-76; the identity at line 66): the adjacency plus the identity of its node count
(``adj + torch.eye(adj.size(0)).to(x.device)``, a size read from the adjacency with ``size(0)``, the
default float type, moved with ``.to``), each row divided by its degree, ``gdep`` steps of
``alpha * x + (1 - alpha) * A h`` (``nconv``, an einsum over the node axis) kept side by side, and a
1x1 convolution over all of them. The adjacency is an input here (MTGNN learns it from node
embeddings), so the number of nodes is a dynamic axis. Written here in our own words.
"""

import torch
from torch import nn


class MixProp(nn.Module):
    def __init__(self, channels: int = 3, out_channels: int = 4, depth: int = 2, alpha: float = 0.05) -> None:
        super().__init__()
        self.mlp = nn.Conv2d((depth + 1) * channels, out_channels, kernel_size=(1, 1))
        self.depth = depth
        self.alpha = alpha

    def forward(self, x, adj):
        adj = adj + torch.eye(adj.size(0)).to(x.device)
        degree = adj.sum(1)
        a = adj / degree.view(-1, 1)
        h = x
        hops = [h]
        for _ in range(self.depth):
            h = self.alpha * x + (1 - self.alpha) * torch.einsum("ncwl,vw->ncvl", (h, a))
            hops.append(h)
        return self.mlp(torch.cat(hops, dim=1))


def build() -> nn.Module:
    torch.manual_seed(0)
    return MixProp().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(2, 3, 5, 6, generator=generator), torch.rand(5, 5, generator=generator)


DYNAMIC = {"x": {0: "batch", 2: "nodes", 3: "steps"}, "adj": {0: "nodes", 1: "nodes"}}
