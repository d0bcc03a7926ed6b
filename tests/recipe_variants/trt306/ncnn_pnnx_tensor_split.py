"""The converter test of ``torch.tensor_split`` in every form: Tencent ncnn's pnnx.

Reduced from Tencent/ncnn (commit 30d056f06e1aeb24297db7e1054b5d814fcf4b3c),
tools/pnnx/tests/test_torch_tensor_split.py, ``Model.forward``: one model splits four inputs at
points written as tuples (``(12, 13)`` with no axis, ``(3,)`` and ``(2, 4)`` on axis 0, ``(1,)`` and
``(1, 5)`` on axes 1 and 2, ``(1, 3, 7, 17)`` on axis 3) and into numbers of sections
(``tensor_split(y, 2, dim=0)``, ``tensor_split(w, 3, dim=2)``). Written here in our own words with
three of its inputs; every part goes into the one output, each scaled by its place.

The sections are not taken (``Sections`` below, kept for the rule's report): the rule rewrites
points only.
"""

import torch
from torch import nn


def _joined(parts) -> torch.Tensor:
    return torch.cat([p.flatten() * (k + 1) for k, p in enumerate(parts)])


class Splits(nn.Module):
    def forward(self, x, z, w):
        x0, x1, x2 = torch.tensor_split(x, (12, 13))
        z0, z1 = torch.tensor_split(z, (3,), dim=0)
        z2, z3 = torch.tensor_split(z, (1,), dim=1)
        w0, w1, w2 = torch.tensor_split(w, (2, 4), dim=0)
        w5, w6, w7 = torch.tensor_split(w, (1, 5), dim=2)
        w8, w9, wa, wb, wc = torch.tensor_split(w, (1, 3, 7, 17), dim=3)
        return _joined((x0, x1, x2, z0, z1, z2, z3, w0, w1, w2, w5, w6, w7, w8, w9, wa, wb, wc))


class Sections(nn.Module):
    """Numbers of sections: reported, not rewritten."""

    def forward(self, y):
        y0, y1 = torch.tensor_split(y, 2, dim=0)
        return y0, y1


def build() -> nn.Module:
    return Splits()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(100, generator=generator), torch.rand(5, 9, 3, generator=generator),
            torch.rand(6, 13, 6, 22, generator=generator))


DYNAMIC = {"x": {0: "length"}, "z": {0: "z0", 1: "z1"}, "w": {0: "w0", 2: "w2", 3: "w3"}}
