"""BEVFormer's temporal queue in training: the metas of every frame of every sample (a list
per batch of dicts keyed by the frame's place in the queue) are deep-copied before the history
BEV is built from the previous frames, then the current frame's metas are taken from the
originals; each meta carries the frame's CAN-bus signal and whether a previous BEV exists.

Reduced from fundamentalvision/BEVFormer @ 66b65f3a1f58caf0507cb2a971b9c0e7f842376c,
projects/mmdet3d_plugin/bevformer/detectors/bevformer.py:158-177 and 217-226
(``obtain_history_bev``: one BEV step per queued frame, reset where ``prev_bev_exists`` is
false; ``forward_train``: ``prev_img_metas = copy.deepcopy(img_metas)``, the history BEV, then
``img_metas = [each[len_queue-1] for each in img_metas]``), written here in our own words; the
image backbone and the BEV head are linear layers, the metas are built from the inputs (one
tensor of their own per frame, as the data loader gives them), and the last frame's key is
read from the metas (a size read from a tensor is a tensor while tracing, no dict key).
"""

import copy

import torch
from torch import nn


class TemporalQueue(nn.Module):
    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.backbone = nn.Linear(dim, dim)
        self.head = nn.Linear(2 * dim, dim)

    def bev_step(self, feats: torch.Tensor, img_metas: list, prev_bev):
        shift = torch.stack([meta["can_bus"] for meta in img_metas])
        if prev_bev is None:
            prev_bev = torch.zeros_like(feats)
        return self.head(torch.cat([feats + shift, prev_bev], dim=-1))

    def obtain_history_bev(self, imgs_queue: torch.Tensor, img_metas_list: list):
        prev_bev = None
        feats = self.backbone(imgs_queue)
        for i in range(imgs_queue.shape[1]):
            img_metas = [each[i] for each in img_metas_list]
            if not img_metas[0]["prev_bev_exists"]:
                prev_bev = None
            prev_bev = self.bev_step(feats[:, i], img_metas, prev_bev)
        return prev_bev

    def forward(self, img: torch.Tensor, can_bus: torch.Tensor) -> torch.Tensor:
        len_queue = img.shape[1]
        img_metas = [{i: {"can_bus": can_bus[b, i].clone(), "prev_bev_exists": i > 0} for i in range(len_queue)}
                     for b in range(img.shape[0])]
        prev_img = img[:, :-1]
        img = img[:, -1]
        prev_img_metas = copy.deepcopy(img_metas)
        prev_bev = self.obtain_history_bev(prev_img, prev_img_metas)
        img_metas = [each[len(each) - 1] for each in img_metas]
        return self.bev_step(self.backbone(img), img_metas, prev_bev)


def build() -> nn.Module:
    return TemporalQueue()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(2, 3, 4, generator=generator), torch.randn(2, 3, 4, generator=generator)


DYNAMIC: dict = {}
