"""kornia's affine shape estimation: before a local affine frame (LAF) is used, frames that are not
valid (a non-finite entry, or a non-finite or zero determinant: ``laf.isfinite().all(-1).all(-1) &
det.isfinite() & (det != 0)``) are replaced by a unit frame centred where the old centre is
finite (``torch.where(laf[..., 2:3].isfinite(), laf[..., 2:3], torch.zeros_like(...))``), zero
otherwise. Tensor-method ``isfinite`` in three places.

Reduced from kornia 0.9.0 (the PyPI wheel the second zoo unpacks),
kornia/feature/affine_shape.py, ``_sanitize_laf`` lines 142-147, and kornia/feature/laf.py,
``laf_is_valid`` lines 73-99 (the determinant of the 2x2 part and the three finiteness tests at
line 99). Written here in our own words: the check of the LAF's shape and the dtype promotion are
left out, and a small linear layer reads the sanitized frames so the model has weights.
"""

import torch
from torch import nn


def laf_is_valid(laf: torch.Tensor) -> torch.Tensor:
    det = laf[..., 0, 0] * laf[..., 1, 1] - laf[..., 1, 0] * laf[..., 0, 1]
    return laf.isfinite().all(dim=-1).all(dim=-1) & det.isfinite() & (det != 0)


class SanitizeLaf(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.read = nn.Linear(6, 2)

    def forward(self, laf: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        invalid = ~laf_is_valid(laf)
        unit = laf.new_tensor([[1.0, 0.0], [0.0, 1.0]]).expand(*laf.shape[:2], -1, -1)
        center = torch.where(laf[..., 2:3].isfinite(), laf[..., 2:3], torch.zeros_like(laf[..., 2:3]))
        replacement = torch.cat([unit, center], dim=-1)
        safe = torch.where(invalid[..., None, None], replacement, laf)
        return self.read(safe.flatten(-2)), invalid


def build() -> nn.Module:
    return SanitizeLaf()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    laf = torch.randn(2, 4, 2, 3, generator=generator)
    laf[0, 1, 0, 0] = float("inf")
    laf[1, 2, 1, 2] = float("nan")
    laf[1, 3, :, :2] = 0.0
    return (laf,)


DYNAMIC = {"laf": {0: "batch", 1: "frames"}}
