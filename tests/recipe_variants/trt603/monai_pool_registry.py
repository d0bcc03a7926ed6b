"""Project-MONAI/MONAI's layer factories on 1-D data: ``Pool[Pool.MAX, spatial_dims]`` looks the
name up in a registry of factory functions (``Pool.MAX`` is the string ``"MAX"`` through
``__getattr__``; ``__getitem__`` splits the name from its arguments and calls the registered
function, which indexes a tuple of the three classes by ``dim - 1``), and ``MaxAvgPool`` builds the
max and the average pooling from one dict of tuple arguments (``ensure_tuple_rep``), with a stride
of None, then concatenates both along channels.

Reduced from Project-MONAI/MONAI at commit d388d1c6fec8cb3a0eebee5b5a0b9776ca59ca83:
monai/networks/layers/factories.py lines 76-160 (``LayerFactory``: ``factory_function``,
``get_constructor``, ``__getitem__`` at lines 133-146, ``__getattr__``), lines 202 and 387-429
(``Pool`` and its "max" / "avg" factory functions), and monai/networks/blocks/downsample.py lines
26-66 (``MaxAvgPool``: ``self.max_pool = Pool[Pool.MAX, spatial_dims](**_params)`` at line 55,
``self.avg_pool = Pool[Pool.AVG, spatial_dims](**_params)`` at line 56). Written here in our own
words, with a plain dict for MONAI's component store.
"""

from typing import Callable

import torch
from torch import nn


class LayerRegistry:
    def __init__(self) -> None:
        self.factories: dict[str, Callable] = {}

    def register(self, name: str) -> Callable:
        def add(func: Callable) -> Callable:
            self.factories[name.upper()] = func
            return func

        return add

    def __getitem__(self, args):
        if callable(args):
            return args
        if isinstance(args, str):
            name, rest = args, ()
        else:
            name, *rest = args
        return self.factories[name.upper()](*rest)

    def __getattr__(self, key: str) -> str:
        if key in self.__dict__.get("factories", {}):
            return key
        raise AttributeError(key)


Pool = LayerRegistry()


@Pool.register("max")
def max_pools(dim: int) -> type:
    return (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d)[dim - 1]


@Pool.register("avg")
def avg_pools(dim: int) -> type:
    return (nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d)[dim - 1]


def repeat(value, dims: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims


class MaxAvgPool(nn.Module):
    def __init__(self, spatial_dims: int, kernel_size, stride=None, padding=0, ceil_mode: bool = False) -> None:
        super().__init__()
        params = {
            "kernel_size": repeat(kernel_size, spatial_dims),
            "stride": None if stride is None else repeat(stride, spatial_dims),
            "padding": repeat(padding, spatial_dims),
            "ceil_mode": ceil_mode,
        }
        self.max_pool = Pool[Pool.MAX, spatial_dims](**params)
        self.avg_pool = Pool[Pool.AVG, spatial_dims](**params)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.max_pool(x), self.avg_pool(x)], dim=1)


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv1d(2, 4, 3, padding=1)
        self.down1 = MaxAvgPool(1, 3, stride=2, padding=1)
        self.down2 = MaxAvgPool(1, 2, ceil_mode=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down2(self.down1(self.stem(x)))


def build() -> nn.Module:
    return Net()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 2, 25, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "length"}}
