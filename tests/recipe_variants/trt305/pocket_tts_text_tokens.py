"""The text tokens of a prompt counted as ``~torch.isin`` of the placeholder ids: Pocket TTS.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/pocket_tts/
generation_pocket_tts.py, the generation budget from the longest text (lines 188-194:
``placeholder_ids = torch.tensor(self._placeholder_token_ids(), device=input_ids.device)``,
``is_text = ~torch.isin(input_ids, placeholder_ids)``, ``is_text &= attention_mask[...].bool()``,
then the per-row count ``is_text.sum(-1)``). Written here in our own words: the count per row is
the output, without the ``int(...max())`` that sizes the generation. The attention mask is
applied as ``is_text = is_text & ...``: the original's in-place ``&=`` is a second blocker,
outside this recipe (the TorchScript exporter has no symbolic for ``aten::__iand_``).
"""

import torch
from torch import nn


class TextTokens(nn.Module):
    def __init__(self, placeholder_token_ids=(0, 7)) -> None:
        super().__init__()
        self.placeholder_token_ids = list(placeholder_token_ids)

    def forward(self, input_ids, attention_mask):
        placeholder_ids = torch.tensor(self.placeholder_token_ids, device=input_ids.device)
        is_text = ~torch.isin(input_ids, placeholder_ids)
        is_text = is_text & attention_mask[:, -input_ids.shape[1]:].bool()
        return is_text.sum(-1)


def build() -> nn.Module:
    return TextTokens()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randint(0, 9, (2, 6), generator=generator), torch.randint(0, 2, (2, 6), generator=generator)


DYNAMIC = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"}}
