"""GMFlow's shifted-window attention: windows of the feature map over a number of splits, rolled by half a window.

Reduced from haofeixu/gmflow at b5123431164d01ec14526a1c3d22218aecb62024, gmflow/transformer.py:
``generate_shift_window_attn_mask`` (lines 19-43), ``single_head_split_window_attention`` (lines
46-105, the rolls at lines 78-80 and 101) and ``FeatureTransformer.forward`` (lines 273-299, which
derives the window from the feature map: ``window_size_h = h // attn_num_splits``). Written here in our
own words, one head, with the projections and the feed-forward part left out. Form kept: the shift is
half the window, the window the feature map's height and width over the splits, so each ``torch.roll``
gets a shift computed from the input's size, negated before the attention (``shifts=(-shift_h,
-shift_w)``) and positive after it; the mask of the shifted windows is built by slice writes
(``img_mask[:, h, w, :] = cnt``) over slices with the same computed bounds.
"""

import torch
from torch import nn


def _split(x, splits):
    b, h, w, c = x.shape
    x = x.view(b, splits, h // splits, splits, w // splits, c).permute(0, 1, 3, 2, 4, 5)
    return x.reshape(b * splits * splits, h // splits, w // splits, c)


def _merge(x, splits):
    n, h, w, c = x.shape
    b = n // splits // splits
    x = x.view(b, splits, splits, h, w, c).permute(0, 1, 3, 2, 4, 5)
    return x.reshape(b, splits * h, splits * w, c)


def shifted_window_mask(h, w, window_h, window_w, shift_h, shift_w):
    img_mask = torch.zeros((1, h, w, 1))
    rows = (slice(0, -window_h), slice(-window_h, -shift_h), slice(-shift_h, None))
    cols = (slice(0, -window_w), slice(-window_w, -shift_w), slice(-shift_w, None))
    region = 0
    for r in rows:
        for c in cols:
            img_mask[:, r, c, :] = region
            region += 1
    windows = _split(img_mask, h // window_h).view(-1, window_h * window_w)
    mask = windows.unsqueeze(1) - windows.unsqueeze(2)
    return mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0)


def window_attention(q, k, v, splits, h, w, mask):
    b, _, c = q.shape
    shift_h = h // splits // 2
    shift_w = w // splits // 2
    q, k, v = q.view(b, h, w, c), k.view(b, h, w, c), v.view(b, h, w, c)
    q = torch.roll(q, shifts=(-shift_h, -shift_w), dims=(1, 2))
    k = torch.roll(k, shifts=(-shift_h, -shift_w), dims=(1, 2))
    v = torch.roll(v, shifts=(-shift_h, -shift_w), dims=(1, 2))
    q, k, v = _split(q, splits), _split(k, splits), _split(v, splits)
    n = q.shape[0]
    scores = torch.matmul(q.view(n, -1, c), k.view(n, -1, c).transpose(1, 2)) / c ** 0.5
    scores = scores + mask.repeat(b, 1, 1)
    out = torch.matmul(torch.softmax(scores, dim=-1), v.view(n, -1, c))
    out = _merge(out.view(n, h // splits, w // splits, c), splits)
    out = torch.roll(out, shifts=(shift_h, shift_w), dims=(1, 2))
    return out.view(b, -1, c)


class ShiftedWindowBlock(nn.Module):
    def __init__(self, channels: int = 8, splits: int = 2) -> None:
        super().__init__()
        self.splits = splits
        self.q = nn.Linear(channels, channels)
        self.kv = nn.Linear(channels, 2 * channels)

    def forward(self, feature0, feature1):
        b, c, h, w = feature0.shape
        source = feature0.flatten(2).transpose(1, 2)
        target = feature1.flatten(2).transpose(1, 2)
        window_h, window_w = h // self.splits, w // self.splits
        mask = shifted_window_mask(h, w, window_h, window_w, window_h // 2, window_w // 2)
        k, v = self.kv(target).chunk(2, dim=-1)
        out = window_attention(self.q(source), k, v, self.splits, h, w, mask)
        return source + out


def build() -> nn.Module:
    torch.manual_seed(0)
    return ShiftedWindowBlock().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 8, 8, 12, generator=generator), torch.randn(1, 8, 8, 12, generator=generator))


DYNAMIC = {"feature0": {0: "batch", 2: "height", 3: "width"}, "feature1": {0: "batch", 2: "height", 3: "width"}}
