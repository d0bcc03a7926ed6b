"""simple-HRNet's final keypoint predictions, in PyTorch (the post-processing of its HRNet wrapper).

Reduced from stefanopini/simple-HRNet (commit c3dbcd1), misc/utils.py: ``get_max_preds`` (a heatmap's
maximum as (column, row) with ``%`` and ``floor`` of a division by the width, masked where the maximum is
not positive) and ``get_final_preds``, which under ``if post_processing:`` loops ``for n in
range(coords.shape[0]): for p in range(coords.shape[1])`` with ``hm = batch_heatmaps[n][p]``, ``px =
int(math.floor(coords[n][p][0] + 0.5))``, a neighbour test against the heatmap's size, ``diff =
torch.tensor([...]).to(batch_heatmaps.device)`` and ``coords[n][p] += torch.sign(diff) * .25`` (the
PyTorch port of the HRNet reference's NumPy decoder). Written here in our own words; the transform back
to the image is left out.
"""

import math

import torch
from torch import nn


def get_max_preds(batch_heatmaps):
    batch_size = batch_heatmaps.shape[0]
    num_joints = batch_heatmaps.shape[1]
    width = batch_heatmaps.shape[3]
    maxvals, idx = torch.max(batch_heatmaps.reshape(batch_size, num_joints, -1), dim=2)
    maxvals = maxvals.unsqueeze(dim=-1)
    idx = idx.float()
    preds = torch.zeros((batch_size, num_joints, 2)).to(batch_heatmaps.device)
    preds[:, :, 0] = idx % width
    preds[:, :, 1] = torch.floor(idx / width)
    preds *= torch.gt(maxvals, 0.0).repeat(1, 1, 2).float()
    return preds, maxvals


def get_final_preds(post_processing, batch_heatmaps):
    coords, maxvals = get_max_preds(batch_heatmaps)
    heatmap_height = batch_heatmaps.shape[2]
    heatmap_width = batch_heatmaps.shape[3]
    if post_processing:
        for n in range(coords.shape[0]):
            for p in range(coords.shape[1]):
                hm = batch_heatmaps[n][p]
                px = int(math.floor(coords[n][p][0] + 0.5))
                py = int(math.floor(coords[n][p][1] + 0.5))
                if 1 < px < heatmap_width - 1 and 1 < py < heatmap_height - 1:
                    diff = torch.tensor([hm[py][px + 1] - hm[py][px - 1],
                                         hm[py + 1][px] - hm[py - 1][px]]).to(batch_heatmaps.device)
                    coords[n][p] += torch.sign(diff) * .25
    return coords.clone(), maxvals


class HRNetKeypoints(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        preds, maxvals = get_final_preds(True, self.conv(x))
        return torch.cat((preds, maxvals), dim=2)


def build() -> nn.Module:
    torch.manual_seed(0)
    return HRNetKeypoints().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 16, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
