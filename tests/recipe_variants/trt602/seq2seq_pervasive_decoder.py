"""Pervasive Attention's decoder in seq2seq.pytorch (machine translation): source and target
embeddings are crossed into a 2-D grid ``(B, C, T_source, T_target)``, convolved, and the source
axis is max-pooled away by an ``nn.AdaptiveMaxPool2d((1, None))`` built in ``__init__`` (``None``
keeps the target axis), then ``squeeze(2)`` and a classifier give one prediction per target token.

Reduced from eladhoffer/seq2seq.pytorch at commit 769c9995594ea0059075280f49a86ac4dace28bd,
seq2seq/models/prevasive.py, ``merge_time`` lines 12-23 (the ``'cat'`` mode: shapes built with
``list(x.shape)`` and ``insert``, two ``expand`` calls, ``torch.cat``), ``PrevasiveDecoder.__init__``
lines 65-91 (line 88 ``self.pool = nn.AdaptiveMaxPool2d((1, None))``) and
``PrevasiveDecoder.forward`` lines 93-116 (embedding scaled by ``hidden_size ** 0.5``, the
transposes, ``merge_time``, ``main_block``, the pool, ``x.squeeze(2).transpose(1, 2)``, the
classifier). Written here in our own words: two plain (unmasked) convolutions stand in for the masked
DenseNet/ResNet ``main_block``, the positional embedding, dropout, padding mask, the other merge
modes and ``merge_time``'s batch-size assert are left out, and the encoder's output is an input.
"""

import torch
from torch import nn


def merge_time(x1: torch.Tensor, x2: torch.Tensor) -> torch.Tensor:
    _, _, T1 = x1.shape
    _, _, T2 = x2.shape
    shape1 = list(x1.shape)
    shape1.insert(3, T2)
    shape2 = list(x2.shape)
    shape2.insert(2, T1)
    return torch.cat((x1.unsqueeze(3).expand(shape1), x2.unsqueeze(2).expand(shape2)), dim=1)


class PervasiveDecoder(nn.Module):
    def __init__(self, vocab_size: int = 20, embedding_size: int = 6, context_size: int = 6) -> None:
        super().__init__()
        self.embedder = nn.Embedding(vocab_size, embedding_size, padding_idx=0)
        self.scale_embedding = embedding_size ** 0.5
        self.main_block = nn.Sequential(
            nn.Conv2d(embedding_size + context_size, 8, kernel_size=3, padding=1), nn.ReLU(),
            nn.Conv2d(8, embedding_size, kernel_size=1))
        self.pool = nn.AdaptiveMaxPool2d((1, None))
        self.classifier = nn.Linear(embedding_size, vocab_size)

    def forward(self, tokens: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        x = self.embedder(tokens).mul(self.scale_embedding)
        x = x.transpose(1, 2)  # B x C2 x T2
        y = context.transpose(1, 2)  # B x C1 x T1
        x = merge_time(y, x)  # B x (C1 + C2) x T1 x T2
        x = self.main_block(x)
        x = self.pool(x)  # B x C x 1 x T2
        x = x.squeeze(2).transpose(1, 2)
        return self.classifier(x)


def build() -> nn.Module:
    return PervasiveDecoder()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randint(1, 20, (2, 7), generator=generator), torch.randn(2, 9, 6, generator=generator))


DYNAMIC = {"tokens": {0: "batch", 1: "target"}, "context": {0: "batch", 1: "source"}}
