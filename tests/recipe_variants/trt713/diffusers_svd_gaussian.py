"""The same half-step for an even window in diffusers' copy of the Gaussian (``_gaussian``, the blur
before Stable Video Diffusion's antialiased resize), with one sigma per image.

Reduced from huggingface/diffusers @ 00cb9c12d508dbbdeae3fcf4a5d87b7bc7486cac,
src/diffusers/pipelines/stable_video_diffusion/pipeline_stable_video_diffusion.py (``_gaussian``: ``x =
(torch.arange(window_size, device=sigma.device, dtype=sigma.dtype) - window_size // 2).expand(batch_size,
-1)``, ``if window_size % 2 == 0: x = x + 0.5``; called by ``_gaussian_blur2d``), written here in our own
words. Here the window is the input's height and each image brings its own sigma.
"""

import torch
from torch import nn


class PerImageBlurWeights(nn.Module):
    def rows(self, window_size: int, sigma: torch.Tensor) -> torch.Tensor:
        """One normalised bell per image, ``window_size`` wide (the blur's weights along the height)."""
        if isinstance(sigma, float):
            sigma = torch.tensor([[sigma]])
        steps = torch.arange(window_size, device=sigma.device, dtype=sigma.dtype) - window_size // 2
        steps = steps.expand(sigma.shape[0], -1)
        if window_size % 2 == 0:
            steps = steps + 0.5
        bell = (-steps.pow(2.0) / (2 * sigma.pow(2.0))).exp()
        return bell / bell.sum(-1, keepdim=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        sigma = x.flatten(1).std(dim=1, keepdim=True) + 0.5
        rows = self.rows(x.shape[-2], sigma)
        return x * rows[:, None, :, None]


def build() -> nn.Module:
    return PerImageBlurWeights()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 6, 5, generator=generator),)


DYNAMIC = {"x": {0: "b", 2: "h", 3: "w"}}
