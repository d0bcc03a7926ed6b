"""TRT360: a per-image NMS loop over the batch, computed on every image at once while tracing."""

from __future__ import annotations

import io
import shutil
import sys
import textwrap
import warnings

import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import migrate_json, ort_session, rewrite, rules_found

import torchvision_standin

from trtcodemod.engine import Options, check_source
from trtcodemod.migrate.manual_steps import PER_IMAGE_NMS_STEP, PER_IMAGE_ROWS_STEP, manual_step

RULE = ("TRT360",)


@pytest.fixture(autouse=True)
def torchvision_ops(monkeypatch):
    monkeypatch.setitem(sys.modules, "torchvision", torchvision_standin)


# --- the loops ------------------------------------------------------------------------------------------------

LOOPS = """\
import torch
import torchvision
from torch import nn


class Boxes(nn.Module):
    # torchvision's box post-processing image by image, as benchmarks/real_zoo20.py's tv_box_postprocess writes it
    # (clip, drop small boxes, score threshold, class-wise batched_nms; boxes, score, class and image as rows).
    def forward(self, boxes: torch.Tensor, scores: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        b, h, w = boxes.shape[0], 64, 48
        rows = []
        for i in range(b):
            bx = torchvision.ops.clip_boxes_to_image(boxes[i], (h, w))
            keep = torchvision.ops.remove_small_boxes(bx, 2.0)
            keep = keep[scores[i][keep] > 0.3]
            keep = keep[torchvision.ops.batched_nms(bx[keep], scores[i][keep], labels[i][keep], 0.5)]
            rows.append(torch.cat([bx[keep], scores[i][keep, None], labels[i][keep, None].to(boxes.dtype),
                                   torch.full_like(scores[i][keep, None], i)], 1))
        return torch.cat(rows)


class Agnostic(nn.Module):
    # YOLOX's `postprocess` enumerates the batch's predictions and runs class-agnostic `nms` on each image's
    # candidates (Megvii-BaseDetection/YOLOX@6ddff4824372906469a7fae2dc3206c7aa4bbaee yolox/utils/boxes.py:41-70);
    # here in our own words with an index list and the image as the last column.
    def forward(self, pred: torch.Tensor) -> torch.Tensor:
        out = []
        for i, p in enumerate(pred):
            score = p[:, 4] * p[:, 5]
            keep = torchvision.ops.remove_small_boxes(p[:, :4], 1.0)
            keep = keep[score[keep] >= 0.25]
            keep = keep[torchvision.ops.nms(p[:, :4][keep], score[keep], 0.45)]
            out.append(torch.cat((p[keep], torch.full_like(p[keep][:, :1], i)), 1))
        return torch.cat(out, 0)


class Masked(nn.Module):
    # The best class and a confidence mask per candidate, then class-wise NMS on what the mask keeps: YOLOX's
    # `postprocess` (Megvii-BaseDetection/YOLOX@6ddff4824372906469a7fae2dc3206c7aa4bbaee yolox/utils/boxes.py:47-70:
    # `torch.max(image_pred[:, 5:], 1, keepdim=True)`, `detections[conf_mask]`, `batched_nms(...)`) and YOLOv7's
    # `non_max_suppression` (WongKinYiu/yolov7@a207844b1ce82d204ab36d87d496728d3d2348e7 utils/general.py:661-684:
    # `conf, j = x[:, 5:].max(1, keepdim=True)`, the rows kept by `conf.view(-1) > conf_thres`), in our own words.
    def forward(self, pred: torch.Tensor) -> torch.Tensor:
        rows = []
        for i, p in enumerate(pred):
            conf, cls = p[:, 5:].max(1, keepdim=True)
            mask = (p[:, 4] * conf[:, 0] >= 0.2) & ~(p[:, 2] <= p[:, 0])
            det = torch.cat((p[:, :4], p[:, 4:5] * conf, cls.float()), 1)
            det = det[mask]
            keep = torchvision.ops.batched_nms(det[:, :4], det[:, 4], det[:, 5], 0.45)
            det = det[keep]
            rows.append(torch.cat([det, torch.full_like(det[:, :1], i)], 1))
        return torch.cat(rows)


class Zipped(nn.Module):
    # kqf/coin-detector@08455637ad013aec136a6aa508e87ea8ba764c1a detectors/inference.py:20-21 zips the batch's
    # boxes and class scores and takes each candidate's best class before `batched_nms`; in our own words, enumerated,
    # with the kept rows concatenated.
    def forward(self, boxes: torch.Tensor, classes: torch.Tensor) -> torch.Tensor:
        rows = []
        for i, (b, c) in enumerate(zip(boxes, classes)):
            score, label = c.max(1)
            keep = torchvision.ops.batched_nms(b, score, label, 0.5)
            rows.append(torch.cat([b[keep], score[keep, None], torch.full_like(score[keep, None], i)], 1))
        return torch.cat(rows)


class Pairs(nn.Module):
    # An image's boxes and scores read in one assignment, the best class by `torch.max`, class-agnostic NMS.
    def forward(self, boxes: torch.Tensor, classes: torch.Tensor) -> torch.Tensor:
        rows = []
        for k in range(boxes.shape[0]):
            bx, cl = boxes[k], classes[k]
            score, label = torch.max(cl, 1)
            keep = torchvision.ops.nms(bx, score, 0.4)
            rows.append(torch.cat((bx[keep], label[keep, None].float()), 1))
        return torch.cat(rows)


class Positions(nn.Module):
    # The candidates over a score threshold as positions, `torch.where(scores > t)[0]` (torchvision's detection
    # heads' `postprocess_detections` pick theirs so), and by `nonzero()[:, 0]` of a two-sided mask; then NMS.
    def forward(self, boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        rows = []
        for i in range(boxes.shape[0]):
            inds = torch.where(scores[i] > 0.25)[0]
            inds = inds[(scores[i][inds] < 0.95).nonzero()[:, 0]]
            keep = torchvision.ops.nms(boxes[i][inds], scores[i][inds], 0.5)
            inds = inds[keep]
            rows.append(torch.cat([boxes[i][inds], torch.full_like(boxes[i][inds, :1], i)], 1))
        return torch.cat(rows)


class Column(nn.Module):
    # The image's index as a column sized by the kept rows, as code that builds a batch-index column writes it
    # (`torch.full((len(keep), 1), i)`, `boxes.new_full((keep.shape[0], 1), i)`).
    def forward(self, boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        rows = []
        for i in range(boxes.shape[0]):
            keep = torchvision.ops.nms(boxes[i], scores[i], 0.5)
            rows.append(torch.cat([boxes[i][keep], torch.full((len(keep), 1), i, dtype=boxes.dtype),
                                   boxes.new_full((keep.size(0), 2), i)], 1))
        return torch.cat(rows)


class OneAxis(nn.Module):
    # A mask's positions made one axis, as zoo 32's wrapper of wf_pytorch_yolo_v4 0.2.2 writes them on the library's
    # `[batch, num, 1, 4]` boxes and `[batch, num, classes]` confidences (yolov4/tool/yolo_layer.py:274-282; its
    # NumPy `post_processing`, yolov4/tool/utils.py:229-240, thresholds `max_conf[i]` and reads `box_array[i,
    # argwhere, :]`): `(score > t).nonzero().squeeze(1)` (also `view(-1)`, `torch.nonzero(m).flatten()`,
    # `torch.squeeze(m.nonzero(), -1)`), the image's boxes read with the rest of the subscript, `boxes[i, keep, 0]`.
    def forward(self, boxes: torch.Tensor, confs: torch.Tensor) -> torch.Tensor:
        rows = []
        for i in range(boxes.shape[0]):
            score, label = confs[i].max(1)
            keep = (score > 0.3).nonzero().squeeze(1)
            keep = keep[(score[keep] < 0.95).nonzero().view(-1)]
            keep = keep[torch.nonzero(label[keep] < 2).flatten()]
            keep = keep[torch.squeeze((score[keep] != 0.5).nonzero(), -1)]
            b = boxes[i, keep, 0]
            k = keep[torchvision.ops.batched_nms(b, score[keep], label[keep], 0.45)]
            rows.append(torch.cat([boxes[i, k, 0], score[k, None], label[k, None].float(),
                                   boxes.new_full((k.shape[0], 1), i)], 1))
        return torch.cat(rows)


class Skipping(nn.Module):
    # An image without candidates skipped: YOLOX's `if not detections.size(0): continue`
    # (Megvii-BaseDetection/YOLOX@6ddff4824372906469a7fae2dc3206c7aa4bbaee yolox/utils/boxes.py:53-54) and YOLOv7's
    # `if not x.shape[0]: continue` (WongKinYiu/yolov7@a207844b1ce82d204ab36d87d496728d3d2348e7
    # utils/general.py:645-646), in our own words.
    def forward(self, pred: torch.Tensor) -> torch.Tensor:
        rows = []
        for i, p in enumerate(pred):
            det = p[p[:, 4] > 0.5]
            if not det.size(0):
                continue
            keep = torchvision.ops.nms(det[:, :4], det[:, 4], 0.5)
            if len(keep) == 0:
                continue
            rows.append(torch.cat([det[keep], torch.full_like(det[keep][:, :1], i)], 1))
        return torch.cat(rows)


class Capped(nn.Module):
    # A cap on each image's NMS picks: RTMDet's `batched_nms(...)[: self.max_num_detections]` (the zoo 21 cache's
    # rtmdet/rtmdet.py:204-209), YOLOv7's `if i.shape[0] > max_det: i = i[:max_det]`
    # (WongKinYiu/yolov7@a207844b1ce82d204ab36d87d496728d3d2348e7 utils/general.py:691-692), under a test of a
    # setting as mmdet's `if max_num > 0:`; a negative cap drops each image's last picks, as the slice does.
    def __init__(self, max_det: int = 6, trim: int = -1) -> None:
        super().__init__()
        self.max_det, self.trim = max_det, trim

    def forward(self, boxes: torch.Tensor, scores: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        rows = []
        for i in range(boxes.shape[0]):
            keep = torchvision.ops.batched_nms(boxes[i], scores[i], labels[i], 0.5)[: self.max_det + 2]
            if self.trim < 0:
                keep = keep[:self.trim]
            elif self.trim == 0:
                keep = keep[:0]
            if keep.shape[0] > self.max_det:
                keep = keep[:self.max_det]
            rows.append(torch.cat([boxes[i][keep], scores[i][keep, None], torch.full_like(scores[i][keep, None], i)],
                                  1))
        return torch.cat(rows)


def corners(x: torch.Tensor) -> torch.Tensor:
    # Centres and sizes to corners in a new tensor of the argument's shape, its last axis set column by column:
    # PyTorch-YOLOv3's `xywh2xyxy` (eriklindernoren/PyTorch-YOLOv3@1d621c8489e22c76ceb93bb2397ac6c8dfb5ceb7
    # pytorchyolo/utils/utils.py:86-92 makes `x.new(x.shape)`), in our own words.
    y = torch.zeros_like(x)
    y[..., 0] = x[..., 0] - x[..., 2] / 2
    y[..., 1] = x[..., 1] - x[..., 3] / 2
    y[..., 2] = x[..., 0] + x[..., 2] / 2
    y[..., 3] = x[..., 1] + x[..., 3] / 2
    return y


class Rescaled(nn.Module):
    # A confidence mask by `p[..., 4]` (PyTorch-YOLOv3's `x[x[..., 4] > conf_thres]`), class probabilities by a
    # functional softmax, corners, NMS, then hukkelas' batched RetinaFace's tail
    # (hukkelas/DSFD-Pytorch-Inference@382de8f715f9e4311e5d08241c1725e820cd8dce
    # face_detection/retinaface/detect.py:73-95: `keep_idx` bound twice, `height, width = orig_shape`, the kept boxes
    # clamped and scaled in place by columns, `scores_.view(-1, 1)`); in our own words.
    def __init__(self) -> None:
        super().__init__()
        self.size = (48, 64)

    def forward(self, pred: torch.Tensor) -> torch.Tensor:
        rows = []
        for i in range(pred.shape[0]):
            p = pred[i]
            keep = p[..., 4] >= 0.3
            p = p[keep]
            probs = torch.nn.functional.softmax(p[:, 5:], dim=-1)
            box = corners(p[:, :4])
            keep = torchvision.ops.nms(box, p[:, 4] * probs[:, 0], 0.5)
            box = box[keep].clamp(0, 40)
            height, width = self.size
            box[:, [0, 2]] *= width
            box[:, [1, 3]] *= height
            rows.append(torch.cat([box, probs[keep], p[keep, 4].view(-1, 1).cpu(), p[keep, 4].unsqueeze(1),
                                   torch.full_like(box[:, :1], i)], 1))
        return torch.cat(rows)


def decode(loc: torch.Tensor, priors: torch.Tensor, variances: list[float]) -> torch.Tensor:
    # Offsets against priors (centre, size) to corners, written into the new tensor in place: retinaface-pytorch's
    # `decode` (retinaface/box_utils.py, the zoo 27 cache's copy), in our own words.
    centre = priors[:, :2] + loc[:, :2] * variances[0] * priors[:, 2:]
    size = priors[:, 2:] * torch.exp(loc[:, 2:] * variances[1])
    out = torch.cat([centre, size], 1)
    out[:, :2] -= out[:, 2:] / 2
    out[:, 2:] += out[:, :2]
    return out


def points(pre: torch.Tensor, priors: torch.Tensor, variance: float) -> torch.Tensor:
    # Two landmarks against the same priors (retinaface-pytorch's `decode_landm` takes five).
    return torch.cat([priors[:, :2] + pre[:, :2] * variance * priors[:, 2:],
                      priors[:, :2] + pre[:, 2:] * variance * priors[:, 2:]], 1)


class Decoded(nn.Module):
    # Zoo 27's retinaface_nms (retinaface-pytorch's `predict_single` post-processing, image by image): decode each
    # image's offsets against priors the same for every image, softmax scores over a threshold picked by
    # `torch.where`, NMS, the kept rows with the image's index; in our own words.
    def forward(self, loc: torch.Tensor, conf: torch.Tensor, land: torch.Tensor) -> torch.Tensor:
        at = torch.arange(loc.shape[1], dtype=loc.dtype)
        priors = torch.stack([at % 7 / 7, at % 5 / 5, at % 3 / 9 + 0.1, at % 4 / 8 + 0.1], 1)
        scale = torch.tensor([48.0, 64.0])
        rows = []
        for i in range(loc.shape[0]):
            boxes = decode(loc[i], priors, [0.1, 0.2]) * scale.repeat(2)
            landmarks = points(land[i], priors, 0.1) * scale.repeat(2)
            scores = conf[i].softmax(-1)[:, 1]
            valid = torch.where(scores > 0.5)[0]
            boxes, landmarks, scores = boxes[valid], landmarks[valid], scores[valid]
            keep = torchvision.ops.nms(boxes, scores, 0.4)
            rows.append(torch.cat([boxes[keep], scores[keep, None], landmarks[keep],
                                   torch.full_like(scores[keep, None], i)], 1))
        return torch.cat(rows)


class ChannelsFirst(nn.Module):
    # A YOLOv8/11-style head's output, (batch, 4 + classes, anchors), post-processed image by image: each image
    # transposed to a row an anchor, the best class, a threshold, centres to corners split by `unbind` and joined by
    # `stack`, corners clamped to the image, degenerate boxes dropped, class-wise NMS capped, and the image's index
    # as a float column (`float(i)`), as zoo 82's CandyEye service writes it (benchmarks/real_zoo82.py).
    def forward(self, pred: torch.Tensor) -> torch.Tensor:
        rows = []
        for index in range(pred.shape[0]):
            out = pred[index].t()
            scores, classes = out[:, 4:].max(dim=1)
            keep = scores >= 0.2
            boxes, scores, classes = out[:, :4][keep], scores[keep], classes[keep]
            cx, cy, w, h = boxes.unbind(1)
            xyxy = torch.stack((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), 1)
            xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clamp(0, 64)
            xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clamp(0, 48)
            valid = (xyxy[:, 2] > xyxy[:, 0]) & (xyxy[:, 3] > xyxy[:, 1])
            xyxy, scores, classes = xyxy[valid], scores[valid], classes[valid]
            sel = torchvision.ops.batched_nms(xyxy, scores, classes, 0.45)[:7]
            image = torch.full((sel.numel(), 1), float(index))
            rows.append(torch.cat([image, xyxy[sel], scores[sel, None], classes[sel, None].to(xyxy.dtype)], 1))
        return torch.cat(rows)
"""


def _decoded(batch: int, generator: torch.Generator, count: int = 40) -> list[torch.Tensor]:
    return [torch.randn(batch, count, 4, generator=generator), torch.randn(batch, count, 2, generator=generator),
            torch.randn(batch, count, 4, generator=generator)]


def _boxes(batch: int, generator: torch.Generator, count: int = 40) -> list[torch.Tensor]:
    corner = torch.rand(batch, count, 2, generator=generator) * 70 - 10  # some outside the image, negative
    size = torch.rand(batch, count, 2, generator=generator) * 25
    return [torch.cat([corner, corner + size], -1), torch.rand(batch, count, generator=generator),
            torch.randint(0, 3, (batch, count), generator=generator)]


def _pred(batch: int, generator: torch.Generator, count: int = 40) -> list[torch.Tensor]:
    boxes, score, _ = _boxes(batch, generator, count)
    return [torch.cat([boxes, score[..., None], torch.rand(batch, count, 2, generator=generator)], -1)]


def _classes(batch: int, generator: torch.Generator, count: int = 40) -> list[torch.Tensor]:
    return [_boxes(batch, generator, count)[0], torch.rand(batch, count, 3, generator=generator)]


def _scored(batch: int, generator: torch.Generator, count: int = 40) -> list[torch.Tensor]:
    return _boxes(batch, generator, count)[:2]


def _channels_first(batch: int, generator: torch.Generator, count: int = 40) -> list[torch.Tensor]:
    """A YOLOv8/11-style head's output ``[batch, 4 + 3, count]``: centres (some outside the image), sizes, scores."""
    centre = torch.rand(batch, 2, count, generator=generator) * 80 - 10
    size = torch.rand(batch, 2, count, generator=generator) * 30 - 2  # a few negative: degenerate boxes
    return [torch.cat([centre, size, torch.rand(batch, 3, count, generator=generator)], 1)]


def _anchored(batch: int, generator: torch.Generator, count: int = 40) -> list[torch.Tensor]:
    """wf_pytorch_yolo_v4's outputs: boxes ``[batch, num, 1, 4]``, confidences ``[batch, num, 3]``."""
    boxes, classes = _classes(batch, generator, count)
    return [boxes[:, :, None], classes]


INPUTS = {"Boxes": _boxes, "Agnostic": _pred, "Masked": _pred, "Zipped": _classes, "Pairs": _classes,
          "Positions": _scored, "Column": _scored, "Skipping": _pred, "Capped": _boxes, "Decoded": _decoded, "Rescaled": _pred,
          "OneAxis": _anchored, "ChannelsFirst": _channels_first}
NAMES = list(INPUTS)
#: Loops whose rows ONNX Runtime rounds otherwise than eager mode (`exp`, `softmax`).
ROUNDED = frozenset({"Decoded", "Rescaled"})


