"""torchvision's FCOS ``postprocess_detections``: one dict an image, its NMS picks capped by
``keep = keep[: self.detections_per_img]``, and a caller flattening the list into rows with the image's index.

Reduced from pytorch/vision@5eb61f54ed34ad63206cac53fae60c49c74a0596 torchvision/models/detection/fcos.py,
``FCOS.postprocess_detections`` (torchvision 0.29.1's wheel, the zoo cache's, lines 500-557): ``for index in
range(num_images)``, scores as the square root of the class and centre-ness sigmoids, candidates over
``self.score_thresh`` by ``torch.where(...)[0]``, ``clip_boxes_to_image``, ``box_ops.batched_nms`` and the cap, a dict
of boxes, scores and labels appended. There the candidates are taken level by level with a top-k per level and the
label is the flattened index modulo the classes; here the best class of one level. The caller is the zoo's
(benchmarks/real_zoo20.py's row wrappers). Written here in our own words.
"""

import torch
import torchvision
from torch import Tensor, nn


class Detector(nn.Module):
    def __init__(self, score_thresh: float = 0.3, nms_thresh: float = 0.5, detections_per_img: int = 3) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 9, 3, stride=4, padding=1)
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img

    def postprocess_detections(self, logits: Tensor, ctrness: Tensor, boxes: Tensor) -> list[dict[str, Tensor]]:
        detections: list[dict[str, Tensor]] = []
        for index in range(boxes.shape[0]):
            scores, labels = (logits[index].sigmoid() * ctrness[index].sigmoid()).sqrt().max(1)
            inds = torch.where(scores > self.score_thresh)[0]
            image_boxes = torchvision.ops.clip_boxes_to_image(boxes[index], (32, 32))
            keep = torchvision.ops.batched_nms(image_boxes[inds], scores[inds], labels[inds], self.nms_thresh)
            keep = keep[: self.detections_per_img]
            detections.append({"boxes": image_boxes[inds][keep], "scores": scores[inds][keep],
                               "labels": labels[inds][keep]})
        return detections

    def forward(self, x: Tensor) -> Tensor:
        out = self.head(x).flatten(2).transpose(1, 2)
        corner = out[..., :2] * 20 + 8  # some outside the image: clipped
        boxes = torch.cat([corner, corner + out[..., 2:4].sigmoid() * 12], -1)
        rows = []
        for i, det in enumerate(self.postprocess_detections(out[..., 4:8], out[..., 8:9], boxes)):
            rows.append(torch.cat([det["boxes"], det["scores"][:, None], det["labels"][:, None].to(x.dtype),
                                   torch.full_like(det["scores"][:, None], i)], 1))
        return torch.cat(rows)


def build() -> nn.Module:
    torch.manual_seed(0)
    detector = Detector().eval()
    return detector


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    images = torch.rand(1, 3, 32, 32, generator=generator)
    return (images,)


DYNAMIC = {"x": {0: "n"}}
