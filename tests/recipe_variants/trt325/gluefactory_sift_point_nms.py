"""glue-factory's SIFT point filter: the NMS of one score buffer, made unbatched in the call itself.

Reduced from cvg/glue-factory at 2d17e3b3bd7d30f0c828d4c4d3eac4ecefbf283d,
gluefactory/models/extractors/sift.py, ``filter_dog_point`` (lines 18-51; the NMS at lines 38-50):
the detected points' scores are written into an ``(H, W)`` buffer, and the buffer's local maxima are
found with ``torch.nn.functional.max_pool2d(torch.from_numpy(buffer).unsqueeze(0),
kernel_size=nms_radius * 2 + 1, stride=1, padding=nms_radius).squeeze(0)``: the pooling's input is the
one map with a leading axis of one, a ``(1, H, W)`` tensor with no batch axis; a point is kept where
the buffer equals the pooled map. The original holds the buffer in NumPy (the pooling is its one
torch call); here the buffer is the model's input tensor, the points are every non-zero entry, and
the result is the buffer with its non-maxima zeroed. Written here in our own words.
"""

import torch
from torch import nn


class PointNms(nn.Module):
    def __init__(self, nms_radius: int = 2) -> None:
        super().__init__()
        self.nms_radius = nms_radius

    def forward(self, buffer):
        nms_radius = self.nms_radius
        local_max = torch.nn.functional.max_pool2d(
            buffer.unsqueeze(0),
            kernel_size=nms_radius * 2 + 1,
            stride=1,
            padding=nms_radius,
        ).squeeze(0)
        is_local_max = buffer == local_max
        return torch.where(is_local_max, buffer, torch.zeros_like(buffer))


def build() -> nn.Module:
    return PointNms().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    buffer = torch.rand(30, 40, generator=generator)
    return (buffer * (torch.rand(30, 40, generator=generator) < 0.2),)


DYNAMIC = {"buffer": {0: "height", 1: "width"}}
