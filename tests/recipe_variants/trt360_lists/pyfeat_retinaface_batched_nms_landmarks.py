"""py-feat's RetinaFace post-processing: boxes, scores and landmarks kept side by side in three lists, one NMS an
image, the picks capped, the landmarks gathered with the same picks.

Reduced from cosanlab/py-feat @ 77f600cd062363659feb03ad5a9eff8a50a7d9a9
feat/face_detectors/Retinaface/Retinaface_model.py:407-433 (``batched_nms``) and its caller
``postprocess_retinaface`` (:461-544): priors from the image's size, boxes and landmarks decoded for the whole batch,
``scores = predicted_scores[:, :, 1]``, the top-K before NMS by ``torch.argsort(scores, dim=1, descending=True)[:, :
top_k]`` and ``torch.gather`` on the three tensors; then ``final_boxes, final_scores, final_landmarks = [], [], []``,
``for i in range(batch_size):``, ``dets = torch.cat([boxes[i], scores[i].unsqueeze(1)], dim=1)``, ``keep =
torch.ops.torchvision.nms(dets[:, :4], dets[:, 4], nms_threshold)``, ``keep = keep[:keep_top_k]``, and three appends
(``dets[keep, :5]``, ``dets[keep, 4]``, ``landmarks[i][keep]``). What is reduced: the network is one convolution on one
prior level (two anchors a cell); the caller's confidence filter (``boxes[mask].view(batch_size, -1, 4)``, which holds
only when every image keeps as many candidates) is left out, so every image keeps rows: there is no empty branch and
no fill empties an image (like RTMDet's variant); the final ``torch.cat`` of each list and the rescale are the caller's
flattening, here with the image's index beside the rows. Written here in our own words.
"""

from itertools import product as product

import torch
import torchvision  # noqa: F401 - registers torch.ops.torchvision.nms, as in the real module's imports
from torch import nn
from torch.nn import functional as F


def generate_prior_boxes(min_sizes, steps, clip, image_size, device="cpu"):
    feature_maps = [
        [
            int(torch.ceil(torch.tensor(image_size[0] / step))),
            int(torch.ceil(torch.tensor(image_size[1] / step))),
        ]
        for step in steps
    ]
    anchors = []
    for k, f in enumerate(feature_maps):
        min_sizes_k = min_sizes[k]
        for i, j in product(range(f[0]), range(f[1])):
            for min_size in min_sizes_k:
                s_kx = min_size / image_size[1]
                s_ky = min_size / image_size[0]
                cx = (j + 0.5) * steps[k] / image_size[1]
                cy = (i + 0.5) * steps[k] / image_size[0]
                anchors.append([cx, cy, s_kx, s_ky])
    anchors = torch.tensor(anchors, dtype=torch.float32, device=device)
    if clip:
        anchors.clamp_(max=1, min=0)
    return anchors


def decode_boxes(loc, priors, variances):
    boxes = torch.cat(
        (
            priors[:, :2].unsqueeze(0) + loc[:, :, :2] * variances[0] * priors[:, 2:].unsqueeze(0),
            priors[:, 2:].unsqueeze(0) * torch.exp(loc[:, :, 2:] * variances[1]),
        ),
        dim=2,
    )
    boxes[:, :, :2] -= boxes[:, :, 2:] / 2
    boxes[:, :, 2:] += boxes[:, :, :2]
    return boxes


def decode_landmarks(pre, priors, variances):
    priors_cxcy = priors[:, :2].unsqueeze(0).unsqueeze(2)
    landm_deltas = pre.view(pre.size(0), -1, 5, 2)
    landms = priors_cxcy + landm_deltas * variances[0] * priors[:, 2:].unsqueeze(0).unsqueeze(2)
    return landms.view(pre.size(0), -1, 10)


def batched_nms(boxes, scores, landmarks, batch_size, nms_threshold, keep_top_k):
    final_boxes, final_scores, final_landmarks = [], [], []

    for i in range(batch_size):
        dets = torch.cat([boxes[i], scores[i].unsqueeze(1)], dim=1)
        keep = torch.ops.torchvision.nms(dets[:, :4], dets[:, 4], nms_threshold)
        keep = keep[:keep_top_k]

        final_boxes.append(dets[keep, :5])
        final_scores.append(dets[keep, 4])
        final_landmarks.append(landmarks[i][keep])

    return final_boxes, final_scores, final_landmarks


def postprocess_retinaface(predicted_locations, predicted_scores, predicted_landmarks, face_config, img,
                           device="cpu"):
    im_height, im_width = img.shape[-2:]
    scale = torch.Tensor([im_height, im_width, im_height, im_width]).to(device)
    batch_size = predicted_locations.size(0)
    priors = generate_prior_boxes(face_config["min_sizes"], face_config["steps"], face_config["clip"],
                                  image_size=(im_height, im_width), device=device)
    boxes = decode_boxes(predicted_locations, priors, face_config["variance"]).to(device)
    boxes = boxes * scale / face_config["resize"]
    scores = predicted_scores[:, :, 1]
    landmarks = decode_landmarks(predicted_landmarks, priors, face_config["variance"]).to(device)
    scale1 = torch.tensor([img.shape[3], img.shape[2]] * 5, device=device)
    landmarks = landmarks * scale1 / face_config["resize"]

    top_k_inds = torch.argsort(scores, dim=1, descending=True)[:, : face_config["top_k"]]
    boxes = torch.gather(boxes, 1, top_k_inds.unsqueeze(-1).expand(-1, -1, 4))
    scores = torch.gather(scores, 1, top_k_inds)
    landmarks = torch.gather(landmarks, 1, top_k_inds.unsqueeze(-1).expand(-1, -1, 10))

    return batched_nms(boxes, scores, landmarks, batch_size, face_config["nms_threshold"], face_config["keep_top_k"])


FACE_CONFIG = {"min_sizes": [[8, 16]], "steps": [4], "clip": False, "variance": [0.1, 0.2], "resize": 1,
               "top_k": 40, "nms_threshold": 0.4, "keep_top_k": 6}


class Model(nn.Module):
    """A one-level RetinaFace-like head (two anchors a cell: box offsets, two-way scores, five landmarks)."""

    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 2 * (4 + 2 + 10), 3, stride=4, padding=1)

    def forward(self, img: torch.Tensor):
        out = self.head(img).permute(0, 2, 3, 1).contiguous()
        n = out.shape[0]
        loc = out[..., :8].reshape(n, -1, 4)
        logits = out[..., 8:12].reshape(n, -1, 2)
        # a face logit that grows a little from prior to prior: no two priors tie on a flat image (the caller's
        # argsort orders ties one way in eager mode and another in ONNX Runtime, before any loop)
        ramp = torch.arange(logits.shape[1], dtype=logits.dtype, device=logits.device) * 1e-3
        conf = F.softmax(torch.stack([logits[..., 0], logits[..., 1] + ramp], -1), dim=-1)
        landms = out[..., 12:].reshape(n, -1, 10)
        final_boxes, _, final_landmarks = postprocess_retinaface(loc, conf, landms, FACE_CONFIG, img)
        rows = torch.cat([torch.cat([d, torch.full((d.shape[0], 1), float(i))], 1) for i, d in enumerate(final_boxes)])
        return rows, torch.cat(final_landmarks)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Model().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"img": {0: "batch"}}
