"""kraken's reading-order model: a scripted ``MLP`` as the module's only network.

Reduced from mittagessen/kraken @ bb4999ee7d7241d3f8daa86a6531ce8c47940a60, kraken/lib/ro/model.py:113:
``ROModel.__init__`` (a Lightning module) builds ``self.ro_net = torch.jit.script(MLP(self.train_set.get_feature_dim(),
128))`` and ``forward`` returns ``self.ro_net(x)``; ``MLP`` (kraken/lib/ro/layers.py, the same commit) is a linear
layer, a ReLU, a linear layer to one logit and a sigmoid: the probability that one line precedes another, from the
pair's features. Kept: the scripted MLP as the module's network and the forward that calls it. Reduced: a plain
``nn.Module`` instead of the Lightning module (no datasets, losses or optimisers), a feature size given directly
and a smaller hidden width. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {0: "pairs"}}
#: The line of the scripted network (the rule's finding the failing call needs).
CALL = "self.ro_net = torch.jit.script(MLP(feature_dim, 16))"
FEATURES = 12


class MLP(nn.Module):
    def __init__(self, feature_size: int, hidden_size: int):
        super(MLP, self).__init__()
        self.fc1 = nn.Linear(feature_size, hidden_size)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(hidden_size, 1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, x):
        x = self.fc1(x)
        x = self.relu(x)
        x = self.fc2(x)
        return self.sigmoid(x)


class ROModel(nn.Module):
    def __init__(self, feature_dim: int = FEATURES):
        super().__init__()
        self.ro_net = torch.jit.script(MLP(feature_dim, 16))

    def forward(self, x):
        return self.ro_net(x)


def build() -> nn.Module:
    return ROModel().eval()


def inputs(generator: torch.Generator, pairs: int = 6) -> tuple[torch.Tensor, ...]:
    """The features of ``pairs`` pairs of lines."""
    return (torch.randn(pairs, FEATURES, generator=generator),)
