"""nerfacc's volume rendering of packed samples: colours, opacity and depth summed along each ray.

Reduced from nerfstudio-project/nerfacc at commit 57ccfa14feb94975836ea6913149a86737220f2b,
nerfacc/volrend.py: ``accumulate_along_rays`` (lines 497-561: with flattened samples and their
``ray_indices``, ``outputs = torch.zeros((n_rays, src.shape[-1]), ...)`` then
``outputs.index_add_(0, ray_indices, src)``, line 558, the weights times the values),
``render_transmittance_from_density`` and ``render_weight_from_density`` (lines 219-279, 326-378: alphas
``1 - exp(-sigma * dt)``, transmittance ``exp(-exclusive_sum(sigma * dt))``) and ``rendering``
(lines 15-164: colours, opacities and depths accumulated, the background blended in). Every sample
of a ray has that ray's index, so the index repeats once per sample. The radiance field is a small
MLP of the sample positions; the samples are packed as nerfacc's ray marching packs them (ray
after ray, ``ray_indices`` non-decreasing); nerfacc's CUDA exclusive sum over packed samples is
written with a cumulative sum over the fixed number of samples per ray. Written here in our own
words.
"""

import torch
from torch import nn


def accumulate_along_rays(weights, values=None, ray_indices=None, n_rays=None):
    if values is None:
        src = weights[..., None]
    else:
        src = weights[..., None] * values
    if ray_indices is not None:
        outputs = torch.zeros((n_rays, src.shape[-1]), device=src.device, dtype=src.dtype)
        outputs.index_add_(0, ray_indices, src)
    else:
        outputs = torch.sum(src, dim=-2)
    return outputs


def render_weight_from_density(t_starts, t_ends, sigmas, samples_per_ray):
    sigmas_dt = sigmas * (t_ends - t_starts)
    alphas = 1.0 - torch.exp(-sigmas_dt)
    per_ray = sigmas_dt.reshape(-1, samples_per_ray)
    exclusive = (torch.cumsum(per_ray, dim=-1) - per_ray).reshape(-1)
    trans = torch.exp(-exclusive)
    return trans * alphas


class RadianceField(nn.Module):
    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(3, width), nn.ReLU(), nn.Linear(width, 4))

    def forward(self, positions):
        out = self.mlp(positions)
        return torch.sigmoid(out[:, :3]), torch.relu(out[:, 3])


class VolumeRenderer(nn.Module):
    def __init__(self, samples_per_ray: int = 6, near: float = 0.5, far: float = 3.0) -> None:
        super().__init__()
        self.field = RadianceField()
        self.samples_per_ray = samples_per_ray
        self.register_buffer("bins", torch.linspace(near, far, samples_per_ray + 1))
        self.register_buffer("render_bkgd", torch.tensor([1.0, 1.0, 1.0]))

    def forward(self, rays_o, rays_d):
        n_rays = rays_o.shape[0]
        s = self.samples_per_ray
        ray_indices = torch.arange(n_rays, device=rays_o.device).repeat_interleave(s)
        t_starts = self.bins[:-1].repeat(n_rays)
        t_ends = self.bins[1:].repeat(n_rays)
        t_mid = (t_starts + t_ends)[:, None] / 2.0
        positions = rays_o[ray_indices] + rays_d[ray_indices] * t_mid
        rgbs, sigmas = self.field(positions)
        weights = render_weight_from_density(t_starts, t_ends, sigmas, s)
        colors = accumulate_along_rays(weights, values=rgbs, ray_indices=ray_indices, n_rays=n_rays)
        opacities = accumulate_along_rays(weights, values=None, ray_indices=ray_indices, n_rays=n_rays)
        depths = accumulate_along_rays(weights, values=t_mid, ray_indices=ray_indices, n_rays=n_rays)
        depths = depths / opacities.clamp_min(torch.finfo(rgbs.dtype).eps)
        colors = colors + self.render_bkgd * (1.0 - opacities)
        return torch.cat([colors, opacities, depths], dim=-1)


def build() -> nn.Module:
    return VolumeRenderer().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    rays_o = torch.randn(5, 3, generator=generator) * 0.2
    rays_d = torch.nn.functional.normalize(torch.randn(5, 3, generator=generator), dim=-1)
    return rays_o, rays_d


DYNAMIC = {"rays_o": {0: "rays"}, "rays_d": {0: "rays"}}
