"""MOTDT's part-attention re-identification head in ByteTrack: ``torch.unsqueeze(att_weights[:, i], 1)``.

Reduced from ifzhang/ByteTrack at commit d1bf0191adff59bc8fcfeaa0b33d3d1642552a99,
yolox/motdt_tracker/reid_model.py, ``Model.forward`` (lines 213-231): a 1x1 convolution makes one
sigmoid attention map per body part; for each part the feature map is weighted by that part's map,
which gets its channel axis back with the function form ``torch.unsqueeze(att_weights[:, i], 1)``
inside the product (line 222), pooled over the whole map and projected; the parts' embeddings are
concatenated and L2-normalised. Written here in our own words: the GoogLeNet trunk is left out (the
feature map is the input), the projections sit in a ``ModuleList`` instead of numbered attributes,
and the whole-map ``avg_pool2d`` with the map's size as kernel is a ``mean`` over both axes.
"""

import torch
from torch import nn


class PartAttentionEmbedding(nn.Module):
    def __init__(self, channels: int = 8, n_parts: int = 3, dim: int = 4) -> None:
        super().__init__()
        self.n_parts = n_parts
        self.conv_att = nn.Conv2d(channels, n_parts, 1)
        self.linear_features = nn.ModuleList(nn.Linear(channels, dim) for _ in range(n_parts))

    def forward(self, feature):
        att_weights = torch.sigmoid(self.conv_att(feature))
        linear_features = []
        for i in range(self.n_parts):
            masked_feature = feature * torch.unsqueeze(att_weights[:, i], 1)
            pooled_feature = masked_feature.mean((2, 3))
            linear_features.append(self.linear_features[i](pooled_feature))
        concat_features = torch.cat(linear_features, 1)
        return concat_features / torch.clamp(torch.norm(concat_features, 2, 1, keepdim=True), min=1e-6)


def build() -> nn.Module:
    return PartAttentionEmbedding()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 6, 4, generator=generator),)


DYNAMIC = {"feature": {0: "batch", 2: "height", 3: "width"}}
