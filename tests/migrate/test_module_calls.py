"""``module_calls``: the lines that build the module a line of ``forward`` calls, and ``plan.matches``
linking a problem located at that call to a module-replacing rule's finding at the construction."""

from __future__ import annotations

from pathlib import Path

from trtcodemod.evidence.facts import norm
from trtcodemod.migrate.locate import Problem
from trtcodemod.migrate.module_calls import construction_lines
from trtcodemod.migrate.plan import matches
from trtcodemod.rules import Finding, Safety

SOURCE = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, n):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 2)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.blocks = nn.ModuleList()
        for _ in range(n):
            self.blocks.append(nn.MultiheadAttention(16, 2))
        self.head = nn.Sequential(
            nn.Linear(16, 16),
            nn.ReLU(),
        )
        other = nn.MultiheadAttention(16, 2)
        self.other = other

    def forward(self, x):
        x = self.encoder(x)
        for block in self.blocks:
            x = block(x, x, x)[0]
        x = self.head(x)
        return x + torch.zeros(1)
"""


def _file(tmp_path: Path) -> str:
    path = tmp_path / "net.py"
    path.write_text(SOURCE)
    return norm(str(path))


def _lines(ranges: list[tuple[int, int]]) -> set[int]:
    return {n for first, last in ranges for n in range(first, last + 1)}


def test_a_called_attribute_and_the_local_names_it_was_built_from(tmp_path: Path) -> None:
    path = _file(tmp_path)
    assert _lines(construction_lines(path, 21)) == {8, 9}
    assert _lines(construction_lines(path, 23)) == {10, 12}  # a loop over self.blocks, filled by append
    assert _lines(construction_lines(path, 24)) == {13, 14, 15, 16}
    assert construction_lines(path, 25) == []  # no module of self is called there
    assert construction_lines(path, 3) == []


def _finding(path: str, rule: str, line: int) -> Finding:
    return Finding(rule, "x", "m", path, line, 9, line, 40, Safety.UNSAFE)


def _baked(path: str, line: int) -> Problem:
    return Problem("baked", path, line, "(traced constant)", None, "Converting a tensor to a Python boolean")


def test_plan_links_the_call_to_the_construction(tmp_path: Path) -> None:
    path = _file(tmp_path)
    assert matches(_baked(path, 21), _finding(path, "TRT316", 8))
    assert matches(_baked(path, 23), _finding(path, "TRT316", 12))
    assert not matches(_baked(path, 21), _finding(path, "TRT316", 12))  # another module's construction
    assert not matches(_baked(path, 23), _finding(path, "TRT316", 17))  # self.other is never called
    # Only module-replacing rules are linked; others stay at their own line.
    assert not matches(_baked(path, 21), _finding(path, "TRT101", 8))


BICUBIC_IN_SEQUENTIAL = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Sequential(
            nn.Conv2d(3, 2, 3, padding=1),
            nn.Upsample(scale_factor=2, mode="bicubic", align_corners=False),
        )

    def forward(self, x):
        return self.head(x)


def build():
    return Net()
"""


def test_migrate_replaces_a_bicubic_upsample_the_call_line_names(tmp_path: Path) -> None:
    # landmarker's spatial configuration net (zoo 23): the cubic Resize node is placed at the
    # `self.sc_net(...)` call; TRT727's finding is at the `nn.Upsample(mode="bicubic")` inside the
    # Sequential that line calls. Without the link nothing is applied and the TensorRT error stays.
    from support import migrate_small

    path = tmp_path / "net.py"
    path.write_text(BICUBIC_IN_SEQUENTIAL)
    report, code = migrate_small(path)
    assert report["before"]["trt_errors_by_op"] == {"Resize": 1}
    assert [(f["rule"], f["line"]) for f in report["applied"]] == [("TRT727", 10)], report["applied"]
    assert report["after"]["trt_errors"] == 0 and code == 0, report["remaining"]
