"""A token may not follow itself: BROS's rectangular boolean ``torch.eye(n, n + 1)`` over link logits.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/bros/modeling_bros.py,
``BrosSpadeEEForTokenClassification.forward`` (lines 806-822): the subsequent-token logits
``(batch, n, n + 1)`` are filled with the dtype's minimum where a token is padding, and where
``self_token_mask = torch.eye(max_seq_length, max_seq_length + 1, device=device,
dtype=torch.bool)`` (two sizes, one of them the sequence length plus one, booleans) is True.
Written here in our own words as a module over the logits and the attention mask.
"""

import torch
from torch import nn


class SelfTokenMask(nn.Module):
    def forward(self, subsequent_token_logits, attention_mask):
        inv_attention_mask = 1 - attention_mask
        batch_size, max_seq_length = inv_attention_mask.shape
        device = inv_attention_mask.device
        invalid_token_mask = torch.cat(
            [inv_attention_mask, torch.zeros([batch_size, 1], dtype=inv_attention_mask.dtype, device=device)], axis=1
        ).bool()
        minimum = torch.finfo(subsequent_token_logits.dtype).min
        subsequent_token_logits = subsequent_token_logits.masked_fill(invalid_token_mask[:, None, :], minimum)
        self_token_mask = torch.eye(max_seq_length, max_seq_length + 1, device=device, dtype=torch.bool)
        return subsequent_token_logits.masked_fill(self_token_mask[None, :, :], minimum)


def build() -> nn.Module:
    return SelfTokenMask()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(2, 5, 6, generator=generator), torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]])


DYNAMIC = {"subsequent_token_logits": {0: "batch", 1: "tokens", 2: "targets"},
           "attention_mask": {0: "batch", 1: "tokens"}}
