"""Super-Gradients' YOLO-NAS-Pose post-prediction callback: four parallel tensors zipped over the batch, filtered by
one confidence mask, capped by a top-k before NMS, the poses gathered with the same NMS picks, then sliced to a cap.

Reduced from Deci-AI/super-gradients @ 928da84719a5dde0cddee946692376b5937e5a85
src/super_gradients/training/models/pose_estimation_models/yolo_nas_pose/yolo_nas_pose_post_prediction_callback.py:
8-95 (``YoloNASPosePostPredictionCallback.__call__``): ``predictions = outputs[0]``; ``for pred_bboxes_xyxy,
pred_bboxes_conf, pred_pose_coords, pred_pose_scores in zip(*predictions):``; ``pred_bboxes_conf.squeeze(-1)``;
``conf_mask = pred_bboxes_conf >= self.pose_confidence_threshold`` applied to all four (each ``.float()``); ``if
pred_bboxes_conf.size(0) > self.pre_nms_max_predictions:`` a ``torch.topk`` whose indices pick all four; NMS by
keyword arguments; boxes, scores and the poses (coordinates with their scores, ``torch.cat([...], dim=-1)``) taken
with ``idx_to_keep``; each sliced ``[: self.post_nms_max_predictions]`` into the image's prediction (there a
``PoseEstimationPredictions``, here a tuple of its three fields). What is reduced: the network is one convolution (boxes,
a confidence, three keypoints with scores), its confidence lowered by the image's brightness so an image filled with
40.0 keeps no candidate (the loop then runs NMS on nothing: no empty branch of its own); the real call is
``torchvision.ops.boxes.nms(boxes=..., scores=..., iou_threshold=...)``, written here ``torchvision.ops.nms`` with the
same keywords (the tests' stand-in has no ``ops.boxes``). The caller flattens the list as a zoo wrapper would: rows
with the image's index, and the poses beside them. Written here in our own words.
"""

from typing import List, Tuple

import torch
import torchvision
from torch import Tensor, nn
from torch.nn import functional as F


class YoloNASPosePostPredictionCallback:
    def __init__(self, pose_confidence_threshold: float, nms_iou_threshold: float, pre_nms_max_predictions: int,
                 post_nms_max_predictions: int):
        if post_nms_max_predictions > pre_nms_max_predictions:
            raise ValueError("post_nms_max_predictions must be less than pre_nms_max_predictions")
        self.pose_confidence_threshold = pose_confidence_threshold
        self.nms_iou_threshold = nms_iou_threshold
        self.pre_nms_max_predictions = pre_nms_max_predictions
        self.post_nms_max_predictions = post_nms_max_predictions

    @torch.no_grad()
    def __call__(self, outputs) -> List[Tuple[Tensor, Tensor, Tensor]]:
        predictions = outputs[0]

        decoded_predictions: List[Tuple[Tensor, Tensor, Tensor]] = []
        for pred_bboxes_xyxy, pred_bboxes_conf, pred_pose_coords, pred_pose_scores in zip(*predictions):
            pred_bboxes_conf = pred_bboxes_conf.squeeze(-1)
            conf_mask = pred_bboxes_conf >= self.pose_confidence_threshold

            pred_bboxes_conf = pred_bboxes_conf[conf_mask].float()
            pred_bboxes_xyxy = pred_bboxes_xyxy[conf_mask].float()
            pred_pose_coords = pred_pose_coords[conf_mask].float()
            pred_pose_scores = pred_pose_scores[conf_mask].float()

            if pred_bboxes_conf.size(0) > self.pre_nms_max_predictions:
                topk_candidates = torch.topk(pred_bboxes_conf, k=self.pre_nms_max_predictions, largest=True,
                                             sorted=True)
                pred_bboxes_conf = pred_bboxes_conf[topk_candidates.indices]
                pred_bboxes_xyxy = pred_bboxes_xyxy[topk_candidates.indices]
                pred_pose_coords = pred_pose_coords[topk_candidates.indices]
                pred_pose_scores = pred_pose_scores[topk_candidates.indices]

            idx_to_keep = torchvision.ops.nms(boxes=pred_bboxes_xyxy, scores=pred_bboxes_conf,
                                              iou_threshold=self.nms_iou_threshold)

            final_bboxes = pred_bboxes_xyxy[idx_to_keep]
            final_scores = pred_bboxes_conf[idx_to_keep]

            final_poses = torch.cat(
                [
                    pred_pose_coords[idx_to_keep],
                    pred_pose_scores[idx_to_keep].unsqueeze(-1),
                ],
                dim=-1,
            )

            decoded_predictions.append(
                (
                    final_poses[: self.post_nms_max_predictions],
                    final_scores[: self.post_nms_max_predictions],
                    final_bboxes[: self.post_nms_max_predictions],
                )
            )

        return decoded_predictions


class Model(nn.Module):
    """A YOLO-NAS-Pose-like head (corner boxes, a confidence, three keypoints with scores) and the callback."""

    def __init__(self, keypoints: int = 3) -> None:
        super().__init__()
        self.keypoints = keypoints
        self.head = nn.Conv2d(3, 5 + 3 * keypoints, 3, stride=4, padding=1)
        self.post = YoloNASPosePostPredictionCallback(0.3, 0.5, pre_nms_max_predictions=20, post_nms_max_predictions=5)

    def forward(self, images: torch.Tensor):
        out = self.head(images).flatten(2).transpose(1, 2)
        n, cells, _ = out.shape
        # brighter than the input range lowers the confidence (an image filled with 40.0 keeps no candidate)
        light = F.avg_pool2d(images.mean(1, keepdim=True), 4).flatten(1)[..., None]
        side = int(cells ** 0.5)
        at = torch.arange(cells, dtype=images.dtype, device=images.device)
        centres = torch.stack([at % side, at // side], 1) * 4 + 2
        half = out[..., 2:4].sigmoid() * 6
        boxes = torch.cat([centres + out[..., :2] - half, centres + out[..., :2] + half], -1)
        # a confidence that grows a little from cell to cell: no two cells tie on a flat image (`torch.topk` orders
        # ties as it likes, eager mode one way and a graph another, before any loop)
        ramp = torch.arange(cells, dtype=images.dtype, device=images.device)[None, :, None] * 1e-3
        conf = (out[..., 4:5] - 4 * (light - 0.5) + ramp).sigmoid()
        coords = centres[:, None] + out[..., 5:5 + 2 * self.keypoints].reshape(n, cells, self.keypoints, 2) * 4
        scores = out[..., 5 + 2 * self.keypoints:].sigmoid()
        found = self.post(((boxes, conf, coords, scores), None))
        rows = torch.cat([torch.cat([bboxes, conf[:, None], torch.full((bboxes.shape[0], 1), float(i))], 1)
                          for i, (poses, conf, bboxes) in enumerate(found)])
        poses = torch.cat([poses.flatten(1) for poses, _, _ in found])
        return rows, poses


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"images": {0: "batch"}}
