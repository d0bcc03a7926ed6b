"""The block half of Video Swin: pad to whole windows of the shrunk window, crop after, as BEVT has it.

Reduced from xyzforever/BEVT @ c4dbebfd82b0628f3669480df37cd3aa1c237669,
mmaction/models/backbones/swin_transformer.py:100-112 (``get_window_size``) and
``SwinTransformerBlock3D.forward_part1`` (:278-322: ``pad_d1 = (window_size[0] - D % window_size[0]) %
window_size[0]``..., ``F.pad``, the window partition with the returned window, and ``if pad_d1 > 0 or
pad_r > 0 or pad_b > 0: x = x[:, :D, :H, :W, :].contiguous()``), written here in our own words.
The window size reaches only traced arithmetic and views here: no NumPy.
"""

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


class SwinTransformerBlock3D(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.window_size = (2, 3, 3)
        self.shift_size = (0, 0, 0)

    def forward(self, x):
        B, D, H, W, C = x.shape
        window_size, shift_size = get_window_size((D, H, W), self.window_size, self.shift_size)
        pad_l = pad_t = pad_d0 = 0
        pad_d1 = (window_size[0] - D % window_size[0]) % window_size[0]
        pad_b = (window_size[1] - H % window_size[1]) % window_size[1]
        pad_r = (window_size[2] - W % window_size[2]) % window_size[2]
        x = F.pad(x, (0, 0, pad_l, pad_r, pad_t, pad_b, pad_d0, pad_d1))
        _, Dp, Hp, Wp, _ = x.shape
        windows = x.view(B, Dp // window_size[0], window_size[0], Hp // window_size[1], window_size[1],
                         Wp // window_size[2], window_size[2], C)
        # every token gets its window's mean: the result depends on where the windows are
        x = windows.mean((2, 4, 6), keepdim=True).expand_as(windows).reshape(B, Dp, Hp, Wp, C)
        if pad_d1 > 0 or pad_r > 0 or pad_b > 0:
            x = x[:, :D, :H, :W, :].contiguous()
        return x


def build() -> nn.Module:
    return SwinTransformerBlock3D()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 4, 5, 7, 2, generator=generator),)


DYNAMIC = {"x": {1: "d", 2: "h", 3: "w"}}
