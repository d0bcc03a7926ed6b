"""SuperPoint's keypoint cap as Hugging Face transformers writes it.

Reduced from the ``transformers`` package (PyPI, 5.24.0), models/superpoint/modeling_superpoint.py,
``top_k_keypoints`` (lines 47-52) and its call in ``SuperPointInterestPointDecoder._extract_keypoints``
(``if self.max_keypoints >= 0:`` then ``keypoints, scores = top_k_keypoints(keypoints, scores,
self.max_keypoints)``, line 254). Its form: annotated parameters and return type, a docstring before
the early return, the cap an attribute set in ``__init__`` from the configuration. The decoder's score
head, NMS and border removal are left out: the model takes one image's keypoints and scores, and flips
(y, x) to (x, y) after the cap, as the original does. Written here in our own words.
"""

import torch
from torch import nn

CAP = 32
SIZES = (60, 20, CAP)


def top_k_keypoints(keypoints: torch.Tensor, scores: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The k keypoints with the highest scores."""
    if k >= len(keypoints):
        return keypoints, scores
    scores, indices = torch.topk(scores, k, dim=0)
    return keypoints[indices], scores


class InterestPointCap(nn.Module):
    def __init__(self, max_keypoints: int = CAP) -> None:
        super().__init__()
        self.max_keypoints = max_keypoints

    def forward(self, keypoints, scores):
        if self.max_keypoints >= 0:
            keypoints, scores = top_k_keypoints(keypoints, scores, self.max_keypoints)
        keypoints = torch.flip(keypoints, [1]).to(scores.dtype)
        return keypoints, scores


def build() -> nn.Module:
    return InterestPointCap().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    n = SIZES[generator.initial_seed() % len(SIZES)]
    keypoints = torch.randint(0, 64, (n, 2), generator=generator)
    scores = torch.randperm(n, generator=generator).float() / n * 2 - 1  # distinct, negatives and zero
    scores[0] = float("inf")  # an edge value at the top
    return keypoints, scores


DYNAMIC = {"keypoints": {0: "n"}, "scores": {0: "n"}}
