"""Open-Unmix's spectrogram path: an STFT kept as real pairs, their magnitude, a mask, the inverse.

Reduced from openunmix 1.3.0 (Fabian-Robert Stöter and Antoine Liutkus), ``openunmix/transforms.py``:
``TorchSTFT.forward`` (lines 89-120: ``torch.stft(..., return_complex=True)`` of the batch packed
into rows, then ``torch.view_as_real`` and a view back to (samples, channels, bins, frames, 2)),
``ComplexNorm.forward`` (lines 198-216: ``torch.abs(torch.view_as_complex(spec))``, averaged over
the channels for mono) and ``TorchISTFT.forward`` (lines 164-181: ``torch.istft`` of
``torch.view_as_complex(X)`` with the input's ``length``), as ``Separator.forward`` in
``openunmix/model.py`` (lines 252-322) chains them: the magnitude feeds a spectrogram model
(here one linear layer per bin and a ReLU), whose output scales the mix's (real, imaginary)
pairs. The magnitude of the pairs is the form new to TRT709 (zoo 39's first contact: the export
stopped at ``aten::view_as_complex`` after the STFT and iSTFT were taken). Written here in our own
words at small sizes (n_fft 64, hop 16).
"""

import torch
from torch import nn


class PairsMask(nn.Module):
    def __init__(self, n_fft: int = 64, n_hop: int = 16, mono: bool = False) -> None:
        super().__init__()
        self.n_fft = n_fft
        self.n_hop = n_hop
        self.mono = mono
        self.window = nn.Parameter(torch.hann_window(n_fft), requires_grad=False)
        bins = n_fft // 2 + 1
        self.gain = nn.Linear(bins, bins)

    def stft(self, x):
        shape = x.size()
        x = x.view(-1, shape[-1])
        complex_stft = torch.stft(x, n_fft=self.n_fft, hop_length=self.n_hop, window=self.window, center=True,
                                  normalized=False, onesided=True, pad_mode="reflect", return_complex=True)
        stft_f = torch.view_as_real(complex_stft)
        return stft_f.view(shape[:-1] + stft_f.shape[-3:])

    def complex_norm(self, spec):
        spec = torch.abs(torch.view_as_complex(spec))
        if self.mono:
            spec = torch.mean(spec, 1, keepdim=True)
        return spec

    def istft(self, X, length):
        shape = X.size()
        X = X.reshape(-1, shape[-3], shape[-2], shape[-1])
        y = torch.istft(torch.view_as_complex(X), n_fft=self.n_fft, hop_length=self.n_hop, window=self.window,
                        center=True, normalized=False, onesided=True, length=length)
        return y.reshape(shape[:-3] + y.shape[-1:])

    def forward(self, audio):
        mix_stft = self.stft(audio)
        X = self.complex_norm(mix_stft)
        mask = torch.relu(self.gain(X.transpose(-1, -2))).transpose(-1, -2)
        target = mix_stft * mask[..., None]
        return self.istft(target.contiguous(), length=audio.shape[2])


def build() -> nn.Module:
    torch.manual_seed(0)
    return PairsMask().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (2 * torch.rand(2, 2, 400, generator=generator) - 1,)


DYNAMIC = {"audio": {0: "batch", 2: "samples"}}
