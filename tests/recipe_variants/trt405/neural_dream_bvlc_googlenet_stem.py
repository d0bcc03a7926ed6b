"""neural-dream's BVLC GoogLeNet (a Caffe model converted by MMdnn): the stem's two LRN calls.

Reduced from ProGamerGov/neural-dream at commit bd66447fefa5a05c7ee9861e16813602f9521892,
neural_dream/models/googlenet/bvlc_googlenet.py, ``BVLC_GOOGLENET.forward`` (lines 162-182 for
the stem): every step is a local name, the padding for Caffe's pooling is written with ``F.pad``
(``-inf`` for max pooling), and the two normalisations are
``F.local_response_norm(<name>, size=5, alpha=9.999999747378752e-05, beta=0.75, k=1.0)``
(lines 168 and 174), one after the first pooling, one after the 3x3 convolution. Written here in
our own words with narrow convolutions (8 and 12 channels instead of 64 and 192) and the
inception blocks after the stem left out; the pooling layers are called as functions.
"""

import torch
import torch.nn.functional as F
from torch import nn


class GoogLeNetStem(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1_7x7_s2 = nn.Conv2d(3, 8, kernel_size=(7, 7), stride=(2, 2))
        self.conv2_3x3_reduce = nn.Conv2d(8, 8, kernel_size=(1, 1))
        self.conv2_3x3 = nn.Conv2d(8, 12, kernel_size=(3, 3))

    def forward(self, x):
        conv1_pad = F.pad(x, (3, 3, 3, 3))
        conv1 = F.relu(self.conv1_7x7_s2(conv1_pad))
        pool1_pad = F.pad(conv1, (0, 1, 0, 1), value=float("-inf"))
        pool1 = F.max_pool2d(pool1_pad, kernel_size=(3, 3), stride=(2, 2), padding=0, ceil_mode=False)
        pool1_norm1 = F.local_response_norm(pool1, size=5, alpha=9.999999747378752e-05, beta=0.75, k=1.0)
        reduce = F.relu(self.conv2_3x3_reduce(pool1_norm1))
        conv2_pad = F.pad(reduce, (1, 1, 1, 1))
        conv2 = F.relu(self.conv2_3x3(conv2_pad))
        conv2_norm2 = F.local_response_norm(conv2, size=5, alpha=9.999999747378752e-05, beta=0.75, k=1.0)
        pool2_pad = F.pad(conv2_norm2, (0, 1, 0, 1), value=float("-inf"))
        return F.max_pool2d(pool2_pad, kernel_size=(3, 3), stride=(2, 2), padding=0, ceil_mode=False)


def build() -> nn.Module:
    return GoogLeNetStem().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 24, 20, generator=generator) * 40,)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
