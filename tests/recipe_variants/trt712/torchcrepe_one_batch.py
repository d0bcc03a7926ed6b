"""torchcrepe frames the audio for its network in batches: ``total_frames = 1 + int(audio.size(1) //
hop_length)``, ``batch_size = total_frames if batch_size is None else batch_size``, then ``for i in
range(0, total_frames, batch_size):`` slices ``audio[:, None, None, start:end]`` with ``end =
min(audio.size(1), (i + batch_size - 1) * hop_length + WINDOW_SIZE)`` and unfolds it into frames. With
the default batch size the loop runs once at every length (its step is its stop), so the count the
trace unrolls is every length's; the ``int`` and ``min`` on the sizes are what bake the frames.

Reduced from torchcrepe 0.0.24 (the PyPI wheel, github.com/maxrmorrison/torchcrepe), torchcrepe/core.py:
``preprocess`` (lines 630-705), as zoo 62's ``torchcrepe_tiny_embedding`` runs it. Written here in our own
words: the window is 16 samples instead of 1024, the frames are normalised and projected by one linear
layer instead of the CREPE network, and resampling and the device move are left out.
"""

import torch
from torch import nn

WINDOW_SIZE = 16


def frames_of(audio, hop_length: int = 4, batch_size=None):
    total_frames = 1 + int(audio.size(1) // hop_length)
    audio = torch.nn.functional.pad(audio, (WINDOW_SIZE // 2, WINDOW_SIZE // 2))
    batch_size = total_frames if batch_size is None else batch_size
    for i in range(0, total_frames, batch_size):
        start = max(0, i * hop_length)
        end = min(audio.size(1), (i + batch_size - 1) * hop_length + WINDOW_SIZE)
        frames = torch.nn.functional.unfold(audio[:, None, None, start:end], kernel_size=(1, WINDOW_SIZE),
                                            stride=(1, hop_length))
        frames = frames.transpose(1, 2).reshape(-1, WINDOW_SIZE)
        frames = frames - frames.mean(dim=1, keepdim=True)
        yield frames / torch.clamp(frames.std(dim=1, keepdim=True), min=1e-10)


class Embedder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.project = nn.Linear(WINDOW_SIZE, 4)

    def forward(self, audio):
        return torch.cat([self.project(frames) for frames in frames_of(audio)], 0)


def build() -> nn.Module:
    return Embedder()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 64, generator=generator),)


DYNAMIC = {"audio": {1: "time"}}
