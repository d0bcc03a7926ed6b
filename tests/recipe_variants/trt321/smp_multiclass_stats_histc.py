"""segmentation_models_pytorch's multiclass statistics: per image, the pixels where the prediction
matches the target are kept (others set to -1) and counted per class with
``torch.histc(matched.float(), bins=num_classes, min=0, max=num_classes - 1)``; the prediction's
and the target's own counts minus those give the false positives and negatives.

Reduced from segmentation_models_pytorch 0.6.0 (the PyPI wheel the zoo unpacks),
segmentation_models_pytorch/metrics/functional.py, ``_get_stats_multiclass`` lines 179-221 (the
histc calls at lines 204, 206 and 210). Written here in our own words: a 1x1 convolution and an
argmax make the predicted class map, the statistics run in the forward (as an evaluation head
does); no ignore index; the true negatives (``num_elements`` from a ``torch.tensor`` of the
sizes) are left out; the per-image rows are stacked.
"""

import torch
from torch import nn


class SegmentationStats(nn.Module):
    def __init__(self, channels: int = 3, num_classes: int = 4) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.head = nn.Conv2d(channels, num_classes, kernel_size=1)

    def forward(self, image: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        output = self.head(image).argmax(1)
        num_classes = self.num_classes
        batch_size = output.shape[0]
        rows = []
        for i in range(batch_size):
            target_i = target[i]
            output_i = output[i]
            mask = output_i == target_i
            matched = torch.where(mask, target_i, -1)
            tp = torch.histc(matched.float(), bins=num_classes, min=0, max=num_classes - 1)
            fp = torch.histc(output_i.float(), bins=num_classes, min=0, max=num_classes - 1) - tp
            fn = torch.histc(target_i.float(), bins=num_classes, min=0, max=num_classes - 1) - tp
            rows.append(torch.stack([tp.long(), fp.long(), fn.long()]))
        return torch.stack(rows)


def build() -> nn.Module:
    return SegmentationStats()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 6, 7, generator=generator), torch.randint(0, 4, (2, 6, 7), generator=generator))


# The loop runs once per image of the batch: the batch is static, the image size dynamic.
DYNAMIC = {"image": {2: "height", 3: "width"}, "target": {1: "height", 2: "width"}}
