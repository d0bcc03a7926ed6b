"""snac's encoder and vector quantizer: a snake activation that reshapes to ``-1``, then codes upsampled along ``-1``.

Reduced from snac 1.2.1 (PyPI; hubertsiuzdak/snac), snac/layers.py and snac/vq.py. ``snake`` (layers.py:169-175)
is a ``torch.jit.script`` function that flattens the trailing axes with ``x.reshape(shape[0], shape[1], -1)``
(line 172), applies ``x + sin(alpha * x) ** 2 / alpha`` and reshapes back; ``Snake1d`` (line 178) holds ``alpha``.
``VectorQuantize.forward`` (vq.py:22-36) pools the latents by its stride, projects them to the codebook's width,
takes the nearest L2-normalised code (``decode_latents``, lines 44-60), projects back and upsamples with
``z_q = z_q.repeat_interleave(self.stride, dim=-1)`` (line 34; ``from_codes`` does the same at line 96). Kept: the
scripted snake with its ``-1``, the nearest normalised code, the ``repeat_interleave`` along ``-1``. Reduced: one
residual stage and one quantizer, a strided convolution where snac pools with ``avg_pool1d`` (TRT603's), no
weight norm, no einops (``rearrange(latents, "b d t -> (b t) d")`` is a transpose and a reshape). The TorchScript
exporter adds the rank to the ``repeat_interleave``'s ``-1`` in place, and the snake's ``reshape`` shares that
constant: ONNX Runtime refuses the ``Reshape`` ("requested shape:{1,8,2}"). Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "samples"}}


@torch.jit.script
def snake(x, alpha):
    shape = x.shape
    x = x.reshape(shape[0], shape[1], -1)
    x = x + (alpha + 1e-9).reciprocal() * torch.sin(alpha * x).pow(2)
    return x.reshape(shape)


class Snake1d(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(1, channels, 1) + 0.1 * torch.rand(1, channels, 1))

    def forward(self, x):
        return snake(x, self.alpha)


class VectorQuantize(nn.Module):
    def __init__(self, dim: int, codebook_size: int, codebook_dim: int, stride: int) -> None:
        super().__init__()
        self.stride = stride
        self.pool = nn.Conv1d(dim, dim, stride, stride=stride)
        self.in_proj = nn.Conv1d(dim, codebook_dim, 1)
        self.out_proj = nn.Conv1d(codebook_dim, dim, 1)
        self.codebook = nn.Embedding(codebook_size, codebook_dim)

    def forward(self, z):
        z_e = self.in_proj(self.pool(z))
        flat = F.normalize(z_e.transpose(1, 2).reshape(-1, z_e.shape[1]))
        book = F.normalize(self.codebook.weight)
        dist = flat.pow(2).sum(1, keepdim=True) - 2 * flat @ book.t() + book.pow(2).sum(1, keepdim=True).t()
        indices = (-dist).max(1)[1].reshape(z_e.shape[0], -1)
        z_q = F.embedding(indices, self.codebook.weight).transpose(1, 2)
        z_q = self.out_proj(z_e + (z_q - z_e).detach())
        z_q = z_q.repeat_interleave(self.stride, dim=-1)
        return z_q, indices


class TinyCodec(nn.Module):
    """A waveform ``(batch, 1, samples)`` encoded, snake-activated and quantized at a stride of 2."""

    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.conv = nn.Conv1d(1, dim, 7, padding=3)
        self.act = Snake1d(dim)
        self.quantizer = VectorQuantize(dim, 16, 4, stride=2)

    def forward(self, x):
        z = self.act(self.conv(x))
        return self.quantizer(z)


def build() -> nn.Module:
    torch.manual_seed(0)
    return TinyCodec().eval()


def inputs(generator):
    return (torch.rand(1, 1, 40, generator=generator) * 2 - 1,)
