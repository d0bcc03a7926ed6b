"""as-ideas' ForwardTacotron length regulator: each utterance's encoder states repeated by rounded durations in a
loop over the batch, padded with the imported ``pad_sequence`` (keywords in the order ``padding_value``,
``batch_first``).

Reduced from as-ideas/WaveRNN @ 71e3a4f557b8cd1abaaccea5e9e3956bc5ab774f, models/common_layers.py (the same class
is in forks of as-ideas' ForwardTacotron, e.g. rmcpantoja/ForwardTacotron @ f7b8716e4c63e35859469b530cf38132af02c82d,
models/common_layers.py): ``from torch.nn.utils.rnn import pad_sequence`` (line 4); ``LengthRegulator.forward(self,
x, dur)`` (lines 12-19) clamps the durations in place with ``dur[dur < 0] = 0.`` (line 13), loops ``for i in
range(x.size(0))`` appending ``torch.repeat_interleave(x[i], (dur[i] + 0.5).long(), dim=0)`` (lines 15-17) and
returns ``pad_sequence(x_expanded, padding_value=0., batch_first=True)`` (line 18). At inference the model feeds it
the duration predictor's output divided by ``alpha`` and squeezed (``generate_jit`` of models/forward_tacotron.py,
rmcpantoja/ForwardTacotron @ 7a0dd9e245f50da04ebeb1359fbe776877555812). Kept: the imported name with both keywords in
that order, the in-place clamp of negative durations, the rounding by ``+ 0.5`` and ``.long()`` (so an item can be
empty), the loop over the batch. Reduced: a linear duration predictor (ForwardTacotron's is an embedding, three
convolutions and a GRU), no pitch or energy, no silent-text fallback, one linear layer after; the batch of the
example is 2 and static (the loop unrolls with it), the tokens dynamic. The TorchScript exporter stops at
``aten::pad_sequence``. Written here in our own words.
"""

import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence

DYNAMIC = {"x": {1: "tokens"}}
CALL = "x_expanded = pad_sequence(x_expanded, padding_value=0., batch_first=True)"


class LengthRegulator(nn.Module):
    def forward(self, x: torch.Tensor, dur: torch.Tensor) -> torch.Tensor:
        dur[dur < 0] = 0.
        x_expanded = []
        for i in range(x.size(0)):
            x_exp = torch.repeat_interleave(x[i], (dur[i] + 0.5).long(), dim=0)
            x_expanded.append(x_exp)
        x_expanded = pad_sequence(x_expanded, padding_value=0., batch_first=True)
        return x_expanded


class Model(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.duration_predictor = nn.Linear(channels, 1)
        self.lr = LengthRegulator()
        self.lin = nn.Linear(channels, 3)

    def generate(self, x, alpha: float = 1.0):
        dur = self.duration_predictor(x) / alpha
        dur = dur.squeeze(2)
        return self.lin(self.lr(x, dur))

    def forward(self, x):
        return self.generate(x, alpha=1.0)


def build():
    torch.manual_seed(0)
    model = Model().eval()
    with torch.no_grad():
        model.duration_predictor.weight.copy_(torch.tensor([[0.9, -0.6, 0.5, 0.4]]))
        model.duration_predictor.bias.fill_(1.1)
    return model


def inputs(generator=None, batch=2, tokens=5):
    return (torch.randn(batch, tokens, 4, generator=generator),)
