"""NeMo's squeeze-and-excitation for Jasper/QuartzNet/Citrinet: in inference, the masked average
over time is a ``@torch.jit.script`` function, ``_se_pool_step_script_infer``, that branches on
the number of timesteps against the context window (``if timesteps < context_window:``), both
branches assigning the same name ``y`` before one return.

Reduced from nemo_toolkit 3.0.0 (the PyPI wheel), nemo/collections/asr/parts/submodules/
jasper.py: ``_se_pool_step_script_infer`` (lines 168-194), ``SqueezeExcite.forward_for_export``
(lines 469-501) and ``_se_pool_step`` (lines 503-518). Written here in our own words: the padding
mask is a comparison with a range instead of the module's cached ``seq_range``, and the training
twin (``_se_pool_step_script_train``, which draws a random window) and the autocast are left out.
"""

import torch
from torch import nn


@torch.jit.script
def _se_pool_step_script_infer(x: torch.Tensor, context_window: int, mask: torch.Tensor):
    timesteps = x.shape[-1]
    if timesteps < context_window:
        y = torch.sum(x, dim=-1, keepdim=True) / mask.sum(dim=-1, keepdim=True).to(x.dtype)
    else:
        y = torch.sum(x, dim=-1, keepdim=True) / mask.sum(dim=-1, keepdim=True).to(x.dtype)
    return y


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int = 8, reduction_ratio: int = 4, context_window: int = 6) -> None:
        super().__init__()
        self.context_window = context_window
        self.fc = nn.Sequential(nn.Linear(channels, channels // reduction_ratio, bias=False), nn.ReLU(),
                                nn.Linear(channels // reduction_ratio, channels, bias=False))

    def forward(self, x, lengths):
        max_len = x.shape[-1]
        pad = torch.arange(max_len, device=x.device)[None, :] >= lengths[:, None]
        mask = pad.unsqueeze(1)
        x = x.masked_fill(mask, 0.0)
        y = self._se_pool_step(x, mask)
        y = self.fc(y.transpose(1, -1)).transpose(1, -1)
        return x * torch.sigmoid(y)

    def _se_pool_step(self, x, mask):
        mask = ~mask
        if self.context_window < 0:
            y = torch.sum(x, dim=-1, keepdim=True) / mask.sum(dim=-1, keepdim=True).type(x.dtype)
        else:
            y = _se_pool_step_script_infer(x, self.context_window, mask)
        return y


def build() -> nn.Module:
    return SqueezeExcite()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(2, 8, 9, generator=generator), torch.tensor([9, 5])


DYNAMIC = {"x": {0: "batch", 2: "time"}, "lengths": {0: "batch"}}
