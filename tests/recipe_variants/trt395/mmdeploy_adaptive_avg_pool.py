"""MMDeploy's rewrite of ``F.adaptive_avg_pool2d``: windows from the input's size, pooled on a multi-line call.

Reduced from open-mmlab/mmdeploy @ 3f8604bd72e8e15d06b2e0552fe2fdb8f8de33c4,
mmdeploy/pytorch/functions/adaptive_pool.py, lines 10-34, ``adaptive_avg_pool2d__default``: the output size made a
pair with ``_pair``, a global pooling (``1 x 1``) left to the original function, otherwise ``size =
input.shape[2:]``, ``k = [int(size[i] / output_size[i]) for i in range(0, len(size))]`` and ``F.avg_pool2d``
called over several lines with ``kernel_size=k``, ``stride=k``, ``padding=0``, ``ceil_mode=False`` and
``count_include_pad=False``. Kept: the parameter named ``input``, the ``_pair`` of the output size, the test for
``1 x 1`` read through ``int()``, the list comprehension over the traced sizes and the multi-line keyword call.
Reduced: the function rewriter, its context and the dynamic-shape warning become a module whose forward calls the
rewritten function after a 1x1 convolution (MMSegmentation's pooling heads call it this way); 4 channels, an
output size of 2 x 3. Written here in our own words.

Why it matters for export: MMDeploy swaps in this function so adaptive pooling exports, yet ``int()`` of the
traced size makes the windows Python numbers: the TorchScript graph pools the example's windows at every size
(the pooled grid is wrong at any other input size); kept traced, the window stops the exporter, whose pooling
symbolic takes constant kernels only.
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.modules.utils import _pair

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
CALL = "out = F.avg_pool2d("


def adaptive_avg_pool2d(input, output_size):
    output_size = _pair(output_size)
    if int(output_size[0]) == int(output_size[1]) == 1:
        out = F.adaptive_avg_pool2d(input, output_size)
    else:
        size = input.shape[2:]
        k = [int(size[i] / output_size[i]) for i in range(0, len(size))]
        out = F.avg_pool2d(
            input,
            kernel_size=k,
            stride=k,
            padding=0,
            ceil_mode=False,
            count_include_pad=False)
    return out


class PooledHead(nn.Module):
    def __init__(self, channels: int = 4, output_size=(2, 3)) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 1)
        self.output_size = output_size

    def forward(self, x):
        return adaptive_avg_pool2d(self.conv(x), self.output_size)


def build() -> nn.Module:
    torch.manual_seed(0)
    return PooledHead().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 20, width: int = 27) -> tuple[torch.Tensor, ...]:
    """``batch`` feature maps of 4 channels, ``height`` x ``width`` (standard normal values)."""
    return (torch.randn(batch, 4, height, width, generator=generator),)
