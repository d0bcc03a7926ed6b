"""kornia's ``interp`` (``np.interp`` in torch), which histogram matching uses to map source
quantiles onto template values: the segment of each query is found with
``i = torch.clip(torch.searchsorted(xp, x, right=True), 1, len(xp) - 1)``, the two knots and
their values are gathered, and the value is the linear interpolation between them (``torch.lerp``),
with a zero-width segment and a NaN query handled apart.

Reduced from kornia 0.9.0 (the PyPI wheel the zoo unpacks), kornia/contrib/histogram_matching.py,
``_interp_real`` lines 128-184 (the search at line 147), which ``interp`` (line 91) calls for
``histogram_matching`` (line 85). Written here in our own words: the dtype handling and the
overflow and infinite-end branches are left out, and the template's quantiles and values are a
fixed buffer and a parameter of the module (a learned tone curve) rather than computed from a
template image with ``torch.unique``; the image is flattened, mapped and reshaped as
``histogram_matching`` does, flattened with ``reshape(-1)`` where kornia writes ``ravel()`` (the
TorchScript exporter has no symbolic for ``aten::ravel``, torch 2.13, so kornia's own line would
stop the export before the search).
"""

import torch
from torch import nn


def interp(x: torch.Tensor, xp: torch.Tensor, fp: torch.Tensor) -> torch.Tensor:
    i = torch.clip(torch.searchsorted(xp, x, right=True), 1, len(xp) - 1)
    x0, x1, f0, f1 = xp[i - 1], xp[i], fp[i - 1], fp[i]
    dx = x1 - x0
    zero_width = dx == 0
    dx = torch.where(zero_width, torch.ones_like(dx), dx)
    w = (x - x0) / dx
    out = torch.lerp(f0, f1, w)
    # a repeated knot is reached only at a clipped end
    out = torch.where(zero_width, torch.where(x < x0, f0, f1), out)
    return torch.where(torch.isnan(x), torch.full_like(out, float("nan")), out)


class ToneCurve(nn.Module):
    def __init__(self, knots: int = 9) -> None:
        super().__init__()
        # ascending quantiles anchored at 0, as histogram_matching anchors the template's CDF
        quantiles = torch.cat([torch.zeros(1), torch.linspace(0.05, 1.0, knots - 1) ** 1.5])
        self.register_buffer("quantiles", quantiles)
        self.values = nn.Parameter(torch.linspace(-1.0, 2.0, knots) + 0.1 * torch.randn(knots).cumsum(0))

    def forward(self, source: torch.Tensor) -> torch.Tensor:
        mapped = interp(torch.sigmoid(source).reshape(-1), self.quantiles, self.values)
        return mapped.reshape(source.shape)


def build() -> nn.Module:
    return ToneCurve()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 5, 6, generator=generator) * 2,)


DYNAMIC = {"source": {0: "batch", 2: "height", 3: "width"}}
