"""LyCORIS (KohakuBlueleaf/LyCORIS at 1d3a9a28, ``lycoris/modules/base.py:33-55``): ``ModuleCustomSD.state_dict``
records a version in ``destination._metadata[prefix[:-1]]`` (the attribute torch's own ``state_dict`` keeps module
versions in, not an entry of the dict) and copies the entries of ``custom_state_dict()`` into ``destination`` under
the prefix, ``for k, v in custom_sd.items(): destination[f"{prefix}{k}"] = v``: values the statement does not show.
TRT377 leaves both alone, and the TorchScript export works as it is. Reduced: a linear adapter whose custom state is
its weight; the positional-arguments shim left out. Written here in our own words.
"""

from collections import OrderedDict

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch"}}
STORE = None


class Adapter(nn.Module):
    _version = 1

    def __init__(self):
        super().__init__()
        self.down = nn.Linear(4, 2, bias=False)

    def custom_state_dict(self):
        return {"lora_down.weight": self.down.weight}

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        custom = self.custom_state_dict()
        if custom is not None:
            for k, v in custom.items():
                destination[f"{prefix}{k}"] = v
            return destination
        return super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)

    def forward(self, x):
        return self.down(x)


def build():
    torch.manual_seed(0)
    return Adapter().eval()


def inputs(generator):
    return (torch.randn(3, 4, generator=generator),)
