"""Autoformer's auto-correlation: an inverse real FFT of one spectrum times the other's conjugate.

Reduced from torch-timeseries 0.2.5 (Weiwei Ye), ``torch_timeseries/nn/AutoCorrelation.py``:
``AutoCorrelation.forward`` (lines 115-141) takes the period-based dependencies as
``q_fft = torch.fft.rfft(queries.permute(0, 2, 3, 1).contiguous(), dim=-1)``, the same of the
keys, ``res = q_fft * torch.conj(k_fft)`` and ``corr = torch.fft.irfft(res, dim=-1)`` (lines
127-130), then ``time_delay_agg_inference`` (lines 62-88) keeps the ``int(factor *
math.log(length))`` strongest delays of the head- and channel-averaged correlation (``topk``),
weighs them by a softmax and adds the values rolled by each delay (a ``gather`` from the values
repeated twice along time). ``AutoCorrelationLayer`` (lines 144-176) projects queries, keys and
values per head. Written here in our own words, one layer, self-attention, a fixed window (only
the batch varies: the loop's trip count follows the window's length).
"""

import math

import torch
from torch import nn


class AutoCorrelationLayer(nn.Module):
    def __init__(self, d_model: int = 8, n_heads: int = 2, factor: int = 1) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.n_heads = n_heads
        self.factor = factor
        self.query = nn.Linear(d_model, d_model)
        self.key = nn.Linear(d_model, d_model)
        self.value = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, d_model)

    def aggregate(self, values, corr):
        batch, head, channel, length = values.shape
        init_index = torch.arange(length).view(1, 1, 1, length).repeat(batch, head, channel, 1).to(values.device)
        top_k = int(self.factor * math.log(length))
        mean_value = corr.mean(dim=1).mean(dim=1)
        weights, delay = torch.topk(mean_value, top_k, dim=-1)
        weights = torch.softmax(weights, dim=-1)
        doubled = values.repeat(1, 1, 1, 2)
        out = torch.zeros_like(values)
        for i in range(top_k):
            index = init_index + delay[:, i].view(-1, 1, 1, 1).repeat(1, head, channel, length)
            out = out + torch.gather(doubled, dim=-1, index=index) * weights[:, i].view(-1, 1, 1, 1)
        return out

    def forward(self, x):
        B, L, _ = x.shape
        H = self.n_heads
        q = self.query(x).view(B, L, H, -1)
        k = self.key(x).view(B, L, H, -1)
        v = self.value(x).view(B, L, H, -1)
        q_fft = torch.fft.rfft(q.permute(0, 2, 3, 1).contiguous(), dim=-1)
        k_fft = torch.fft.rfft(k.permute(0, 2, 3, 1).contiguous(), dim=-1)
        res = q_fft * torch.conj(k_fft)
        corr = torch.fft.irfft(res, dim=-1)
        agg = self.aggregate(v.permute(0, 2, 3, 1).contiguous(), corr).permute(0, 3, 1, 2)
        return self.out(agg.reshape(B, L, -1))


def build() -> nn.Module:
    return AutoCorrelationLayer().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 24, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
