"""RetinaFace's batch post-processing: each image's offsets decoded against the priors, scores over a threshold, NMS.

Reduced from ternaus/retinaface@b72317d682c9e17492f5418073073e63c4ce2ce2 retinaface/inference.py:122-146
(``process_predictions``): ``for batch_id in range(batch_size):``, ``boxes = decode(loc[batch_id], prior_box.to(
loc.device), variance)`` then ``boxes *= scale`` (the decoded tensor written in place), ``scores = conf[batch_id][:,
1]`` of the softmaxed scores, ``landmarks = decode_landm(...)`` and ``landmarks *= scale1``, ``valid_index =
torch.where(scores > confidence_threshold)[0]``, the three picked by it, ``keep = nms(boxes, scores,
nms_threshold)``. There the scores are sorted before NMS (which orders its picks by score itself), the offsets are
read through ``.data`` (which a trace records as the example's values: another matter than the loop's) and the kept
rows go to NumPy as dicts; here the rows (box, score, landmarks, image) are concatenated. Written here in our own
words.
"""

import torch
import torchvision
from torch import Tensor, nn


def decode(loc: Tensor, priors: Tensor, variances: tuple[float, float]) -> Tensor:
    """Centre offsets and log sizes against priors (centre, size) to corners."""
    centres = priors[:, :2] + loc[:, :2] * variances[0] * priors[:, 2:]
    sizes = priors[:, 2:] * torch.exp(loc[:, 2:] * variances[1])
    corners = torch.cat((centres, sizes), 1)
    corners[:, :2] -= corners[:, 2:] / 2
    corners[:, 2:] += corners[:, :2]
    return corners


def decode_landm(pre: Tensor, priors: Tensor, variances: tuple[float, float]) -> Tensor:
    """Two landmarks as offsets from each prior's centre (five there)."""
    return torch.cat((priors[:, :2] + pre[:, :2] * variances[0] * priors[:, 2:],
                      priors[:, :2] + pre[:, 2:4] * variances[0] * priors[:, 2:]), dim=1)


class Detector(nn.Module):
    def __init__(self, confidence_threshold: float = 0.5, nms_threshold: float = 0.4):
        super().__init__()
        self.head = nn.Conv2d(3, 10, 3, stride=4, padding=1)  # 2 scores, 4 box and 4 landmark offsets a prior
        self.confidence_threshold = confidence_threshold
        self.nms_threshold = nms_threshold
        self.variance = (0.1, 0.2)

    def process_predictions(self, loc: Tensor, conf: Tensor, land: Tensor, prior_box: Tensor, width: int,
                            height: int) -> Tensor:
        conf = torch.softmax(conf, dim=-1)
        scale = torch.tensor([width, height] * 2, dtype=loc.dtype)
        scale1 = torch.tensor([width, height] * 2, dtype=loc.dtype)
        rows = []
        for batch_id in range(loc.shape[0]):
            boxes = decode(loc[batch_id], prior_box.to(loc.device), self.variance)
            boxes *= scale
            scores = conf[batch_id][:, 1]
            landmarks = decode_landm(land[batch_id], prior_box.to(land.device), self.variance)
            landmarks *= scale1
            valid_index = torch.where(scores > self.confidence_threshold)[0]
            boxes = boxes[valid_index]
            landmarks = landmarks[valid_index]
            scores = scores[valid_index]
            keep = torchvision.ops.nms(boxes, scores, self.nms_threshold)
            rows.append(torch.cat([boxes[keep, :], scores[keep, None], landmarks[keep],
                                   torch.full_like(scores[keep, None], batch_id)], 1))
        return torch.cat(rows)

    def forward(self, x: Tensor) -> Tensor:
        out = self.head(x).flatten(2).transpose(1, 2)
        at = torch.arange(out.shape[1], dtype=x.dtype)
        side = 8  # 32 / 4 cells a row
        priors = torch.stack([(at % side + 0.5) / side, (at // side + 0.5) / side,
                              torch.full_like(at, 0.2), torch.full_like(at, 0.3)], 1)
        return self.process_predictions(out[..., 2:6], out[..., :2] * 4, out[..., 6:], priors, 32, 32)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Detector().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    """Two images (the unrolled graph then misses a third)."""
    return (torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "images"}}
