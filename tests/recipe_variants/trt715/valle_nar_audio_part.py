"""VALL-E's non-autoregressive stage: text and audio run through one decoder as a single sequence,
and the text part is cut off its output by a slice whose start is the longest text of the batch.

Reduced from lifeiteng/vall-e at commit 9c69096d603ce13174fb5cb025f185e2e9b36ac7,
valle/models/valle.py:895-926 (``VALLE.forward``, the NAR decoders): the text embedded and
positioned, the audio prompt and codes embedded (``_prepare_prompts`` gives ``prefix_len``, a
Python int), ``xy_pos = torch.concat([x, y_pos], dim=1)`` through ``self.nar_decoder``, then
``xy_dec = xy_dec[:, x_lens.max() + prefix_len :]`` before the prediction layer. Written here in our
own words: the text and audio embeddings are float inputs, the decoder one self-attention step over
the joint sequence with its key padding mask from ``x_lens``, ``prefix_len`` a fixed attribute,
and the output is the prediction layer's logits of the audio part.
"""

import torch
from torch import nn


class NarAudioPart(nn.Module):
    def __init__(self, dims: int = 6, tokens: int = 5, prefix_len: int = 1) -> None:
        super().__init__()
        self.prefix_len = prefix_len
        self.qkv = nn.Linear(dims, 3 * dims)
        self.nar_predict_layer = nn.Linear(dims, tokens)

    def forward(self, x: torch.Tensor, x_lens: torch.Tensor, y_emb: torch.Tensor) -> torch.Tensor:
        x_mask = torch.arange(x.shape[1], device=x.device)[None] >= x_lens[:, None]
        y_mask = torch.zeros(y_emb.shape[:2], dtype=torch.bool, device=y_emb.device)
        xy_padding_mask = torch.concat([x_mask, y_mask], dim=1)
        xy_pos = torch.concat([x, y_emb], dim=1)
        q, k, v = self.qkv(xy_pos).chunk(3, dim=-1)
        scores = (q @ k.transpose(1, 2)).masked_fill(xy_padding_mask[:, None, :], -1e4)
        xy_dec = xy_pos + scores.softmax(-1) @ v
        xy_dec = xy_dec[:, x_lens.max() + self.prefix_len :]
        return self.nar_predict_layer(xy_dec)


def build() -> nn.Module:
    return NarAudioPart()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 6, generator=generator), torch.tensor([4, 2]),
            torch.randn(2, 5, 6, generator=generator))


DYNAMIC = {"x": {0: "batch", 1: "text"}, "x_lens": {0: "batch"}, "y_emb": {0: "batch", 1: "frames"}}
