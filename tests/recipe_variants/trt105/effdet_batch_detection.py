"""effdet's prediction bench: after the top-k over all anchors, ``_batch_detection`` is a
``@torch.jit.script`` function that loops over the images of the batch (``for i in range(batch_size)``,
an ``Optional`` scale and size picked per image with a conditional expression), runs
``generate_detections`` on each and appends the result to a list it stacks at the end.

Reduced from effdet 0.4.1 (the PyPI wheel), effdet/bench.py: ``_batch_detection`` (lines 69-94) and
``DetBenchPredict.forward`` (lines 109-133), with effdet/anchors.py ``generate_detections`` (lines
89-162). Written here in our own words: one feature level and a 1x1 convolution for the network,
boxes decoded as centre offsets, and the per-class NMS left out (the highest scores are kept, as
after NMS); the scripted loop, its appends and the stack are kept as the original writes them. A
detection bench exports at a fixed batch size, so the batch is not a dynamic axis here.
"""

from typing import List, Optional

import torch
from torch import nn


def generate_detections(
        cls_outputs, box_outputs, anchor_boxes, indices, classes,
        img_scale: Optional[torch.Tensor], img_size: Optional[torch.Tensor],
        max_det_per_image: int = 100, soft_nms: bool = False):
    anchor_boxes = anchor_boxes[indices, :]
    centre = (anchor_boxes[:, :2] + anchor_boxes[:, 2:]) / 2 + box_outputs[:, :2]
    half = (anchor_boxes[:, 2:] - anchor_boxes[:, :2]) / 2 * box_outputs[:, 2:].exp()
    boxes = torch.cat([centre - half, centre + half], dim=1)
    if img_scale is not None and img_size is not None:
        boxes = torch.min(boxes.clamp(min=0), (img_size / img_scale).repeat(2))
    scores = cls_outputs.sigmoid().squeeze(1).float()
    top_detection_idx = scores.argsort(descending=True)[:max_det_per_image]
    boxes = boxes[top_detection_idx]
    scores = scores[top_detection_idx, None]
    classes = classes[top_detection_idx, None] + 1
    if img_scale is not None:
        boxes = boxes * img_scale
    return torch.cat([boxes, scores, classes.float()], dim=1)


@torch.jit.script
def _batch_detection(
        batch_size: int, class_out, box_out, anchor_boxes, indices, classes,
        img_scale: Optional[torch.Tensor] = None,
        img_size: Optional[torch.Tensor] = None,
        max_det_per_image: int = 100,
        soft_nms: bool = False,
):
    batch_detections: List[torch.Tensor] = []
    for i in range(batch_size):
        img_scale_i = None if img_scale is None else img_scale[i]
        img_size_i = None if img_size is None else img_size[i]
        detections = generate_detections(
            class_out[i], box_out[i], anchor_boxes, indices[i], classes[i], img_scale_i, img_size_i,
            max_det_per_image=max_det_per_image, soft_nms=soft_nms)
        batch_detections.append(detections)
    return torch.stack(batch_detections, dim=0)


class DetBenchPredict(nn.Module):
    def __init__(self, num_classes: int = 3, max_detection_points: int = 20, max_det_per_image: int = 5) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.max_detection_points = max_detection_points
        self.max_det_per_image = max_det_per_image
        self.class_net = nn.Conv2d(3, num_classes, 1)
        self.box_net = nn.Conv2d(3, 4, 1)
        ys, xs = torch.meshgrid(torch.arange(8.0), torch.arange(8.0), indexing="ij")
        corners = torch.stack([xs, ys, xs + 1, ys + 1], -1).reshape(-1, 4) * 4
        self.register_buffer("anchor_boxes", corners)

    def forward(self, x, img_scale, img_size):
        batch_size = x.shape[0]
        class_out = self.class_net(x).permute(0, 2, 3, 1).reshape(batch_size, -1, self.num_classes)
        box_out = 0.1 * self.box_net(x).permute(0, 2, 3, 1).reshape(batch_size, -1, 4)
        _, top = class_out.reshape(batch_size, -1).topk(self.max_detection_points, dim=1)
        indices = torch.div(top, self.num_classes, rounding_mode="trunc")
        classes = top % self.num_classes
        box_top = torch.gather(box_out, 1, indices.unsqueeze(2).expand(-1, -1, 4))
        class_top = torch.gather(torch.gather(class_out, 1, indices.unsqueeze(2).expand(-1, -1, self.num_classes)),
                                 2, classes.unsqueeze(2))
        return _batch_detection(
            x.shape[0], class_top, box_top, self.anchor_boxes, indices, classes, img_scale, img_size,
            max_det_per_image=self.max_det_per_image)


def build() -> nn.Module:
    return DetBenchPredict()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 8, 8, generator=generator), 1.0 + torch.rand(2, generator=generator),
            torch.tensor([[32.0, 32.0], [24.0, 28.0]]))


DYNAMIC: dict = {}
