"""LibMultiLabel's XML-CNN (extreme multi-label text classification): the CNN encoder's dynamic
max pooling is an ``nn.AdaptiveMaxPool1d(num_pool)`` built in ``__init__`` under
``if num_pool > 1:``, applied to each filter size's convolution output, whose pooled maps are
concatenated and flattened with ``x.view(x.shape[0], -1)`` before the classifier.

Reduced from ASUS-AICS/LibMultiLabel at commit 6e8fa718147106ddee748abdf70ec36d855dc100,
libmultilabel/nn/networks/modules.py, ``CNNEncoder.__init__`` lines 109-131 (line 129
``self.pool = nn.AdaptiveMaxPool1d(num_pool)``) and ``CNNEncoder.forward`` lines 133-148 (the
branch on ``self.num_pool``, the concatenation, the activation), and
libmultilabel/nn/networks/xml_cnn.py, ``XMLCNN.__init__``/``forward`` lines 23-50 (embedding,
encoder, the ``view``, two linear layers). Written here in our own words: small sizes, dropout left
out (eval mode), the logits returned as a tensor instead of a dict; the activation is looked up
with ``getattr`` as in the original.
"""

import torch
import torch.nn.functional as F
from torch import nn


class CNNEncoder(nn.Module):
    def __init__(self, input_size: int, filter_sizes, num_filter_per_size: int, activation: str,
                 num_pool: int = 0) -> None:
        super().__init__()
        self.convs = nn.ModuleList(
            [nn.Conv1d(in_channels=input_size, out_channels=num_filter_per_size, kernel_size=size)
             for size in filter_sizes])
        self.num_pool = num_pool
        if num_pool > 1:
            self.pool = nn.AdaptiveMaxPool1d(num_pool)
        self.activation = getattr(torch, activation, getattr(F, activation))

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        h = input.transpose(1, 2)  # (batch, embed_dim, length)
        pooled = []
        for conv in self.convs:
            h_sub = conv(h)
            if self.num_pool == 1:
                h_sub = F.max_pool1d(h_sub, h_sub.shape[2])
            elif self.num_pool > 1:
                h_sub = self.pool(h_sub)  # (batch, num_filter, num_pool)
            pooled.append(h_sub)
        return self.activation(torch.cat(pooled, 1))


class XMLCNN(nn.Module):
    def __init__(self, vocab: int = 30, embed_dim: int = 6, num_classes: int = 7, filter_sizes=(2, 4),
                 num_filter_per_size: int = 4, num_pool: int = 3, hidden_dim: int = 8) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed_dim, padding_idx=0)
        self.encoder = CNNEncoder(embed_dim, filter_sizes, num_filter_per_size, "relu", num_pool=num_pool)
        self.linear1 = nn.Linear(len(filter_sizes) * num_filter_per_size * num_pool, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, num_classes)

    def forward(self, text: torch.Tensor) -> torch.Tensor:
        x = self.encoder(self.embedding(text))
        x = x.view(x.shape[0], -1)
        return self.linear2(torch.relu(self.linear1(x)))


def build() -> nn.Module:
    return XMLCNN()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randint(1, 30, (2, 12), generator=generator),)


DYNAMIC = {"text": {0: "batch", 1: "length"}}
