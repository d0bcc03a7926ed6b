"""novel-view-diffusion's NeRF positional encoding: sines at the frequencies ``2**k`` of an integer range.

Reduced from barnden/novel-view-diffusion at commit 32bc5fa062e296dbde3e7ab468f54cfc36dfab4c,
Embeddings.py: ``posenc_nerf`` (lines 6-16, after Watson et al. 2022). The scales are
``torch.exp2(torch.arange(start=min_deg, end=max_deg, device=device))``: ``exp2`` of an int64
range, which gives the default float type. Each coordinate is multiplied by every scale, the sines
of those and of those shifted by pi/2 are concatenated after the input. The ray-point MLP that
reads the encoding is ours (one linear layer). Written here in our own words. Form kept: the
integer ``arange`` given straight to ``torch.exp2``, ``start=``/``end=``/``device=`` by keyword.
"""

import torch
from torch import nn


def posenc_nerf(x, min_deg=0, max_deg=15):
    if min_deg == max_deg:
        return x
    device = x.device
    scales = torch.exp2(torch.arange(start=min_deg, end=max_deg, device=device))
    xb = torch.reshape(x[..., None, :] * scales[:, None], list(x.shape[:-1]) + [-1])
    emb = torch.sin(torch.concat([xb, xb + torch.pi / 2.0], axis=-1))
    return torch.concat([x, emb], axis=-1)


class RayPointField(nn.Module):
    def __init__(self, min_deg: int = 0, max_deg: int = 6, out: int = 4) -> None:
        super().__init__()
        self.min_deg, self.max_deg = min_deg, max_deg
        self.head = nn.Linear(3 + 3 * 2 * (max_deg - min_deg), out)

    def forward(self, points):
        return self.head(posenc_nerf(points, self.min_deg, self.max_deg))


def build() -> nn.Module:
    return RayPointField().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 9, 3, generator=generator) * 2 - 1,)


DYNAMIC = {"points": {0: "rays", 1: "samples"}}
