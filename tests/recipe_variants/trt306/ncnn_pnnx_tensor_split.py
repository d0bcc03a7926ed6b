"""The converter test of ``torch.tensor_split`` in every form: Tencent ncnn's pnnx.

Reduced from Tencent/ncnn (commit 30d056f06e1aeb24297db7e1054b5d814fcf4b3c),
tools/pnnx/tests/test_torch_tensor_split.py, ``Model.forward``: one model splits four inputs at
points written as tuples (``(12, 13)`` with no axis, ``(3,)`` and ``(2, 4)`` on axis 0, ``(1,)`` and
``(1, 5)`` on axes 1 and 2, ``(1, 3, 7, 17)`` on axis 3) and into numbers of sections
(``tensor_split(y, 2, dim=0)``, ``3`` on axes 1 and 2, ``2`` on axis 1). Written here in our own
words, the parts gathered in one list; every part goes into the one output, scaled by its place.
"""

import torch
from torch import nn


def _joined(parts) -> torch.Tensor:
    return torch.cat([p.flatten() * (k + 1) for k, p in enumerate(parts)])


class Splits(nn.Module):
    def forward(self, x, y, z, w):
        parts = list(torch.tensor_split(x, (12, 13)))
        parts += torch.tensor_split(y, 2, dim=0)
        parts += torch.tensor_split(y, 3, dim=1)
        parts += torch.tensor_split(z, (3,), dim=0)
        parts += torch.tensor_split(z, (1,), dim=1)
        parts += torch.tensor_split(z, 3, dim=2)
        parts += torch.tensor_split(w, (2, 4), dim=0)
        parts += torch.tensor_split(w, 2, dim=1)
        parts += torch.tensor_split(w, (1, 5), dim=2)
        parts += torch.tensor_split(w, (1, 3, 7, 17), dim=3)
        return _joined(parts)


def build() -> nn.Module:
    return Splits()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(100, generator=generator), torch.rand(3, 16, generator=generator),
            torch.rand(5, 9, 3, generator=generator), torch.rand(6, 13, 6, 22, generator=generator))


DYNAMIC = {"x": {0: "length"}, "y": {0: "y0", 1: "y1"}, "z": {0: "z0", 1: "z1", 2: "z2"},
           "w": {0: "w0", 1: "w1", 2: "w2", 3: "w3"}}
