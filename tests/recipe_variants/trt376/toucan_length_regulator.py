"""IMS-Toucan's length regulator, fed by a duration predictor's rounded output (as at inference).

Reduced from DigitalPhonetics/IMS-Toucan@18a36bd2, Layers/LengthRegulator.py: ``forward`` (line 36) returns
``pad_list([self._repeat_one_sequence(x, d) for x, d in zip(xs, ds)], self.pad_value)`` (line 51), and
``_repeat_one_sequence`` is ``torch.repeat_interleave(x, d, dim=0)`` (line 57); Toucan's inference passes the
durations its ``DurationPredictor`` (Layers/DurationPredictor.py) gives, ``torch.clamp(torch.round(xs.exp() - 1),
min=0).long()``, so some durations are 0. Kept: the rounded, clamped, exponentiated prediction, the per-item
``repeat_interleave``, the padding. Reduced: one item, a linear predictor in place of the convolution stack, no
all-zero fix-up. The TorchScript exporter writes the ``repeat_interleave`` with ONNX sequence operators. Written
here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {1: "tokens"}}


def pad_list(xs, pad_value):
    n_batch = len(xs)
    max_len = max(x.size(0) for x in xs)
    pad = xs[0].new_full((n_batch, max_len) + tuple(xs[0].shape[1:]), pad_value)
    for i in range(n_batch):
        pad[i, : xs[i].size(0)] = xs[i]
    return pad


class LengthRegulator(nn.Module):
    def __init__(self, pad_value=0.0):
        super().__init__()
        self.pad_value = pad_value

    def forward(self, xs, ds, alpha=1.0):
        return pad_list([self._repeat_one_sequence(x, d) for x, d in zip(xs, ds)], self.pad_value)

    def _repeat_one_sequence(self, x, d):
        return torch.repeat_interleave(x, d, dim=0)


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.predictor = nn.Linear(3, 1)
        self.regulator = LengthRegulator()

    def forward(self, x):
        log_durations = self.predictor(x).squeeze(-1)
        durations = torch.clamp(torch.round(log_durations.exp() - 1), min=0).long()
        return self.regulator(x, durations)


def build():
    torch.manual_seed(0)
    model = Model().eval()
    with torch.no_grad():
        model.predictor.weight.copy_(torch.tensor([[0.9, -0.4, 0.6]]))
        model.predictor.bias.fill_(0.7)
    return model


def inputs(generator=None):
    return (torch.randn(1, 6, 3, generator=generator),)
