"""A sum of ``torch.isnan`` results as a logical or: TrajNet++'s LSTM step keeps the pedestrians seen twice.

Reduced from vita-epfl/trajnetplusplusbaselines @ 99a6e9d8675face1aeeb17227b73dd3d1267f463,
trajnetbaselines/lstm/lstm.py: ``LSTM.step`` (lines 88-166) marks the tracks present in both frames with
``track_mask = (torch.isnan(obs1[:, 0]) + torch.isnan(obs2[:, 0])) == 0`` (line 118), embeds the velocity
``obs2 - obs1`` of those tracks, runs one LSTM cell step and writes the new hidden state back only where
the mask holds. Written here in our own words: the selection by the mask and the write back are one
``torch.where`` each (the repository stacks the kept rows in Python), and a linear head gives the
next velocity.
"""

import torch
from torch import nn


class TrackStep(nn.Module):
    def __init__(self, hidden: int = 8) -> None:
        super().__init__()
        self.embed = nn.Linear(2, hidden)
        self.cell = nn.LSTMCell(hidden, hidden)
        self.head = nn.Linear(hidden, 2)

    def forward(self, prev, curr, state):
        track_mask = (torch.isnan(prev[:, 0]) + torch.isnan(curr[:, 0])) == 0
        keep = track_mask.unsqueeze(1)
        velocity = torch.where(keep, curr - prev, torch.zeros_like(curr))
        h, c = self.cell(torch.relu(self.embed(velocity)), (state, state))
        hidden = torch.where(keep, h, state)
        return hidden, torch.where(keep, self.head(hidden), torch.full_like(curr, float("nan")))


def build() -> nn.Module:
    return TrackStep()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    prev = torch.randn(5, 2, generator=generator)
    curr = torch.randn(5, 2, generator=generator)
    prev[1, 0] = float("nan")  # a track that enters the scene
    curr[3] = float("nan")  # a track that leaves it
    return prev, curr, torch.randn(5, 8, generator=generator)


DYNAMIC = {"prev": {0: "tracks"}, "curr": {0: "tracks"}, "state": {0: "tracks"}}
