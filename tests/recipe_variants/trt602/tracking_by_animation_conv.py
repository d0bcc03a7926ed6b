"""Tracking by Animation's feature extractor (multi-object tracking): each convolution layer is
followed by its own ``nn.AdaptiveMaxPool2d(tuple(out_sizes[i]))``, built in a loop in
``__init__`` and registered with ``setattr(self, 'pool'+str(i), ...)``, and looked up again with
``getattr`` in ``forward``.

Reduced from zhen-he/tracking-by-animation at commit d8a61a0043d0df6e282ad75417ac31c243794ec2,
modules/submodules.py, ``Conv.__init__`` lines 159-177 (line 173 ``setattr(self, 'pool'+str(i),
nn.AdaptiveMaxPool2d(tuple(out_sizes[i])))``, the optional batch norm and dropout) and
``Conv.forward`` lines 179-193 (convolution, batch norm, the pool, the activation). Written here in
our own words: the parameters come as lists (the original reads them from its ``params`` dict in
modules/feature_extractor.py), ``bn`` is on and dropout off, and the activation is ReLU (the
original's ``func('relu')``).
"""

import torch
from torch import nn


class Conv(nn.Module):
    def __init__(self, conv_features, conv_kernels, out_sizes, bn: int = 1) -> None:
        super().__init__()
        self.layer_num = len(conv_features) - 1
        self.bn = bn
        for i in range(self.layer_num):
            setattr(self, "conv" + str(i), nn.Conv2d(conv_features[i], conv_features[i + 1],
                                                      (conv_kernels[i][0], conv_kernels[i][1]), stride=1,
                                                      padding=(conv_kernels[i][0] // 2, conv_kernels[i][1] // 2)))
            if bn == 1:
                setattr(self, "bn" + str(i), nn.BatchNorm2d(conv_features[i + 1]))
            setattr(self, "pool" + str(i), nn.AdaptiveMaxPool2d(tuple(out_sizes[i])))
        self.transform = nn.ReLU()

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        H = X
        for i in range(self.layer_num):
            H = getattr(self, "conv" + str(i))(H)
            if self.bn == 1:
                H = getattr(self, "bn" + str(i))(H)
            H = getattr(self, "pool" + str(i))(H)
            H = self.transform(H)
        return H


def build() -> nn.Module:
    return Conv([3, 4, 6, 8], [[5, 5], [3, 3], [3, 3]], [[16, 24], [8, 12], [4, 6]])


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 32, 48, generator=generator),)


DYNAMIC = {"X": {0: "batch", 2: "height", 3: "width"}}
