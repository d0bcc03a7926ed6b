"""``F.affine_grid`` exported as a base grid times the affine matrices.

The TorchScript exporter has no symbolic for ``aten::affine_grid_generator`` before opset 20
(torch 2.13 exports at 17), and TensorRT parses no ``AffineGrid`` at any opset. PyTorch builds
the grid itself from simpler operators (``AffineGridGenerator.cpp``): a base grid of ``(x, y,
1)`` with ``x`` and ``y`` from ``linspace(-1, 1, n)`` (scaled by ``(n - 1) / n`` without
``align_corners``, and 0 for a single step), multiplied by each ``theta`` transposed. The helper
does the same operations in the same order (``linspace``, ``*``, ``/``, ``bmm``), so the graph
holds ops TensorRT parses: Range (``linspace``), Mul, Div, Expand, Concat, MatMul.
A size read from a shape while exporting is no Python int (a traced value under the TorchScript
exporter, a symbolic one under dynamo's, where ``torch.linspace`` would fix it to the example's):
its points come from a range, with ``torch.linspace``'s two-sided formula (within half a float
epsilon of it, and the single point 0 for one step chosen in the graph), so the grid follows the
size under both exporters.
``_trt_affine_grid`` is ``F.affine_grid`` itself everywhere except inside ``torch.onnx.export``,
and there too for what it does not take (5-D sizes, a theta of another shape or type), so
those errors stay torch's; a size that is not positive raises its ValueError.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting
from trtcodemod.helpers.splitting import _trt_untraced_int


def _trt_affine_grid(theta, size: list[int], align_corners: bool | None = None):
    """``F.affine_grid(theta, size, align_corners)``; while exporting a 2-D grid, the base grid
    times ``theta`` transposed, as PyTorch computes it."""
    if torch.jit.is_scripting():
        return torch.nn.functional.affine_grid(theta, size, align_corners=align_corners)
    if _trt_onnx_exporting() and isinstance(theta, torch.Tensor) and theta.is_floating_point() and theta.dim() == 3:
        spatial = len(size) - 2  # the size's length is known here, when the call runs
        # theta's last two sizes are read outside the trace: they choose torch's path or this one, and a
        # traced comparison of them would be a bool the exporter bakes (with a TracerWarning) at every call
        rows, columns = _trt_untraced_int(theta.shape[-2]), _trt_untraced_int(theta.shape[-1])
        if spatial in (2, 3) and rows == spatial and columns == spatial + 1:
            if any(isinstance(s, int) and s <= 0 for s in size):
                raise ValueError(f"Expected non-zero, positive output size. Got {size}")  # as F.affine_grid
            if spatial == 2:
                return _trt_affine_grid_2d(theta, size, bool(align_corners))
            return _trt_affine_grid_3d(theta, size, bool(align_corners))
    return torch.nn.functional.affine_grid(theta, size, align_corners=align_corners)


def _trt_affine_grid_2d(theta, size, align_corners: bool):
    """The ``(N, H, W, 2)`` grid of ``theta`` ``(N, 2, 3)`` for ``size`` ``(N, C, H, W)``."""
    n, height, width = size[0], size[2], size[3]
    xs = _trt_linspace_from_neg_one(theta, width, align_corners)
    ys = _trt_linspace_from_neg_one(theta, height, align_corners)
    ones = torch.ones(height, width, 1, dtype=theta.dtype, device=theta.device)
    base = torch.cat([xs.reshape(1, -1, 1).expand(height, width, 1) * ones,
                      ys.reshape(-1, 1, 1).expand(height, width, 1) * ones, ones], dim=-1)
    grid = base.reshape(1, height * width, 3).expand(n, height * width, 3).bmm(theta.transpose(1, 2))
    return grid.reshape(n, height, width, 2)


def _trt_affine_grid_3d(theta, size, align_corners: bool):
    """The ``(N, D, H, W, 3)`` grid of ``theta`` ``(N, 3, 4)`` for ``size`` ``(N, C, D, H, W)``: the base
    grid of ``(x, y, z, 1)`` (``x`` along the width, ``z`` along the depth) times ``theta`` transposed."""
    n, depth, height, width = size[0], size[2], size[3], size[4]
    xs = _trt_linspace_from_neg_one(theta, width, align_corners)
    ys = _trt_linspace_from_neg_one(theta, height, align_corners)
    zs = _trt_linspace_from_neg_one(theta, depth, align_corners)
    ones = torch.ones(depth, height, width, 1, dtype=theta.dtype, device=theta.device)
    base = torch.cat([xs.reshape(1, 1, -1, 1).expand(depth, height, width, 1) * ones,
                      ys.reshape(1, -1, 1, 1).expand(depth, height, width, 1) * ones,
                      zs.reshape(-1, 1, 1, 1).expand(depth, height, width, 1) * ones, ones], dim=-1)
    points = depth * height * width
    grid = base.reshape(1, points, 4).expand(n, points, 4).bmm(theta.transpose(1, 2))
    return grid.reshape(n, depth, height, width, 3)


def _trt_linspace_from_neg_one(theta, steps, align_corners: bool):
    """PyTorch's ``linspace_from_neg_one``: ``steps`` points over [-1, 1], pulled in by
    ``(steps - 1) / steps`` without ``align_corners``, and ``[0]`` for one step."""
    if isinstance(steps, int):
        if steps <= 1:
            return torch.zeros(1, dtype=theta.dtype, device=theta.device)
        points = torch.linspace(-1, 1, steps, dtype=theta.dtype, device=theta.device)
    else:  # a traced or symbolic size: no branch on it, and no torch.linspace, which fixes it
        points = _trt_two_sided_range(theta, steps)
    return points if align_corners else points * (steps - 1) / steps


def _trt_two_sided_range(theta, steps):
    """``linspace(-1, 1, steps)`` from a range, as PyTorch's kernel computes it: from -1 up to the
    middle, from 1 down after it (within half a float epsilon of ``torch.linspace``); ``[0]`` for
    one step, chosen in the graph, since a traced size must not decide it."""
    index = torch.arange(steps, dtype=theta.dtype, device=theta.device)
    count = index.new_ones(()) * steps
    step = 2.0 / (count - 1)
    points = torch.where(index < count // 2, index * step - 1, 1 - (count - 1 - index) * step)
    return torch.where(count > 1, points, torch.zeros_like(points))
