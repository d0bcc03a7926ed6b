"""The face-alignment network's landmark decoder: each heatmap's peak, nudged a quarter pixel in place.

Reduced from 1adrianb/face-alignment at commit cdf86ed3a0e13f930691a9cc7a9fb525069636d0,
face_alignment/utils.py: ``get_preds_fromhm`` (lines 140-169) takes each heatmap's maximum with
``torch.max(hm.view(b, n, h * w), 2)``, turns the flat index into 1-based (x, y), then loops over the
batch and the landmarks: ``hm_ = hm[i, j, :]``, ``pX, pY = int(preds[i, j, 0]) - 1, int(preds[i, j, 1]) -
1``, a border test against the fixed 64x64 heatmap (``pX > 0 and pX < 63 and ...``), ``diff =
torch.FloatTensor([...])`` of the two neighbour differences and ``preds[i, j].add_(diff.sign_().mul_(.25))``
(line 167): the shift written with in-place tensor methods. The repository maps x with ``apply_`` and a
Python lambda, and y with the in-place chain ``preds[..., 1].add_(-1).div_(h).floor_().add_(1)``; here
the same 1-based column and row come from out-of-place operators (the TorchScript exporter drops that
chain of in-place writes through a view: its graph differs from eager mode even at the traced input,
another problem than the loop's). Written in our own words, with a small convolution in front so the
heatmaps come from the input; the heatmaps are 64x64 as the loop's fixed border test expects.
"""

import torch
from torch import nn


class LandmarkHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, image):
        hm = self.conv(image)
        _, idx = torch.max(hm.view(hm.size(0), hm.size(1), hm.size(2) * hm.size(3)), 2)
        idx += 1
        preds = idx.view(idx.size(0), idx.size(1), 1).repeat(1, 1, 2).float()
        preds[..., 0] = torch.remainder(preds[..., 0] - 1, hm.size(3)) + 1
        preds[..., 1] = torch.floor((preds[..., 1] - 1) / hm.size(2)) + 1
        for i in range(preds.size(0)):
            for j in range(preds.size(1)):
                hm_ = hm[i, j, :]
                pX, pY = int(preds[i, j, 0]) - 1, int(preds[i, j, 1]) - 1
                if pX > 0 and pX < 63 and pY > 0 and pY < 63:
                    diff = torch.FloatTensor([hm_[pY, pX + 1] - hm_[pY, pX - 1], hm_[pY + 1, pX] - hm_[pY - 1, pX]])
                    preds[i, j].add_(diff.sign_().mul_(.25))
        preds.add_(-.5)
        return preds


def build() -> nn.Module:
    torch.manual_seed(0)
    return LandmarkHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 64, 64, generator=generator),)


DYNAMIC = {"image": {0: "batch"}}
