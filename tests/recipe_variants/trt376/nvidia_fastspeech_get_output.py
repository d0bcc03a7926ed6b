"""NVIDIA's FastSpeech (DeepLearningExamples): each item's features repeated by its rounded, paced durations.

Reduced from NVIDIA/DeepLearningExamples @ 729963dd47e7c8bd462ad10bfac7a7b0b604e6dd,
CUDA-Optimized/FastSpeech/fastspeech/model/module.py: ``LengthRegulator.get_output`` (lines 426-443) loops over
``range(input.size(0))``, computes ``repeats = duration[i].float() * alpha`` then ``repeats =
torch.round(repeats).long()`` (lines 430-432) and appends ``torch.repeat_interleave(input[i], repeats, dim=0)``
(line 434); the list is padded by ``pad_sequence(output, batch_first=True)`` (line 438). At inference the durations
are ``torch.clamp_min(torch.exp(duration) - 1, 0)`` of the predictor's output (line 420), so counts of 0 occur.
Kept: the loop with ``append``, the count a local name rebound to a ``.long()`` cast, the receiver an indexed item,
the padding. Reduced: a linear duration predictor, no positions list, a pace ``alpha`` of 0.8; the example's batch
of 2 is static (the loop unrolls with it), the tokens dynamic. The TorchScript exporter writes the
``repeat_interleave`` with ONNX sequence operators (and stops at the ``pad_sequence``, TRT378). Written here in our
own words.
"""

import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence

DYNAMIC = {"x": {1: "tokens"}}
CALL = "output.append(torch.repeat_interleave(input[i], repeats, dim=0))"


class LengthRegulator(nn.Module):
    def __init__(self, channels: int = 3) -> None:
        super().__init__()
        self.duration_predictor = nn.Linear(channels, 1)

    def forward(self, input, alpha=1.0):
        duration = torch.clamp_min(torch.exp(self.duration_predictor(input).squeeze(-1)) - 1, 0)
        return self.get_output(input, duration, alpha)

    def get_output(self, input, duration, alpha):
        output = list()
        for i in range(input.size(0)):
            repeats = duration[i].float() * alpha
            repeats = torch.round(repeats).long()
            output.append(torch.repeat_interleave(input[i], repeats, dim=0))
        output = pad_sequence(output, batch_first=True)
        return output


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.regulator = LengthRegulator()

    def forward(self, x):
        return self.regulator(x, alpha=0.8)


def build():
    torch.manual_seed(0)
    model = Model().eval()
    with torch.no_grad():
        model.regulator.duration_predictor.weight.copy_(torch.tensor([[1.1, -0.6, 0.5]]))
        model.regulator.duration_predictor.bias.fill_(0.9)
    return model


def inputs(generator=None, batch=2, tokens=6):
    return (torch.randn(batch, tokens, 3, generator=generator),)
