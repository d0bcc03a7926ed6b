"""SuperPoint's keypoint cap as nunif (nagadomi/nunif @ d23721f1b5f0a4c92c3ee1be013180bf298730c5,
``nunif/utils/superpoint.py``) writes it for its video stabilizer.

``select_top_k_keypoints`` (lines 48-52) is the early return with ``sorted=True``; ``SuperPoint.forward`` (lines
140-169) turns ``torch.where`` rows into (x, y) points with ``torch.stack(idxs[-2:], dim=-1).flip(1)
.to(scores.dtype)``, then, per image, rebinds the short names ``k, s`` through the cap when the configuration (a
``SimpleNamespace`` merged from ``default_conf`` and the constructor's keyword arguments, the cap ``None`` by
default) sets one. What differs from the glue-factory form: the cap arrives as a constructor keyword over a
``None`` default, and the keypoints are integer rows flipped and cast in the model before the cap. Reduced: one
image (the per-image loop and the batch mask left out), the network, border removal and descriptors left out; the
model takes the detections' integer (row, column) positions and their scores. Written here in our own words.
"""

from types import SimpleNamespace

import torch
from torch import nn

CAP = 32
SIZES = (60, 20, CAP)
DYNAMIC = {"keypoints": {0: "n"}, "scores": {0: "n"}}


def select_top_k_keypoints(keypoints, scores, k):
    if k >= len(keypoints):
        return keypoints, scores
    scores, indices = torch.topk(scores, k, dim=0, sorted=True)
    return keypoints[indices], scores


class StabilizerPoints(nn.Module):
    default_conf = {"max_num_keypoints": None, "detection_threshold": 0.005}

    def __init__(self, **conf) -> None:
        super().__init__()
        self.conf = SimpleNamespace(**{**self.default_conf, **conf})

    def forward(self, keypoints, scores):
        # (row, column) -> (x, y), in the scores' dtype
        k = keypoints.flip(1).to(scores.dtype)
        s = scores
        if self.conf.max_num_keypoints is not None:
            k, s = select_top_k_keypoints(k, s, self.conf.max_num_keypoints)
        return k, s


def build() -> nn.Module:
    return StabilizerPoints(max_num_keypoints=CAP).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    n = SIZES[generator.initial_seed() % len(SIZES)]
    keypoints = torch.randint(0, 96, (n, 2), generator=generator)
    scores = torch.randperm(n, generator=generator).float() / n - 0.25  # distinct, negatives and zero
    return keypoints, scores
