"""NVIDIA's nemotron-ocr text detector adds a grid of prior offsets to its predicted quadrilateral corners:
``get_prior_offsets`` builds the x and y prior positions with ``torch.arange(0, n, dtype=torch.float16)``
whatever precision the network runs in, scales them by the downsample factor, moves them to the cell
centres, tiles them into an H x W x 2 map, and the output head casts that map to the offsets' dtype before
adding it. Exported to ONNX the two aranges become float16 ``Range`` nodes, which ONNX Runtime refuses.

Reduced from NVIDIA/nemotron-ocr @ pypi:nemotron-ocr==2.0.2,
nemotron_ocr/inference/models/detector/fots_detector.py: the module-level ``get_prior_offsets`` (lines
19-42) and the ``output`` head's ``get_prior_offsets``, ``adjust_offsets`` and ``forward`` (lines 214-274,
quad mode). What is reduced: the RegNet extractor, the merge branch and the ASPP prediction stack are one
float32 stride-4 convolution (the arange stays float16, as in the original, and its map is cast to the
float32 offsets), the per-shape dictionary cache of the prior map is left out so the map is built on every
call, and the rotated-box branch is left out. Written here in our own words.
"""

import torch
from torch import nn


def prior_offsets(output_shape, downsample):
    x_priors = torch.arange(0, output_shape[1], dtype=torch.float16) * downsample
    y_priors = torch.arange(0, output_shape[0], dtype=torch.float16) * downsample
    x_priors += downsample / 2
    y_priors += downsample / 2
    x_priors = x_priors.reshape(1, -1, 1).repeat(output_shape[0], 1, 1)
    y_priors = y_priors.reshape(-1, 1, 1).repeat(1, output_shape[1], 1)
    return torch.cat((x_priors, y_priors), dim=2)


class QuadHead(nn.Module):
    def __init__(self, downsample: int = 4, scope: float = 64.0) -> None:
        super().__init__()
        self.downsample = downsample
        self.scope = scope
        self.preds = nn.Conv2d(3, 9, 3, stride=downsample, padding=1)

    def grid_offsets(self, y: torch.Tensor) -> torch.Tensor:
        priors = prior_offsets((y.shape[-2], y.shape[-1]), self.downsample)
        priors = priors.permute(2, 0, 1).contiguous().repeat(4, 1, 1).unsqueeze(0)
        return priors.to(y)

    def forward(self, image: torch.Tensor):
        preds = self.preds(image)
        conf = preds[:, 0:1].squeeze(1).contiguous()
        offsets = torch.tanh(preds[:, 1:9]) * self.scope
        offsets = offsets + self.grid_offsets(offsets)
        offsets = offsets.permute(0, 2, 3, 1).contiguous()
        offsets = offsets.reshape(*offsets.shape[:-1], 4, 2)
        return conf, offsets


def build() -> nn.Module:
    return QuadHead().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, height, width, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
CALL = "x_priors = torch.arange(0, output_shape[1], dtype=torch.float16) * downsample"
