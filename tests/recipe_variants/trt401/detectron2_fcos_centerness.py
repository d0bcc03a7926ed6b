"""detectron2's FCOS centerness over all levels: ``torch.cat(pred_centerness, dim=1).squeeze(dim=2)``.

Reduced from facebookresearch/detectron2 at commit 02b5c4e295e990042a714712c21dc79b731e8833,
detectron2/modeling/meta_arch/fcos.py, ``FCOS.losses`` (line 230), with ``FCOSHead.forward`` and
``permute_to_N_HWA_K`` (detectron2/modeling/meta_arch/dense_detector.py, lines 15-24): the head's
one-channel centerness map of each level is reshaped to (N, H*W, 1), the levels are concatenated
along the anchors and the channel axis is dropped with ``squeeze(dim=2)``, the keyword form, on the
call's result, giving (N, R) logits for every anchor. Written here in our own words with one
shared 3x3 convolution as the head and the logits' sigmoid as the output (the loss compares it with
centerness targets).

The squeezed axis is the head's single channel, 1 on every call, but ``reshape(N, -1, 1)`` with a
dynamic N hides it from the export: the TorchScript exporter guards the squeeze with an ``If``.
"""

import torch
from torch import nn


def permute_to_n_hwa_k(tensor: torch.Tensor, k: int) -> torch.Tensor:
    """(N, A*K, H, W) -> (N, H*W*A, K), as detectron2's dense detectors lay out predictions."""
    n, _, h, w = tensor.shape
    tensor = tensor.view(n, -1, k, h, w).permute(0, 3, 4, 1, 2)
    return tensor.reshape(n, -1, k)


class CenternessLevels(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.ctrness = nn.Conv2d(channels, 1, 3, padding=1)

    def forward(self, p3, p4):
        pred_centerness = [permute_to_n_hwa_k(self.ctrness(feature), 1) for feature in (p3, p4)]
        pred_centerness = torch.cat(pred_centerness, dim=1).squeeze(dim=2)
        return pred_centerness.sigmoid()


def build() -> nn.Module:
    return CenternessLevels()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 6, 8, generator=generator), torch.randn(2, 4, 3, 4, generator=generator))


DYNAMIC = {"p3": {0: "batch", 2: "height", 3: "width"}, "p4": {0: "batch", 2: "height4", 3: "width4"}}
