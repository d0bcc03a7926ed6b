"""nerf-pytorch's hierarchical sampling (``sample_pdf``): the coarse network's weights become a CDF
per ray, deterministic samples ``u`` are searched in it (``inds = torch.searchsorted(cdf, u,
right=True)``), the neighbouring indices are bounded with ``torch.max``/``torch.min`` against
constant tensors, and the CDF and the bins are gathered after expanding them to a shape built
from a list (``matched_shape``), then each sample is placed linearly inside its bin.

Reduced from yenchenlin/nerf-pytorch, commit 63a5a630c9abd62b0f21c08703d0ac2ea7d4b9dd,
run_nerf_helpers.py, ``sample_pdf`` lines 196-239 (the search at line 223), which
``render_rays`` calls for the fine samples. Written here in our own words, with ``det=True`` (the
``linspace`` branch; the random and ``pytest`` branches are left out). The bins are the midpoints
of the coarse depths, as ``render_rays`` passes them, and a small density head gives the weights.
"""

import torch
from torch import nn


def sample_pdf(bins: torch.Tensor, weights: torch.Tensor, n_samples: int) -> torch.Tensor:
    weights = weights + 1e-5  # no NaN from an all-zero ray
    pdf = weights / torch.sum(weights, -1, keepdim=True)
    cdf = torch.cumsum(pdf, -1)
    cdf = torch.cat([torch.zeros_like(cdf[..., :1]), cdf], -1)

    u = torch.linspace(0.0, 1.0, steps=n_samples)
    u = u.expand(list(cdf.shape[:-1]) + [n_samples])

    u = u.contiguous()
    inds = torch.searchsorted(cdf, u, right=True)
    below = torch.max(torch.zeros_like(inds - 1), inds - 1)
    above = torch.min((cdf.shape[-1] - 1) * torch.ones_like(inds), inds)
    inds_g = torch.stack([below, above], -1)

    matched_shape = [inds_g.shape[0], inds_g.shape[1], cdf.shape[-1]]
    cdf_g = torch.gather(cdf.unsqueeze(1).expand(matched_shape), 2, inds_g)
    bins_g = torch.gather(bins.unsqueeze(1).expand(matched_shape), 2, inds_g)

    denom = cdf_g[..., 1] - cdf_g[..., 0]
    denom = torch.where(denom < 1e-5, torch.ones_like(denom), denom)
    t = (u - cdf_g[..., 0]) / denom
    return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])


class HierarchicalSampler(nn.Module):
    def __init__(self, features: int = 5, n_importance: int = 6) -> None:
        super().__init__()
        self.n_importance = n_importance
        self.density = nn.Linear(features, 1)

    def forward(self, z_vals: torch.Tensor, raw: torch.Tensor) -> torch.Tensor:
        weights = torch.sigmoid(self.density(raw)).squeeze(-1)
        z_vals_mid = 0.5 * (z_vals[..., 1:] + z_vals[..., :-1])
        z_samples = sample_pdf(z_vals_mid, weights[..., 1:-1], self.n_importance)
        z_all, _ = torch.sort(torch.cat([z_vals, z_samples], -1), -1)
        return z_all


def build() -> nn.Module:
    return HierarchicalSampler()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    rays, coarse = 4, 8
    z_vals = torch.linspace(2.0, 6.0, coarse).expand(rays, coarse) + 0.1 * torch.rand(rays, coarse, generator=generator)
    raw = torch.randn(rays, coarse, 5, generator=generator)
    return z_vals.contiguous(), raw


DYNAMIC = {"z_vals": {0: "rays", 1: "coarse"}, "raw": {0: "rays", 1: "coarse"}}
