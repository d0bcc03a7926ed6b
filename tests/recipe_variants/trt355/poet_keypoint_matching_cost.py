"""POET's matching cost: every predicted pose against every person, one column per person written in a loop.

Reduced from amathislab/poet at 080d78c9aff010f75dfe89278e160d4401171884, models/matcher.py:
``HungarianMatcher.forward`` (lines 39-167) flattens the predictions of the batch, takes the
classification cost as ``-out_prob[:, tgt_ids]``, masks every prediction with each person's visible
keypoints, maps the offsets to absolute positions, and fills three cost matrices made with
``torch.empty(x_kpts.shape[0], num_persons)`` one person at a time, ``for i in range(num_persons):``,
writing each column through a new axis (lines 115-119): ``cost_deltas[:, i, None] =
torch.cdist(out_kpts[:,2:,i], tgt_kpts[i,2:].unsqueeze(0), p=1)``, the absolute keypoints alike
(L1) and the centres (L2); the weighted sum is viewed back per image. Left out: the keypoint classes'
cost, the split by image and the Hungarian assignment (scipy, on the cost). The coordinates here are
one interleaved row per pose (centre, then offsets), not separate x and y rows. Written here in our
own words.
"""

import torch
from torch import nn


class KeypointMatchingCost(nn.Module):
    def __init__(self, cost_class: float = 1.0, cost_kpts: float = 2.0, cost_ctrs: float = 0.5,
                 cost_deltas: float = 1.0) -> None:
        super().__init__()
        self.cost_class = cost_class
        self.cost_kpts = cost_kpts
        self.cost_ctrs = cost_ctrs
        self.cost_deltas = cost_deltas

    def forward(self, pred_logits, pred_kpts, tgt_ids, tgt_kpts, tgt_visible):
        bs, num_queries = pred_logits.shape[:2]
        out_prob = pred_logits.flatten(0, 1).softmax(-1)
        out_kpts = pred_kpts.flatten(0, 1)
        num_persons = tgt_kpts.shape[0]
        cost_class = -out_prob[:, tgt_ids]
        # offsets in [0, 1] mapped to [-1, 1] around the centre
        out_abs = torch.cat([out_kpts[:, :2], (out_kpts[:, 2:] - 0.5) * 2 + out_kpts[:, :2].repeat(1, 4)], dim=1)
        tgt_abs = torch.cat([tgt_kpts[:, :2], (tgt_kpts[:, 2:] - 0.5) * 2 + tgt_kpts[:, :2].repeat(1, 4)], dim=1)
        visible = tgt_visible.T.unsqueeze(0)
        out_kpts = out_kpts.unsqueeze(2).expand(-1, -1, num_persons) * visible
        out_abs = out_abs.unsqueeze(2).expand(-1, -1, num_persons) * visible
        tgt_kpts = tgt_kpts * tgt_visible
        tgt_abs = tgt_abs * tgt_visible
        cost_kpts = torch.empty(out_kpts.shape[0], num_persons)
        cost_ctrs = torch.empty(out_kpts.shape[0], num_persons)
        cost_deltas = torch.empty(out_kpts.shape[0], num_persons)
        for i in range(num_persons):
            cost_deltas[:, i, None] = torch.cdist(out_kpts[:, 2:, i], tgt_kpts[i, 2:].unsqueeze(0), p=1)
            cost_kpts[:, i, None] = torch.cdist(out_abs[:, 2:, i], tgt_abs[i, 2:].unsqueeze(0), p=1)
            cost_ctrs[:, i, None] = torch.cdist(out_kpts[:, :2, i], tgt_kpts[i, :2].unsqueeze(0), p=2)
        cost = self.cost_kpts * cost_kpts + self.cost_ctrs * cost_ctrs + self.cost_deltas * cost_deltas \
            + self.cost_class * cost_class
        return cost.view(bs, num_queries, -1)


def build() -> nn.Module:
    return KeypointMatchingCost().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    persons = 3
    return (torch.randn(2, 5, 4, generator=generator), torch.rand(2, 5, 10, generator=generator),
            torch.randint(0, 4, (persons,), generator=generator), torch.rand(persons, 10, generator=generator),
            (torch.rand(persons, 10, generator=generator) < 0.8).to(torch.float32))


DYNAMIC = {"pred_logits": {0: "batch", 1: "queries"}, "pred_kpts": {0: "batch", 1: "queries"}}
