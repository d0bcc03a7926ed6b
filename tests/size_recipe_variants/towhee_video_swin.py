"""Video Swin as Zilliz rewrote it: the window helper in its own module, a call split over lines.

Reduced from towhee-io/towhee @ fe856301680713032e9613cf2500932f0ae3ad13,
towhee/models/utils/get_window_size.py:29-41 and
towhee/models/video_swin_transformer/video_swin_transformer_block.py:96-102 (``window_size, shift_size
= \\`` on one line, ``get_window_size((d, h, w), ...)`` on the next; ``dp = int(np.ceil(d /
window_size[0])) * window_size[0]``...; ``compute_mask(dp, hp, wp, window_size, shift_size, x.device)``,
towhee/models/video_swin_transformer/compute_mask.py), written here in our own words.
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


def compute_mask(d, h, w, window_size, shift_size, device):
    img_mask = torch.zeros((1, d, h, w, 1), device=device)
    cnt = 0
    for dd in slice(-window_size[0]), slice(-window_size[0], -shift_size[0]), slice(-shift_size[0], None):
        for hh in slice(-window_size[1]), slice(-window_size[1], -shift_size[1]), slice(-shift_size[1], None):
            for ww in slice(-window_size[2]), slice(-window_size[2], -shift_size[2]), slice(-shift_size[2], None):
                img_mask[:, dd, hh, ww, :] = cnt
                cnt += 1
    windows = img_mask.view(1, d // window_size[0], window_size[0], h // window_size[1], window_size[1],
                            w // window_size[2], window_size[2])
    return windows.permute(0, 1, 3, 5, 2, 4, 6).reshape(-1, window_size[0] * window_size[1] * window_size[2])


class VideoSwinTransformerBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.window_size = (1, 3, 3)
        self.shift_size = tuple(i // 2 for i in self.window_size)

    def forward(self, x):
        b, c, d, h, w = x.shape
        window_size, shift_size = \
            get_window_size((d, h, w), self.window_size, self.shift_size)  # pylint: disable=unbalanced-tuple-unpacking
        dp = int(np.ceil(d / window_size[0])) * window_size[0]
        hp = int(np.ceil(h / window_size[1])) * window_size[1]
        wp = int(np.ceil(w / window_size[2])) * window_size[2]
        attn_mask = compute_mask(dp, hp, wp, window_size, shift_size, x.device)
        return x.mean((2, 3, 4))[:, :, None] + attn_mask.sum(0)


def build() -> nn.Module:
    return VideoSwinTransformerBlock()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 2, 5, 7, generator=generator),)


DYNAMIC = {"x": {2: "d", 3: "h", 4: "w"}}
