"""torchaudio's WaveRNN: the upsample network's ``Stretch2d`` repeats a spectrogram along ``-2`` and then ``-1`` (the
axes by position, the second call on the first's result), and the model concatenates its frame features along
``-1``.

Reduced from torchaudio==2.11.1 (PyPI; pytorch/audio), torchaudio/models/wavernn.py: ``Stretch2d.forward`` (lines
115-125) returns ``specgram.repeat_interleave(self.freq_scale, -2).repeat_interleave(self.time_scale, -1)`` (line
125); ``UpsampleNetwork`` (lines 128-196) runs ``MelResNet`` (an unpadded ``Conv1d``, lines 75-81) on the
spectrogram, ``unsqueeze(1)``, stretches it by the total scale and ``squeeze(1)``s it, and stretches the
spectrogram through ``Stretch2d(scale, 1)`` and ``Conv2d(1, 1, (1, 2 * scale + 1), padding=(0, scale))`` pairs,
cutting ``[:, :, self.indent : -self.indent]`` (lines 176-196); ``WaveRNN.forward`` (lines 274-329) transposes both,
slices the auxiliary features by ``self.n_aux`` and writes ``torch.cat([waveform.unsqueeze(-1), specgram, a1],
dim=-1)`` (line 308) and ``torch.cat([x, a2], dim=-1)`` (line 315). Kept: the chained ``Stretch2d`` with positional
axes, the upsample network's shape, the concatenations along ``-1``. Reduced: one ``Conv1d`` and a ReLU for
``MelResNet`` (no ``ResBlock`` stack or batch norm), two auxiliary slices, linear layers where WaveRNN has two GRUs
and four. The TorchScript exporter makes the shared ``-2`` and ``-1`` the 4-D spectrogram's 2 and 3, and the
``Concat`` along 3 of 3-D tensors is refused. Written here in our own words.
"""

import torch
from torch import Tensor, nn

DYNAMIC = {"waveform": {0: "batch", 2: "samples"}, "specgram": {0: "batch", 3: "frames"}}
CALL = "return specgram.repeat_interleave(self.freq_scale, -2).repeat_interleave(self.time_scale, -1)"


class Stretch2d(nn.Module):
    def __init__(self, time_scale: int, freq_scale: int) -> None:
        super().__init__()
        self.freq_scale = freq_scale
        self.time_scale = time_scale

    def forward(self, specgram: Tensor) -> Tensor:
        return specgram.repeat_interleave(self.freq_scale, -2).repeat_interleave(self.time_scale, -1)


class UpsampleNetwork(nn.Module):
    def __init__(self, upsample_scales=(2, 2), n_freq: int = 6, n_output: int = 4, kernel_size: int = 3) -> None:
        super().__init__()
        total_scale = 1
        for upsample_scale in upsample_scales:
            total_scale *= upsample_scale
        self.indent = (kernel_size - 1) // 2 * total_scale
        self.resnet = nn.Sequential(nn.Conv1d(n_freq, n_output, kernel_size, bias=False), nn.ReLU())
        self.resnet_stretch = Stretch2d(total_scale, 1)
        up_layers = []
        for scale in upsample_scales:
            conv = nn.Conv2d(1, 1, kernel_size=(1, scale * 2 + 1), padding=(0, scale), bias=False)
            torch.nn.init.constant_(conv.weight, 1.0 / (scale * 2 + 1))
            up_layers += [Stretch2d(scale, 1), conv]
        self.upsample_layers = nn.Sequential(*up_layers)

    def forward(self, specgram: Tensor):
        resnet_output = self.resnet(specgram).unsqueeze(1)
        resnet_output = self.resnet_stretch(resnet_output)
        resnet_output = resnet_output.squeeze(1)
        specgram = specgram.unsqueeze(1)
        upsampling_output = self.upsample_layers(specgram)
        upsampling_output = upsampling_output.squeeze(1)[:, :, self.indent : -self.indent]
        return upsampling_output, resnet_output


class TinyWaveRNN(nn.Module):
    def __init__(self, n_freq: int = 6, n_aux: int = 2, hidden: int = 8) -> None:
        super().__init__()
        self.n_aux = n_aux
        self.upsample = UpsampleNetwork(n_freq=n_freq, n_output=2 * n_aux)
        self.fc = nn.Linear(n_freq + n_aux + 1, hidden)
        self.fc2 = nn.Linear(hidden + n_aux, 3)

    def forward(self, waveform: Tensor, specgram: Tensor) -> Tensor:
        waveform, specgram = waveform.squeeze(1), specgram.squeeze(1)
        specgram, aux = self.upsample(specgram)
        specgram = specgram.transpose(1, 2)
        aux = aux.transpose(1, 2)
        aux_idx = [self.n_aux * i for i in range(3)]
        a1 = aux[:, :, aux_idx[0] : aux_idx[1]]
        a2 = aux[:, :, aux_idx[1] : aux_idx[2]]
        x = torch.cat([waveform.unsqueeze(-1), specgram, a1], dim=-1)
        x = torch.relu(self.fc(x))
        x = torch.cat([x, a2], dim=-1)
        return self.fc2(x).unsqueeze(1)


def build() -> nn.Module:
    torch.manual_seed(0)
    return TinyWaveRNN().eval()


def inputs(generator: torch.Generator, batch: int = 1, frames: int = 7) -> tuple[torch.Tensor, ...]:
    waveform = torch.rand(batch, 1, (frames - 2) * 4, generator=generator) * 2 - 1
    return waveform, torch.randn(batch, 1, 6, frames, generator=generator)
