"""neuraloperator 2.0.0 (neuraloperator/neuraloperator, ``neuralop/models/base_model.py``): every FNO and TFNO derives
from ``BaseModel(torch.nn.Module)``, whose ``__new__`` (line 80) keeps the constructor's keyword arguments in
``instance._init_kwargs`` and whose ``state_dict`` (lines 84-108) calls ``super().state_dict(...)`` and stores
``state_dict['_metadata'] = self._init_kwargs`` when no ``_metadata`` is there yet, warning otherwise (lines 104-107);
``save_checkpoint`` (line 154) is the only method of the class that calls it. Reduced: a pointwise channel mixer in
place of the spectral layers, the registry and the checkpoint loading left out. Written here in our own words.
The TorchScript exporter's ``state_dict(keep_vars=True)`` meets the dict and stops at ``.detach()``.
"""

import inspect
import warnings

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
#: The statement TRT377 guards.
STORE = "_metadata'] = self._init_kwargs"


class BaseModel(nn.Module):
    _version = "0.1.0"

    def __new__(cls, *args, **kwargs):
        for key, value in inspect.signature(cls).parameters.items():
            if value.default is not inspect.Parameter.empty and key not in kwargs:
                kwargs[key] = value.default
        kwargs["_version"] = cls._version
        instance = super().__new__(cls)
        instance._init_kwargs = kwargs
        return instance

    def state_dict(self, destination: dict = None, prefix: str = "", keep_vars: bool = False):
        state_dict = super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)
        if state_dict.get('_metadata') == None:
            state_dict['_metadata'] = self._init_kwargs
        else:
            warnings.warn("metadata is already in this state dict")
        return state_dict

    def save_checkpoint(self, path):
        torch.save(self.state_dict(), path)


class PointwiseOperator(BaseModel):
    def __init__(self, channels=3, hidden=8):
        super().__init__()
        self.lift = nn.Conv2d(channels, hidden, 1)
        self.project = nn.Conv2d(hidden, 1, 1)

    def forward(self, x):
        return self.project(torch.nn.functional.gelu(self.lift(x)))


def build():
    torch.manual_seed(0)
    return PointwiseOperator(hidden=6).eval()


def inputs(generator):
    return (torch.randn(1, 3, 8, 8, generator=generator),)
