"""kornia's HyNet: the descriptor normalised to unit length by a channel-wide local response norm.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/feature/hynet.py: ``HyNet.__init__`` (lines
252-319: ``self.eps_l2_norm`` kept on the module, line 268, and
``self.desc_norm = nn.LocalResponseNorm(2 * self.dim_desc, 2.0 * self.dim_desc, 0.5, 0.0)``,
positional arguments, line 314) and ``HyNet.forward`` (lines 321-352: the last block's
descriptor plus ``self.eps_l2_norm`` through ``desc_norm``, line 351, then ``flatten(1)``). With a
window of twice the channels, ``alpha`` equal to the window and ``k=0`` the module divides by the
descriptor's L2 norm. Written here in our own words with fewer and narrower layers (a 16x16
patch, 16 descriptor channels instead of 128, ReLU in place of the FRN/TLU blocks); kornia's
half-precision branch and the shape check are left out. kornia's SOSNet (sosnet.py line 93,
the same module wrapped in an ``nn.Sequential``) takes ``eps`` as a parameter of ``forward``
instead; see the test file for why that form is not taken here.
"""

import torch
from torch import nn


class HyNet(nn.Module):
    def __init__(self, dim_desc: int = 16, eps_l2_norm: float = 1e-10) -> None:
        super().__init__()
        self.eps_l2_norm = eps_l2_norm
        self.dim_desc = dim_desc
        self.layers = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(8, affine=False),
            nn.ReLU(),
            nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1, bias=False),
            nn.BatchNorm2d(16, affine=False),
            nn.ReLU(),
        )
        self.layer7 = nn.Sequential(
            nn.Conv2d(16, self.dim_desc, kernel_size=8, bias=False),
            nn.BatchNorm2d(self.dim_desc, affine=False),
        )
        self.desc_norm = nn.LocalResponseNorm(2 * self.dim_desc, 2.0 * self.dim_desc, 0.5, 0.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layers(x)
        x = self.layer7(x)
        x = self.desc_norm(x + self.eps_l2_norm)
        return x.flatten(1)


def build() -> nn.Module:
    model = HyNet().eval()
    generator = torch.Generator().manual_seed(405)
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean.copy_(torch.randn(module.num_features, generator=generator) * 0.1)
            module.running_var.copy_(torch.rand(module.num_features, generator=generator) + 0.5)
    return model


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(3, 1, 16, 16, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
