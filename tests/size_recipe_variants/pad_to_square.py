"""``max`` of a slice of the sizes: a square canvas as large as the longer side.

Reduced from Chilydream/AVsync @ ad42d751a273c033bc2affd83080a2e2f055933f, utils/tensor_utils.py:13-18
(``PadSquare.forward``: ``s = max(img.shape[-2:])``, a ``torch.full`` canvas of ``s`` by ``s`` with
the image pasted at its centre), written here in our own words with ``F.pad`` doing the pasting.
"""

import torch
import torch.nn.functional as F
from torch import nn


class SquareCanvas(nn.Module):
    def __init__(self, fill: float = 0.5) -> None:
        super().__init__()
        self.fill = fill

    def forward(self, img):
        side = max(img.shape[-2:])
        top = (side - img.shape[-2]) // 2
        left = (side - img.shape[-1]) // 2
        bottom = side - img.shape[-2] - top
        right = side - img.shape[-1] - left
        return F.pad(img, [left, right, top, bottom], value=self.fill)


def build() -> nn.Module:
    return SquareCanvas()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 5, 8, generator=generator),)


DYNAMIC = {"img": {2: "h", 3: "w"}}
