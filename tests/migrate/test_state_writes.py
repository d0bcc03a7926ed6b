"""The observer's state writes (TRT703's evidence): a module built inside forward is no state.

GMFlow builds its `PositionEmbeddingSine` in `feature_add_position` on every call; the attributes its
`__init__` sets were reported as forward writing `self.num_pos_feats`, `self.temperature`... (TRT703
errors at lines that keep nothing between calls). A write to `self` in forward itself still is state.
"""

from __future__ import annotations

from pathlib import Path

from variant_models import load_variant, observed_facts

MODEL = '''
import torch
from torch import nn


class Encoding(nn.Module):
    def __init__(self, feats):
        super().__init__()
        self.feats = feats
        self.scale = 2.0

    def forward(self, x):
        self.last = x.shape[1]
        return x * self.scale + self.feats


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.kept = Encoding(1)

    def forward(self, x):
        encoding = Encoding(x.shape[1])
        self.calls = self.calls + 1
        return encoding(x) + self.kept(x)


def build():
    return Net().eval()


def inputs(generator):
    return (torch.randn(1, 3, 4, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
'''


def test_a_module_built_in_forward_is_no_state_but_forwards_writes_are(tmp_path: Path) -> None:
    path = tmp_path / "built_in_forward.py"
    path.write_text(MODEL)
    module = load_variant(path, "state_writes_built_in_forward")
    facts = observed_facts(path, module, tmp_path / "work")
    lines = MODEL.splitlines()
    written = sorted({(e["attribute"], lines[e["line"] - 1].strip()) for e in facts.events
                      if e["kind"] == "state_write"})
    assert written == [("calls", "self.calls = self.calls + 1"), ("last", "self.last = x.shape[1]")]
