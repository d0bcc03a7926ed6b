"""ComfyUI's Krea 2 single-stream DiT: the image tokens' rotary positions, a row and a column written into a grid.

Reduced from comfyanonymous/ComfyUI @ 08381b1a9d037ec9aa33f5943bfa0414d78f1e22, comfy/ldm/krea2/model.py:
``SingleStreamDiT._forward`` patchifies the latent into ``h_ x w_`` tokens, puts the text tokens before them,
and builds the positions in every call: ``txtpos`` zeros for the text, ``imgids = torch.zeros(h_, w_, 3)`` with
``imgids[..., 1] = torch.arange(h_, device=device, dtype=torch.float32)[:, None]`` (line 262: the row index into
the whole grid) and ``imgids[..., 2] = torch.arange(w_, ...)[None, :]`` (line 263: the column index), repeated
for the batch and concatenated after the text's; ``self.pe_embedder(pos)`` (FLUX's ``EmbedND``) turns them into
rotary frequencies for the blocks. Kept: the patchified latent and its projection, the text tokens projected
and placed first, the two position writes in their form, the concatenation and the three-axis rotary
frequencies applied to the joint sequence. Reduced: no padding to the patch (the sizes are multiples of it), no
text fusion, timestep or transformer blocks; the rotary angles in float32. Written here in our own words. The
latent's height and width are dynamic: the TorchScript export broadcasts each arange to the example's grid.
"""

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}, "context": {0: "batch", 1: "tokens"}}
#: The line of the row index (the rule's finding; the column index is the next line).
CALL = "imgids[..., 1] = torch.arange(h_, device=device, dtype=torch.float32)[:, None]"


def rope(pos: torch.Tensor, dim: int, theta: int) -> torch.Tensor:
    """Rotation matrices ``(B, L, dim // 2, 2, 2)`` for the positions ``pos`` ``(B, L)``."""
    scale = torch.arange(0, dim, 2, dtype=torch.float32, device=pos.device) / dim
    angles = pos.unsqueeze(-1) * (1.0 / (theta ** scale))
    out = torch.stack([torch.cos(angles), -torch.sin(angles), torch.sin(angles), torch.cos(angles)], dim=-1)
    return out.reshape(*out.shape[:-1], 2, 2)


class SingleStreamPositions(nn.Module):
    def __init__(self, channels: int = 4, patch: int = 2, features: int = 24, txtdim: int = 12,
                 axes: tuple[int, int, int] = (8, 8, 8), theta: int = 1000) -> None:
        super().__init__()
        self.patch, self.channels, self.axes, self.theta = patch, channels, axes, theta
        self.first = nn.Linear(channels * patch ** 2, features)
        self.txtmlp = nn.Linear(txtdim, features)

    def forward(self, x, context):
        bs, c, H, W = x.shape
        patch = self.patch
        h_, w_ = H // patch, W // patch
        img = x.view(bs, c, h_, patch, w_, patch).permute(0, 2, 4, 1, 3, 5).reshape(bs, h_ * w_, c * patch * patch)
        img = self.first(img)
        context = self.txtmlp(context)

        txtlen = context.shape[1]
        combined = torch.cat((context, img), dim=1)

        device = combined.device
        txtpos = torch.zeros(bs, txtlen, 3, device=device, dtype=torch.float32)
        imgids = torch.zeros(h_, w_, 3, device=device, dtype=torch.float32)
        imgids[..., 1] = torch.arange(h_, device=device, dtype=torch.float32)[:, None]
        imgids[..., 2] = torch.arange(w_, device=device, dtype=torch.float32)[None, :]
        imgpos = imgids.reshape(1, h_ * w_, 3).repeat(bs, 1, 1)
        pos = torch.cat((txtpos, imgpos), dim=1)

        freqs = torch.cat([rope(pos[..., i], self.axes[i], self.theta) for i in range(3)], dim=-3)
        pairs = combined.reshape(*combined.shape[:-1], -1, 1, 2)
        return (freqs[..., 0] * pairs[..., 0] + freqs[..., 1] * pairs[..., 1]).reshape(combined.shape)


def build() -> nn.Module:
    return SingleStreamPositions().eval()


def inputs(generator: torch.Generator, batch: int = 1, height: int = 6, width: int = 4,
           tokens: int = 3) -> tuple[torch.Tensor, ...]:
    """A latent of 4 channels, ``height`` x ``width`` (multiples of the patch, 2), and ``tokens`` text tokens."""
    return (torch.randn(batch, 4, height, width, generator=generator),
            torch.randn(batch, tokens, 12, generator=generator))
