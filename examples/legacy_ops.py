"""Temporal BEV fusion written the way research code often is (BEVDet4D / StreamPETR style).

Each call gets the current frame's BEV features, the previous frame's features, the
per-frame timestamps in seconds (Unix time, float64 as they come from the dataset) and a
per-cell validity mask. The module warps nothing (kept small) but mixes the two frames
with a weight that decays with the time gap, and scores the fused cells. It shows the
deployment constructs trtcodemod reports (and the one it rewrites) in context:

- TRT701 ``unsupported-dtype``: the time gap is computed in float64, and the validity mask
  is made with ``.byte()``. TensorRT has neither; casting the timestamps to float32 first
  would be wrong (float32 values near 1.7e9 are 128 s apart), so the fix is to pass the
  time *offset* from the first frame (computed outside) as float32.
- TRT702 ``tensor-to-python``: ``.item()`` turns the gap into a Python float, which the
  traced export freezes at the example's value.
- TRT703 ``state-in-forward``: a frame counter kept on ``self``; the exported graph never
  advances it.
- TRT704 ``len-of-tensor``: ``len(queries)`` on a ``Tensor``-annotated argument, rewritten
  (safely) to ``queries.shape[0]`` so a dynamic query count survives the export.
- TRT705 ``nonzero``: ``occupied_cells`` lists the occupied cells with ``nonzero``
  (a data-dependent output size; meant to run after the network).

Run ``trtcodemod check examples/legacy_ops.py`` to see the findings and
``trtcodemod apply --dry-run examples/legacy_ops.py`` for the rewrite.
"""

from __future__ import annotations

import math

import torch
from torch import nn


class TemporalFusion(nn.Module):
    def __init__(self, channels: int = 16, tau: float = 0.5) -> None:
        super().__init__()
        self.mix = nn.Conv2d(2 * channels, channels, kernel_size=1)
        self.score = nn.Conv2d(channels, 1, kernel_size=1)
        self.query_proj = nn.Linear(channels, channels)
        self.tau = tau
        self.frame_idx = 0

    def forward(self, bev: torch.Tensor, prev_bev: torch.Tensor, stamps: torch.Tensor, valid: torch.Tensor,
                queries: torch.Tensor):
        """bev, prev_bev: (B, C, H, W); stamps: (2,) float64 [prev, now]; valid: (B, H, W); queries: (Q, C)."""
        self.frame_idx += 1
        gap = (stamps[1].double() - stamps[0].double()).abs()
        weight = math.exp(-gap.item() / self.tau)
        fused = self.mix(torch.cat([bev, weight * prev_bev], dim=1))
        mask = (valid > 0).byte()
        scores = self.score(fused)[:, 0] * mask
        query_ids = torch.arange(len(queries), device=queries.device)
        query_feats = self.query_proj(queries) + query_ids[:, None]
        return fused, scores, query_feats

    def occupied_cells(self, scores: torch.Tensor, threshold: float = 0.0) -> torch.Tensor:
        """(K, 3) indices of cells above the threshold (post-processing, outside the engine)."""
        return torch.nonzero(scores > threshold)


def build() -> nn.Module:
    torch.manual_seed(0)
    return TemporalFusion().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    bev = torch.randn(2, 16, 8, 8, generator=generator)
    prev_bev = torch.randn(2, 16, 8, 8, generator=generator)
    start = 1.7e9 + float(torch.randint(0, 1000, (1,), generator=generator))
    # Host-side data as the dataset delivers it, not part of the exported graph.
    stamps = torch.tensor([start, start + 0.5], dtype=torch.float64)  # trtcodemod: ignore[TRT701]
    valid = torch.rand(2, 8, 8, generator=generator)
    queries = torch.randn(5, 16, generator=generator)
    return bev, prev_bev, stamps, valid, queries
