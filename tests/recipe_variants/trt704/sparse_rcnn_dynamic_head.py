"""Proposal features repeated by ``len`` of the first feature map: Sparse R-CNN's dynamic head.

Reduced from PeizeSun/SparseR-CNN at bd40124805f3ae8fcab912eaa01618466ea15460,
projects/SparseRCNN/sparsercnn/head.py (``DynamicHead.forward(self, features, init_bboxes,
init_features)``: ``bs = len(features[0])``, ``init_features = init_features[None].repeat(1, bs,
1)``; ``RCNNHead.forward`` then reads ``N, nr_boxes = bboxes.shape[:2]`` and
``pro_features.view(N, nr_boxes, self.d_model)``). The same lines are in DiffusionDet
(ShoufaChen/DiffusionDet, diffusiondet/head.py). Written here in our own words: one head, and the
RoI features stand-in is each image's pooled feature maps.
"""

import torch
from torch import nn


class RCNNHead(nn.Module):
    def __init__(self, d_model) -> None:
        super().__init__()
        self.d_model = d_model
        self.linear = nn.Linear(d_model, d_model)
        self.bboxes_delta = nn.Linear(d_model, 4)

    def forward(self, features, bboxes, pro_features):
        N, nr_boxes = bboxes.shape[:2]
        roi_features = sum(feature.mean(dim=(2, 3)) for feature in features)[:, None, :]
        pro_features = pro_features.view(N, nr_boxes, self.d_model) + roi_features
        obj_features = self.linear(pro_features).relu()
        return bboxes + self.bboxes_delta(obj_features)


class DynamicHead(nn.Module):
    def __init__(self, d_model=6, num_proposals=5) -> None:
        super().__init__()
        self.init_proposal_features = nn.Embedding(num_proposals, d_model)
        self.init_proposal_boxes = nn.Embedding(num_proposals, 4)
        self.head = RCNNHead(d_model)

    def forward(self, p2, p3):
        features = [p2, p3]
        bs = len(features[0])
        init_bboxes = self.init_proposal_boxes.weight[None].expand(p2.shape[0], -1, -1)
        init_features = self.init_proposal_features.weight[None].repeat(1, bs, 1)
        return self.head(features, init_bboxes, init_features.clone())


def build() -> nn.Module:
    return DynamicHead()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(2, 6, 8, 8, generator=generator), torch.randn(2, 6, 4, 4, generator=generator)


DYNAMIC = {"p2": {0: "batch"}, "p3": {0: "batch"}}
