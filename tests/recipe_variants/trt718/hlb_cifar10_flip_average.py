"""Half the batch each: hlb-CIFAR10's test-time flip average.

Reduced from tysam-code/hlb-CIFAR10@993965a (2024-12-17), main.py:296-310
(``SpeedyConvNet.forward``). In evaluation the network appends the left-right flip of the batch to
the batch (``torch.cat((x, torch.flip(x, (-1,))))``), runs its layers from a dict of modules, and
averages the two halves of the logits: ``orig, flipped = x.split(x.shape[0]//2, dim=0)`` (line
308), then ``.5 * orig + .5 * flipped``. Written here in our own words with one convolution for the
whitening layer, one convolution group, a global max pooling and the linear head; the modules are
called through ``self.net_dict[...]`` as there, so nothing in the code shows ``x`` is still a
tensor at the split: the size is one where the observed export warned.
"""

import torch
from torch import nn


class SpeedyConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net_dict = nn.ModuleDict({
            "initial_block": nn.ModuleDict({"whiten": nn.Conv2d(3, 6, 2), "activation": nn.GELU()}),
            "conv_group_1": nn.Sequential(nn.Conv2d(6, 8, 3, padding=1), nn.MaxPool2d(2), nn.GELU()),
            "pooling": nn.AdaptiveMaxPool2d(1),
            "linear": nn.Sequential(nn.Flatten(), nn.Linear(8, 10, bias=False)),
        })

    def forward(self, x):
        if not self.training:
            x = torch.cat((x, torch.flip(x, (-1,))))
        x = self.net_dict["initial_block"]["whiten"](x)
        x = self.net_dict["initial_block"]["activation"](x)
        x = self.net_dict["conv_group_1"](x)
        x = self.net_dict["pooling"](x)
        x = self.net_dict["linear"](x)
        if not self.training:
            orig, flipped = x.split(x.shape[0]//2, dim=0)
            x = .5 * orig + .5 * flipped
        return x


def build() -> nn.Module:
    return SpeedyConvNet()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 9, 9, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
