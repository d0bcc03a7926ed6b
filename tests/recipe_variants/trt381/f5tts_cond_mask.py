"""F5-TTS's sampling prelude: the reference audio's length mask, written ``einx.less('n, b -> b n', seq, t)``.

Reduced from SWivid/F5-TTS @ 074881635d2cbe63f33282d632144732d89b7107 (the first commit, "basic"): model/utils.py
``lens_to_mask`` (lines 57-66) compares ``torch.arange(t.amax())`` with the lengths through ``einx.less('n, b -> b
n', seq, t)``, and model/cfm.py ``CFM.sample`` (lines 108-143) counts the text's characters (padding is -1), takes the
larger of those and the reference lengths, builds ``cond_mask = lens_to_mask(lens)`` (line 127), pads it to the
length of the generated audio and keeps the conditioning audio under it with ``torch.where`` (lines 140-143). The
batch, the reference's frames and the text's characters all differ per call. (F5-TTS later rewrote this "without einx
& einops", commit 28b46d3.) Kept: the character count, the maximum, ``lens_to_mask`` with its width from the largest
length, the pad with ``False``, the ``where``. Reduced: the generated length is the conditioning's own length (no
duration, no ODE and no transformer), so the pad reaches ``cond``'s frames; the step's conditioning is returned.
Written here in our own words.
"""

import einx
import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"cond": {0: "b", 1: "n"}, "text": {0: "b", 1: "nt"}, "lens": {0: "b"}}
#: The line of the length comparison (the rule's finding).
CALL = "return einx.less('n, b -> b n', seq, t)"


def lens_to_mask(t, length=None):
    if length is None:
        length = t.amax()
    seq = torch.arange(length, device=t.device)
    return einx.less('n, b -> b n', seq, t)


class SampleConditioning(nn.Module):
    def forward(self, cond, text, lens):
        cond_seq_len = cond.shape[1]
        text_lens = (text != -1).sum(dim=-1)
        lens = torch.maximum(text_lens, lens)
        cond_mask = lens_to_mask(lens)
        cond_mask = F.pad(cond_mask, (0, cond_seq_len - cond_mask.shape[-1]), value=False)
        cond_mask = cond_mask[..., None]
        return torch.where(cond_mask, cond, torch.zeros_like(cond))


def build() -> nn.Module:
    return SampleConditioning().eval()


def inputs(generator: torch.Generator, b: int = 2, n: int = 9, nt: int = 5) -> tuple[torch.Tensor, ...]:
    """Mel frames of the reference audio, its characters padded with -1 (at most n of them), and its frame counts
    (1 to n: ``amax`` of an empty batch raises alike before and after)."""
    cond = torch.randn(b, n, 4, generator=generator)
    chars = torch.randint(0, 30, (b, nt), generator=generator)
    count = torch.randint(0, min(nt, n) + 1, (b, 1), generator=generator)
    text = torch.where(torch.arange(nt)[None, :] < count, chars, -1)
    lens = torch.randint(min(n, 1), n + 1, (b,), generator=generator)
    return cond, text, lens
