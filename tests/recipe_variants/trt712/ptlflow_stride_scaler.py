"""ptlflow's input scaler: the frames resized to the next multiple of the model's stride, and back.

Reduced from hmorimitsu/ptlflow 0.4.2 (PyPI ptlflow), ptlflow/utils/utils.py:129-138 and 195-211 (``InputScaler``:
``self.tgt_height = int(math.ceil(float(self.orig_height) / stride)) * stride`` in ``__init__``, the scaler built
in the model's ``preprocess_images`` from the frames' shape on every call; ``_scale_keep_dims`` interpolates to
the target and, for a flow, multiplies each component by ``float(x.shape[-1]) / x_shape[-1]``). Written here in
our own words, with the scaler built in ``forward`` as ptlflow's ``BaseModel`` does and a 1x1 convolution for the
flow network. Form kept: ``float`` of the size inside ``math.ceil`` inside ``int``, sizes held on the scaler's
``self``: the TorchScript export keeps the example's padded size, so at another input size the graph resizes to it.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class StrideScaler(nn.Module):
    def __init__(self, orig_shape, stride):
        super().__init__()
        self.orig_height, self.orig_width = orig_shape[-2:]
        self.tgt_height = int(math.ceil(float(self.orig_height) / stride)) * stride
        self.tgt_width = int(math.ceil(float(self.orig_width) / stride)) * stride

    def fill(self, x):
        return F.interpolate(x, size=(self.tgt_height, self.tgt_width), mode="bilinear", align_corners=False)

    def unfill(self, flow):
        out = F.interpolate(flow, size=(self.orig_height, self.orig_width), mode="bilinear", align_corners=False)
        return torch.cat([out[:, :1] * (float(out.shape[-1]) / flow.shape[-1]),
                          out[:, 1:] * (float(out.shape[-2]) / flow.shape[-2])], dim=1)


class FlowNet(nn.Module):
    def __init__(self, stride=16) -> None:
        super().__init__()
        self.stride = stride
        self.head = nn.Conv2d(6, 2, 1)

    def forward(self, x):
        scaler = StrideScaler(x.shape, self.stride)
        return scaler.unfill(self.head(scaler.fill(x)))


def build() -> nn.Module:
    return FlowNet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 6, 40, 56, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
