"""``trtcodemod inspect``: output formats and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper
from typer.testing import CliRunner

from trtcodemod.cli import app

F = TensorProto.FLOAT


def run(*args: str):
    return CliRunner().invoke(app, ["inspect", *args])


def _save(tmp_path: Path, nodes, name: str = "m.onnx", out_type: int = F, opset: int = 17) -> Path:
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, [4])],
                              [helper.make_tensor_value_info("y", out_type, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    path = tmp_path / name
    onnx.save(model, str(path))
    return path


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    return _save(tmp_path, [helper.make_node("Relu", ["x"], ["r"], name="relu"),
                            helper.make_node("Relu", ["r"], ["y"], name="relu2")], "clean.onnx")


@pytest.fixture
def unique(tmp_path: Path) -> Path:
    node = helper.make_node("Unique", ["x"], ["y"], name="/Unique", doc_string="/home/me/model.py(12): forward")
    return _save(tmp_path, [node], "unique.onnx")


@pytest.fixture
def nonzero(tmp_path: Path) -> Path:
    return _save(tmp_path, [helper.make_node("NonZero", ["x"], ["y"], name="nz")], "nz.onnx", out_type=TensorProto.INT64)


def test_clean_model_text(clean: Path) -> None:
    result = run(str(clean))
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first == f"{clean}: 2 nodes, 1 distinct ops, opset 17, target TensorRT 8.6"
    assert "\x1b[" not in result.stdout  # not a TTY: no colour
    assert result.stdout.splitlines()[-1] == "0 errors, 0 warnings"


def test_issue_line_and_exit_1(unique: Path) -> None:
    result = run(str(unique), "--target", "10.x")
    assert result.exit_code == 1
    line = next(line for line in result.stdout.splitlines() if "/Unique (Unique)" in line)
    assert line.startswith("error: /Unique (Unique): Unique is not supported by the TensorRT 10.15")
    assert line.endswith("[/home/me/model.py:12] → TRT302")


def test_warnings_alone_exit_0_and_versions_differ(nonzero: Path) -> None:
    assert run(str(nonzero), "--target", "8.6").exit_code == 0
    old = run(str(nonzero), "--target", "8.4")
    assert old.exit_code == 1 and "supported from TensorRT 8.5" in old.stdout


def test_json_format(unique: Path) -> None:
    result = run(str(unique), "--format", "json", "--target", "8.6")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["version"] == 1 and data["path"] == str(unique) and data["target"] == "8.6"
    assert data["nodes"] == 1 and data["ops"] == {"Unique": 1}
    (issue,) = data["trt_issues"]
    assert issue == {
        "op": "Unique", "node": "/Unique", "reason": issue["reason"], "source": "/home/me/model.py:12",
        "rule": "TRT302", "severity": "error",
    }


def test_old_target_note(clean: Path) -> None:
    result = run(str(clean), "--target", "7.1")
    assert result.exit_code == 0
    assert "note: target 7.1 is older than 8.4" in result.stdout


def test_missing_and_not_onnx(tmp_path: Path) -> None:
    missing = tmp_path / "nope.onnx"
    result = run(str(missing))
    assert result.exit_code == 2 and f"{missing}: error: no such file" in result.stderr
    junk = tmp_path / "junk.onnx"
    junk.write_text("this is not a protobuf\n")
    result = run(str(junk))
    assert result.exit_code == 2 and f"{junk}: error: not an ONNX model" in result.stderr
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    result = run(str(empty))
    assert result.exit_code == 2 and "not an ONNX model" in result.stderr
    assert run(str(tmp_path)).exit_code == 2  # a directory


def test_bad_options(clean: Path) -> None:
    result = run(str(clean), "--format", "xml")
    assert result.exit_code == 2 and "--format" in result.stderr
    result = run(str(clean), "--target", "banana")
    assert result.exit_code == 2 and "banana" in result.stderr


def test_inspect_module_does_not_import_onnx_or_torch() -> None:
    code = ("import sys, trtcodemod.trt.inspect; "
            "print(any(m in sys.modules for m in ('onnx', 'torch')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_python_m_trtcodemod_inspect(unique: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "trtcodemod", "inspect", str(unique), "--format", "json"],
                         capture_output=True, text=True)
    assert out.returncode == 1
    assert json.loads(out.stdout)["trt_issues"][0]["rule"] == "TRT302"
