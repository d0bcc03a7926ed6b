"""pyslam's L2-Net port: an LRN module constructed inside forward and called on the spot.

Reduced from luigifreda/pyslam at commit 3557350ec3af9233d1e88119219ce1dc3b67f8b2,
thirdparty/l2net/l2net_model.py (adapted there from the image-matching-benchmark baselines):
``L2Net.input_norm`` (lines 46-53: each patch standardised by its own mean and standard
deviation, computed on the transposed, flattened patch) and ``L2Net.forward`` (lines 55-58:
``nn.LocalResponseNorm(256, 1*256, 0.5, 0.5)(x_features).view(input.size(0), -1)``, the module
built with positional arguments in the expression that calls it, ``k=0.5``). Written here in our
own words with fewer and narrower layers (a 16x16 patch, 16 descriptor channels, the window
``2 * 16`` and ``alpha`` ``1 * 32``); the form of the call is kept.
"""

import torch
from torch import nn

EPS = 1e-10


class L2Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, padding=1, bias=True),
            nn.BatchNorm2d(8, affine=True, eps=EPS),
            nn.ReLU(),
            nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1, bias=True),
            nn.BatchNorm2d(16, affine=True, eps=EPS),
            nn.ReLU(),
            nn.Conv2d(16, 16, kernel_size=8, bias=True),
            nn.BatchNorm2d(16, affine=True, eps=EPS),
        )

    def input_norm(self, x):
        flat = x.contiguous().transpose(2, 3).contiguous().view(x.size(0), -1)
        centred = flat.transpose(0, 1) - flat.mean(1)
        spread = torch.std(flat, 1).detach()
        normed = centred / (spread + 1e-12)
        return normed.transpose(0, 1).view(-1, 1, x.size(2), x.size(3)).transpose(2, 3)

    def forward(self, input):
        norm_img = self.input_norm(input)
        x_features = self.features(norm_img)
        return nn.LocalResponseNorm(32, 1 * 32, 0.5, 0.5)(x_features).view(input.size(0), -1)


def build() -> nn.Module:
    return L2Net().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(3, 1, 16, 16, generator=generator) * 255,)


DYNAMIC = {"input": {0: "batch"}}
