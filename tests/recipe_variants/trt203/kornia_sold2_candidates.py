"""kornia's SOLD2 line detector: every detected segment is perturbed by a small grid of
offsets (``segments.unsqueeze(dim=1) + offsets[None]``), and the candidates' row and column
coordinates are clipped to the heatmap with ``torch.clamp`` written back through ``[..., k]``.

Reduced from kornia/kornia at tag v0.9.0 (the PyPI release the second zoo unpacks),
kornia/feature/sold2/sold2_detector.py:428-457 (``LineDetector.refine_junction_perturb``: the
perturbation grid from ``torch.meshgrid``, ``line_segment_candidates =
line_segments.unsqueeze(dim=1) + perturb_tensor_flat[None]`` and the two ``torch.clamp`` column
writes), written here in our own words; the segments come in as a tensor instead of junction
pairs picked from a line map, and the candidates are returned before the heatmap sampling.
"""

import torch
from torch import nn


class PerturbSegments(nn.Module):
    def __init__(self, step: float = 0.5, radius: int = 1) -> None:
        super().__init__()
        self.step = step
        self.radius = radius

    def forward(self, heatmap: torch.Tensor, line_segments: torch.Tensor) -> torch.Tensor:
        H, W = heatmap.shape[-2:]
        perturb_vec = torch.arange(-self.radius, self.radius + 1, dtype=torch.float32) * self.step
        h1, w1, h2, w2 = torch.meshgrid([perturb_vec, perturb_vec, perturb_vec, perturb_vec], indexing="ij")
        perturb = torch.cat([h1[..., None], w1[..., None], h2[..., None], w2[..., None]], -1)
        perturb_flat = perturb.view(-1, 2, 2)
        line_segment_candidates = line_segments.unsqueeze(dim=1) + perturb_flat[None]
        line_segment_candidates[..., 0] = torch.clamp(line_segment_candidates[..., 0], min=0, max=H - 1)
        line_segment_candidates[..., 1] = torch.clamp(line_segment_candidates[..., 1], min=0, max=W - 1)
        return line_segment_candidates


def build() -> nn.Module:
    return PerturbSegments()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    heatmap = torch.rand(16, 12, generator=generator)
    segments = torch.rand(3, 2, 2, generator=generator) * 14 - 1  # a few ends outside the map
    return heatmap, segments


DYNAMIC = {"heatmap": {0: "height", 1: "width"}, "line_segments": {0: "segments"}}
