"""Frame features through two bidirectional GRUs, max-pooled over the whole window with ``MaxPool1d`` and squeezed
with no axis before the dense layer and a softmax over the last axis.

Reduced from ploymel/badminton-ai-core @ 1df3666dba2ff909b7f2d119326b7a96f8cb5a7c, src/models/HitDetect.py:28-42
(``x = x.transpose(1, 2)``, ``x = self.global_maxpool(x).squeeze()``, ``x = self.dense(x)``,
``x = self.softmax(x)``), written here in our own words with small sizes.
"""

import torch
from torch import nn


class HitNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.frames = 4
        self.per_frame = 5
        self.rnn1 = nn.GRU(self.per_frame, 6, bidirectional=True, batch_first=True)
        self.rnn2 = nn.GRU(12, 6, bidirectional=True, batch_first=True)
        self.window_max = nn.MaxPool1d(self.frames)
        self.dense = nn.Linear(12, 3)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, feats):
        x = feats.view(feats.shape[0], self.frames, self.per_frame)
        x, _ = self.rnn1(x)
        x, _ = self.rnn2(x)
        x = self.window_max(x.transpose(1, 2)).squeeze()
        return self.softmax(self.dense(x))


def build() -> nn.Module:
    return HitNet()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 20, generator=generator),)


DYNAMIC = {"feats": {0: "batch"}}
