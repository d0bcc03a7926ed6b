"""A hyper network's target layers as grouped convolutions, one group per image (HyperIQA).

Reduced from xinntao/facexlib @ 260620ae93990a300f4b16448df9bb459f1caba9,
facexlib/assessment/hyperiqa_net.py:15-23 (``HyperIQA.forward`` builds ``TargetNet(net_params)`` in forward),
:241-275 (``TargetNet``: target layers with sigmoids, the score squeezed) and :277-298 (``TargetFC.forward``:
``input_.view(-1, input_.shape[0] * input_.shape[1], ...)``, ``F.conv2d(..., groups=self.weight.shape[0])``),
after SSL-92/hyperIQA's models.py; written here in our own words, with a small hyper network. The squeeze of
the score is left out (a batch of one loses its axis there, another matter).
"""

import torch
import torch.nn.functional as F
from torch import nn


class PerImageLinear(nn.Module):
    def __init__(self, weight, bias):
        super().__init__()
        self.weight = weight
        self.bias = bias

    def forward(self, feats):
        stacked = feats.view(-1, feats.shape[0] * feats.shape[1], feats.shape[2], feats.shape[3])
        kernels = self.weight.view(self.weight.shape[0] * self.weight.shape[1], self.weight.shape[2],
                                   self.weight.shape[3], self.weight.shape[4])
        shifts = self.bias.view(self.bias.shape[0] * self.bias.shape[1])
        out = F.conv2d(input=stacked, weight=kernels, bias=shifts, groups=self.weight.shape[0])
        return out.view(feats.shape[0], self.weight.shape[1], feats.shape[2], feats.shape[3])


class TargetLayers(nn.Module):
    def __init__(self, params):
        super().__init__()
        self.first = nn.Sequential(PerImageLinear(params["w1"], params["b1"]), nn.Sigmoid())
        self.last = PerImageLinear(params["w2"], params["b2"])

    def forward(self, x):
        return self.last(self.first(x))


class QualityNet(nn.Module):
    def __init__(self, width=6, hidden=5):
        super().__init__()
        self.width, self.hidden = width, hidden
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.vector = nn.Linear(8, width)
        self.w1 = nn.Linear(8, hidden * width)
        self.b1 = nn.Linear(8, hidden)
        self.w2 = nn.Linear(8, hidden)
        self.b2 = nn.Linear(8, 1)

    def forward(self, img):
        f = self.features(img).flatten(1)
        params = {"w1": self.w1(f).view(-1, self.hidden, self.width, 1, 1), "b1": self.b1(f).view(-1, self.hidden),
                  "w2": self.w2(f).view(-1, 1, self.hidden, 1, 1), "b2": self.b2(f).view(-1, 1)}
        target = TargetLayers(params)
        return target(self.vector(f).view(-1, self.width, 1, 1)).flatten(1)


def build() -> nn.Module:
    return QualityNet()


def inputs(generator: torch.Generator, batch: int = 2) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, 16, 16, generator=generator),)


DYNAMIC = {"img": {0: "batch"}}
