"""PyTorch3D's implicitron ray tracer (IDR) refines, for the rays whose SDF changes sign, where the
surface lies between the two samples around the change: ``secant_pts`` is the network's surface
mask (and the object mask too while training), its count is held in a local, ``n_secant_pts = secant_pts.sum()``, and two ranges of it pair each selected ray with the
sample before the change, ``pts_intervals[secant_pts][torch.arange(n_secant_pts), ind - 1]`` and
the same for the SDF values.

Reduced from facebookresearch/pytorch3d at commit 9381c4016376345bb795b97c45a6c2de66db354a,
pytorch3d/implicitron/models/renderer/ray_tracing.py, ``RayTracing.ray_sampler`` (lines 429-453:
the secant mask and its count, the distances and SDF values after the change, the two ranges for
those before it). Written here in our own words: the sign change is found as in the P_out
variant beside this one, the mask is the evaluation branch of the conditional (the network's
surface; the object mask joins it only in training), the number of steps is fixed (the
original's ``n_steps``), the
``if n_secant_pts > 0`` guard is left out, and one secant step (the linear interpolation
``RayTracing.secant`` starts from) is the output instead of the iterated refinement, which calls
the SDF network. The rays start outside the surface (a positive first SDF value), as the
tracer's rays do: a ray starting inside would read index -1, where the exported ``GatherND`` and
eager mode disagree in the original's graph as in the rewrite's (outside this recipe).
"""

import torch
from torch import nn


class RaySamplerSecant(nn.Module):
    def forward(self, pts_intervals: torch.Tensor, sdf_val: torch.Tensor) -> torch.Tensor:
        n_steps = sdf_val.shape[1]
        order = torch.sign(sdf_val) * torch.arange(n_steps, 0, -1, dtype=sdf_val.dtype).reshape(1, n_steps)
        sampler_pts_ind = torch.argmin(order, -1)
        rows = torch.arange(sdf_val.shape[0])
        net_surface_pts = sdf_val[rows, sampler_pts_ind] < 0
        secant_pts = net_surface_pts
        n_secant_pts = secant_pts.sum()
        z_high = pts_intervals[rows, sampler_pts_ind][secant_pts]
        sdf_high = sdf_val[rows, sampler_pts_ind][secant_pts]
        z_low = pts_intervals[secant_pts][torch.arange(n_secant_pts), sampler_pts_ind[secant_pts] - 1]
        sdf_low = sdf_val[secant_pts][torch.arange(n_secant_pts), sampler_pts_ind[secant_pts] - 1]
        return z_low - sdf_low * (z_high - z_low) / (sdf_high - sdf_low)


def build() -> nn.Module:
    return RaySamplerSecant()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    pts_intervals = torch.linspace(0.0, 1.0, 5).repeat(6, 1) + torch.rand(6, 1, generator=generator)
    sdf_val = torch.tensor([[0.4, 0.2, -0.1, -0.3, -0.5], [0.5, 0.4, 0.3, 0.2, 0.1], [0.3, -0.2, -0.4, 0.1, 0.2],
                            [0.9, 0.6, 0.3, 0.1, -0.2], [0.1, -0.2, -0.3, -0.4, -0.5], [0.2, 0.1, -0.3, 0.4, 0.5]])
    return pts_intervals, sdf_val


DYNAMIC = {"pts_intervals": {0: "rays"}, "sdf_val": {0: "rays"}}
