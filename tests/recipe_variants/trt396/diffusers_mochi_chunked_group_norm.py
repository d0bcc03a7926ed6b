"""Mochi's VAE: a group norm applied frame by frame to a video, a few frames of the whole batch at a time.

Reduced from huggingface/diffusers @ 6e022c3486b46cb002429363d25bbc0e7d03c114,
src/diffusers/models/autoencoders/autoencoder_kl_mochi.py lines 36-67 (``MochiChunkedGroupNorm3D``: ``forward`` moves
the frame axis next to the batch axis and merges the two, runs the ``nn.GroupNorm`` on each piece of ``x.split(
self.chunk_size, dim=0)`` inside ``torch.cat(..., dim=0)``, then parts the batch and frame axes again; the resnet,
down and mid blocks of the Mochi encoder and decoder normalise with it, 8 frames per piece by default). Written here
in our own words: the module is the norm itself with 4 channels in 2 groups, the piece holds 4 frames, and a video
has 2 frames so that a batch of four videos takes two pieces. The comprehension and the ``cat`` are the original's,
as it spells them, with the split's ``dim=0`` keyword.

Traced with 4 videos of 2 frames (8 frames, two pieces), the graph splits the frames into two fixed pieces of 4: 5
videos, or 4 videos of 3 frames, no longer match the split. Each frame is normalised over its own channels and
pixels, so the whole call follows the batch and the frames.
"""

import torch
from torch import nn


class MochiChunkedGroupNorm3D(nn.Module):
    def __init__(self, num_channels: int = 4, num_groups: int = 2, affine: bool = True, chunk_size: int = 4) -> None:
        super().__init__()
        self.norm_layer = nn.GroupNorm(num_channels=num_channels, num_groups=num_groups, affine=affine)
        self.chunk_size = chunk_size
        with torch.no_grad():  # an affine part other than the identity, so that it shows in the output
            self.norm_layer.weight.uniform_(0.5, 1.5)
            self.norm_layer.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor = None) -> torch.Tensor:
        batch_size = x.size(0)

        x = x.permute(0, 2, 1, 3, 4).flatten(0, 1)
        output = torch.cat([self.norm_layer(chunk) for chunk in x.split(self.chunk_size, dim=0)], dim=0)
        output = output.unflatten(0, (batch_size, -1)).permute(0, 2, 1, 3, 4)

        return output


def build() -> nn.Module:
    torch.manual_seed(0)
    return MochiChunkedGroupNorm3D().eval()


def inputs(generator: torch.Generator, batch: int = 4, frames: int = 2, height: int = 3,
           width: int = 5) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, 4, frames, height, width, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "frames", 3: "height", 4: "width"}}
CALL = "output = torch.cat([self.norm_layer(chunk) for chunk in x.split(self.chunk_size, dim=0)], dim=0)"