def test_the_loops_are_rewritten() -> None:
    assert rules_found(LOOPS, select=RULE) == ["TRT360"] * 13
    assert rewrite(LOOPS, select=RULE) == LOOPS  # unsafe: only with --unsafe
    after = rewrite(LOOPS, select=RULE, unsafe=True)
    assert ("        if _trt_tracing():\n"
            "            _trt_n = boxes.shape[1]\n"
            "            _trt_count = boxes.shape[0]\n"
            "            _trt_image = torch.arange(_trt_count * _trt_n, device=boxes.device) // _trt_n\n"
            "            bx = torchvision.ops.clip_boxes_to_image(boxes.flatten(0, 1), (h, w))\n"
            "            keep = torchvision.ops.remove_small_boxes(bx, 2.0)\n"
            "            keep = keep[scores.flatten(0, 1)[keep] > 0.3]\n"
            "            keep = keep[_trt_nms_by_image(bx[keep], scores.flatten(0, 1)[keep], "
            "labels.flatten(0, 1)[keep], _trt_image[keep], 0.5, _trt_count)]\n"
            "            rows.append(torch.cat([bx[keep], scores.flatten(0, 1)[keep, None], "
            "labels.flatten(0, 1)[keep, None].to(boxes.dtype), _trt_image_fill(scores.flatten(0, 1)[keep, None], "
            "_trt_image[keep])], 1))\n"
            "        else:\n"
            "            for i in range(b):\n" in after)
    assert ("            score = pred.flatten(0, 1)[:, 4] * pred.flatten(0, 1)[:, 5]\n"
            "            keep = torchvision.ops.remove_small_boxes(pred.flatten(0, 1)[:, :4], 1.0)\n"
            "            keep = keep[score[keep] >= 0.25]\n"
            "            keep = keep[_trt_nms_by_image(pred.flatten(0, 1)[:, :4][keep], score[keep], None, "
            "_trt_image[keep], 0.45, _trt_count)]\n" in after)
    assert ("            conf, cls = pred.flatten(0, 1)[:, 5:].max(1, keepdim=True)\n"
            "            mask = (pred.flatten(0, 1)[:, 4] * conf[:, 0] >= 0.2) & ~(pred.flatten(0, 1)[:, 2] <= "
            "pred.flatten(0, 1)[:, 0])\n"
            "            det = torch.cat([pred.flatten(0, 1)[:, :4], pred.flatten(0, 1)[:, 4:5] * conf, cls.float()], "
            "1)\n"
            "            det = det[mask]\n"
            "            keep = _trt_nms_by_image(det[:, :4], det[:, 4], det[:, 5], _trt_image[mask], 0.45, "
            "_trt_count)\n"
            "            det = det[keep]\n"
            "            rows.append(torch.cat([det, _trt_image_fill(det[:, :1], _trt_image[mask][keep])], 1))\n"
            in after)
    assert ("            score, label = classes.flatten(0, 1).max(1)\n"
            "            keep = _trt_nms_by_image(boxes.flatten(0, 1), score, label, _trt_image, 0.5, _trt_count)\n"
            in after)
    assert ("            bx, cl = boxes.flatten(0, 1), classes.flatten(0, 1)\n"
            "            score, label = torch.max(cl, 1)\n" in after)
    assert ("            inds = torch.where(scores.flatten(0, 1) > 0.25)[0]\n"
            "            inds = inds[(scores.flatten(0, 1)[inds] < 0.95).nonzero()[:, 0]]\n" in after)
    assert ("_trt_image_fill(torch.full((keep.shape[0], 1), 0, dtype=boxes.dtype), _trt_image[keep]), "
            "_trt_image_fill(boxes.new_full((keep.shape[0], 2), 0), _trt_image[keep])], 1))" in after)
    assert ("            det = pred.flatten(0, 1)[pred.flatten(0, 1)[:, 4] > 0.5]\n"
            "            keep = _trt_nms_by_image(det[:, :4], det[:, 4], None, "
            "_trt_image[pred.flatten(0, 1)[:, 4] > 0.5], 0.5, _trt_count)\n" in after)
    assert ("            keep = _trt_cap_by_image(_trt_nms_by_image(boxes.flatten(0, 1), scores.flatten(0, 1), "
            "labels.flatten(0, 1), _trt_image, 0.5, _trt_count), _trt_image, self.max_det + 2, _trt_count)\n"
            "            if self.trim < 0:\n"
            "                keep = _trt_cap_by_image(keep, _trt_image, self.trim, _trt_count)\n"
            "            elif self.trim == 0:\n"
            "                keep = _trt_cap_by_image(keep, _trt_image, 0, _trt_count)\n"
            "            keep = _trt_cap_by_image(keep, _trt_image, self.max_det, _trt_count)\n" in after)
    assert ("            boxes = _trt_stack_map(decode(_trt_row, priors, [0.1, 0.2]) for _trt_row in _trt_rows(loc))"
            ".flatten(0, 1) * scale.repeat(2)\n"
            "            landmarks = _trt_stack_map(points(_trt_row, priors, 0.1) for _trt_row in _trt_rows(land))"
            ".flatten(0, 1) * scale.repeat(2)\n"
            "            scores = conf.flatten(0, 1).softmax(-1)[:, 1]\n"
            "            valid = torch.where(scores > 0.5)[0]\n"
            "            boxes, landmarks, scores = boxes[valid], landmarks[valid], scores[valid]\n"
            "            keep = _trt_nms_by_image(boxes, scores, None, _trt_image[valid], 0.4, _trt_count)\n"
            "            rows.append(torch.cat([boxes[keep], scores[keep, None], landmarks[keep], "
            "_trt_image_fill(scores[keep, None], _trt_image[valid][keep])], 1))\n" in after)
    assert ("            p = pred.flatten(0, 1)\n"
            "            keep = p[..., 4] >= 0.3\n"
            "            p = p[keep]\n"
            "            probs = torch.nn.functional.softmax(p[:, 5:], dim=-1)\n"
            "            box = corners(p[:, :4])\n"
            "            _trt_image_1 = _trt_image[keep]\n"
            "            keep = _trt_nms_by_image(box, p[:, 4] * probs[:, 0], None, _trt_image[keep], 0.5, _trt_count)\n"
            "            box = box[keep].clamp(0, 40)\n"
            "            height, width = self.size\n"
            "            box[:, [0, 2]] *= width\n"
            "            box[:, [1, 3]] *= height\n"
            "            rows.append(torch.cat([box, probs[keep], p[keep, 4].view(-1, 1).cpu(), p[keep, 4].unsqueeze(1), "
            "_trt_image_fill(box[:, :1], _trt_image_1[keep])], 1))\n" in after)
    assert ("            score, label = confs.flatten(0, 1).max(1)\n"
            "            keep = (score > 0.3).nonzero().squeeze(1)\n"
            "            keep = keep[(score[keep] < 0.95).nonzero().view(-1)]\n"
            "            keep = keep[torch.nonzero(label[keep] < 2).flatten()]\n"
            "            keep = keep[torch.squeeze((score[keep] != 0.5).nonzero(), -1)]\n"
            "            b = boxes.flatten(0, 1)[keep, 0]\n"
            "            k = keep[_trt_nms_by_image(b, score[keep], label[keep], _trt_image[keep], 0.45, _trt_count)]\n"
            "            rows.append(torch.cat([boxes.flatten(0, 1)[k, 0], score[k, None], label[k, None].float(), "
            "_trt_image_fill(boxes.new_full((k.shape[0], 1), 0), _trt_image[k])], 1))\n"
            in after)
    assert "def _trt_group_by_image(" in after and "def _trt_tracing(" in after and "def _trt_stack_map(" in after
    assert rewrite(after, select=RULE, unsafe=True) == after  # idempotent


def test_a_channels_first_head_is_transposed_on_the_batch_and_its_index_column_is_a_float() -> None:
    after = rewrite(LOOPS, select=RULE, unsafe=True)
    assert ("            _trt_n = pred.shape[2]\n"
            "            _trt_count = pred.shape[0]\n"
            "            _trt_image = torch.arange(_trt_count * _trt_n, device=pred.device) // _trt_n\n"
            "            out = pred.transpose(1, 2).flatten(0, 1)\n" in after)
    assert "cx, cy, w, h = boxes.unbind(1)\n" in after
    assert "image = _trt_image_fill(torch.full((sel.shape[0], 1), 0.0), _trt_image[keep][valid][sel])" in after


@pytest.mark.parametrize(("read", "taken"), [
    ("p.T", True), ("p.transpose(0, 1)", True), ("p.permute(1, 0)", True),
    ("p.transpose(1, 2)", False),  # not the image's first two axes
])
def test_other_spellings_of_a_transposed_image(read: str, taken: bool) -> None:
    code = ("import torch\nimport torchvision\n\ndef f(pred):\n    rows = []\n    for i, p in enumerate(pred):\n"
            f"        out = {read}\n        keep = torchvision.ops.nms(out[:, :4], out[:, 4], 0.5)\n"
            "        rows.append(torch.cat([out[keep], torch.full((keep.numel(), 1), int(i))], 1))\n"
            "    return torch.cat(rows)\n")
    after = rewrite(code, select=RULE, unsafe=True)
    if not taken:
        _named_not_rewritten(code)
        return
    assert "        out = pred.transpose(1, 2).flatten(0, 1)\n" in after and "_trt_n = pred.shape[2]" in after
    assert "_trt_image_fill(torch.full((keep.shape[0], 1), 0), _trt_image[keep])" in after


@pytest.mark.parametrize("body", [
    "        out = pred[i].t()\n        s = pred[i][4]\n",  # the image read as it is too: another axis of candidates
    "        out = pred[i].t()\n        keep = keep[:int(i)]\n",  # the index as a number outside a fill
    "        out = pred[i].t()\n        cx, cy = out.unbind(0)\n",  # split along the candidates
    "        out = pred[i].t()\n        c = torch.full((out.numel(), 1), float(i))\n",  # `numel` of rows
    "        out = pred[i].t()\n        s = torch.stack([out[:, 0], out[:, 1]])\n",  # stacked along a new first axis
])
def test_channels_first_reads_it_cannot_carry_over_are_named(body: str) -> None:
    code = ("import torch\nimport torchvision\n\ndef f(pred):\n    rows = []\n"
            "    for i in range(pred.shape[0]):\n        keep = torch.arange(3)\n"
            f"{body}"
            "        keep = torchvision.ops.nms(pred[i].t()[:, :4], pred[i].t()[:, 4], 0.5)\n"
            "        rows.append(pred[i].t()[keep])\n    return torch.cat(rows)\n")
    _named_not_rewritten(code)


@pytest.mark.parametrize("body", [
    "        if keep.numel() < 3:\n            continue\n",  # an image skipped that has rows: decided per image
    "        keep = keep[:i]\n",  # the image's index as a number
    "        keep = mine(keep)\n",  # a call whose per-image meaning is unknown
    "        keep = keep[keep.topk(3).indices]\n",  # a per-image top-k cap: not row-wise
    "        keep = keep[scores[i].sort().indices]\n",  # an image's own order
    "        if scores[i].max() > 0.5:\n            keep = keep[:2]\n",  # a cap decided image by image
    "        if keep.shape[0] > 3:\n            keep = keep[:4]\n",  # a test that is not the cap's
    "        keep = keep[1:3]\n",  # positions past an image's first
    "        if mine:\n            keep = boxes[i]\n        else:\n            keep = keep[:i]\n",  # neither way
    "        if mine:\n            keep = keep[:3]\n        mine = 2\n",  # a setting the loop binds
    "        keep = keep[scores[i][keep] > mine]\n        mine = 0.5\n",  # a value carried to the next image
    "        b = boxes[i]\n        b[:, 0] *= 2\n",  # written in place through a view of the input
    # positions of a mask made one axis by a squeeze of every axis of size 1: one candidate makes them a number
    "        keep = keep[(scores[i][keep] > 0.5).nonzero().squeeze()]\n",
    "        keep = keep[(scores[i][keep] > 0.5).nonzero(as_tuple=True).view(-1)]\n",  # a tuple has no `view`
    "        keep = keep[(scores[i][keep] > 0.5).nonzero().view(-1, 1)]\n",  # a column, not positions
])
def test_loops_it_cannot_carry_over_are_named_with_the_manual_step(body: str) -> None:
    code = ("import torch\nimport torchvision\n\ndef f(boxes, scores, mine):\n    rows = []\n"
            "    for i in range(boxes.shape[0]):\n        keep = torchvision.ops.remove_small_boxes(boxes[i], 1.0)\n"
            f"{body}"
            "        keep = keep[torchvision.ops.nms(boxes[i][keep], scores[i][keep], 0.5)]\n"
            "        rows.append(boxes[i][keep])\n    return torch.cat(rows)\n")
    _named_not_rewritten(code)


_WRITTEN = ("import time\nimport torch\nimport torchvision\n\ndef f(boxes, scores):\n    t = time.time()\n"
            "    out = {made}\n    for i in range(boxes.shape[0]):\n"
            "        keep = torchvision.ops.nms(boxes[i], scores[i], 0.5)\n"
            "        out[i] = boxes[i][keep]\n{stop}    return out\n")
_TIME_LIMIT = "        if time.time() - t > 10.0:\n            print('time limit')\n            break\n"


def test_a_list_made_before_and_written_by_the_images_index_is_made_from_the_flattened_rows() -> None:
    # YOLOv5/v7's `output = [torch.zeros((0, 6), device=...)] * prediction.shape[0]`, `output[xi] = x[i]` and the
    # time limit (WongKinYiu/yolov7@a207844b1ce82d204ab36d87d496728d3d2348e7 utils/general.py:629, 695-698)
    code = _WRITTEN.format(made="[torch.zeros((0, 4))] * boxes.shape[0]", stop=_TIME_LIMIT)
    after = rewrite(code, select=RULE, unsafe=True)
    assert ("        keep = _trt_nms_by_image(boxes.flatten(0, 1), scores.flatten(0, 1), None, _trt_image, 0.5, "
            "_trt_count)\n"
            "        out = _trt_per_image_list(boxes.flatten(0, 1)[keep], _trt_image[keep], _trt_count)\n"
            "    else:\n" in after)
    tracing, eager = after.split("    else:\n        for i in range(boxes.shape[0]):\n")
    assert "time limit" in eager and "time limit" not in tracing.split("def f(")[1]  # the stop: not while tracing
    # a list of None (YOLOX's), every entry written: the same rewrite
    nones = rewrite(_WRITTEN.format(made="[None] * boxes.shape[0]", stop=""), select=RULE, unsafe=True)
    assert "        out = _trt_per_image_list(boxes.flatten(0, 1)[keep], _trt_image[keep], _trt_count)\n" in nones


@pytest.mark.parametrize("made,stop", [
    ("[torch.zeros((0, 4))] * 3", ""),  # entries for another number of images
    ("[None] * (boxes.shape[0] + 1)", ""),  # None for another number of images
    ("[torch.zeros((1, 4))] * boxes.shape[0]", ""),  # a default with a row
    ("[torch.zeros((0, 4))] * boxes.shape[0]", "        if scores[i].max() > 0.9:\n            break\n"),  # a stop
    ("[torch.zeros((0, 4))] * boxes.shape[0]", "        if t:\n            continue\n            break\n"),
])
def test_written_lists_and_stops_it_cannot_carry_over_are_named(made: str, stop: str) -> None:
    _named_not_rewritten(_WRITTEN.format(made=made, stop=stop))


def test_an_if_on_settings_it_cannot_carry_over_one_way_guards_the_tracing_branch() -> None:
    # YOLOv7's `if labels and len(labels[xi]):`, `if multi_label:` / `else:`, `if classes is not None:` and `if merge
    # and (1 < n < 3E3):` (WongKinYiu/yolov7@a207844b1ce82d204ab36d87d496728d3d2348e7 utils/general.py:636-690): the
    # flattened branch runs where each goes the way it carries over; elsewhere the loop, as written
    code = ("import torch\nimport torchvision\n\ndef f(boxes, scores, labels, mine, merge):\n    rows = []\n"
            "    for i in range(boxes.shape[0]):\n"
            "        keep = torchvision.ops.nms(boxes[i], scores[i], 0.5)\n"
            "        if labels and len(labels[i]):\n            keep = keep[labels[i]]\n"
            "        if mine:\n            keep = mine(keep)\n        else:\n            keep = keep[:4]\n"
            "        if merge:\n            keep = keep[:2]\n        else:\n            keep = merge(keep)\n"
            "        rows.append(boxes[i][keep])\n    return torch.cat(rows)\n")
    after = rewrite(code, select=RULE, unsafe=True)
    assert "    if _trt_tracing() and not (labels) and not (mine) and (merge):\n" in after
    assert ("        keep = _trt_nms_by_image(boxes.flatten(0, 1), scores.flatten(0, 1), None, _trt_image, 0.5, "
            "_trt_count)\n"
            "        keep = _trt_cap_by_image(keep, _trt_image, 4, _trt_count)\n"
            "        keep = _trt_cap_by_image(keep, _trt_image, 2, _trt_count)\n"
            "        rows.append(boxes.flatten(0, 1)[keep])\n" in after)
    namespace: dict = {}
    exec(compile(after, "after.py", "exec"), namespace)  # noqa: S102 - the rewrite under test
    namespace["_trt_tracing"] = lambda: True
    generator = torch.Generator().manual_seed(3)
    boxes, scores, _ = _boxes(3, generator)
    before: dict = {}
    exec(compile(code, "before.py", "exec"), before)  # noqa: S102
    for labels, mine, merge in (((), None, True), ((), lambda k: k[:1], True), (None, None, lambda k: k[:3])):
        assert torch.equal(namespace["f"](boxes, scores, labels, mine, merge), before["f"](boxes, scores, labels, mine,
                                                                                           merge))


_ROW_FUNCTION = """\
import torch
import torchvision


def corners(x):
    y = x.clone()
    y[:, 2] = x[:, 0] + x[:, 2]
    y[:, 3] = x[:, 1] + x[:, 3]
    return y


def centred(x):
    y = x.clone()
    y[:, 0] = x[:, 0] - x[:, 0].mean()
    return y


def f(boxes, scores):
    rows = []
    for i in range(boxes.shape[0]):
        b = {name}({read})
        keep = torchvision.ops.nms(b, scores[i], 0.5)
        rows.append(b[keep])
    return torch.cat(rows)
"""


def _flattened_and_loop(after: str, code: str):
    """``f`` of the rewritten ``after`` with its tracing branch taken in eager mode, and ``f`` of ``code`` (the loop)."""
    namespace: dict = {}
    exec(compile(after, "after.py", "exec"), namespace)  # noqa: S102 - the rewrite under test
    namespace["_trt_tracing"] = lambda: True  # the flattened branch, run eagerly
    before: dict = {}
    exec(compile(code, "before.py", "exec"), before)  # noqa: S102
    return namespace["f"], before["f"]


def test_a_function_of_the_module_that_sets_columns_of_every_row_is_carried_over() -> None:
    # YOLOv5/v7's `xywh2xyxy` (WongKinYiu/yolov7@a207844b1ce82d204ab36d87d496728d3d2348e7 utils/general.py:374-381),
    # a copy whose columns are set from the argument's columns: each row's result is its row's alone
    code = _ROW_FUNCTION.format(name="corners", read="boxes[i]")
    after = rewrite(code, select=RULE, unsafe=True)
    assert "        b = corners(boxes.flatten(0, 1))\n" in after
    flattened, loop = _flattened_and_loop(after, code)
    generator = torch.Generator().manual_seed(4)
    for batch in (1, 3):
        corner = torch.rand(batch, 30, 2, generator=generator) * 40 - 5
        boxes = torch.cat([corner, torch.rand(batch, 30, 2, generator=generator) * 12], -1)
        scores = torch.rand(batch, 30, generator=generator)
        assert torch.equal(flattened(boxes, scores), loop(boxes, scores))
    # one that reads other rows (a mean over the image's boxes) of the image read at the index is mapped over the
    # batch by vmap: the mean of each image's own boxes
    mapped = rewrite(_ROW_FUNCTION.format(name="centred", read="boxes[i]"), select=RULE, unsafe=True)
    assert "        b = _trt_stack_map(centred(_trt_row) for _trt_row in _trt_rows(boxes)).flatten(0, 1)\n" in mapped
    # of rows already picked from it, neither
    _named_not_rewritten(_ROW_FUNCTION.format(name="centred", read="boxes[i][scores[i] > 0.1]").replace(
        "scores[i], 0.5", "scores[i][scores[i] > 0.1], 0.5"))


def test_a_function_of_the_whole_image_is_mapped_by_vmap_in_the_export(tmp_path) -> None:
    # `centred(boxes[i])` subtracts the image's mean x: vmap computes each image's own, in the graph too, at the
    # traced batch; its write of the column into the copy records the traced batch (a Reshape to (2, 1)), so the
    # graph refuses another: why the rule is unsafe and migrate keeps it only where the graph follows the batch
    code = _ROW_FUNCTION.format(name="centred", read="boxes[i]")
    before = import_source(code, tmp_path)
    after = import_source(rewrite(code, select=RULE, unsafe=True), tmp_path)

    class Post(torch.nn.Module):
        def forward(self, boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
            return after["f"](boxes, scores)

    generator = torch.Generator().manual_seed(6)

    def sample(batch: int) -> list[torch.Tensor]:
        corner = torch.rand(batch, 30, 2, generator=generator) * 40 - 5
        return [torch.cat([corner, corner + torch.rand(batch, 30, 2, generator=generator) * 12], -1),
                torch.rand(batch, 30, generator=generator)]

    session = _export(Post(), sample(2))
    inputs = sample(2)
    (got,) = session.run(None, {f"in{i}": t.numpy() for i, t in enumerate(inputs)})
    torch.testing.assert_close(torch.from_numpy(got), before["f"](*inputs), rtol=1e-5, atol=1e-5)
    inputs = sample(3)
    with pytest.raises(Exception, match="Reshape"):  # noqa: B017, PT011 - ONNX Runtime's refusal of the baked batch
        session.run(None, {f"in{i}": t.numpy() for i, t in enumerate(inputs)})


def _named_not_rewritten(code: str) -> None:
    findings = check_source(code.encode(), "snippet.py", Options(select=RULE))
    assert [f.rule for f in findings] == ["TRT360"]
    assert "not rewritten" in findings[0].message and "run NMS once on every image's candidates" in findings[0].message
    assert rewrite(code, select=RULE, unsafe=True) == code


def test_migrate_gives_the_manual_step_past_what_a_report_line_shows() -> None:
    from trtcodemod.migrate.manual_steps import PER_IMAGE_NMS_STEP, manual_step

    entry = {"rule": "TRT360", "severity": "warning", "kind": "baked", "op": "(unrolled loop)",
             "message": "value baked in at line 68; no automatic fix: `for i in range(b)` runs NMS image by image "
                        "over the batch: ...; not rewritten (...)"}
    assert manual_step(entry) == PER_IMAGE_NMS_STEP and "EfficientNMS" in PER_IMAGE_NMS_STEP
    assert manual_step({**entry, "message": "value baked in at line 68"}) is None


def test_a_library_nms_called_image_by_image_is_named() -> None:
    # rtmdet's `RTMDet.nms` called on one image's slice (benchmarks/real_zoo21.py's rtmdet_tiny_nms): its
    # internals (a per-image cap, `torch.stack`) are installed code, out of the rewrite's sight.
    _named_not_rewritten(
        "import torch\n\ndef f(m, boxes, scores, classes):\n    rows = []\n    for i in range(boxes.shape[0]):\n"
        "        b, s, c = m.nms(boxes[i:i + 1], scores[i:i + 1], classes[i:i + 1])\n"
        "        rows.append(torch.cat([b[0], s[0]], 1))\n    return torch.cat(rows)\n")


def test_loops_over_other_axes_or_without_nms_are_left_alone() -> None:
    # pytorch-retinanet's class loop (yhenon/pytorch-retinanet@0348a9d57b279e3b5b235461b472d37da5feec3d
    # retinanet/model.py:273-283 runs `nms` per class on a batch of one): not over the batch
    classes = ("import torch\nfrom torchvision.ops import nms\n\ndef f(scores, boxes):\n    rows = []\n"
               "    for i in range(scores.shape[2]):\n        s = scores[:, :, i].squeeze(0)\n"
               "        rows.append(nms(boxes[0], s, 0.5))\n    return torch.cat(rows)\n")
    plain = ("import torch\n\ndef f(x):\n    rows = []\n    for i in range(x.shape[0]):\n"
             "        rows.append(x[i] * 2)\n    return torch.cat(rows)\n")
    assert rules_found(classes, select=RULE) == [] and rules_found(plain, select=RULE) == []


@pytest.mark.parametrize("after", [
    # a list of one result an image is made from the flattened rows (tests/transforms/test_per_image_rows.py)
    "    return torch.cat(rows), keep",  # a name the loop binds: the flattened branch leaves another value
])
def test_lists_used_otherwise_are_named_only(after: str) -> None:
    code = ("import torch\nimport torchvision\n\ndef f(boxes, scores):\n    rows = []\n"
            "    for i in range(boxes.shape[0]):\n"
            "        keep = torchvision.ops.nms(boxes[i], scores[i], 0.5)\n"
            "        rows.append(boxes[i][keep])\n"
            f"{after}\n")
    _named_not_rewritten(code)


def test_the_rows_flat_nms_gives_are_the_loops() -> None:
    code = ("import torch\nimport torchvision\n\ndef f(boxes, scores):\n    rows = []\n"
            "    for i in range(boxes.shape[0]):\n"
            "        keep = torchvision.ops.nms(boxes[i], scores[i], 0.5)\n"
            "        rows.append(boxes[i][keep])\n    return torch.cat(rows)\n")
    assert "keep = _trt_nms_by_image(boxes.flatten(0, 1), scores.flatten(0, 1), None, _trt_image, 0.5, _trt_count)" \
        in rewrite(code, select=RULE, unsafe=True)


def _namespaces(tmp_path) -> tuple[dict, dict]:
    return import_source(LOOPS, tmp_path), import_source(rewrite(LOOPS, select=RULE, unsafe=True), tmp_path)


def _edge_inputs(name: str, batch: int, generator: torch.Generator) -> list[list[torch.Tensor]]:
    inputs = INPUTS[name](batch, generator)
    zeros = [torch.zeros_like(t) for t in inputs]
    negative = [-t.abs() if t.is_floating_point() else t for t in inputs]
    no_candidates = INPUTS[name](batch, generator, 0)
    odd = [t.clone() for t in inputs]
    if batch:
        odd[0].view(-1)[:4] = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0])
    return [inputs, zeros, negative, no_candidates, odd]


