"""torchmetrics (Lightning-AI/torchmetrics @ dab033394560ab3ce05e3d14c13f32e4cde6b351, ``src/torchmetrics/metric.py``):
every ``Metric`` is an ``nn.Module`` whose states are registered with ``add_state(name, default, persistent=...)``
(lines 203-284), and whose ``state_dict`` override (lines 925-957) calls ``super().state_dict(...)`` and then, for each
persistent state, stores ``destination[prefix + key] = deepcopy(current_val)``, detaching tensors first unless
``keep_vars``. A state with a list default (``dist_reduce_fx="cat"``: predictions gathered batch after batch) is a
Python list there. A model that keeps such a metric as a submodule (as Lightning modules do) and marks it persistent
cannot be exported: ``torch.onnx.export`` asks the whole model for ``state_dict(keep_vars=True)``, the metric puts its
list in, and the exporter stops at ``.detach()`` with no line of the model. Kept: ``add_state`` with the defaults and
the persistence flags, the override with its loop, the ``keep_vars`` branch and the ``deepcopy``, and the load side
(``_load_from_state_dict``, lines 974-991: it pops the states it finds and asks for none). Reduced: one list
state and one tensor state, no ``update``/``compute`` machinery, no distributed sync. Written here in our own words.
"""

from copy import deepcopy

import torch
from torch import Tensor, nn

DYNAMIC = {"x": {0: "batch"}}
#: The statement TRT377 guards.
STORE = "destination[prefix + key] = deepcopy(current_val)"
#: The exact line migrate applies TRT377 at.
CALL = STORE


class Metric(nn.Module):
    def __init__(self):
        super().__init__()
        self._defaults = {}
        self._persistent = {}

    def add_state(self, name, default, persistent=False):
        setattr(self, name, list(default) if isinstance(default, list) else default.clone())
        self._defaults[name] = default
        self._persistent[name] = persistent

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        destination = super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)
        for key in self._defaults:
            if not self._persistent[key]:
                continue
            current_val = getattr(self, key)
            if not keep_vars:
                if isinstance(current_val, Tensor):
                    current_val = current_val.detach()
                elif isinstance(current_val, list):
                    current_val = [v.detach() if isinstance(v, Tensor) else v for v in current_val]
            destination[prefix + key] = deepcopy(current_val)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        for key in self._defaults:
            if prefix + key in state_dict:
                setattr(self, key, state_dict.pop(prefix + key))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, True, missing_keys, unexpected_keys,
                                      error_msgs)


class CatScores(Metric):
    def __init__(self):
        super().__init__()
        self.add_state("scores", default=[], persistent=True)
        self.add_state("total", default=torch.tensor(0.0), persistent=True)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 2))
        self.val_scores = CatScores()

    def forward(self, x):
        return self.net(x).softmax(dim=-1)


def build():
    torch.manual_seed(0)
    return Classifier().eval()


def inputs(generator):
    return (torch.randn(4, 5, generator=generator),)
