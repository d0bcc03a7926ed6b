"""Code Llama's batched greedy generation: which sequences have produced the stop token after their prompt.

Reduced from meta-llama/codellama @ e81b597e44dbecc2a0dedb9949fdf84adfc22395, llama/generation.py: ``Llama.generate``
pads the prompts into ``tokens``, keeps ``input_text_mask = tokens != pad_id`` and ``stop_reached =
torch.tensor([False] * bsz, device=device)``, and per position takes the argmax of the model's last logits, keeps the
prompt's own token where there is one (``torch.where(input_text_mask[:, cur_pos], tokens[:, cur_pos],
next_token)``), writes it into ``tokens`` and marks the sequences that generated the stop token with
``stop_reached |= (~input_text_mask[:, cur_pos]) & (next_token == stop_token)`` (line 185). Kept: the padded
tokens, the prompt mask, the running stop flags, the per-position loop over the chunk since the previous position
and the write. Reduced: an embedding and a linear head for the transformer (no cache: each step reads the chunk
since the previous position), greedy decoding only, no early ``if all(stop_reached): break`` (a Python decision on
the values, which a trace bakes in). The batch is a Python list's length in the original, so the graph's batch is
static here too; other input sets are other prompts. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"tokens": {}}
#: The line of the augmented or (the rule's finding).
CALL = "stop_reached |= (~input_text_mask[:, cur_pos]) & (next_token == stop_token)"
PAD_ID = 0
STOP_TOKEN = 3
MIN_PROMPT_LEN = 2


class Generator(nn.Module):
    def __init__(self, vocab: int = 7, dim: int = 8) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.output = nn.Linear(dim, vocab)

    def forward(self, tokens):
        bsz, total_len = tokens.shape
        device = tokens.device
        tokens = tokens.clone()
        prev_pos = 0
        stop_reached = torch.tensor([False] * bsz, device=device)
        input_text_mask = tokens != PAD_ID
        stop_token = STOP_TOKEN
        for cur_pos in range(MIN_PROMPT_LEN, total_len):
            logits = self.output(self.embed(tokens[:, prev_pos:cur_pos]))
            next_token = torch.argmax(logits[:, -1], dim=-1)
            next_token = next_token.reshape(-1)
            # only replace token if prompt has already been generated
            next_token = torch.where(input_text_mask[:, cur_pos], tokens[:, cur_pos], next_token)
            tokens[:, cur_pos] = next_token
            stop_reached |= (~input_text_mask[:, cur_pos]) & (next_token == stop_token)
            prev_pos = cur_pos
        return tokens, stop_reached


def build() -> nn.Module:
    return Generator().eval()


def inputs(generator: torch.Generator, bsz: int = 4, total_len: int = 7) -> tuple[torch.Tensor, ...]:
    """Prompts of 2 to 4 tokens (ids 1..6), padded with ``PAD_ID`` to ``total_len``."""
    tokens = torch.randint(1, 7, (bsz, total_len), generator=generator)
    lengths = torch.randint(MIN_PROMPT_LEN, MIN_PROMPT_LEN + 3, (bsz, 1), generator=generator)
    return (tokens.masked_fill(torch.arange(total_len)[None] >= lengths, PAD_ID),)
