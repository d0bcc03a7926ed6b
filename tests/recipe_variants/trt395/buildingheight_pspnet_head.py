"""BuildingHeightModel's PSPNet head: pyramid windows from the size, pooled through a caller's whole network head.

Reduced from lauraset/BuildingHeightModel @ d13d16a02dfdfa042d63492009a7cc8e46032170: ptsemseg/models/utils.py,
``pyramidPooling.forward``, lines 578-602 (``h, w = x.shape[2:]``, the windows and strides appended as
``(int(h / pool_size), int(w / pool_size))`` in the branch taken by every model but an evaluating ICNet, literal
windows in the other, then per path ``F.avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)``, the path
convolution, an upsampling to ``(h, w)`` and a concatenation with the input), as ptsemseg/models/pspnet.py line 67
builds it (``pyramidPooling(2048, [6, 3, 2, 1])``) and its forward calls it between the dilated residual blocks and
``cbr_final``. Kept: the branch on ``self.training`` and the model name, the pooling, the path convolution skipped
for ICNet, the concatenation, the 3x3 convolution after the pyramid and the final upsampling to the input's own
size (``inp_shape = x.shape[2:]``). Reduced: the ResNet stem and residual blocks to one strided 3x3 convolution,
batch norm, dropout, 8 channels, the ``"sum"`` fusion (another variant here). Written here in our own words.

Why it matters for export: ``int()`` of the traced size makes the windows Python numbers, so the TorchScript graph
pools the example's windows at every size (the pyramid's bins are wrong at any other input size); kept traced, the
windows stop the exporter, whose pooling symbolic takes constant kernels only.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
CALL = "out = F.avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)"


class PyramidPooling(nn.Module):
    def __init__(self, in_channels: int, pool_sizes, model_name: str = "pspnet") -> None:
        super().__init__()
        self.path_module_list = nn.ModuleList(
            nn.Conv2d(in_channels, in_channels // len(pool_sizes), 1) for _ in pool_sizes)
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
        output_slices = [x]
        for i, (module, pool_size) in enumerate(zip(self.path_module_list, self.pool_sizes)):
            out = F.avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)
            if self.model_name != "icnet":
                out = module(out)
            out = F.interpolate(out, size=(h, w), mode="bilinear", align_corners=True)
            output_slices.append(out)
        return torch.cat(output_slices, dim=1)


class SmallPSPNet(nn.Module):
    def __init__(self, channels: int = 8, classes: int = 3) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 3, stride=2, padding=1)
        self.pyramid_pooling = PyramidPooling(channels, [6, 3, 2, 1])
        self.cbr_final = nn.Conv2d(2 * channels, channels, 3, padding=1)
        self.classification = nn.Conv2d(channels, classes, 1)

    def forward(self, x):
        inp_shape = x.shape[2:]
        x = F.relu(self.stem(x))
        x = self.pyramid_pooling(x)
        x = F.relu(self.cbr_final(x))
        x = self.classification(x)
        return F.interpolate(x, size=inp_shape, mode="bilinear", align_corners=True)


def build() -> nn.Module:
    torch.manual_seed(0)
    return SmallPSPNet().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 48, width: int = 60) -> tuple[torch.Tensor, ...]:
    """``batch`` RGB images, ``height`` x ``width`` (standard normal values)."""
    return (torch.randn(batch, 3, height, width, generator=generator),)
