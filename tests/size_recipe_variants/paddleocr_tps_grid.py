"""PaddleOCR's thin-plate-spline rectifier (STAR-Net, and the TPS transform of its recognisers): a small
network predicts F fiducial points, and the sampling grid for ``F.grid_sample`` is the grid of the
image's own size mapped through the spline. The spline's (F+3)x(F+3) system is built from the
configured points alone and inverted with ``torch.inverse`` on every call; the grid's ranges are built
from ``image.shape[2:]``, handed down as a parameter, and divided by a NumPy row of the same size.

Reduced from easypaddleocr 0.3 (PyPI), pytorchocr/modeling/transforms/tps.py: ``TPS.forward``
(lines 291-301, ``image.shape[2:]`` handed to the grid generator at 294), ``GridGenerator.forward``
(157-186), ``build_C_paddle`` (188-197), ``build_P_paddle`` (199-214, the NumPy rows at 201-207),
``build_inv_delta_C_paddle`` (216-250, ``torch.inverse`` at 249) and ``build_P_hat_paddle``
(252-272). Written here in our own words: a convolution and a mean stand for the localisation
network, 6 fiducial points for 20; the float64 arithmetic, the NumPy division and the inverse are
kept as the original writes them. None of it exports with a dynamic width as written: the inverse
has no symbolic (TRT338), and the NumPy rows keep the example's width (TRT711).
"""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class GridGenerator(nn.Module):
    def __init__(self, fiducials):
        super().__init__()
        self.fiducials = fiducials
        self.eps = 1e-6
        self.fc = nn.Linear(2 * fiducials, 6)

    def forward(self, points, size):
        ctrl = self.control_points()
        grid = self.sampling_grid(size)
        inverse = self.inverse_kernel(ctrl).type(torch.float32)
        kernel = self.sample_kernel(ctrl, torch.as_tensor(grid)).type(torch.float32)
        extra = self.fc(points.reshape([points.shape[0], -1])).reshape([-1, 3, 2])
        transform = torch.matmul(inverse, torch.cat([points, extra], dim=1))
        return torch.matmul(kernel, transform)

    def control_points(self):
        half = self.fiducials // 2
        xs = torch.linspace(-1.0, 1.0, half, dtype=torch.float64)
        top = torch.stack([xs, -torch.ones([half], dtype=torch.float64)], dim=1)
        bottom = torch.stack([xs, torch.ones([half], dtype=torch.float64)], dim=1)
        return torch.cat([top, bottom], dim=0)

    def sampling_grid(self, size):
        rows, cols = size
        across = (torch.arange(-cols, cols, 2, dtype=torch.float64) + 1.0) / torch.as_tensor(
            np.array([cols]).astype(np.float64))
        down = (torch.arange(-rows, rows, 2, dtype=torch.float64) + 1.0) / torch.as_tensor(
            np.array([rows]).astype(np.float64))
        points = torch.stack(torch.meshgrid([across, down], indexing="ij"), dim=2)
        return points.permute(1, 0, 2).reshape([-1, 2])

    def inverse_kernel(self, ctrl):
        n = self.fiducials
        dist = torch.zeros((n, n), dtype=torch.float64)
        for i in range(n):
            for j in range(i, n):
                if i == j:
                    dist[i, j] = 1
                else:
                    dist[i, j] = dist[j, i] = torch.norm(ctrl[i] - ctrl[j])
        radial = dist ** 2 * torch.log(dist)
        system = torch.cat([
            torch.cat([torch.ones((n, 1), dtype=torch.float64), ctrl, radial], dim=1),
            torch.cat([torch.zeros((2, 3), dtype=torch.float64), ctrl.permute(1, 0)], dim=1),
            torch.cat([torch.zeros((1, 3), dtype=torch.float64), torch.ones((1, n), dtype=torch.float64)], dim=1),
        ], dim=0)
        return torch.inverse(system)

    def sample_kernel(self, ctrl, grid):
        count = grid.shape[0]
        norm = torch.norm(grid.unsqueeze(1) - ctrl.unsqueeze(0), p=2, dim=2)
        radial = norm ** 2 * torch.log(norm + self.eps)
        return torch.cat([torch.ones((count, 1), dtype=torch.float64), grid, radial], dim=1)


class Rectifier(nn.Module):
    def __init__(self, fiducials=6):
        super().__init__()
        self.features = nn.Conv2d(3, 8, 3, padding=1)
        self.points = nn.Linear(8, 2 * fiducials)
        self.grid = GridGenerator(fiducials)

    def forward(self, image):
        pooled = self.features(image).relu().mean(dim=(2, 3))
        points = torch.tanh(self.points(pooled)).reshape([image.shape[0], -1, 2])
        grid = self.grid(points, image.shape[2:]).reshape([-1, image.shape[2], image.shape[3], 2])
        return F.grid_sample(image, grid, align_corners=True)


def build():
    torch.manual_seed(0)
    return Rectifier().eval()


def inputs(generator=None):
    return (torch.rand(1, 3, 8, 20, generator=generator or torch.Generator().manual_seed(0)),)


DYNAMIC = {"image": {0: "batch", 3: "width"}}
