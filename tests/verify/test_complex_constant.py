"""An export stopped by a Python complex number the trace kept as a constant is placed at the user's line.

vocos' ISTFT head builds its spectrum as ``mag * (x + 1j * y)`` (zoo 66): the TorchScript exporter fails in a graph
pass after tracing ("Unknown number type: complex"), with no user frame on the stack and no line in the message. The
export runs one more trace and names the line of the complex constant's node; ``migrate`` gives the manual step for
it.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from typer.testing import CliRunner

from trtcodemod.cli import app
from trtcodemod.migrate.manual_steps import COMPLEX_CONSTANT_STEP
from trtcodemod.usercode import AT_USER_LINE
from trtcodemod.verify.export import export_model

HEAD = '''import torch
from torch import nn


class Head(nn.Module):
    def forward(self, x):
        mag, p = x.chunk(2, dim=1)
'''
TAIL = '''

def build():
    return Head().eval()


def inputs(g=None):
    return (torch.randn(2, 10, 3, generator=g),)
'''
#: The spectrum made with a Python complex number, at line 8; an inverse transform of it at line 9.
COMPLEX = HEAD + "        s = mag.exp() * (torch.cos(p) + 1j * torch.sin(p))\n        return torch.fft.irfft(s, 8, dim=1)\n" + TAIL


def _export(path: Path, root: Path):
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102 - the test's own model file
    model = namespace["build"]()
    return export_model(model, namespace["inputs"](torch.Generator().manual_seed(0)), path.with_suffix(".onnx"),
                        exporter="torchscript", input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "b"}},
                        opset=17, user_roots=(str(root),))


def test_the_complex_constant_is_placed_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "head.py"
    path.write_text(COMPLEX)
    result = _export(path, tmp_path)
    assert result.error is not None and "Unknown number type: complex" in result.error
    found = AT_USER_LINE.search(result.error)
    assert found is not None and Path(found["file"]) == path.resolve() and int(found["line"]) == 8, result.error


def test_migrate_names_the_line_and_the_manual_step(tmp_path: Path) -> None:
    path = tmp_path / "head.py"
    path.write_text(COMPLEX)
    run = CliRunner().invoke(app, ["migrate", str(path), "--model", "build", "--inputs", "inputs", "--dynamic-axes",
                                   '{"x": {"0": "b", "2": "t"}}', "--runs", "1", "--warmup", "0", "--backends",
                                   "torch-cpu,onnxruntime-cpu", "--format", "json"])
    model = json.loads(run.stdout)["models"][0]
    failures = [e for e in model["remaining"] if e["kind"] == "export_failure"]
    assert [e["source"] for e in failures] == [f"{path.resolve()}:8"], model["remaining"]
    assert failures[0]["manual_step"] == COMPLEX_CONSTANT_STEP
    assert model["exit_code"] == 1
