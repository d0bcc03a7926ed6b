"""Chronos-Bolt appends a learned ``[REG]`` token to the embedded patches of each series: the token ids
are made with ``torch.full((batch_size, 1), self.config.reg_token_id, device=...)`` (no dtype: eager
mode infers int64 from the int id) and looked up in the shared embedding. With a traced batch, the
TorchScript exporter makes that ``full`` a float ``ConstantOfShape``, and ONNX Runtime refuses the
embedding's ``Gather`` on float indices.

Reduced from chronos-forecasting 2.3.2 (the PyPI wheel, github.com/amazon-science/chronos-forecasting),
src/chronos/chronos_bolt.py: ``ChronosBoltModelForForecasting.encode`` (lines 283-335), as zoo 62's
``chronos_bolt_forecast`` runs it. Written here in our own words: patching is a reshape of a length that
the patch size divides, the patch embedding is one linear layer, and the T5 encoder is left out.
"""

from types import SimpleNamespace

import torch
from torch import nn


class RegTokenEncoder(nn.Module):
    def __init__(self, patch: int = 4, width: int = 8, vocab: int = 3) -> None:
        super().__init__()
        self.config = SimpleNamespace(reg_token_id=1)
        self.patch = patch
        self.input_patch_embedding = nn.Linear(2 * patch, width)
        self.shared = nn.Embedding(vocab, width)

    def forward(self, context):
        batch_size = context.shape[0]
        mask = torch.isnan(context).logical_not().to(context.dtype)
        patches = torch.nan_to_num(context, nan=0.0).reshape(batch_size, -1, self.patch)
        patched_mask = mask.reshape(batch_size, -1, self.patch)
        input_embeds = self.input_patch_embedding(torch.cat([patches, patched_mask], dim=-1))
        reg_input_ids = torch.full(
            (batch_size, 1),
            self.config.reg_token_id,
            device=input_embeds.device,
        )
        reg_embeds = self.shared(reg_input_ids)
        return torch.cat([input_embeds, reg_embeds], dim=-2)


def build() -> nn.Module:
    return RegTokenEncoder()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 16, generator=generator),)


DYNAMIC = {"context": {0: "batch"}}
CALL = "reg_input_ids = torch.full("
