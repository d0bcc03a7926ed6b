"""A shape-keyed cache in eval mode only: super-gradients' YOLO head builds its grid with the
output's dtype and device, and moves it to the device again where it is read.

Reduced from Deci-AI/super-gradients @ e0ccacf8868ffa1296fa4f8407c03d2bc227312c,
src/super_gradients/training/models/detection_models/yolo_base.py:252-286 (``if not self.training:``
… ``if self.grid[i].shape[2:4] != output.shape[2:4]:`` → ``self.grid[i] = self._make_grid(nx, ny,
dtype=..., device=...)``, ``self.grid[i].to(output.device)``, the raw logits kept by ``.clone()``),
written here in our own words for two levels and one anchor.
"""

import torch
from torch import nn


class DetectX(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.detection_layers_num = 2
        self.n_anchors = 1
        self.stride = torch.tensor([1.0, 2.0])
        self.grid = [torch.zeros(1)] * self.detection_layers_num
        self.preds = nn.ModuleList(nn.Conv2d(3, 6, 1, stride=s) for s in (1, 2))

    def forward(self, img):
        outputs = []
        outputs_logits = []
        for i in range(self.detection_layers_num):
            output = self.preds[i](img)
            bs, _, ny, nx = output.shape
            output = output.view(bs, self.n_anchors, -1, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            if not self.training:
                outputs_logits.append(output.clone())
                if self.grid[i].shape[2:4] != output.shape[2:4]:
                    self.grid[i] = self._make_grid(nx, ny, dtype=output.dtype, device=output.device)
                xy = (output[..., :2] + self.grid[i].to(output.device)) * self.stride[i]
                wh = torch.exp(output[..., 2:4]) * self.stride[i]
                output = torch.cat([xy, wh, output[..., 4:].sigmoid()], dim=4)
                output = output.view(bs, -1, output.shape[-1])
            outputs.append(output)
        return torch.cat(outputs, 1)

    @staticmethod
    def _make_grid(nx: int, ny: int, dtype: torch.dtype, device: torch.device):
        y = torch.arange(ny, dtype=torch.float32, device=device)
        x = torch.arange(nx, dtype=torch.float32, device=device)
        yv, xv = torch.meshgrid([y, x], indexing="ij")
        return torch.stack((xv, yv), 2).view((1, 1, ny, nx, 2)).to(dtype)


def build() -> nn.Module:
    return DetectX()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"img": {2: "h", 3: "w"}}
