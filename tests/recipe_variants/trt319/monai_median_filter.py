"""MONAI's ``median_filter``: every pixel's window is gathered into channels by a convolution with a
binary kernel (one output channel per window position, ``get_binary_kernel``), after a replicate
padding, and the median is taken over that channel axis (``torch.median(features, dim=1)[0]``);
``MedianFilter`` holds the kernel and applies the filter.

Reduced from MONAI 1.6.1 (the PyPI wheel the zoo unpacks), monai/networks/layers/simplelayers.py,
``median_filter`` lines 441-497 (the median at line 495), ``get_binary_kernel`` lines 430-438 and
``MedianFilter`` lines 501-539, for two spatial dimensions. Written here in our own words: the
leading axes are merged with ``reshape(-1, 1, ...)`` where MONAI multiplies them into a tensor
(``torch.prod(convert_to_tensor(oshape))``, which a trace keeps as the example's number), and a
convolution before the filter gives the model weights.
"""

import torch
import torch.nn.functional as F
from torch import nn


def get_binary_kernel(window_size: tuple[int, ...], dtype=torch.float) -> torch.Tensor:
    count = 1
    for size in window_size:
        count *= size
    return torch.diag(torch.ones(count, dtype=dtype)).view(count, 1, *window_size)


def median_filter(in_tensor: torch.Tensor, kernel: torch.Tensor, spatial_dims: int = 2) -> torch.Tensor:
    original_shape = in_tensor.shape
    sshape = original_shape[-spatial_dims:]
    kernel = kernel.to(in_tensor)
    reshaped_input = in_tensor.reshape(-1, 1, *sshape)
    padding = [(k - 1) // 2 for k in reversed(kernel.shape[2:]) for _ in range(2)]
    padded_input = F.pad(reshaped_input, pad=padding, mode="replicate")
    features = F.conv2d(padded_input, kernel, padding=0, stride=1)
    features = features.view(reshaped_input.shape[0], -1, *sshape)
    # the median over the window's positions
    median: torch.Tensor = torch.median(features, dim=1)[0]
    return median.reshape(original_shape)


class MedianFilter(nn.Module):
    def __init__(self, radius: int = 1, spatial_dims: int = 2) -> None:
        super().__init__()
        self.spatial_dims = spatial_dims
        self.window = tuple(1 + 2 * radius for _ in range(spatial_dims))
        self.register_buffer("kernel", get_binary_kernel(self.window))

    def forward(self, in_tensor: torch.Tensor) -> torch.Tensor:
        return median_filter(in_tensor, kernel=self.kernel, spatial_dims=self.spatial_dims)


class FilteredFeatures(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.filter = MedianFilter(radius=1)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.filter(self.conv(image))


def build() -> nn.Module:
    return FilteredFeatures()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 2, 6, 8, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
