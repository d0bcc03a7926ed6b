"""The draws of a RANSAC batch that set a new record score, from a running maximum: kornia.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/geometry/ransac.py, ``RANSAC._raw_record_setters``
(lines 1141-1149, used for DEGENSAC's recoveries at line 1348): the best score before each draw is
the prior record followed by ``torch.cummax(scores, 0).values[:-1]`` (a float tensor), and a draw
sets a record where its score beats that and the prior. Written here in our own words as a module
over the batch's scores that returns the mask of record setters (the original lists their indices).
"""

import torch
from torch import nn


class RecordSetters(nn.Module):
    def __init__(self, prior: float = 0.5) -> None:
        super().__init__()
        self.prior = prior

    def forward(self, scores):
        earlier = torch.cat([scores.new_full((1,), self.prior), torch.cummax(scores, 0).values[:-1]])
        return scores > earlier.clamp_min(self.prior)


def build() -> nn.Module:
    return RecordSetters()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(16, generator=generator) * 4,)


DYNAMIC = {"scores": {0: "draws"}}
