"""Dynamic shape input: a tensor built from a list of feature-map sizes (Deformable DETR).

Each level's ``(height, width)`` goes into a Python list, then ``torch.as_tensor`` copies the
list into a tensor: the TorchScript trace keeps the example's sizes as a constant, and the
offset normaliser made from it is wrong at another image size. The TracerWarning locates it
(TRT716), and migrate applies ``_trt_sizes_tensor`` as a verified candidate.
"""

import torch
from torch import nn


class SpatialShapes(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.levels = nn.ModuleList(nn.Conv2d(3, 4, 3, stride=s, padding=1) for s in (1, 2, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        sources = [level(x) for level in self.levels]
        spatial_shapes_list = []
        for source in sources:
            batch_size, channels, height, width = source.shape
            spatial_shape = (height, width)
            spatial_shapes_list.append(spatial_shape)
        spatial_shapes = torch.as_tensor(spatial_shapes_list, dtype=torch.long, device=x.device)
        # Sampling offsets normalised by each level's (width, height), as the deformable attention does.
        offset_normalizer = torch.stack([spatial_shapes[..., 1], spatial_shapes[..., 0]], -1)
        flat = torch.cat([s.flatten(2).mean(-1) for s in sources], -1)
        return flat.view(x.shape[0], -1, 4) / offset_normalizer[None].to(flat.dtype).repeat(1, 1, 2)


def build() -> nn.Module:
    return SpatialShapes()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 16, 24, generator=generator),)
