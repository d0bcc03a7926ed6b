"""SuperPoint's descriptor sampling: the coarse descriptor map read at keypoints given in image pixels.

Reduced from magicleap/SuperGluePretrainedNetwork at ddcf11f42e7e0732a0c4607648f9448ea8d73590,
models/superpoint.py: ``sample_descriptors`` (lines 81-93; the divisor at lines 85-86) and its call from
``SuperPoint.forward`` on the descriptor head's output. Written here in our own words, with a two-layer
encoder and the keypoints given as an input in place of the detector. Form kept: ``b, c, h, w`` unpacked
from the descriptor map, the keypoints divided in place by ``torch.tensor([(w*s - s/2 - 0.5), (h*s - s/2 -
0.5)]).to(keypoints)[None]``, numbers computed from the sizes and the cell size ``s``: the TorchScript
export keeps the example's, so at another size every descriptor is read at the wrong place.
"""

import torch
import torch.nn.functional as F
from torch import nn


def read_descriptors(keypoints, descriptors, s: int = 8):
    b, c, h, w = descriptors.shape
    keypoints = keypoints - s / 2 + 0.5
    keypoints /= torch.tensor([(w*s - s/2 - 0.5), (h*s - s/2 - 0.5)]).to(keypoints)[None]
    keypoints = keypoints * 2 - 1
    out = F.grid_sample(descriptors, keypoints.view(b, 1, -1, 2), mode="bilinear", align_corners=True)
    return F.normalize(out.reshape(b, c, -1), p=2, dim=1)


class Descriptors(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 8, 3, stride=4, padding=1), nn.ReLU(),
                                     nn.Conv2d(8, 16, 3, stride=2, padding=1))

    def forward(self, image, keypoints):
        descriptors = F.normalize(self.encoder(image), p=2, dim=1)
        return read_descriptors(keypoints, descriptors)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Descriptors().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(1, 1, 32, 48, generator=generator), torch.rand(1, 12, 2, generator=generator) * 30


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}, "keypoints": {0: "batch", 1: "points"}}
