"""A zoo's model run away from the command's process: ``python -m trtcodemod.zoo.worker``.

A local ``--jobs`` slot (:func:`serve`) gets pickled :class:`Task` files and pickles each
result ``(report, sources)`` to a file (renamed into place, so a process that dies leaves no
half-written result). Ray runs the same :func:`run_task` in its own fresh worker process.
"""

from __future__ import annotations

import os
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trtcodemod.verify.spec import VerifySpec

Result = tuple[dict[str, Any], dict[str, tuple[bytes, bytes]]]
#: The thread-pool sizes torch, NumPy and ONNX Runtime's dependencies read at start.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


@dataclass(frozen=True)
class Task:
    """One model to run: plain data, picklable."""

    command: str  # "migrate" or "verify"
    spec: VerifySpec
    threads: int = 1
    facts_out: Path | None = None


class _Silent:
    """The commands' progress callback, for a process nobody watches."""

    label = ""

    def __call__(self, message: str) -> None:
        pass

    def done(self) -> None:
        pass


def thread_environment(threads: int) -> dict[str, str]:
    """The environment bounding every library's CPU threads (inherited by the model's workers)."""
    return {name: str(max(1, threads)) for name in THREAD_VARIABLES}


def run_task(task: Task) -> Result:
    """Run one model with the per-model entry points the commands use; never raises for model faults."""
    os.environ.update(thread_environment(task.threads))  # the model's worker processes inherit it
    if task.command == "migrate":
        from trtcodemod.migrate.one import run_one as run_migrate

        return run_migrate(task.spec, _Silent(), task.facts_out)  # type: ignore[arg-type]
    from trtcodemod.verify.one import run_one as run_verify

    return run_verify(task.spec, _Silent()), {}  # type: ignore[arg-type]


def serve() -> int:
    """Run tasks one after another: read ``TASK<tab>RESULT`` lines on stdin, answer ``done`` on stdout.

    One process serves a ``--jobs`` slot for many models, so torch and ONNX are imported once
    per slot, not once per model (as ``--jobs 1`` imports them once); each model still runs in
    its own worker processes, and a slot that dies is replaced.
    """
    # The protocol keeps the real stdout; anything else printed to it goes to stderr.
    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    for line in sys.stdin:
        source, target = line.rstrip("\n").split("\t")
        result = run_task(pickle.loads(Path(source).read_bytes()))
        temp = Path(target + ".tmp")
        temp.write_bytes(pickle.dumps(result))
        os.replace(temp, target)
        protocol.write("done\n")
        protocol.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve())
