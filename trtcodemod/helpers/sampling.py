"""Volumetric ``F.grid_sample`` (5-D), exported as gathers of the eight (or the nearest) voxels.

The TorchScript exporter refuses ``F.grid_sample`` on a 5-D input ("GridSample with 5D
volumetric input"), and TensorRT parses ONNX ``GridSample`` on 4-D inputs only. Registration
networks warp volumes by a displacement field this way (monai's ``Warp``). Sampling is a
weighted sum of the voxels around each grid point: PyTorch's kernel unnormalizes the point,
takes its eight neighbours and their trilinear weights (or the nearest voxel), and counts a
neighbour outside the volume as zero (``padding_mode="zeros"``), clamps the point into the
volume (``"border"``) or reflects it at the volume's edges first (``"reflection"``). ``_trt_grid_sample`` is ``F.grid_sample`` itself everywhere except inside
``torch.onnx.export`` on a 5-D input, where it computes that sum with ``Floor``, ``Gather``
and ``Where`` nodes.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros",
                     align_corners: bool | None = None):
    """``F.grid_sample(input, grid, mode, padding_mode, align_corners)``; while exporting a 5-D
    input, trilinear or nearest sampling by gathers.

    Other ranks, ``mode="bicubic"`` and integer inputs keep ``F.grid_sample`` while exporting too.
    """
    if torch.jit.is_scripting():
        return torch.nn.functional.grid_sample(input, grid, mode, padding_mode, align_corners)
    if (_trt_onnx_exporting() and isinstance(input, torch.Tensor) and isinstance(grid, torch.Tensor)
            and input.dim() == 5 and grid.dim() == 5 and mode in ("bilinear", "nearest")
            and padding_mode in ("zeros", "border", "reflection") and input.is_floating_point()):
        return _trt_grid_sample_3d(input, grid, mode, padding_mode, bool(align_corners))
    return torch.nn.functional.grid_sample(input, grid, mode, padding_mode, align_corners)


@torch.jit.unused
def _trt_grid_unnormalize(coordinate, size, align_corners: bool, border: bool, reflection: bool = False):
    """A grid coordinate in [-1, 1] as a voxel position, as PyTorch's kernel computes it (never
    runs when scripted); clamped into the volume for ``padding_mode="border"``, reflected at its
    edges and then clamped for ``"reflection"``."""
    if align_corners:
        position = (coordinate + 1) / 2 * (size - 1)
    else:
        position = ((coordinate + 1) * size - 1) / 2
    if reflection:
        position = _trt_reflect(position, size, align_corners)
        # The kernel's clamp, min(size - 1, max(p, 0)), takes a NaN (an infinite or NaN point
        # folded) to the far edge.
        position = torch.where(position.isnan(), torch.full_like(position, 1.0) * (size - 1), position)
    if border or reflection:
        position = torch.where(position > size - 1, torch.full_like(position, 1.0) * (size - 1), position.clamp(min=0))
    return position


@torch.jit.unused
def _trt_reflect(position, size, align_corners: bool):
    """PyTorch's ``reflect_coordinates``: the position folded back and forth over the volume's
    extent (voxel centres with ``align_corners``, voxel edges without), from its low end; a single
    voxel with ``align_corners`` is position 0 (never runs when scripted)."""
    low = position.new_zeros(()) if align_corners else position.new_full((), -0.5)
    span = (position.new_ones(()) * size - 1) if align_corners else position.new_ones(()) * size
    distance = (position - low).abs()
    extra = torch.fmod(distance, span)
    flips = torch.floor(distance / span)
    folded = torch.where(torch.remainder(flips, 2) == 0, extra + low, span - extra + low)
    return torch.where(span == 0, torch.zeros_like(folded), folded)


@torch.jit.unused
def _trt_grid_sample_3d(input, grid, mode: str, padding_mode: str, align_corners: bool):
    """The sampled volume of ``input`` (N, C, D, H, W) at ``grid`` (N, D', H', W', 3) (never runs when scripted)."""
    # grid_sample's own checks (matching batch, a 3-vector grid): the same error; the result is
    # never used, so the exported graph drops the node.
    torch.nn.functional.grid_sample(input, grid, mode, padding_mode, align_corners)
    batch, channels = input.shape[0], input.shape[1]
    depth, height, width = input.shape[2], input.shape[3], input.shape[4]
    border, reflection = padding_mode == "border", padding_mode == "reflection"
    x = _trt_grid_unnormalize(grid[..., 0], width, align_corners, border, reflection)
    y = _trt_grid_unnormalize(grid[..., 1], height, align_corners, border, reflection)
    z = _trt_grid_unnormalize(grid[..., 2], depth, align_corners, border, reflection)
    volume = input.reshape(batch, channels, depth * height * width)
    out_shape = (batch, channels, grid.shape[1], grid.shape[2], grid.shape[3])

    def voxel(xi, yi, zi):
        """The values at integer positions (outside the volume: 0), as (N, C, D', H', W')."""
        inside = (xi >= 0) & (xi <= width - 1) & (yi >= 0) & (yi <= height - 1) & (zi >= 0) & (zi <= depth - 1)
        # A neighbour outside reads voxel 0 (its value is dropped below): no clamp to a size, which
        # the dynamo exporter's graph cannot take from a symbolic bound.
        index = torch.where(inside, (zi * height + yi) * width + xi, torch.zeros_like(xi))
        points = grid.shape[1] * grid.shape[2] * grid.shape[3]  # a count, never -1: an empty batch reshapes
        index = index.long().reshape(batch, 1, points).expand(batch, channels, points)
        values = volume.gather(2, index).reshape(out_shape)
        return values, inside.unsqueeze(1)

    if mode == "nearest":
        values, inside = voxel(x.round(), y.round(), z.round())  # round half to even, as nearbyint
        return torch.where(inside, values, torch.zeros_like(values))
    x0, y0, z0 = x.floor(), y.floor(), z.floor()
    x1, y1, z1 = x0 + 1, y0 + 1, z0 + 1
    out = torch.zeros(out_shape, dtype=input.dtype, device=input.device)
    # The kernel's order: top (z0) before bottom, north (y0) before south, west (x0) before east.
    for zi, wz in ((z0, z1 - z), (z1, z - z0)):
        for yi, wy in ((y0, y1 - y), (y1, y - y0)):
            for xi, wx in ((x0, x1 - x), (x1, x - x0)):
                values, inside = voxel(xi, yi, zi)
                weight = (wx * wy * wz).unsqueeze(1)
                # A neighbour outside the volume adds nothing (not 0 * its clamped value, which
                # could be an infinity).
                out = out + torch.where(inside, values * weight, torch.zeros_like(values))
    return out
