"""The pose estimator's flip test of Microsoft's Simple Baselines: the input mirrored through NumPy, in two statements.

Reduced from microsoft/human-pose-estimation.pytorch @ 49f3f4458c9d5917c75c37a6db48c6a0d7cd89a1, lib/core/function.py,
``validate`` (lines 111 to 126): ``input_flipped = np.flip(input.cpu().numpy(), 3).copy()`` (line 114) and then
``input_flipped = torch.from_numpy(input_flipped).cuda()`` (line 115), the heatmaps of the mirrored crop averaged
with those of the crop. Kept: the round trip split over two consecutive statements through the name
``input_flipped``, which the second rebinds, run without gradients as ``validate`` runs. Reduced: a convolution for
the network; ``.cuda()`` as ``.to(input.device)`` (the device the crop is on; these tests run on the CPU); no
``flip_back`` of the heatmaps (a NumPy slice with the symmetric joints swapped) and no shift by a pixel. Written here
in our own words.

Why it matters for export: as in one expression, a TorchScript export records the example's mirrored crop as a
constant, so the graph averages every input's heatmaps with the example's mirror image's, and fails at another size.
"""

import numpy as np
import torch
from torch import nn

DYNAMIC = {"input": {0: "batch", 2: "height", 3: "width"}}
#: The statement that takes the crop through NumPy (the rule's finding; the fix runs through the next line).
CALL = "input_flipped = np.flip(input.cpu().numpy(), 3).copy()"


class FlipTestPose(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Conv2d(3, 4, 3, padding=1)

    @torch.no_grad()
    def forward(self, input):
        output = self.net(input)
        input_flipped = np.flip(input.cpu().numpy(), 3).copy()
        input_flipped = torch.from_numpy(input_flipped).to(input.device)
        output_flipped = self.net(input_flipped)
        return (output + output_flipped) * 0.5


def build() -> nn.Module:
    return FlipTestPose().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 8, width: int = 6) -> tuple[torch.Tensor, ...]:
    """``batch`` RGB crops of ``height`` x ``width`` pixels (standard normal values)."""
    return (torch.randn(batch, 3, height, width, generator=generator),)
