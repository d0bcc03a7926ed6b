"""kornia's SIFT scale-space detector: a keypoint's sigma from its refined scale, ``1.6 * 2 ** ((s + ds) / 3)``.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/feature/sift/scale_space.py:
``_SIFTScaleSpaceDetector._octave`` (lines 414-496). For one octave the difference of Gaussians is
taken between neighbouring levels; each extremum is refined by a quadratic fit (kornia solves the
3x3 system; here only the scale axis, ``ds = -g_s / h_ss`` clamped to half a level), its contrast
is the centre value plus half the gradient times the shift, and its sigma is
``1.6 * torch.exp2((s.to(dog.dtype) + ss) / 3.0) * pixel`` with ``pixel = 0.5 * 2**octave``. kornia
gathers the candidates that pass its extremum tests (``nonzero`` and boolean masks); this reduction
computes the contrast and sigma at every interior level and pixel, densely. Written here in our own
words. Form kept: ``torch.exp2`` of the integer level index cast to the image's dtype plus a
tensor shift, divided by 3. kornia's other ``torch.exp2`` (``spatial_soft_argmax.py``) is the
variant ``kornia_quad_interp_unit_hessian``.
"""

import torch
from torch import nn


class SIFTOctaveResponse(nn.Module):
    def __init__(self, octave: int = 1) -> None:
        super().__init__()
        self.octave = octave

    def forward(self, gaussian):
        dog = (gaussian[:, 0, 1:] - gaussian[:, 0, :-1]).contiguous()
        depth = dog.shape[1]
        c = dog[:, 1:-1]
        gs = (dog[:, 2:] - dog[:, :-2]) * 0.5
        dss = dog[:, 2:] + dog[:, :-2] - 2 * c
        solvable = dss.abs() > 1e-6
        ss = torch.where(solvable, -gs / torch.where(solvable, dss, torch.ones_like(dss)), torch.zeros_like(gs))
        ss = ss.clamp(-0.5, 0.5)
        contrast = c + 0.5 * gs * ss
        s = torch.arange(1, depth - 1, device=dog.device)[None, :, None, None]
        pixel = 0.5 * float(2**self.octave)
        sigma = 1.6 * torch.exp2((s.to(dog.dtype) + ss) / 3.0) * pixel
        return torch.stack((contrast.abs(), sigma), dim=1)


def build() -> nn.Module:
    return SIFTOctaveResponse().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 6, 9, 11, generator=generator),)


DYNAMIC = {"gaussian": {0: "batch", 3: "height", 4: "width"}}
