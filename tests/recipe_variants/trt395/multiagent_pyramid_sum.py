"""MultiAgentPerception's pyramid pooling, element-wise sum fusion: windows bound in one branch of an ``if``.

Reduced from GT-RIPL/MultiAgentPerception @ 4ef300547a7f7af2676a034f7cf742b009f57d99, ptsemseg/models/utils.py,
``pyramidPooling.forward``, lines 547-583: ``h, w = x.shape[2:]``; the window and stride lists built from
``int(h / pool_size)`` in the ``if self.training or self.model_name != "icnet"`` branch, literal windows for
ICNet's 1025 x 2049 evaluation in the ``else``; then, for the ``"sum"`` fusion (ICNet's), ``F.avg_pool2d(x,
k_sizes[i], stride=strides[i], padding=0)`` per path, the path's convolution unless the model is ICNet, an
upsampling back to ``(h, w)`` and ``pp_sum = pp_sum + out``. Kept: the two branches that bind ``k_sizes`` (the
computed one runs here), the sum fusion starting from the input, the convolution skipped by model name, the
upsampling to the traced size. Reduced: the ``"cat"`` fusion (pytorch-semseg's PSPNet, another variant here), batch
norm in the path convolutions, 8 channels; built as a PSPNet-named pyramid with the sum fusion so that the computed
branch runs in evaluation (ICNet itself runs it while training). Written here in our own words.

Why it matters for export: ``int()`` of the traced size makes the windows Python numbers, so the TorchScript graph
pools the example's windows at every size (the pyramid's bins are wrong at any other input size); kept traced, the
windows stop the exporter, whose pooling symbolic takes constant kernels only. The literal windows of the other
branch are why the rule follows every binding of ``k_sizes``, not only the last one.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
CALL = "out = F.avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)"


class PyramidSum(nn.Module):
    def __init__(self, channels: int = 8, pool_sizes=(6, 3, 2, 1), model_name: str = "pspnet") -> None:
        super().__init__()
        self.path_module_list = nn.ModuleList(nn.Conv2d(channels, channels, 1) for _ in pool_sizes)
        self.pool_sizes = pool_sizes
        self.model_name = model_name

    def forward(self, x):
        h, w = x.shape[2:]
        if self.training or self.model_name != "icnet":
            k_sizes = []
            strides = []
            for pool_size in self.pool_sizes:
                k_sizes.append((int(h / pool_size), int(w / pool_size)))
                strides.append((int(h / pool_size), int(w / pool_size)))
        else:
            k_sizes = [(8, 15), (13, 25), (17, 33), (33, 65)]
            strides = [(5, 10), (10, 20), (16, 32), (33, 65)]
        pp_sum = x
        for i, (module, pool_size) in enumerate(zip(self.path_module_list, self.pool_sizes)):
            out = F.avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)
            if self.model_name != "icnet":
                out = module(out)
            out = F.interpolate(out, size=(h, w), mode="bilinear", align_corners=True)
            pp_sum = pp_sum + out
        return pp_sum


def build() -> nn.Module:
    torch.manual_seed(0)
    return PyramidSum().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 24, width: int = 30) -> tuple[torch.Tensor, ...]:
    """``batch`` feature maps of 8 channels, ``height`` x ``width`` (standard normal values)."""
    return (torch.randn(batch, 8, height, width, generator=generator),)
