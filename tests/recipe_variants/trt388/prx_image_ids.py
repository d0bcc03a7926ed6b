"""PRX's patch coordinates: the row of each patch written into every column, the column into every row.

Reduced from Photoroom/PRX @ 1a052fd0eb5cb8a1113e6a9be64b57b79e5986ab, prx/models/prx_layers.py:
``get_image_ids`` (lines 13-17) makes a ``(h // patch_size, w // patch_size, 2)`` tensor of zeros and writes
``img_ids[..., 0] = torch.arange(h // patch_size, device=device)[:, None]`` (line 15: a column into the whole
grid) and ``img_ids[..., 1] = torch.arange(w // patch_size, device=device)[None, :]`` (line 16: a row), then
flattens the grid and repeats it for the batch. ``PRX.process_inputs`` (prx/models/prx.py, line 168) calls it with
the latent's own ``h`` and ``w`` in every forward and embeds the ids as rotary frequencies (``EmbedND``, after
FLUX). Kept: the latent patchified (``img2seq``), the image projection, ``get_image_ids`` in its form, the
rotary embedding of the two axes and its application to the tokens. Reduced: ``img2seq``'s ``unfold`` written as
the view and permute it equals, the rotary angles in float32, no text, timestep or transformer blocks. Written
here in our own words. Both sizes of the grid follow the latent: the TorchScript export broadcasts each arange to
the example's grid.
"""

import torch
from torch import Tensor, nn

DYNAMIC = {"image_latent": {0: "batch", 2: "height", 3: "width"}}
#: The line of the row ids (the rule's finding; the column ids are the next line).
CALL = "img_ids[..., 0] = torch.arange(h // patch_size, device=device)[:, None]"


def get_image_ids(bs: int, h: int, w: int, patch_size: int, device: torch.device) -> Tensor:
    img_ids = torch.zeros(h // patch_size, w // patch_size, 2, device=device)
    img_ids[..., 0] = torch.arange(h // patch_size, device=device)[:, None]
    img_ids[..., 1] = torch.arange(w // patch_size, device=device)[None, :]
    return img_ids.reshape((h // patch_size) * (w // patch_size), 2).unsqueeze(0).repeat(bs, 1, 1)


def img2seq(img: Tensor, patch_size: int) -> Tensor:
    """b c (h ph) (w pw) -> b (h w) (c ph pw)"""
    b, c, h, w = img.shape
    patches = img.view(b, c, h // patch_size, patch_size, w // patch_size, patch_size)
    return patches.permute(0, 2, 4, 1, 3, 5).reshape(b, (h // patch_size) * (w // patch_size), -1)


def rope(pos: Tensor, dim: int, theta: int) -> Tensor:
    """Rotation matrices ``(B, N, dim // 2, 2, 2)`` for the positions ``pos`` ``(B, N)``."""
    scale = torch.arange(0, dim, 2, dtype=torch.float32, device=pos.device) / dim
    omega = 1.0 / (theta ** scale)
    angles = pos.unsqueeze(-1) * omega.unsqueeze(0)
    out = torch.stack([torch.cos(angles), -torch.sin(angles), torch.sin(angles), torch.cos(angles)], dim=-1)
    return out.reshape(*out.shape[:-1], 2, 2)


def apply_rope(xq: Tensor, freqs_cis: Tensor) -> Tensor:
    xq_ = xq.float().reshape(*xq.shape[:-1], -1, 1, 2)
    xq_out = freqs_cis[..., 0] * xq_[..., 0] + freqs_cis[..., 1] * xq_[..., 1]
    return xq_out.reshape(*xq.shape).type_as(xq)


class PatchRoPE(nn.Module):
    def __init__(self, in_channels: int = 4, patch_size: int = 2, hidden_size: int = 16,
                 axes_dim: tuple[int, int] = (8, 8), theta: int = 10_000) -> None:
        super().__init__()
        self.patch_size, self.axes_dim, self.theta = patch_size, axes_dim, theta
        self.img_in = nn.Linear(in_channels * patch_size ** 2, hidden_size)

    def forward(self, image_latent):
        img = self.img_in(img2seq(image_latent, self.patch_size))
        bs, _, h, w = image_latent.shape
        img_ids = get_image_ids(bs, h, w, patch_size=self.patch_size, device=image_latent.device)
        pe = torch.cat([rope(img_ids[:, :, i], self.axes_dim[i], self.theta) for i in range(2)], dim=-3)
        return apply_rope(img, pe)


def build() -> nn.Module:
    return PatchRoPE().eval()


def inputs(generator: torch.Generator, batch: int = 1, height: int = 6, width: int = 8) -> tuple[torch.Tensor, ...]:
    """A latent of 4 channels, ``height`` x ``width`` (multiples of the patch, 2)."""
    return (torch.randn(batch, 4, height, width, generator=generator),)
