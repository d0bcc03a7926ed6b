"""CenterTrack's network as the repository writes it: the previous frame's image and heatmap are optional.

Reduced (my own code, tiny sizes, random weights) from github.com/xingyizhou/CenterTrack at e4e7534
(``src/lib/model/networks/``): ``base_model.py`` lines 73-91 (``BaseModel.forward``: the previous
frame's inputs select ``imgpre2feats`` or ``img2feats``; one output list per stack, heads sorted,
as ``convert_onnx.py`` sets ``opt.model_output_list``), ``dla.py`` lines 305-316 (``DLA.forward``:
``pre_img`` and ``pre_hm`` each add their own stem's features when given) and lines 620-640
(``DLASeg.img2feats`` / ``imgpre2feats``). DLA-34's levels and its DLAUp/IDAUp neck are reduced to
two strided convolutions and one upsampling sum; the heads keep CenterTrack's 3x3-ReLU-1x1 form.
"""

import torch
from torch import nn
from torch.nn import functional as F


def stem(in_channels: int, out_channels: int) -> nn.Sequential:
    """dla.py's base_layer / pre_img_layer / pre_hm_layer: 7x7 conv, BN, ReLU."""
    return nn.Sequential(nn.Conv2d(in_channels, out_channels, 7, padding=3, bias=False),
                         nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True))


class TinyDLA(nn.Module):
    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.base_layer = stem(3, channels)
        self.pre_img_layer = stem(3, channels)
        self.pre_hm_layer = stem(1, channels)
        self.level0 = nn.Sequential(nn.Conv2d(channels, channels, 3, stride=2, padding=1), nn.ReLU())
        self.level1 = nn.Sequential(nn.Conv2d(channels, 2 * channels, 3, stride=2, padding=1), nn.ReLU())

    def forward(self, x, pre_img=None, pre_hm=None):
        y = []
        x = self.base_layer(x)
        if pre_img is not None:
            x = x + self.pre_img_layer(pre_img)
        if pre_hm is not None:
            x = x + self.pre_hm_layer(pre_hm)
        for i in range(2):
            x = getattr(self, "level{}".format(i))(x)
            y.append(x)
        return y


class CenterTrackNet(nn.Module):
    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.heads = {"hm": 1, "reg": 2, "wh": 2, "tracking": 2}
        self.num_stacks = 1
        self.base = TinyDLA(channels)
        self.up = nn.Conv2d(2 * channels, channels, 1)
        for head, classes in self.heads.items():
            fc = nn.Sequential(nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU(inplace=True),
                               nn.Conv2d(channels, classes, 1))
            self.__setattr__(head, fc)

    def neck(self, y: list[torch.Tensor]) -> list[torch.Tensor]:
        """DLAUp + IDAUp reduced: the coarse level upsampled onto the fine one."""
        return [y[0] + F.interpolate(self.up(y[1]), scale_factor=2.0, mode="nearest")]

    def img2feats(self, x):
        return self.neck(self.base(x))

    def imgpre2feats(self, x, pre_img=None, pre_hm=None):
        return self.neck(self.base(x, pre_img, pre_hm))

    def forward(self, x, pre_img=None, pre_hm=None):
        if (pre_hm is not None) or (pre_img is not None):
            feats = self.imgpre2feats(x, pre_img, pre_hm)
        else:
            feats = self.img2feats(x)
        out = []
        for s in range(self.num_stacks):
            z = []
            for head in sorted(self.heads):
                z.append(self.__getattr__(head)(feats[s]))
            out.append(z)
        return out


def build() -> nn.Module:
    return CenterTrackNet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # A tracking frame as convert_onnx.py exports it: image, previous image, previous heatmap.
    return (torch.randn(1, 3, 16, 24, generator=generator), torch.randn(1, 3, 16, 24, generator=generator),
            torch.rand(1, 1, 16, 24, generator=generator))
