"""A course project's Glow step (DD2412): the log-determinant times the sizes read from ``x.size()``.

Reduced from Lunkers/DD2412-Project @ f0a3579e291b5a8c0b80ee870fd263278fcf145e, invconv.py: ``InvConv.forward``
(lines 24-30) reads ``shape = x.size()`` and ``height, width = shape[2], shape[3]``, computes
``dlogdet = torch.slogdet(self.w)[1] * height * width`` (line 27) of its matrix parameter ``w``, convolves with ``w``
made 4-D by two ``unsqueeze`` and returns the running log-determinant it was given plus its own; model.py's
``StepFlow.forward`` (lines 142-147) threads that log-determinant through actnorm, this layer and a coupling.
Kept: ``InvConv`` as written there (the reverse pass aside), the running log-determinant as an input. Reduced: the
actnorm and coupling around it, numpy's QR for the initial weight (``torch.linalg.qr`` here). Written here in our own
words.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

DYNAMIC = {"x": {0: "b", 2: "h", 3: "w"}, "logdet": {0: "b"}}
#: The line of the log-determinant (the rule's finding).
CALL = "dlogdet = torch.slogdet(self.w)[1] * height * width"
CHANNELS = 4


class InvConv(nn.Module):
    def __init__(self, num_channels):
        super().__init__()
        self.num_channels = num_channels
        w_initialized = torch.linalg.qr(torch.randn(num_channels, num_channels))[0]
        self.w = nn.Parameter(w_initialized)

    def forward(self, x, logdet):
        shape = x.size()
        height, width = shape[2], shape[3]
        dlogdet = torch.slogdet(self.w)[1] * height * width
        _w = self.w.unsqueeze(2).unsqueeze(3)
        y = F.conv2d(x, _w)
        return y, logdet + dlogdet


def build() -> nn.Module:
    return InvConv(CHANNELS).eval()


def inputs(generator: torch.Generator, b: int = 2, h: int = 5, w: int = 7) -> tuple[torch.Tensor, ...]:
    """Feature maps and the log-determinant gathered so far, one per image."""
    return torch.randn(b, CHANNELS, h, w, generator=generator), torch.randn(b, generator=generator)
