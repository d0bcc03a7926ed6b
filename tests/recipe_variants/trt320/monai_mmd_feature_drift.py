"""MONAI's maximum mean discrepancy: the Gram matrices of two batches, each with its diagonal taken
away as ``y_y - torch.diag(torch.diagonal(y_y))`` (the diagonal of a matrix turned back into a
square matrix), weighted by the batch sizes and combined with the cross term.

Reduced from MONAI 1.6.1 (the PyPI wheel the zoo unpacks), monai/metrics/mmd.py,
``compute_mmd`` lines 43-91 (the diags at lines 80 and 84). Written here in our own words: the
shape checks and the optional mapping are left out, and a small convolutional encoder (a shared
1x1 convolution and a global average) makes the two batches of features the discrepancy compares,
as a feature-drift monitor does in its forward.
"""

import torch
from torch import nn


class FeatureDrift(nn.Module):
    def __init__(self, channels: int = 3, features: int = 5) -> None:
        super().__init__()
        self.encode = nn.Conv2d(channels, features, kernel_size=1)

    def forward(self, reference: torch.Tensor, current: torch.Tensor) -> torch.Tensor:
        y = self.encode(reference).mean(dim=(2, 3))
        y_pred = self.encode(current).mean(dim=(2, 3))
        y = y.view(y.shape[0], -1)
        y_pred = y_pred.view(y_pred.shape[0], -1)
        y_y = torch.mm(y, y.t())
        y_pred_y_pred = torch.mm(y_pred, y_pred.t())
        y_pred_y = torch.mm(y_pred, y.t())
        m = y.shape[0]
        n = y_pred.shape[0]
        c1 = 1 / (m * (m - 1))
        a = torch.sum(y_y - torch.diag(torch.diagonal(y_y)))
        c2 = 1 / (n * (n - 1))
        b = torch.sum(y_pred_y_pred - torch.diag(torch.diagonal(y_pred_y_pred)))
        c3 = 2 / (m * n)
        c = torch.sum(y_pred_y)
        return c1 * a + c2 * b - c3 * c


def build() -> nn.Module:
    return FeatureDrift()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(4, 3, 6, 5, generator=generator), torch.randn(4, 3, 6, 5, generator=generator))


# The weights 1 / (m (m - 1)) are Python numbers from the batch sizes: the images' size is dynamic.
DYNAMIC = {"reference": {2: "height", 3: "width"}, "current": {2: "height", 3: "width"}}
