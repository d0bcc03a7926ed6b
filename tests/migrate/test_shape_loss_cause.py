"""An export stopped by an operator whose input lost its static shape to an ``If`` upstream: the cause is the ``If``.

funasr's CAM++ ``DenseLayer`` (funasr 1.4.16 ``models/campplus/components.py:446``) runs
``self.linear(x.unsqueeze(dim=-1)).squeeze(dim=-1)`` on a dynamic axis: the TorchScript exporter writes the squeeze as
an ONNX ``If`` (is the axis 1?), whose output has no static shape, and the BatchNorm on the next line stops the export
("ONNX export of batch_norm for unknown channel size"). The error names the value the ``If`` made and its line:
``locate`` places the failure there too, where ``plan`` matches TRT401 (the squeeze taken by index) as any fix at a
failing line. The error is
the exporter's own text on CAM++ (a small layer alone keeps the squeezed axis's size, and its squeeze exports
without an ``If``); with the fix migrate now applies TRT401 at that line on CAM++ (observed: the axis is 1 in every
call).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from trtcodemod.engine import Options, check_source
from trtcodemod.migrate.locate import Problem, _shape_lost_at
from trtcodemod.migrate.plan import matches

LAYER = '''import torch
from torch import nn


class Dense(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Conv1d(6, 4, 1)
        self.norm = nn.BatchNorm1d(4)

    def forward(self, x):
        x = self.linear(x.unsqueeze(dim=-1)).squeeze(dim=-1)
        return self.norm(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = Dense().eval()

    def forward(self, x):
        return self.dense(x.squeeze(dim=-1))
'''


#: The TorchScript exporter's error on CAM++ (torch 2.13, zoo 68's ``funasr_campplus_speaker`` with its Kaldi front end
#: rewritten), trimmed of the graph dump after the value; ``{path}`` stands for the layer's file.
ERROR = ("SymbolicValueError: Unsupported: ONNX export of batch_norm for unknown channel size.  [Caused by the value "
         "'input.1387 defined in (%input.1387 : Float(*, *, strides=[192, 1], requires_grad=1, device=cpu) = "
         "onnx::If(%5200), scope: funasr.models.campplus.model.CAMPPlus::model/torch.nn.modules.container.Sequential::"
         "xvector/funasr.models.campplus.components.DenseLayer::dense # {path}:{line}:0\n)' (type 'Tensor') in the "
         "TorchScript graph. The containing node has kind 'onnx::If'.]")


@pytest.fixture(scope="module")
def failure(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("campplus") / "layer.py"
    path.write_text(LAYER)
    squeeze = LAYER.splitlines().index("        x = self.linear(x.unsqueeze(dim=-1)).squeeze(dim=-1)") + 1
    return path, ERROR.format(path=path, line=squeeze)


def test_the_error_names_the_if_and_locate_places_the_cause_there(failure: tuple[Path, str]) -> None:
    path, error = failure
    assert "unknown channel size" in error
    squeeze = LAYER.splitlines().index("        x = self.linear(x.unsqueeze(dim=-1)).squeeze(dim=-1)") + 1
    assert _shape_lost_at(error, str(path), {str(path.resolve())}) == (str(path.resolve()), squeeze)
    # On a rewritten copy the graph names the copy's file: the failure's file of the same folder and name stands in.
    copy = error.replace(str(path), "/tmp/trtcodemod-copy/x" + str(path))
    assert _shape_lost_at(copy, str(path), set()) == (str(path), squeeze)
    assert _shape_lost_at(copy, "/elsewhere/other.py", set()) is None
    assert _shape_lost_at(error.replace("unknown channel size", "a size"), str(path), {str(path.resolve())}) is None


def test_trt401_at_the_if_matches_the_failure_and_nothing_else(failure: tuple[Path, str]) -> None:
    path, error = failure
    squeeze = LAYER.splitlines().index("        x = self.linear(x.unsqueeze(dim=-1)).squeeze(dim=-1)") + 1
    found = check_source(path.read_bytes(), str(path), Options(select=("TRT401",), unsafe=True, scope="all"))
    [finding] = [f for f in found if f.line == squeeze]
    [upstream] = [f for f in found if f.line != squeeze]  # the wrapper's squeeze made another If, not this value
    at_if = Problem("export_failure", str(path.resolve()), finding.line, "(export)", None, error[:300], "error",
                    "torchscript")
    at_norm = Problem("export_failure", str(path.resolve()), finding.line + 1, "(export)", None, error[:300], "error",
                      "torchscript")
    assert matches(at_if, finding) and not matches(at_norm, finding) and not matches(at_if, upstream)
