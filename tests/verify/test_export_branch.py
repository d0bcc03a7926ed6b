"""The eager reference of a model that asks ``torch.onnx.is_in_onnx_export()`` (verify/exportbranch.py).

A model that computes something else while it is exported (nanodet's heads) is compared with
that branch, run in eager mode; the report names the reference and the site that asked. A
model that does not ask keeps the ordinary reference and report.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import torch
from typer.testing import CliRunner

from trtcodemod.cli import app
from trtcodemod.helpers.onnx_export import _trt_onnx_exporting
from trtcodemod.verify.backends import FAILED, OK, BackendRun
from trtcodemod.verify.exportbranch import export_branch_reference, run_reference

FAST = ["--runs", "2", "--warmup", "0"]

ASKS = """\
    import torch


    class Head(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 1)

        def forward(self, x):
            y = self.conv(x)
            if torch.onnx.is_in_onnx_export():
                return torch.cat([y.sigmoid(), y.flatten(2).mean(-1)[..., None, None].expand_as(y)], 1)
            return y


    def build():
        return Head().eval()


    def inputs():
        return {"x": torch.randn(2, 3, 5, 5)}
    """

ASKS_NOT = ASKS.replace("if torch.onnx.is_in_onnx_export():", "if x.dim() == 3:")


def _verify(tmp_path: Path, body: str, *extra: str) -> tuple[int, dict[str, Any], str]:
    model = tmp_path / "head.py"
    model.write_text(textwrap.dedent(body))
    args = ["verify", str(model), "--model", "build", "--inputs", "inputs", *FAST, *extra]
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    text = CliRunner().invoke(app, args)
    return result.exit_code, json.loads(result.stdout), text.stdout


def _line_of(body: str, text: str) -> int:
    return next(i for i, line in enumerate(textwrap.dedent(body).splitlines(), 1) if text in line)


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_a_model_with_an_export_branch_is_compared_with_that_branch(tmp_path: Path, exporter: str) -> None:
    code, report, text = _verify(tmp_path, ASKS, "--exporter", exporter)
    # Compared with the eager branch, the graph (which computes the export branch) differs: the
    # sigmoid and the concatenation. Compared with the export branch, it matches. Both exporters
    # answer the question True while they trace.
    checks = [c for c in report["export_checks"] if c["side"] == "before"]
    assert [c["exporter"] for c in checks] == [exporter] and all(c["faithful"] is True for c in checks)
    assert report["export_faithful"]["before"] is True
    reference = report["models"]["before"]["reference"]
    site = f"head.py:{_line_of(ASKS, 'if torch.onnx.is_in_onnx_export():')}"
    assert "export branch" in reference and site in reference
    assert "eager reference: the export branch" in text and site in text
    assert code == 0, text


def test_a_model_that_does_not_ask_keeps_the_ordinary_reference(tmp_path: Path) -> None:
    code, report, text = _verify(tmp_path, ASKS_NOT)
    assert report["export_faithful"]["before"] is True
    assert "reference" not in report["models"]["before"]
    assert "eager reference" not in text
    assert code == 0, text


def test_only_the_models_own_code_is_answered_yes() -> None:
    assert torch.onnx.is_in_onnx_export() is False
    with export_branch_reference() as asked:
        assert torch.onnx.is_in_onnx_export() is True  # this file is the "model" here
        # trtcodemod's helpers keep their eager form: the eager run's values are the original op's.
        assert _trt_onnx_exporting() is False
        x = torch.randn(4, 3)
        assert torch.equal(torch.nn.functional.softmax(x, -1), x.softmax(-1))
    assert len(asked) == 1 and asked[0].endswith(f"test_export_branch.py:{_asked_line()}")
    assert torch.onnx.is_in_onnx_export() is False  # restored


def _asked_line() -> int:
    source = Path(__file__).read_text().splitlines()
    return next(i for i, line in enumerate(source, 1) if "assert torch.onnx.is_in_onnx_export() is True" in line)


def test_an_export_branch_that_fails_in_eager_mode_falls_back_to_the_ordinary_branch() -> None:
    answers: list[bool] = []

    def run() -> tuple[BackendRun, list[str]]:
        exporting = torch.onnx.is_in_onnx_export()
        answers.append(exporting)
        if exporting:
            return BackendRun(status=FAILED, error="RuntimeError: needs the tracer"), []
        return BackendRun(status=OK), ["output"]

    (result, names), note = run_reference(run)
    assert answers == [True, False]
    assert result.status == OK and names == ["output"]
    assert "fails in eager mode" in note and "needs the tracer" in note


def test_a_run_that_never_asks_runs_once_with_no_note() -> None:
    calls: list[int] = []

    def run() -> tuple[BackendRun, list[str]]:
        calls.append(1)
        return BackendRun(status=FAILED, error="broken"), []

    (result, _), note = run_reference(run)
    assert calls == [1] and result.status == FAILED and note == ""


def test_migrate_reports_the_reference_and_finds_the_export_faithful(tmp_path: Path) -> None:
    model = tmp_path / "head.py"
    model.write_text(textwrap.dedent(ASKS))
    args = ["migrate", str(model), "--model", "build", "--inputs", "inputs", "--runs", "1", "--warmup", "0",
            "--backends", "torch-cpu,onnxruntime-cpu"]
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    report = json.loads(result.stdout)["models"][0]
    site = f"head.py:{_line_of(ASKS, 'if torch.onnx.is_in_onnx_export():')}"
    assert report["before"]["faithful"] is True and site in report["before"]["reference"]
    assert report["remaining"] == [] and report["exit_code"] == 0
    text = CliRunner().invoke(app, args).stdout
    assert text.count("eager reference: the export branch") == 1 and site in text
