"""LightGlue's SuperPoint extractor: ``simple_nms`` on the unfolded ``(b, h*8, w*8)`` scores, its radius
read from the extractor's configuration.

Reduced from cvg/LightGlue at 1fd587b6f5a7a0befd31188f1e5d2f05740006d7, lightglue/superpoint.py:
``simple_nms`` (lines 52-67) and the score part of ``SuperPoint._forward`` (lines 165-178). Its own
copy of the closure splits the pooling call over lines, ``torch.nn.functional.max_pool2d(\\n x,
kernel_size=nms_radius * 2 + 1, stride=1, padding=nms_radius\\n)``, and the extractor passes
``self.conf.nms_radius`` (an attribute of a configuration object, not a dict's item). The grayscale
conversion, the VGG encoder (one convolution here), the keypoint extraction and the descriptors are
left out. Written here in our own words.
"""

from types import SimpleNamespace

import torch
from torch import nn


def simple_nms(scores, nms_radius: int):
    assert nms_radius >= 0

    def max_pool(x):
        return torch.nn.functional.max_pool2d(
            x, kernel_size=nms_radius * 2 + 1, stride=1, padding=nms_radius
        )

    zeros = torch.zeros_like(scores)
    max_mask = scores == max_pool(scores)
    for _ in range(2):
        supp_mask = max_pool(max_mask.float()) > 0
        supp_scores = torch.where(supp_mask, zeros, scores)
        new_max_mask = supp_scores == max_pool(supp_scores)
        max_mask = max_mask | (new_max_mask & (~supp_mask))
    return torch.where(max_mask, scores, zeros)


class SuperPoint(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conf = SimpleNamespace(nms_radius=4)
        self.convPa = nn.Conv2d(1, 16, 8, stride=8)
        self.convPb = nn.Conv2d(16, 65, 1)

    def forward(self, image):
        scores = self.convPb(torch.relu(self.convPa(image)))
        scores = torch.nn.functional.softmax(scores, 1)[:, :-1]
        b, _, h, w = scores.shape
        scores = scores.permute(0, 2, 3, 1).reshape(b, h, w, 8, 8)
        scores = scores.permute(0, 1, 3, 2, 4).reshape(b, h * 8, w * 8)
        return simple_nms(scores, self.conf.nms_radius)


def build() -> nn.Module:
    return SuperPoint().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 1, 56, 48, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
