"""Convolutional Occupancy Networks' decoder: a feature volume sampled at 3-D query points.

Reduced from autonomousvision/convolutional_occupancy_networks: src/conv_onet/models/decoder.py at
commit 23337ae2a93d33e5f5a9ca107333bc301e5e74d6, ``LocalDecoder.sample_plane_feature`` and
``sample_grid_feature`` (lines 51-64) and ``LocalDecoder.forward`` (lines 67-93); src/common.py at
commit 8fe72f056ac012bce410e24e967f92bb38d0de07, ``normalize_coordinate`` and
``normalize_3d_coordinate`` (the unit-cube normalization with its in-place clamps behind
``if ... .max() >= 1`` / ``.min() < 0``); the residual block of src/layers.py (``ResnetBlockFC``).
Query points ``(B, T, 3)`` are scaled into ``[0, 1]``, given two unit axes (``p_nor[:, :, None,
None]``) and mapped to ``[-1, 1]`` (``2.0 * p_nor - 1.0``); the volume ``(B, C, D, H, W)`` is read
with ``F.grid_sample(c, vgrid, padding_mode='border', align_corners=True, mode=self.sample_mode)``
and the two unit axes squeezed off in the same chain. A ground plane's features ``(B, C, H, W)``
are read the same way at two of the coordinates (a 4-D ``grid_sample``, which exports as it is);
both are summed into the point features of a small residual MLP. Written here in our own words with
two blocks and a small width; the feature planes come in a dict, as in the original.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def normalize_coordinate(p, padding=0.1, plane="xz"):
    if plane == "xz":
        xy = p[:, :, [0, 2]]
    elif plane == "xy":
        xy = p[:, :, [0, 1]]
    else:
        xy = p[:, :, [1, 2]]
    xy_new = xy / (1 + padding + 10e-6) + 0.5
    if xy_new.max() >= 1:
        xy_new[xy_new >= 1] = 1 - 10e-6
    if xy_new.min() < 0:
        xy_new[xy_new < 0] = 0.0
    return xy_new


def normalize_3d_coordinate(p, padding=0.1):
    p_nor = p / (1 + padding + 10e-4) + 0.5
    if p_nor.max() >= 1:
        p_nor[p_nor >= 1] = 1 - 10e-4
    if p_nor.min() < 0:
        p_nor[p_nor < 0] = 0.0
    return p_nor


class ResnetBlockFC(nn.Module):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.fc_0 = nn.Linear(size, size)
        self.fc_1 = nn.Linear(size, size)

    def forward(self, x):
        net = self.fc_0(F.relu(x))
        return x + self.fc_1(F.relu(net))


class LocalDecoder(nn.Module):
    def __init__(self, dim=3, c_dim=4, hidden_size=8, n_blocks=2, sample_mode="bilinear", padding=0.1) -> None:
        super().__init__()
        self.c_dim = c_dim
        self.n_blocks = n_blocks
        self.fc_c = nn.ModuleList([nn.Linear(c_dim, hidden_size) for _ in range(n_blocks)])
        self.fc_p = nn.Linear(dim, hidden_size)
        self.blocks = nn.ModuleList([ResnetBlockFC(hidden_size) for _ in range(n_blocks)])
        self.fc_out = nn.Linear(hidden_size, 1)
        self.actvn = F.relu
        self.sample_mode = sample_mode
        self.padding = padding

    def sample_plane_feature(self, p, c, plane="xz"):
        xy = normalize_coordinate(p.clone(), plane=plane, padding=self.padding)
        vgrid = 2.0 * xy[:, :, None].float() - 1.0
        return F.grid_sample(c, vgrid, padding_mode="border", align_corners=True, mode=self.sample_mode).squeeze(-1)

    def sample_grid_feature(self, p, c):
        p_nor = normalize_3d_coordinate(p.clone(), padding=self.padding)
        p_nor = p_nor[:, :, None, None].float()
        vgrid = 2.0 * p_nor - 1.0
        c = F.grid_sample(c, vgrid, padding_mode="border", align_corners=True, mode=self.sample_mode).squeeze(-1).squeeze(-1)
        return c

    def decode(self, p, c_plane):
        plane_type = list(c_plane.keys())
        c = 0
        if "grid" in plane_type:
            c += self.sample_grid_feature(p, c_plane["grid"])
        if "xz" in plane_type:
            c += self.sample_plane_feature(p, c_plane["xz"], plane="xz")
        c = c.transpose(1, 2)
        net = self.fc_p(p.float())
        for i in range(self.n_blocks):
            net = self.blocks[i](net + self.fc_c[i](c))
        return self.fc_out(self.actvn(net)).squeeze(-1)

    def forward(self, p, c_grid, c_xz):
        return self.decode(p, {"grid": c_grid, "xz": c_xz})


def build() -> nn.Module:
    return LocalDecoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Query points a little beyond the padded unit cube on both sides, as the original's training
    # samples are: both clamps of the normalization run.
    points = torch.rand(2, 7, 3, generator=generator) * 1.4 - 0.7
    return points, torch.randn(2, 4, 3, 4, 5, generator=generator), torch.randn(2, 4, 5, 6, generator=generator)


DYNAMIC = {"p": {0: "batch", 1: "points"}, "c_grid": {0: "batch", 2: "depth", 3: "height", 4: "width"},
           "c_xz": {0: "batch", 2: "height", 3: "width"}}
