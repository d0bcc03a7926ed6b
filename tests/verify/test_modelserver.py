"""Model servers: the workers of one model fork from a process that imported it once, and
never see a module that is not what its files say now.

Real workers (``run_task``, the model task's float64 run) on a package whose model takes a
constant from a library module by name, and whose library writes a line to a file each time
it is imported.
"""

from __future__ import annotations

import os
import shutil
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from trtcodemod.verify.forkserver import STATS
from trtcodemod.verify.spec import InputsSpec
from trtcodemod.verify.worker import MODEL_TASK, run_task

_LIBRARY = '''
import os

SCALE = {scale}
with open(os.path.join(os.path.dirname(__file__), "imports.log"), "a") as fh:
    fh.write("imported\\n")
'''

_MODEL = '''
import time

import torch

from .library import SCALE


class Net(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * SCALE


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.ones(2, 3),)
'''


def _package(root: Path, scale: float, model: str = _MODEL) -> Path:
    package = root / "msrv_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "library.py").write_text(textwrap.dedent(_LIBRARY.format(scale=scale)).lstrip())
    (package / "model.py").write_text(textwrap.dedent(model).lstrip())
    return package


def _request(package: Path) -> dict[str, Any]:
    return {"task": MODEL_TASK, "role": "before-float64", "model_file": str(package / "model.py"),
            "import_root": str(package.parent), "module": "msrv_pkg.model", "model": "Net", "seed": 0, "threads": 1,
            "inputs": InputsSpec(function="inputs"), "dynamic_axes": {}, "exporters": [], "eager_devices": [],
            "float64": True, "opset": 17, "out_dir": str(package.parent), "runs": 0, "warmup": 0}


def _scale(package: Path, folder: Path) -> float:
    outcome = run_task(_request(package), folder, 120)
    assert outcome.status == "ok", outcome.message + outcome.log
    return float(np.asarray(outcome.data["float64"][0][0]).flat[0])


def _imports(package: Path) -> int:
    return len((package / "imports.log").read_text().splitlines())


def test_the_workers_of_one_model_import_it_once_in_its_model_server(tmp_path: Path) -> None:
    package = _package(tmp_path / "one", 2.0)
    before = dict(STATS)
    assert [_scale(package, tmp_path / f"task{k}") for k in range(3)] == [2.0, 2.0, 2.0]
    assert STATS["model_servers"] - before["model_servers"] == 1
    assert STATS["preloaded_forks"] - before["preloaded_forks"] == 3
    assert _imports(package) == 1  # in the model server, not in each worker


def test_a_library_file_rewritten_in_place_is_imported_afresh(tmp_path: Path) -> None:
    package = _package(tmp_path / "inplace", 2.0)
    assert _scale(package, tmp_path / "first") == 2.0
    library = package / "library.py"
    stat = library.stat()
    library.write_text(library.read_text().replace("SCALE = 2.0", "SCALE = 5.0"))
    os.utime(library, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # whatever the clock's grain
    # The model module took SCALE by name: a server that kept it would answer 2.0.
    assert _scale(package, tmp_path / "second") == 5.0
    assert _scale(package, tmp_path / "third") == 5.0


def test_a_rewritten_copy_under_the_same_module_names_sees_its_own_files(tmp_path: Path) -> None:
    original = _package(tmp_path / "original", 2.0)
    copy = tmp_path / "copy" / "msrv_pkg"
    shutil.copytree(original, copy)
    (copy / "library.py").write_text((copy / "library.py").read_text().replace("SCALE = 2.0", "SCALE = 7.0"))
    assert _scale(original, tmp_path / "a") == 2.0
    assert _scale(copy, tmp_path / "b") == 7.0
    assert _scale(original, tmp_path / "c") == 2.0


def test_a_model_that_does_not_import_fails_in_its_task_as_before(tmp_path: Path) -> None:
    package = _package(tmp_path / "broken", 2.0, _MODEL + "\nraise RuntimeError('no import here')\n")
    outcome = run_task(_request(package), tmp_path / "task", 120)
    assert outcome.status == "error"
    assert "no import here" in outcome.message and "during import" in outcome.message


def test_a_model_whose_import_outlasts_the_limit_times_out(tmp_path: Path) -> None:
    package = _package(tmp_path / "slow", 2.0, _MODEL + "\ntime.sleep(120)\n")
    outcome = run_task(_request(package), tmp_path / "task", 3)
    assert outcome.status == "timeout"
    assert "during import" in outcome.message


def _observed(package: Path, folder: Path) -> dict[str, Any]:
    from trtcodemod.migrate.observe import OBSERVE_TASK

    request = {"task": OBSERVE_TASK, "model_file": str(package / "model.py"), "import_root": str(package.parent),
               "module": "msrv_pkg.model", "extra_paths": [], "user_roots": [str(package)], "model": "Net",
               "model_args": (), "model_kwargs": {}, "inputs": InputsSpec(function="inputs"), "seed": 0,
               "threads": 1, "dynamic_axes": {}}
    outcome = run_task(request, folder, 120, module="trtcodemod.migrate.observe")
    assert outcome.status == "ok", outcome.message + outcome.log
    return outcome.data["facts"]


def test_the_observer_forked_from_a_model_server_sees_what_a_fresh_one_sees(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = _package(tmp_path / "observed", 2.0)
    before = dict(STATS)
    served = _observed(package, tmp_path / "served")
    assert STATS["preloaded_forks"] - before["preloaded_forks"] == 1
    monkeypatch.setenv("TRTCODEMOD_PRELOAD", "0")
    alone = _observed(package, tmp_path / "alone")
    assert STATS["preloaded_forks"] - before["preloaded_forks"] == 1
    # library.py ran only while the model module was imported (in the server): still a user file.
    assert str((package / "library.py").resolve()) in served["lines"]
    assert served["lines"] == alone["lines"] and served["forward"] == alone["forward"]
