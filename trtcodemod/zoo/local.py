"""Up to N models at once on this machine, each in a fresh process (:mod:`.worker`).

A model's process that dies (a crash, a signal, the kernel's out-of-memory killer) or
leaves no result is that model's failure report; the other models go on.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from .worker import Result, Task, thread_environment

#: ``on_done(index, result)``: called in the order models finish.
Done = Callable[[int, Result], None]
#: ``on_error(name, message)``: the command's report for a model that could not run.
ErrorReport = Callable[[str, str], dict]


def died_message(returncode: int, stderr_tail: str) -> str:
    """Why a model's process left no result, in words."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        hint = " (killed: out of memory?)" if -returncode == signal.SIGKILL else ""
        why = f"the model's process was stopped by {name}{hint}"
    else:
        why = f"the model's process exited {returncode} without a result"
    return f"{why}: {stderr_tail}" if stderr_tail else why


def _tail(path: Path, limit: int = 1500) -> str:
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return ""
    return text[-limit:]


def run_local(tasks: list[Task], jobs: int, on_done: Done, on_error: ErrorReport) -> None:
    """Run ``tasks`` with at most ``jobs`` processes; ``on_done`` gets each result as it ends."""
    work = Path(tempfile.mkdtemp(prefix="trtcodemod-zoo-"))
    waiting = list(range(len(tasks)))
    running: dict[int, subprocess.Popen] = {}
    try:
        while waiting or running:
            while waiting and len(running) < max(1, jobs):
                index = waiting.pop(0)
                running[index] = _start(tasks[index], work / str(index))
            finished = [i for i, proc in running.items() if proc.poll() is not None]
            if not finished:
                time.sleep(0.05)
                continue
            for index in finished:
                proc = running.pop(index)
                with contextlib.suppress(OSError):  # a killed model's workers outlive it: end them
                    os.killpg(proc.pid, signal.SIGKILL)
                on_done(index, _collect(tasks[index], proc, work / str(index), on_error))
    finally:
        for proc in running.values():  # interrupted: nothing of the model keeps running
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)  # its own group: the model's workers too
            proc.wait()
        shutil.rmtree(work, ignore_errors=True)


def _start(task: Task, folder: Path) -> subprocess.Popen:
    folder.mkdir()
    (folder / "task").write_bytes(pickle.dumps(task))
    env = {**os.environ, **thread_environment(task.threads)}
    with open(folder / "stderr", "wb") as stderr:
        return subprocess.Popen([sys.executable, "-m", "trtcodemod.zoo.worker", str(folder / "task"),
                                 str(folder / "result")], stdin=subprocess.DEVNULL, stdout=stderr,
                                stderr=stderr, env=env, start_new_session=True)


def _collect(task: Task, proc: subprocess.Popen, folder: Path, on_error: ErrorReport) -> Result:
    try:
        return pickle.loads((folder / "result").read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError):
        return on_error(task.spec.label, died_message(proc.returncode, _tail(folder / "stderr"))), {}
