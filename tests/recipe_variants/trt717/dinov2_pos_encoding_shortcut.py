"""Return the position embedding itself when the patch count and a square image match: DINOv2.

Reduced from facebookresearch/dinov2 (GitHub, commit 027a9ac3ac5ac2efcaeef5281519a37996a22af4),
dinov2/models/vision_transformer.py, ``DinoVisionTransformer.interpolate_pos_encoding`` and its
caller ``prepare_tokens_with_masks``: ``npatch = x.shape[1] - 1``, ``N = self.pos_embed.shape[1] - 1``,
``if npatch == N and w == h: return self.pos_embed``, and otherwise the class token split off,
the patch grid resized bicubically to ``(w // patch, h // patch)`` and the two joined again. The
same shortcut is in DINO, iBOT and many ViT repositories derived from them. Written here in our
own words; the original resizes with a scale factor computed with ``float`` of sizes (offset by
0.1), which is another recipe's subject, so this variant passes the output size. The TorchScript
export at a square example whose grid is the embedding's own keeps the shortcut (a
``TracerWarning`` at the ``if``) and adds that embedding at every size.
"""

import math

import torch
from torch import nn


class DinoTokens(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.patch_size = 4
        self.patch_embed = nn.Conv2d(3, 8, 4, stride=4)
        self.cls_token = nn.Parameter(torch.randn(1, 1, 8))
        self.pos_embed = nn.Parameter(torch.randn(1, 1 + 3 * 3, 8))

    def interpolate_pos_encoding(self, x, w, h):
        previous_dtype = x.dtype
        npatch = x.shape[1] - 1
        N = self.pos_embed.shape[1] - 1
        if npatch == N and w == h:
            return self.pos_embed
        pos_embed = self.pos_embed.float()
        class_pos_embed = pos_embed[:, 0]
        patch_pos_embed = pos_embed[:, 1:]
        dim = x.shape[-1]
        w0 = w // self.patch_size
        h0 = h // self.patch_size
        side = int(math.sqrt(N))
        patch_pos_embed = nn.functional.interpolate(
            patch_pos_embed.reshape(1, side, side, dim).permute(0, 3, 1, 2), size=(w0, h0), mode="bicubic")
        patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos_embed.unsqueeze(0), patch_pos_embed), dim=1).to(previous_dtype)

    def forward(self, x):
        B, nc, w, h = x.shape
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        return x + self.interpolate_pos_encoding(x, w, h)


def build() -> nn.Module:
    return DinoTokens()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 12, 12, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
