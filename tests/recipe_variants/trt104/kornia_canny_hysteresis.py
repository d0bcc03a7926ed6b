"""kornia's ``canny`` tracks weak edges by hysteresis: ``while ((edges_old - edges).abs() !=
0).any():`` a weak pixel next to a strong one becomes strong, until nothing changes; after the
loop ``edges = hysteresis_magnitude``, a name the loop's body first binds.

Reduced from kornia/kornia at commit b4f5a78a13891c7ac4c1cd9695941380273e981d,
kornia/filters/canny.py, ``canny`` (lines 34-160; the hysteresis loop at 142-158). Written here
in our own words: the Gaussian blur, Sobel gradients and non-maximum suppression before the
thresholds are replaced by a finite-difference gradient magnitude, and the eight one-neighbour
kernels of ``get_hysteresis_kernel`` by one 3x3 kernel of ones with the centre 0 (a weak pixel
with any strong neighbour). The loop and the name read after it are kept as they are. The
module-level function has annotated parameters, but TorchScript rejects it: where the loop runs
zero times ``hysteresis_magnitude`` is undefined, so TRT104 reports the loop and does not script
the function.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def canny(input: torch.Tensor, low_threshold: float = 0.1, high_threshold: float = 0.2,
          hysteresis: bool = True, eps: float = 1e-6) -> torch.Tensor:
    dtype = input.dtype
    gx = F.pad(input[..., :, 1:] - input[..., :, :-1], (0, 1))
    gy = F.pad(input[..., 1:, :] - input[..., :-1, :], (0, 0, 0, 1))
    magnitude = torch.sqrt(gx * gx + gy * gy + eps)
    low = magnitude > low_threshold
    high = magnitude > high_threshold
    edges = (low * 0.5 + high * 0.5).to(dtype)
    if hysteresis:
        edges_old = -torch.ones(edges.shape, device=edges.device, dtype=dtype)
        kernel = torch.ones(1, 1, 3, 3, device=edges.device, dtype=dtype)
        kernel[..., 1, 1] = 0
        while ((edges_old - edges).abs() != 0).any():
            weak = (edges == 0.5).float()
            strong = (edges == 1).float()
            hysteresis_magnitude = F.conv2d(strong, kernel, padding=1)
            hysteresis_magnitude = (hysteresis_magnitude > 0).to(dtype)
            hysteresis_magnitude = hysteresis_magnitude * weak + strong
            edges_old = edges.clone()
            edges = hysteresis_magnitude + (hysteresis_magnitude == 0) * weak * 0.5
        edges = hysteresis_magnitude
    return edges


class Canny(nn.Module):
    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return canny(image, 0.3, 0.9)


def build() -> nn.Module:
    return Canny()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # a strong pixel at one end of a weak ramp: each pass of the loop grows the edge by one pixel
    image = torch.zeros(1, 1, 6, 8)
    image[0, 0, 2, 1:5] = torch.tensor([0.25, 0.5, 0.75, 2.0])
    return (image,)


DYNAMIC = {"image": {2: "height", 3: "width"}}
