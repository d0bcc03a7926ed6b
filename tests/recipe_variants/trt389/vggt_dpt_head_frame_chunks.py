"""VGGT's DPT head: every frame's dense prediction at once, or a few frames at a time, by the number of frames.

Reduced from facebookresearch/vggt @ ab9d1d2a2cb4f5d38ebf6a436961646b826491f7, vggt/heads/dpt_head.py,
``DPTHead.forward`` (lines 129-175): with ``B, S, _, H, W = images.shape``, the head returns
``self._forward_impl(...)`` for the whole sequence when ``frames_chunk_size is None or frames_chunk_size >= S``;
otherwise it runs ``_forward_impl`` on the frames ``range(0, S, frames_chunk_size)`` at a time (each chunk slicing
the images and the tokens to ``[frames_start_idx:frames_end_idx]``) and concatenates the chunks' predictions and
confidences on the frame axis. ``_forward_impl`` (lines 177-240) is per frame: the frames are merged into the batch
(``view(B * S, ...)``), normalised, projected, upsampled and activated, then split back to ``(B, S, ...)``.

Written here in our own words: the aggregator's token list is one linear patch embedding of the images, the DPT
fusion stack is one projection, one upsampling and one output convolution, and the ``inv_log`` / ``expp1`` heads
are ``sign(x) * (exp(|x|) - 1)`` for the depth and ``1 + exp`` for the confidence; the chunk
size is 2 (VGGT's default is 8) so that the example's 4 frames take the chunked path, and the head is called with
its default chunk size, as ``VGGT.forward`` calls its depth head.

The form differs from the other TRT389 variants: the whole computation is an early ``return`` with no ``else`` (the
chunks are the statements after it), the size test is written bound first (``frames_chunk_size >= S``) after a
``None`` switch joined by ``or``. Traced at 4 frames, the graph holds two chunks of 2 frames, both ends read as
constants (``min(frames_start_idx + frames_chunk_size, S)`` takes the number where it is not larger): at 5 frames the
graph drops the fifth. The whole head follows any number of frames, which is what a graph deployed for
sequences of other lengths needs.
"""

import torch
import torch.nn.functional as F
from torch import nn


class DPTHead(nn.Module):
    def __init__(self, dim: int = 8, patch_size: int = 2) -> None:
        super().__init__()
        self.patch_size = patch_size
        self.norm = nn.LayerNorm(dim)
        self.project = nn.Conv2d(dim, dim, 1)
        self.output_conv = nn.Conv2d(dim, 2, 3, padding=1)

    def forward(self, tokens, images, frames_chunk_size: int = 2):
        B, S, _, H, W = images.shape

        if frames_chunk_size is None or frames_chunk_size >= S:
            return self._forward_impl(tokens, images)

        assert frames_chunk_size > 0
        all_preds = []
        all_conf = []
        for frames_start_idx in range(0, S, frames_chunk_size):
            frames_end_idx = min(frames_start_idx + frames_chunk_size, S)
            chunk_preds, chunk_conf = self._forward_impl(tokens, images, frames_start_idx, frames_end_idx)
            all_preds.append(chunk_preds)
            all_conf.append(chunk_conf)
        return torch.cat(all_preds, dim=1), torch.cat(all_conf, dim=1)

    def _forward_impl(self, tokens, images, frames_start_idx=None, frames_end_idx=None):
        if frames_start_idx is not None and frames_end_idx is not None:
            images = images[:, frames_start_idx:frames_end_idx]
            tokens = tokens[:, frames_start_idx:frames_end_idx]
        B, S, _, H, W = images.shape
        patch_h, patch_w = H // self.patch_size, W // self.patch_size
        x = tokens.reshape(B * S, -1, tokens.shape[-1])
        x = self.norm(x)
        x = x.permute(0, 2, 1).reshape(x.shape[0], x.shape[-1], patch_h, patch_w)
        x = self.project(x)
        x = F.interpolate(x, scale_factor=float(self.patch_size), mode="bilinear", align_corners=True)
        out = self.output_conv(x)
        preds = torch.sign(out[:, :1]) * (torch.exp(out[:, :1].abs()) - 1)
        conf = 1 + out[:, 1:].exp()
        preds = preds.view(B, S, *preds.shape[1:])
        conf = conf.view(B, S, *conf.shape[1:])
        return preds, conf


class DepthFromFrames(nn.Module):
    def __init__(self, dim: int = 8, patch_size: int = 2) -> None:
        super().__init__()
        self.patch_size = patch_size
        self.embed = nn.Linear(3 * patch_size * patch_size, dim)
        self.depth_head = DPTHead(dim, patch_size)

    def forward(self, images):
        B, S, C, H, W = images.shape
        p = self.patch_size
        patches = images.reshape(B, S, C, H // p, p, W // p, p).permute(0, 1, 3, 5, 2, 4, 6)
        tokens = self.embed(patches.reshape(B, S, (H // p) * (W // p), C * p * p))
        return self.depth_head(tokens, images)


def build() -> nn.Module:
    torch.manual_seed(0)
    return DepthFromFrames().eval()


def inputs(generator: torch.Generator, batch: int = 1, frames: int = 4, height: int = 6,
           width: int = 8) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, frames, 3, height, width, generator=generator),)


DYNAMIC = {"images": {0: "batch", 1: "frames", 3: "height", 4: "width"}}
CALL = "if frames_chunk_size is None or frames_chunk_size >= S:"
