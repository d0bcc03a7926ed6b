"""noisereduce's TorchGate as the partial gate: no mask smoothing, a window shorter than the FFT.

Reduced from noisereduce 3.0.3 (Tim Sainburg), ``noisereduce/torchgate/torchgate.py``
``TorchGate.forward`` (lines 222-264) built with ``freq_mask_smooth_hz=None,
time_mask_smooth_ms=None`` (so ``self.smoothing_filter`` is None and lines 244-249 do not run),
``win_length=200`` under ``n_fft=256`` and ``hop_length=80`` (no divisor of the FFT size):
``Y = X * sig_mask.squeeze(1)`` (line 252) then squeezes a 3-D mask, which the TorchScript
exporter writes as an ONNX ``If`` (TRT401's, proved by the observed sizes) inside the product
TRT709 rewrites. ``amp_to_db`` from ``noisereduce/torchgate/utils.py`` (lines 5-23).
Written here in our own words at a quarter of the sizes (n_fft 64, a 50-sample window, hop 20).
"""

import torch
from torch import nn


def amp_to_db(x: torch.Tensor, eps=torch.finfo(torch.float64).eps, top_db=40) -> torch.Tensor:
    x_db = 20 * torch.log10(x.abs() + eps)
    return torch.max(x_db, (x_db.max(-1).values - top_db).unsqueeze(-1))


class PartialGate(nn.Module):
    def __init__(self, n_fft: int = 64, win_length: int = 50, hop_length: int = 20) -> None:
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length
        self.hop_length = hop_length
        self.prop_decrease = 0.8

    def forward(self, x):
        X = torch.stft(x, n_fft=self.n_fft, hop_length=self.hop_length, win_length=self.win_length,
                       return_complex=True, pad_mode="constant", center=True,
                       window=torch.hann_window(self.win_length).to(x.device))
        X_db = amp_to_db(X)
        std_freq_noise, mean_freq_noise = torch.std_mean(X_db, dim=-1)
        sig_mask = torch.gt(X_db, (mean_freq_noise + std_freq_noise * 1.5).unsqueeze(2))
        sig_mask = self.prop_decrease * (sig_mask * 1.0 - 1.0) + 1.0
        Y = X * sig_mask.squeeze(1)
        y = torch.istft(Y, n_fft=self.n_fft, hop_length=self.hop_length, win_length=self.win_length, center=True,
                        window=torch.hann_window(self.win_length).to(Y.device))
        return y.to(dtype=x.dtype)


def build() -> nn.Module:
    return PartialGate().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 500, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "samples"}}
