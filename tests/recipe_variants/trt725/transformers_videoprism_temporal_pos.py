"""VideoPrism's temporal embeddings in transformers: the learned per-frame position embeddings
``(1, frames, hidden)`` resized to the clip's number of frames by treating them as a one-channel
image, ``unsqueeze(1)`` then ``size=(target_emb_length, dim)`` (the hidden axis keeps its size),
bilinearly with the literal ``antialias=True`` and no ``align_corners``, then ``squeeze(1)``.
The output size follows the input's sequence length.

Reduced from transformers 5.24.0 (the PyPI wheel the second zoo unpacks),
transformers/models/videoprism/modeling_videoprism.py, ``VideoPrismTemporalEmbeddings``
lines 208-274 (``interpolate_pos_encoding`` lines 221-247 with the call at lines 240-245, and
``forward`` adding the result to the ``(batch * patches, frames, hidden)`` tokens). Written here in
our own words: the tokens come in already as ``(batch, frames, hidden)``; the dropout and the
early return when the lengths match outside tracing are left out (an antialiased resize to the
same size is the identity).
"""

import torch
from torch import nn


class VideoPrismTemporalEmbeddings(nn.Module):
    def __init__(self, num_frames: int = 8, hidden_size: int = 6) -> None:
        super().__init__()
        self.position_embeddings = nn.Parameter(torch.randn(1, num_frames, hidden_size))

    def interpolate_pos_encoding(self, embeddings: torch.Tensor) -> torch.Tensor:
        target_emb_length = embeddings.shape[1]
        source_emb = self.position_embeddings
        dim = embeddings.shape[-1]
        source_emb = source_emb.unsqueeze(1)
        source_emb = nn.functional.interpolate(
            source_emb,
            size=(target_emb_length, dim),
            mode="bilinear",
            antialias=True,
        )
        return source_emb.squeeze(1)

    def forward(self, embeddings: torch.Tensor) -> torch.Tensor:
        return embeddings + self.interpolate_pos_encoding(embeddings)


def build() -> nn.Module:
    return VideoPrismTemporalEmbeddings()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 6, generator=generator),)


DYNAMIC = {"embeddings": {0: "batch", 1: "frames"}}
