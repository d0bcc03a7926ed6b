"""noisereduce's TorchGate: a spectral gate between ``torch.stft`` and ``torch.istft``.

Reduced from noisereduce 3.0.3 (Tim Sainburg), ``noisereduce/torchgate/torchgate.py``:
``TorchGate.forward`` (lines 222-264: ``X = torch.stft(x, ..., return_complex=True,
pad_mode="constant", center=True, window=torch.hann_window(...))``, the mask from
``X.abs()`` (line 236, non-stationary) or ``amp_to_db(X)`` (line 238, stationary), ``Y = X *
sig_mask.squeeze(1)`` (line 252) and ``torch.istft(Y, ...)`` (line 255)), ``_stationary_mask``
(lines 127-165, with its own ``torch.stft`` of the noise clip at line 142) and
``_nonstationary_mask`` (lines 167-198); ``amp_to_db`` from ``noisereduce/torchgate/utils.py``
(lines 5-23: ``20 * torch.log10(x.abs() + eps)``, clipped ``top_db`` below the peak): a
function that reads its complex argument only through ``abs``.
Written here in our own words, with a small FFT (64, hop 16) and the smoothing filter built
directly. Form kept: the spectrum kept in a variable and read three ways (a magnitude, an
argument of a function that takes its magnitude, a product with a real mask whose inverse STFT
is the output), keyword arguments, the window made in the call.
"""

import torch
from torch import nn
from torch.nn.functional import conv1d, conv2d


@torch.no_grad()
def amp_to_db(x: torch.Tensor, eps=torch.finfo(torch.float64).eps, top_db=40) -> torch.Tensor:
    x_db = 20 * torch.log10(x.abs() + eps)
    return torch.max(x_db, (x_db.max(-1).values - top_db).unsqueeze(-1))


class TorchGate(nn.Module):
    def __init__(self, nonstationary: bool = False, n_fft: int = 64, hop_length: int = 16) -> None:
        super().__init__()
        self.nonstationary = nonstationary
        self.n_fft = n_fft
        self.win_length = n_fft
        self.hop_length = hop_length
        self.prop_decrease = 0.8
        self.n_movemean_nonstationary = 5
        v_f = torch.tensor([0.5, 1.0, 0.5])
        v_t = torch.tensor([1 / 3, 2 / 3, 1.0, 2 / 3, 1 / 3])
        smoothing = torch.outer(v_f, v_t).unsqueeze(0).unsqueeze(0)
        self.register_buffer("smoothing_filter", smoothing / smoothing.sum())

    def _stationary_mask(self, X_db, xn=None):
        if xn is not None:
            XN = torch.stft(xn, n_fft=self.n_fft, hop_length=self.hop_length, win_length=self.win_length,
                            return_complex=True, pad_mode="constant", center=True,
                            window=torch.hann_window(self.win_length).to(xn.device))
            XN_db = amp_to_db(XN).to(dtype=X_db.dtype)
        else:
            XN_db = X_db
        std_freq_noise, mean_freq_noise = torch.std_mean(XN_db, dim=-1)
        noise_thresh = mean_freq_noise + std_freq_noise * 1.5
        return torch.gt(X_db, noise_thresh.unsqueeze(2))

    def _nonstationary_mask(self, X_abs):
        X_smoothed = conv1d(X_abs.reshape(-1, 1, X_abs.shape[-1]),
                            torch.ones(self.n_movemean_nonstationary, dtype=X_abs.dtype,
                                       device=X_abs.device).view(1, 1, -1),
                            padding="same").view(X_abs.shape) / self.n_movemean_nonstationary
        slowness_ratio = (X_abs - X_smoothed) / X_smoothed
        return torch.sigmoid((slowness_ratio - 1.3) / 0.1)

    def forward(self, x):
        X = torch.stft(
            x,
            n_fft=self.n_fft,
            hop_length=self.hop_length,
            win_length=self.win_length,
            return_complex=True,
            pad_mode="constant",
            center=True,
            window=torch.hann_window(self.win_length).to(x.device),
        )
        if self.nonstationary:
            sig_mask = self._nonstationary_mask(X.abs())
        else:
            sig_mask = self._stationary_mask(amp_to_db(X))
        sig_mask = self.prop_decrease * (sig_mask * 1.0 - 1.0) + 1.0
        sig_mask = conv2d(sig_mask.unsqueeze(1), self.smoothing_filter.to(sig_mask.dtype), padding="same")
        Y = X * sig_mask.squeeze(1)
        y = torch.istft(
            Y,
            n_fft=self.n_fft,
            hop_length=self.hop_length,
            win_length=self.win_length,
            center=True,
            window=torch.hann_window(self.win_length).to(Y.device),
        )
        return y.to(dtype=x.dtype)


def build() -> nn.Module:
    torch.manual_seed(0)
    return TorchGate().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 400, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "samples"}}
