"""ESPnet's FastSpeech 2 trims every padded training target to its batch's longest one: the token
ids (integers) and the pitch (a trailing feature axis) on axis 1, each by its own lengths'
``.max()``.

Reduced from espnet/espnet at commit 02a2b3126d6deab066567ab64ba2a9f56504e9a5,
espnet2/tts/fastspeech2/fastspeech2.py, ``FastSpeech2.forward`` (the ``# for data-parallel``
lines: ``text = text[:, : text_lengths.max()]``, the same for ``feats``, ``durations``,
``pitch`` of shape (B, T_text + 1, 1) and ``energy``). Written here in our own words with the
text and the pitch only: an embedding of the token ids plus a projection of the pitch stands in
for the encoder and variance adaptor.
"""

import torch
from torch import nn


class FastSpeech2Targets(nn.Module):
    def __init__(self, vocab: int = 10, adim: int = 3) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, adim)
        self.pitch_embed = nn.Linear(1, adim)

    def forward(self, text: torch.Tensor, text_lengths: torch.Tensor, pitch: torch.Tensor,
                pitch_lengths: torch.Tensor) -> torch.Tensor:
        text = text[:, : text_lengths.max()]
        pitch = pitch[:, : pitch_lengths.max()]
        return self.embed(text) + self.pitch_embed(pitch)


def build() -> nn.Module:
    return FastSpeech2Targets()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randint(0, 10, (2, 9), generator=generator), torch.tensor([6, 4]),
            torch.randn(2, 9, 1, generator=generator), torch.tensor([6, 4]))


DYNAMIC = {"text": {0: "batch", 1: "tokens"}, "text_lengths": {0: "batch"},
           "pitch": {0: "batch", 1: "tokens"}, "pitch_lengths": {0: "batch"}}
