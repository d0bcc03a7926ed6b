"""United-Perception's ``RpnMerger.merge``: the proposals of every level and image kept as rows (image, x1, y1, x2,
y2, score, class), the image index FIRST; each image's best ``top_n`` rows picked by that column with a mask, an image
without rows skipped, and ordered and cut by one sorted TopK of K = ``min(top_n, rows)``.

Reduced from ModelTC/United-Perception @ 52aaeb9ed27a490820696d7754d19f98cd6ecd11,
up/tasks/det/models/postprocess/roi_predictor.py:276-312 (``RpnMerger``; the per-image loop of ``merge`` at
300-307): ``for b_ix in range(B):``, ``rois = mlvl_rois[mlvl_rois[:, 0] == b_ix]``, ``if rois.numel() == 0:
continue``, ``topk = min(self.top_n, rois.shape[0])``, ``scores, order = torch.topk(rois[:, 5], k=topk,
sorted=True)``, ``merged_rois.append(rois[order])``, then ``torch.cat(merged_rois, dim=0)``. What is reduced: the RPN
is one convolution whose outputs are decoded into boxes and an objectness score (the levels, anchors and the
per-level pre-NMS selection of ``RoiPredictor`` are left out), its rows made by ``torch.where`` over the batch's
scores with the image index put first; the count of images: the real code reads it from the rows,
``B = int(torch.max(mlvl_rois[:, 0]).item() + 1)`` (a Python number a trace bakes just as it unrolls the loop, and
one that misses trailing images without rows), here it is the batch's, from the images' shape; the fallback for a
batch without any row (``mlvl_rois.new_zeros((1, mlvl_rois.shape[1]))`` where the list is empty) and the
``@to_float32`` decorator are left out. Another owner's code than fastface's: the same meaning in another form (the
rows picked by a mask, a skip, a TopK as the sort and the cap). Written here in our own words.
"""

import torch
from torch import nn


class RpnMerger(object):
    """Concat results from all images and keep each image's top_n."""

    def __init__(self, top_n):
        self.top_n = top_n

    @torch.no_grad()
    def merge(self, mlvl_rois, B):
        merged_rois = []
        for b_ix in range(B):
            rois = mlvl_rois[mlvl_rois[:, 0] == b_ix]
            if rois.numel() == 0:
                continue  # noqa E701
            topk = min(self.top_n, rois.shape[0])
            scores, order = torch.topk(rois[:, 5], k=topk, sorted=True)
            merged_rois.append(rois[order])
        merged_rois = torch.cat(merged_rois, dim=0)
        return merged_rois


class RegionProposalNet(nn.Module):
    def __init__(self, top_n: int = 3, score_thresh: float = 0.5) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 5, 3, stride=4, padding=1)
        self.merger = RpnMerger(top_n)
        self.score_thresh = score_thresh

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.head(x).flatten(2).transpose(1, 2)
        corner = out[..., :2].sigmoid() * 32
        boxes = torch.cat([corner, corner + out[..., 2:4].sigmoid() * 8], -1)
        scores = out[..., 4].sigmoid()
        b, n = torch.where(scores > self.score_thresh)
        score = scores[b, n].unsqueeze(1)
        mlvl_rois = torch.cat([b.to(score.dtype).unsqueeze(1), boxes[b, n], score, torch.zeros_like(score)], dim=1)
        return self.merger.merge(mlvl_rois, x.shape[0])


def build() -> nn.Module:
    torch.manual_seed(0)
    return RegionProposalNet().eval()


def inputs(generator: torch.Generator, batch: int = 2) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "images"}}
CALL = "for b_ix in range(B):"
