"""Deformable DETR's encoder reference points: the centre of every cell of every feature level.

Reduced from fundamentalvision/Deformable-DETR (commit 11169a60c33333af00a4849f1808023eba96a931),
models/deformable_transformer.py: ``DeformableTransformerEncoder.get_reference_points`` (lines 238-250)
meshes ``torch.linspace(0.5, H_ - 0.5, H_, dtype=torch.float32, device=device)`` with the same over ``W_``
for each level's ``(H_, W_)``, divides by the valid ratio times the size and stacks x and y;
``DeformableTransformer.forward`` (lines 126-148) reads each level's ``(h, w)`` from ``src.shape``. Kept:
the call's form, the loop over levels and the division by ``valid_ratio * size``. Reduced: two levels
pooled by 8 and 16 from the input stand in for the backbone, each level's ``(h, w)`` is passed as read from
its shape (the original packs them with ``torch.as_tensor``, which the tracer keeps as constants), the
valid ratios come from an all-valid mask, and one linear layer consumes the points. A level of one row (an
image 16 to 31 pixels tall at stride 16, as the example is) makes ``H_`` 1, and the exported ``linspace``
divides 0 by 0. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}


def valid_ratio(mask):
    _, h, w = mask.shape
    rows = torch.sum(~mask[:, :, 0], 1).float() / h
    cols = torch.sum(~mask[:, 0, :], 1).float() / w
    return torch.stack([cols, rows], -1)


def reference_points(spatial_shapes, valid_ratios, device):
    per_level = []
    for lvl, (H_, W_) in enumerate(spatial_shapes):
        ref_y, ref_x = torch.meshgrid(torch.linspace(0.5, H_ - 0.5, H_, dtype=torch.float32, device=device),
                                      torch.linspace(0.5, W_ - 0.5, W_, dtype=torch.float32, device=device),
                                      indexing="ij")
        ys = ref_y.reshape(-1)[None] / (valid_ratios[:, None, lvl, 1] * H_)
        xs = ref_x.reshape(-1)[None] / (valid_ratios[:, None, lvl, 0] * W_)
        per_level.append(torch.stack((xs, ys), -1))
    points = torch.cat(per_level, 1)
    return points[:, :, None] * valid_ratios[:, None]


class ReferencePointEncoder(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.inp = nn.Conv2d(3, channels, 1)
        self.points = nn.Linear(2 * 2, channels)

    def forward(self, x):
        feats = [F.avg_pool2d(self.inp(x), 8), F.avg_pool2d(self.inp(x), 16)]
        shapes, tokens, ratios = [], [], []
        for feat in feats:
            b, _, h, w = feat.shape
            shapes.append((h, w))
            tokens.append(feat.flatten(2).transpose(1, 2))
            ratios.append(valid_ratio(torch.zeros(b, h, w, dtype=torch.bool, device=feat.device)))
        ref = reference_points(shapes, torch.stack(ratios, 1), x.device)
        return torch.cat(tokens, 1) + self.points(ref.flatten(2))


def build() -> nn.Module:
    torch.manual_seed(0)
    return ReferencePointEncoder().eval()


def inputs(generator):
    return (torch.rand(1, 3, 16, 48, generator=generator),)
