"""fairseq's unit HiFi-GAN (CodeGenerator): the discrete units' embeddings repeated by their predicted durations.

Reduced from facebookresearch/fairseq @ 3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99,
fairseq/models/text_to_speech/codehifigan.py: ``CodeGenerator.forward`` (line 56) embeds the units as ``(B, C, T)``
and, with ``dur_prediction``, predicts log-durations (line 61), turns them into counts with
``dur_out = torch.clamp(torch.round((torch.exp(log_dur_pred) - 1)).long(), min=1)`` (lines 62-64) and writes
``x = torch.repeat_interleave(x, dur_out.view(-1), dim=2)`` (line 66; the code asserts one sample). Kept: the
``(B, C, T)`` layout repeated along axis 2 by position of a keyword ``dim``, the counts cast with ``.long()`` inside
``torch.clamp(..., min=1)`` and flattened with ``.view(-1)``. Reduced: a linear duration predictor (fairseq's is its
``VariancePredictor``), one convolution in place of the HiFi-GAN generator, no speaker or other conditioning. The
TorchScript exporter writes the ``repeat_interleave`` with ONNX sequence operators. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"code": {1: "units"}}
CALL = "x = torch.repeat_interleave(x, dur_out.view(-1), dim=2)"


class CodeGenerator(nn.Module):
    def __init__(self, units: int = 16, channels: int = 6) -> None:
        super().__init__()
        self.dict = nn.Embedding(units, channels)
        self.dur_predictor = nn.Linear(channels, 1)
        self.generator = nn.Conv1d(channels, 3, 3, padding=1)

    def forward(self, code):
        x = self.dict(code).transpose(1, 2)
        log_dur_pred = self.dur_predictor(x.transpose(1, 2)).squeeze(-1)
        dur_out = torch.clamp(
            torch.round((torch.exp(log_dur_pred) - 1)).long(), min=1
        )
        x = torch.repeat_interleave(x, dur_out.view(-1), dim=2)
        return self.generator(x)


def build():
    torch.manual_seed(0)
    model = CodeGenerator().eval()
    with torch.no_grad():
        model.dur_predictor.bias.fill_(1.1)
    return model


def inputs(generator=None, units=6):
    return (torch.randint(0, 16, (1, units), generator=generator),)
