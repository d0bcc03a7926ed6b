"""What a migration costs and what it reads: the phase profile, the files analysed, the time limit.

One real migration (worker processes, a real export) of a model that imports two files of
its own: one it calls in its forward, one that only runs while importing and building (and
holds code a rule flags). Only the first is analysed; both are what the model is built from.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from support import invoke
from trtcodemod.evidence.facts import Facts
from trtcodemod.migrate.phases import ModelTimeout, Phases
from trtcodemod.migrate.report import render

FAST = ["--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu", "--format", "json"]

_BUILD_HELPERS = '''
"""Imported by the model; runs while importing and building, never in a forward."""

import torch

WIDTH = 4


def unused_gate(x: torch.Tensor) -> torch.Tensor:
    if x.sum() > 0:
        return x * 2
    return x


def width() -> int:
    return WIDTH
'''

_OPS = '''
"""Called in the model's forward."""

import torch


def gate(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(x) + 1
'''

_NET = '''
import time

import torch
from torch import nn

from build_helpers import width
from ops import gate


class Net(nn.Module):
    def __init__(self, pause: float = 0.0) -> None:
        super().__init__()
        self.proj = nn.Linear(width(), width())
        self.pause = pause

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.pause:
            time.sleep(self.pause)
        return gate(self.proj(x))


def build() -> nn.Module:
    return Net()


def slow() -> nn.Module:
    return Net(pause=120.0)


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, generator=generator),)
'''


def _migrate(folder: Path, *args: str) -> tuple[int, dict[str, Any]]:
    result = invoke("migrate", str(folder / "net.py"), "--inputs", "inputs", *FAST, *args)
    data = json.loads(result.stdout)
    assert len(data["models"]) == 1
    return result.exit_code, data["models"][0]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cost")
    for name, text in (("build_helpers.py", _BUILD_HELPERS), ("ops.py", _OPS), ("net.py", _NET)):
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    return folder.resolve()


@pytest.fixture(scope="module")
def migrated(project: Path) -> tuple[int, dict[str, Any]]:
    return _migrate(project, "--model", "build")


def test_report_has_the_phases_in_order(migrated: tuple[int, dict[str, Any]]) -> None:
    code, r = migrated
    assert code == 0 and r["exit_code"] == 0, r
    names = [p["phase"] for p in r["phases"]]
    assert names[0] == "observe"
    # The original is built, exported, run in ONNX Runtime and checked before the static
    # analysis, which comes before the finish; nothing to fix here, so no round.
    assert names.index("before: build, eager, export") < names.index("before: onnxruntime-cpu (torchscript)") \
        < names.index("before: static TensorRT check") < names.index("static analysis") < names.index("finish")
    assert not any(n.startswith("round") for n in names)
    assert all(isinstance(p["seconds"], float) and p["seconds"] >= 0 for p in r["phases"])
    assert r["seconds"] >= sum(p["seconds"] for p in r["phases"])
    text = render([r], "text", profile=True)
    assert "Phases (" in text and "  static analysis " in text
    assert "Phases (" not in render([r], "text")


def test_only_files_run_in_a_forward_are_analysed(project: Path, migrated: tuple[int, dict[str, Any]]) -> None:
    _, r = migrated
    helpers, ops, net = (str(project / n) for n in ("build_helpers.py", "ops.py", "net.py"))
    assert r["files"] == sorted([ops, net]) and r["facts"]["files"] == 2
    # build_helpers.py's TRT101 is in a file no forward ran: not analysed, no line about it.
    assert not any(i["path"] == helpers for i in r["info"] + r["applied"])
    # It is still what the model is built from (a zoo's cache depends on it).
    assert helpers in r["user_files"]


def test_model_past_its_time_limit_ends_cleanly_with_its_phases(project: Path) -> None:
    code, r = _migrate(project, "--model", "slow", "--model-timeout", "5")
    assert code == 2 and r["exit_code"] == 2
    assert r["error"].startswith("timed out: the migration took more than 5 s (--model-timeout)")
    assert [p["phase"] for p in r["phases"]] == ["observe"]
    assert "COULD NOT RUN: timed out" in render([r], "text", profile=True)


def test_a_spent_timing_budget_cuts_the_timed_runs_and_the_report_says_so(project: Path) -> None:
    """A model slower than the budget is timed 3 times, not --runs times; each figure says its runs."""
    code, r = _migrate(project, "--model", "build", "--runs", "5", "--timing-budget", "1e-9")
    assert code == 0 and r["exit_code"] == 0, r
    assert r["timing"] == {"runs": 5, "warmup": 0, "budget_s": 1e-9}
    assert set(r["latency_runs"]) == set(r["latency_ms"]) == {"torch-cpu", "onnxruntime-cpu (torchscript)"}
    assert all(runs == {"before": 3, "after": 3} for runs in r["latency_runs"].values())
    assert "(3 runs)" in render([r], "text")
    # Without a budget every figure is from --runs runs, and the text adds nothing.
    code, r = _migrate(project, "--model", "build", "--runs", "5", "--timing-budget", "0")
    assert all(runs == {"before": 5, "after": 5} for runs in r["latency_runs"].values()), r["latency_runs"]
    assert " runs)" not in render([r], "text")


def test_phases_deadline_with_a_clock() -> None:
    now = [0.0]
    phases = Phases(limit=10.0, clock=lambda: now[0])
    with phases.phase("observe"):
        now[0] = 4.0
    assert phases.worker_timeout(300.0) == 6.0
    with pytest.raises(ModelTimeout) as raised, phases.section("round 1"), phases.phase("rewrite"):
        now[0] = 11.0
    assert raised.value.phase == "round 1: rewrite"
    assert phases.rows == [{"phase": "observe", "seconds": 4.0}, {"phase": "round 1: rewrite", "seconds": 7.0}]
    assert phases.worker_timeout(300.0) == 1.0  # a worker still gets a positive limit
    with pytest.raises(ModelTimeout):
        with phases.phase("finish"):
            pass


def test_facts_without_forward_lines_count_every_file() -> None:
    old = Facts.from_json({"version": 1, "runs": 1, "lines": {"/a.py": [1, 2], "/b.py": [3]}})
    assert old.forward_files == ["/a.py", "/b.py"] and old.lines_ran(["/a.py"]) == 2
    new = Facts.from_json({**old.to_json(), "forward": {"/b.py": [3]}})
    assert new.forward_files == ["/b.py"] and new.lines_ran(["/a.py", "/b.py"]) == 1
    assert Facts.from_json(new.to_json()).forward == {"/b.py": {3}}


def test_a_file_without_a_planned_fix_is_not_parsed_by_the_rounds_rewrite() -> None:
    from trtcodemod.migrate.plan import Plan
    from trtcodemod.migrate.run import plan_fixer
    from trtcodemod.verify.spec import RewriteOptions

    # Not even valid Python: parsing it would raise; with nothing planned there it is copied as is.
    source = b"def broken(:\n    x = torch.nonzero(y)\n"
    assert plan_fixer(Plan())(source, "/nowhere/lib.py", RewriteOptions()) == (source, [])


def test_every_worker_of_a_migration_is_a_fork_of_one_server(project: Path) -> None:
    """torch is imported once per migration (in the fork server), not once per worker."""
    from trtcodemod.verify.forkserver import STATS

    before = dict(STATS)
    code, r = _migrate(project, "--model", "build")
    assert code == 0 and r["exit_code"] == 0, r
    done = {k: STATS[k] - before.get(k, 0) for k in STATS}
    # The observer, the original's build and export, its ONNX Runtime run: three workers at
    # least, each a fork; no fresh interpreter, and at most one server started (none where an
    # earlier test of this process started it already).
    assert done["fresh"] == 0 and done["forks"] >= 3 and done["servers"] <= 1, done
