"""FLUX3's command-history normalizer in LeRobot: absolute channels, a list held by ``self``, written into deltas.

Reduced from huggingface/lerobot at commit 34923dcd69b238d01ce97bdbd58612dffc5bab31,
src/lerobot/policies/flux3/processor_flux3.py, ``_HistoryQuantiles``: ``__init__`` keeps the channels
that stay absolute as ``self.absolute_dims = list(absolute_dims or [])``, and
``_normalized_commands`` turns a window of absolute commands into consecutive deltas, then writes the
absolute channels back with ``values[..., self.absolute_dims] = commands[:, 1:, self.absolute_dims]``
before ``scale`` maps them with the saved quantiles into [-1, 1] and clips them. Kept: the positions
read through ``self`` from a list made in ``__init__`` (not in the class body), the value an
indexed read of another tensor. Here the quantiles are buffers and the two gripper channels of a
14-channel bimanual command stay absolute. Written here in our own words.
"""

import torch
from torch import nn

ACTION_DIM = 14


class CommandDeltaNormalizer(nn.Module):
    def __init__(self, absolute_dims=(6, 13), normalization_clip: float = 6.0) -> None:
        super().__init__()
        self.absolute_dims = list(absolute_dims or [])
        self.normalization_clip = normalization_clip
        self.register_buffer("q01", -torch.linspace(1.0, 3.0, ACTION_DIM))
        self.register_buffer("q99", torch.linspace(2.0, 5.0, ACTION_DIM))

    def scale(self, value):
        lo, hi = self.q01.to(value), self.q99.to(value)
        span = torch.where(hi - lo > 1e-6, hi - lo, torch.ones_like(lo))
        return (2 * (value - lo) / span - 1).clamp(-self.normalization_clip, self.normalization_clip)

    def forward(self, commands):
        values = commands[:, 1:]
        values = values - commands[:, :-1]
        values[..., self.absolute_dims] = commands[:, 1:, self.absolute_dims]
        return self.scale(values)


def build() -> nn.Module:
    return CommandDeltaNormalizer().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 9, ACTION_DIM, generator=generator) * 2,)


DYNAMIC = {"commands": {0: "batch", 1: "window"}}
