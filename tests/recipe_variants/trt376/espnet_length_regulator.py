"""ESPnet's FastSpeech length regulator: each phoneme's features repeated by its duration, then padded.

Reduced from espnet/espnet@2a50157a, espnet/nets/pytorch_backend/fastspeech/length_regulator.py: ``forward``
(lines 47-73) rounds the durations scaled by ``alpha`` (line 61), sets a duration of 1 where a whole row is 0 (line
71) and returns ``pad_list([self.repeat_fn(x, d) for x, d in zip(xs, ds)], self.pad_value)`` (line 73), where
``_repeat_one_sequence`` is ``torch.repeat_interleave(x, d, dim=0)`` (line 77) and ``pad_list``
(espnet/nets/pytorch_backend/nets_utils.py) fills a ``(batch, max_len, ...)`` tensor with ``pad_value`` and copies
each item in. Kept: the per-item ``repeat_interleave`` by a tensor of durations in a helper method, the padding.
Reduced: one item (a batch the trace unrolls), no logging, no all-zero fix-up (an in-place write on a Python
decision), a projection in front so that the durations are predicted from the input. The TorchScript exporter
writes the ``repeat_interleave`` with ONNX sequence operators. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {1: "tokens"}, "durations": {1: "tokens"}}


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
        self.repeat_fn = self._repeat_one_sequence

    def forward(self, xs, ds, alpha=1.0):
        if alpha != 1.0:
            ds = torch.round(ds.float() * alpha).long()
        return pad_list([self.repeat_fn(x, d) for x, d in zip(xs, ds)], self.pad_value)

    def _repeat_one_sequence(self, x, d):
        return torch.repeat_interleave(x, d, dim=0)


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 6)
        self.regulator = LengthRegulator()

    def forward(self, x, durations):
        return self.regulator(self.proj(x), durations, alpha=1.5)


def build():
    torch.manual_seed(0)
    return Model().eval()


def inputs(generator=None):
    x = torch.randn(1, 5, 4, generator=generator)
    return x, torch.tensor([[2, 0, 1, 3, 1]])
