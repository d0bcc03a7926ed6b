"""S3FD's priors: the feature maps are the sizes of the network's own feature tensors, the loop over
the levels is ``for k in range(len(self.feature_maps))`` (its variable indexes lists: a Python
loop), the cells a ``product`` of two ranges, ``mean += [...]``.

Reduced from yxlijun/S3FD.pytorch @ bccf1d99fa36f4140c42731e99e1627d76a8eb56,
layers/functions/prior_box.py:34-54 (``PriorBox.forward``) and s3fd.py:81-144 (the sizes taken from
``x.size()[2:]`` and the sources' sizes), written here in our own words.
"""

from itertools import product

import torch
from torch import nn


class PriorBox(object):
    def __init__(self, input_size, feature_maps):
        self.imh = input_size[0]
        self.imw = input_size[1]
        self.min_sizes = [4, 12]
        self.steps = [2, 4]
        self.feature_maps = feature_maps

    def forward(self):
        mean = []
        for k in range(len(self.feature_maps)):
            feath = self.feature_maps[k][0]
            featw = self.feature_maps[k][1]
            for i, j in product(range(feath), range(featw)):
                f_kw = self.imw / self.steps[k]
                f_kh = self.imh / self.steps[k]

                cx = (j + 0.5) / f_kw
                cy = (i + 0.5) / f_kh

                s_kw = self.min_sizes[k] / self.imw
                s_kh = self.min_sizes[k] / self.imh

                mean += [cx, cy, s_kw, s_kh]

        output = torch.Tensor(mean).view(-1, 4)
        output.clamp_(max=1, min=0)
        return output


class S3FD(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.second = nn.Conv2d(4, 4, 3, stride=2, padding=1)

    def forward(self, x):
        size = x.size()[2:]
        a = self.first(x)
        b = self.second(a)
        maps = [a.size()[2:], b.size()[2:]]
        priors = PriorBox(size, maps).forward()
        return priors * b.mean()


def build() -> nn.Module:
    return S3FD()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 10, 7, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "h", 3: "w"}}
