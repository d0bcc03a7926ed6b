"""SuperPoint's keypoint cap as glue-factory's open SuperPoint writes it.

Reduced from cvg/glue-factory at 83bcc4dc16ac1435ad1ed239cd711da6b03e669f,
gluefactory/models/extractors/superpoint_open.py, ``select_top_k_keypoints`` (lines 52-56) and its call in
``SuperPoint._forward`` (``if self.conf.max_num_keypoints is not None:`` then ``k, s =
select_top_k_keypoints(k, s, self.conf.max_num_keypoints)``, the configuration a ``SimpleNamespace``).
Its form differs from Magic Leap's: the cap is unannotated, the top-k asks for ``sorted=True``, the
keypoints are float (x, y) positions, and the caller reads the cap as an attribute. The backbone and
the keypoint extraction are left out: the model takes one image's keypoints and scores. Written here
in our own words.
"""

from types import SimpleNamespace

import torch
from torch import nn

CAP = 32
SIZES = (60, 20, CAP)


def select_top_k_keypoints(keypoints, scores, k):
    if k >= len(keypoints):
        return keypoints, scores
    scores, indices = torch.topk(scores, k, dim=0, sorted=True)
    return keypoints[indices], scores


class OpenSuperPointCap(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conf = SimpleNamespace(max_num_keypoints=CAP)

    def forward(self, keypoints, scores):
        k, s = keypoints, scores
        if self.conf.max_num_keypoints is not None:
            k, s = select_top_k_keypoints(k, s, self.conf.max_num_keypoints)
        return k + 0.5, s


def build() -> nn.Module:
    return OpenSuperPointCap().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    n = SIZES[generator.initial_seed() % len(SIZES)]
    keypoints = torch.rand(n, 2, generator=generator) * 64
    scores = torch.randperm(n, generator=generator).float() - n / 2  # distinct, negatives and zero
    return keypoints, scores


DYNAMIC = {"keypoints": {0: "n"}, "scores": {0: "n"}}
