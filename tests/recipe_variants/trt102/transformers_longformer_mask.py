"""Longformer's sliding-window attention masks the scores a window cannot see at the start and
the end of the sequence with the method form of the select:
``torch.full_like(part, -inf).where(mask.bool(), part)`` (a tensor's own ``where``, keeping the
receiver where the mask holds), the mask a lower-triangular pattern expanded over the batch
and heads.

Reduced from huggingface/transformers at tag v5.24.0 (the PyPI release the zoo unpacks),
src/transformers/models/longformer/modeling_longformer.py:721-737
(``LongformerSelfAttention._mask_invalid_locations``: ``new_ones(w, w + 1).tril().flip(dims=[0])``,
the beginning and ending masks, the two selects written back into slices of the scores),
written here in our own words out of place (the original assigns into the input in place).

Not taken, on purpose: TRT102 matches ``torch.where`` through the file's imports, and a method
named ``where`` on an unknown receiver is not known to be a tensor's (``DataFrame.where`` and
``Series.where`` take the same ``(cond, other)``). Here the selected value where the mask holds
is ``-inf`` too, which the blend cannot carry (``inf * 0`` is NaN): even written as
``torch.where`` the rule reports it without a fix.
"""

import torch
from torch import Tensor, nn


class MaskInvalidLocations(nn.Module):
    def __init__(self, affected_seq_len: int = 2) -> None:
        super().__init__()
        self.affected_seq_len = affected_seq_len

    def forward(self, scores: Tensor) -> Tensor:
        w = self.affected_seq_len
        beginning_mask_2d = scores.new_ones(w, w + 1).tril().flip(dims=[0])
        beginning_mask = beginning_mask_2d[None, :, None, :]
        ending_mask = beginning_mask.flip(dims=(1, 3))
        beginning_input = scores[:, :w, :, : w + 1]
        beginning = torch.full_like(beginning_input, -float("inf")).where(
            beginning_mask.expand(beginning_input.size()).bool(), beginning_input
        )
        ending_input = scores[:, -w:, :, -(w + 1):]
        ending = torch.full_like(ending_input, -float("inf")).where(
            ending_mask.expand(ending_input.size()).bool(), ending_input
        )
        return torch.cat([beginning, ending], dim=1)


def build() -> nn.Module:
    return MaskInvalidLocations()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, 3, 5, generator=generator),)  # batch, sequence, heads, window


DYNAMIC = {"scores": {0: "batch", 1: "sequence"}}
