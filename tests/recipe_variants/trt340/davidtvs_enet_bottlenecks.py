"""ENet's downsampling and upsampling bottlenecks: the pooling's indices kept, unpooled to a stage's input size.

Reduced from davidtvs/PyTorch-ENet at e17d404e2f649a3476eabe39f8a05e5eb77c55fd, models/enet.py:
``DownsamplingBottleneck`` (lines 215-347: ``self.main_max1 = nn.MaxPool2d(2, stride=2,
return_indices=return_indices)``, the flag a constructor parameter, and a forward that unpacks
``main, max_indices`` when it is set, pads the main branch's channels with zeros and adds the
extension branch), ``UpsamplingBottleneck`` (lines 350-464: ``self.main_unpool1 =
nn.MaxUnpool2d(kernel_size=2)`` called as ``self.main_unpool1(main, max_indices,
output_size=output_size)``) and ``ENet.forward`` (lines 585-630: ``stage1_input_size = x.size()``
before each downsampling, handed back as ``output_size`` to the matching upsampling, so an odd
height or width unpools to its own size). Two stages, one bottleneck each way; the extension
branch is one strided convolution going down and is left out going up (its transposed
convolution takes the same ``output_size``), the regular, dilated and asymmetric bottlenecks are
left out. Written here in our own words.
"""

import torch
from torch import nn


class DownsamplingBottleneck(nn.Module):
    def __init__(self, in_channels, out_channels, return_indices=False):
        super().__init__()
        self.return_indices = return_indices
        self.main_max1 = nn.MaxPool2d(
            2,
            stride=2,
            return_indices=return_indices)
        self.ext_conv1 = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size=2, stride=2, bias=False),
            nn.BatchNorm2d(out_channels), nn.PReLU())
        self.out_activation = nn.PReLU()

    def forward(self, x):
        if self.return_indices:
            main, max_indices = self.main_max1(x)
        else:
            main = self.main_max1(x)
        ext = self.ext_conv1(x)
        n, ch_ext, h, w = ext.size()
        ch_main = main.size()[1]
        padding = torch.zeros(n, ch_ext - ch_main, h, w)
        if main.is_cuda:
            padding = padding.cuda()
        main = torch.cat((main, padding), 1)
        out = main + ext
        return self.out_activation(out), max_indices


class UpsamplingBottleneck(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.main_conv1 = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=False),
            nn.BatchNorm2d(out_channels))
        self.main_unpool1 = nn.MaxUnpool2d(kernel_size=2)
        self.out_activation = nn.PReLU()

    def forward(self, x, max_indices, output_size):
        main = self.main_conv1(x)
        main = self.main_unpool1(
            main, max_indices, output_size=output_size)
        return self.out_activation(main)


class ENet(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.initial_block = nn.Conv2d(3, 4, kernel_size=3, padding=1)
        self.downsample1_0 = DownsamplingBottleneck(4, 8, return_indices=True)
        self.downsample2_0 = DownsamplingBottleneck(8, 16, return_indices=True)
        self.upsample4_0 = UpsamplingBottleneck(16, 8)
        self.upsample5_0 = UpsamplingBottleneck(8, 4)
        self.fullconv = nn.Conv2d(4, num_classes, kernel_size=1)

    def forward(self, x):
        x = self.initial_block(x)
        stage1_input_size = x.size()
        x, max_indices1_0 = self.downsample1_0(x)
        stage2_input_size = x.size()
        x, max_indices2_0 = self.downsample2_0(x)
        x = self.upsample4_0(x, max_indices2_0, output_size=stage2_input_size)
        x = self.upsample5_0(x, max_indices1_0, output_size=stage1_input_size)
        return self.fullconv(x)


def build() -> nn.Module:
    torch.manual_seed(0)
    return ENet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 13, 18, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
