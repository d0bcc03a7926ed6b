"""A size that only happens to be 1: pooling by (8, 1) on a dynamic height, then squeeze.

With heights 8 and 9 (the verifier's resized set) the pooled axis is 1 both times, yet at 16
it is 2. The observer runs one more set with every dynamic axis at ``2n + 1`` (17 here), sees
size 2, and TRT401's assumption stays unproved: migrate does not apply it without --unsafe.

    trtcodemod migrate examples/migrate/derived_one.py --model build --inputs inputs \\
        --select ALL,TRT401 --dynamic-axes '{"x": {"2": "height"}}'
"""

import torch
from torch import nn
import torch.nn.functional as F


class Head(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pooled = F.avg_pool2d(x, (8, 1))
        return pooled.squeeze(2)


def build() -> nn.Module:
    return Head()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 8, 4, generator=generator),)
