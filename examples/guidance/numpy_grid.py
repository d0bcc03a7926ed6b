"""Python built-ins, example 2 (the classic YOLO decode): a NumPy grid built from a traced size.

``make_grid`` reads ``output.size(2)``/``size(3)`` into NumPy and back: the export keeps the
example's grid. ``output`` has no annotation; migrate takes the exporter's TracerWarnings at
the helper's lines as the evidence that these are tensor sizes and rewrites the grid into
torch (TRT711), kept because the verification finds it equivalent on every input set.
"""

import numpy as np
import torch
from torch import nn


def make_grid(output):
    ny, nx = output.size(2), output.size(3)
    yv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
    return torch.from_numpy(np.stack((xv, yv), 2).astype(np.float32))


class Decode(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.conv(x)
        grid = make_grid(out)
        return out.permute(0, 2, 3, 1) + grid


def build() -> nn.Module:
    return Decode()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 8, generator=generator),)
