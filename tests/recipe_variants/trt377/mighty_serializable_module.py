"""pytorch-mighty (dizcza/pytorch-mighty @ 3121c7d8c8ca9bdec60d5a3cb8c40a38016eefd2, ``mighty/models/serialize.py``,
lines 6-42): ``SerializableModule(nn.Module)`` names the attributes to save in a class list, ``state_attr``, and its
``state_dict`` (lines 20-25) calls ``super().state_dict(...)`` and then, in a loop over that list, stores
``destination[prefix + attribute] = getattr(self, attribute)``; ``_load_from_state_dict`` pops them back with
``setattr``. The library leaves what an attribute holds to the subclass: its author's sparse-coding layers keep
running statistics objects and plain numbers there. Kept: the loop, the ``getattr`` store under the prefix and the
load side. Reduced: the attribute is a Python float (a firing-rate estimate a k-winners-take-all layer keeps),
the layer a linear map with a top-k mask. Written here in our own words. The TorchScript exporter's
``state_dict(keep_vars=True)`` meets the float and stops at ``.detach()``; the value sits behind a ``getattr`` call,
which TRT377 does not take for a tensor.
"""

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch"}}
#: The statement TRT377 guards.
STORE = "destination[prefix + attribute] = getattr(self, attribute)"
#: The exact line migrate applies TRT377 at.
CALL = STORE


class SerializableModule(nn.Module):
    state_attr = []

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        destination = super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)
        for attribute in self.state_attr:
            destination[prefix + attribute] = getattr(self, attribute)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        for attribute in self.state_attr:
            key = prefix + attribute
            if key in state_dict:
                setattr(self, attribute, state_dict.pop(key))
            elif strict:
                missing_keys.append(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class WinnersTakeAll(SerializableModule):
    state_attr = ["firing_rate"]

    def __init__(self, features=6, active=2):
        super().__init__()
        self.linear = nn.Linear(4, features)
        self.active = active
        self.firing_rate = 0.25

    def forward(self, x):
        y = self.linear(x)
        threshold = y.topk(self.active, dim=1).values[:, -1:]
        return y * (y >= threshold)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.kwta = WinnersTakeAll()
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        return self.head(self.kwta(x))


def build():
    torch.manual_seed(0)
    return Encoder().eval()


def inputs(generator):
    return (torch.randn(3, 4, generator=generator),)
