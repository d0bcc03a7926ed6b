"""A YOLO-style decode whose helpers take untyped parameters: only the observed run knows they are tensors.

``_grid(output)``, ``_flat(feats)`` and ``_top(scores)`` are plain functions called from
``forward``; nothing in their syntax says that ``output``, ``feats`` or ``scores`` are tensors
(they could be NumPy arrays or lists). ``trtcodemod check`` alone therefore says nothing here.
``migrate`` observes a run, which records the names holding tensors at each torch call
(``output`` at ``output.size(2)``, ``scores`` at ``scores.size(1)``) and what ``len`` saw;
with that evidence the rules fire and their fixes are verified: the NumPy grid becomes torch
(TRT711), ``len(feats)`` becomes ``feats.shape[0]`` (TRT704) and ``min`` of a size becomes
``_trt_size_min`` (TRT712).
"""

import numpy as np
import torch
from torch import nn


def _grid(output):
    ny, nx = output.size(2), output.size(3)
    yv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
    return torch.from_numpy(np.stack((xv, yv), 2).astype(np.float32))


def _flat(feats):
    n = len(feats)
    return feats.reshape(n, -1)


def _top(scores):
    k = min(scores.size(1), 10)
    return scores[:, :k]


class Decode(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.conv(x)
        xy = out[:, :2].permute(0, 2, 3, 1) + _grid(out)
        return _flat(xy), _top(out[:, 2].mean(1))


def build() -> nn.Module:
    return Decode()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 8, 8, generator=generator),)
