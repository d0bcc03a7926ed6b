"""Left alone (not a counted variant): AudioSeal's training crop in audiocraft masks part of the watermark
and ends with ``watermark *= mask``, an augmented assignment to a parameter that the caller passes as a plain
name (``self.crop(y, watermark)``). Here the parameter is a tensor: the body reads ``watermark.size(-1)`` and
``watermark.shape[-1]`` inside ``int(...)`` and ``round(...)``, which is a number made from its size, not the
parameter used as a number. The in-place update of the caller's tensor is eager mode's own behaviour (the
tensor the caller holds is masked), so rebinding it (``watermark = watermark * mask``) would change what the
caller sees: TRT730 must not rewrite it, and since this session reads a parameter read through ``.shape``,
``.size()``, ``.dim()``, ``.numel()``, ``.device`` or ``.dtype`` as a tensor, it does not.

Reduced from facebookresearch/audiocraft @ 896ec7c47f5e5d1e5aa1e4b260c4405328bf009d,
audiocraft/solvers/watermark.py: ``WatermarkSolver.crop`` (lines 185-249; the update at line 248) and its
call in ``run_step`` (line 258). Written here in our own words: only the padding branch is kept, with fixed
fractions of the length where the original draws them with ``torch.rand``, so that runs can be compared.
"""

import torch
from torch import nn


class WatermarkCrop(nn.Module):
    def __init__(self, start: float = 0.2, finish: float = 0.7) -> None:
        super().__init__()
        self.start, self.finish = start, finish

    def crop(self, signal, watermark):
        mask = torch.ones_like(watermark)
        start = int(self.start * watermark.size(-1))
        finish = int(self.finish * watermark.shape[-1])
        mask[:, :, :start] = 0
        mask[:, :, finish:] = 0
        signal *= mask
        watermark *= mask
        return signal, watermark, mask

    def forward(self, x, watermark):
        y = x.clone()
        y, watermark, mask = self.crop(y, watermark)
        return y + watermark


def build() -> nn.Module:
    return WatermarkCrop()


def inputs(generator: torch.Generator, batch: int = 2, time: int = 20) -> tuple[torch.Tensor, ...]:
    return torch.randn(batch, 1, time, generator=generator), 0.1 * torch.randn(batch, 1, time, generator=generator)


DYNAMIC = {"x": {0: "batch", 2: "time"}, "watermark": {0: "batch", 2: "time"}}
CALL = "watermark *= mask"
