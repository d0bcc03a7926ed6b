"""An affine warp whose traced branch builds its grid with ``F.affine_grid``, corners aligned: kornia.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/geometry/transform/imgwarp.py, ``warp_affine``
(lines 446-520): the pixel matrix is normalized to [-1, 1] for the source and output sizes
(``normalize_homography``), inverted in closed form, and, under ``torch.jit.is_tracing()`` ("a
single op the exporter lowers cleanly"), ``F.affine_grid(src_norm_trans_dst_norm[:, :2, :],
[B_M, C, dsize[0], dsize[1]], align_corners=align_corners)`` (a list of the matrices' batch, the
channels and a size tuple's entries; ``align_corners`` True by default), then ``grid_sample``.
Written here in our own words with the output size the input's, the normalization and the
inverses spelled out, and the eager fast path (a hand-built grid) left out.
"""

import torch
import torch.nn.functional as F
from torch import nn


def _normalization(height, width, like):
    """Pixels to [-1, 1] with corners aligned (a one-pixel side maps to 0), and back."""
    sx = 2.0 / max(width - 1, 1)
    sy = 2.0 / max(height - 1, 1)
    forth = like.new_tensor([[sx, 0.0, -1.0], [0.0, sy, -1.0], [0.0, 0.0, 1.0]])
    back = like.new_tensor([[1.0 / sx, 0.0, 1.0 / sx], [0.0, 1.0 / sy, 1.0 / sy], [0.0, 0.0, 1.0]])
    return forth, back


def _affine_inverse(matrix):
    """The inverse of ``(B, 3, 3)`` affine matrices, from the 2 x 2 block's adjugate."""
    a, b, c, d = matrix[:, 0, 0], matrix[:, 0, 1], matrix[:, 1, 0], matrix[:, 1, 1]
    det = a * d - b * c
    inv2 = torch.stack([d, -b, -c, a], dim=-1).reshape(-1, 2, 2) / det[:, None, None]
    shift = -(inv2 @ matrix[:, :2, 2:])
    bottom = matrix[:, 2:, :]
    return torch.cat([torch.cat([inv2, shift], dim=-1), bottom], dim=1)


class WarpAffine(nn.Module):
    def __init__(self, align_corners: bool = True) -> None:
        super().__init__()
        self.align_corners = align_corners

    def forward(self, src, M):
        B, C, H, W = src.size()
        B_M = M.shape[0]
        dsize = (H, W)
        M_3x3 = torch.cat([M, M.new_tensor([0.0, 0.0, 1.0]).expand(B_M, 1, 3)], dim=1)
        norm, norm_inv = _normalization(H, W, M)
        dst_norm_trans_src_norm = norm @ M_3x3 @ norm_inv
        src_norm_trans_dst_norm = _affine_inverse(dst_norm_trans_src_norm)
        grid = F.affine_grid(src_norm_trans_dst_norm[:, :2, :], [B_M, C, dsize[0], dsize[1]],
                             align_corners=self.align_corners)
        return F.grid_sample(src, grid, mode="bilinear", padding_mode="zeros", align_corners=self.align_corners)


def build() -> nn.Module:
    return WarpAffine()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    M = torch.tensor([[0.9, 0.2, 1.5], [-0.1, 1.1, -0.5]]).repeat(2, 1, 1)
    M = M + 0.05 * torch.randn(2, 2, 3, generator=generator)
    return torch.randn(2, 3, 7, 9, generator=generator), M


DYNAMIC = {"src": {0: "batch"}, "M": {0: "batch"}}  # the normalization takes Python numbers from H and W
