"""VFIT's synthesis heads: an ``nn.Sequential`` subclass that hands the output size to its transposed convolution.

Reduced from zhshi0816/Video-Frame-Interpolation-Transformer @ 2b1dc91f2da617ce1a7ea924262dc498e52a91cf,
model/VFIT_B.py: ``MySequential(nn.Sequential)`` (lines 137-143) runs its layers in turn and calls the
one that ``isinstance(module, nn.ConvTranspose2d)`` as ``module(input, output_size)``; ``SynBlock``
builds its heads as ``MySequential(torch.nn.Conv2d(...), torch.nn.LeakyReLU(...), ...,
torch.nn.ConvTranspose2d(nf, nf, kernel_size=3, stride=2, padding=1), torch.nn.Conv2d(...),
torch.nn.Softmax(dim=1))`` (``Subnet_occlusion``, lines 172-181) and calls them on half-size features
with the frame's size, ``self.moduleOcclusion(occ, (H, W))`` (lines 200-205). Written here in our
own words: a stride-2 convolution gives the half-size features, two heads blend two frames.
"""

import torch
from torch import nn


class SizedSequential(nn.Sequential):
    def forward(self, input, output_size):
        for module in self:
            if isinstance(module, nn.ConvTranspose2d):
                input = module(input, output_size)
            else:
                input = module(input)
        return input


def occlusion_head(nf: int, n_inputs: int) -> nn.Module:
    return SizedSequential(
        torch.nn.Conv2d(in_channels=nf, out_channels=nf, kernel_size=3, stride=1, padding=1),
        torch.nn.LeakyReLU(negative_slope=0.2, inplace=False),
        torch.nn.ConvTranspose2d(nf, nf, kernel_size=3, stride=2, padding=1),
        torch.nn.Conv2d(in_channels=nf, out_channels=n_inputs, kernel_size=3, stride=1, padding=1),
        torch.nn.Softmax(dim=1),
    )


class Blend(nn.Module):
    def __init__(self, nf: int = 6) -> None:
        super().__init__()
        self.features = nn.Conv2d(6, nf, 3, stride=2, padding=1)
        self.occlusion = occlusion_head(nf, 2)

    def forward(self, first, second):
        H, W = first.size()[-2:]
        fea = torch.relu(self.features(torch.cat([first, second], 1)))
        occ = self.occlusion(fea, (H, W))
        return occ[:, 0:1] * first + occ[:, 1:2] * second


def build() -> nn.Module:
    return Blend().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(1, 3, 16, 20, generator=generator), torch.randn(1, 3, 16, 20, generator=generator)


DYNAMIC = {"first": {0: "batch", 2: "height", 3: "width"}, "second": {0: "batch", 2: "height", 3: "width"}}
