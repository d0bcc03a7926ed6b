"""kornia's sub-pixel refinement of 3-D extrema: the Cramer system scaled by a power of two first.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/geometry/subpix/spatial_soft_argmax.py:
``_scale_to_unit_hessian`` (lines 678-721) and ``_solve_cramer_sym3x3`` (lines 783-855), as
``ConvQuadInterp3d`` (line 1143) uses them on a (batch, channels, scale, height, width) response.
The Hessian entries and the gradient come from central differences; before solving, the nine
coefficients are scaled by ``2**-e``, where ``e`` is the floor of ``log2`` of the largest finite
Hessian magnitude (capped so the right-hand side stays below ``2**64`` and clamped to float32's
normal range). The factor is built as ``power = torch.exp2(exponent.abs())``, then ``power`` or its
reciprocal by the sign of the exponent. Cramer's rule then gives the three shifts where the
determinant is not negligible. Written here in our own words; kornia's non-maximum suppression and
its strict per-pixel masks are left out. Form kept: ``torch.exp2`` of an ``.abs()`` of a tensor,
inside a helper function, its result used through ``torch.where``.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def _scale_to_unit_hessian(dxx, dyy, dss, dxy, dxs, dys, r0, r1, r2):
    def _exponent(*entries):
        magnitude = torch.stack([t.abs() for t in entries]).amax(0).detach()
        usable = torch.isfinite(magnitude) & (magnitude > 0)
        exponent = torch.floor(torch.log2(torch.where(usable, magnitude, torch.ones_like(magnitude))))
        return torch.where(usable, exponent, torch.full_like(exponent, -math.inf))

    limit = -math.log2(torch.finfo(dxx.dtype).tiny)
    hessian = _exponent(dxx, dyy, dss, dxy, dxs, dys)
    hessian = torch.where(torch.isfinite(hessian), hessian, torch.zeros_like(hessian))
    exponent = torch.maximum(hessian, (_exponent(r0, r1, r2) - 63).clamp(max=0)).clamp(-limit, limit)
    power = torch.exp2(exponent.abs())
    factor = torch.where(exponent > 0, power.reciprocal(), power)
    return tuple(t * factor for t in (dxx, dyy, dss, dxy, dxs, dys, r0, r1, r2))


def _solve_cramer_sym3x3(dxx, dyy, dss, dxy, dxs, dys, r0, r1, r2):
    dxx, dyy, dss, dxy, dxs, dys, r0, r1, r2 = _scale_to_unit_hessian(dxx, dyy, dss, dxy, dxs, dys, r0, r1, r2)
    c00 = dyy * dss - dys * dys
    c01 = dxs * dys - dxy * dss
    c02 = dxy * dys - dxs * dyy
    det = dxx * c00 + dxy * c01 + dxs * c02
    solved = det.abs() > 1e-6
    safe = torch.where(solved, det, torch.ones_like(det))
    sx = (r0 * c00 + r1 * c01 + r2 * c02) / safe
    sy = (dxx * (r1 * dss - dys * r2) - r0 * (dxy * dss - dys * dxs) + dxs * (dxy * r2 - r1 * dxs)) / safe
    ss = (dxx * (dyy * r2 - r1 * dys) - dxy * (dxy * r2 - r1 * dxs) + r0 * (dxy * dys - dyy * dxs)) / safe
    zero = torch.zeros_like(sx)
    return (torch.where(solved, sx, zero), torch.where(solved, sy, zero), torch.where(solved, ss, zero),
            solved.to(sx.dtype))


class ConvQuadInterp3d(nn.Module):
    def forward(self, x):
        p = F.pad(x, (1, 1, 1, 1, 1, 1), mode="replicate")
        c = p[:, :, 1:-1, 1:-1, 1:-1]
        gx = (p[:, :, 1:-1, 1:-1, 2:] - p[:, :, 1:-1, 1:-1, :-2]) * 0.5
        gy = (p[:, :, 1:-1, 2:, 1:-1] - p[:, :, 1:-1, :-2, 1:-1]) * 0.5
        gs = (p[:, :, 2:, 1:-1, 1:-1] - p[:, :, :-2, 1:-1, 1:-1]) * 0.5
        dxx = p[:, :, 1:-1, 1:-1, 2:] + p[:, :, 1:-1, 1:-1, :-2] - 2 * c
        dyy = p[:, :, 1:-1, 2:, 1:-1] + p[:, :, 1:-1, :-2, 1:-1] - 2 * c
        dss = p[:, :, 2:, 1:-1, 1:-1] + p[:, :, :-2, 1:-1, 1:-1] - 2 * c
        dxy = (p[:, :, 1:-1, 2:, 2:] - p[:, :, 1:-1, 2:, :-2] - p[:, :, 1:-1, :-2, 2:] + p[:, :, 1:-1, :-2, :-2]) * 0.25
        dxs = (p[:, :, 2:, 1:-1, 2:] - p[:, :, 2:, 1:-1, :-2] - p[:, :, :-2, 1:-1, 2:] + p[:, :, :-2, 1:-1, :-2]) * 0.25
        dys = (p[:, :, 2:, 2:, 1:-1] - p[:, :, 2:, :-2, 1:-1] - p[:, :, :-2, 2:, 1:-1] + p[:, :, :-2, :-2, 1:-1]) * 0.25
        sx, sy, ss, solved = _solve_cramer_sym3x3(dxx, dyy, dss, dxy, dxs, dys, -gx, -gy, -gs)
        return torch.stack((sx, sy, ss, solved), dim=2)


def build() -> nn.Module:
    return ConvQuadInterp3d().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 2, 4, 6, 7, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "scale", 3: "height", 4: "width"}}
