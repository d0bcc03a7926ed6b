"""A 2-D Swin stage whose window is the feature map where the map is smaller: monai's SwinUNETR.

Reduced from Project-MONAI/MONAI 1.6.1 (the wheel on PyPI), monai/networks/nets/swin_unetr.py:476-499
(``get_window_size``: ``if x_size[i] <= window_size[i]: use_window_size[i] = x_size[i]`` and the
shift 0, under ``if shift_size is not None``) and :1054-1060 (``BasicLayer.forward``, its 2-D branch:
``x_shape = x.size()``, ``hp = int(np.ceil(h / window_size[0])) * window_size[0]``, then
``compute_mask([hp, wp], window_size, shift_size, x.device)``, :903-909), written here in our own words.
"""

import numpy as np
import torch
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


def compute_mask(dims, window_size, shift_size, device):
    cnt = 0
    h, w = dims
    img_mask = torch.zeros((1, h, w, 1), device=device)
    for h in slice(-window_size[0]), slice(-window_size[0], -shift_size[0]), slice(-shift_size[0], None):
        for w in slice(-window_size[1]), slice(-window_size[1], -shift_size[1]), slice(-shift_size[1], None):
            img_mask[:, h, w, :] = cnt
            cnt += 1
    return img_mask


class BasicLayer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.window_size = (4, 4)
        self.shift_size = (2, 2)

    def forward(self, x):
        x_shape = x.size()
        if len(x_shape) == 4:
            b, c, h, w = x_shape
            window_size, shift_size = get_window_size((h, w), self.window_size, self.shift_size)
            x = x.permute(0, 2, 3, 1)
            hp = int(np.ceil(h / window_size[0])) * window_size[0]
            wp = int(np.ceil(w / window_size[1])) * window_size[1]
            attn_mask = compute_mask([hp, wp], window_size, shift_size, x.device)
            x = x + attn_mask[:, :h, :w, :]
            x = x.permute(0, 3, 1, 2)
        return x


def build() -> nn.Module:
    return BasicLayer()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 9, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
