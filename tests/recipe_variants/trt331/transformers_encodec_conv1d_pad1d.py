"""transformers' EnCodec convolution: sizes held as 0-d buffers, the extra pad under a test that reads them.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/encodec/modeling_encodec.py:
``EncodecConv1d.__init__`` (lines 85-124), ``EncodecConv1d._get_extra_padding_for_conv1d`` (lines
126-136), ``EncodecConv1d._pad1d`` (lines 138-155) and ``EncodecConv1d.forward`` (lines 157-176).
The stride, the effective kernel size and the total padding are kept as non-persistent 0-d int64
buffers; the extra right padding is computed with ``torch.ceil`` on a tensor; ``_pad1d`` is a
``staticmethod`` that returns early unless the mode is ``reflect``, binds ``extra_pad = 0`` and, when
``length <= max_pad`` (a comparison with a tensor, since the paddings come from the buffers), sets
``extra_pad = max_pad - length + 1`` and zero-pads by it with ``nn.functional.pad`` before the
reflection, then cuts it off. Written here in our own words; the configuration object is replaced
by arguments, weight normalization is left out, and a stem and a stride-2 convolution stand for
the encoder.
"""

import torch
from torch import nn


class EncodecConv1d(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 dilation: int = 1, causal: bool = False, pad_mode: str = "reflect") -> None:
        super().__init__()
        self.causal = causal
        self.pad_mode = pad_mode
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride, dilation=dilation)
        kernel_size = self.conv.kernel_size[0]
        stride = torch.tensor(self.conv.stride[0], dtype=torch.int64)
        dilation = self.conv.dilation[0]
        kernel_size = torch.tensor((kernel_size - 1) * dilation + 1, dtype=torch.int64)
        self.register_buffer("stride", stride, persistent=False)
        self.register_buffer("kernel_size", kernel_size, persistent=False)
        self.register_buffer("padding_total", kernel_size - stride, persistent=False)

    def _get_extra_padding_for_conv1d(self, hidden_states):
        length = hidden_states.shape[-1]
        n_frames = (length - self.kernel_size + self.padding_total) / self.stride + 1
        n_frames = torch.ceil(n_frames).to(torch.int64) - 1
        ideal_length = n_frames * self.stride + self.kernel_size - self.padding_total
        return ideal_length - length

    @staticmethod
    def _pad1d(hidden_states, paddings, mode: str = "zero", value: float = 0.0):
        length = hidden_states.shape[-1]
        padding_left, padding_right = paddings
        if mode != "reflect":
            return nn.functional.pad(hidden_states, paddings, mode, value)
        max_pad = max(padding_left, padding_right)
        extra_pad = 0
        if length <= max_pad:
            extra_pad = max_pad - length + 1
            hidden_states = nn.functional.pad(hidden_states, (0, extra_pad))
        padded = nn.functional.pad(hidden_states, paddings, mode, value)
        end = padded.shape[-1] - extra_pad
        return padded[..., :end]

    def forward(self, hidden_states):
        extra_padding = self._get_extra_padding_for_conv1d(hidden_states)
        if self.causal:
            hidden_states = self._pad1d(hidden_states, (self.padding_total, extra_padding), mode=self.pad_mode)
        else:
            padding_right = self.padding_total // 2
            padding_left = self.padding_total - padding_right
            hidden_states = self._pad1d(hidden_states, (padding_left, padding_right + extra_padding),
                                        mode=self.pad_mode)
        return self.conv(hidden_states)


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = EncodecConv1d(1, 4, kernel_size=7)
        self.down = EncodecConv1d(4, 6, kernel_size=4, stride=2)

    def forward(self, input_values):
        return self.down(nn.functional.elu(self.stem(input_values)))


def build() -> nn.Module:
    torch.manual_seed(0)
    return Encoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 40, generator=generator),)


DYNAMIC = {"input_values": {0: "batch", 2: "length"}}
