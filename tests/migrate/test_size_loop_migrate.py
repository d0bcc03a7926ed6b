"""migrate plans TRT106 where its second trace finds a recurrence over a dynamic axis unrolled ("(unrolled loop)"
at the `for` line): a candidate, kept because the rewritten model's graph (an ONNX `Loop`) is faithful and equivalent."""

from __future__ import annotations

from pathlib import Path

from support import migrate_json

SCAN = """\
import torch
from torch import nn


class Scan(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4) * 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x[0]
        for i in range(1, x.size(0)):
            h = torch.tanh(h @ self.w + x[i])
        return h


def build():
    torch.manual_seed(0)
    return Scan().eval()


def inputs(generator):
    return (torch.randn(5, 2, 4, generator=generator),)
"""


def test_an_unrolled_recurrence_is_lifted_into_a_scripted_loop(tmp_path: Path) -> None:
    path = tmp_path / "scan.py"
    path.write_text(SCAN)
    r = migrate_json(path, '{"x": {"0": "t"}}')
    assert r["before"]["faithful"] is False  # the trace unrolled the example's 4 steps
    assert [(a["rule"], a["line"]) for a in r["applied"]] == [("TRT106", 12)], r["reverted"]
    assert r["applied"][0]["proof"].startswith("verified: the rewritten model is equivalent")
    assert r["after"]["faithful"] is True and r["after"]["trt_errors"] == 0 and r["equivalent"] is True
    assert r["exit_code"] == 0


def test_the_unrolled_loop_at_its_for_line_is_the_findings() -> None:
    """The "(unrolled loop)" problem alone (a graph that runs at every size, with the example's count of steps)
    is matched to TRT106's finding at the loop: pytorch-crf's `_compute_score`, torchcrf/__init__.py:189."""
    from trtcodemod.findings import Finding, Safety
    from trtcodemod.migrate.locate import Problem
    from trtcodemod.migrate.plan import matches
    from trtcodemod.migrate.retrace import UNROLLED

    path = "/zoo/torchcrf/__init__.py"
    loop = Problem("baked", path, 189, UNROLLED, None, "`for i in range(1, seq_length):` repeats", "error",
                   "torchscript")
    finding = Finding("TRT106", "size-loop-script", "a loop over a tensor's size", path, 189, 9, 196, 80,
                      Safety.UNSAFE)
    assert matches(loop, finding)
    assert not matches(Problem("baked", path, 250, UNROLLED, None, "another loop", "error", "torchscript"), finding)


BEHIND_AN_EXPORT_FAILURE = """\
import torch
from torch import nn


class RunningMean(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.RMSNorm(8)

    def forward(self, x):
        b, c, t = x.shape
        y = self.norm(x.reshape(b, c, t // 8, 8))
        n = y.shape[2]
        cur = torch.zeros(b, c, 8)
        outs = []
        for i in range(n):
            cur = 0.5 * cur + y[:, :, i]
            outs.append(cur)
        return torch.stack(outs, dim=2)


def build():
    torch.manual_seed(0)
    return RunningMean().eval()


def inputs(generator):
    return (torch.randn(2, 3, 40, generator=generator),)
"""


def test_a_loop_behind_the_export_failure_a_fix_removed_is_named_at_its_line(tmp_path: Path) -> None:
    """TimesFM 3's shape: `nn.RMSNorm` stops the original's export, so no second trace of the original looks at
    the loop over the patches behind it; TRT337 lets the export through, the graph still differs at other sizes
    for a reason no candidate changes, and the candidate goes back unproved. What keeps it unfaithful is named all
    the same, at the user's `for` line (found by a second trace of the rewritten model), not as the refused node in
    the loop's body, and no problem is placed in the rewritten copy's files."""
    path = tmp_path / "running.py"
    path.write_text(BEHIND_AN_EXPORT_FAILURE)
    r = migrate_json(path, '{"x": {"0": "batch", "2": "time"}}')
    assert r["before"]["exported"] is False and r["exit_code"] == 1
    assert [x["rule"] for x in r["reverted"]] == ["TRT337"]  # proved by no graph: the loop keeps it unfaithful
    loops = [x for x in r["remaining"] if x["op"] == "(unrolled loop)"]
    assert [x["source"] for x in loops] == [f"{path}:16"], r["remaining"]
    assert "`for i in range(n)` repeats with the dynamic axes" in loops[0]["message"]
    assert "which the reverted fixes let the export reach" in loops[0]["message"]
    assert not any(x["source"] and x["source"].endswith(f"{path.name}:17") for x in r["remaining"])
    assert all(x["source"] is None or x["source"].startswith(str(tmp_path)) for x in r["remaining"])
