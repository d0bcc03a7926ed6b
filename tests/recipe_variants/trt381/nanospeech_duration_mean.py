"""nanospeech's duration predictor: the mean over the frames a length mask keeps, with einx's where and divide.

Reduced from lucasnewman/nanospeech @ d89cd9b8e4e5b04158bd43b09d8dc067044fcbc5, nanospeech/nanospeech_torch.py:
``DurationPredictor.forward`` (lines 812-869) turns the batch's frame counts into a mask ``lens_to_mask(lens,
length=seq_len)`` (line 843; the helper, lines 48-55, compares an arange with the lengths), zeroes the padded frames of
the mel input (lines 856-860), runs its transformer and pools with ``maybe_masked_mean`` (line 864), which writes
``einx.where("b n, b n d, -> b n d", mask, t, 0.0)`` and ``einx.divide("b d, b -> b d", num, den.clamp(min=1.0))``
(lines 672-680) before the head predicts a duration in seconds. The number of frames is the length of the reference
audio and the batch is how many prompts are timed at once: both differ per call. Kept: the length mask, the zeroed
input, the masked mean with its two einx calls, the softplus head. Reduced: the transformer is one linear layer, no
text and no training branch (``return_loss``); einops' ``repeat`` of the mask over the channels is ``expand`` and
its ``reduce`` sums are ``sum``. Written here in our own words.
"""

import einx
import torch
from torch import nn

DYNAMIC = {"inp": {0: "b", 1: "n"}, "lens": {0: "b"}}
#: The line of the masked fill (the rule's first finding).
CALL = 't = einx.where("b n, b n d, -> b n d", mask, t, 0.0)'


def lens_to_mask(t, length):
    seq = torch.arange(length, device=t.device)
    return seq[None, :] < t[:, None]


def maybe_masked_mean(t, mask=None):
    if mask is None:
        return t.mean(dim=1)
    t = einx.where("b n, b n d, -> b n d", mask, t, 0.0)
    num = t.sum(dim=1)
    den = mask.float().sum(dim=-1)
    return einx.divide("b d, b -> b d", num, den.clamp(min=1.0))


class DurationPredictor(nn.Module):
    def __init__(self, num_channels: int = 6, dim: int = 8):
        super().__init__()
        self.num_channels = num_channels
        self.transformer = nn.Linear(num_channels, dim)
        self.to_pred = nn.Sequential(nn.Linear(dim, 1, bias=False), nn.Softplus())

    def forward(self, inp, lens):
        batch, seq_len = inp.shape[:2]
        mask = lens_to_mask(lens, length=seq_len)
        inp = torch.where(mask[:, :, None].expand(-1, -1, self.num_channels), inp, torch.zeros_like(inp))
        x = self.transformer(inp)
        x = maybe_masked_mean(x, mask)
        return self.to_pred(x).squeeze(-1)


def build() -> nn.Module:
    return DurationPredictor().eval()


def inputs(generator: torch.Generator, b: int = 2, n: int = 9) -> tuple[torch.Tensor, ...]:
    """A padded batch of mel frames and each item's frame count (0 to n)."""
    return torch.randn(b, n, 6, generator=generator), torch.randint(0, n + 1, (b,), generator=generator)
