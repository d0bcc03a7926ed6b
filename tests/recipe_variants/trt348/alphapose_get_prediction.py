"""AlphaPose's single-person keypoint decoding (its PyTorch branch).

Reduced from MVIG-SJTU/AlphaPose, branch ``pytorch`` (commit ded84d4), SPPE/src/utils/eval.py:
``getPrediction`` (lines 113-147) takes each heatmap's maximum (``torch.max`` of ``hms.view(n, k, -1)``,
the flat index split with ``%`` and ``floor`` of a division by the width), masks maxima that are not
positive, then loops ``for i in range(preds.size(0)): for j in range(preds.size(1))`` with ``hm =
hms[i][j]``, ``pX, pY = int(round(float(preds[i][j][0]))), int(round(float(preds[i][j][1])))``, a
neighbour test against the output resolution, ``diff = torch.Tensor((hm[pY][pX + 1] - hm[pY][pX - 1],
hm[pY + 1][pX] - hm[pY - 1][pX]))`` and ``preds[i][j] += diff.sign() * 0.25``, and adds 0.2. The
resolution comes from a global options object there (``opt.outputResW``); here it is the heatmap's
size, as the model computes the heatmaps. Written here in our own words.
"""

import torch
from torch import nn


def get_prediction(hms, res_h, res_w):
    maxval, idx = torch.max(hms.view(hms.size(0), hms.size(1), -1), 2)
    maxval = maxval.view(hms.size(0), hms.size(1), 1)
    idx = idx.view(hms.size(0), hms.size(1), 1) + 1
    preds = idx.repeat(1, 1, 2).float()
    preds[:, :, 0] = (preds[:, :, 0] - 1) % hms.size(3)
    preds[:, :, 1] = torch.floor((preds[:, :, 1] - 1) / hms.size(3))
    preds *= maxval.gt(0).repeat(1, 1, 2).float()
    for i in range(preds.size(0)):
        for j in range(preds.size(1)):
            hm = hms[i][j]
            pX, pY = int(round(float(preds[i][j][0]))), int(round(float(preds[i][j][1])))
            if 0 < pX < res_w - 1 and 0 < pY < res_h - 1:
                diff = torch.Tensor((hm[pY][pX + 1] - hm[pY][pX - 1], hm[pY + 1][pX] - hm[pY - 1][pX]))
                preds[i][j] += diff.sign() * 0.25
    preds += 0.2
    return preds, maxval


class PoseDecoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        hms = self.conv(x)
        preds, maxval = get_prediction(hms, hms.size(2), hms.size(3))
        return torch.cat((preds, maxval), dim=2)


def build() -> nn.Module:
    torch.manual_seed(0)
    return PoseDecoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 16, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