@pytest.mark.parametrize("name", NAMES)
def test_eager_code_runs_the_loop(name: str, tmp_path) -> None:
    before, after = _namespaces(tmp_path)
    original, rewritten = before[name](), after[name]()
    generator = torch.Generator().manual_seed(0)
    for batch in (1, 2, 5, 0):  # no image: torch.cat([]) raises in both
        for inputs in _edge_inputs(name, batch, generator):
            assert_same_run(run_once(original, inputs), run_once(rewritten, inputs), context=f"{name} {batch}")


@pytest.mark.parametrize("name", NAMES)
def test_the_flattened_branch_keeps_the_loops_rows(name: str, tmp_path, monkeypatch) -> None:
    before, after = _namespaces(tmp_path)
    monkeypatch.setitem(after, "_trt_tracing", lambda: True)
    original, rewritten = before[name](), after[name]()
    generator = torch.Generator().manual_seed(1)
    for batch in (1, 2, 3, 6):
        for inputs in _edge_inputs(name, batch, generator)[:4]:  # finite values: NMS of NaN boxes is unordered
            try:
                expected = original(*inputs)
            except (RuntimeError, ValueError):  # no image made rows: torch.cat([]) raises; the flattened rows: none
                assert rewritten(*inputs).shape[0] == 0
                continue
            got = rewritten(*inputs)
            assert torch.equal(expected, got), (name, batch)


def test_the_grouping_is_stable_by_image() -> None:
    from trtcodemod.helpers.per_image import _trt_group_by_image, _trt_image_fill

    keep = torch.tensor([7, 2, 9, 4, 0, 5])
    image = torch.tensor([2, 0, 2, 1, 0, 1])
    assert _trt_group_by_image(keep, image, 3).tolist() == [2, 0, 4, 5, 7, 9]
    assert _trt_group_by_image(keep[:0], image[:0], 3).tolist() == []
    filled = _trt_image_fill(torch.zeros(3, 1, dtype=torch.float16), torch.tensor([0, 1, 1]))
    assert filled.dtype == torch.float16 and filled.tolist() == [[0.0], [1.0], [1.0]]


@pytest.mark.parametrize("cap", [0, 1, 2, 5, -1, -2, -7])
def test_the_cap_keeps_each_images_first_positions(cap: int) -> None:
    from trtcodemod.helpers.per_image import _trt_cap_by_image

    image = torch.tensor([0, 0, 0, 1, 2, 2, 2, 2, 4, 4])  # image 3 has no rows
    keep = torch.tensor([2, 0, 1, 3, 7, 4, 6, 5, 9, 8])  # grouped by image, each in its own (NMS) order
    expected = torch.cat([keep[image[keep] == j][:cap] for j in range(5)])
    assert torch.equal(_trt_cap_by_image(keep, image, cap, 5), expected)
    assert _trt_cap_by_image(keep[:0], image, cap, 5).tolist() == []
    assert _trt_cap_by_image(keep, image, cap, 5).dtype == torch.int64


def _export(model: torch.nn.Module, inputs: list[torch.Tensor]) -> ort.InferenceSession:
    names = [f"in{i}" for i in range(len(inputs))]
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, tuple(inputs), buffer, dynamo=False, input_names=names, opset_version=17,
                          dynamic_axes={n: {0: "batch"} for n in names})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("name", NAMES)
def test_the_exported_graph_follows_the_batch(name: str, tmp_path) -> None:
    before, after = _namespaces(tmp_path)
    original, rewritten = before[name](), after[name]()
    generator = torch.Generator().manual_seed(2)
    session = _export(original, INPUTS[name](2, generator))
    inputs = INPUTS[name](3, generator)
    try:
        (got,) = session.run(None, {f"in{i}": t.numpy() for i, t in enumerate(inputs)})
    except Exception:  # noqa: BLE001 - ONNX Runtime's refusal (a Split of the example's two images) is the symptom
        got = None
    assert got is None or got.shape != tuple(original(*inputs).shape)  # the graph keeps the example's two images
    session = _export(rewritten, INPUTS[name](2, generator))
    for batch in (2, 3, 1, 5):
        inputs = INPUTS[name](batch, generator)
        (got,) = session.run(None, {f"in{i}": t.numpy() for i, t in enumerate(inputs)})
        if name in ROUNDED:  # the same rows in the same order, ONNX Runtime's exp and softmax rounding otherwise
            torch.testing.assert_close(torch.from_numpy(got), original(*inputs), rtol=1e-5, atol=1e-5)
            continue
        assert torch.equal(torch.from_numpy(got), original(*inputs)), (name, batch)


def _decoded_sets(generator: torch.Generator) -> dict[str, list[torch.Tensor]]:
    """Zoo 27's edges: batches of 1 and 3, no box over the threshold, one image without one, equal scores."""
    below = _decoded(3, generator)
    below[1][..., 1] = below[1][..., 0] - 1.0  # every score under 0.5
    empty = _decoded(3, generator)
    empty[1][1, :, 1] = empty[1][1, :, 0] - 1.0  # the middle image's only
    ties = _decoded(3, generator)
    ties[1] = torch.tensor([0.0, 2.0]).repeat(3, 40, 1)  # one score for every candidate of every image
    zeros = [torch.zeros(2, 40, 4), torch.zeros(2, 40, 2), torch.zeros(2, 40, 4)]  # scores of exactly 0.5: none
    negatives = [-t.abs() for t in _decoded(3, generator)]
    return {"batch-1": _decoded(1, generator), "batch-3": _decoded(3, generator), "below": below, "empty": empty,
            "ties": ties, "zeros": zeros, "negatives": negatives}


def test_a_decoding_loop_keeps_each_images_rows_in_eager_code_the_flattened_branch_and_the_export(
        tmp_path, monkeypatch) -> None:
    before, after = _namespaces(tmp_path)
    original, rewritten = before["Decoded"](), after["Decoded"]()
    sets = _decoded_sets(torch.Generator().manual_seed(3))
    expected = {name: original(*inputs) for name, inputs in sets.items()}
    counts = {name: [int((rows[:, -1] == j).sum()) for j in range(sets[name][0].shape[0])]
              for name, rows in expected.items()}
    assert counts["below"] == [0, 0, 0] and counts["empty"][1] == 0 and min(counts["empty"][::2]) > 0
    assert counts["zeros"] == [0, 0] and min(counts["ties"]) > 1  # ties: several non-overlapping picks an image
    for name, inputs in sets.items():
        assert_same_run(run_once(original, inputs), run_once(rewritten, inputs), context=name)
    session = _export(rewritten, _decoded(2, torch.Generator().manual_seed(4)))
    for name, inputs in sets.items():  # the graph of two images, run on 1, 2 and 3: each image's rows in order
        (got,) = session.run(None, {f"in{i}": t.numpy() for i, t in enumerate(inputs)})
        torch.testing.assert_close(torch.from_numpy(got), expected[name], rtol=1e-5, atol=1e-5, msg=name)
    monkeypatch.setitem(after, "_trt_tracing", lambda: True)  # the flattened branch, eager (vmap falls back)
    for name, inputs in sets.items():
        assert torch.equal(after["Decoded"]()(*inputs), expected[name]), name


def _scaled(loc: torch.Tensor, priors: torch.Tensor) -> torch.Tensor:
    return loc[:, :2] * priors[:, 2:] + priors[:, :2]


def test_a_scripted_caller_compiles_the_mapped_function_as_the_loop() -> None:
    # The tracing branch's mapped call (the rewrite of `_scaled(loc[i], priors)`) scripts: TorchScript reads the
    # generator expression as a list comprehension and the helpers stack it; `_trt_tracing()` is False there.
    from trtcodemod.helpers.mapping import _trt_rows, _trt_stack_map
    from trtcodemod.helpers.tracing import _trt_tracing

    def post(loc: torch.Tensor, priors: torch.Tensor, traced: bool) -> torch.Tensor:
        if traced or _trt_tracing():
            return _trt_stack_map(_scaled(_trt_row, priors) for _trt_row in _trt_rows(loc)).flatten(0, 1)
        return torch.cat([_scaled(loc[i], priors) for i in range(loc.shape[0])])

    loc, priors = torch.randn(3, 5, 4), torch.rand(5, 4)
    scripted = torch.jit.script(post)
    assert torch.equal(scripted(loc, priors, True), post(loc, priors, False))
    assert torch.equal(scripted(loc, priors, False), post(loc, priors, False))


@pytest.mark.parametrize("body", [
    "        boxes = decode(loc[i], conf[i])\n",  # two images: one function of both
    "        boxes = decode(loc[i][conf[i] > 0], priors)\n",  # rows already picked
    "        boxes = decode(loc[i, :5], priors)\n",  # a part of the image
    "        boxes = decode(loc[i], priors, i)\n",  # the image's index as a number
    "        boxes = loc[i].softmax(0)\n",  # softmax across the candidates
    "        boxes = torch.softmax(loc[i])\n",  # an axis the tensor's rank picks
    "        boxes = loc[i].softmax(dim=-1, dtype=torch.float64)\n",  # more than the axis
])
def test_decoding_it_cannot_carry_over_is_named(body: str) -> None:
    _named_not_rewritten("import torch\nimport torchvision\n\ndef f(loc, conf, priors, decode):\n    rows = []\n"
                         "    for i in range(loc.shape[0]):\n"
                         f"{body}"
                         "        keep = torchvision.ops.nms(boxes, conf[i], 0.5)\n"
                         "        rows.append(boxes[keep])\n"
                         "    return torch.cat(rows)\n")


MODEL = """\
import torch
import torchvision


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 7, 3, 4, 1)

    def forward(self, x):
        out = self.conv(x).flatten(2).transpose(1, 2)
        boxes = torch.cat([out[..., :2] * 8, out[..., :2] * 8 + out[..., 2:4].exp() * 8], -1)
        scores, labels = out[..., 4:].sigmoid().max(-1)
        rows = []
        for i in range(x.shape[0]):
            keep = torchvision.ops.remove_small_boxes(boxes[i], 1.0)
            keep = keep[scores[i][keep] > 0.3]
            keep = keep[torchvision.ops.batched_nms(boxes[i][keep], scores[i][keep], labels[i][keep], 0.5)]
            rows.append(torch.cat([boxes[i][keep], scores[i][keep, None], torch.full_like(scores[i][keep, None], i)],
                                  1))
        return torch.cat(rows)


def build():
    return Head().eval()


def inputs(generator):
    return (torch.rand(2, 3, 32, 32, generator=generator),)
"""


def test_migrate_takes_the_loop_at_first_contact(tmp_path) -> None:
    import json

    from support import migrate_json

    path = tmp_path / "model.py"
    path.write_text(MODEL)
    (tmp_path / "torchvision").mkdir()
    shutil.copy(torchvision_standin.__file__, tmp_path / "torchvision" / "__init__.py")
    report = migrate_json(path, json.dumps({"x": {"0": "batch"}}))
    applied = {d["rule"]: d for d in report["applied"]}
    assert "TRT360" in applied, report["remaining"]
    assert report["after"]["faithful"] is True and not [r for r in report["remaining"] if r["source"]
                                                         and r["source"].startswith(str(path))]


