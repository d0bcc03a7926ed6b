"""PyTorch3D's hierarchical sampling of a ray (``sample_pdf_python``, the pure-Python version of
NeRF's inverse-CDF sampling): per-bin weights become a CDF with a leading zero, the uniform samples
``u`` are searched in each ray's CDF (``inds = torch.searchsorted(cdf, u, right=True)``, one
boundary row per ray), the indices either side are clamped and gathered from the CDF and the bin
edges, and each sample is placed linearly inside its bin.

Reduced from facebookresearch/pytorch3d, commit 9381c4016376345bb795b97c45a6c2de66db354a,
pytorch3d/renderer/implicit/sample_pdf.py, ``sample_pdf_python`` lines 69-148 (the search at line
125). Written here in our own words, with the deterministic samples (``det=True``, the
``linspace`` branch): the random branch would give the graph and eager mode different draws, and
the check that raises on negative weights is left out. A small density head gives the weights, so
the module has parameters.
"""

import torch
from torch import nn


def sample_pdf_python(bins: torch.Tensor, weights: torch.Tensor, n_samples: int, eps: float = 1e-5) -> torch.Tensor:
    weights = weights + eps
    pdf = weights / weights.sum(dim=-1, keepdim=True)
    cdf = torch.cumsum(pdf, -1)
    cdf = torch.cat([torch.zeros_like(cdf[..., :1]), cdf], -1)

    u = torch.linspace(0.0, 1.0, n_samples, device=cdf.device, dtype=cdf.dtype)
    u = u.expand(list(cdf.shape[:-1]) + [n_samples]).contiguous()

    inds = torch.searchsorted(cdf, u, right=True)
    below = (inds - 1).clamp(0)
    above = inds.clamp(max=cdf.shape[-1] - 1)
    inds_g = torch.stack([below, above], -1).view(*below.shape[:-1], below.shape[-1] * 2)
    cdf_g = torch.gather(cdf, -1, inds_g).view(*below.shape, 2)
    bins_g = torch.gather(bins, -1, inds_g).view(*below.shape, 2)

    denom = cdf_g[..., 1] - cdf_g[..., 0]
    denom = torch.where(denom < eps, torch.ones_like(denom), denom)
    t = (u - cdf_g[..., 0]) / denom
    return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])


class FineSampler(nn.Module):
    def __init__(self, features: int = 4, n_samples: int = 7) -> None:
        super().__init__()
        self.n_samples = n_samples
        self.density = nn.Linear(features, 1)

    def forward(self, bins: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        weights = torch.relu(self.density(features)).squeeze(-1)
        return sample_pdf_python(bins, weights, self.n_samples)


def build() -> nn.Module:
    return FineSampler()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    rays, n_bins = 5, 6
    steps = torch.rand(rays, n_bins + 1, generator=generator) + 0.1
    bins = 2.0 + torch.cumsum(steps, -1)  # ascending bin edges along each ray
    features = torch.randn(rays, n_bins, 4, generator=generator)
    return bins, features


DYNAMIC = {"bins": {0: "rays", 1: "edges"}, "features": {0: "rays", 1: "bins"}}
