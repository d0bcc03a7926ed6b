"""A window that shrinks to a small input, then ``int(np.ceil(D / window_size[0])) * window_size[0]``.

Reduced from SwinTransformer/Video-Swin-Transformer @ db018fb8896251711791386bbd2127562fd8d6a6,
mmaction/models/backbones/swin_transformer.py:71-85 (``get_window_size``: where an axis is not
larger than the window, the window is the axis and the shift 0) and :398-405 (``BasicLayer.forward``:
``Dp = int(np.ceil(D / window_size[0])) * window_size[0]``..., then ``compute_mask(Dp, Hp, Wp,
window_size, shift_size, x.device)``, :173-186), written here in our own words.
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
    return tuple(use_window_size), tuple(use_shift_size)


def compute_mask(D, H, W, window_size, shift_size, device):
    img_mask = torch.zeros((1, D, H, W, 1), device=device)
    cnt = 0
    for d in slice(-window_size[0]), slice(-window_size[0], -shift_size[0]), slice(-shift_size[0], None):
        for h in slice(-window_size[1]), slice(-window_size[1], -shift_size[1]), slice(-shift_size[1], None):
            for w in slice(-window_size[2]), slice(-window_size[2], -shift_size[2]), slice(-shift_size[2], None):
                img_mask[:, d, h, w, :] = cnt
                cnt += 1
    return img_mask


class BasicLayer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.window_size = (2, 3, 3)
        self.shift_size = (1, 1, 1)

    def forward(self, x):
        B, C, D, H, W = x.shape
        window_size, shift_size = get_window_size((D, H, W), self.window_size, self.shift_size)
        Dp = int(np.ceil(D / window_size[0])) * window_size[0]
        Hp = int(np.ceil(H / window_size[1])) * window_size[1]
        Wp = int(np.ceil(W / window_size[2])) * window_size[2]
        mask = compute_mask(Dp, Hp, Wp, window_size, shift_size, x.device)
        x = F.pad(x, (0, Wp - W, 0, Hp - H, 0, Dp - D))
        windows = x.view(B, C, Dp // window_size[0], window_size[0], Hp // window_size[1], window_size[1],
                         Wp // window_size[2], window_size[2])
        return windows.mean((3, 5, 7)) + mask[..., 0].reshape(1, 1, Dp, Hp, Wp)[:, :, ::window_size[0],
                                                                               ::window_size[1], ::window_size[2]]


def build() -> nn.Module:
    return BasicLayer()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 4, 7, 5, generator=generator),)


DYNAMIC = {"x": {2: "d", 3: "h", 4: "w"}}
