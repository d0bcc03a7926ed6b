"""Depth Anything v3's 2-D rotary position embedding: the patch grid's row and column indices are
the positions, and the cosine and sine tables are built for ``int(positions.max()) + 1`` rows, kept
in a cache keyed by that length, then looked up with ``F.embedding`` at each position.

Reduced from depth-estimation 0.1.3 (shriarul5273, the PyPI release the thirty-eighth zoo unpacks),
depth_estimation/models/depth_anything_v3/modeling_depth_anything_v3.py:417-441 (``PositionGetter``:
a meshgrid of ``arange(height)`` and ``arange(width)``, ``patch_start_idx`` added),
:443-503 (``RotaryPositionEmbedding2D``: ``_compute_frequency_components`` caches the tables under
``(dim, seq_len, device, dtype)``; ``forward`` reads ``max_position = int(positions.max()) + 1``)
and :820-838 (``_prepare_rope``). The number is a size in disguise: the largest patch index, one
less than the larger side of the patch grid (plus the offset of the special tokens). The TorchScript
export keeps the example's table length, and at a larger image the lookup reads past the table's
end. Written here in our own words as a module over an image: a patch embedding, the grid's
positions, the rotary embedding of the tokens.
"""

from typing import Dict, Tuple

import torch
import torch.nn.functional as F
from torch import nn


class Rope2D(nn.Module):
    def __init__(self, frequency: float = 100.0) -> None:
        super().__init__()
        self.frequency = frequency
        self.tables: Dict[Tuple, Tuple[torch.Tensor, torch.Tensor]] = {}

    def _tables(self, dim: int, length: int, device: torch.device, dtype: torch.dtype):
        key = (dim, length, device, dtype)
        if key not in self.tables:
            inv_freq = 1.0 / (self.frequency ** (torch.arange(0, dim, 2, device=device).float() / dim))
            steps = torch.arange(length, device=device, dtype=inv_freq.dtype)
            angles = torch.einsum("i,j->ij", steps, inv_freq).to(dtype)
            angles = torch.cat((angles, angles), dim=-1)
            self.tables[key] = (angles.cos(), angles.sin())
        return self.tables[key]

    @staticmethod
    def _rotate(x: torch.Tensor) -> torch.Tensor:
        half = x.shape[-1] // 2
        return torch.cat((-x[..., half:], x[..., :half]), dim=-1)

    def _along(self, x: torch.Tensor, where: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        return x * F.embedding(where, cos) + self._rotate(x) * F.embedding(where, sin)

    def forward(self, tokens: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        dim = tokens.size(-1) // 2
        max_position = int(positions.max()) + 1
        cos, sin = self._tables(dim, max_position, tokens.device, tokens.dtype)
        rows, cols = tokens.chunk(2, dim=-1)
        rows = self._along(rows, positions[..., 0], cos, sin)
        cols = self._along(cols, positions[..., 1], cos, sin)
        return torch.cat((rows, cols), dim=-1)


class PatchRope(nn.Module):
    def __init__(self, patch: int = 4, dim: int = 8, start: int = 1) -> None:
        super().__init__()
        self.patch = patch
        self.start = start
        self.embed = nn.Conv2d(3, dim, patch, patch)
        self.rope = Rope2D()

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        tokens = self.embed(image).flatten(2).transpose(1, 2)
        h, w = image.shape[-2] // self.patch, image.shape[-1] // self.patch
        grid = torch.stack(torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij"), dim=-1).reshape(-1, 2)
        positions = grid.unsqueeze(0).expand(tokens.shape[0], -1, -1) + self.start
        return self.rope(tokens, positions)


def build() -> nn.Module:
    return PatchRope()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 12, 16, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
