"""Kokoro's alignment: token indices repeated by their predicted frame counts, with no axis, then a one-hot matrix.

Reduced from kokoro 0.9.4 (hexgrad's Kokoro-82M, the PyPI wheel), kokoro/model.py, ``KModel.forward_with_tokens``
(lines 87-118): the prosody predictor's ``duration_proj`` gives per-token logits over duration bins, summed as
``duration = torch.sigmoid(duration).sum(axis=-1) / speed`` (line 108), rounded into counts with
``pred_dur = torch.round(duration).clamp(min=1).long().squeeze()`` (line 109), and
``indices = torch.repeat_interleave(torch.arange(input_ids.shape[1], device=self.device), pred_dur)`` (line 110,
no axis: the flattened form) picks each frame's token; a zero matrix of tokens x frames gets a 1 at
``[indices, torch.arange(indices.shape[0])]`` (lines 111-112) and the token features are multiplied by it
(line 114). Kept: that chain as Kokoro writes it (the counts squeezed from a batch of one, the call without an
axis, the one-hot alignment written by index). Reduced: an embedding and a linear layer in place of the ALBERT
encoder, the text encoder and the LSTM, a linear ``duration_proj`` over 8 bins, one convolution in place of the
iSTFTNet decoder, no style vector, the speed an attribute (Kokoro's is an argument, 1 by default), the
device taken from the input. The TorchScript exporter writes the
``repeat_interleave`` with ONNX sequence operators. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"input_ids": {1: "tokens"}}
CALL = "indices = torch.repeat_interleave(torch.arange(input_ids.shape[1], device=input_ids.device), pred_dur)"


class KokoroAlignment(nn.Module):
    def __init__(self, vocab: int = 32, channels: int = 8, bins: int = 8) -> None:
        super().__init__()
        self.bert = nn.Embedding(vocab, channels)
        self.bert_encoder = nn.Linear(channels, channels)
        self.duration_proj = nn.Linear(channels, bins)
        self.decoder = nn.Conv1d(channels, 2, 3, padding=1)
        self.speed = 1.0

    def forward(self, input_ids):
        speed = self.speed
        d = self.bert_encoder(self.bert(input_ids))  # (1, T, C)
        duration = self.duration_proj(d)
        duration = torch.sigmoid(duration).sum(axis=-1) / speed
        pred_dur = torch.round(duration).clamp(min=1).long().squeeze()
        indices = torch.repeat_interleave(torch.arange(input_ids.shape[1], device=input_ids.device), pred_dur)
        pred_aln_trg = torch.zeros((input_ids.shape[1], indices.shape[0]), device=input_ids.device)
        pred_aln_trg[indices, torch.arange(indices.shape[0])] = 1
        pred_aln_trg = pred_aln_trg.unsqueeze(0)
        en = d.transpose(-1, -2) @ pred_aln_trg
        return self.decoder(en), pred_dur


def build():
    torch.manual_seed(0)
    return KokoroAlignment().eval()


def inputs(generator=None, tokens=7):
    return (torch.randint(0, 32, (1, tokens), generator=generator),)
