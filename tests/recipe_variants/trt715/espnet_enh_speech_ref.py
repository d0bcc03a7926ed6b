"""ESPnet's speech-enhancement model trims the stacked references on their last axis with an
ellipsis (``speech_ref[..., : speech_lengths.max()]``, a (batch, speakers, samples) tensor) and the
mixture on axis 1 (``speech_mix[:, : speech_lengths.max()]``).

Reduced from espnet/espnet at commit 002dc6edd629f1cc236532a163f97c56bc48f839,
espnet2/enh/espnet_model.py, ``ESPnetEnhancementModel.forward`` (after ``# for data-parallel``:
``speech_ref = speech_ref[..., : speech_lengths.max()]``, ``speech_ref.unbind(dim=1)``, and
``speech_mix = speech_mix[:, : speech_lengths.max()]`` before ``forward_enhance``). Written here in
our own words: a linear mask over the mixture stands in for the encoder, separator and decoder,
and the output is the enhanced signal minus each reference (a loss's residual), stacked.
"""

import torch
from torch import nn


class Enhancement(nn.Module):
    def __init__(self, num_spk: int = 2) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.linspace(0.5, 1.5, num_spk))

    def forward(self, speech_mix: torch.Tensor, speech_ref: torch.Tensor,
                speech_lengths: torch.Tensor) -> torch.Tensor:
        speech_ref = speech_ref[..., : speech_lengths.max()]
        speech_ref = speech_ref.unbind(dim=1)
        speech_mix = speech_mix[:, : speech_lengths.max()]
        residuals = [speech_mix * self.scale[i] - ref for i, ref in enumerate(speech_ref)]
        return torch.stack(residuals, dim=1)


def build() -> nn.Module:
    return Enhancement()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 16, generator=generator), torch.randn(2, 2, 16, generator=generator),
            torch.tensor([11, 7]))


DYNAMIC = {"speech_mix": {0: "batch", 1: "samples"}, "speech_ref": {0: "batch", 2: "samples"},
           "speech_lengths": {0: "batch"}}
