"""PyTorch3D's implicitron ray tracer (IDR) picks, for the rays that miss the surface (``P_out``),
the sample with the smallest SDF: ``p_out_mask = ~(true_surface_pts & net_surface_pts)``, the count
held in a local, ``n_p_out = p_out_mask.sum()``, then ``points[p_out_mask, :, :][torch.arange(n_p_out),
out_pts_idx, :]`` takes one sample per selected ray (an advanced index pairing each ray with its
argmin).

Reduced from facebookresearch/pytorch3d at commit 9381c4016376345bb795b97c45a6c2de66db354a,
pytorch3d/implicitron/models/renderer/ray_tracing.py, ``RayTracing.ray_sampler`` (lines 391-417:
the first sign change along each ray, whether the network's surface and the object mask agree,
the ``P_out`` mask and its count, the per-ray argmin written back through the mask). Written here
in our own words: the rays already intersect the sphere (the sampler mask and the sphere
intersection are left out), the SDF values are an input, the number of steps along a ray is fixed
(the original's ``n_steps``), the ``if n_p_out > 0`` guard is left out (with no ray selected the
index is empty either way), and the chosen points are the output.
The count is a local, so the rule takes it only because ``p_out_mask`` is not rebound or written
between the sum and the range.
"""

import torch
from torch import nn


class RaySamplerPOut(nn.Module):
    def forward(self, points: torch.Tensor, sdf_val: torch.Tensor, object_mask: torch.Tensor) -> torch.Tensor:
        n_steps = sdf_val.shape[1]
        order = torch.sign(sdf_val) * torch.arange(n_steps, 0, -1, dtype=sdf_val.dtype).reshape(1, n_steps)
        sampler_pts_ind = torch.argmin(order, -1)
        rows = torch.arange(points.shape[0])
        sampler_pts = points[rows, sampler_pts_ind, :]
        net_surface_pts = sdf_val[rows, sampler_pts_ind] < 0
        p_out_mask = ~(object_mask & net_surface_pts)
        n_p_out = p_out_mask.sum()
        out_pts_idx = torch.argmin(sdf_val[p_out_mask, :], -1)
        sampler_pts[p_out_mask] = points[p_out_mask, :, :][torch.arange(n_p_out), out_pts_idx, :]
        return sampler_pts


def build() -> nn.Module:
    return RaySamplerPOut()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    points = torch.randn(6, 5, 3, generator=generator)
    sdf_val = torch.randn(6, 5, generator=generator)
    return points, sdf_val, torch.tensor([True, False, True, True, False, True])


DYNAMIC = {"points": {0: "rays"}, "sdf_val": {0: "rays"}, "object_mask": {0: "rays"}}
