"""The observer's state writes (TRT703's evidence): a module built inside forward is no state.

GMFlow builds its `PositionEmbeddingSine` in `feature_add_position` on every call; the attributes its
`__init__` sets were reported as forward writing `self.num_pos_feats`, `self.temperature`... (TRT703
errors at lines that keep nothing between calls). A write to `self` in forward itself still is state.
A counter forward resets before reading it (scratch state) is not compared across frames by the lift.
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


RESET_COUNTER = '''
import torch
from torch import nn


class Refine(nn.Module):
    def forward(self, x):
        self.step = 0
        while True:
            self.step += 1
            x = x * 0.5
            if self.step > 10:
                return x
'''


def _write(path: Path, line: int, attribute: str, **fields) -> dict:
    return {"kind": "state_write", "path": str(path), "line": line, "column": 9, "end_line": line, "end_column": 20,
            "direct": True, "count": 3, "attribute": attribute, "tensor": False, **fields}


def test_a_compared_counter_reset_in_every_call_is_no_frame_state(tmp_path: Path) -> None:
    """`compared_state` (TRT703 where forward compares a state with a number): a counter forward resets before it
    reads it (scratch state, observed: every write came before any read in its call) reaches 10 inside every
    call, whatever the frame; the same counter read before it is written (a `state_read`) is frame state."""
    from trtcodemod.evidence.facts import Facts, norm
    from trtcodemod.migrate.lift import compared_state

    path = tmp_path / "refine.py"
    path.write_text(RESET_COUNTER)
    lines = RESET_COUNTER.splitlines()
    reset, count = (lines.index(t) + 1 for t in ("        self.step = 0", "            self.step += 1"))
    writes = [_write(path, reset, "step", unchanged=False, fresh=True),
              _write(path, count, "step", unchanged=False, fresh=True)]
    scratch = Facts(runs=3, events=[dict(e, path=norm(e["path"])) for e in writes])
    assert compared_state(str(path), scratch) == []
    read_first = {"kind": "state_read", "path": norm(str(path)), "line": count, "column": 13, "end_line": count,
                  "end_column": 22, "direct": True, "count": 1, "attribute": "step"}
    carried = Facts(runs=3, events=[*scratch.events, read_first])
    assert {p.line for p in compared_state(str(path), carried)} == {reset, count}
    # Facts recorded before the order was (no `fresh`): taken as state, as before.
    old = Facts(runs=3, events=[dict(e, path=norm(e["path"])) for e in
                                (_write(path, reset, "step", unchanged=False), _write(path, count, "step", unchanged=False))])
    assert {p.line for p in compared_state(str(path), old)} == {reset, count}