def test_a_scripted_caller_compiles_without_the_helpers() -> None:
    # TorchScript compiles both branches of `if _trt_tracing():`; the helpers are `torch.jit.unused`, so a loop that
    # scripted before still scripts (and runs its loop: `_trt_tracing()` is False there).
    from trtcodemod.helpers.per_image import _trt_image_fill, _trt_nms_by_image
    from trtcodemod.helpers.tracing import _trt_tracing

    def post(boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        if _trt_tracing():
            image = torch.arange(boxes.shape[0])
            keep = _trt_nms_by_image(boxes, scores, None, image, 0.5, boxes.shape[0])
            return _trt_image_fill(boxes[keep], image[keep])
        return boxes[scores > 0.5]

    scores = torch.tensor([0.2, 0.7, float("nan")])
    assert torch.equal(torch.jit.script(post)(torch.ones(3, 4), scores), torch.ones(1, 4))


def test_half_precision_boxes_are_shifted_in_float32() -> None:
    # 60 images 200 px wide: image 59's boxes move by about 12000, where float16's spacing is 8
    from trtcodemod.helpers.per_image import _trt_nms_by_image

    boxes = torch.tensor([[10.0, 10.0, 20.0, 20.0], [11.0, 10.0, 21.0, 20.0], [190.0, 0.0, 200.0, 5.0]])
    boxes = boxes.repeat(60, 1).half()
    scores = torch.tensor([0.9, 0.8, 0.7]).repeat(60).half()
    image = torch.arange(60).repeat_interleave(3)
    keep = _trt_nms_by_image(boxes, scores, None, image, 0.85, 60)
    assert keep.tolist() == list(range(180))  # box 1 overlaps box 0 by 0.82 only (in float16 they would coincide)


@pytest.mark.parametrize(("before", "taken"), [
    ("class Head:\n    def run(self, b):\n        return corners(b)\n", True),  # a read in a class: binds nothing
    ("corners = None\n", False),  # rebound at module level
    ("from geometry import corners\n", False),
    ("if True:\n    def corners(x):\n        return x\n", False),  # defined again under an `if`
])
def test_a_row_function_is_recognised_only_when_the_module_binds_its_name_once(before: str, taken: bool) -> None:
    code = _ROW_FUNCTION.format(name="corners", read="boxes[i]") + before
    after = rewrite(code, select=RULE, unsafe=True)
    assert ("        b = corners(boxes.flatten(0, 1))\n" in after) is taken


# TRT360 names a loop over the batch that appends each image's rows with the image's index and runs no NMS.
# 
# oriented_det's `yolo_obb_decode_pre_nms` (zoo 29's `od_yolo_obb_n_rows` and `od_rtmdet_s_rows` wrappers, `:74`) keeps
# each image's top candidates over a score threshold: the rows an image gives are what its own scores select. A name
# that says it runs before NMS is no NMS, so TRT360 does not take the loop for a per-image NMS loop (whose manual step
# is `batched_nms`); it names it, detect only, with the parallelizable loop's manual step. The snippets are our own,
# in the wrapper's form.

ROWS_HEADER = "import torch\nimport torchvision\n\n\n"

LOOP = ROWS_HEADER + """\
def decode_pre_nms(scores, boxes, threshold):
    best, label = scores.sigmoid().max(1)
    keep = best > threshold
    return boxes[keep], best[keep], label[keep]


class M(torch.nn.Module):
    def forward(self, x):
        rows = []
        for i in range(x.shape[0]):
            b, s, c = {call}
            rows.append(torch.cat([b, s[:, None], c[:, None].to(b.dtype), {column}], 1))
        return torch.cat(rows)
"""

CALL = "decode_pre_nms(x[i, :, 4:], x[i, :, :4], 0.3)"
COLUMN = "torch.full_like(s[:, None], i)"


def _findings(code: str) -> list:
    return list(check_source(code.encode(), "snippet.py", Options(select=("TRT360",))))


def test_a_rows_loop_without_nms_is_named_with_its_manual_step() -> None:
    code = LOOP.format(call=CALL, column=COLUMN)
    [finding] = _findings(code)
    assert finding.line == code.splitlines().index("        for i in range(x.shape[0]):") + 1
    assert finding.edit is None and "computes each image's rows and appends them with the image's index" in finding.message
    assert "runs NMS" not in finding.message
    entry = {"rule": "TRT360", "message": finding.message, "severity": "error", "kind": "finding"}
    assert manual_step(entry) == PER_IMAGE_ROWS_STEP
    assert "parallelizable" in PER_IMAGE_ROWS_STEP and "nonzero()" in PER_IMAGE_ROWS_STEP
    assert rewrite(code, unsafe=True, select=("TRT360",)) == code


@pytest.mark.parametrize("column", ["x.new_full((s.shape[0], 1), i)", "torch.full_like(s[:, None], i, dtype=b.dtype)"])
def test_other_spellings_of_the_index_column(column: str) -> None:
    assert rules_found(LOOP.format(call=CALL, column=column), select=("TRT360",)) == ["TRT360"]


@pytest.mark.parametrize("column", ["torch.zeros_like(s[:, None])", "torch.full_like(s[:, None], 0)"])
def test_left_alone_without_the_image_index(column: str) -> None:
    assert rules_found(LOOP.format(call=CALL, column=column), select=("TRT360",)) == []


def test_a_loop_that_runs_nms_keeps_the_nms_step() -> None:
    call = "decode_pre_nms(x[i, :, 4:], x[i, :, :4], 0.3)\n            k = torchvision.ops.nms(b, s, 0.5)\n" \
           "            b, s, c = b[k], s[k], c[k]"
    findings = _findings(LOOP.format(call=call, column=COLUMN))
    assert findings and all("runs NMS image by image" in f.message for f in findings)
    assert all("computes each image's rows" not in f.message for f in findings)
    nms_named = LOOP.format(call="batched_rotated_nms(x[i, :, 4:], x[i, :, :4], 0.3)", column=COLUMN)
    [finding] = _findings(nms_named)
    assert "runs NMS image by image" in finding.message
    assert manual_step({"rule": "TRT360", "message": finding.message, "severity": "error"}) == PER_IMAGE_NMS_STEP


ROWS_MODEL = '''\
from typing import List

import torch


def decode_pre_nms(scores, boxes, threshold):
    best, label = scores.max(1)
    keep = best > threshold
    return boxes[keep], best[keep], label[keep]


def features(net, images: List[torch.Tensor]):
    return net(torch.stack(images))


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Identity()

    def forward(self, x):
        f = features(self.net, list(x))
        rows = []
        for i in range(x.shape[0]):
            b, s, c = decode_pre_nms(f[i, :, 4:], f[i, :, :4], 0.3)
            rows.append(torch.cat([b, s[:, None], c[:, None].to(b.dtype), torch.full_like(s[:, None], i)], 1))
        return torch.cat(rows)


def build():
    return M().eval()


def inputs(generator):
    return (torch.rand(2, 12, 7, generator=generator),)
'''


def test_migrate_names_the_loop_once_at_the_users_line(tmp_path) -> None:
    """`list(x)` is fixed (TRT366 inserts its helpers above the loop, which moves it down in the rewritten file);
    the loop is left, named once: TRT360's finding at the `for` of the user's file, with the parallelizable step."""
    from support import migrate_json

    path = tmp_path / "rows_model.py"
    path.write_text(ROWS_MODEL)
    report = migrate_json(path, '{"x": {"0": "batch"}}')
    loop = ROWS_MODEL.splitlines().index("        for i in range(x.shape[0]):") + 1
    assert ("TRT366", ROWS_MODEL.splitlines().index("        f = features(self.net, list(x))") + 1) in \
        [(fix["rule"], fix["line"]) for fix in report["applied"]], report["remaining"]
    assert report["exit_code"] == 1
    here = [entry for entry in report["remaining"] if entry["source"] and entry["source"].startswith(str(path))]
    assert [(entry["rule"], entry["source"]) for entry in here] == [("TRT360", f"{path}:{loop}")], here
    assert here[0]["manual_step"] == PER_IMAGE_ROWS_STEP


# --- a comprehension over the batch calling a function of this file that runs NMS on one image ------------
# lucid_yolo 0.5.0.dev2's `NMSDecoder.decode_with_indices` (lucid_yolo/decode/nms_path.py:183-187):
# `decoded = [self._decode_image(boxes[i], scores[i], classes[i]) for i in range(boxes.shape[0])]`, each image
# thresholded, suppressed by `batched_nms`, capped and padded to `max_det` rows (nms_path.py:206-214), then
# `torch.stack` of each half.

_PER_IMAGE_METHOD = '''
import torch
from torchvision.ops import batched_nms


class Decoder(torch.nn.Module):
    def forward(self, boxes, scores, classes):
        decoded = [self._decode_image(boxes[i], scores[i], classes[i]) for i in range(boxes.shape[0])]
        return torch.stack([image for image, _ in decoded]), torch.stack([index for _, index in decoded])

    def _decode_image(self, boxes, scores, classes):
        keep = scores >= 0.1
        anchors = keep.nonzero().flatten()
        order = batched_nms(boxes[keep], scores[keep], classes[keep], 0.5)[:10]
        return boxes[keep][order], anchors[order]
'''


@pytest.mark.parametrize("comprehension", [
    "[self._decode_image(boxes[i], scores[i], classes[i]) for i in range(boxes.shape[0])]",
    "[self._decode_image(b, s, c) for b, s, c in zip(boxes, scores, classes)]",
    "list(self._decode_image(b, scores[i], classes[i]) for i, b in enumerate(boxes))",
    "[self._decode_image(boxes[i], scores[i], classes[i]) for i in range(len(boxes))]",
])
def test_a_comprehension_calling_a_per_image_nms_is_named_at_the_users_line(comprehension: str) -> None:
    code = _PER_IMAGE_METHOD.replace(
        "[self._decode_image(boxes[i], scores[i], classes[i]) for i in range(boxes.shape[0])]", comprehension)
    findings = check_source(code.encode(), "snippet.py", Options(select=RULE))
    assert [(f.rule, f.line) for f in findings] == [("TRT360", 8)]
    assert "`self._decode_image`" in findings[0].message and "not rewritten" in findings[0].message
    assert manual_step({"rule": "TRT360", "severity": "error", "kind": "baked",
                        "message": findings[0].message}) == PER_IMAGE_NMS_STEP
    assert rewrite(code, select=RULE, unsafe=True) == code


@pytest.mark.parametrize("change", [
    ("batched_nms(boxes[keep], scores[keep], classes[keep], 0.5)[:10]", "scores[keep].argsort()[:10]"),  # no NMS
    ("range(boxes.shape[0])", "range(boxes.shape[1])"),  # not over the batch
    ("self._decode_image(boxes[i]", "self._other(boxes[i]"),  # a method this class does not define
])
def test_comprehensions_without_a_per_image_nms_are_left_alone(change: tuple[str, str]) -> None:
    assert rules_found(_PER_IMAGE_METHOD.replace(*change), select=RULE) == []


# --- a decode helper of rows returning several tensors, and a 2-D mask's (candidate, class) pairs (yolort) -------------

_MULTI_LABEL = '''import torch
import torchvision


def decode(p):
{helper}    return boxes, scores


def f(logits):
    out = []
    for i in range(logits.shape[0]):
        p = logits[i]
        boxes, scores = decode(p)
        inds, labels = torch.where(scores > 0.3)
        boxes, scores = boxes[inds], scores[inds, labels]
        keep = torchvision.ops.batched_nms(boxes, scores, labels, 0.5)[:3]
        out.append(torch.cat([boxes[keep], scores[keep, None], labels[keep, None].to(boxes.dtype)], 1))
    return torch.cat(out)
'''
_ROW_WISE_DECODE = ("    scores = p[:, 5:] * p[:, 4:5]\n"
                    "    boxes = torchvision.ops.box_convert(p[:, :4], in_fmt='cxcywh', out_fmt='xyxy')\n")


def test_a_decode_helper_of_rows_and_a_2d_mask_s_pairs_are_carried_over() -> None:
    code = _MULTI_LABEL.format(helper=_ROW_WISE_DECODE)
    after = rewrite(code, select=RULE, unsafe=True)
    assert ("        p = logits.flatten(0, 1)\n"
            "        boxes, scores = decode(p)\n"
            "        inds, labels = torch.where(scores > 0.3)\n"
            "        boxes, scores = boxes[inds], scores[inds, labels]\n") in after, after
    flattened, loop = _flattened_and_loop(after, code)
    generator = torch.Generator().manual_seed(7)
    for batch in (1, 2, 4):
        logits = torch.rand(batch, 40, 8, generator=generator)
        logits[..., :2] *= 30
        logits[..., 2:4] *= 10
        if batch == 4:
            logits[2, :, 4] = 0.0  # an image with no candidate over the threshold
        assert torch.equal(flattened(logits), loop(logits)), batch


@pytest.mark.parametrize("helper", [
    "    scores = p[:, 5:] / p[:, 5:].sum(0)\n    boxes = p[:, :4]\n",  # a sum over the image's candidates
    "    scores = p[:, 5:]\n    boxes = p[:, :4][p[:, 4].argsort()]\n",  # the image's own order
    "    scores = p[:, 5:]\n    boxes = p[:4]\n",  # the first candidates, not columns
])
def test_a_decode_helper_that_is_not_row_wise_is_not_called_on_the_flattened_rows(helper: str) -> None:
    _named_not_rewritten(_MULTI_LABEL.format(helper=helper))


@pytest.mark.parametrize("conversion,taken", [
    ("labels[keep, None].to(boxes.dtype)", True), ("labels[keep, None].to(dtype=boxes.dtype)", True),
    ("labels[keep, None].to(boxes.device)", True), ("labels[keep, None].to(boxes)", False),
    ("labels[keep, None].type_as(boxes)", False),
])
def test_a_conversion_to_the_rows_dtype_is_carried_over(conversion: str, taken: bool) -> None:
    code = _MULTI_LABEL.format(helper=_ROW_WISE_DECODE).replace("labels[keep, None].to(boxes.dtype)", conversion)
    assert ("_trt_tracing()" in rewrite(code, select=RULE, unsafe=True)) is taken


# --- landmarks regrouped per row and a scale made with the rows' dtype (face_detection's RetinaFace, zoo 65) ---------

_LANDMARKS = '''import torch
import torchvision


def f(boxes, landms, height: int, width: int):
    rows = []
    for i in range(boxes.shape[0]):
        scores = boxes[i, :, -1]
        keep = scores >= 0.3
        box, score, landm = boxes[i, keep, :-1], scores[keep], landms[i, keep]
        keep = torchvision.ops.nms(box, score, 0.4)
        box, score, landm = box[keep], score[keep], landm[keep].reshape(-1, 5, 2)
        box = box * torch.tensor([width, height, width, height], dtype=box.dtype)
        landm = (landm * torch.tensor([width, height], dtype=box.dtype)).reshape(-1, 10)
        rows.append(torch.cat([box, score[:, None], landm, torch.full_like(score[:, None], i)], 1))
    return torch.cat(rows)
'''


def test_rows_regrouped_and_a_scale_in_the_rows_dtype_are_carried_over() -> None:
    after = rewrite(_LANDMARKS, select=RULE, unsafe=True)
    assert "landm[keep].reshape(-1, 5, 2)" in after.split("else:")[0], after
    assert "box = box * torch.tensor([width, height, width, height], dtype=box.dtype)" in after.split("else:")[0]
    flattened, loop = _flattened_and_loop(after, _LANDMARKS)
    generator = torch.Generator().manual_seed(3)
    for batch in (1, 3):
        corner = torch.rand(batch, 30, 2, generator=generator)
        boxes = torch.cat([corner, corner + torch.rand(batch, 30, 2, generator=generator) * 0.3,
                           torch.rand(batch, 30, 1, generator=generator)], -1)
        if batch == 3:
            boxes[1, :, -1] = 0.0  # an image with no candidate over the threshold
        landms = torch.rand(batch, 30, 10, generator=generator)
        for dtype in (torch.float32, torch.float64):
            args = (boxes.to(dtype), landms.to(dtype), 96, 128)
            assert torch.equal(flattened(*args), loop(*args)), (batch, dtype)


@pytest.mark.parametrize("regroup", ["reshape(-1, 5, -2)", "reshape(5, -1, 2)", "reshape(-1, n, 2)", "view(-1, 0)"])
def test_a_regrouping_that_is_not_per_row_is_not_carried_over(regroup: str) -> None:
    code = _LANDMARKS.replace("landm[keep].reshape(-1, 5, 2)", f"landm[keep].{regroup}").replace(
        "def f(boxes, landms, height: int, width: int):", "def f(boxes, landms, height: int, width: int, n=5):")
    _named_not_rewritten(code)


def test_a_one_statement_function_of_the_module_is_no_column_setter() -> None:
    # pytorchyolo 1.8.0's `output[xi] = to_cpu(x[i])` with `def to_cpu(tensor): return tensor.detach().cpu()` (zoo 65):
    # the column-setter check once unpacked its body as (copy, columns..., return) and failed on one statement
    code = ("import torch\nimport torchvision\n\n\ndef to_cpu(tensor):\n    return tensor.detach().cpu()\n\n\n"
            "def f(boxes, scores):\n    rows = []\n    for i in range(boxes.shape[0]):\n"
            "        keep = torchvision.ops.nms(boxes[i], scores[i], 0.5)\n"
            "        rows.append(to_cpu(boxes[i][keep]))\n    return torch.cat(rows)\n")
    findings = check_source(code.encode(), "snippet.py", Options(select=RULE))
    assert [f.rule for f in findings] == ["TRT360"]


def test_a_one_line_elementwise_helper_is_carried_over() -> None:
    # pytorchyolo 1.8.0's `to_cpu` (utils/utils.py:42-43) on the rows NMS kept: the same method chain on every
    # image's rows at once
    code = ("import torch\nimport torchvision\n\n\ndef to_cpu(tensor):\n    return tensor.detach().cpu()\n\n\n"
            "def f(boxes, scores):\n    rows = []\n    for i in range(boxes.shape[0]):\n"
            "        keep = torchvision.ops.nms(boxes[i], scores[i], 0.5)\n"
            "        rows.append(to_cpu(boxes[i][keep]))\n    return torch.cat(rows)\n")
    after = rewrite(code, select=RULE, unsafe=True)
    assert "_trt_tracing()" in after and "to_cpu(boxes.flatten(0, 1)[" in after, after
    flattened, loop = _flattened_and_loop(after, code)
    generator = torch.Generator().manual_seed(5)
    for batch in (1, 3):
        corner = torch.rand(batch, 20, 2, generator=generator) * 20
        boxes = torch.cat([corner, corner + torch.rand(batch, 20, 2, generator=generator) * 8], -1)
        scores = torch.rand(batch, 20, generator=generator)
        assert torch.equal(flattened(boxes, scores), loop(boxes, scores)), batch
    # a helper that reads the image's other rows is no elementwise chain
    assert "to_cpu(boxes.flatten(0, 1)[" not in rewrite(code.replace("tensor.detach().cpu()", "tensor[:2].detach()"),
                                                         select=RULE, unsafe=True)


_SETTING_PICKS = '''import torch
import torchvision


def f(pred, strict: bool, classes=None):
    rows = []
    for i in range(pred.shape[0]):
        x = pred[i]
        if strict:
            x = x[x[:, 5:].amax(1) > 0.6]
        if classes is not None:
            x = x[(x[:, 4:5] == torch.tensor(classes)).any(1)]
        keep = torchvision.ops.nms(x[:, :4], x[:, 5], 0.5)
        rows.append(x[keep])
    return torch.cat(rows)
'''


def test_a_setting_s_if_whose_ways_pick_rows_differently_keeps_their_images_in_one_name() -> None:
    # pytorchyolo's `if multi_label:` / `else:` and `if classes is not None:` (zoo 65): each way's rows are of other
    # images, kept in one name set each way (and by an `else:` the rewrite adds where the `if` had none)
    after = rewrite(_SETTING_PICKS, select=RULE, unsafe=True)
    tracing = after.split("    else:\n        for i in")[0]
    assert "_trt_tracing()" in tracing and "strict" not in tracing.split("_trt_tracing()")[1].split("\n")[0], after
    assert "        else:\n            _trt_image_2 = _trt_image\n" in tracing, tracing
    flattened, loop = _flattened_and_loop(after, _SETTING_PICKS)
    generator = torch.Generator().manual_seed(9)
    for batch in (1, 3):
        corner = torch.rand(batch, 24, 2, generator=generator) * 20
        pred = torch.cat([corner, corner + torch.rand(batch, 24, 2, generator=generator) * 8,
                          torch.randint(0, 3, (batch, 24, 1), generator=generator).float(),
                          torch.rand(batch, 24, 2, generator=generator)], -1)
        for strict in (False, True):
            for classes in (None, [0, 2], [5]):
                assert torch.equal(flattened(pred, strict, classes), loop(pred, strict, classes)), \
                    (batch, strict, classes)


def test_a_row_function_of_another_file_through_a_star_export_is_carried_over(tmp_path) -> None:
    """cnstd's YOLOv7 NMS (zoo 71) calls ``xywh2xyxy`` from ``from ..utils import xywh2xyxy``, a package whose
    ``__init__`` re-exports ``from .utils import *``: the function is read where it is defined and carried over as
    this module's own would be; a module whose ``__all__`` leaves the name out, or one that defines a function
    reading other rows, gives no carry-over."""
    from trtcodemod.engine import fix_source

    package = tmp_path / "pkg"
    (package / "utils").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "utils" / "__init__.py").write_text("from .boxes import *\n")
    (package / "utils" / "boxes.py").write_text(_ROW_FUNCTION.split("def f(")[0])
    loop = "def f(boxes, scores):" + _ROW_FUNCTION.split("def f(boxes, scores):")[1]
    code = "import torch\nimport torchvision\nfrom .utils import {name}\n\n\n" + loop

    def rewritten(name: str) -> str:
        source = code.format(name=name, read="boxes[i]").encode()
        return fix_source(source, str(package / "nms.py"), Options(select=RULE, unsafe=True)).source.decode()

    after = rewritten("corners")
    assert "        b = corners(boxes.flatten(0, 1))\n" in after, after
    namespace: dict = {}
    exec(compile(_ROW_FUNCTION.split("def f(")[0] + after.split("from .utils import corners\n")[1], "after.py",
                 "exec"), namespace)  # noqa: S102 - the rewrite under test, with the helper defined beside it
    namespace["_trt_tracing"] = lambda: True
    before: dict = {}
    exec(compile(_ROW_FUNCTION.format(name="corners", read="boxes[i]"), "before.py", "exec"), before)  # noqa: S102
    generator = torch.Generator().manual_seed(7)
    for batch in (1, 3):
        boxes = torch.cat([torch.rand(batch, 30, 2, generator=generator) * 40 - 5,
                           torch.rand(batch, 30, 2, generator=generator) * 12], -1)
        scores = torch.rand(batch, 30, generator=generator)
        assert torch.equal(namespace["f"](boxes, scores), before["f"](boxes, scores))
    # a function that reads other rows is mapped by vmap, not called on the flattened rows
    assert "b = centred(boxes.flatten(0, 1))" not in rewritten("centred")
    # an `__all__` without the name: the star import does not bind it, so nothing is known of it
    (package / "utils" / "boxes.py").write_text('__all__ = ["centred"]\n' + _ROW_FUNCTION.split("def f(")[0])
    assert "b = corners(boxes.flatten(0, 1))" not in rewritten("corners")


# --- a function of one image defined in the block, mapped over the batch by a comprehension (Lightning-Bolts) ---------
# pl_bolts 0.7.0's `YOLO.process_detections` (pl_bolts/models/detection/yolo/yolo_module.py:369-383); the end-to-end
# variant is tests/recipe_variants/trt360/pl_bolts_process_detections.py.

_MAPPED = '''import torch
import torchvision


def f(preds):
    def process(boxes, confidences, classprobs):
        scores = classprobs * confidences[:, None]
        idxs, labels = (scores > 0.3).nonzero().T
        boxes = boxes[idxs]
        scores = scores[idxs, labels]
        keep = torchvision.ops.batched_nms(boxes, scores, labels, 0.5)
        keep = keep[:3]
        return {"boxes": boxes[keep], "scores": scores[keep], "labels": labels[keep]}

    return [process(p[..., :4], p[..., 4], p[..., 5:]) for p in preds]
'''


def _mapped_preds(batch: int, generator: torch.Generator) -> torch.Tensor:
    preds = torch.rand(batch, 30, 8, generator=generator)
    preds[..., 2:4] += preds[..., :2]  # x2 > x1, y2 > y1
    preds[..., :4] *= 10
    return preds


@pytest.mark.parametrize("form", [
    ("", ""),  # returned
    ("    return [process(", "    out = [process("),  # assigned, then returned
])
def test_a_comprehension_of_a_function_of_this_block_is_flattened(form: tuple[str, str]) -> None:
    code = _MAPPED.replace(*form) + ("    return out\n" if form[0] else "")
    found = check_source(code.encode(), "snippet.py", Options(select=RULE))
    assert [(f.rule, f.line) for f in found] == [("TRT360", 15)], found
    after = rewrite(code, select=RULE, unsafe=True)
    assert ("        boxes = preds.flatten(0, 1)[..., :4]\n"
            "        confidences = preds.flatten(0, 1)[..., 4]\n"
            "        classprobs = preds.flatten(0, 1)[..., 5:]\n"
            "        scores = classprobs * confidences[:, None]\n"
            "        idxs, labels = (scores > 0.3).nonzero().T\n") in after, after
    assert "keep = _trt_cap_by_image(keep, _trt_image[idxs], 3, _trt_count)" in after
    assert "    else:\n        " + ("return [process(" if not form[0] else "out = [process(") in after
    flattened, mapped = _flattened_and_loop(after, code)
    generator = torch.Generator().manual_seed(11)
    for batch in (1, 2, 4):
        preds = _mapped_preds(batch, generator)
        if batch == 4:
            preds[2, :, 4] = 0.0  # an image with no candidate over the threshold
        got, expected = flattened(preds), mapped(preds)
        assert len(got) == len(expected) == batch
        for one, other in zip(got, expected):
            assert one.keys() == other.keys() and all(torch.equal(one[k], other[k]) for k in one), batch
    # eager code runs the comprehension: the same values on edge inputs, an empty batch included
    namespace: dict = {}
    exec(compile(after, "after.py", "exec"), namespace)  # noqa: S102 - the rewrite under test
    for preds in (torch.zeros(2, 30, 8), -_mapped_preds(3, generator), _mapped_preds(0, generator)):
        got, expected = namespace["f"](preds), mapped(preds)
        assert len(got) == len(expected) and all(torch.equal(a[k], b[k]) for a, b in zip(got, expected) for k in a)


@pytest.mark.parametrize("change", [
    ("def process(boxes, confidences, classprobs):", "def process(boxes, confidences, classprobs=None):"),
    ("        keep = keep[:3]\n", "        if keep.numel() == 0:\n            return None\n"),  # an early return
    ("(p[..., :4], p[..., 4], p[..., 5:])", "(p[..., :4], boxes=p[..., 4], classprobs=p[..., 5:])"),
    ("        keep = keep[:3]\n", "        keep = keep[:3]\n        print(keep)\n"),  # a call it cannot carry over
])
def test_a_mapped_function_it_cannot_inline_is_named(change: tuple[str, str]) -> None:
    code = _MAPPED.replace(*change)
    assert code != _MAPPED
    findings = check_source(code.encode(), "snippet.py", Options(select=RULE))
    assert [(f.rule, f.line) for f in findings] == [("TRT360", 15 + code.count("\n") - _MAPPED.count("\n"))]
    assert "not rewritten" in findings[0].message and "`process`" in findings[0].message
    assert rewrite(code, select=RULE, unsafe=True) == code


def test_a_mapped_function_whose_names_are_read_after_is_left_alone() -> None:
    # the tracing branch would leave `keep` bound to every image's picks where the comprehension binds none
    code = _MAPPED.replace("    return [process(", "    out = [process(") + "    return out, keep\n"
    _named_not_rewritten(code)
    plain = _MAPPED.replace("torchvision.ops.batched_nms(boxes, scores, labels, 0.5)", "scores.argsort()")
    assert rules_found(plain, select=RULE) == []  # no NMS in the function: not this rule's


# --- one tuple an image: a library's post-processing (TRT360 with TRT361) ---------------------------------
#
# modern-yolonas 0.5.0's ``postprocess`` (CondadosAI/modern-yolonas, ``modern_yolonas/inference/postprocess.py:10-78``,
# zoo 85's YOLO-NAS models) walks the batch image by image: a multi-label pick of (anchor, class) pairs or the best
# class and a mask, an empty ``(boxes, scores, labels)`` tuple appended before ``continue`` where an image keeps no
# candidate, a top-k of 1024 behind ``if n > nms_top_k:``, ``batched_nms``, ``keep[:max_detections]``, and one tuple an
# image appended to a list it returns. Its caller (``YoloNASDetector.detect_batch``, zoo 85's wrapper) unpacks each
# tuple with ``enumerate`` and writes the image's index as a column. The snippets here are our own, in that form and in
# two others (dict entries with ``new_zeros`` empties, rows only concatenated); the library's own file goes through
# migrate in zoo 85 (benchmarks/real_zoo85.py, exit 0 after stop 85).

SELECT = ("TRT360", "TRT361")


