"""SuperPoint's keypoint cap as Magic Leap's SuperGlue release writes it.

Reduced from magicleap/SuperGluePretrainedNetwork, models/superpoint.py, ``top_k_keypoints`` (lines 72-76;
the same function, same lines, ships in the ``superpoint_superglue`` 0.2 package on PyPI, superpoint.py
lines 73-77, and in cvg/LightGlue at d1bbea939c493ab9a2638a27fa3d17218ae00fda, lightglue/superpoint.py),
and its call in ``SuperPoint.forward`` under ``if self.config['max_keypoints'] >= 0:``. The function keeps
the keypoints (integer rows from ``nonzero``) and scores unchanged where the cap ``k: int`` is at least
their count (``len(keypoints)``), else the ``torch.topk(scores, k, dim=0)`` best, the keypoints re-read
by the indices. The network before it is left out: the model takes one image's keypoints and scores.
Written here in our own words.
"""

import torch
from torch import nn

CAP = 32
SIZES = (60, 20, CAP)


def top_k_keypoints(keypoints, scores, k: int):
    if k >= len(keypoints):
        return keypoints, scores
    scores, indices = torch.topk(scores, k, dim=0)
    return keypoints[indices], scores


class KeypointCap(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.config = {"max_keypoints": CAP}

    def forward(self, keypoints, scores):
        if self.config["max_keypoints"] >= 0:
            keypoints, scores = top_k_keypoints(keypoints, scores, self.config["max_keypoints"])
        return keypoints, scores


def build() -> nn.Module:
    return KeypointCap().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    n = SIZES[generator.initial_seed() % len(SIZES)]
    keypoints = torch.randint(0, 96, (n, 2), generator=generator)
    scores = torch.randperm(n, generator=generator).float() / n - 0.25  # distinct, negatives and zero
    return keypoints, scores


DYNAMIC = {"keypoints": {0: "n"}, "scores": {0: "n"}}
