"""MONAI's RetinaNet detector: head outputs split back per level by each level's anchor count.

Reduced from MONAI 1.6.1, apps/detection/networks/retinanet_detector.py: ``RetinaNetDetector.forward``
counts each level's anchor locations as ``[x.shape[2:].numel() for x in head_outputs[self.cls_key]]``
(line 534), ``_reshape_maps`` (lines 588-630) views each level's map as ``(B, A, C, H, W)``, moves the
anchors last and concatenates the levels, and ``postprocess_detections`` (lines 659-667) splits the
concatenation back with ``split(num_anchors_per_level, dim=1)``, the counts times the anchors per
location. Here the box selection that follows is reduced to each level's best score per image.
Written here in our own words.
"""

import torch
from torch import nn


class RetinaNetLevels(nn.Module):
    def __init__(self, num_classes: int = 3, num_anchors_per_loc: int = 2) -> None:
        super().__init__()
        self.num_anchors_per_loc = num_anchors_per_loc
        self.stem = nn.Conv2d(1, 8, 3, stride=2, padding=1)
        self.down = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.cls_head = nn.Conv2d(8, num_classes * num_anchors_per_loc, 3, padding=1)

    def _reshape_maps(self, result_maps):
        all_reshaped_result_map = []
        for result_map in result_maps:
            batch_size = result_map.shape[0]
            num_channel = result_map.shape[1] // self.num_anchors_per_loc
            spatial_size = result_map.shape[-2:]
            reshaped_result_map = result_map.view((batch_size, -1, num_channel) + spatial_size)
            reshaped_result_map = reshaped_result_map.permute(0, 3, 4, 1, 2)
            all_reshaped_result_map.append(reshaped_result_map.reshape(batch_size, -1, num_channel))
        return torch.cat(all_reshaped_result_map, dim=1)

    def forward(self, images):
        first = self.stem(images)
        features = [first, self.down(first)]
        head_outputs = [self.cls_head(f) for f in features]
        num_anchor_locs_per_level = [x.shape[2:].numel() for x in head_outputs]
        logits = self._reshape_maps(head_outputs)
        num_anchors_per_level = [n * self.num_anchors_per_loc for n in num_anchor_locs_per_level]
        per_level = logits.split(num_anchors_per_level, dim=1)
        return torch.stack([level.sigmoid().amax(dim=(1, 2)) for level in per_level], 1)


def build() -> nn.Module:
    return RetinaNetLevels().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 1, 16, 24, generator=generator),)


DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
