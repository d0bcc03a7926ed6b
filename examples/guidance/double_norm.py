"""Dtypes TensorRT lacks: a float64 intermediate where float32 is enough.

The box-size normalisation is computed in float64 "to be safe"; the export holds a ``Cast`` to
DOUBLE, which no TensorRT has (the graph check reports it at its line). TRT701 writes float32
there (unsafe: it assumes float32's precision is enough); migrate keeps it because the
verification finds the outputs equal within the tolerances. Where float64 really matters
(absolute timestamps) the outputs leave the tolerances and the candidate is reverted.
"""

import torch
from torch import nn


class BoxScale(nn.Module):
    def forward(self, boxes: torch.Tensor) -> torch.Tensor:
        sizes = (boxes[:, 2:] - boxes[:, :2]).double()
        scale = sizes.pow(2).sum(-1).sqrt().clamp(min=1.0)
        return (boxes / scale[:, None]).float()


def build() -> nn.Module:
    return BoxScale()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    corner = torch.rand(6, 2, generator=generator) * 100
    return (torch.cat([corner, corner + torch.rand(6, 2, generator=generator) * 50], dim=1),)
