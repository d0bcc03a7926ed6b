"""torchvision's Vision Transformer: encoder blocks over the patch tokens of an image.

Reduced from torchvision 0.29.1 (the PyPI wheel), torchvision/models/vision_transformer.py:
``EncoderBlock.__init__`` (lines 89-108: ``nn.MultiheadAttention(hidden_dim, num_heads,
dropout=attention_dropout, batch_first=True)`` between two LayerNorms), ``EncoderBlock.forward``
(lines 110-119: self-attention called with the normalized tokens as query, key and value and
``need_weights=False``, then the MLP block), ``Encoder`` (lines 122-157, the blocks in an
``nn.Sequential`` of named layers) and ``VisionTransformer._process_input`` / ``forward`` (lines
268-304: a strided convolution cuts the image into patches, the patch grid is flattened into tokens
and a class token is put in front; the class token's output feeds the head). Written here in our own
words and small. torchvision checks that the image has the size it was built for and adds a learned
position embedding of that length; both are left out here, so the number of tokens follows the
image size (``1 + (H // 4) * (W // 4)``), as it does for the blocks themselves.
"""

from collections import OrderedDict
from functools import partial

import torch
from torch import nn


class MLPBlock(nn.Sequential):
    def __init__(self, in_dim: int, mlp_dim: int, dropout: float) -> None:
        super().__init__(nn.Linear(in_dim, mlp_dim), nn.GELU(), nn.Dropout(dropout), nn.Linear(mlp_dim, in_dim),
                         nn.Dropout(dropout))


class EncoderBlock(nn.Module):
    def __init__(self, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                 norm_layer=partial(nn.LayerNorm, eps=1e-6)):
        super().__init__()
        self.num_heads = num_heads
        self.ln_1 = norm_layer(hidden_dim)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads, dropout=attention_dropout, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = norm_layer(hidden_dim)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input: torch.Tensor):
        torch._assert(input.dim() == 3, f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x) + input
        return x + self.mlp(self.ln_2(x))


class Encoder(nn.Module):
    def __init__(self, num_layers, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        blocks = OrderedDict()
        for i in range(num_layers):
            blocks[f"encoder_layer_{i}"] = EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout, attention_dropout)
        self.layers = nn.Sequential(blocks)
        self.ln = nn.LayerNorm(hidden_dim, eps=1e-6)

    def forward(self, input: torch.Tensor):
        return self.ln(self.layers(self.dropout(input)))


class VisionTransformer(nn.Module):
    def __init__(self, patch_size=4, num_layers=2, num_heads=4, hidden_dim=32, mlp_dim=64, num_classes=5):
        super().__init__()
        self.patch_size = patch_size
        self.hidden_dim = hidden_dim
        self.conv_proj = nn.Conv2d(3, hidden_dim, kernel_size=patch_size, stride=patch_size)
        self.class_token = nn.Parameter(torch.randn(1, 1, hidden_dim) * 0.02)
        self.encoder = Encoder(num_layers, num_heads, hidden_dim, mlp_dim, 0.0, 0.0)
        self.heads = nn.Sequential(OrderedDict(head=nn.Linear(hidden_dim, num_classes)))

    def _process_input(self, x: torch.Tensor) -> torch.Tensor:
        n, c, h, w = x.shape
        p = self.patch_size
        n_h = h // p
        n_w = w // p
        x = self.conv_proj(x)
        x = x.reshape(n, self.hidden_dim, n_h * n_w)
        return x.permute(0, 2, 1)

    def forward(self, x: torch.Tensor):
        x = self._process_input(x)
        n = x.shape[0]
        batch_class_token = self.class_token.expand(n, -1, -1)
        x = torch.cat([batch_class_token, x], dim=1)
        x = self.encoder(x)
        return self.heads(x[:, 0])


def build() -> nn.Module:
    return VisionTransformer().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 16, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
