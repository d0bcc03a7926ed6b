"""ALIKED's differentiable keypoint detection: top-k peaks refined by a soft-argmax, normalised by the size.

Reduced from Shiaoming/ALIKED at 683d7c65197395c0b3f01ebe76e1084a27e73a65: ``DKD.detect_keypoints``
(nets/soft_detect.py, lines 60-130: ``b, c, h, w = scores_map.shape``, the borders zeroed, ``torch.topk`` of
the flattened scores, ``wh = torch.tensor([w - 1, h - 1],device=scores_nograd.device)`` at line 100, then per
image the soft-argmax over each peak's patch and ``keypoints_xy / wh * 2 - 1`` at line 125) and
``simple_nms`` (same file). Written here in our own words, with a one-layer score head, one NMS pass and
the scores and dispersities left out. Form kept: the keypoints are mapped to [-1, 1] by dividing by a
tensor built from the score map's own width and height: the TorchScript export keeps the example's, so at
another size every keypoint lands elsewhere.
"""

import torch
import torch.nn.functional as F
from torch import nn


def suppress(scores, radius: int):
    peaks = F.max_pool2d(scores, kernel_size=radius * 2 + 1, stride=1, padding=radius)
    return torch.where(scores == peaks, scores, torch.zeros_like(scores))


class SoftKeypoints(nn.Module):
    def __init__(self, radius: int = 2, top_k: int = 8, temperature: float = 0.1) -> None:
        super().__init__()
        self.radius, self.top_k, self.temperature = radius, top_k, temperature
        self.head = nn.Conv2d(3, 1, 3, padding=1)
        self.unfold = nn.Unfold(kernel_size=2 * radius + 1, padding=radius)
        side = torch.linspace(-radius, radius, 2 * radius + 1)
        self.register_buffer("offsets", torch.stack(torch.meshgrid([side, side], indexing="ij")).view(2, -1).t()[:, [1, 0]])

    def forward(self, image):
        score_map = torch.sigmoid(self.head(image))
        b, c, h, w = score_map.shape
        peaks = suppress(score_map.detach(), self.radius)
        peaks[:, :, :self.radius, :] = 0
        peaks[:, :, :, :self.radius] = 0
        best = torch.topk(peaks.view(b, -1), self.top_k).indices
        wh = torch.tensor([w - 1, h - 1], device=score_map.device)
        patches = self.unfold(score_map)
        keypoints = []
        for i in range(b):
            idx = best[i]
            patch = patches[i].t()[idx]
            xy = torch.stack([idx % w, torch.div(idx, w, rounding_mode="trunc")], dim=1)
            top = patch.max(dim=1).values.detach()[:, None]
            weights = ((patch - top) / self.temperature).exp()
            residual = weights @ self.offsets / weights.sum(dim=1)[:, None]
            keypoints.append((xy + residual) / wh * 2 - 1)
        return torch.stack(keypoints)


def build() -> nn.Module:
    torch.manual_seed(0)
    return SoftKeypoints().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 24, 32, generator=generator),)


DYNAMIC = {"image": {2: "height", 3: "width"}}
