"""FLUX3's action unnormalizer in LeRobot: the delta channels, a list comprehension, integrated from an anchor.

Reduced from huggingface/lerobot at commit 34923dcd69b238d01ce97bdbd58612dffc5bab31,
src/lerobot/policies/flux3/processor_flux3.py, ``ActionHistoryUnnormalizerProcessorStep.action``:
the predicted chunk is unscaled with the saved quantiles and cloned; with delta actions the channels
that are not absolute are collected as ``dims = [d for d in range(self.action_dim) if d not in
absolute]`` and, for a chunk, integrated from the last command with
``commands[..., dims] = values[..., dims].cumsum(1) + anchor[:, None, dims]``. Kept: the positions
a local list comprehension makes (all channels but the two grippers, which no slice names), the
value a cumulative sum plus a broadcast anchor. The original's branch for a single action
(``commands[..., dims] += anchor[..., dims]``, an augmented write the rule reports without a fix)
is left out: this model always predicts a chunk. The anchor, the preprocessor's last command, is
an input here. Written here in our own words.
"""

import torch
from torch import nn

ACTION_DIM = 14


class DeltaUnnormalizer(nn.Module):
    def __init__(self, absolute_dims=(6, 13)) -> None:
        super().__init__()
        self.action_dim = ACTION_DIM
        self.absolute_dims = list(absolute_dims)
        self.register_buffer("q01", -torch.linspace(0.5, 2.0, ACTION_DIM))
        self.register_buffer("q99", torch.linspace(1.0, 4.0, ACTION_DIM))

    def forward(self, action, anchor):
        lo, hi = self.q01.to(action), self.q99.to(action)
        span = torch.where(hi - lo > 1e-6, hi - lo, torch.ones_like(lo))
        values = (action + 1) * span / 2 + lo
        commands = values.clone()
        absolute = {d % self.action_dim for d in self.absolute_dims}
        dims = [d for d in range(self.action_dim) if d not in absolute]
        commands[..., dims] = values[..., dims].cumsum(1) + anchor[:, None, dims]
        return commands


def build() -> nn.Module:
    return DeltaUnnormalizer().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, ACTION_DIM, generator=generator), torch.randn(2, ACTION_DIM, generator=generator) * 3)


DYNAMIC = {"action": {0: "batch", 1: "chunk"}, "anchor": {0: "batch"}}
