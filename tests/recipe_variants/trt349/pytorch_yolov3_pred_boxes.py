"""eriklindernoren's PyTorch-YOLOv3 detection layer (spring 2019): the constructors are chosen by the
input's device into local names (``FloatTensor = torch.cuda.FloatTensor if x.is_cuda else
torch.FloatTensor``), and the decoded boxes are allocated through that name from a whole shape,
``pred_boxes = FloatTensor(prediction[..., :4].shape)``, then written channel by channel: the cell's
offset plus the sigmoid of x and y, the anchor times the exponential of w and h.

Reduced from eriklindernoren/PyTorch-YOLOv3 at 084ba15129d2521cc8b4cd847d68b81dd7434df3 (2019-04-23),
models.py, ``YOLOLayer.forward`` (lines 128-157 and the inference return, lines 234-243; the alias at
line 135, the allocation at line 157). Written here in our own words: the training branch (targets,
losses) is left out, and ``LongTensor``/``ByteTensor`` (used only there) with it; two anchors and two
classes.
"""

import torch
import torch.nn as nn


class YOLOLayer(nn.Module):
    def __init__(self, anchors=((10, 13), (16, 30)), num_classes=2, img_dim=32):
        super().__init__()
        self.anchors = anchors
        self.num_anchors = len(anchors)
        self.num_classes = num_classes
        self.bbox_attrs = 5 + num_classes
        self.image_dim = img_dim

    def forward(self, x):
        nA = self.num_anchors
        nB = x.size(0)
        nG = x.size(2)
        stride = self.image_dim / nG

        FloatTensor = torch.cuda.FloatTensor if x.is_cuda else torch.FloatTensor

        prediction = x.view(nB, nA, self.bbox_attrs, nG, nG).permute(0, 1, 3, 4, 2).contiguous()

        x = torch.sigmoid(prediction[..., 0])
        y = torch.sigmoid(prediction[..., 1])
        w = prediction[..., 2]
        h = prediction[..., 3]
        pred_conf = torch.sigmoid(prediction[..., 4])
        pred_cls = torch.sigmoid(prediction[..., 5:])

        grid_x = torch.arange(nG).repeat(nG, 1).view([1, 1, nG, nG]).type(FloatTensor)
        grid_y = torch.arange(nG).repeat(nG, 1).t().view([1, 1, nG, nG]).type(FloatTensor)
        scaled_anchors = FloatTensor([(a_w / stride, a_h / stride) for a_w, a_h in self.anchors])
        anchor_w = scaled_anchors[:, 0:1].view((1, nA, 1, 1))
        anchor_h = scaled_anchors[:, 1:2].view((1, nA, 1, 1))

        pred_boxes = FloatTensor(prediction[..., :4].shape)
        pred_boxes[..., 0] = x.data + grid_x
        pred_boxes[..., 1] = y.data + grid_y
        pred_boxes[..., 2] = torch.exp(w.data) * anchor_w
        pred_boxes[..., 3] = torch.exp(h.data) * anchor_h

        output = torch.cat(
            (
                pred_boxes.view(nB, -1, 4) * stride,
                pred_conf.view(nB, -1, 1),
                pred_cls.view(nB, -1, self.num_classes),
            ),
            -1,
        )
        return output


def build() -> nn.Module:
    return YOLOLayer().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 14, 4, 4, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
