"""docTR's VIP recogniser head: a squeeze layer whose axis is held by the module (``x.squeeze(self.dim)``).

Reduced from mindee/doctr at tag v1.1.0, doctr/models/classification/vip/layers/pytorch.py (``SqueezeLayer``,
``PermuteLayer``), doctr/models/classification/vip/pytorch.py (``vip_net``'s last stage: LayerNorm, permute,
``AdaptiveAvgPool2d((embed_dims[-1], 1))``, ``SqueezeLayer(dim=3)``) and doctr/models/modules/layers/pytorch.py
(``AdaptiveAvgPool2d``, written with a loop over the output cells for ONNX). Written here in our own words: the VIP
blocks are one convolution, the pooling keeps docTR's window arithmetic, and the recogniser's linear head reads each
column's features.

The pooled tensor is built in a ``torch.empty`` whose cells are written one by one, so the TorchScript exporter cannot
size its last axis (1 by construction) and guards the squeeze with an ``If`` whose branches have different ranks.
"""

import torch
from torch import nn


class PermuteLayer(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.dims = dims

    def forward(self, x):
        return x.permute(self.dims).contiguous()


class SqueezeLayer(nn.Module):
    def __init__(self, dim: int = 3):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return x.squeeze(self.dim)


class WindowMeanPool(nn.Module):
    """Average pooling to a fixed output size, each output cell the mean of its window."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, x):
        rows, cols = self.output_size
        n, c, h, w = x.shape
        out = torch.empty((n, c, rows, cols), device=x.device, dtype=x.dtype)
        for r in range(rows):
            top, bottom = (r * h) // rows, ((r + 1) * h + rows - 1) // rows
            for q in range(cols):
                left, right = (q * w) // cols, ((q + 1) * w + cols - 1) // cols
                out[:, :, r, q] = x[:, :, top:bottom, left:right].mean(dim=(-2, -1))
        return out


class ColumnReader(nn.Module):
    def __init__(self, channels: int = 6, classes: int = 5) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 3, stride=2, padding=1)
        self.head = nn.Sequential(nn.LayerNorm(channels), PermuteLayer((0, 2, 3, 1)),
                                  WindowMeanPool((channels, 1)), SqueezeLayer(dim=3))
        self.classify = nn.Linear(channels, classes)

    def forward(self, x):
        features = self.stem(x).permute(0, 2, 3, 1)  # (batch, rows, columns, channels)
        return self.classify(self.head(features))  # (batch, columns, classes)


def build() -> nn.Module:
    return ColumnReader()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 8, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 3: "width"}}
