"""TRELLIS's absolute position embedder: the int32 coordinates of sparse voxels times float frequencies (``outer``).

Reduced from microsoft/TRELLIS (GitHub, commit 6b0d64751ad54d9c32d7b05fec482eb29178f56f),
trellis/modules/transformer/blocks.py: ``AbsolutePositionEmbedder`` (lines 8-45) keeps float32 frequencies as a
plain attribute and, in ``_sin_cos_embedding``, takes ``out = torch.outer(x, self.freqs)`` (line 31) of the
flattened coordinates, then their sines and cosines, zero-padded to the channels (``forward``, lines 35-45).
The structured-latent VAE and flow models call it in ``forward`` on their sparse tensors' coordinates
(``self.pos_embedder(x.coords[:, 1:])``, trellis/models/structured_latent_vae/base.py:113,
structured_latent_flow.py:255), which the pipelines make int32 (``torch.argwhere(...)[:, [0, 2, 3, 4]].int()``,
trellis/pipelines/trellis_image_to_3d.py:191). Kept: the int32 coordinates, the plain frequency attribute moved to
the input's device in the call, the flatten, the zero padding. Reduced: the sparse tensor is a pair of inputs
(voxel features and their coordinates), one linear block after the embedding. Eager mode promotes the int32
coordinates to float32; the TorchScript export casts the frequencies to int32 instead (every one under 1 becomes
0) and the int32 product reaches ``Sin``, which ONNX Runtime refuses. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"feats": {0: "voxels"}, "coords": {0: "voxels"}}


class AbsolutePositionEmbedder(nn.Module):
    def __init__(self, channels: int, in_channels: int = 3) -> None:
        super().__init__()
        self.channels = channels
        self.in_channels = in_channels
        self.freq_dim = channels // in_channels // 2
        self.freqs = 1.0 / (10000 ** (torch.arange(self.freq_dim, dtype=torch.float32) / self.freq_dim))

    def _sin_cos_embedding(self, x):
        self.freqs = self.freqs.to(x.device)
        out = torch.outer(x, self.freqs)
        return torch.cat([torch.sin(out), torch.cos(out)], dim=-1)

    def forward(self, x):
        n, d = x.shape
        embed = self._sin_cos_embedding(x.reshape(-1)).reshape(n, -1)
        if embed.shape[1] < self.channels:
            embed = torch.cat([embed, torch.zeros(n, self.channels - embed.shape[1], device=embed.device)], dim=-1)
        return embed


class VoxelEncoder(nn.Module):
    """Sparse voxels as features ``(voxels, in_channels)`` and integer coordinates ``(voxels, 3)``."""

    def __init__(self, in_channels: int = 4, channels: int = 14) -> None:
        super().__init__()
        self.input_layer = nn.Linear(in_channels, channels)
        self.pos_embedder = AbsolutePositionEmbedder(channels)
        self.block = nn.Linear(channels, channels)

    def forward(self, feats, coords):
        h = self.input_layer(feats)
        h = h + self.pos_embedder(coords)
        return self.block(torch.nn.functional.gelu(h))


def build() -> nn.Module:
    torch.manual_seed(0)
    return VoxelEncoder().eval()


def inputs(generator):
    coords = torch.randint(0, 64, (5, 3), generator=generator, dtype=torch.int32)
    return torch.rand(5, 4, generator=generator), coords
