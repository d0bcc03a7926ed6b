"""C^3 Framework's CMTL (crowd counting): the high-level prior branch reduces a feature map of any
size to a fixed grid with ``nn.AdaptiveMaxPool2d((32, 32))``, the first module of an
``nn.Sequential``, and classifies the crowd density level from it after ``view(size()[0], -1)``.

Reduced from gjy3035/C-3-Framework at commit f8e21faf8942dc852c8ed051a506789509255dc4,
models/M2T2OCC_Model/CMTL.py, ``CMTL.__init__`` lines 19-38 (the base layer, ``hl_prior_1`` with
two ``nn.MaxPool2d(2)``, line 33 ``self.hl_prior_2 = nn.Sequential(nn.AdaptiveMaxPool2d((32, 32)),
Conv2d(8, 4, 1, ...))``, the three ``FC`` layers) and ``CMTL.forward`` lines 61-70 (the prior branch
up to ``x_cls``). Written here in our own words: ``Conv2d``/``FC`` (the framework's conv or linear
plus PReLU) are written out with small channel counts, the grid is 6x6 instead of 32x32 to keep the
model small (the form is the same tuple literal), dropout is left out (eval mode), and the model
returns the class scores only (the density branch does not pass through the pool).
"""

import torch
from torch import nn


def conv_prelu(in_channels: int, out_channels: int, kernel_size: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(in_channels, out_channels, kernel_size, padding=(kernel_size - 1) // 2),
                         nn.PReLU())


class CMTLPrior(nn.Module):
    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.base_layer = nn.Sequential(conv_prelu(3, 4, 5), conv_prelu(4, 8, 3))
        self.hl_prior_1 = nn.Sequential(conv_prelu(8, 6, 3), nn.MaxPool2d(2), conv_prelu(6, 8, 3), nn.MaxPool2d(2),
                                        conv_prelu(8, 4, 3))
        self.hl_prior_2 = nn.Sequential(nn.AdaptiveMaxPool2d((6, 6)),
                                        conv_prelu(4, 2, 1))
        self.hl_prior_fc1 = nn.Sequential(nn.Linear(2 * 36, 16), nn.PReLU())
        self.hl_prior_fc2 = nn.Sequential(nn.Linear(16, 8), nn.PReLU())
        self.hl_prior_fc3 = nn.Sequential(nn.Linear(8, num_classes), nn.PReLU())

    def forward(self, im_data: torch.Tensor) -> torch.Tensor:
        x_base = self.base_layer(im_data)
        x_hlp1 = self.hl_prior_1(x_base)
        x_hlp2 = self.hl_prior_2(x_hlp1)
        x_hlp2 = x_hlp2.view(x_hlp2.size()[0], -1)
        x_hlp = self.hl_prior_fc2(self.hl_prior_fc1(x_hlp2))
        return self.hl_prior_fc3(x_hlp)


def build() -> nn.Module:
    return CMTLPrior()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 32, 40, generator=generator),)


DYNAMIC = {"im_data": {0: "batch", 2: "height", 3: "width"}}
