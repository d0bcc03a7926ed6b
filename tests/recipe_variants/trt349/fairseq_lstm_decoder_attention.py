"""fairseq-py's LSTM decoder (early 2018): the input feed and the attention scores are allocated from
the embedded targets with the tensor method ``new`` and zeroed,
``input_feed = Variable(x.data.new(bsz, embed_dim).zero_())`` and ``attn_scores =
Variable(x.data.new(srclen, seqlen, bsz).zero_())``, their sizes unpacked from ``prev_output_tokens.size()``
and read with ``encoder_outs.size(0)`` and ``x.size(2)``; each step writes its column of attention,
``attn_scores[:, j, :]``.

Reduced from wengong-jin/fairseq-py at f6fe1cadbe7eaaeeabea767b685a7e486f5aee37 (a fork of
facebookresearch/fairseq-py of that time), fairseq/models/lstm.py, ``LSTMDecoder.forward`` and
``AttentionLayer.forward``. Written here in our own words: no incremental state (the cached-state branch
is not taken), the encoder's outputs and final states are the model's inputs, no dropout (eval), one
layer, and the logits and the attention (batch, target, source) are returned as one tensor, joined on
the last axis.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class AttentionLayer(nn.Module):
    def __init__(self, input_embed_dim, output_embed_dim):
        super().__init__()
        self.input_proj = nn.Linear(input_embed_dim, output_embed_dim, bias=False)
        self.output_proj = nn.Linear(2 * output_embed_dim, output_embed_dim, bias=False)

    def forward(self, input, source_hids):
        x = self.input_proj(input)
        attn_scores = (source_hids * x.unsqueeze(0)).sum(dim=2)
        attn_scores = F.softmax(attn_scores.t(), dim=1).t()
        x = (attn_scores.unsqueeze(2) * source_hids).sum(dim=0)
        x = torch.tanh(self.output_proj(torch.cat((x, input), dim=1)))
        return x, attn_scores


class LSTMDecoder(nn.Module):
    def __init__(self, num_embeddings=11, embed_dim=6):
        super().__init__()
        self.embed_tokens = nn.Embedding(num_embeddings, embed_dim, padding_idx=1)
        self.layers = nn.ModuleList([nn.LSTMCell(2 * embed_dim, embed_dim)])
        self.attention = AttentionLayer(embed_dim, embed_dim)
        self.fc_out = nn.Linear(embed_dim, num_embeddings)

    def forward(self, prev_output_tokens, encoder_outs, encoder_hiddens, encoder_cells):
        bsz, seqlen = prev_output_tokens.size()
        srclen = encoder_outs.size(0)

        x = self.embed_tokens(prev_output_tokens)
        embed_dim = x.size(2)
        x = x.transpose(0, 1)

        num_layers = len(self.layers)
        prev_hiddens = [encoder_hiddens[i] for i in range(num_layers)]
        prev_cells = [encoder_cells[i] for i in range(num_layers)]
        input_feed = Variable(x.data.new(bsz, embed_dim).zero_())

        attn_scores = Variable(x.data.new(srclen, seqlen, bsz).zero_())
        outs = []
        for j in range(seqlen):
            input = torch.cat((x[j, :, :], input_feed), dim=1)
            for i, rnn in enumerate(self.layers):
                hidden, cell = rnn(input, (prev_hiddens[i], prev_cells[i]))
                input = hidden
                prev_hiddens[i] = hidden
                prev_cells[i] = cell
            out, attn_scores[:, j, :] = self.attention(hidden, encoder_outs)
            input_feed = out
            outs.append(out)

        x = torch.cat(outs, dim=0).view(seqlen, bsz, embed_dim)
        x = x.transpose(1, 0)
        attn_scores = attn_scores.transpose(0, 2)
        x = self.fc_out(x)
        return torch.cat((x, attn_scores), dim=2)


def build() -> nn.Module:
    return LSTMDecoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    tokens = torch.randint(0, 11, (2, 3), generator=generator)
    encoder_outs = torch.randn(5, 2, 6, generator=generator)
    hiddens = torch.randn(1, 2, 6, generator=generator)
    cells = torch.randn(1, 2, 6, generator=generator)
    return tokens, encoder_outs, hiddens, cells


DYNAMIC = {"prev_output_tokens": {0: "batch"}, "encoder_outs": {0: "source", 1: "batch"},
           "encoder_hiddens": {1: "batch"}, "encoder_cells": {1: "batch"}}
