"""One update step of a multi-object tracker (the ByteTrack / MOTR style state update).

Each of the N live tracks has a predicted box, a confidence score and a miss counter;
the detector proposes one matched detection box per track. The step decides, per
track, whether the detection is trusted, blends the state, and ages tracks that were
missed. It shows the constructs trtcodemod's control-flow and ``torch.where`` rules
handle in a realistic context:

- TRT101 ``data-dependent-if``: the momentum of the score update depends on how good
  the best match is, and the miss counters age when the whole frame is weak. A traced
  export keeps only the branch the example frame took; ``apply --unsafe`` turns both
  into ``torch.where`` selections.
- TRT102 ``where-to-blend``: per-track selection between detection and prediction, and
  masking unmatched scores with 0 (blended with ``--unsafe``).
- TRT103 ``where-nonzero``: ``lost_tracks`` lists the tracks to drop with a one-argument
  ``torch.where`` (reported only: its output size depends on the data).

Run ``trtcodemod apply --dry-run --unsafe examples/`` to see the rewrites.
"""

from __future__ import annotations

import torch
from torch import nn


class TrackerUpdate(nn.Module):
    def __init__(self, dim: int = 32, match_thresh: float = 0.5, max_misses: int = 3) -> None:
        super().__init__()
        self.embed = nn.Linear(4, dim)
        self.score_head = nn.Linear(dim, 1)
        self.match_thresh = match_thresh
        self.max_misses = max_misses

    def forward(self, track_boxes, det_boxes, track_scores, misses):
        """track_boxes, det_boxes: (N, 4); track_scores: (N,); misses: (N,) int64."""
        det_scores = self.score_head(torch.relu(self.embed(det_boxes)))[:, 0].sigmoid()
        matched = det_scores > self.match_thresh
        # Trust the detection where it matched, keep the motion prediction elsewhere.
        boxes = torch.where(matched[:, None], det_boxes, track_boxes)
        scores = torch.where(matched, det_scores, 0.0)

        # A confident frame moves the scores faster.
        if det_scores.max() > 0.9:
            momentum = 0.5
        else:
            momentum = 0.8
        scores = momentum * track_scores + (1 - momentum) * scores

        # A weak frame ages every track.
        if det_scores.mean() < 0.3:
            misses = misses + 1
        return boxes, scores, misses

    def lost_tracks(self, misses):
        """Indices of tracks to drop (run outside the exported graph)."""
        return torch.where(misses > self.max_misses)[0]


def build() -> nn.Module:
    torch.manual_seed(0)
    return TrackerUpdate().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    n = 8
    centers = torch.rand(n, 2, generator=generator) * 100
    sizes = torch.rand(n, 2, generator=generator) * 20 + 1
    track_boxes = torch.cat([centers, centers + sizes], dim=1)
    det_boxes = track_boxes + torch.randn(n, 4, generator=generator)
    track_scores = torch.rand(n, generator=generator)
    misses = torch.randint(0, 5, (n,), generator=generator)
    return track_boxes, det_boxes, track_scores, misses
