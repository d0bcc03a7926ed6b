"""The workers' fork server: a forked worker ends, fails and times out as a fresh one did.

Real workers (``run_task`` with the model task) on a model file whose builder does what the
test needs: read the environment, sleep, or kill its own process with a signal.
"""

from __future__ import annotations

import os
import pickle
import textwrap
from pathlib import Path
from typing import Any

import pytest

from trtcodemod.verify.forkserver import STATS
from trtcodemod.verify.spec import InputsSpec
from trtcodemod.verify.worker import MODEL_TASK, run_task

_MODEL = '''
import os
import signal
import time

import torch


def imports_late_library() -> torch.nn.Module:
    import late_library  # on a PYTHONPATH set after the server started

    return late_library.build()


def reads_environment() -> torch.nn.Module:
    raise ValueError(f"seen: {os.environ.get('TRTCODEMOD_TEST_VALUE')} in {os.getcwd()}")


def sleeps() -> torch.nn.Module:
    time.sleep(120)
    return torch.nn.Identity()


def segfaults() -> torch.nn.Module:
    os.kill(os.getpid(), signal.SIGSEGV)
    return torch.nn.Identity()


def scales() -> torch.nn.Module:
    return torch.nn.Linear(4, 2)


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 4, generator=generator),)
'''


def _request(folder: Path, model: str) -> dict[str, Any]:
    return {"task": MODEL_TASK, "role": "before", "probe": True, "model_file": str(folder / "fs_model.py"),
            "import_root": str(folder), "module": "fs_model", "model": model, "seed": 0, "threads": 1,
            "inputs": InputsSpec(function="inputs"), "dynamic_axes": {}, "exporters": ["torchscript"], "opset": 17,
            "out_dir": str(folder), "runs": 0, "warmup": 0}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("forkserver")
    (path / "fs_model.py").write_text(textwrap.dedent(_MODEL).lstrip())
    return path.resolve()


def _forked(before: dict[str, int]) -> int:
    assert STATS["fresh"] == before["fresh"], "a worker ran as a fresh interpreter"
    return STATS["forks"] - before["forks"]


def test_a_forked_worker_sees_the_callers_environment_and_folder_of_the_moment(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = dict(STATS)
    run_task(_request(folder, "segfaults"), folder / "warm", 60)  # the server exists before the change below
    monkeypatch.setenv("TRTCODEMOD_TEST_VALUE", "late")
    monkeypatch.chdir(folder)
    outcome = run_task(_request(folder, "reads_environment"), folder / "env", 60)
    assert outcome.status == "error" and outcome.stage == "build"
    assert f"seen: late in {folder}" in outcome.message
    assert _forked(before) == 2


def test_a_library_on_a_pythonpath_set_later_is_importable(folder: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``PYTHONPATH`` is read when an interpreter starts: a server started before the caller set
    it is replaced, so the worker imports what a fresh interpreter would (a library laid out
    on ``PYTHONPATH``)."""
    run_task(_request(folder, "segfaults"), folder / "warm-path", 60)  # the server exists before the change
    (tmp_path / "late_library.py").write_text("import torch\n\ndef build():\n    return torch.nn.Linear(4, 2)\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    outcome = run_task(_request(folder, "imports_late_library"), folder / "late", 120)
    assert outcome.status == "ok", outcome.message


def test_a_forked_worker_past_its_limit_is_killed_and_reported(folder: Path) -> None:
    before = dict(STATS)
    outcome = run_task(_request(folder, "sleeps"), folder / "sleep", 3)
    assert outcome.status == "timeout" and outcome.message.startswith("timed out after 3 s during build")
    assert _forked(before) == 1


def test_a_forked_worker_killed_by_a_signal_is_a_crash(folder: Path) -> None:
    before = dict(STATS)
    outcome = run_task(_request(folder, "segfaults"), folder / "crash", 60)
    assert outcome.status == "crashed" and outcome.message == "crashed with SIGSEGV during build", outcome.message
    assert "Fatal Python error" in outcome.log  # faulthandler, as PYTHONFAULTHANDLER gave a fresh worker
    assert _forked(before) == 1


def test_without_the_server_a_worker_is_a_fresh_interpreter(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRTCODEMOD_FORKSERVER", "0")
    before = dict(STATS)
    outcome = run_task(_request(folder, "segfaults"), folder / "fresh", 60)
    assert outcome.status == "crashed" and outcome.message == "crashed with SIGSEGV during build"
    assert STATS["fresh"] - before["fresh"] == 1 and STATS["forks"] == before["forks"]
    assert os.environ["TRTCODEMOD_FORKSERVER"] == "0"


class _NoTorch(pickle.Unpickler):
    """Reads a worker's result as the parent must: without torch (it never imports it)."""

    def find_class(self, module: str, name: str) -> Any:
        assert not module.startswith("torch"), f"the result holds a {module}.{name}"
        return super().find_class(module, name)


def test_a_workers_result_is_read_without_torch(folder: Path) -> None:
    # The parent process never imports torch: a result that needs it (torch's TorchVersion
    # in the probe) cost every migration a torch import there, the workers' saving undone.
    outcome = run_task(_request(folder, "scales"), folder / "plain", 120)
    assert outcome.status == "ok", outcome.message
    assert outcome.data["probe"]["torch"] and outcome.data["exports"]["torchscript"]["path"]
    with open(folder / "plain" / "result.pkl", "rb") as handle:
        data = _NoTorch(handle).load()
    assert data["done"] and type(data["probe"]["torch"]) is str
