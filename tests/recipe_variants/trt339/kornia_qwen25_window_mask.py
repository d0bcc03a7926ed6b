"""kornia's Qwen2.5-VL vision tower: the window-attention mask over the patch grid.

Reduced from kornia 0.9.0 (the pinned wheel), kornia/models/qwen25/vision.py,
``Qwen25VisionTransformer._window_mask`` (lines 298-305), ``forward`` (lines 307-332) and
``_merge_order`` (lines 49-56). The image's patch grid ``gh x gw`` (its sizes over the patch
size) is cut into windows of ``window_size // patch_size`` patches; the number of windows across
is the ceiling written ``windows_w = -(-gw // patches_per_window)``; each patch's window id is
``row_window * windows_w + col_window``, both flattened in the merge order, and two patches
attend to each other where their ids are equal. Under the TorchScript exporter ``gw`` is a
traced size and the ``//`` a truncating Div: ``-(-6 // 4)`` is 1 instead of 2 and the windows
of different columns share ids, at the traced size too. Written here in our own words with a
small patch size, window and width, one attention block with the mask (the rotary tables, the
MLP and the merger left out), and without the check that the sizes are multiples of the merge
unit (the inputs are).
"""

import torch
from torch import nn


def _merge_order(grid: torch.Tensor, merge_size: int) -> torch.Tensor:
    gh, gw = grid.shape
    return grid.reshape(gh // merge_size, merge_size, gw // merge_size, merge_size).permute(0, 2, 1, 3).flatten()


class WindowedVisionTower(nn.Module):
    def __init__(self, patch_size=2, spatial_merge_size=2, window_size=8, hidden_size=8, in_channels=3) -> None:
        super().__init__()
        self.patch_size = patch_size
        self.spatial_merge_size = spatial_merge_size
        self.window_size = window_size
        self.hidden_size = hidden_size
        self.patch_embed = nn.Conv2d(in_channels, hidden_size, patch_size, stride=patch_size, bias=False)
        self.qkv = nn.Linear(hidden_size, 3 * hidden_size)
        self.proj = nn.Linear(hidden_size, hidden_size)

    def _window_mask(self, gh: int, gw: int, device: torch.device) -> torch.Tensor:
        patches_per_window = self.window_size // self.patch_size
        windows_w = -(-gw // patches_per_window)
        row_window = torch.arange(gh, device=device) // patches_per_window
        col_window = torch.arange(gw, device=device) // patches_per_window
        window = _merge_order(row_window.unsqueeze(1) * windows_w + col_window.unsqueeze(0), self.spatial_merge_size)
        return window.unsqueeze(1) == window.unsqueeze(0)

    def _embed(self, images: torch.Tensor, gh: int, gw: int) -> torch.Tensor:
        x = self.patch_embed(images).flatten(2).transpose(1, 2)  # (B, gh * gw, D) in raster order
        order = _merge_order(torch.arange(gh * gw, device=images.device).view(gh, gw), self.spatial_merge_size)
        return x[:, order]

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        h, w = images.shape[-2:]
        gh, gw = h // self.patch_size, w // self.patch_size
        x = self._embed(images, gh, gw)
        window_mask = self._window_mask(gh, gw, images.device)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2) / self.hidden_size ** 0.5
        scores = scores.masked_fill(~window_mask, float("-inf"))
        return x + self.proj(scores.softmax(dim=-1) @ v)


def build() -> nn.Module:
    return WindowedVisionTower().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # 16 x 12 pixels: an 8 x 6 patch grid, 2 x 2 windows (those of the second column half full).
    return (torch.randn(2, 3, 16, 12, generator=generator),)


DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