TUPLES = '''\
import torch
import torchvision


def decode(boxes_batch, scores_batch, threshold=0.05, iou=0.6, limit=20, pairs=True):
    found = []
    for n in range(boxes_batch.shape[0]):
        boxes = boxes_batch[n]
        scores = scores_batch[n]
        if pairs:
            rows, labels = (scores > threshold).nonzero(as_tuple=True)
            if rows.shape[0] == 0:
                found.append((torch.empty(0, 4, device=boxes.device), torch.empty(0, device=boxes.device),
                              torch.empty(0, dtype=torch.long, device=boxes.device)))
                continue
            picked = boxes[rows]
            confidence = scores[rows, labels]
        else:
            best, labels = scores.max(dim=-1)
            mask = best > threshold
            picked = boxes[mask]
            confidence = best[mask]
            labels = labels[mask]
            if picked.shape[0] == 0:
                found.append((torch.empty(0, 4), torch.empty(0), torch.empty(0, dtype=torch.long)))
                continue
        top = 64
        if picked.shape[0] > top:
            order = confidence.topk(top).indices
            picked = picked[order]
            confidence = confidence[order]
            labels = labels[order]
        keep = torchvision.ops.batched_nms(picked, confidence, labels, iou)
        keep = keep[:limit]
        found.append((picked[keep], confidence[keep], labels[keep]))
    return found


class Detect(torch.nn.Module):
    def __init__(self, pairs=True):
        super().__init__()
        self.pairs = pairs

    def forward(self, boxes, scores):
        rows = []
        for index, (kept, score, label) in enumerate(decode(boxes, scores, 0.05, 0.6, 20, self.pairs)):
            image = torch.full((kept.shape[0], 1), float(index))
            rows.append(torch.cat([image, kept, score[:, None], label[:, None].to(kept.dtype)], 1))
        return torch.cat(rows)
'''


