"""The original FCOS.Pytorch detection head (the one zhenghao977's grew from): scores times centerness
without the square root, the sigmoid taken in place, the same per-image top-k loop and stacks.

Reduced from VectXmy/FCOS.Pytorch at commit 00d980d4c40b60754e26fd4703b8cf8ae9056cea, model/fcos.py,
``DetectHead.forward`` (``cls_preds=cls_logits.sigmoid_()``, ``cls_scores=cls_scores*(cnt_preds.squeeze(dim=-1))``,
``topk_ind=torch.topk(cls_scores,max_num,dim=-1,largest=True,sorted=True)[1]``, then
``for batch in range(cls_scores.shape[0]):`` appending ``cls_scores[batch][topk_ind[batch]]``,
``cls_classes[batch][topk_ind[batch]]`` and ``boxes[batch][topk_ind[batch]]``, each list stacked with
``torch.stack(...,dim=0)``). Written here in our own words: the boxes are the regression added to fixed
points, a fixed k, and the NMS after the top-k is left out.
"""

import torch
from torch import nn


class Head(nn.Module):
    def forward(self, cls_logits, cnt_logits, reg_preds):
        cls_preds = cls_logits.clone().sigmoid_()
        cnt_preds = cnt_logits.clone().sigmoid_()
        cls_scores, cls_classes = torch.max(cls_preds, dim=-1)
        cls_scores = cls_scores * cnt_preds[..., 0]
        points = torch.linspace(0.0, 64.0, reg_preds.shape[1])[None, :, None]
        boxes = torch.cat([points - reg_preds[..., :2], points + reg_preds[..., 2:]], dim=-1)
        topk_ind = torch.topk(cls_scores, 10, dim=-1, largest=True, sorted=True)[1]
        _cls_scores=[]
        _cls_classes=[]
        _boxes=[]
        for batch in range(cls_scores.shape[0]):
            _cls_scores.append(cls_scores[batch][topk_ind[batch]])#[max_num]
            _cls_classes.append(cls_classes[batch][topk_ind[batch]])#[max_num]
            _boxes.append(boxes[batch][topk_ind[batch]])#[max_num,4]
        cls_scores_topk=torch.stack(_cls_scores,dim=0)#[batch_size,max_num]
        cls_classes_topk=torch.stack(_cls_classes,dim=0)#[batch_size,max_num]
        boxes_topk=torch.stack(_boxes,dim=0)#[batch_size,max_num,4]
        return cls_scores_topk, cls_classes_topk, boxes_topk


def build() -> nn.Module:
    return Head().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 30, 4, generator=generator), torch.randn(3, 30, 1, generator=generator),
            torch.rand(3, 30, 4, generator=generator) * 10)


DYNAMIC = {"cls_logits": {0: "b", 1: "n"}, "cnt_logits": {0: "b", 1: "n"}, "reg_preds": {0: "b", 1: "n"}}
