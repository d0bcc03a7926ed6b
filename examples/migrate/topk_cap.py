"""A top-k whose K is ``min(cap, size)``: a K computed at run time, which TensorRT < 8.6 refuses.

Traced with 6 scores per row, ``min(10, scores.shape[1])`` stays a ``Min``/``Gather`` of the
shape in the graph, so TopK's K is not a constant. With ``--unsafe`` (TRT803's assumption: equal
scores come out lowest index first), migrate pads the scores to the cap while exporting and takes
a constant ``topk(10)``; eager mode keeps the original call.

    trtcodemod migrate examples/migrate/topk_cap.py --model build --inputs inputs \\
        --dynamic-axes '{"scores": {"1": "n"}}' --target 8.5 --unsafe
"""

import torch
from torch import nn


class TopScores(nn.Module):
    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        values, index = scores.topk(min(10, scores.shape[1]), dim=1)
        return values * 2 + index.float()


def build() -> nn.Module:
    return TopScores()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, generator=generator),)
