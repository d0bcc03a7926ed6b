"""RT-DETR's encoder-side proposals: anchors on every feature level, each grid normalised by its size.

Reduced from lyuwenyu/RT-DETR at 068dfde65f2667ad6555883c69d73de886518cad,
rtdetr_pytorch/src/zoo/rtdetr/rtdetr_decoder.py: ``_get_encoder_input`` (lines 420-439: each level's
``h, w`` appended to ``spatial_shapes``), ``_generate_anchors`` (lines 441-468: ``for lvl, (h, w) in
enumerate(spatial_shapes):`` with ``valid_WH = torch.tensor([w, h]).to(dtype)`` at line 456, then the
inverse sigmoid and the valid mask) and ``_get_decoder_input`` (lines 471-490: the memory masked and the
box head's output added to the anchors). Written here in our own words, with two levels, one linear box
head and no top-k. Form kept: the anchors' centres are divided by a tensor of the level's width and height
read from the loop over the list of sizes: the TorchScript export keeps the example's, so at another size
every proposal is offset from its cell.
"""

import torch
from torch import nn


class LevelAnchors(nn.Module):
    def __init__(self, dim: int = 8, grid_size: float = 0.05, eps: float = 1e-2) -> None:
        super().__init__()
        self.levels = nn.ModuleList([nn.Conv2d(3, dim, 3, stride=4, padding=1), nn.Conv2d(3, dim, 3, stride=8,
                                                                                          padding=1)])
        self.box_head = nn.Linear(dim, 4)
        self.grid_size, self.eps = grid_size, eps

    def _anchors(self, spatial_shapes, dtype=torch.float32):
        anchors = []
        for lvl, (h, w) in enumerate(spatial_shapes):
            gy, gx = torch.meshgrid(torch.arange(end=h, dtype=dtype), torch.arange(end=w, dtype=dtype), indexing="ij")
            centres = torch.stack([gx, gy], -1)
            valid_WH = torch.tensor([w, h]).to(dtype)
            centres = (centres.unsqueeze(0) + 0.5) / valid_WH
            sizes = torch.ones_like(centres) * self.grid_size * (2.0 ** lvl)
            anchors.append(torch.concat([centres, sizes], -1).reshape(-1, h * w, 4))
        anchors = torch.concat(anchors, 1)
        valid = ((anchors > self.eps) * (anchors < 1 - self.eps)).all(-1, keepdim=True)
        return torch.log(anchors / (1 - anchors)), valid

    def forward(self, image):
        flat, spatial_shapes = [], []
        for level in self.levels:
            feat = level(image)
            _, _, h, w = feat.shape
            flat.append(feat.flatten(2).permute(0, 2, 1))
            spatial_shapes.append([h, w])
        memory = torch.concat(flat, 1)
        anchors, valid = self._anchors(spatial_shapes)
        memory = valid.to(memory.dtype) * memory
        boxes = self.box_head(memory) + torch.where(valid, anchors, torch.zeros_like(anchors))
        return torch.sigmoid(boxes)


def build() -> nn.Module:
    torch.manual_seed(0)
    return LevelAnchors().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 32, 48, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
