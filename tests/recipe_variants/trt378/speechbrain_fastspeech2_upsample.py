"""speechbrain's FastSpeech 2 length regulator: each utterance's token features repeated by its durations, padded.

Reduced from speechbrain 1.1.2, ``speechbrain/lobes/models/FastSpeech2.py``: ``upsample(feats, durs, pace=1.0,
padding_value=0.0)`` (lines 826-857) builds one ``torch.repeat_interleave(feats[i], (pace * durs[i]).long(), dim=0)``
per utterance in a comprehension over ``range(len(durs))`` (lines 847-850), takes ``mel.shape[0]`` of each (line
852) and returns ``torch.nn.utils.rnn.pad_sequence(upsampled_mels, batch_first=True, padding_value=padding_value)``
(lines 854-856) with the lengths. Kept: the comprehension, the per-item ``repeat_interleave`` by a tensor of
durations, the ``pad_sequence`` with keywords. Reduced: one utterance in the example (the comprehension unrolls with
the example's batch, which is declared static here), the lengths not returned, a projection in front and the
durations rounded from a float input as the model's duration predictor does. The TorchScript exporter stops at
``aten::pad_sequence`` (no symbolic) and writes the ``repeat_interleave`` with ONNX sequence operators. Written here
in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {1: "tokens"}, "durations": {1: "tokens"}}


def upsample(feats, durs, pace=1.0, padding_value=0.0):
    upsampled_mels = [
        torch.repeat_interleave(feats[i], (pace * durs[i]).long(), dim=0)
        for i in range(len(durs))
    ]
    padded_upsampled_mels = torch.nn.utils.rnn.pad_sequence(
        upsampled_mels, batch_first=True, padding_value=padding_value
    )
    return padded_upsampled_mels


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 6)

    def forward(self, x, durations):
        return upsample(self.proj(x), torch.clamp(torch.round(durations), min=0), pace=1.0, padding_value=-1.0)


def build():
    torch.manual_seed(0)
    return Model().eval()


def inputs(generator=None):
    x = torch.randn(1, 5, 4, generator=generator)
    return x, torch.tensor([[2.2, 0.1, 1.0, 3.4, 0.9]])
