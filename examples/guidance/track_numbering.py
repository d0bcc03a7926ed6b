"""Shape tensors and execution tensors: a tracker numbers its newly confirmed tracks.

``torch.arange(cond.sum())`` sizes a ``Range`` from a sum over the mask, an execution tensor
where TensorRT needs a shape tensor (the graph check reports the ``Range`` at its line). The
guidance: take the count from a shape, ``cond.nonzero().shape[0]``. TRT714 rewrites it
(unsafe: equal only for a 0/1 mask); migrate keeps it as a candidate the verification finds
equivalent.
"""

import torch
from torch import nn


class Numbering(nn.Module):
    def forward(self, track_ids: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        ids = track_ids.clone()
        ids[cond] = torch.arange(cond.sum().long(), device=ids.device, dtype=torch.int32)
        return ids


def build() -> nn.Module:
    return Numbering()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    ids = torch.randint(-5, 100, (12,), generator=generator, dtype=torch.int32)
    cond = torch.rand(12, generator=generator) > 0.5
    return ids, cond
