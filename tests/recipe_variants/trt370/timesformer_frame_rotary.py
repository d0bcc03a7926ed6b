"""TimeSformer's rotary embedding over frames: an int64 range of frame indices times float inverse frequencies.

Reduced from timesformer-pytorch 0.4.1 (PyPI; lucidrains/TimeSformer-pytorch), timesformer_pytorch/rotary.py:
``RotaryEmbedding`` (lines 51-62) keeps ``inv_freqs`` as a float32 buffer and, in ``forward(n, device)``, takes
``seq = torch.arange(n, device=device)`` (int64, line 58) and ``einsum('i, j -> i j', seq, self.inv_freqs)``
(line 59, ``from torch import einsum``), doubles the frequencies and returns their sines and cosines;
``apply_rot_emb`` (lines 13-20) rotates queries and keys with them, and ``TimeSformer.forward`` calls it with the
number of frames read from the video (timesformer_pytorch.py:233). Kept: the range left int64, the imported
``einsum`` with spaces in its equation, the doubling and the rotation of the tokens. Reduced: no einops
(``rearrange(freqs, 'n d -> () n d')`` is an ``unsqueeze(0)``), the tokens themselves rotated instead of
queries and keys. Eager mode promotes the range to float32; the exported ``Einsum`` keeps int64 and float32,
and ONNX Runtime refuses to load the graph. Written here in our own words.
"""

import torch
from torch import einsum, nn

DYNAMIC = {"x": {0: "batch", 1: "frames"}}


class FrameRotary(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        inv_freqs = 1. / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freqs", inv_freqs)

    def forward(self, n, device):
        seq = torch.arange(n, device=device)
        freqs = einsum('i, j -> i j', seq, self.inv_freqs)
        freqs = torch.cat((freqs, freqs), dim=-1).unsqueeze(0)
        return freqs.sin(), freqs.cos()


def rotate_every_two(x):
    pairs = x.reshape(*x.shape[:-1], x.shape[-1] // 2, 2)
    x1, x2 = pairs.unbind(dim=-1)
    return torch.stack((-x2, x1), dim=-1).reshape(x.shape)


class FrameTokens(nn.Module):
    """Frame tokens ``(batch, frames, dim)`` projected and rotated by their frame's position."""

    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.frame_rot_emb = FrameRotary(dim)

    def forward(self, x):
        sin, cos = self.frame_rot_emb(x.shape[1], device=x.device)
        t = self.proj(x)
        return t * cos + rotate_every_two(t) * sin


def build() -> nn.Module:
    torch.manual_seed(0)
    return FrameTokens().eval()


def inputs(generator):
    return (torch.rand(2, 5, 8, generator=generator),)
