"""ptlflow's input padder: frames padded up to the next multiple of the stride, the flow cropped back only where its
size is the padded one.

Reduced from hmorimitsu/ptlflow 0.4.2 (PyPI ptlflow), ptlflow/utils/external/raft.py:44-74 (RAFT's ``InputPadder``:
padding ``(((ht // stride) + 1) * stride - ht) % stride`` split over both sides, ``unpad`` slicing it off again) and
ptlflow/utils/utils.py:76-90 (the subclass: ``self.tgt_size = (int(math.ceil(float(dims[-2]) / stride)) * stride,
...)`` and ``unfill``, which unpads only ``if x.shape[-2] == self.tgt_size[0] and x.shape[-1] ==
self.tgt_size[1]``), the padder built from the frames' shape on every call as SEA-RAFT's ``forward`` does (zoo 54).
Written here in our own words, with a convolution for the flow network and its flow normalised by the padded width
as ptlflow's translated correlation normalises its offsets (ptlflow/utils/correlation.py:403-404, ``2 * (offsets_x -
offset[1]) / float(w - 1)``), which the TorchScript export keeps at the example's width. At a traced size that is already a
multiple of the stride nothing is padded, so cropping and not cropping give one shape there and only there: a
selection of the two in the graph is refused at any other size.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class Padder:
    def __init__(self, dims, stride):
        ht, wd = dims[-2:]
        pad_ht = (((ht // stride) + 1) * stride - ht) % stride
        pad_wd = (((wd // stride) + 1) * stride - wd) % stride
        self._pad = [pad_wd // 2, pad_wd - pad_wd // 2, pad_ht // 2, pad_ht - pad_ht // 2]
        self.tgt_size = (int(math.ceil(float(dims[-2]) / stride)) * stride,
                         int(math.ceil(float(dims[-1]) / stride)) * stride)

    def fill(self, x):
        return F.pad(x, self._pad, mode="replicate")

    def unpad(self, x):
        ht, wd = x.shape[-2:]
        return x[..., self._pad[2]:ht - self._pad[3], self._pad[0]:wd - self._pad[1]]

    def unfill(self, x):
        if x.shape[-2] == self.tgt_size[0] and x.shape[-1] == self.tgt_size[1]:
            x = self.unpad(x)
        return x


def normalised(flow):
    h, w = flow.shape[-2:]
    return 2 * flow / float(w - 1)


class FlowNet(nn.Module):
    def __init__(self, stride=8) -> None:
        super().__init__()
        self.stride = stride
        self.head = nn.Conv2d(6, 2, 3, padding=1)

    def forward(self, x):
        padder = Padder(x.shape, self.stride)
        return padder.unfill(normalised(self.head(padder.fill(x))))


def build() -> nn.Module:
    return FlowNet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 6, 32, 48, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
