"""A 4-D (space and time) Swin stage: SwiFT's fMRI transformer, four window axes.

Reduced from Transconnectome/SwiFT @ 0b07cb156d77a7de33078c8f6fe3ddffa7b5ae9c,
project/module/models/swin4d_transformer_ver7.py:110-134 (``get_window_size`` over four axes) and
:465-472 (``BasicLayer.forward``: ``b, c, d, h, w, t = x.size()``, ``tp = int(np.ceil(t /
window_size[3])) * window_size[3]``, then ``compute_mask([dp, hp, wp, tp], ...)``), written here in
our own words.
"""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


def get_window_size(x_size, window_size, shift_size=None):
    use_window_size = list(window_size)
    if shift_size is not None:
        use_shift_size = list(shift_size)
    for i in range(len(x_size)):
        if x_size[i] <= window_size[i]:
            use_window_size[i] = x_size[i]
            if shift_size is not None:
                use_shift_size[i] = 0

    if shift_size is None:
        return tuple(use_window_size)
    else:
        return tuple(use_window_size), tuple(use_shift_size)


class BasicLayer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.window_size = (2, 2, 3, 2)
        self.shift_size = (1, 1, 1, 1)

    def forward(self, x):
        b, c, d, h, w, t = x.size()
        window_size, shift_size = get_window_size((d, h, w, t), self.window_size, self.shift_size)
        dp = int(np.ceil(d / window_size[0])) * window_size[0]
        hp = int(np.ceil(h / window_size[1])) * window_size[1]
        wp = int(np.ceil(w / window_size[2])) * window_size[2]
        tp = int(np.ceil(t / window_size[3])) * window_size[3]
        x = F.pad(x, (0, tp - t, 0, wp - w, 0, hp - h, 0, dp - d))
        windows = x.reshape(b, c, dp // window_size[0], window_size[0], hp // window_size[1], window_size[1],
                            wp // window_size[2], window_size[2], tp // window_size[3], window_size[3])
        return windows.amax((3, 5, 7, 9)) + sum(shift_size)


def build() -> nn.Module:
    return BasicLayer()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 3, 4, 5, 3, generator=generator),)


DYNAMIC = {"x": {2: "d", 3: "h", 4: "w", 5: "t"}}
