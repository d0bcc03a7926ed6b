"""A SegNet of functional pooling and unpooling, every argument by position: trypag/pytorch-unet-segnet.

Reduced from trypag/pytorch-unet-segnet at df9015422291cfb629646dcae03ac18efb775051, segnet.py:
``SegNet.forward`` (lines 41-56: the encoders' indices and feature sizes collected in lists and
handed back in reverse to the decoders), ``_Encoder.forward`` (lines 83-85: ``return
F.max_pool2d(output, 2, 2, return_indices=True), output.size()``, the pair and the size returned
together) and ``_Decoder.forward`` (lines 113-115: ``unpooled = F.max_unpool2d(x, indices, 2, 2, 0,
size)``, every argument by position, the output size a ``torch.Size`` of four). Two stages of one
convolution block each, and no dropout. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class _Encoder(nn.Module):
    def __init__(self, n_in_feat, n_out_feat):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(n_in_feat, n_out_feat, 3, 1, 1), nn.BatchNorm2d(n_out_feat),
                                      nn.ReLU())

    def forward(self, x):
        output = self.features(x)
        return F.max_pool2d(output, 2, 2, return_indices=True), output.size()


class _Decoder(nn.Module):
    def __init__(self, n_in_feat, n_out_feat):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(n_in_feat, n_out_feat, 3, 1, 1), nn.BatchNorm2d(n_out_feat),
                                      nn.ReLU())

    def forward(self, x, indices, size):
        unpooled = F.max_unpool2d(x, indices, 2, 2, 0, size)
        return self.features(unpooled)


class SegNet(nn.Module):
    def __init__(self, num_classes=3, in_channels=3, filter_config=(4, 8)):
        super().__init__()
        encoder_config = (in_channels,) + filter_config
        decoder_config = filter_config[::-1] + (filter_config[0],)
        self.encoders = nn.ModuleList([_Encoder(encoder_config[i], encoder_config[i + 1]) for i in range(2)])
        self.decoders = nn.ModuleList([_Decoder(decoder_config[i], decoder_config[i + 1]) for i in range(2)])
        self.classifier = nn.Conv2d(filter_config[0], num_classes, 3, 1, 1)

    def forward(self, x):
        indices = []
        unpool_sizes = []
        feat = x
        for i in range(0, 2):
            (feat, ind), size = self.encoders[i](feat)
            indices.append(ind)
            unpool_sizes.append(size)
        for i in range(0, 2):
            feat = self.decoders[i](feat, indices[1 - i], unpool_sizes[1 - i])
        return self.classifier(feat)


def build() -> nn.Module:
    torch.manual_seed(0)
    return SegNet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 14, 11, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
