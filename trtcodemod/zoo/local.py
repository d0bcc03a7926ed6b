"""Up to N models at once on this machine: N slot processes (:func:`.worker.serve`).

A slot runs one model at a time, the way the command's own process does with ``--jobs 1``:
the model itself runs in its usual worker processes. A slot that dies (a crash, a signal,
the kernel's out-of-memory killer) makes the model it was running that model's failure
report, its process group is ended, and a fresh slot takes the next model.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable

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


@dataclass
class _Slot:
    proc: subprocess.Popen
    stderr: Path
    index: int = -1  # the task it runs (-1: idle)
    offset: int = 0  # where that task's stderr starts

    @property
    def stdout(self) -> IO[str]:
        assert self.proc.stdout is not None
        return self.proc.stdout

    def send(self, index: int, folder: Path) -> None:
        self.index = index
        self.offset = self.stderr.stat().st_size
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{folder / 'task'}\t{folder / 'result'}\n")
        self.proc.stdin.flush()

    def stderr_tail(self, limit: int = 1500) -> str:
        try:
            with open(self.stderr, "rb") as handle:
                handle.seek(self.offset)
                return handle.read().decode(errors="replace").strip()[-limit:]
        except OSError:
            return ""

    def end(self) -> None:
        """Stop the slot and anything of the model's still running in its process group."""
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                stream and stream.close()


def run_local(tasks: list[Task], jobs: int, on_done: Done, on_error: ErrorReport,
              on_start: Callable[[int], None] | None = None) -> None:
    """Run ``tasks`` in at most ``jobs`` slots, in their order; ``on_start`` gets each index as a
    slot takes it, ``on_done`` each result as it ends."""
    work = Path(tempfile.mkdtemp(prefix="trtcodemod-zoo-"))
    waiting = list(range(len(tasks)))
    slots: list[_Slot] = []
    selector = selectors.DefaultSelector()
    threads = tasks[0].threads if tasks else 1
    try:
        while waiting or any(slot.index >= 0 for slot in slots):
            while waiting and len(slots) < max(1, jobs):
                slot = _start(work / f"slot{len(slots)}-{len(waiting)}.stderr", threads)
                selector.register(slot.stdout, selectors.EVENT_READ, slot)
                slots.append(slot)
            for slot in slots:
                if slot.index < 0 and waiting:
                    index = waiting.pop(0)
                    slot.send(index, _write_task(work, index, tasks[index]))
                    if on_start is not None:
                        on_start(index)
            for key, _ in selector.select():
                slot = key.data
                index, slot.index = slot.index, -1
                if slot.stdout.readline():  # "done": the result is in place
                    on_done(index, _read(work / str(index), tasks[index], on_error))
                    continue
                # The slot died (with the model it ran, if any): a fresh one takes the next model.
                selector.unregister(slot.stdout)
                slot.end()
                slots.remove(slot)
                if index >= 0:
                    message = died_message(slot.proc.returncode, slot.stderr_tail())
                    on_done(index, (on_error(tasks[index].spec.label, message), {}))
    finally:
        for slot in slots:  # done, or interrupted: nothing of a model keeps running
            slot.end()
        selector.close()
        shutil.rmtree(work, ignore_errors=True)


def _write_task(work: Path, index: int, task: Task) -> Path:
    folder = work / str(index)
    folder.mkdir()
    (folder / "task").write_bytes(pickle.dumps(task))
    return folder


def _start(stderr_path: Path, threads: int) -> _Slot:
    env = {**os.environ, **thread_environment(threads)}
    with open(stderr_path, "ab") as stderr:
        # Its own process group, so that ending the slot ends what the model left behind.
        proc = subprocess.Popen([sys.executable, "-m", "trtcodemod.zoo.worker"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=stderr, env=env, text=True, bufsize=1,
                                start_new_session=True)
    return _Slot(proc, stderr_path)


def _read(folder: Path, task: Task, on_error: ErrorReport) -> Result:
    try:
        return pickle.loads((folder / "result").read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError) as exc:
        return on_error(task.spec.label, f"the model's result could not be read: {exc}"), {}
