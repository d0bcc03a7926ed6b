"""A graph that differs from its model even on the traced inputs is placed at a line.

``verify.diverge`` runs the model once more under a ``TorchFunctionMode`` and the graph with
every node's output kept, and names the first user line (in graph order) whose values leave
eager mode's, with the lines before it that ran torch calls and left no node (what the trace
dropped). ``migrate`` places the "wrong values" problem there instead of at no line.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

from trtcodemod.migrate.locate import unfaithful_graphs
from trtcodemod.verify.results import VerifyReport
from trtcodemod.verify.diverge import locate_divergence
from trtcodemod.verify.export import export_model
from support import migrate_small

MODEL = '''\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        z = torch.relu(y) * 2
        {write}
        w = torch.nn.functional.gelu(z)
        return w.mean(dim=1)


def build():
    return Net()
'''
#: The line of ``{write}`` in MODEL, and the first line after it that computes from ``z``.
WRITE_LINE, GELU_LINE = 13, 14


def _load(tmp_path: Path, write: str) -> tuple[Path, torch.nn.Module]:
    path = tmp_path / "model.py"
    path.write_text(MODEL.format(write=write))
    spec = importlib.util.spec_from_file_location(f"diverge_{abs(hash(write))}", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    torch.manual_seed(0)
    return path, module.build().eval()


def _divergence(tmp_path: Path, write: str, x: torch.Tensor):
    path, model = _load(tmp_path, write)
    onnx_path = tmp_path / "model.onnx"
    result = export_model(model, (x,), onnx_path, exporter="torchscript", input_names=["x"], output_names=["out"],
                          dynamic_axes={}, opset=17, user_roots=(str(tmp_path),))
    assert result.error is None
    return path, locate_divergence(model, (x,), ["x"], str(onnx_path), (str(tmp_path),), 1e-5, 1e-5)


@pytest.mark.parametrize("x", [torch.randn(1, 3, 5, 5, generator=torch.Generator().manual_seed(1)),
                               -torch.ones(1, 3, 4, 6), torch.zeros(1, 3, 2, 2)],
                         ids=["random", "negative", "zeros"])
def test_a_write_behind_the_tracer_is_where_the_graph_parts(tmp_path: Path, x: torch.Tensor) -> None:
    path, found = _divergence(tmp_path, "z.data.add_(1)", x)
    real = str(path.resolve())
    # The graph has no node for the write; the gelu of the changed `z` is the first value that differs.
    assert found.source == f"{real}:{GELU_LINE}"
    assert found.dropped == [f"{real}:{WRITE_LINE}"]
    assert found.lines_agreeing == 2 and found.max_abs_err > 0.1  # the conv and relu lines agree


def test_a_faithful_graph_has_no_divergence(tmp_path: Path) -> None:
    _, found = _divergence(tmp_path, "z = z + 1", torch.randn(1, 3, 5, 5))
    assert found.source is None and found.dropped == []
    assert found.lines_compared >= 3 and found.lines_agreeing == found.lines_compared


def test_the_problem_is_placed_at_the_dropped_line() -> None:
    check = {"side": "before", "exporter": "torchscript", "faithful": False, "baked": False,
             "detail": "the graph differs from eager even on the traced inputs",
             "divergence": {"source": "/m/model.py:14", "node": "/Add", "op": "Add", "max_abs_err": 0.5,
                            "lines_agreeing": 2, "lines_compared": 3, "dropped": ["/m/model.py:13"]}}
    [problem] = unfaithful_graphs(VerifyReport.from_json({"export_checks": [check]}), "before")
    assert (problem.path, problem.line, problem.op) == ("/m/model.py", 13, "(wrong values)")
    assert "first differ from eager mode's at /m/model.py:14" in problem.message
    del check["divergence"]
    [unplaced] = unfaithful_graphs(VerifyReport.from_json({"export_checks": [check]}), "before")
    assert unplaced.path is None and unplaced.line is None


def test_migrate_names_the_line(tmp_path: Path) -> None:
    path, _ = _load(tmp_path, "z.data.add_(1)")
    report, exit_code = migrate_small(path)
    [wrong] = [r for r in report["remaining"] if r["kind"] == "unfaithful"]
    assert wrong["source"] == f"{path.resolve()}:{WRITE_LINE}", wrong
    assert "left no node in the graph" in wrong["message"]
    assert exit_code == 1
    assert any(p["phase"] == "divergence: where the graph differs" for p in report["phases"])


def test_migrate_names_the_line_of_a_graph_that_differs_only_at_other_sizes(tmp_path: Path) -> None:
    # A write behind the tracer that touches nothing at the traced batch of 1 (an empty slice)
    # and the second batch element of a larger set: the graph is faithful on the traced set and
    # differs on the resized one, and no bake, node, state or loop says why. The line is named
    # where the values first part on that set, never an exit 1 with nothing remaining.
    import json

    from support import invoke

    path, _ = _load(tmp_path, "z.data[1:] = 0")
    result = invoke("migrate", str(path), "--model", "build", "--input-shape", "x:1x3x5x5", "--dynamic-axes",
                    '{"x": {"0": "batch"}}', "--format", "json", "--runs", "1", "--warmup", "0",
                    "--backends", "torch-cpu,onnxruntime-cpu")
    [report] = json.loads(result.stdout)["models"]
    assert result.exit_code == 1 and report["after"]["faithful"] is False
    [wrong] = [r for r in report["remaining"] if r["kind"] == "unfaithful"]
    assert wrong["source"] == f"{path.resolve()}:{WRITE_LINE}", wrong
    assert wrong["severity"] == "error" and wrong["manual_step"]
    assert "first differ from eager mode's on input set 3" in wrong["message"]
    assert "left no node in the graph" in wrong["message"]


def test_a_graph_that_differs_only_on_other_sets_is_named_only_when_asked() -> None:
    check = {"side": "before", "exporter": "torchscript", "faithful": False, "baked": True, "failing_sets": [3],
             "detail": "the graph matches eager on the traced input set but not on set(s) 3",
             "divergence": {"source": "/m/model.py:14", "node": "/Add", "op": "Add", "max_abs_err": 0.5,
                            "lines_agreeing": 2, "lines_compared": 3, "dropped": []}}
    report = VerifyReport.from_json({"export_checks": [check]})
    assert unfaithful_graphs(report, "before") == []  # located bakes speak for these, as before
    [problem] = unfaithful_graphs(report, "before", baked=True)
    assert (problem.path, problem.line) == ("/m/model.py", 14)
    assert "first differ from eager mode's on input set 3 at /m/model.py:14" in problem.message


FOLDED = '''\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        y = self.conv(x)
        y = self.bn(y)
        z = torch.relu(y) * 2
        {write}
        return torch.nn.functional.gelu(z).mean(dim=1)


def build():
    net = Net()
    with torch.no_grad():
        net.bn.running_mean.copy_(torch.tensor([0.5, -1.0, 2.0, 0.0]))
        net.bn.running_var.copy_(torch.tensor([0.25, 4.0, 1.0, 9.0]))
        net.bn.weight.copy_(torch.tensor([2.0, -1.0, 0.5, 3.0]))
    return net.eval()
'''
#: The lines of the Conv, its BatchNorm, the write, and the gelu in FOLDED.
CONV_LINE, BN_LINE, FOLDED_WRITE_LINE, FOLDED_GELU_LINE = 12, 13, 15, 16


@pytest.mark.parametrize("x", [torch.randn(1, 3, 5, 5, generator=torch.Generator().manual_seed(2)),
                               torch.full((2, 3, 4, 3), -3.0), torch.zeros(1, 3, 2, 2)],
                         ids=["random", "negative", "zeros"])
def test_a_conv_with_its_batchnorm_folded_in_agrees_at_the_conv_line(tmp_path: Path, x: torch.Tensor) -> None:
    # The exporter folds an eval-mode BatchNorm into the Conv's weights: the Conv node, placed at
    # the Conv's line, computes the BatchNorm line's value. That is no divergence; the dropped
    # write is, found at the gelu after it.
    import onnx

    path = tmp_path / "folded.py"
    path.write_text(FOLDED.format(write="z.data.add_(1)"))
    spec = importlib.util.spec_from_file_location("diverge_folded", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    torch.manual_seed(0)
    model = module.build()
    onnx_path = tmp_path / "folded.onnx"
    result = export_model(model, (x,), onnx_path, exporter="torchscript", input_names=["x"], output_names=["out"],
                          dynamic_axes={}, opset=17, user_roots=(str(tmp_path),))
    assert result.error is None
    assert "BatchNormalization" not in {n.op_type for n in onnx.load(str(onnx_path)).graph.node}  # folded
    found = locate_divergence(model, (x,), ["x"], str(onnx_path), (str(tmp_path),), 1e-5, 1e-5)
    real = str(path.resolve())
    assert found.source == f"{real}:{FOLDED_GELU_LINE}", found
    assert found.dropped == [f"{real}:{FOLDED_WRITE_LINE}"]
    assert found.lines_agreeing >= 2 and found.max_abs_err > 0.1
