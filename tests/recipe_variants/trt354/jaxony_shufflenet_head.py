"""ShuffleNet's last stage and head: a grouped unit with a channel shuffle, pooled over the whole map.

Reduced from jaxony/ShuffleNet at e9bf42f0cda8dda518cafffd515654cc04584e7a, model.py: ``channel_shuffle``
(lines 36-53) unpacks ``x.data.size()`` and regroups the channels with ``view``/``transpose``/``view``;
``ShuffleNet.forward`` (lines 278-293) pools with a window as large as the map read through ``.data``,
``F.avg_pool2d(x, x.data.size()[-2:])`` (line 287: a slice of the sizes, as the pooling window), then
flattens with ``x.view(x.size(0), -1)`` into the classifier. The unit here is one grouped pointwise
convolution, the shuffle and a depthwise convolution with a residual sum (``ShuffleUnit``, lines 56-163,
in short). Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def channel_shuffle(x, groups):
    n, channels, h, w = x.data.size()
    channels_per_group = channels // groups
    # groups apart, then interleaved: the transposed view needs contiguous() before the last view
    grouped = x.view(n, groups, channels_per_group, h, w)
    shuffled = torch.transpose(grouped, 1, 2).contiguous()
    return shuffled.view(n, -1, h, w)


class ShuffleHead(nn.Module):
    def __init__(self, channels: int = 6, groups: int = 3, classes: int = 5) -> None:
        super().__init__()
        self.groups = groups
        self.compress = nn.Conv2d(channels, channels, 1, groups=groups)
        self.depthwise = nn.Conv2d(channels, channels, 3, padding=1, groups=channels)
        self.fc = nn.Linear(channels, classes)

    def forward(self, x):
        out = F.relu(self.compress(x))
        out = channel_shuffle(out, self.groups)
        out = F.relu(x + self.depthwise(out))
        out = F.avg_pool2d(out, out.data.size()[-2:])
        out = out.view(out.size(0), -1)
        return F.log_softmax(self.fc(out), dim=1)


def build() -> nn.Module:
    return ShuffleHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, 7, 9, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
