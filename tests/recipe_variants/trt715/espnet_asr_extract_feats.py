"""ESPnet's ASR model trims the padded batch to its longest utterance before the frontend: the
time axis (axis 1) sliced by ``speech_lengths.max()``, a reduction over the lengths tensor.

Reduced from espnet/espnet at commit 00cd149e6587c8db44435ce872b6f590abf5bd2c,
espnet2/asr/espnet_model.py, ``ESPnetASRModel._extract_feats`` (after ``# for data-parallel``:
``speech = speech[:, : speech_lengths.max()]``, then the frontend on ``speech`` and
``speech_lengths``; ``forward`` trims ``text`` the same way). Written here in our own words:
a framing ``Conv1d`` stands in for the STFT frontend, and the lengths are returned folded into
the output so that the model has one output.
"""

import torch
from torch import nn


class ExtractFeats(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.frontend = nn.Conv1d(1, 3, kernel_size=4, stride=2)

    def forward(self, speech: torch.Tensor, speech_lengths: torch.Tensor) -> torch.Tensor:
        speech = speech[:, : speech_lengths.max()]
        feats = self.frontend(speech.unsqueeze(1))
        return feats.transpose(1, 2)


def build() -> nn.Module:
    return ExtractFeats()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(3, 20, generator=generator), torch.tensor([12, 17, 9])


DYNAMIC = {"speech": {0: "batch", 1: "samples"}, "speech_lengths": {0: "batch"}}
