"""FairMOT's per-frame embeddings in ByteTrack's tutorial tracker: ``id_feature.squeeze(0)``.

Reduced from ifzhang/ByteTrack at commit d1bf0191adff59bc8fcfeaa0b33d3d1642552a99,
tutorials/fairmot/tracker.py, ``JDETracker.update`` (lines 250-261): the network's heatmap and
identity maps for one frame are decoded (``mot_decode`` keeps the K best centres), the identity
embeddings are gathered at those centres (``_tranpose_and_gather_feat``) and the batch axis of the
single frame is dropped with ``id_feature.squeeze(0)`` before the tracker matches them. Written
here in our own words: the heatmap and identity maps are the inputs (the backbone is left out),
the decoding keeps only the top-K selection, and the gather is written inline.

The batch axis is dynamic in the export, so the TorchScript exporter guards the squeeze with an
``If``; the tracker feeds one frame at a time, so the axis is 1 on every call (the rule's
assumption).
"""

import torch
import torch.nn.functional as F
from torch import nn


class FrameEmbeddings(nn.Module):
    def __init__(self, k: int = 4) -> None:
        super().__init__()
        self.k = k

    def forward(self, hm, id_map):
        batch, channels = id_map.shape[:2]
        hm = hm.sigmoid()
        id_feature = F.normalize(id_map, dim=1)
        scores, inds = hm.flatten(1).topk(self.k)
        id_feature = id_feature.flatten(2).permute(0, 2, 1)
        id_feature = id_feature.gather(1, inds.unsqueeze(2).expand(batch, self.k, channels))
        id_feature = id_feature.squeeze(0)
        return id_feature


def build() -> nn.Module:
    return FrameEmbeddings()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 1, 5, 6, generator=generator), torch.randn(1, 8, 5, 6, generator=generator))


DYNAMIC = {"hm": {0: "batch", 2: "height", 3: "width"}, "id_map": {0: "batch", 2: "height", 3: "width"}}
