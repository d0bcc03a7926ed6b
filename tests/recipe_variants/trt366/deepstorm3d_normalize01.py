"""Each simulated microscopy image scaled to [0, 1] by its own minimum and maximum, computed into locals first.

Reduced from EliasNehme/DeepSTORM3D @ 030deac79d348fc36d5549ca1fa1f89ffe70bc15, DeepSTORM3D/physics_utils.py:563-577
(``Normalize01.forward``: ``Nbatch = result_noisy.size(0)``, ``result_noisy_01 = torch.zeros_like(result_noisy)``, then
for each sample ``min_val``/``max_val`` of ``result_noisy[i, :, :, :]`` and the sample written back scaled), in our own
words: the batch size named before the loop, two locals, the row written whole with slices; a convolution before it so
that the map is a network's output, as the simulated images are the physical layer's.
"""

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch"}}


class ScaledImages(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blur = nn.Conv2d(1, 1, 3, padding=1)

    def forward(self, x):
        images = self.blur(x)
        count = images.size(0)
        scaled = torch.zeros_like(images)
        for i in range(count):
            low = (images[i, :, :, :]).min()
            high = (images[i, :, :, :]).max()
            scaled[i, :, :, :] = (images[i, :, :, :] - low) / (high - low)
        return scaled


def build() -> nn.Module:
    return ScaledImages()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 1, 12, 12, generator=generator),)
