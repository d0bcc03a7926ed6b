"""vit-pytorch's SimpleViT with FFT: the image's 2-D spectrum cut into patches as a second token stream.

Reduced from vit-pytorch 1.26.11 (the PyPI wheel), vit_pytorch/simple_vit_with_fft.py:
``SimpleViT.__init__`` (lines 82-125) and ``SimpleViT.forward`` (lines 127-146). ``forward`` embeds
the image's pixel patches, and, as a second stream, the patches of ``torch.view_as_real(fft2(img))``
(``fft2`` imported by name from ``torch.fft``; real and imaginary parts on a last axis of 2, folded
into each patch), adds fixed 2-D sine-cosine positions to both, runs one transformer over the two
streams packed together and pools the pixel tokens. Written here in our own words, with one small
attention block for the library's transformer, and the library's einops patch rearrangements and
mean written with torch's own reshape and permute (einops is not a test dependency). Form kept: the
name imported from ``torch.fft`` and ``torch.view_as_real`` taken of the transform right away. The
image size is fixed when the model is built (the position tables depend on it): the batch is dynamic.
"""

import torch
from torch import nn
from torch.fft import fft2


class Patches(nn.Module):
    """``b c (h p1) (w p2) [ri] -> b (h w) (p1 p2 [ri] c)``, as the library's einops ``Rearrange``."""

    def __init__(self, patch: int) -> None:
        super().__init__()
        self.patch = patch

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p = self.patch
        b, c, height, width = x.shape[:4]
        extra = x.shape[4:]  # the real/imaginary axis of a spectrum, if any
        x = x.reshape(b, c, height // p, p, width // p, p, *extra)
        order = (0, 2, 4, 3, 5) + tuple(range(6, 6 + len(extra))) + (1,)
        return x.permute(*order).reshape(b, (height // p) * (width // p), -1)


def sincos_positions(h: int, w: int, dim: int, temperature: float = 10000.0) -> torch.Tensor:
    y, x = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    omega = 1.0 / temperature ** (torch.arange(dim // 4) / (dim // 4 - 1))
    y = y.flatten()[:, None] * omega[None, :]
    x = x.flatten()[:, None] * omega[None, :]
    return torch.cat((x.sin(), x.cos(), y.sin(), y.cos()), dim=1)


class SimpleViTWithFFT(nn.Module):
    def __init__(self, image_size: int = 16, patch_size: int = 8, freq_patch_size: int = 4, dim: int = 32,
                 heads: int = 2, num_classes: int = 5, channels: int = 3) -> None:
        super().__init__()
        patch_dim = channels * patch_size * patch_size
        freq_patch_dim = channels * 2 * freq_patch_size * freq_patch_size
        self.to_patch_embedding = nn.Sequential(
            Patches(patch_size),
            nn.LayerNorm(patch_dim), nn.Linear(patch_dim, dim), nn.LayerNorm(dim))
        self.to_freq_embedding = nn.Sequential(
            Patches(freq_patch_size),
            nn.LayerNorm(freq_patch_dim), nn.Linear(freq_patch_dim, dim), nn.LayerNorm(dim))
        self.register_buffer("pos_embedding", sincos_positions(image_size // patch_size, image_size // patch_size, dim))
        self.register_buffer("freq_pos_embedding",
                             sincos_positions(image_size // freq_patch_size, image_size // freq_patch_size, dim))
        self.attend = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm = nn.LayerNorm(dim)
        self.linear_head = nn.Linear(dim, num_classes)

    def forward(self, img):
        x = self.to_patch_embedding(img)
        freqs = torch.view_as_real(fft2(img))
        f = self.to_freq_embedding(freqs)
        x = x + self.pos_embedding.to(img.dtype)
        f = f + self.freq_pos_embedding.to(img.dtype)
        tokens = torch.cat((f, x), dim=1)
        normed = self.norm(tokens)
        tokens = tokens + self.attend(normed, normed, normed, need_weights=False)[0]
        x = tokens[:, f.shape[1]:]
        return self.linear_head(x.mean(dim=1))


def build() -> nn.Module:
    return SimpleViTWithFFT().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 16, 16, generator=generator),)


DYNAMIC = {"img": {0: "batch"}}