def _batch(images: int, candidates: int = 40, classes: int = 3, *, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Boxes (x1y1x2y2 pixels) overlapping often, and scores in [0, 0.2): about three quarters over 0.05."""
    generator = torch.Generator().manual_seed(seed)
    corner = torch.rand(images, candidates, 2, generator=generator) * 60
    size = torch.rand(images, candidates, 2, generator=generator) * 30 + 1
    return torch.cat([corner, corner + size], -1), torch.rand(images, candidates, classes, generator=generator) * 0.2


def _rows(t: torch.Tensor) -> list[tuple[float, ...]]:
    return sorted(map(tuple, t.tolist()))


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tuples")
    after = rewrite(TUPLES, unsafe=True, select=SELECT)
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, "torchvision", torchvision_standin)
        return after, import_source(TUPLES, folder), import_source(after, folder)


def test_the_loop_and_its_caller_are_rewritten(programs) -> None:
    after = programs[0]
    # the skips appending an empty tuple are dropped, the pre-cap each image's best 64 where it has more (the
    # others' rows as they are), one NMS over every image
    assert "        order = _trt_top_k_by_image(confidence, _trt_image_1, top, _trt_count, True, False)\n" \
           "        picked = picked[order]\n        confidence = confidence[order]\n        labels = labels[order]\n" \
           in after
    assert "        found = _trt_per_image_list((picked[keep], confidence[keep], labels[keep]), " \
           "_trt_image_1[order][keep], _trt_count)\n" in after
    assert "keep = _trt_nms_by_image(picked, confidence, labels, _trt_image_1[order], iou, _trt_count)" in after
    tracing = after.split("if not torch.jit.is_scripting() and _trt_tracing():")[1].split("    else:")[0]
    assert ".topk" not in tracing and "continue" not in tracing and "torch.empty" not in tracing
    # the caller takes each part of the flattened tuple by position, the list's form checked at run time
    assert "_trt_flat = _trt_flat_rows(_trt_results, 3)" in after
    assert "rows.append(torch.cat([image, _trt_flat[0], _trt_flat[1][:, None], " \
           "_trt_flat[2][:, None].to(_trt_flat[0].dtype)], 1))" in after
    assert rewrite(after, unsafe=True, select=SELECT) == after  # idempotent


@pytest.mark.parametrize("pairs", [True, False])
def test_eager_results_are_the_loops(programs, pairs: bool) -> None:
    _, before, after = programs
    for images in (1, 2, 3):
        boxes, scores = _batch(images, seed=images)
        scores[0] = 0.0  # an image without candidates: the empty tuple
        if images > 1:
            scores[1, :, 0] = float("nan")  # NaN scores are never over the threshold
        want = before["Detect"](pairs)(boxes, scores)
        got = after["Detect"](pairs)(boxes, scores)
        assert torch.equal(want, got) or (want.numel() == 0 and got.shape == want.shape)
    empty = before["decode"](*_batch(0))
    assert empty == [] and after["decode"](*_batch(0)) == []


def _export_tuples(module: torch.nn.Module, images: int) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, _batch(images), buffer, dynamo=False, input_names=["boxes", "scores"],
                          dynamic_axes={"boxes": {0: "batch", 1: "n"}, "scores": {0: "batch", 1: "n"}})
    return buffer.getvalue()


@pytest.mark.parametrize("pairs", [True, False])
def test_the_rewritten_graph_follows_the_batch(programs, pairs: bool) -> None:
    _, before, after = programs
    session = ort_session(_export_tuples(after["Detect"](pairs), 2))
    original = ort_session(_export_tuples(before["Detect"](pairs), 2))
    wrong = 0
    for images, candidates in ((1, 40), (2, 40), (3, 70), (5, 40)):
        boxes, scores = _batch(images, candidates, seed=10 + images)
        scores[-1] = 0.0  # the last image keeps nothing
        scores[0, 30:] = 0.0  # the first image has fewer than 64 pairs over the threshold, the others more
        want = before["Detect"](pairs)(boxes, scores)
        feeds = {"boxes": boxes.numpy(), "scores": scores.numpy()}
        got = torch.from_numpy(session.run(None, feeds)[0])
        assert got.shape == want.shape and torch.allclose(torch.tensor(_rows(got)).reshape(want.shape),
                                                          torch.tensor(_rows(want)).reshape(want.shape))
        try:
            baked = torch.from_numpy(original.run(None, feeds)[0])
        except Exception:  # noqa: BLE001 - ONNX Runtime refuses the baked graph's shapes: as wrong as can be
            baked = None
        wrong += baked is None or baked.shape != want.shape or _rows(baked) != _rows(want)
    assert wrong >= 2  # the original's graph keeps the example's two images


def test_the_pre_cap_keeps_each_images_best(programs) -> None:
    # 64 identical best boxes and 56 apart: the loop cuts to the best 64 before NMS, which keeps one of them; so
    # does the graph (a graph that left the cut out would keep 20 boxes)
    _, before, after = programs
    apart = torch.arange(120.0)[:, None] * 100 + torch.tensor([0.0, 0.0, 10.0, 10.0])
    boxes = torch.where(torch.arange(120)[:, None] < 64, torch.tensor([0.0, 0.0, 10.0, 10.0]), apart)[None]
    scores = torch.zeros(1, 120, 3)
    scores[0, :, 0] = torch.linspace(0.19, 0.06, 120)
    want = before["Detect"](True)(boxes, scores)
    session = ort_session(_export_tuples(after["Detect"](True), 1))
    got = session.run(None, {"boxes": boxes.numpy(), "scores": scores.numpy()})
    assert want.shape == (1, 7) and torch.allclose(torch.from_numpy(got[0]), want)


def test_the_list_helper_and_the_rows_helper_keep_the_tuple_form() -> None:
    from trtcodemod.helpers.per_image import _trt_flat_rows, _trt_per_image_list

    flat = (torch.arange(12.0).reshape(6, 2), torch.arange(6.0), torch.tensor([0, 1, 0, 1, 0, 1]))
    image = torch.tensor([0, 0, 2, 2, 2, 3])
    made = _trt_per_image_list(flat, image, 4)
    assert [tuple(part.shape[0] for part in entry) for entry in made] == [(2, 2, 2), (0, 0, 0), (3, 3, 3), (1, 1, 1)]
    assert torch.equal(made[2][0], flat[0][2:5]) and made[1][2].dtype == torch.long
    assert _trt_flat_rows(made, 3) is flat
    assert _trt_flat_rows(made, 2) is None and _trt_flat_rows(made) is None  # another form: the caller's loop runs
    assert _trt_flat_rows(_trt_per_image_list(flat[0], image, 4), 3) is None


OTHER_FORMS = '''\
import torch
import torchvision


def by_image(pred):
    out = []
    for i, p in enumerate(pred):
        score = p[:, 4]
        keep = torch.where(score > 0.3)[0]
        if len(keep) == 0:
            out.append({"boxes": p.new_zeros((0, 4)), "scores": p.new_zeros((0,))})
            continue
        keep = keep[torchvision.ops.nms(p[keep, :4], score[keep], 0.5)]
        out.append({"boxes": p[keep, :4], "scores": score[keep]})
    return out


def rows_of(pred):
    rows = []
    for i, det in enumerate(by_image(pred)):
        rows.append(torch.cat([det["boxes"], det["scores"][:, None], torch.full_like(det["scores"][:, None], i)], 1))
    return torch.cat(rows)


def concatenated(pred):
    rows = []
    for i, p in enumerate(pred):
        keep = torch.where(p[:, 4] > 0.3)[0]
        if not keep.numel():
            rows.append(torch.zeros((0, 6)))
            continue
        keep = keep[torchvision.ops.nms(p[keep, :4], p[keep, 4], 0.5)]
        rows.append(torch.cat([p[keep, :5], torch.full_like(p[keep, 4:5], i)], 1))
    return torch.cat(rows)
'''


def test_dict_entries_and_concatenated_rows_with_empties_before_continue(tmp_path) -> None:
    after = rewrite(OTHER_FORMS, unsafe=True, select=SELECT)
    assert after.count("keep = keep[_trt_nms_by_image(") == 2
    assert 'out = _trt_per_image_list({"boxes": ' in after and "_trt_flat = _trt_flat_rows(_trt_results)" in after
    before_ns, after_ns = import_source(OTHER_FORMS, tmp_path), import_source(after, tmp_path)
    generator = torch.Generator().manual_seed(5)
    corner = torch.rand(3, 30, 2, generator=generator) * 50
    pred = torch.cat([corner, corner + 12, torch.rand(3, 30, 1, generator=generator), torch.zeros(3, 30, 1)], -1)
    pred[1, :, 4] = 0.0
    for name in ("concatenated", "rows_of"):
        want = before_ns[name](pred)
        assert torch.equal(want, after_ns[name](pred))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = torch.jit.trace(after_ns[name], (pred[:2],), check_trace=False)
        assert _rows(traced(pred)) == _rows(want)  # three images through a trace of two, image 1 without rows


@pytest.mark.parametrize(("change", "guard"), [
    # the empty entry has another form than the image's entry (the multi-label way)
    (("torch.empty(0, dtype=torch.long, device=boxes.device)))", "))"), "not (pairs)"),
    # the empties go to another list (the multi-label way)
    (("                found.append((torch.empty(0, 4, device", "                other = []\n"
                                                              "                other.append((torch.empty(0, 4, device"),
     "not (pairs)"),
    # the entry appended before `continue` is not empty (the best-class way)
    (("torch.empty(0, 4), torch.empty(0), torch.empty(0, dtype=torch.long)",
      "torch.zeros(1, 4), torch.zeros(1), torch.zeros(1, dtype=torch.long)"), "(pairs)"),
    # the pre-cap writes in place (both ways)
    (("            picked = picked[order]\n",
      "            picked = picked[order]\n            confidence.clamp_(0, 1)\n"),
     None),
    # the pre-cap binds a name read after it (both ways)
    (("        keep = torchvision.ops.batched_nms(picked, confidence, labels, iou)",
      "        keep = torchvision.ops.batched_nms(picked, confidence, labels, iou + 0 * order.shape[0])"), None),
])
def test_forms_the_flattening_cannot_take_keep_the_loop(change: tuple[str, str], guard: str | None) -> None:
    # where one way of `if pairs:` holds what cannot be carried over, the tracing branch is taken only the other way
    code = TUPLES.replace(*change)
    assert code != TUPLES
    after = rewrite(code, unsafe=True, select=("TRT360",))
    if guard is None:
        assert "_trt_nms_by_image(" not in after.split("def decode")[1]
    else:
        assert f"if not torch.jit.is_scripting() and _trt_tracing() and {guard}:\n" in after


SCRIPTABLE = '''\
from typing import List, Tuple

import torch
import torchvision


def best_class(boxes_batch: torch.Tensor, scores_batch: torch.Tensor, threshold: float,
               limit: int) -> List[Tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    found: List[Tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = []
    for n in range(boxes_batch.shape[0]):
        best, labels = scores_batch[n].max(dim=-1)
        mask = best > threshold
        picked = boxes_batch[n][mask]
        confidence = best[mask]
        labels = labels[mask]
        if picked.shape[0] == 0:
            found.append((torch.empty(0, 4), torch.empty(0), torch.empty(0, dtype=torch.long)))
            continue
        keep = torchvision.ops.batched_nms(picked, confidence, labels, 0.5)
        keep = keep[:limit]
        found.append((picked[keep], confidence[keep], labels[keep]))
    return found
'''


def test_a_scripted_caller_still_compiles(tmp_path, monkeypatch) -> None:
    # TorchScript compiles every branch: the tracing branch's list helper sits behind `torch.jit.is_scripting()`.
    # A script resolves `torchvision.ops.batched_nms` through modules: the stand-in's functions, as modules.
    import types

    package, ops = types.ModuleType("torchvision"), types.ModuleType("torchvision.ops")
    ops.batched_nms = torchvision_standin.ops.batched_nms
    package.ops = ops
    monkeypatch.setitem(sys.modules, "torchvision", package)
    after = rewrite(SCRIPTABLE, unsafe=True, select=SELECT)
    assert "found = _trt_per_image_list(" in after
    boxes, scores = _batch(3, seed=7)
    scores[1] = 0.0
    want = torch.jit.script(import_source(SCRIPTABLE, tmp_path)["best_class"])(boxes, scores, 0.1, 5)
    got = torch.jit.script(import_source(after, tmp_path)["best_class"])(boxes, scores, 0.1, 5)
    assert [tuple(part.shape[0] for part in entry) for entry in want] == [(5, 5, 5), (0, 0, 0), (5, 5, 5)]
    assert all(torch.equal(a, b) for w, g in zip(want, got, strict=True) for a, b in zip(w, g, strict=True))


TUPLE_MODEL = textwrap.dedent('''\
    import torch
    import torchvision

    ''') + TUPLES.split("import torchvision\n", 1)[1] + textwrap.dedent('''\


    class Head(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 7, 3, padding=1)
            self.detect = Detect(True)

        def forward(self, x):
            out = self.conv(x).flatten(2).transpose(1, 2)
            corner = out[..., :2].sigmoid() * 64
            boxes = torch.cat([corner, corner + out[..., 2:4].sigmoid() * 16 + 1], -1)
            return self.detect(boxes, out[..., 4:].sigmoid() * 0.2)


    def build():
        return Head().eval()


    def inputs(generator):
        return (torch.rand(2, 3, 8, 8, generator=generator),)
    ''')


def test_migrate_takes_the_post_processing_at_first_contact(tmp_path) -> None:
    import json
    import shutil

    path = tmp_path / "model.py"
    path.write_text(TUPLE_MODEL)
    (tmp_path / "torchvision").mkdir()
    shutil.copy(torchvision_standin.__file__, tmp_path / "torchvision" / "__init__.py")
    report = migrate_json(path, json.dumps({"x": {"0": "batch"}}))
    applied = {d["rule"] for d in report["applied"]}
    assert {"TRT360", "TRT361"} <= applied, (report["applied"], report["remaining"])
    assert report["before"]["faithful"] is False and report["after"]["faithful"] is True
    assert report["exit_code"] == 0


REBOUND = '''\
import torch
import torchvision


def post(pred):
    rows = []
    for i, p in enumerate(pred):
        keep = torch.where(p[:, 4] > 0.3)[0]
        keep = keep[torchvision.ops.nms(p[keep, :4], p[keep, 4], 0.5)]
        rows.append(torch.cat([p[keep, :5], torch.full_like(p[keep, 4:5], i)], 1))
    rows = torch.cat(rows, dim=0)
    return rows
'''


@pytest.mark.parametrize(("after_loop", "concatenated"), [
    ("    rows = torch.cat(rows, dim=0)\n    return rows\n", True),  # bound anew to the concatenation (fastface)
    ("    rows = torch.cat(rows, dim=0)\n    return rows, len(rows)\n", True),  # later reads are the new value's
    ("    out = torch.cat(rows, dim=0)\n    return out, rows\n", False),  # the list itself read after
    ("    rows = torch.stack(rows)\n    return rows\n", False),  # not a concatenation
])
def test_a_list_concatenated_into_its_own_name_is_only_concatenated(after_loop: str, concatenated: bool) -> None:
    # only concatenated: the tracing branch appends every image's rows at once; else one entry an image is made
    code = REBOUND.replace("    rows = torch.cat(rows, dim=0)\n    return rows\n", after_loop)
    tracing = rewrite(code, unsafe=True, select=RULE).split("_trt_tracing():\n")[-1].split("    else:")[0]
    assert "_trt_nms_by_image(" in tracing
    assert ("        rows.append(torch.cat(" in tracing) is concatenated
    assert ("        rows = _trt_per_image_list(" in tracing) is not concatenated


MASK_SKIPS = '''\
import torch
import torchvision


def decode(cat_scores, cat_boxes, score_thr: float = 0.3, nms_thr: float = 0.5):
    results = []
    for b in range(cat_scores.shape[0]):
        max_scores, max_labels = cat_scores[b].max(dim=-1)
        keep_mask = max_scores > score_thr
        if keep_mask.sum() == 0:
            results.append((
                torch.zeros(0, 5, device=cat_scores.device),
                torch.zeros(0, dtype=torch.long, device=cat_scores.device),
            ))
            continue
        filt_boxes = cat_boxes[b][keep_mask]
        filt_scores = max_scores[keep_mask]
        nms_idx = torchvision.ops.nms(filt_boxes, filt_scores, nms_thr)
        dets = torch.cat([filt_boxes[nms_idx], filt_scores[nms_idx].unsqueeze(-1)], dim=-1)
        results.append((dets, max_labels[keep_mask][nms_idx]))
    return results


def rows_of(cat_scores, cat_boxes):
    rows = []
    for index, (dets, labels) in enumerate(decode(cat_scores, cat_boxes)):
        rows.append(torch.cat([dets, labels[:, None].float(), torch.full((dets.shape[0], 1), float(index))], 1))
    return torch.cat(rows)
'''


def _mask_skip_inputs(seed: int, scale: float = 50.0, shift: float = 0.0,
                      width: float = 10.0) -> tuple[torch.Tensor, torch.Tensor]:
    """(scores, boxes) of three images of 40 candidates for :data:`MASK_SKIPS`; image 1 keeps nothing."""
    generator = torch.Generator().manual_seed(seed)
    corner = torch.rand(3, 40, 2, generator=generator) * scale + shift
    boxes = torch.cat([corner, corner + width], -1)
    scores = torch.rand(3, 40, 4, generator=generator)
    scores[1] = 0.0
    return scores, boxes


def _assert_rows_through_a_trace(code: str, after: str, tmp_path,
                                 sets: list[tuple[torch.Tensor, torch.Tensor]]) -> None:
    """Eager ``rows_of`` of ``after`` is the loop's on every set, and so is a trace of its first two images on
    every set (rows as sets: other batches through a trace of two)."""
    before_ns, after_ns = import_source(code, tmp_path), import_source(after, tmp_path)
    scores, boxes = sets[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(after_ns["rows_of"], (scores[:2], boxes[:2]), check_trace=False)
    for args in sets:
        want = before_ns["rows_of"](*args)
        assert torch.equal(want, after_ns["rows_of"](*args))
        assert _rows(traced(*args)) == _rows(want)


@pytest.mark.parametrize("skip", ["if keep_mask.sum() == 0:", "if not keep_mask.any():",
                                  "if keep_mask.count_nonzero() == 0:", "if not keep_mask.sum():"])
def test_a_skip_on_the_count_of_the_images_mask_is_carried_over(skip: str, tmp_path) -> None:
    """flashdet 1.2.1 (``flashdet/engine/inference/postprocess.py:81``, zoo 88): ``if keep_mask.sum() == 0:`` appends
    the image's empty pair and continues, before the mask picks the image's candidates. While tracing an image whose
    mask picks nothing makes no rows, as the skip's empty entry."""
    code = MASK_SKIPS.replace("if keep_mask.sum() == 0:", skip)
    after = rewrite(code, unsafe=True, select=SELECT)
    assert "nms_idx = _trt_nms_by_image(filt_boxes, filt_scores, None, _trt_image[keep_mask], nms_thr, " in after
    assert "results = _trt_per_image_list((dets, max_labels[keep_mask][nms_idx])," in after
    scores, boxes = _mask_skip_inputs(3)  # image 1: nothing passes (the skip)
    scores[2, :5] = -1.0
    _assert_rows_through_a_trace(code, after, tmp_path, [(scores, boxes), (torch.zeros(2, 40, 4), boxes[:2])])


@pytest.mark.parametrize("skip", ["if max_scores.sum() == 0:", "if keep_mask.sum() == 1:", "if keep_mask.all():"])
def test_a_count_that_is_not_the_masks_picks_keeps_the_loop(skip: str) -> None:
    # a sum of scores (no mask), a count of one, all picked: not "the image has no rows"
    after = rewrite(MASK_SKIPS.replace("if keep_mask.sum() == 0:", skip), unsafe=True, select=SELECT)
    assert "_trt_nms_by_image(" not in after


@pytest.mark.parametrize("function", ["torch.sigmoid(cat_boxes[b])", "F.softplus(cat_boxes[b], beta=1.0)",
                                      "torch.clamp(cat_boxes[b], min=0.5)", "F.relu(cat_boxes[b] - 0.2)"])
def test_a_torch_function_of_each_element_is_carried_over(function: str, tmp_path) -> None:
    """`torch.sigmoid(x)` as `x.sigmoid()` is (flashdet's `decode_ltrb` takes `F.softplus(reg_pred, beta=1.0)`): each
    row's own values, on the flattened rows as on an image's."""
    code = MASK_SKIPS.replace("import torchvision\n", "import torchvision\nimport torch.nn.functional as F\n", 1)
    code = code.replace("filt_boxes = cat_boxes[b][keep_mask]", f"filt_boxes = ({function} * 40)[keep_mask]")
    assert code != MASK_SKIPS and function in code
    after = rewrite(code, unsafe=True, select=SELECT)
    assert "nms_idx = _trt_nms_by_image(filt_boxes, filt_scores, None, _trt_image[keep_mask], nms_thr, " in after
    # negatives and values around the functions' bends (sigmoid's 0, the clamp's 0.5, the shifted relu's 0.2)
    _assert_rows_through_a_trace(code, after, tmp_path, [_mask_skip_inputs(4, scale=4.0, shift=-1.0, width=0.3)])


def test_an_in_place_function_keeps_the_loop() -> None:
    code = MASK_SKIPS.replace("import torchvision\n", "import torchvision\nimport torch.nn.functional as F\n", 1)
    code = code.replace("filt_boxes = cat_boxes[b][keep_mask]",
                        "filt_boxes = F.relu(cat_boxes[b], inplace=True)[keep_mask]")
    assert "_trt_nms_by_image(" not in rewrite(code, unsafe=True, select=SELECT)


def test_a_table_shared_by_the_images_picked_by_an_images_mask_is_carried_over(tmp_path) -> None:
    """flashdet 1.2.1's `decode_batch_nms_free` (``flashdet/utils/bbox.py:133``): `centers_k = anchor_centers[keep]`,
    one anchor a candidate, the same table for every image: flattened, the table once for each image."""
    code = MASK_SKIPS.replace("def decode(cat_scores, cat_boxes, score_thr: float = 0.3, nms_thr: float = 0.5):",
                              "def decode(cat_scores, cat_boxes, anchors=torch.arange(40.0)[:, None] / 4, "
                              "score_thr: float = 0.3, nms_thr: float = 0.5):")
    code = code.replace("filt_boxes = cat_boxes[b][keep_mask]",
                        "filt_boxes = cat_boxes[b][keep_mask] + anchors[keep_mask]")
    assert code.count("anchors") == 2
    after = rewrite(code, unsafe=True, select=SELECT)
    assert "anchors.expand((_trt_count,) + tuple(anchors.shape)).flatten(0, 1)[keep_mask]" in after
    scores, boxes = _mask_skip_inputs(6)
    _assert_rows_through_a_trace(code, after, tmp_path, [(scores, boxes), (scores[:1], boxes[:1])])


# --- a loop without NMS: a threshold and a per-image top-k cap ---------------------------------------------------
#
# flashdet 1.2.1's `decode_batch_nms_free` (zoo 88's FlashDet-N, ``flashdet/utils/bbox.py:118``): each image's best
# class over a threshold, an empty pair where none passes, boxes decoded from the picked anchors by a function of
# three row arguments, clamped column by column in place, and the best `max_det` kept where more pass. The snippet
# is our own, in that form.

NMS_FREE = '''\
import torch
import torch.nn.functional as F


def to_corners(points, steps, offsets):
    reach = F.softplus(offsets, beta=1.0) * steps
    left = points[:, 0] - reach[:, 0]
    top = points[:, 1] - reach[:, 1]
    right = points[:, 0] + reach[:, 2]
    bottom = points[:, 1] + reach[:, 3]
    return torch.stack([left, top, right, bottom], dim=-1)


def detect(logits, offsets, points, steps, size=(40, 40), threshold=0.5, limit=6):
    height, width = size
    found = []
    for n in range(logits.shape[0]):
        best, label = logits[n].sigmoid().max(dim=1)
        passed = best > threshold
        if passed.sum() == 0:
            found.append((torch.zeros((0, 5)), torch.zeros((0,), dtype=torch.long)))
            continue
        score = best[passed]
        label = label[passed]
        box = to_corners(points[passed], steps[passed], offsets[n][passed])
        box[:, 0].clamp_(min=0, max=width)
        box[:, 1].clamp_(min=0, max=height)
        box[:, 2:].clamp_(max=width)
        if score.shape[0] > limit:
            best_first = score.topk(limit).indices
            score = score[best_first]
            box = box[best_first]
            label = label[best_first]
        found.append((torch.cat([box, score[:, None]], dim=1), label))
    return found


def rows_of(logits, offsets):
    points = torch.stack([torch.arange(30.0) % 6 * 8, torch.arange(30.0) // 6 * 8], 1)
    steps = torch.full((30, 1), 4.0)
    rows = []
    for index, (dets, labels) in enumerate(detect(logits, offsets, points, steps)):
        rows.append(torch.cat([dets, labels[:, None].float(), torch.full((dets.shape[0], 1), float(index))], 1))
    return torch.cat(rows)
'''


def _nms_free_inputs(images: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(logits, offsets) of 30 candidates and 3 classes: image 0 passes nothing, image 1 two, the others more than
    the cap of 6; a NaN logit in image 2 (never over the threshold), large offsets (clamped boxes)."""
    generator = torch.Generator().manual_seed(seed)
    logits = torch.randn(images, 30, 3, generator=generator) * 3
    offsets = torch.randn(images, 30, 4, generator=generator) * 6
    logits[0] = -5.0
    if images > 1:
        logits[1] = -5.0
        logits[1, 3, 2] = logits[1, 17, 0] = 4.0
    if images > 2:
        logits[2, 5, 1] = float("nan")
    return logits, offsets


def test_a_loop_without_nms_that_picks_and_caps_each_images_rows_is_flattened(tmp_path) -> None:
    after = rewrite(NMS_FREE, unsafe=True, select=SELECT)
    tracing = after.split("if not torch.jit.is_scripting() and _trt_tracing():")[1].split("    else:")[0]
    # the row function of three row arguments called on the flattened rows, the in-place clamps as written, the
    # cap each image's best where it has more (its rows as they are where not)
    assert "        box = to_corners(points.expand((_trt_count,) + tuple(points.shape)).flatten(0, 1)[passed], " \
           "steps.expand((_trt_count,) + tuple(steps.shape)).flatten(0, 1)[passed], " \
           "offsets.flatten(0, 1)[passed])\n" in tracing
    assert "        box[:, 0].clamp_(min=0, max=width)\n        box[:, 1].clamp_(min=0, max=height)\n" \
           "        box[:, 2:].clamp_(max=width)\n" in tracing
    assert "        best_first = _trt_top_k_by_image(score, _trt_image[passed], limit, _trt_count, True, False)\n" \
           in tracing
    assert "found = _trt_per_image_list((torch.cat([box, score[:, None]], 1), label), " \
           "_trt_image[passed][best_first], _trt_count)" in tracing
    assert "for index, (dets, labels) in enumerate(" in after  # the caller's loop: TRT361's, kept for eager code
    sets = [_nms_free_inputs(4, 0), _nms_free_inputs(1, 1), _nms_free_inputs(3, 2)]
    _assert_rows_through_a_trace(NMS_FREE, after, tmp_path, sets)
    assert rewrite(after, unsafe=True, select=SELECT) == after


def _rows_graph(code: str, tmp_path, example: tuple[torch.Tensor, torch.Tensor], names: list[str]):
    """(the rewritten ``rows_of``'s ONNX model bytes, exported at ``example`` with a dynamic batch, and a function of
    two inputs giving (the original's eager rows, the graph's rows))."""
    after = rewrite(code, unsafe=True, select=SELECT)
    before_ns, after_ns = import_source(code, tmp_path), import_source(after, tmp_path)

    class Rows(torch.nn.Module):
        def forward(self, first, second):
            return after_ns["rows_of"](first, second)

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Rows(), example, buffer, dynamo=False, input_names=names,
                          dynamic_axes={name: {0: "batch"} for name in names})
    session = ort_session(buffer.getvalue())

    def run(first: torch.Tensor, second: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        got = session.run(None, {names[0]: first.numpy(), names[1]: second.numpy()})[0]
        return before_ns["rows_of"](first, second), torch.from_numpy(got)

    return buffer.getvalue(), run


def test_the_flattened_loop_without_nms_exports_a_graph_that_follows_the_batch(tmp_path) -> None:
    _, run = _rows_graph(NMS_FREE, tmp_path, _nms_free_inputs(2, 3), ["logits", "offsets"])
    for images, seed in ((1, 4), (2, 5), (5, 6)):
        want, got = run(*_nms_free_inputs(images, seed))
        assert got.shape == want.shape and torch.allclose(got, want, atol=1e-5)  # the same rows, in order


def test_the_top_k_positions_are_the_loops_image_by_image() -> None:
    from trtcodemod.helpers.per_image import _trt_top_k_by_image

    def loop(key, image, k, count, largest, at_least):
        kept = []
        for j in range(count):
            at = (image == j).nonzero().flatten()
            over = at.shape[0] >= k if at_least else at.shape[0] > k
            kept.append(at[key[at].topk(k, largest=largest).indices] if over else at)
        return torch.cat(kept) if kept else torch.zeros(0, dtype=torch.long)

    generator = torch.Generator().manual_seed(7)
    image = torch.tensor([0, 0, 0, 0, 1, 1, 3, 3, 3, 3, 3])
    key = torch.randn(11, generator=generator)
    key[2], key[8], key[9] = float("nan"), float("-inf"), float("inf")
    for k in (1, 2, 4, 5):
        for largest in (True, False):
            for at_least in (True, False):
                assert torch.equal(_trt_top_k_by_image(key, image, k, 4, largest, at_least),
                                   loop(key, image, k, 4, largest, at_least))
    assert _trt_top_k_by_image(key[:0], image[:0], 3, 2).tolist() == []
    assert _trt_top_k_by_image(key[:0], image[:0], 3, 0).tolist() == []
    with pytest.raises(ValueError, match="one key value a row"):
        _trt_top_k_by_image(key[:, None].expand(11, 2), image, 2, 4)


@pytest.mark.parametrize("change", [
    # a table the same for every image given to the row function (it may hold one row a candidate): no row function
    ("box = to_corners(points[passed], steps[passed], offsets[n][passed])",
     "box = to_corners(points[passed], steps, offsets[n][passed])"),
    # an in-place write into rows read from the batch (a view of the input): written through
    ("box[:, 0].clamp_(min=0, max=width)", "offsets[n][:, 0].clamp_(min=0)"),
    # a clamp per image (the image's own number)
    ("box[:, 0].clamp_(min=0, max=width)", "box[:, 0].clamp_(min=0, max=n)"),
])
def test_loops_without_nms_it_cannot_carry_over_keep_the_loop(change: tuple[str, str]) -> None:
    code = NMS_FREE.replace(*change)
    assert code != NMS_FREE
    assert "_trt_per_image_list(" not in rewrite(code, unsafe=True, select=SELECT).split("def detect(")[1]


def test_a_loop_without_nms_that_picks_no_rows_is_left_to_the_other_rules() -> None:
    # no mask, no cap: each image keeps its number of rows (TRT366 maps such a loop where it calls a function)
    start = NMS_FREE.index("        passed = best > threshold\n")
    end = NMS_FREE.index("        found.append((torch.cat(")
    code = NMS_FREE[:start] + "        score = best\n        box = offsets[n] * 2\n" + NMS_FREE[end:]
    after = rewrite(code, unsafe=True, select=("TRT360",))
    assert after == code and rules_found(code, select=("TRT360",)) == []


@pytest.mark.parametrize("top", ["score.topk(limit)[1]", "torch.topk(score, limit).indices",
                                 "score.topk(k=limit, dim=0).indices", "score.argsort(descending=True)[:limit]",
                                 "torch.argsort(score, descending=True)[:limit]"])
def test_other_spellings_of_the_cap_are_exact(top: str, tmp_path) -> None:
    code = NMS_FREE.replace("score.topk(limit).indices", top)
    after = rewrite(code, unsafe=True, select=SELECT)
    assert "best_first = _trt_top_k_by_image(score, _trt_image[passed], limit, _trt_count, True, False)" in after
    _assert_rows_through_a_trace(code, after, tmp_path, [_nms_free_inputs(4, 8)])


@pytest.mark.parametrize("top", ["score.topk(limit, largest=False).indices", "score.topk(limit, sorted=False).indices",
                                 "score.topk(3).indices", "score.argsort()[:limit]"])
def test_a_cap_of_other_meaning_is_not_taken_as_the_best(top: str) -> None:
    # the smallest are exact too (`largest=False`); an unsorted top-k, another count, an ascending sort are not the
    # block's best `limit`: the block is the pre-cap the assumption leaves out
    after = rewrite(NMS_FREE.replace("score.topk(limit).indices", top), unsafe=True, select=SELECT)
    assert ("_trt_top_k_by_image(score, _trt_image[passed], limit, _trt_count, False, False)" in after) \
        == ("largest=False" in top)


NMS_FREE_MODEL = NMS_FREE.replace("def rows_of(logits, offsets):", '''class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 7, 3, 2, 1)

    def forward(self, x):
        out = self.conv(x).flatten(2).transpose(1, 2)
        return rows_of(out[..., :3] * 4, out[..., 3:])


def build():
    return Head().eval()


def inputs(generator):
    return (torch.randn(2, 3, 10, 12, generator=generator),)


def rows_of(logits, offsets):''')


def test_migrate_flattens_the_loop_and_the_skip_it_read_a_value_for_is_no_error(tmp_path) -> None:
    # The original's `if passed.sum() == 0:` reads a value in eager mode (TRT101, no fix of its own); TRT360's
    # rewrite keeps that line only in the loop for eager code, and the rewritten trace reads no value: migrated.
    import json

    path = tmp_path / "model.py"
    path.write_text(NMS_FREE_MODEL)
    report = migrate_json(path, json.dumps({"x": {"0": "batch"}}))
    applied = {d["rule"] for d in report["applied"]}
    assert {"TRT360", "TRT361"} <= applied, report["remaining"]
    skip = NMS_FREE_MODEL.splitlines().index("        if passed.sum() == 0:") + 1
    [kept] = [r for r in report["remaining"] if r["source"] == f"{path}:{skip}"]
    assert kept["rule"] == "TRT101" and kept["severity"] == "warning"
    assert "the fix of TRT360 at lines" in kept["message"] and "reads no tensor value" in kept["message"]
    assert report["exit_code"] == 0 and report["equivalent"] is True and report["after"]["faithful"] is True


def test_a_scripted_nms_free_decoder_still_compiles_and_runs_its_loop(tmp_path) -> None:
    # TorchScript compiles the function with both branches; the tracing branch's helpers are `torch.jit.unused`
    typed = NMS_FREE.replace(
        "def detect(logits, offsets, points, steps, size=(40, 40), threshold=0.5, limit=6):",
        "def detect(logits: torch.Tensor, offsets: torch.Tensor, points: torch.Tensor, steps: torch.Tensor,\n"
        "           size: tuple[int, int] = (40, 40), threshold: float = 0.5, limit: int = 6):")
    typed = typed.replace("    found = []\n", "    found: list[tuple[torch.Tensor, torch.Tensor]] = []\n")
    after = rewrite(typed, unsafe=True, select=SELECT)
    assert "_trt_top_k_by_image(" in after
    before_ns, after_ns = import_source(typed, tmp_path), import_source(after, tmp_path)
    scripted = torch.jit.script(after_ns["detect"])
    points, steps = torch.rand(30, 2) * 40, torch.ones(30, 1)
    logits, offsets = _nms_free_inputs(3, 9)
    got, want = scripted(logits, offsets, points, steps), before_ns["detect"](logits, offsets, points, steps)
    assert len(got) == len(want) == 3
    assert all(torch.equal(g[0], w[0]) and torch.equal(g[1], w[1]) for g, w in zip(got, want))


# --- a list of None an image, written once an image (YOLOX's postprocess) -----------------------------------------
#
# Megvii's YOLOX ``yolox/utils/boxes.py::postprocess`` (pixeltable-yolox 0.4.3, zoo 89): ``output = [None for _ in
# range(len(prediction))]``, an image skipped where nothing passes (its entry stays None), the best class as a column
# (``class_conf.squeeze()``), NMS, and the last statement ``if output[i] is None: output[i] = detections else:
# output[i] = torch.cat((output[i], detections))``, whose first way is the one taken (each image writes its entry
# once). Its callers skip the None entries (``if dets is None: continue``) and concatenate the rest after an empty
# start. The snippet is our own, in that form.

NONE_LIST = '''\
import torch
import torchvision


def postprocess(prediction, classes, conf_thre=0.3, nms_thre=0.45, agnostic=False):
    output = [None for _ in range(len(prediction))]
    for i, image_pred in enumerate(prediction):
        if not image_pred.size(0):
            continue
        class_conf, class_pred = torch.max(image_pred[:, 5: 5 + classes], 1, keepdim=True)
        conf_mask = (image_pred[:, 4] * class_conf.squeeze() >= conf_thre).squeeze()
        detections = torch.cat((image_pred[:, :5], class_conf, class_pred.float()), 1)
        detections = detections[conf_mask]
        if not detections.size(0):
            continue
        if agnostic:
            kept = torchvision.ops.nms(detections[:, :4], detections[:, 4] * detections[:, 5], nms_thre)
        else:
            kept = torchvision.ops.batched_nms(detections[:, :4], detections[:, 4] * detections[:, 5],
                                               detections[:, 6], nms_thre)
        detections = detections[kept]
        if output[i] is None:
            output[i] = detections
        else:
            output[i] = torch.cat((output[i], detections))
    return output


def rows_of(scores, boxes):
    prediction = torch.cat([boxes, scores], 2)
    rows = [torch.zeros(0, 8)]
    for index, dets in enumerate(postprocess(prediction, 3)):
        if dets is None:
            continue
        rows.append(torch.cat([dets, torch.full((dets.shape[0], 1), float(index))], 1))
    return torch.cat(rows)
'''


def _none_list_inputs(images: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(objectness and 3 class scores, boxes) of 40 candidates an image, image 0 keeping nothing."""
    generator = torch.Generator().manual_seed(seed)
    corner = torch.rand(images, 40, 2, generator=generator) * 50
    boxes = torch.cat([corner, corner + torch.rand(images, 40, 2, generator=generator) * 20 + 1], -1)
    scores = torch.rand(images, 40, 4, generator=generator)
    scores[0] = 0.0
    return scores, boxes


def test_a_list_of_none_written_once_an_image_and_its_none_skipping_caller_are_flattened(tmp_path) -> None:
    after = rewrite(NONE_LIST, unsafe=True, select=SELECT)
    tracing = after.split("if not torch.jit.is_scripting() and _trt_tracing():")[1].split("\n    else:\n")[0]
    assert "conf_mask = _trt_squeeze_rows(prediction.flatten(0, 1)[:, 4] * _trt_squeeze_rows(class_conf) >= conf_thre)" \
           in tracing
    assert "        output = _trt_per_image_list(detections, _trt_image[conf_mask][kept], _trt_count)" in tracing
    assert "is None" not in tracing
    # the caller: the rows of the flattened list, the None skip left to the loop kept for other lists
    caller = after.split("def rows_of(")[1]
    assert "    if _trt_flat is not None:\n        _trt_flat_image = _trt_flat_images(_trt_results)\n" \
           "        rows.append(torch.cat([_trt_flat, _trt_image_fill(torch.full((_trt_flat.shape[0], 1), 0.0), " \
           "_trt_flat_image)], 1))\n    else:\n" in caller
    sets = [_none_list_inputs(3, 0), _none_list_inputs(1, 1), _none_list_inputs(4, 2)]
    _assert_rows_through_a_trace(NONE_LIST, after, tmp_path, sets)
    before_ns, after_ns = import_source(NONE_LIST, tmp_path), import_source(after, tmp_path)
    prediction = torch.cat(_none_list_inputs(2, 3)[::-1], 2)
    assert before_ns["postprocess"](prediction, 3)[0] is None  # eager code keeps the None entry
    assert after_ns["postprocess"](prediction, 3)[0] is None


@pytest.mark.parametrize("change", [
    # a list of empty tensors: `output[i] is None` is never true, the other way (a concatenation) taken
    ("output = [None for _ in range(len(prediction))]", "output = [torch.zeros(0, 7)] * len(prediction)"),
    # a list of None of another length
    ("output = [None for _ in range(len(prediction))]", "output = [None for _ in range(8)]"),
    # the other way does something else than concatenate the entry with the rows
    ("            output[i] = torch.cat((output[i], detections))", "            output[i] = detections[:1]"),
])
def test_writes_that_are_not_the_first_into_a_list_of_none_keep_the_loop(change: tuple[str, str]) -> None:
    code = NONE_LIST.replace(*change)
    assert code != NONE_LIST
    after = rewrite(code, unsafe=True, select=SELECT)
    assert "_trt_per_image_list(" not in after.split("def postprocess(")[1]


def test_the_none_list_exports_a_graph_of_named_squeezes_that_follows_the_batch(tmp_path) -> None:
    import onnx

    model, run = _rows_graph(NONE_LIST, tmp_path, _none_list_inputs(2, 4), ["scores", "boxes"])
    squeezes = [n for n in onnx.load_from_string(model).graph.node if n.op_type == "Squeeze"]
    assert squeezes and all(len(n.input) == 2 for n in squeezes)  # every Squeeze names its axes
    for images, seed in ((1, 5), (3, 6), (5, 7)):
        want, got = run(*_none_list_inputs(images, seed))
        assert got.shape == want.shape and _rows(got) == _rows(want)


def test_the_rows_squeeze_keeps_the_candidates_axis() -> None:
    from trtcodemod.helpers.per_image import _trt_squeeze_rows

    assert _trt_squeeze_rows(torch.zeros(5, 1, 4, 1)).shape == (5, 4)
    assert _trt_squeeze_rows(torch.zeros(1, 1)).shape == (1,)  # one candidate: its axis stays
    assert _trt_squeeze_rows(torch.zeros(0, 1)).shape == (0,)
    column = torch.arange(6.0)[:, None]
    assert torch.equal(_trt_squeeze_rows(column), column.squeeze())


# --- every class of a candidate its own instance, a fallback `try`, a generator (pytorch-ssd) ------------------------
#
# pytorch-ssd 1.8.0's ``SSD.process_model_output`` (``pytorch_ssd/modeling/model.py:452-519``, zoo 89's SSD models) is
# a generator over the batch: ``n_boxes, n_classes = scores.shape``, each box repeated for every class
# (``boxes.view(n_boxes, 1, 4).expand(n_boxes, n_classes, 4)``, ``labels.view(1, n_classes).expand_as(scores)``), the
# background dropped (``[:, 1:]``), every (box, class) made its own row (``reshape(-1, 4)``, mmdet's
# ``multiclass_nms`` does the same), a threshold's positions, boxes scaled in place, ``batched_nms`` in a ``try``
# whose handler runs it on the CPU (with a log line), a cap, and ``yield`` of each image's triple; its caller returns
# ``list(...)`` of it. The snippet is our own, in that form.

CLASSES = '''\
import logging

import torch
import torchvision

log = logging.getLogger(__name__)


def per_image(scores_batches, boxes_batches, size=(300, 200), threshold=0.3, iou=0.45, cap=5):
    width, height = size
    for batch_idx in range(scores_batches.size(0)):
        scores = scores_batches[batch_idx]
        boxes = boxes_batches[batch_idx]
        n_boxes, n_classes = scores.shape
        boxes = boxes.view(n_boxes, 1, 4).expand(n_boxes, n_classes, 4)
        labels = torch.arange(n_classes)
        labels = labels.view(1, n_classes).expand_as(scores)
        boxes = boxes[:, 1:]
        scores = scores[:, 1:]
        labels = labels[:, 1:]
        boxes = boxes.reshape(-1, 4)
        scores = scores.reshape(-1)
        labels = labels.reshape(-1)
        approved = (scores > threshold).nonzero(as_tuple=False).squeeze(1)
        boxes = boxes[approved]
        scores = scores[approved]
        labels = labels[approved]
        boxes[:, 0::2] *= width
        boxes[:, 1::2] *= height
        try:
            keep = torchvision.ops.batched_nms(boxes=boxes, scores=scores, idxs=labels, iou_threshold=iou)
        except RuntimeError:
            log.warning("NMS failed; on the CPU")
            keep = torchvision.ops.batched_nms(boxes=boxes.cpu(), scores=scores.cpu(), idxs=labels.cpu(),
                                               iou_threshold=iou)
        keep = keep[:cap]
        yield boxes[keep], scores[keep], labels[keep]


def detect(scores, boxes):
    found = per_image(scores.softmax(-1), boxes)
    return list(found)


def rows_of(scores, boxes):
    rows = [torch.zeros(0, 7)]
    for index, (b, s, l) in enumerate(detect(scores, boxes)):
        rows.append(torch.cat([b, s[:, None], l[:, None].float(), torch.full((b.shape[0], 1), float(index))], 1))
    return torch.cat(rows)
'''


def _class_inputs(images: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(logits of a background and 3 classes, boxes in [0, 1]) of 30 candidates; image 0 keeps nothing."""
    generator = torch.Generator().manual_seed(seed)
    corner = torch.rand(images, 30, 2, generator=generator)
    boxes = torch.cat([corner, corner + torch.rand(images, 30, 2, generator=generator) * 0.3], -1)
    logits = torch.randn(images, 30, 4, generator=generator) * 2
    logits[0, :, 0] = 20.0  # all background
    return logits, boxes


def test_a_generator_of_every_class_as_an_instance_and_its_list_caller_are_flattened(tmp_path) -> None:
    after = rewrite(CLASSES, unsafe=True, select=SELECT)
    tracing = after.split("if not torch.jit.is_scripting() and _trt_tracing():")[1].split("\n    else:\n")[0]
    assert "        n_boxes, n_classes = scores.shape\n" \
           "        boxes = boxes.view(n_boxes, 1, 4).expand(n_boxes, n_classes, 4)\n" in tracing
    assert "        labels = labels.view(1, n_classes).expand_as(scores)\n" in tracing
    assert "        try:\n            keep = _trt_nms_by_image(boxes, scores, labels, " \
           "_trt_image.repeat_interleave((n_classes - 1))[approved], iou, _trt_count)\n" \
           "        except RuntimeError:\n            log.warning(\"NMS failed; on the CPU\")\n" in tracing
    assert "        yield from _trt_per_image_list((boxes[keep], scores[keep], labels[keep]), " \
           "_trt_image.repeat_interleave((n_classes - 1))[approved][keep], _trt_count)" in tracing
    assert "_trt_flat = _trt_flat_rows(_trt_results, 3)" in after  # the caller of `list(...)`, by TRT361
    sets = [_class_inputs(3, 0), _class_inputs(1, 1), _class_inputs(4, 2)]
    _assert_rows_through_a_trace(CLASSES, after, tmp_path, sets)
    assert rewrite(after, unsafe=True, select=SELECT) == after


def test_the_classes_flattened_export_a_graph_that_follows_the_batch(tmp_path) -> None:
    _, run = _rows_graph(CLASSES, tmp_path, _class_inputs(2, 3), ["scores", "boxes"])
    for images, seed in ((1, 4), (3, 5), (5, 6)):
        want, got = run(*_class_inputs(images, seed))
        assert got.shape == want.shape  # the same rows, to ONNX Runtime's rounding of the softmax
        assert torch.allclose(torch.tensor(_rows(got)), torch.tensor(_rows(want)), atol=1e-5)


@pytest.mark.parametrize("change", [
    # a handler that binds the error, two handlers, a `finally`
    ("        except RuntimeError:\n", "        except RuntimeError as error:\n"),
    ("        except RuntimeError:\n", "        except ValueError:\n            raise\n        except RuntimeError:\n"),
    ("        keep = keep[:cap]\n", "        finally:\n            pass\n        keep = keep[:cap]\n"),
    # a log line that reads the image's rows
    ('log.warning("NMS failed; on the CPU")', 'log.warning("NMS failed on %s", boxes.shape)'),
    # the merge's second axis unknown: the background slice of another tensor
    ("        scores = scores[:, 1:]\n", "        scores = scores_batches[batch_idx][:, 1:]\n"),
    # a generator that skips an image yields fewer entries than images
    ("        approved = (", "        if not n_boxes:\n            continue\n        approved = ("),
])
def test_forms_of_the_classes_loop_it_cannot_carry_over_keep_the_loop(change: tuple[str, str]) -> None:
    code = CLASSES.replace(*change)
    assert code != CLASSES
    assert "_trt_per_image_list(" not in rewrite(code, unsafe=True, select=SELECT).split("def per_image(")[1]


def test_the_flattened_list_is_found_through_its_entries_in_order_only() -> None:
    from trtcodemod.helpers.per_image import _trt_flat_images, _trt_flat_rows, _trt_per_image_list

    flat = (torch.arange(10.0).reshape(5, 2), torch.arange(5.0))
    made = _trt_per_image_list(flat, torch.tensor([0, 0, 1, 2, 2]), 3)
    assert _trt_flat_rows(list(made), 2) is flat and torch.equal(_trt_flat_images(list(made)), made.trt_image)
    assert _trt_flat_rows(list(reversed(made)), 2) is None  # entries in another order
    assert _trt_flat_rows(list(made)[:2], 2) is None  # not all of them
    assert _trt_flat_rows([tuple(e) for e in made], 2) is None  # copies of the entries
    assert _trt_flat_rows([], 2) is None


HELPER_EMPTY = '''\
import torch
import torchvision


def _empty(device: torch.device) -> dict:
    """An image without detections."""
    return {
        "boxes": torch.zeros((0, 4), device=device),
        "scores": torch.zeros((0,), device=device),
        "labels": torch.zeros((0,), dtype=torch.long, device=device),
    }


def suppress(scores_all, boxes, confidence=0.1, iou=0.5, max_detections=5):
    results = []
    for image in range(boxes.shape[0]):
        scores = scores_all[image]
        cell, label = torch.where(scores > confidence)
        if cell.numel() == 0:
            results.append(_empty(boxes.device))
            continue
        selected = boxes[image][cell]
        confidences = scores[cell, label]
        keep = torchvision.ops.batched_nms(selected, confidences, label, iou)[:max_detections]
        results.append({"boxes": selected[keep], "scores": confidences[keep], "labels": label[keep]})
    return results


def rows_of(scores, boxes):
    rows = [torch.zeros(0, 7)]
    for index, found in enumerate(suppress(scores, boxes)):
        image = torch.full((found["boxes"].shape[0], 1), float(index))
        rows.append(torch.cat([found["boxes"], found["scores"][:, None], found["labels"][:, None].float(), image], 1))
    return torch.cat(rows)
'''


def test_an_empty_entry_made_by_a_function_of_the_module_is_the_skips_entry(tmp_path, monkeypatch) -> None:
    """nsharper 0.2.0's ``suppress`` (``nsharper/head.py``, zoo 91): an image with no score over the threshold appends
    ``_empty(boxes.device)``, a function of the module returning a dict of tensors of no rows, and continues. Its
    return is read as the skip's entry; the multi-label ``torch.where`` pairs, ``batched_nms`` and the cap by slicing
    are carried over."""
    monkeypatch.setitem(sys.modules, "torchvision", torchvision_standin)
    after = rewrite(HELPER_EMPTY, unsafe=True, select=SELECT)
    tracing = after.split("if not torch.jit.is_scripting() and _trt_tracing():")[1].split("\n    else:\n")[0]
    assert "_trt_cap_by_image(_trt_nms_by_image(selected, confidences, label, _trt_image[cell], iou, _trt_count)" \
           in tracing and "_empty(" not in tracing
    sets = []
    for images, seed in ((3, 0), (1, 1), (4, 2)):
        boxes, scores = _batch(images, seed=seed)
        scores[min(1, images - 1)] = 0.0  # an image with nothing over the threshold: the skip
        sets.append((scores, boxes))
    _assert_rows_through_a_trace(HELPER_EMPTY, after, tmp_path, sets)


@pytest.mark.parametrize("change", [
    # the function reads a parameter as a size: not evidently empty
    (('def _empty(device: torch.device) -> dict:', 'def _empty(device: torch.device, n: int = 0) -> dict:'),
     ('"boxes": torch.zeros((0, 4), device=device)', '"boxes": torch.zeros((n, 4), device=device)')),
    # a decorated function may return something else
    (('def _empty(device: torch.device) -> dict:', '@functools.lru_cache\ndef _empty(device: torch.device) -> dict:'),
     ("import torch\n", "import functools\nimport torch\n")),
    # a function of two statements
    (('    """An image without detections."""\n', '    """An image without detections."""\n    print("empty")\n'),
     ("", "")),
])
def test_an_empty_entry_function_it_cannot_read_keeps_the_loop(change) -> None:
    code = HELPER_EMPTY
    for old, new in change:
        code = code.replace(old, new)
    assert code != HELPER_EMPTY
    assert "_trt_nms_by_image(" not in rewrite(code, unsafe=True, select=("TRT360",)).split("def suppress")[1]


#: YOLOv5's NMS as it is now (ultralytics/yolov5 utils/general.py): each image's rows sorted by score and cut at
#: `max_nms` with no `if` around, before NMS; in our own words.
_SORTED_BEFORE_NMS = """\
import torch
import torchvision


def f(prediction, conf_thres: float = 0.25, iou_thres: float = 0.45, max_det: int = 300):
    max_wh, max_nms = 7680, 30000
    xc = prediction[..., 4] > conf_thres
    output = [torch.zeros((0, 6), device=prediction.device)] * prediction.shape[0]
    for xi, x in enumerate(prediction):
        x = x[xc[xi]]
        conf, j = x[:, 5:].max(1, keepdim=True)
        x = torch.cat((x[:, :4], conf, j.float()), 1)[conf.view(-1) > conf_thres]
        n = x.shape[0]
        if not n:
            continue
{sort}
        c = x[:, 5:6] * max_wh
        boxes, scores = x[:, :4] + c, x[:, 4]
        i = torchvision.ops.nms(boxes, scores, iou_thres)
        i = i[:max_det]
        output[xi] = x[i]
    return output
"""


@pytest.mark.parametrize("sort,taken", [
    ("        x = x[x[:, 4].argsort(descending=True)[:max_nms]]", True),
    ("        x = x[x[:, 4].argsort(descending=True)]", True),
    ("        x = x[torch.argsort(x[:, 4], descending=True)[:max_nms]]", True),
    ("        if n > max_nms:\n            x = x[x[:, 4].argsort(descending=True)[:max_nms]]", True),  # ultralytics'
    # the order read before NMS (a cut by position), a sort ascending, a sort by another image's key
    ("        x = x[x[:, 4].argsort(descending=True)]\n        x = x[:100]", False),
    ("        x = x[x[:, 4].argsort()]", False),
    ("        x = x[prediction[0, :, 4].argsort(descending=True)]", False),
])
def test_a_sort_by_score_before_nms_is_left_out_while_tracing(sort: str, taken: bool) -> None:
    code = _SORTED_BEFORE_NMS.format(sort=sort)
    after = rewrite(code, unsafe=True, select=RULE)
    assert ("_trt_nms_by_image(" in after) is taken, after
    if taken:
        flat = after.split("_trt_tracing():\n")[1].split("    else:\n")[0]
        assert "argsort" not in flat and "max_nms" not in flat, flat  # left out on every image's rows at once
        assert textwrap.indent(sort, "    ") in after  # the loop kept for eager code


# --- further lists filled beside the rows (CoreYOLO's mask coefficients) -------------------------------------------

TWO_LISTS = """\
import torch
import torchvision


def two_lists(pred, extra=None, conf_thres=0.3, max_det=4):
    batch = pred.shape[0]
    out = []
    extra_out = []
    for i in range(batch):
        boxes = pred[i, :4].transpose(0, 1)
        scores = pred[i, 4:].transpose(0, 1)
        feat = extra[i].transpose(0, 1) if extra is not None else None
        conf, cls_id = scores.max(1)
        keep = conf > conf_thres
        boxes, conf, cls_id = boxes[keep], conf[keep], cls_id[keep]
        if feat is not None:
            feat = feat[keep]
        if boxes.numel() == 0:
            out.append(pred.new_zeros((0, 6)))
            if extra is not None:
                extra_out.append(extra.new_zeros((0, extra.shape[1])))
            continue
        keep_idx = torchvision.ops.nms(boxes, conf, 0.5)[:max_det]
        out.append(torch.cat((boxes[keep_idx], conf[keep_idx, None], cls_id[keep_idx, None].float()), 1))
        if extra is not None:
            extra_out.append(feat[keep_idx])
    return out, extra_out
"""


def _two_list_inputs(images: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    corners = torch.rand(images, 2, 40, generator=generator) * 20
    sizes = torch.rand(images, 2, 40, generator=generator) * 8 + 1
    scores = torch.rand(images, 3, 40, generator=generator)
    scores[-1] *= 0.2  # the last image: no candidate over the threshold
    return torch.cat([corners, corners + sizes, scores], 1), torch.randn(images, 5, 40, generator=generator)


def test_a_second_list_filled_beside_the_rows_is_made_from_the_same_images(tmp_path) -> None:
    after = rewrite(TWO_LISTS, unsafe=True, select=RULE)
    tracing = after.split("if not torch.jit.is_scripting() and _trt_tracing():")[1].split("    else:")[0]
    # both lists made with one tensor of their rows' images (TRT361 reads the second beside the first by it)
    assert "        _trt_rows_image = _trt_image[keep][keep_idx]\n" in tracing
    assert "        out = _trt_per_image_list(torch.cat([boxes[keep_idx], conf[keep_idx, None], " in tracing
    assert "        if extra is not None:\n            extra_out = _trt_per_image_list(feat[keep_idx], " \
           "_trt_rows_image, _trt_count)\n" in tracing
    # each image read channels first, its columns and an optional second tensor
    assert "        boxes = pred.transpose(1, 2).flatten(0, 1)[:, :4]\n" in tracing
    assert "        feat = (extra.transpose(1, 2).flatten(0, 1) if extra is not None else None)\n" in tracing
    before_ns, after_ns = import_source(TWO_LISTS, tmp_path), import_source(after, tmp_path)
    for images, seed in ((3, 0), (1, 1), (4, 2)):
        pred, extra = _two_list_inputs(images, seed)
        for given in (extra, None):
            want = before_ns["two_lists"](pred, given)
            with torch.no_grad():
                # the tracing branch, run as a trace runs it (is_tracing patched: the loop's lists, entry by entry)
                with pytest.MonkeyPatch.context() as patch:
                    patch.setattr(torch.jit, "is_tracing", lambda: True)
                    got = after_ns["two_lists"](pred, given)
            assert len(got[0]) == len(want[0]) == images and len(got[1]) == len(want[1])
            for got_list, want_list in zip(got, want):
                for got_entry, want_entry in zip(got_list, want_list):
                    torch.testing.assert_close(got_entry, want_entry, rtol=0, atol=0)
            assert want[0][-1].shape[0] == 0  # the image without candidates: its empty entries


@pytest.mark.parametrize("change", [
    # the skip gives the second list no empty entry: its entries would no longer be the images'
    ("            if extra is not None:\n                extra_out.append(extra.new_zeros((0, extra.shape[1])))\n", ""),
    # the second list appended to under a test of the image
    ("        if extra is not None:\n            extra_out.append(feat[keep_idx])",
     "        if keep_idx.shape[0] > 1:\n            extra_out.append(feat[keep_idx])"),
    # an optional value decided by the image
    ("if extra is not None else None", "if boxes.shape[0] > 3 else None"),
    # the second list not made empty before the loop
    ("    extra_out = []\n", "    extra_out = [pred]\n"),
])
def test_further_lists_it_cannot_keep_aligned_keep_the_loop(change: tuple[str, str]) -> None:
    code = TWO_LISTS.replace(*change)
    assert code != TWO_LISTS
    assert "_trt_per_image_list(" not in rewrite(code, unsafe=True, select=RULE)
    assert rules_found(code, select=RULE) == ["TRT360"]


def test_a_row_function_imported_from_a_file_of_the_checkout_is_called_on_the_flattened_rows(tmp_path) -> None:
    (tmp_path / "boxes_util.py").write_text(
        "import torch\n\n\ndef to_corners(boxes):\n    c, s = boxes.chunk(2, -1)\n"
        "    return torch.cat((c - s / 2, c + s / 2), -1)\n\n\nSCALE = 2\n\n\n"
        "def scaled(boxes):\n    return boxes * SCALE\n")
    code = TWO_LISTS.replace("import torchvision\n", "import torchvision\nfrom boxes_util import to_corners\n") \
        .replace("boxes[keep_idx], conf[keep_idx, None]", "to_corners(boxes)[keep_idx], conf[keep_idx, None]")
    path = tmp_path / "post.py"
    path.write_text(code)
    options = Options(select=RULE, unsafe=True, scope="all")
    from trtcodemod.engine import fix_source
    after = fix_source(code.encode(), str(path), options).source.decode()
    assert "    out = _trt_per_image_list(torch.cat([to_corners(boxes)[keep_idx], " in after
    # a function reading a value of its module other than torch is not read as one of each row alone
    other = code.replace("to_corners", "scaled")
    assert "_trt_per_image_list(" not in fix_source(other.encode(), str(path), options).source.decode()


def test_two_lists_hold_the_same_images_only_where_one_tensor_of_images_made_both() -> None:
    from trtcodemod.helpers.per_image import _trt_per_image_list, _trt_same_images

    image = torch.tensor([0, 0, 1, 2])
    rows, features = torch.arange(8.0).view(4, 2), torch.arange(12.0).view(4, 3)
    made = _trt_per_image_list(rows, image, 3)
    assert _trt_same_images(_trt_per_image_list(features, image, 3), made)
    assert not _trt_same_images(_trt_per_image_list(features, image.clone(), 3), made)  # equal, not the same
    assert not _trt_same_images([features[:2], features[2:3], features[3:]], made)  # a list of another origin
    assert not _trt_same_images(_trt_per_image_list((features, features), image, 3), made)  # entries of two parts
    assert _trt_same_images(None, made)  # nothing to align: the loop's `None[i]` fails as the flattened read does


ROW_FUNCTION = """\
import numpy as np
import torch
import torchvision


def corners(x):
    if isinstance(x, (list, tuple)):
        x = np.asarray(x, dtype=np.float32)
    assert x.shape[-1] == 4, "four columns"
    y = torch.empty_like(x, dtype=x.dtype) if isinstance(x, torch.Tensor) else np.empty_like(x)
    y[..., :2] = x[..., :2] - x[..., 2:] / 2
    y[..., 2:] = x[..., :2] + x[..., 2:] / 2
    return y


def rows_of(pred, threshold=0.3):
    out = []
    for i in range(pred.shape[0]):
        x = pred[i][pred[i, :, 4] > threshold]
        x[:, :4] = corners(x[:, :4])
        keep = torchvision.ops.nms(x[:, :4], x[:, 4], 0.5)
        out.append(torch.cat([x[keep], torch.full_like(x[keep, :1], i)], 1))
    return torch.cat(out)
"""


def test_a_row_function_that_checks_its_inputs_type_and_last_size_is_carried_over(tmp_path) -> None:
    # ultralytics' `xywh2xyxy`: a list made an array first (never a tensor), the last size asserted, a new tensor
    # made by `empty_like` (its `isinstance` test true of rows) and its columns set through `...`
    after = rewrite(ROW_FUNCTION, unsafe=True, select=RULE)
    assert "        x[:, :4] = corners(x[:, :4])\n        keep = _trt_nms_by_image(" in after
    before_ns, after_ns = import_source(ROW_FUNCTION, tmp_path), import_source(after, tmp_path)
    generator = torch.Generator().manual_seed(3)
    pred = torch.cat([torch.rand(3, 30, 2, generator=generator) * 20, torch.rand(3, 30, 2, generator=generator) * 6,
                      torch.rand(3, 30, 1, generator=generator)], 2)
    want = before_ns["rows_of"](pred)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(torch.jit, "is_tracing", lambda: True)
        got = after_ns["rows_of"](pred)
    torch.testing.assert_close(got, want, rtol=0, atol=0)
    assert want.shape[0] > 3


@pytest.mark.parametrize("change", [
    # the first size asserted: the flattened rows have every image's
    ('    assert x.shape[-1] == 4, "four columns"\n', '    assert x.shape[0] > 0, "some rows"\n'),
    # a type check a tensor passes
    ("    if isinstance(x, (list, tuple)):\n", "    if isinstance(x, torch.Tensor):\n"),
])
def test_a_row_function_whose_checks_differ_on_the_flattened_rows_keeps_the_loop(change: tuple[str, str]) -> None:
    code = ROW_FUNCTION.replace(*change)
    assert code != ROW_FUNCTION
    assert "_trt_nms_by_image(" not in rewrite(code, unsafe=True, select=RULE)


def test_settings_asked_both_ways_keep_the_loop() -> None:
    # `if not rotated:` around what it cannot carry over and `if rotated:` around a refusal: the tracing branch would
    # need `rotated` and `not rotated` at once, so no rewrite (it would never run)
    code = ROW_FUNCTION.replace("        x[:, :4] = corners(x[:, :4])\n",
                                "        if not rotated:\n            x[:, :4] = x[:, :4].cumsum(0)\n"
                                "        if rotated:\n            raise ValueError('rotated')\n") \
        .replace("def rows_of(pred, threshold=0.3):", "def rows_of(pred, threshold=0.3, rotated=False):")
    after = rewrite(code, unsafe=True, select=RULE)
    assert "_trt_nms_by_image(" not in after
    assert "settings it needs for the flattened statements contradict" in " ".join(
        f.message for f in check_source(textwrap.dedent(code).encode(), "snippet.py", Options(select=RULE)))


def test_a_type_check_of_a_literal_given_to_a_row_function_keeps_the_loop() -> None:
    # a list given as it is does take `if isinstance(scale, (list, tuple)):`: the check is no tensor's
    code = ROW_FUNCTION.replace("def corners(x):\n    if isinstance(x, (list, tuple)):\n",
                                "def corners(x, scale):\n    if isinstance(scale, (list, tuple)):\n") \
        .replace("corners(x[:, :4])", "corners(x[:, :4], [1.0, 1.0])")
    assert code.count("scale") == 2 and "[1.0, 1.0]" in code
    assert "_trt_nms_by_image(" not in rewrite(code, unsafe=True, select=RULE)
    assert "_trt_nms_by_image(" in rewrite(code.replace("isinstance(scale,", "isinstance(x,"), unsafe=True,
                                            select=RULE)


# --- NMS image by image in the graph, no box moved --------------------------------------------------------------


class _EachImage(torch.nn.Module):
    def forward(self, boxes: torch.Tensor, scores: torch.Tensor, image: torch.Tensor) -> torch.Tensor:
        from trtcodemod.helpers.per_image import _trt_nms_by_image

        return _trt_nms_by_image(boxes, scores, None, image, 0.45, 3)


def _image_by_image(boxes: torch.Tensor, scores: torch.Tensor, image: torch.Tensor) -> torch.Tensor:
    kept = [image.new_zeros(0)]
    for number in range(3):
        at = (image == number).nonzero().flatten()
        kept.append(at[torchvision_standin.ops.nms(boxes[at], scores[at], 0.45)])
    return torch.cat(kept)


def _candidates(seed: int, count: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    corner = torch.rand(count, 2, generator=generator) * 60
    corner[:, 1] -= 10  # negatives too
    boxes = torch.cat([corner, corner + torch.rand(count, 2, generator=generator) * 30], 1)
    scores = torch.rand(count, generator=generator)
    image = torch.randint(0, 3, (count,), generator=generator).sort().values
    if count >= 4:
        # YOLOv7-seg's agnostic NMS in zoo 93: one box 3e-5 wide, once per class, in the second image; shifted by the
        # image it rounded to a width of 0 and its copy was kept
        image[1:3] = 1
        image = image.sort().values
        second = (image == 1).nonzero().flatten()[:2]
        boxes[second] = torch.tensor([35.25, 70.56334, 35.25003, 155.65588])
        # a random-weight box far out: the batch 2048 wide, which the old shift moved the second image by, where
        # float32's step is 2.4e-4
        boxes[-1] = torch.tensor([1900.0, -5.0, 2047.0, 40.0])
        scores[2] = scores[3]  # a tie
    return boxes, scores, image


def test_the_graphs_nms_keeps_each_images_boxes_where_they_are() -> None:
    buffer = io.BytesIO()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        torch.onnx.export(_EachImage(), _candidates(0, 40), buffer, dynamo=False, opset_version=17,
                          input_names=["boxes", "scores", "image"],
                          dynamic_axes={name: {0: "n"} for name in ("boxes", "scores", "image")})
    assert not [w for w in seen if issubclass(w.category, torch.jit.TracerWarning)]  # nothing baked
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    import onnx

    ops = [node.op_type for node in onnx.load_from_string(buffer.getvalue()).graph.node]
    assert ops.count("NonMaxSuppression") == 1 and "TopK" not in ops
    for seed, count in ((0, 40), (1, 9), (2, 300), (3, 1)):
        boxes, scores, image = _candidates(seed, count)
        got = session.run(None, {"boxes": boxes.numpy(), "scores": scores.numpy(), "image": image.numpy()})[0]
        assert got.tolist() == _image_by_image(boxes, scores, image).tolist(), (seed, count)
    none = {"boxes": torch.zeros(0, 4).numpy(), "scores": torch.zeros(0).numpy(),
            "image": torch.zeros(0, dtype=torch.int64).numpy()}
    assert session.run(None, none)[0].shape == (0,)
    # the old way, every box moved by its image's share of the batch's width, keeps the degenerate copy
    boxes, scores, image = _candidates(0, 40)
    shifted = boxes.clone()
    shifted[:, 0::2] += (image.float() * (boxes[:, 0::2].max() - boxes[:, 0::2].min() + 1))[:, None]
    moved = torchvision_standin.ops.nms(shifted, scores, 0.45)
    assert sorted(moved.tolist()) != sorted(_image_by_image(boxes, scores, image).tolist())
    # called outside an export (a test, or a plain trace) it runs the images one by one too
    assert _EachImage()(*_candidates(1, 9)).tolist() == _image_by_image(*_candidates(1, 9)).tolist()


# --- an image's candidates sorted and cut by `topk(min(cap, n))` ----------------------------------------------------

# torchlm's FaceBoxesV2 read on tensors (DefTruth/torchlm@0.1.6.10 torchlm/runtime/_faceboxesv2.py `apply_detecting`:
# a threshold's positions, then `torch.topk(scores, min(self.top_k * 3, scores.shape[0]))` and the boxes re-picked;
# zoo 96's faceboxes_v2), and the same cut spelled as mmdet writes its `nms_pre` one.
TOPK_OF_COUNT = '''\
import torch


class Faces(torch.nn.Module):
    def __init__(self, top_k=2):
        super().__init__()
        self.top_k = top_k

    def forward(self, boxes, conf):
        rows = [torch.zeros(0, 6)]
        for index in range(boxes.shape[0]):
            scores = conf[index, :, 1]
            keep = torch.nonzero(scores > 0.3)[:, 0]
            box, scores = boxes[index][keep], scores[keep]
            scores, order = torch.topk(scores, {cut})
            box = box[order]
            rows.append(torch.cat([box, scores[:, None], torch.full((scores.shape[0], 1), float(index))], 1))
        return torch.cat(rows)
'''


def _faces(images: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    boxes = torch.rand(images, 12, 4, generator=generator) * 20 - 4  # negatives too
    conf = torch.rand(images, 12, 2, generator=generator)
    if images > 1:
        conf[1, :, 1] = 0.0  # an image with no candidate
    if images > 2:
        conf[2, :, 1] = 0.9  # every candidate tied
        conf[2, 3, 1] = float("inf")
    return boxes, conf


def _same_rows(got: torch.Tensor, want: torch.Tensor, tied: bool) -> bool:
    """Equal rows; where an image's scores tie, ``topk`` leaves their order unspecified and the flattened cut takes
    them by position: the same scores and images then, rows compared as a set."""
    if not tied:
        return got.shape == want.shape and torch.allclose(got, want, atol=1e-6)
    return got.shape == want.shape and torch.equal(got[:, 4:].sort(0).values, want[:, 4:].sort(0).values)


@pytest.mark.parametrize("cut", ["min(self.top_k * 3, scores.shape[0])", "min(len(scores), self.top_k)",
                                 "k=min(scores.size(0), 4), largest=False"])
def test_an_images_candidates_sorted_and_cut_by_a_top_k_of_their_count_are_flattened(cut: str, tmp_path) -> None:
    code = TOPK_OF_COUNT.format(cut=cut)
    after = rewrite(code, select=RULE, unsafe=True)
    assert "order = _trt_rows_by_image(torch.arange(scores.shape[0], device=scores.device), _trt_image[keep], " \
           "scores, " in after, after
    assert "            scores = scores[order]\n            box = box[order]\n" in after
    assert rewrite(after, select=RULE, unsafe=True) == after
    before_ns, after_ns = import_source(code, tmp_path), import_source(after, tmp_path)
    original, rewritten = before_ns["Faces"]().eval(), after_ns["Faces"]().eval()
    tracing = after_ns["_trt_tracing"]
    for images, seed in ((1, 0), (3, 1), (4, 2), (2, 3)):
        inputs = _faces(images, seed)
        want = original(*inputs)
        assert torch.equal(rewritten(*inputs), want)  # eager mode runs the loop
        after_ns["_trt_tracing"] = lambda: True  # the flattened branch, run eagerly
        try:
            flat = rewritten(*inputs)
        finally:
            after_ns["_trt_tracing"] = tracing
        assert _same_rows(flat, want, tied=images > 2), (cut, images)
    # the graph follows the batch: exported at two images, run at one, three and four
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(rewritten, _faces(2, 3), buffer, dynamo=False, input_names=["boxes", "conf"],
                          dynamic_axes={"boxes": {0: "batch"}, "conf": {0: "batch"}})
    session = ort_session(buffer.getvalue())
    for images, seed in ((1, 0), (3, 1), (4, 2)):
        boxes, conf = _faces(images, seed)
        got = torch.from_numpy(session.run(None, {"boxes": boxes.numpy(), "conf": conf.numpy()})[0])
        assert _same_rows(got, original(boxes, conf), tied=images > 2), (cut, images)


@pytest.mark.parametrize("cut", ["min(scores.shape[0], index + 1)", "min(boxes.shape[1], 3)", "max(3, len(scores))"])
def test_a_top_k_whose_cut_is_not_a_setting_and_the_images_count_keeps_the_loop(cut: str) -> None:
    # the image's own number, another tensor's count, `max`: no sort-and-cut of each image's candidates
    assert "_trt_rows_by_image" not in rewrite(TOPK_OF_COUNT.format(cut=cut), select=RULE, unsafe=True)


def test_a_key_of_several_values_a_row_is_refused_by_the_sort() -> None:
    # `topk` along the columns of a (rows, classes) key is no sort of the rows: the helper refuses it while tracing
    # (the export fails and migrate takes the fix back) rather than sorting rows by a key it misreads
    from trtcodemod.helpers.per_image import _trt_rows_by_image

    key = torch.rand(6, 3)
    image = torch.tensor([0, 0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="one key value a row"):
        _trt_rows_by_image(torch.arange(6), image, key, True, 2, 2)
    rows = _trt_rows_by_image(torch.arange(6), image, key[:, 0], True, 2, 2)
    expected = torch.cat([key[:3, 0].argsort(descending=True)[:2], 3 + key[3:, 0].argsort(descending=True)[:2]])
    assert rows.tolist() == expected.tolist()


# --- one loop that runs the NMS and pads each image's rows into zeros (Ultralytics' export-time `NMSModel`) ----------

_FUSED = """\
import torch
import torch.nn.functional as F
import torchvision
from torch import nn


class Fused(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.k = 3

    def forward(self, boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        bs = boxes.shape[0]
        {made}
        for i in range(bs):
            conf, cls = scores[i].max(1)
            mask = conf > 0.3
            box, conf, cls = boxes[i][mask], conf[mask], cls[mask]
{skip}            keep = torchvision.ops.nms(box + cls.view(-1, 1).to(box.dtype) * 64, conf, 0.5)[: self.k]
            dets = torch.cat([box[keep], conf[keep].view(-1, 1), cls[keep].view(-1, 1).to(out.dtype)], -1)
{pad}        return out
"""
_ZEROS = "out = torch.zeros(bs, self.k, 6, dtype=boxes.dtype)"
#: The paddings TRT393 reads, as the body's last statements (12 spaces in).
_FUSED_PADS = {
    "F.pad widths bound": "pad = (0, 0, 0, self.k - dets.shape[0])\nout[i] = F.pad(dets, pad)",
    "F.pad": "out[i] = F.pad(dets, (0, 0, 0, self.k - len(dets)))",
    "capped cat": "dets = dets[: self.k]\nout[i] = torch.cat([dets, dets.new_zeros(self.k - dets.shape[0], 6)])",
    "capped rows only": "dets = dets[: self.k]\nout[i, : len(dets)] = dets",
    "F.pad value": "out[i] = F.pad(dets, (0, 0, 0, self.k - dets.shape[0]), value=-1.0)",
}
_SKIP = "            if not dets_count(box):\n                continue\n"


def _fused(pad: str, made: str = _ZEROS, skip: str = "") -> str:
    return _FUSED.format(made=made, skip=skip.replace("dets_count(box)", "box.shape[0]"),
                         pad=textwrap.indent(pad, " " * 12) + "\n")


def _fused_inputs(batch: int, generator: torch.Generator, count: int = 30) -> dict[str, list[torch.Tensor]]:
    """Boxes of corners and three class scores a candidate: random (images with more rows than the cap), one image
    without a score over the threshold, all scores below it, equal scores, one image alone."""
    def made(b: int) -> list[torch.Tensor]:
        corner = torch.rand(b, count, 2, generator=generator) * 40
        boxes = torch.cat([corner, corner + 1 + torch.rand(b, count, 2, generator=generator) * 12], -1)
        return [boxes, torch.rand(b, count, 3, generator=generator)]

    empty = made(batch)
    empty[1][min(1, batch - 1)] = 0.1  # an image without rows
    ties = made(batch)
    ties[1] = torch.full_like(ties[1], 0.5)
    below = made(batch)
    below[1] = below[1] * 0.3
    return {"random": made(batch), "an-image-without-rows": empty, "ties": ties, "none": below, "one": made(1)}


@pytest.mark.parametrize("pad", sorted(_FUSED_PADS))
def test_a_loop_that_pads_into_zeros_is_rewritten_with_trt393s_helper(pad: str) -> None:
    code = _fused(_FUSED_PADS[pad])
    assert rules_found(code, select=RULE) == ["TRT360"]
    assert rewrite(code, select=RULE) == code  # unsafe
    after = rewrite(code, select=RULE, unsafe=True)
    fill = ", -1.0" if pad == "F.pad value" else ""
    assert ("            _trt_padded_rows = _trt_per_image_list(dets, _trt_image[mask][keep], _trt_count)\n"
            f"            out = _trt_padded_by_image(_trt_padded_rows, self.k{fill}).to(out)\n"
            "        else:\n            for i in range(bs):\n") in after, after
    assert "def _trt_padded_by_image(" in after and "def _trt_per_image_list(" in after
    assert rules_found(after, select=RULE) == []
    assert rewrite(after, select=RULE, unsafe=True) == after


@pytest.mark.parametrize("pad", sorted(_FUSED_PADS))
def test_the_fused_loop_keeps_eager_mode_and_its_flattened_branch_pads_as_the_loop(pad: str, tmp_path,
                                                                                   monkeypatch) -> None:
    code = _fused(_FUSED_PADS[pad])
    before, after = import_source(code, tmp_path), import_source(rewrite(code, select=RULE, unsafe=True), tmp_path)
    original, rewritten = before["Fused"](), after["Fused"]()
    generator = torch.Generator().manual_seed(5)
    sets = {f"{batch} {name}": inputs for batch in (1, 2, 4) for name, inputs in
            _fused_inputs(batch, generator).items()}
    capped = [(original(*inputs)[..., 4] > 0).sum(1) for inputs in sets.values()]
    assert any((c == 0).any() for c in capped) and any((c == 3).any() for c in capped)  # no rows, the cap bites
    for name, inputs in sets.items():  # eager mode: the loop, bit for bit
        assert_same_run(run_once(original, inputs), run_once(rewritten, inputs), context=name)
    monkeypatch.setitem(after, "_trt_tracing", lambda: True)
    for name, inputs in sets.items():  # the flattened branch: the same padded tensor
        got, want = rewritten(*inputs), original(*inputs)
        assert got.shape == want.shape and got.dtype == want.dtype, name
        assert torch.equal(got, want), (name, got, want)


@pytest.mark.parametrize("pad", ["F.pad widths bound", "capped rows only"])
def test_the_fused_loops_exported_graph_follows_the_batch(pad: str, tmp_path) -> None:
    code = _fused(_FUSED_PADS[pad])
    before, after = import_source(code, tmp_path), import_source(rewrite(code, select=RULE, unsafe=True), tmp_path)
    original, rewritten = before["Fused"](), after["Fused"]()
    generator = torch.Generator().manual_seed(6)
    session = _export(original, _fused_inputs(2, generator)["random"])
    inputs = _fused_inputs(3, generator)["random"]
    try:
        (got,) = session.run(None, {f"in{i}": t.numpy() for i, t in enumerate(inputs)})
    except Exception:  # noqa: BLE001 - ONNX Runtime's refusal of the example's two images is the symptom
        got = None
    # the graph writes the example's two images only: the third keeps its zeros
    assert got is None or not torch.equal(torch.from_numpy(got), original(*inputs))
    session = _export(rewritten, _fused_inputs(2, generator)["random"])
    for batch in (1, 2, 3, 5):
        for name, inputs in _fused_inputs(batch, generator).items():
            (got,) = session.run(None, {f"in{i}": t.numpy() for i, t in enumerate(inputs)})
            assert torch.equal(torch.from_numpy(got), original(*inputs)), (batch, name)


def test_a_bare_skip_is_taken_where_the_padding_fills_as_the_zeros(tmp_path, monkeypatch) -> None:
    code = _fused(_FUSED_PADS["F.pad widths bound"], skip=_SKIP)
    after = rewrite(code, select=RULE, unsafe=True)
    assert "out = _trt_padded_by_image(_trt_padded_rows, self.k).to(out)" in after
    before, rewritten = import_source(code, tmp_path), import_source(after, tmp_path)
    monkeypatch.setitem(rewritten, "_trt_tracing", lambda: True)
    for inputs in _fused_inputs(3, torch.Generator().manual_seed(7)).values():
        assert torch.equal(rewritten["Fused"]()(*inputs), before["Fused"]()(*inputs))
    # with another fill, the skipped image keeps the zeros where the padded rows would be -1: not taken
    other = _fused(_FUSED_PADS["F.pad value"], skip=_SKIP)
    assert rewrite(other, select=RULE, unsafe=True) == other
    assert rules_found(other, select=RULE) == ["TRT360"]  # named with why


@pytest.mark.parametrize("change", [
    (_ZEROS, "out = torch.zeros(4, self.k, 6, dtype=boxes.dtype)"),  # not the loop's number of images
    (_ZEROS, "out = torch.zeros(bs, 5, 6, dtype=boxes.dtype)"),  # another count than the padding's
    (_ZEROS, "out = torch.ones(bs, self.k, 6, dtype=boxes.dtype)"),  # not zeros
    (_ZEROS, "out = torch.zeros(bs, self.k, 6, dtype=boxes.dtype)\n        out = out * 2"),  # not right before it
    ("            keep = ", "            out[i] = 1.0\n            keep = "),  # written before the padding
    ("        return out", "        return out, pad"),  # a name the padding binds read after the loop
])
def test_fused_loops_it_cannot_take_are_left(change: tuple[str, str]) -> None:
    code = _fused(_FUSED_PADS["F.pad widths bound"]).replace(*change)
    assert rewrite(code, select=RULE, unsafe=True) == code
