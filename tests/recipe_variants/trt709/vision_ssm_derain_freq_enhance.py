"""vision-ssm-derain's frequency enhancement: the amplitude of the 2-D real FFT as a channel gate.

Reduced from baolong1507/vision-ssm-derain at commit bb8443ee108cb49a1157a23d4e8cfebd464d241c,
src/models/blocks/freq.py: ``FreqEnhance.__init__`` (lines 11-18) and ``FreqEnhance.forward``
(lines 20-43). ``forward`` turns autocast off, takes ``fft = torch.fft.rfft2(x32, norm="ortho")``
in float32 and its amplitude ``torch.abs(fft)``, resizes the amplitude to the image size
(bilinear), maps it through 1x1 convolutions to a sigmoid gate, clears NaN/infinities with
``nan_to_num`` and scales the input by ``1 + gate``. Written here in our own words; the de-raining
network around the block is left out. Form kept: the transform kept in a variable named ``fft``
(the name of the module it comes from) whose one use takes its magnitude with ``torch.abs``,
``norm=`` by keyword, inside the autocast block.
"""

import torch
import torch.nn.functional as F
from torch import nn


class FreqEnhance(nn.Module):
    def __init__(self, in_ch: int = 4, freq_ch: int = 8) -> None:
        super().__init__()
        self.proj = nn.Sequential(nn.Conv2d(in_ch, freq_ch, 1), nn.ReLU(inplace=True), nn.Conv2d(freq_ch, in_ch, 1),
                                  nn.Sigmoid())

    def forward(self, x):
        orig_dtype = x.dtype
        with torch.amp.autocast(device_type=x.device.type, enabled=False):
            x32 = x.float()
            fft = torch.fft.rfft2(x32, norm="ortho")
            amp = torch.abs(fft)
            amp = F.interpolate(amp, size=x32.shape[-2:], mode="bilinear", align_corners=False)
            gate32 = self.proj(amp)
            gate32 = torch.nan_to_num(gate32, nan=0.0, posinf=1e6, neginf=-1e6)
        gate = gate32.to(dtype=orig_dtype)
        return x * (1.0 + gate)


def build() -> nn.Module:
    return FreqEnhance().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 10, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
