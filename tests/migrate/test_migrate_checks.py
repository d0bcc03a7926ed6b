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


# --- a check one call away: a check function called as a statement (kornia's KORNIA_CHECK) -----

CHECK_LIBRARY = '''\
def CHECK(condition, msg=None, raises=True):
    if not condition:
        if raises:
            text = "failed" if msg is None else msg
            raise ValueError(text)
        return False
    return True


def CHECK_FINITE(x, raises=True):
    if not bool(x.isfinite().all()):
        if raises:
            raise ValueError("x must be finite")
        return False
    return True


def CHECK_SAME_SIZE(x, y, dim=0, raises=True):
    x_shape, y_shape = x.shape, y.shape
    if not (x_shape[dim] == y_shape[dim] or x_shape[dim] == 1):
        if raises:
            raise ValueError(f"size mismatch: {list(x_shape)} and {list(y_shape)}")
        return False
    return True
'''

BLUR = '''\
import torch
from torch import nn

from chklib.checks import CHECK, CHECK_FINITE, CHECK_SAME_SIZE


class Blur(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("sigma", torch.tensor([[1.5, 0.5]]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
{body}
        return x * self.sigma.sum()


def build() -> nn.Module:
    return Blur().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 4, 4, generator=generator),)
'''

#: Each read only decides whether a check raises: the sizes inside CHECK_SAME_SIZE, the values inside
#: CHECK_FINITE, the flag handed to CHECK.
CHECKED = ('        CHECK_SAME_SIZE(self.sigma, x)\n'
           '        CHECK_FINITE(x)\n'
           '        finite = bool(x.isfinite().all())\n'
           '        CHECK(finite, "x must be finite" if finite else f"x has {x.numel()} values")')
#: The same calls, their results used: the size comparison and the flag choose the output.
USED = ('        if not CHECK_SAME_SIZE(self.sigma, x, raises=False):\n'
        '            x = x * 2.0\n'
        '        if not CHECK_FINITE(x, raises=False):\n'
        '            x = x.nan_to_num()\n'
        '        finite = bool(x.isfinite().all())\n'
        '        CHECK(finite)\n'
        '        x = x if finite else x.nan_to_num()')


def _migrate_blur(tmp_path: Path, body: str) -> dict[str, Any]:
    package = tmp_path / "chklib"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "checks.py").write_text(CHECK_LIBRARY)
    model = tmp_path / "blur.py"
    model.write_text(BLUR.format(body=body))
    result = CliRunner().invoke(app, ["migrate", str(model), "--model", "build", "--inputs", "inputs",
                                      "--dynamic-axes", '{"x": {"0": "batch"}}', *FAST])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return json.loads(result.stdout)["models"][0]


def _at(report: dict[str, Any], name: str, line: int) -> list[dict[str, Any]]:
    return [r for r in report["remaining"] if (r["source"] or "").endswith(f"{name}:{line}")]


def test_reads_that_only_decide_a_check_function_leave_warnings_and_exit_0(tmp_path: Path) -> None:
    report = _migrate_blur(tmp_path, CHECKED)
    inside = CHECK_LIBRARY.splitlines().index("    if not (x_shape[dim] == y_shape[dim] or x_shape[dim] == 1):") + 1
    values = CHECK_LIBRARY.splitlines().index("    if not bool(x.isfinite().all()):") + 1
    flag = BLUR.format(body=CHECKED).splitlines().index("        finite = bool(x.isfinite().all())") + 1
    for name, line in (("checks.py", inside), ("checks.py", values), ("blur.py", flag)):
        found = _at(report, name, line)
        assert found and all(r["severity"] == "warning" for r in found), (name, report["remaining"])
        assert all("only decides whether a check function raises" in r["message"] for r in found)
    assert report["exit_code"] == 0 and report["equivalent"] is True


def test_the_same_reads_stay_errors_where_the_results_are_used(tmp_path: Path) -> None:
    report = _migrate_blur(tmp_path, USED)
    values = CHECK_LIBRARY.splitlines().index("    if not bool(x.isfinite().all()):") + 1
    flag = BLUR.format(body=USED).splitlines().index("        finite = bool(x.isfinite().all())") + 1
    for name, line in (("checks.py", values), ("blur.py", flag)):
        assert any(r["severity"] == "error" for r in _at(report, name, line)), (name, report["remaining"])
    assert not any("only decides whether a check function raises" in r["message"] for r in report["remaining"])
    assert report["exit_code"] == 1
