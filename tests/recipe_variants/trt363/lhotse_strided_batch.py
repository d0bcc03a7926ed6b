"""lhotse's batched Kaldi framing: a batch of waveforms, reflected at both ends, viewed as frames of
``window_length`` samples every ``window_shift`` by hand-built sizes and strides.

Reduced from lhotse-speech/lhotse @ a79cc864e4275f6342bb94261313526a14d385fb,
lhotse/features/kaldi/layers.py:727-772 (``_get_strided_batch``: ``num_frames = (num_samples +
(window_shift // 2)) // window_shift`` without ``snip_edges``, the flipped edges joined with
``torch.cat``, ``strides = (waveform.stride(0), window_shift * waveform.stride(1),
waveform.stride(1))``, ``sizes = [batch_size, num_frames, window_length]``,
``waveform.as_strided(sizes, strides)``), as ``Wav2Win.forward`` calls it. Written here in our own
words with a short window, and a Hann window and the frame energies as the model's output. The
batch's stride is the padded length, which the TorchScript export takes as the example's number.
"""

import torch
from torch import nn


def strided_batch(waveform: torch.Tensor, window_length: int, window_shift: int) -> torch.Tensor:
    batch_size = waveform.size(0)
    num_samples = waveform.size(-1)
    num_frames = (num_samples + (window_shift // 2)) // window_shift
    new_num_samples = (num_frames - 1) * window_shift + window_length
    npad = new_num_samples - num_samples
    npad_left = int((window_length - window_shift) // 2)
    npad_right = npad - npad_left
    pad_left = torch.flip(waveform[:, :npad_left], (1,))
    pad_right = torch.flip(waveform[:, -npad_right:], (1,))
    waveform = torch.cat((pad_left, waveform, pad_right), dim=1)
    strides = (waveform.stride(0), window_shift * waveform.stride(1), waveform.stride(1))
    sizes = [batch_size, num_frames, window_length]
    return waveform.as_strided(sizes, strides)


class Wav2Win(nn.Module):
    def __init__(self, window_length: int = 8, window_shift: int = 4) -> None:
        super().__init__()
        self.window_length = window_length
        self.window_shift = window_shift
        self.register_buffer("window", torch.hann_window(window_length, periodic=False))

    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        frames = strided_batch(wave, self.window_length, self.window_shift)
        frames = frames - frames.mean(-1, keepdim=True)
        return (frames * self.window).pow(2).sum(-1)


def build() -> nn.Module:
    return Wav2Win()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 37, generator=generator),)


DYNAMIC = {"wave": {0: "batch", 1: "samples"}}
