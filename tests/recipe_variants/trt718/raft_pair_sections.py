"""A list of equal sections, left alone: RAFT's feature encoder on an image pair.

Reduced from princeton-vl/RAFT@2888e15 (2025-08-24), core/extractor.py:168-192
(``BasicEncoder.forward``; ``SmallEncoder`` at :244-267 the same). Handed the two frames as a list,
the encoder reads the batch size (``batch_dim = x[0].shape[0]``), runs both frames as one batch and
cuts the features back with a list of two sections, ``torch.split(x, [batch_dim, batch_dim],
dim=0)`` (line 190). Written here in our own words with two convolutions for the residual layers.
Sections are not TRT718's form: the TorchScript exporter keeps each traced size of a list as an
input of the ONNX ``Split`` computed in the graph, so the export follows every batch as it is
(checked in ``tests/transforms/variants/test_recipe_variants_trt718.py``) and the rule leaves the line alone.
"""

import torch
from torch import nn


class BasicEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.layer = nn.Sequential(nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1))

    def forward(self, x):
        is_list = isinstance(x, tuple) or isinstance(x, list)
        if is_list:
            batch_dim = x[0].shape[0]
            x = torch.cat(x, dim=0)
        x = self.layer(self.conv1(x))
        if is_list:
            x = torch.split(x, [batch_dim, batch_dim], dim=0)
        return x


class Flow(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fnet = BasicEncoder()

    def forward(self, image1, image2):
        fmap1, fmap2 = self.fnet([image1, image2])
        return (fmap1 * fmap2).sum(1)


def build() -> nn.Module:
    return Flow()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 8, 8, generator=generator), torch.randn(2, 3, 8, 8, generator=generator))


DYNAMIC = {"image1": {0: "batch"}, "image2": {0: "batch"}}
