"""A user's per-image threshold and class-wise NMS on wf_pytorch_yolo_v4's decoded outputs, the kept candidates'
positions made one axis by ``nonzero().squeeze(1)`` and the boxes read with a three-index subscript.

wf_pytorch_yolo_v4 0.2.2 (PyPI) decodes each head into boxes ``[batch, num, 1, 4]`` and confidences ``[batch, num,
classes]`` (yolov4/tool/yolo_layer.py:274-287, ``yolo_forward_dynamic``: corners by ``torch.cat((bx1, by1, bx2, by2),
dim=2).view(..., 1, 4)``, ``confs = cls_confs * det_confs``). Its own post-processing, yolov4/tool/utils.py:204-254
(``post_processing``), does the rest in NumPy image by image: ``max_conf = np.max(confs, axis=2)``, ``argwhere =
max_conf[i] > conf_thresh``, ``box_array[i, argwhere, :]``, NMS class by class. Zoo 32's wrapper
(benchmarks/real_zoo32.py ``_Y4_NMS``; models ``y4_yolov4_tiny_nms``, ``y4_yolov4_nms``, ``y4_yolov3_nms``) writes
that loop in PyTorch, which is what is reduced here in our own words: ``score, label = confs[i].max(1)``, ``keep =
(score > t).nonzero().squeeze(1)``, ``boxes[i, keep, 0]``, ``keep[batched_nms(...)]`` (here spelled ``torchvision.ops.batched_nms``), the rows with the image's index
by ``x.new_full((k.shape[0], 1), i)``. The heads here are one convolution, decoded as the library does (sigmoid
centres plus the cell, exponential sizes times anchors), confidences scaled by the image's mean brightness so that a
dark image keeps no candidate.
"""

import torch
import torch.nn.functional as F
import torchvision
from torch import Tensor, nn


class Detector(nn.Module):
    def __init__(self, classes: int = 3, conf_thresh: float = 0.12, nms_thresh: float = 0.45):
        super().__init__()
        self.classes = classes
        self.head = nn.Conv2d(3, 2 * (5 + classes), 3, stride=4, padding=1)  # two anchors a cell
        self.register_buffer("anchors", torch.tensor([[3.0, 4.0], [6.0, 5.0]]))
        self.conf_thresh = conf_thresh
        self.nms_thresh = nms_thresh

    def decode(self, x: Tensor) -> tuple[Tensor, Tensor]:
        out = self.head(x)
        b, _, h, w = out.shape
        out = out.view(b, 2, 5 + self.classes, h, w).permute(0, 1, 3, 4, 2)
        ys, xs = torch.meshgrid(torch.arange(h, dtype=x.dtype), torch.arange(w, dtype=x.dtype), indexing="ij")
        cx = (out[..., 0].sigmoid() + xs) / w
        cy = (out[..., 1].sigmoid() + ys) / h
        bw = out[..., 2].clamp(max=4).exp() * self.anchors[:, 0].view(1, 2, 1, 1) / w
        bh = out[..., 3].clamp(max=4).exp() * self.anchors[:, 1].view(1, 2, 1, 1) / h
        boxes = torch.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], -1).reshape(b, -1, 1, 4)
        brightness = F.avg_pool2d(x.mean(1, keepdim=True), 4)  # [b, 1, h, w]
        det = out[..., 4].sigmoid() * brightness
        confs = (out[..., 5:].sigmoid() * det[..., None]).reshape(b, -1, self.classes)
        return boxes, confs

    def forward(self, x: Tensor) -> Tensor:
        boxes, confs = self.decode(x)
        rows = []
        for i in range(x.shape[0]):
            score, label = confs[i].max(1)
            keep = (score > self.conf_thresh).nonzero().squeeze(1)
            b = boxes[i, keep, 0]
            k = keep[torchvision.ops.batched_nms(b, score[keep], label[keep], self.nms_thresh)]
            rows.append(torch.cat([boxes[i, k, 0], score[k, None], label[k, None].float(),
                                   x.new_full((k.shape[0], 1), i)], 1))
        return torch.cat(rows)


def build() -> nn.Module:
    """The detector with seeded random weights, in eval mode."""
    torch.manual_seed(0)
    return Detector().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    """The example: two images a little brighter than the test sets' (more candidates over the threshold)."""
    return (1.25 * torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "images"}}
