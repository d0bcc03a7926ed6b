"""A detector ensemble's per-image detections padded to a fixed 200 rows with NaN (boxes, scores) and -1 (labels).

Source: neuroinformatics-unit/ethology @ a6abeaeadaa4d62c509d592c9839ccc8c731d087
notebooks/notebook_detect_with_ensemble_vectorized.py:209-247 (``wrapper_model``; ``max_detections_per_image = 200``
at line 196): a torchvision Faster R-CNN (per-image NMS in its ``postprocess_detections``) returns one dict an image;
``for detection_dict in list_detection_dicts:`` takes ``n_detections = detection_dict["boxes"].shape[0]`` and pads
``boxes`` with ``F.pad(..., (0, 0, 0, max_detections_per_image - n_detections), mode="constant", value=np.nan)``,
``scores`` with ``(0, max_... - n_detections)`` and ``value=np.nan``, ``labels`` with ``value=-1``, appends the
padded dict, and returns the list (``torch.vmap`` over the ensemble's models then stacks it model by model). Kept:
the loop's form (count bound first, three ``F.pad`` calls by column with their fill values, a dict appended). Reduced:
the rows are YOLOv7's ``(n, 6)`` detections split into boxes, scores and labels (the R-CNN's dict keys),
``max_detections_per_image`` is 5 (above the NMS's cap, 4); so that the model returns tensors, each key of the list
is stacked after the loop (our addition; the original returns the list). A confidence filter capped at 4 (``per_image_detections``) makes the per-image
list in place of the NMS that makes it there.
Written here in our own words.

TRT393 does not take this loop (see the report): each entry is a dict of three columns, each padded by its own
``F.pad`` into a new dict that is appended (TRT393 takes one tensor of rows an image; its NaN and -1 fills and the
missing cap would be taken there, ``F.pad`` cropping by itself), and the count is bound to ``n_detections`` first.
"""

import torch.nn.functional as F

import numpy as np
import torch
from torch import Tensor, nn


def per_image_detections(prediction: Tensor, conf_thres: float, max_det: int) -> list[Tensor]:
    """Each image's candidates over the threshold as ``(n, 6)`` rows (corners, score, best class), best first, at most
    ``max_det``: a stand-in for the per-image NMS that makes the list in the cited code (how the list is made does not
    change the padding loop's form, which TRT393 does not take)."""
    out = []
    for x in prediction:
        x = x[x[:, 4] > conf_thres]
        x = x[x[:, 4].argsort(descending=True)[:max_det]]
        corners = torch.cat([x[:, :2] - x[:, 2:4] / 2, x[:, :2] + x[:, 2:4] / 2], 1)
        out.append(torch.cat([corners, x[:, 4:5], x[:, 5:].argmax(1, keepdim=True).to(x.dtype)], 1))
    return out


class Model(nn.Module):
    """One strided convolution: centre-size boxes, objectness and three class scores a cell, then the list."""

    def __init__(self) -> None:
        super().__init__()
        self.m = nn.Conv2d(3, 8, kernel_size=3, stride=4, padding=1)
        self.max_det = 5

    def forward(self, x: Tensor):
        p = self.m(x).flatten(2).transpose(1, 2)
        pred = torch.cat([28 * p[..., :2].sigmoid(), 10 * p[..., 2:4].sigmoid(), p[..., 4:].sigmoid()], -1)
        detections = per_image_detections(pred, 0.1, 4)
        list_detection_dicts = [{"boxes": d[:, :4], "scores": d[:, 4], "labels": d[:, 5].long()} for d in detections]
        list_detection_dicts_padded = []
        for detection_dict in list_detection_dicts:
            n_detections = detection_dict["boxes"].shape[0]
            detection_dict_padded = {}
            detection_dict_padded["boxes"] = F.pad(
                detection_dict["boxes"], (0, 0, 0, self.max_det - n_detections), mode="constant", value=np.nan)
            detection_dict_padded["scores"] = F.pad(
                detection_dict["scores"], (0, self.max_det - n_detections), mode="constant", value=np.nan)
            detection_dict_padded["labels"] = F.pad(
                detection_dict["labels"], (0, self.max_det - n_detections), mode="constant", value=-1)
            list_detection_dicts_padded.append(detection_dict_padded)
        return tuple(torch.stack([d[key] for d in list_detection_dicts_padded]) for key in ("boxes", "scores", "labels"))


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().requires_grad_(False).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator) - 0.25,)


DYNAMIC = {"x": {0: "batch_size"}}
CALL = "for detection_dict in list_detection_dicts:"
