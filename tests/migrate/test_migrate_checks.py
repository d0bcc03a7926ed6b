"""A value read in a check that only raises or warns is not a wrong value: the exported graph
drops the check (and its warning) and computes the same outputs. monai's detection heads
check their logits this way (``retinanet_network.py``: ``if torch.isnan(x).any() or
torch.isinf(x).any(): if torch.is_grad_enabled(): raise ... else: warnings.warn(...)``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from trtcodemod.cli import app

FAST = ["--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu", "--format", "json"]

HEAD = '''\
import logging
import warnings

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Head(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        if torch.isnan(y).any() or torch.isinf(y).any():
            if torch.is_grad_enabled():
                raise ValueError("y is NaN or Inf.")
            else:
{body}
        return y * 2.0


def build() -> nn.Module:
    return Head().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 8, 8, generator=generator),)
'''

WARNS = '                warnings.warn("y is NaN or Inf.")\n                logger.warning("checked %d maps", 1)'
#: The same check, but its else-branch changes the output: a real value baked in.
CHANGES = "                y = torch.nan_to_num(y)"


def _migrate(tmp_path: Path, body: str) -> tuple[dict[str, Any], int]:
    model = tmp_path / "head.py"
    model.write_text(HEAD.format(body=body))
    result = CliRunner().invoke(app, ["migrate", str(model), "--model", "build", "--inputs", "inputs",
                                      "--dynamic-axes", '{"x": {"0": "batch"}}', *FAST])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return json.loads(result.stdout)["models"][0], HEAD.format(body=body).splitlines().index(
        "        if torch.isnan(y).any() or torch.isinf(y).any():") + 1


def test_a_check_that_only_raises_or_warns_leaves_a_warning_and_exit_0(tmp_path: Path) -> None:
    report, line = _migrate(tmp_path, WARNS)
    at_check = [r for r in report["remaining"] if r["source"].endswith(f"head.py:{line}")]
    assert at_check and all(r["severity"] == "warning" for r in at_check), report["remaining"]
    assert any("value read in a check at line" in r["message"] for r in at_check)
    assert report["exit_code"] == 0 and report["applied"] == []
    assert report["after"]["faithful"] is True and report["equivalent"] is True


def test_a_check_whose_branch_changes_values_stays_an_error(tmp_path: Path) -> None:
    report, line = _migrate(tmp_path, CHANGES)
    at_check = [r for r in report["remaining"] if r["source"].endswith(f"head.py:{line}")]
    assert any(r["severity"] == "error" for r in at_check), report["remaining"]
    assert not any("value read in a check" in r["message"] for r in report["remaining"])
    assert report["exit_code"] != 0
