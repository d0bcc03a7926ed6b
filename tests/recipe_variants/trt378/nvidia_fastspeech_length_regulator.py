"""NVIDIA's FastSpeech (DeepLearningExamples): the length regulator's loop of repeated items, padded batch-first.

Reduced from NVIDIA/DeepLearningExamples @ 729963dd47e7c8bd462ad10bfac7a7b0b604e6dd,
CUDA-Optimized/FastSpeech/fastspeech/model/module.py: at inference ``LengthRegulator.forward`` (line 411) turns the
predicted log-durations into frame counts with ``torch.clamp_min(torch.exp(duration) - 1, 0)`` (line 420), and
``get_output`` (lines 426-443) loops over ``range(input.size(0))``, rounds ``duration[i].float() * alpha`` to
``.long()`` (lines 430-432), appends ``torch.repeat_interleave(input[i], repeats, dim=0)`` (line 434) to a list and
pads it with ``pad_sequence(output, batch_first=True)`` (line 438; ``from torch.nn.utils.rnn import pad_sequence``,
line 30). Kept: the imported name called with ``batch_first`` by keyword and the default padding value, the list
built by ``append`` in a loop over the batch, the rounded per-item counts (some 0, so an item can be empty), the
clamped exponential. Reduced: a linear duration predictor (NVIDIA's is two convolutions), no positions list (NumPy,
``np.indices``), no NVTX ranges; the batch of the example is 2 and static (the loop unrolls with it), the tokens
dynamic. The TorchScript exporter stops at ``aten::pad_sequence``. Written here in our own words.
"""

import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence

DYNAMIC = {"x": {1: "tokens"}}
CALL = "output = pad_sequence(output, batch_first=True)"


class LengthRegulator(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.duration_predictor = nn.Linear(channels, 1)

    def forward(self, input, alpha=1.0):
        duration = self.duration_predictor(input).squeeze(-1)
        duration = torch.clamp_min(torch.exp(duration) - 1, 0)
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
        return self.regulator(x, alpha=1.2)


def build():
    torch.manual_seed(0)
    model = Model().eval()
    with torch.no_grad():
        model.regulator.duration_predictor.weight.copy_(torch.tensor([[0.8, -0.5, 0.4, 0.3]]))
        model.regulator.duration_predictor.bias.fill_(0.6)
    return model


def inputs(generator=None, batch=2, tokens=5):
    return (torch.randn(batch, tokens, 4, generator=generator),)
