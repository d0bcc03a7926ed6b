"""RTMDet-Ins's mask head: per-instance 1x1 dynamic convolutions over one image's prototypes.

Reduced from open-mmlab/mmyolo @ 8c4d9dc503dc8e327bec8147e8dc97124052f693,
mmyolo/models/dense_heads/rtmdet_ins_head.py:646-693 (``_mask_predict_by_feat``: relative coordinates per
instance, the prototypes repeated per instance, ``x = mask_feat.reshape(1, -1, h, w)``, then
``F.conv2d(x, weight, bias=bias, stride=1, padding=0, groups=num_inst)`` per layer with ReLUs between) and
:695-715 (``parse_dynamic_params``: ``torch.split_with_sizes`` of the kernels, reshaped to
``(n_inst * channels, -1, 1, 1)``). The empty-instances branch and the prior generator are left out (a grid of
pixel centres stands in). Written here in our own words; the dynamic axis is the instance count.
"""

import torch
import torch.nn.functional as F
from torch import nn


class DynamicMaskHead(nn.Module):
    def __init__(self, prototypes=4, channels=3):
        super().__init__()
        self.channels = channels
        self.weight_nums = [(prototypes + 2) * channels, channels * channels, channels]
        self.bias_nums = [channels, channels, 1]

    def parse_dynamic_params(self, flatten_kernels):
        n_inst = flatten_kernels.size(0)
        splits = list(torch.split_with_sizes(flatten_kernels, self.weight_nums + self.bias_nums, dim=1))
        weights, biases = splits[:3], splits[3:]
        for i in range(3):
            out = self.channels if i < 2 else 1
            weights[i] = weights[i].reshape(n_inst * out, -1, 1, 1)
            biases[i] = biases[i].reshape(n_inst * out)
        return weights, biases

    def forward(self, mask_feat, kernels, priors):
        h, w = mask_feat.size()[-2:]
        ys, xs = torch.meshgrid(torch.arange(h, dtype=torch.float32), torch.arange(w, dtype=torch.float32),
                                indexing="ij")
        coord = torch.stack([xs, ys], -1).reshape(1, -1, 2)
        num_inst = priors.shape[0]
        points = priors[:, :2].reshape(-1, 1, 2)
        strides = priors[:, 2:].reshape(-1, 1, 2)
        relative = ((points - coord).permute(0, 2, 1) / (strides[..., 0].reshape(-1, 1, 1) * 8))
        relative = relative.reshape(num_inst, 2, h, w)
        feats = torch.cat([relative, mask_feat.unsqueeze(0).repeat(num_inst, 1, 1, 1)], dim=1)
        weights, biases = self.parse_dynamic_params(kernels)
        x = feats.reshape(1, -1, h, w)
        for i, (weight, bias) in enumerate(zip(weights, biases)):
            x = F.conv2d(x, weight, bias=bias, stride=1, padding=0, groups=num_inst)
            if i < 2:
                x = F.relu(x)
        return x.reshape(num_inst, h, w)


def build() -> nn.Module:
    return DynamicMaskHead()


def inputs(generator: torch.Generator, batch: int = 2) -> tuple[torch.Tensor, ...]:
    params = 6 * 3 + 3 * 3 + 3 + 3 + 3 + 1
    priors = torch.cat([torch.rand(batch, 2, generator=generator) * 8,
                        torch.full((batch, 2), 1.0) + torch.rand(batch, 2, generator=generator)], 1)
    return (torch.randn(4, 6, 7, generator=generator), torch.randn(batch, params, generator=generator) / 2, priors)


DYNAMIC = {"kernels": {0: "inst"}, "priors": {0: "inst"}}
