"""Exposure-adaptive stem: a Python ``if`` on a tensor picks the branch.

Tracing evaluates ``x.mean() > 0`` once, on the example input, and records only the
branch it took: the exported graph always runs that branch. The export succeeds (with a
TracerWarning) and matches eager on the traced input, and is wrong on inputs that would
take the other branch. The verifier's second input sets catch it. ``--unsafe`` lets
TRT101 compute both branches and blend them, and the rewritten export is faithful.

    trtcodemod verify examples/verify/baked_branch.py --model build --inputs inputs [--unsafe]
"""

import torch
from torch import nn


class AdaptiveStem(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bright = nn.Linear(8, 8)
        self.dark = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.mean() > 0:  # data-dependent: baked in by tracing
            y = torch.relu(self.bright(x))
        else:
            y = torch.tanh(self.dark(x))
        return y


def build() -> nn.Module:
    return AdaptiveStem()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Bright and dark frames: the sign of the offset is drawn, so input sets differ in branch.
    sign = 1.0 if torch.rand((), generator=generator).item() < 0.5 else -1.0
    return (torch.randn(4, 8, generator=generator) + 2.0 * sign,)
