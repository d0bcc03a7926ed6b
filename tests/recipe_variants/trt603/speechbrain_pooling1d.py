"""SpeechBrain's ``Pooling1d`` (speech): the pooling module is chosen in ``__init__`` by
``pool_type`` and ``input_dims`` (``torch.nn.AvgPool1d`` or ``torch.nn.MaxPool1d`` for a 3-D
input, each built over several lines with keywords, the stride defaulting to the kernel), and
``forward`` moves the pooled axis last with ``transpose(-1, self.pool_axis)``, pools, and moves it
back.

Reduced from speechbrain/speechbrain at commit 9c826ef3937bac885c8a6ca86c6889a30f256fb5,
speechbrain/nnet/pooling.py, ``Pooling1d.__init__`` lines 53-109 (lines 72-77
``torch.nn.AvgPool1d(kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode)``, lines
90-96 ``torch.nn.MaxPool1d(...)`` with ``dilation``) and ``Pooling1d.forward`` lines 111-133.
Written here in our own words; the 4-D branches (``AvgPool2d``/``MaxPool2d`` with a ``(1, k)``
window) are kept, unused, as in a model built for 3-D features. Two linear layers around a max and
an average pooling along time stand in for a model that uses it (SpeechBrain's CRDNN pools
between its blocks).
"""

import torch
from torch import nn


class Pooling1d(nn.Module):
    def __init__(self, pool_type: str, kernel_size: int, input_dims: int = 3, pool_axis: int = 1,
                 ceil_mode: bool = False, padding: int = 0, dilation: int = 1, stride=None) -> None:
        super().__init__()
        self.pool_axis = pool_axis
        if stride is None:
            stride = kernel_size
        if pool_type == "avg":
            if input_dims == 3:
                self.pool_layer = torch.nn.AvgPool1d(
                    kernel_size,
                    stride=stride,
                    padding=padding,
                    ceil_mode=ceil_mode,
                )
            elif input_dims == 4:
                self.pool_layer = torch.nn.AvgPool2d(
                    (1, kernel_size), stride=(1, stride), padding=(0, padding), ceil_mode=ceil_mode)
            else:
                raise ValueError("input_dims must be 3 or 4")
        elif pool_type == "max":
            if input_dims == 3:
                self.pool_layer = torch.nn.MaxPool1d(
                    kernel_size,
                    stride=stride,
                    padding=padding,
                    dilation=dilation,
                    ceil_mode=ceil_mode,
                )
            elif input_dims == 4:
                self.pool_layer = torch.nn.MaxPool2d(
                    (1, kernel_size), stride=(1, stride), padding=(0, padding), dilation=(1, dilation),
                    ceil_mode=ceil_mode)
            else:
                raise ValueError("input_dims must be 3 or 4")
        else:
            raise ValueError("pool_type must be 'avg' or 'max'")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.transpose(-1, self.pool_axis)
        x = self.pool_layer(x)
        return x.transpose(-1, self.pool_axis)


class TimePooledFeatures(nn.Module):
    def __init__(self, n_feats: int = 6, hidden: int = 8) -> None:
        super().__init__()
        self.inp = nn.Linear(n_feats, hidden)
        self.max_pool = Pooling1d("max", 3)
        self.mid = nn.Linear(hidden, hidden)
        self.avg_pool = Pooling1d("avg", 2, ceil_mode=True)

    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.inp(feats))
        x = self.max_pool(x)
        x = torch.relu(self.mid(x))
        return self.avg_pool(x)


def build() -> nn.Module:
    return TimePooledFeatures()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 20, 6, generator=generator),)


DYNAMIC = {"feats": {0: "batch", 1: "frames"}}
