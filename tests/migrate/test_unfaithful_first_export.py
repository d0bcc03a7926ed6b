"""A fix that makes a model export for the first time is not to blame for what the export keeps
from the traced inputs elsewhere. mbrl's shooting planner (``ModelEnv``: ``dones |= ...`` at
``model_env.py:187``, behind the user's ``x[0, 0, 2:].numpy()``): TRT384 let the TorchScript
export through, the graph then differed from eager on the other input sets because of the
``.numpy()`` bake, and the verification blamed TRT384 and reverted it, leaving a model that does
not export at all. The rewritten model's eager outputs are the original's; only its graph is
unfaithful, and that is reported at the bake's line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support import migrate_json

PLANNER = '''\
import torch
from torch import nn


class Planner(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.score = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        done = x[:, 0] > 0.5
        done |= x[:, 1] > 0.9
        offset = torch.from_numpy(x[0, 2:].numpy() * 2 - 1)
        returns = self.score(x + offset.sum()).squeeze(1)
        return torch.where(done, torch.zeros_like(returns), returns)


def build() -> nn.Module:
    return Planner().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(6, 4, generator=generator),)
'''


def _migrate(tmp_path: Path) -> dict[str, Any]:
    model = tmp_path / "planner.py"
    model.write_text(PLANNER)
    return migrate_json(model, '{"x": {"0": "batch"}}')


def test_the_fix_that_lets_the_export_through_is_kept_and_the_bake_is_named(tmp_path: Path) -> None:
    report = _migrate(tmp_path)
    line = PLANNER.splitlines().index("        done |= x[:, 1] > 0.9") + 1
    bake = PLANNER.splitlines().index("        offset = torch.from_numpy(x[0, 2:].numpy() * 2 - 1)") + 1
    assert report["before"]["exported"] is False
    assert [(a["rule"], a["line"]) for a in report["applied"]] == [("TRT384", line)], report["reverted"]
    assert report["reverted"] == []
    assert report["after"]["exported"] is True and report["after"]["faithful"] is False
    assert report["equivalent"] is True
    assert all(r["culprits"] == [] for r in report["rounds"]), report["rounds"]
    at_bake = [r for r in report["remaining"] if r["source"].endswith(f"planner.py:{bake}")]
    assert any(r["severity"] == "error" for r in at_bake), report["remaining"]
    assert report["exit_code"] == 1


def _rows(graph_before: str) -> list:
    from trtcodemod.verify.results import BackendResult, OriginalRun
    eager = BackendResult(name="torch-cpu", exporter=None, status="ok", passed=True, before=OriginalRun(status="ok"))
    graph = BackendResult(name="onnxruntime-cpu", exporter="torchscript", status="ok", passed=False,
                          before=OriginalRun(status=graph_before))
    return [eager, graph]


def test_only_a_bake_after_a_first_export_is_set_aside() -> None:
    """Set aside: the original had no graph and the rewritten graph matched on its traced set.
    Blamed as before: a graph that differs on its traced set, or where the original had a graph."""
    from trtcodemod.verify.results import ExportCheck, VerifyReport
    from trtcodemod.verify.run import _unfaithful_first_export

    def report(baked: bool) -> VerifyReport:
        r = VerifyReport.from_json({"name": "planner", "model": {}})
        r.export_checks = [ExportCheck(side="after", exporter="torchscript", faithful=False, baked=baked)]
        return r

    rows = _rows("failed")
    assert _unfaithful_first_export(report(True), rows) == [rows[1]]
    assert _unfaithful_first_export(report(False), rows) == []
    assert _unfaithful_first_export(report(True), _rows("ok")) == []
    rows[0].passed = False  # the rewritten program itself differs in eager mode
    assert _unfaithful_first_export(report(True), rows) == []
