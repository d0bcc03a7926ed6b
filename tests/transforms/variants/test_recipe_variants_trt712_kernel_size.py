"""TRT712 on real-code variants of a kernel whose size follows the image's: where the number reaches a
`range` loop that builds the kernel (in a function it is passed to, or as a comprehension there), no
fix is offered (kept traced, the number meets `range` again and the trace keeps the example's loop) and
the finding names the loop and the step by hand; where the kernel is built with `torch.arange` of the
number, or its size is fixed when the module is built, the finding (or its absence) is unchanged.

Each variant is our own small re-writing of the cited form (our names and code).
"""

from __future__ import annotations

import warnings

import torch

from support import load
from trtcodemod.engine import Options, check_source
from trtcodemod.rules import Safety

STEP = "make the number a constant, or declare the axes static and export one engine per deployed size"


def _found(code: str) -> dict[int, object]:
    return {f.line: f for f in check_source(code.encode(), "m.py", Options(select=("TRT712",)))}


def _traced_at_one_size_only(fn, small: torch.Tensor, big: torch.Tensor) -> None:
    """The original's trace equals eager mode at the traced size (also on zeros and negatives) and
    not at another: the kernel's size is baked."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(fn, (small,))
    for x in (small, torch.zeros_like(small), -small):
        assert torch.allclose(traced(x), fn(x), atol=1e-6)
    assert traced(big).shape != fn(big).shape or not torch.allclose(traced(big), fn(big), atol=1e-6)


# pytorch_filters 0.1.1 (PyPI), pytorch_filters/main.py:59-75 (`variable_gaussian_blur`: a Python double
# loop over `range(size)` fills the kernel) and :221-235 (`ex_difference_of_gaussians`: sigma scaled by
# `(H + W) / 2 / 300`, `size1 = 2 * int(3 * scaled_simga) + 1`).
LOOP_IN_CALLEE = '''
import math
import torch
import torch.nn.functional as F


def fill_blur(image, size, sigma):
    kernel = torch.empty((size, size))
    mid = size // 2
    for r in range(size):
        for c in range(size):
            kernel[r, c] = math.exp(-((r - mid) ** 2 + (c - mid) ** 2) / (2 * sigma ** 2))
    return F.conv2d(image, (kernel / kernel.sum())[None, None], padding=mid)


def dog(image: torch.Tensor) -> torch.Tensor:
    _, _, h, w = image.shape
    s = (h + w) / 2 / 24
    return fill_blur(image, 2 * int(3 * s) + 1, s) - fill_blur(image, 2 * int(4.8 * s) + 1, 1.6 * s)
'''

# tumble-weed/pytorch_gaussian_filter_2d@3644883917f9b93b3cf7f925f01185ae9a8ae7a2 blur.py:4-21
# (`gaussian_blur(input_tensor, kernel_size, sigma=None)`: the kernel is a nested comprehension over
# `range(kernel_size)`); the caller here picks the kernel size from the image's width.
COMPREHENSION_IN_CALLEE = '''
import torch
import torch.nn.functional as F


def comp_blur(image, kernel_size):
    sigma = (kernel_size - 1) / 6
    k = torch.tensor([[((x - kernel_size // 2) / sigma) ** 2 + ((y - kernel_size // 2) / sigma) ** 2
                       for x in range(kernel_size)] for y in range(kernel_size)])
    k = torch.exp(-k / 2)
    return F.conv2d(image, (k / k.sum())[None, None], padding=kernel_size // 2)


def smooth(image: torch.Tensor) -> torch.Tensor:
    width = image.shape[-1]
    return comp_blur(image, 2 * int(width / 16) + 1)
'''

# kornia 0.9.0 (PyPI), kornia/geometry/transform/affwarp.py:724-740 (`resize(..., antialias=True)`:
# `ks = int(max(2.0 * 2 * sigmas[0], 3)), ...` from the factor of input to output size, then
# `gaussian_blur2d(input, ks, sigmas)`, whose kernel is `torch.arange` of the size,
# kornia/filters/kernels.py:789); the same form in huggingface/diffusers@8dc31e8e3c173bfd399217fde461a32f8d440b86
# src/diffusers/pipelines/stable_video_diffusion/pipeline_stable_video_diffusion.py
# (`_resize_with_antialiasing`, `_gaussian(window_size, sigma)` with `torch.arange(window_size)`).
ARANGE_IN_CALLEE = '''
import torch
import torch.nn.functional as F


def arange_blur(image, size, sigma):
    x = torch.arange(size, dtype=image.dtype) - size // 2
    g = torch.exp(-x ** 2 / (2 * sigma ** 2))
    g = g / g.sum()
    return F.conv2d(image, (g[:, None] * g[None, :])[None, None], padding=size // 2)


def shrink(image: torch.Tensor) -> torch.Tensor:
    h = image.shape[-2]
    sigma = max((h / 32 - 1.0) / 2.0, 0.001)
    ks = int(max(2.0 * 2 * sigma, 3))
    return F.interpolate(arange_blur(image, ks, sigma), size=(32, 32), mode="bilinear")
'''

# BangguWu/ECANet@4329104caed82ae39825d7463dfee6242cccd432 models/eca_module.py:12-15 (`eca_layer(channel,
# k_size)`: the 1-D kernel's size is the constructor's, adapted to the channel count when the network
# is built, `nn.Conv1d(1, 1, kernel_size=k_size, padding=(k_size - 1) // 2)`): no size read at run time.
FROM_CHANNELS = '''
import math
import torch
from torch import nn


class ChannelGate(nn.Module):
    def __init__(self, channels: int, gamma: int = 2, b: int = 1):
        super().__init__()
        t = int(abs((math.log2(channels) + b) / gamma))
        k = t if t % 2 else t + 1
        self.conv = nn.Conv1d(1, 1, kernel_size=k, padding=(k - 1) // 2, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x.mean((2, 3), keepdim=True)
        y = self.conv(y.squeeze(-1).transpose(-1, -2)).transpose(-1, -2).unsqueeze(-1)
        return x * torch.sigmoid(y)
'''


def test_a_python_loop_in_the_callee_gets_no_fix() -> None:
    found = check_source(LOOP_IN_CALLEE.encode(), "m.py", Options(select=("TRT712",)))
    assert [f.line for f in found] == [19, 19]  # both kernel sizes of the difference of Gaussians
    for finding in found:
        assert finding.fix == Safety.NONE and "`for ... in range(size)` in `fill_blur`" in finding.message
        assert STEP in finding.message
    _traced_at_one_size_only(load(LOOP_IN_CALLEE, "dog"), torch.rand(1, 1, 24, 24), torch.rand(1, 1, 60, 60))


def test_a_comprehension_in_the_callee_gets_no_fix() -> None:
    found = _found(COMPREHENSION_IN_CALLEE)
    assert sorted(found) == [16]
    assert found[16].fix == Safety.NONE and "`for ... in range(kernel_size)` in `comp_blur`" in found[16].message
    _traced_at_one_size_only(load(COMPREHENSION_IN_CALLEE, "smooth"), torch.rand(1, 1, 8, 32),
                             torch.rand(1, 1, 8, 80))


def test_an_arange_kernel_keeps_the_fix() -> None:
    """No loop reads the number: the kernel is `torch.arange` of it, which a trace keeps on the traced
    size; the finding and its fix are the rule's as before."""
    found = _found(ARANGE_IN_CALLEE)
    assert found and all(f.fix == Safety.UNSAFE and "trip count" not in f.message for f in found.values())


def test_a_kernel_size_from_the_channel_count_is_no_finding() -> None:
    """ECA's kernel size is fixed when the module is built (channels are the architecture's): nothing
    the trace reads at run time, no finding, and the trace is right at every spatial size."""
    assert _found(FROM_CHANNELS) == {}
    gate = load(FROM_CHANNELS, "ChannelGate")(64).eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(gate, (torch.rand(1, 64, 8, 8),))
    for x in (torch.rand(2, 64, 13, 5), torch.zeros(1, 64, 3, 3), -torch.rand(1, 64, 9, 9)):
        assert torch.allclose(traced(x), gate(x))
