"""A rewritten copy's model server forks from a checkpoint of the original's import
(``verify/resume.py``): it runs the copy's changed modules, never re-runs the unchanged ones
imported before them, and never keeps a module the copy changed.

Real workers (``run_task``, the model task's float64 run) on a package whose every module
writes a line to a log next to its file each time it runs, so the log of the copy's folder says
which of the copy's files ran. ``TRTCODEMOD_CHECKPOINT_GAP=0``: a checkpoint at every module.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from trtcodemod.verify.forkserver import STATS
from trtcodemod.verify.spec import InputsSpec
from trtcodemod.verify.worker import MODEL_TASK, run_task

_LOG = '''
import os

with open(os.path.join(os.path.dirname(__file__), "runs.log"), "a") as fh:
    fh.write(__name__.rsplit(".", 1)[-1] + "\\n")
'''

_FILES = {
    "__init__.py": "",
    "registry.py": _LOG + "\nSCALES: dict[str, float] = {}\n",
    "early.py": _LOG + "\nOFFSET = OFFSET_VALUE\n",
    "late.py": _LOG + "\nfrom .registry import SCALES\n\nSCALE = SCALE_VALUE\nSCALES['late'] = SCALE\n",
    "model.py": _LOG + '''
import torch

from .registry import SCALES  # noqa: I001 - the order the test's logs check
from . import early
from .late import SCALE


class Net(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * SCALE + early.OFFSET + 0 * SCALES["late"]


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.ones(2, 3),)
''',
}


def _package(root: Path, scale: float = 2.0, offset: float = 0.0) -> Path:
    package = root / "rsm_pkg"
    package.mkdir(parents=True)
    for name, text in _FILES.items():
        text = textwrap.dedent(text).lstrip()
        (package / name).write_text(text.replace("SCALE_VALUE", str(scale)).replace("OFFSET_VALUE", str(offset)))
    return package


def _copy(original: Path, root: Path, file: str, old: str, new: str) -> Path:
    copy = root / "rsm_pkg"
    shutil.copytree(original, copy, ignore=shutil.ignore_patterns("runs.log", "__pycache__"))
    (copy / file).write_text((copy / file).read_text().replace(old, new))
    return copy


def _late_copy(original: Path, root: Path, scale: float) -> Path:
    """A copy whose late.py (the last module the model imports) has another scale."""
    return _copy(original, root, "late.py", "SCALE = 2.0", f"SCALE = {scale}")


def _resumed_since(before: dict[str, int]) -> int:
    return STATS["resumed_model_servers"] - before["resumed_model_servers"]


def _request(package: Path) -> dict[str, Any]:
    return {"task": MODEL_TASK, "role": "before-float64", "model_file": str(package / "model.py"),
            "import_root": str(package.parent), "module": "rsm_pkg.model", "model": "Net", "seed": 0, "threads": 1,
            "inputs": InputsSpec(function="inputs"), "dynamic_axes": {}, "exporters": [], "eager_devices": [],
            "float64": True, "opset": 17, "out_dir": str(package.parent), "runs": 0, "warmup": 0}


def _value(package: Path, folder: Path) -> float:
    outcome = run_task(_request(package), folder, 120)
    assert outcome.status == "ok", outcome.message + outcome.log
    return float(np.asarray(outcome.data["float64"][0][0]).flat[0])


def _ran(package: Path) -> list[str]:
    log = package / "runs.log"
    return log.read_text().split() if log.exists() else []


@pytest.fixture(autouse=True)
def _checkpoint_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRTCODEMOD_CHECKPOINT_GAP", "0")


def test_a_copy_that_changed_a_late_module_runs_only_that_module_and_those_after_it(tmp_path: Path) -> None:
    original = _package(tmp_path / "original")
    copy = _late_copy(original, tmp_path / "copy", 7.0)
    before = dict(STATS)
    assert [_value(original, tmp_path / "a"), _value(copy, tmp_path / "b"), _value(copy, tmp_path / "c")] == [2, 7, 7]
    assert _resumed_since(before) == 1
    # The copy's unchanged modules imported before late.py ran once, in the original's server.
    assert _ran(original) == ["model", "registry", "early", "late"]
    assert _ran(copy) == ["late"]
    assert _value(original, tmp_path / "d") == 2.0


def test_a_copy_that_changed_an_early_module_runs_it_from_the_copy(tmp_path: Path) -> None:
    original = _package(tmp_path / "original")
    copy = _copy(original, tmp_path / "copy", "early.py", "OFFSET = 0.0", "OFFSET = 3.0")
    assert _value(original, tmp_path / "a") == 2.0
    assert _value(copy, tmp_path / "b") == 5.0
    assert _ran(copy) == ["early", "late"]  # from the checkpoint before early.py on


def test_a_registry_filled_by_a_changed_module_holds_the_copys_entry(tmp_path: Path) -> None:
    original = _package(tmp_path / "original")
    copy = _copy(original, tmp_path / "copy", "late.py", "SCALES['late'] = SCALE", "SCALES['late'] = float('nan')")
    assert _value(original, tmp_path / "a") == 2.0
    # The registry ran before late.py: the copy's server holds it as it was before the original's
    # late.py filled it, and the copy's late.py fills it (0 * nan is nan).
    assert np.isnan(_value(copy, tmp_path / "b"))
    assert "registry" not in _ran(copy)


def test_a_copy_of_a_changed_model_file_imports_afresh(tmp_path: Path) -> None:
    original = _package(tmp_path / "original")
    copy = _copy(original, tmp_path / "copy", "model.py", "x * SCALE", "x * SCALE * 2")
    before = dict(STATS)
    assert _value(original, tmp_path / "a") == 2.0
    assert _value(copy, tmp_path / "b") == 4.0
    assert _resumed_since(before) == 0
    assert _ran(copy) == ["model", "registry", "early", "late"]


def test_a_folder_a_package_put_on_sys_path_is_the_copys_folder_after_the_checkpoint(tmp_path: Path) -> None:
    original = _package(tmp_path / "original")
    vendor = original / "vendor"
    vendor.mkdir()
    (vendor / "rsm_vendored.py").write_text(textwrap.dedent(_LOG).lstrip() + "\nEXTRA = 0.0\n")
    init = "import os, sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'vendor'))\n"
    (original / "__init__.py").write_text(init)
    model = (original / "model.py").read_text()
    model = model.replace("from .late import SCALE\n", "from .late import SCALE\nfrom rsm_vendored import EXTRA\n")
    (original / "model.py").write_text(model.replace("x * SCALE +", "x * SCALE + EXTRA +"))
    copy = _copy(original, tmp_path / "copy", "vendor/rsm_vendored.py", "EXTRA = 0.0", "EXTRA = 10.0")
    before = dict(STATS)
    assert _value(original, tmp_path / "a") == 2.0
    # rsm_pkg/__init__.py ran before the checkpoint and put the user's vendor folder on sys.path.
    assert _value(copy, tmp_path / "b") == 12.0
    assert _resumed_since(before) == 1
    assert _ran(copy) == [] and (copy / "vendor" / "runs.log").read_text().split() == ["rsm_vendored"]


def test_a_third_copy_still_forks_from_the_originals_checkpoints(tmp_path: Path) -> None:
    original = _package(tmp_path / "original")
    first, second = _late_copy(original, tmp_path / "round", 7.0), _late_copy(original, tmp_path / "culprit", 3.0)
    before = dict(STATS)
    # Two servers are kept: the first copy's (no checkpoints of its own) makes way, not the original's.
    values = [_value(original, tmp_path / "a"), _value(first, tmp_path / "b"), _value(second, tmp_path / "c")]
    assert values == [2.0, 7.0, 3.0]
    assert _resumed_since(before) == 2
    assert _ran(first) == ["late"] and _ran(second) == ["late"]
