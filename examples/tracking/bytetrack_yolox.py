"""ByteTrack's detector head (YOLOX) in inference: sizes written on ``self`` and a grid decoded from them.

Reduced (my own code, tiny sizes, random weights) from github.com/ifzhang/ByteTrack at d1bf019,
``yolox/models/yolo_head.py``: lines 145-216 (``YOLOXHead.forward``'s inference branch: per level
stem, cls/reg branches, ``torch.cat([reg, obj.sigmoid(), cls.sigmoid()])``, then
``self.hw = [x.shape[-2:] for x in outputs]`` and ``if self.decode_in_inference``) and lines
238-253 (``decode_outputs``: per level a ``meshgrid`` of ``arange(hsize)``, ``arange(wsize)``
from ``self.hw``, strides by ``torch.full``, ``.type(dtype)`` with the type string of the input,
and the in-place decode of the box centres and sizes). The training branch (losses) is left out;
CSPDarknet + PAFPN are reduced to strided convolutions giving the three levels (8, 16, 32).
"""

import torch
from torch import nn


def conv(in_channels: int, out_channels: int, stride: int = 1, k: int = 3) -> nn.Sequential:
    """YOLOX's BaseConv: conv, BN, SiLU."""
    return nn.Sequential(nn.Conv2d(in_channels, out_channels, k, stride, k // 2, bias=False),
                         nn.BatchNorm2d(out_channels), nn.SiLU())


class YOLOXHead(nn.Module):
    def __init__(self, num_classes: int = 1, width: int = 8, in_channels: tuple[int, ...] = (8, 16, 32)) -> None:
        super().__init__()
        self.n_anchors = 1
        self.num_classes = num_classes
        self.decode_in_inference = True
        self.strides = [8, 16, 32]
        self.stems = nn.ModuleList(conv(c, width, k=1) for c in in_channels)
        self.cls_convs = nn.ModuleList(nn.Sequential(conv(width, width), conv(width, width)) for _ in in_channels)
        self.reg_convs = nn.ModuleList(nn.Sequential(conv(width, width), conv(width, width)) for _ in in_channels)
        self.cls_preds = nn.ModuleList(nn.Conv2d(width, self.n_anchors * num_classes, 1) for _ in in_channels)
        self.reg_preds = nn.ModuleList(nn.Conv2d(width, 4, 1) for _ in in_channels)
        self.obj_preds = nn.ModuleList(nn.Conv2d(width, self.n_anchors, 1) for _ in in_channels)

    def forward(self, xin):
        outputs = []
        for k, (cls_conv, reg_conv, stride_this_level, x) in enumerate(
            zip(self.cls_convs, self.reg_convs, self.strides, xin)
        ):
            x = self.stems[k](x)
            cls_output = self.cls_preds[k](cls_conv(x))
            reg_feat = reg_conv(x)
            reg_output = self.reg_preds[k](reg_feat)
            obj_output = self.obj_preds[k](reg_feat)
            output = torch.cat([reg_output, obj_output.sigmoid(), cls_output.sigmoid()], 1)
            outputs.append(output)

        self.hw = [x.shape[-2:] for x in outputs]
        # [batch, n_anchors_all, 5 + num_classes]
        outputs = torch.cat([x.flatten(start_dim=2) for x in outputs], dim=2).permute(0, 2, 1)
        if self.decode_in_inference:
            return self.decode_outputs(outputs, dtype=xin[0].type())
        else:
            return outputs

    def decode_outputs(self, outputs, dtype):
        grids = []
        strides = []
        for (hsize, wsize), stride in zip(self.hw, self.strides):
            yv, xv = torch.meshgrid([torch.arange(hsize), torch.arange(wsize)])
            grid = torch.stack((xv, yv), 2).view(1, -1, 2)
            grids.append(grid)
            shape = grid.shape[:2]
            strides.append(torch.full((*shape, 1), stride))

        grids = torch.cat(grids, dim=1).type(dtype)
        strides = torch.cat(strides, dim=1).type(dtype)

        outputs[..., :2] = (outputs[..., :2] + grids) * strides
        outputs[..., 2:4] = torch.exp(outputs[..., 2:4]) * strides
        return outputs


class YOLOX(nn.Module):
    """yolox/models/yolox.py: backbone (here strided convs for CSPDarknet + PAFPN), then the head."""

    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.ModuleList([nn.Sequential(conv(3, 8, 2), conv(8, 8, 2), conv(8, 8, 2)),
                                       conv(8, 16, 2), conv(16, 32, 2)])
        self.head = YOLOXHead()

    def forward(self, x):
        feats = []
        for stage in self.backbone:
            x = stage(x)
            feats.append(x)
        return self.head(feats)


def build() -> nn.Module:
    return YOLOX().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 64, 96, generator=generator),)
