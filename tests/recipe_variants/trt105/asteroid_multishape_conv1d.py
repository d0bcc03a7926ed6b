"""asteroid-filterbanks' encoder: a learned filterbank applied by ``multishape_conv1d``, which picks
the convolution by the waveform's rank and channel count, and is decorated with the library's own
copy of ``script_if_tracing`` (written for torch releases that had none: it scripts the function the
first time a trace calls it, and leaves eager mode alone). Scripted, the choice between the plain
convolution (rank 3 out) and the batched one (rank 4 out) becomes an ONNX ``If`` whose branches give
tensors of different ranks, which TensorRT refuses; traced as Python, it takes the branch of the
input's rank and its single channel, which every input of the model has.

Reduced from asteroid-filterbanks 0.4.0 (the PyPI wheel, github.com/asteroid-team/asteroid-filterbanks),
asteroid_filterbanks/scripting.py (``script_if_tracing``, lines 14-45), enc_dec.py
(``multishape_conv1d``, lines 187-225; ``batch_packed_1d_conv``, lines 228-233; ``Encoder.forward``,
lines 150-183), as DPRNN-TasNet calls it (zoo 60's ``asteroid_dprnn_separate``). Written here in our
own words: the filterbank is a plain learned weight, and the rank-1, rank-2 and rank-4+ arms keep
only their shape logic.
"""

import functools

import torch
import torch.nn.functional as F
from torch import nn


def script_if_tracing(fn):
    """Compile ``fn`` with TorchScript when a trace calls it; plain Python otherwise."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not torch._C._is_tracing():
            return fn(*args, **kwargs)
        return torch.jit.script(wrapper.__original_fn)(*args, **kwargs)

    wrapper.__original_fn = fn
    wrapper.__script_if_tracing_wrapper = True
    return wrapper


@script_if_tracing
def multishape_conv1d(waveform: torch.Tensor, filters: torch.Tensor, stride: int, padding: int = 0,
                      as_conv1d: bool = True) -> torch.Tensor:
    if waveform.ndim == 1:
        return F.conv1d(waveform[None, None], filters, stride=stride, padding=padding).squeeze()
    elif waveform.ndim == 2:
        return F.conv1d(waveform.unsqueeze(1), filters, stride=stride, padding=padding)
    elif waveform.ndim == 3:
        batch, channels, time_len = waveform.shape
        if channels == 1 and as_conv1d:
            return F.conv1d(waveform, filters, stride=stride, padding=padding)
        else:
            return batch_packed_1d_conv(waveform, filters, stride=stride, padding=padding)
    else:
        return batch_packed_1d_conv(waveform, filters, stride=stride, padding=padding)


def batch_packed_1d_conv(inp: torch.Tensor, filters: torch.Tensor, stride: int = 1, padding: int = 0):
    convolved = F.conv1d(inp.view(-1, 1, inp.shape[-1]), filters, stride=stride, padding=padding)
    return convolved.view(inp.shape[:-1] + convolved.shape[-2:])


class Encoder(nn.Module):
    def __init__(self, n_filters: int = 8, kernel_size: int = 4, stride: int = 2) -> None:
        super().__init__()
        self.filters = nn.Parameter(torch.randn(n_filters, 1, kernel_size) / kernel_size)
        self.stride = stride

    def forward(self, waveform):
        return torch.relu(multishape_conv1d(waveform, self.filters, stride=self.stride, padding=0, as_conv1d=True))


def build() -> nn.Module:
    return Encoder()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 20, generator=generator),)


DYNAMIC = {"waveform": {0: "batch", 2: "time"}}
