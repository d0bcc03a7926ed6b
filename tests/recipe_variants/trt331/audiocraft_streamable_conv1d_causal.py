"""AudioCraft's streamable convolution, causal: all the padding on the left, the extra pad under a length test.

Reduced from facebookresearch/audiocraft at commit 896ec7c47f5e5d1e5aa1e4b260c4405328bf009d,
audiocraft/modules/conv.py: ``get_extra_padding_for_conv1d`` (lines 47-53), ``pad1d`` (lines
71-88) and ``StreamableConv1d.forward`` (lines 185-201). The convolution's effective kernel is
worked out with its dilation, the total padding is the kernel less the stride, and a causal
convolution pads ``(padding_total, extra_padding)`` through ``pad1d`` in ``reflect`` mode (the
class's default): ``extra_pad = 0``, then, when ``length <= max_pad``, ``extra_pad = max_pad - length
+ 1`` and a right zero pad by it before the reflection, cut off after it. Written here in our own
words; ``pad1d``'s default mode here is ``constant`` as in AudioCraft, the normalization wrappers are
left out (plain ``nn.Conv1d``), and two causal convolutions, the second dilated, stand for the
encoder.
"""

import math
import typing as tp

import torch
import torch.nn.functional as F
from torch import nn


def get_extra_padding_for_conv1d(x: torch.Tensor, kernel_size: int, stride: int, padding_total: int = 0) -> int:
    length = x.shape[-1]
    n_frames = (length - kernel_size + padding_total) / stride + 1
    ideal_length = (math.ceil(n_frames) - 1) * stride + (kernel_size - padding_total)
    return ideal_length - length


def pad1d(x: torch.Tensor, paddings: tp.Tuple[int, int], mode: str = "constant", value: float = 0.0):
    length = x.shape[-1]
    padding_left, padding_right = paddings
    assert padding_left >= 0 and padding_right >= 0, (padding_left, padding_right)
    if mode == "reflect":
        max_pad = max(padding_left, padding_right)
        extra_pad = 0
        if length <= max_pad:
            extra_pad = max_pad - length + 1
            x = F.pad(x, (0, extra_pad))
        padded = F.pad(x, paddings, mode, value)
        end = padded.shape[-1] - extra_pad
        return padded[..., :end]
    else:
        return F.pad(x, paddings, mode, value)


class StreamableConv1d(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 dilation: int = 1, causal: bool = False, pad_mode: str = "reflect") -> None:
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride, dilation=dilation)
        self.causal = causal
        self.pad_mode = pad_mode

    def forward(self, x):
        B, C, T = x.shape
        kernel_size = self.conv.kernel_size[0]
        stride = self.conv.stride[0]
        dilation = self.conv.dilation[0]
        kernel_size = (kernel_size - 1) * dilation + 1
        padding_total = kernel_size - stride
        extra_padding = get_extra_padding_for_conv1d(x, kernel_size, stride, padding_total)
        if self.causal:
            x = pad1d(x, (padding_total, extra_padding), mode=self.pad_mode)
        else:
            padding_right = padding_total // 2
            padding_left = padding_total - padding_right
            x = pad1d(x, (padding_left, padding_right + extra_padding), mode=self.pad_mode)
        return self.conv(x)


class CausalEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = StreamableConv1d(2, 4, kernel_size=5, causal=True)
        self.dilated = StreamableConv1d(4, 4, kernel_size=3, dilation=2, causal=True)

    def forward(self, x):
        return self.dilated(torch.tanh(self.stem(x)))


def build() -> nn.Module:
    torch.manual_seed(0)
    return CausalEncoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 2, 32, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "length"}}
