"""diffusers' AutoencoderKL: a batch of latents decoded whole, or one latent at a time when slicing is switched on.

Reduced from huggingface/diffusers @ 58eb52c0803ea9af3abec60841c2a093bdf1f951,
src/diffusers/models/autoencoders/autoencoder_kl.py lines 186-190 and 231-235 (``encode`` and ``decode``: ``if
self.use_slicing and z.shape[0] > 1:`` decodes ``z.split(1)`` piece by piece and concatenates the pieces, ``else``
decodes the whole batch at once; ``enable_slicing`` sets the switch to save memory on large batches). Written here in
our own words: the decoder is a post-quantisation convolution, a nearest upsampling by 2 and one convolution, all of
them per sample, so the slices give what the whole batch gives; the returned ``DecoderOutput`` is the tensor itself.

The chunks are the pieces of a ``split``, not a ``range`` loop, and the size test comes after a switch in an ``and``.
Traced with slicing on at a batch of 2, the graph holds two decodes and a split into two: at any other batch it
fails or drops samples. The whole decode follows the batch.
"""

import torch
import torch.nn.functional as F
from torch import nn


class TinyDecoder(nn.Module):
    def __init__(self, latent: int = 4, channels: int = 3) -> None:
        super().__init__()
        self.post_quant_conv = nn.Conv2d(latent, latent, 1)
        self.conv_out = nn.Conv2d(latent, channels, 3, padding=1)

    def forward(self, z):
        z = self.post_quant_conv(z)
        return self.conv_out(F.interpolate(z, scale_factor=2.0, mode="nearest"))


class SlicedVAE(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.decoder = TinyDecoder()
        self.use_slicing = True  # `enable_slicing()`

    def _decode(self, z):
        return self.decoder(z)

    def forward(self, z):
        if self.use_slicing and z.shape[0] > 1:
            decoded_slices = [self._decode(z_slice) for z_slice in z.split(1)]
            decoded = torch.cat(decoded_slices)
        else:
            decoded = self._decode(z)
        return decoded


def build() -> nn.Module:
    torch.manual_seed(0)
    return SlicedVAE().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 6, width: int = 5) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, 4, height, width, generator=generator),)


DYNAMIC = {"z": {0: "batch", 2: "height", 3: "width"}}
CALL = "if self.use_slicing and z.shape[0] > 1:"
