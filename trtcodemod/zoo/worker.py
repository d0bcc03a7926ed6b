"""One model of a zoo, in a process of its own: ``python -m trtcodemod.zoo.worker IN OUT``.

``IN`` is a pickled :class:`Task`; the result ``(report, sources)`` is pickled to ``OUT``
(renamed into place, so a process that dies leaves no half-written result). Ray runs the
same :func:`run_task` in its own fresh worker process.
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
    """Run one model with the commands' own per-model entry points; never raises for model faults."""
    os.environ.update(thread_environment(task.threads))  # the model's worker processes inherit it
    if task.command == "migrate":
        from trtcodemod.migrate.command import _run_one as run_migrate

        return run_migrate(task.spec, _Silent(), task.facts_out)  # type: ignore[arg-type]
    from trtcodemod.verify.command import _run_one as run_verify

    return run_verify(task.spec, _Silent()), {}  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    source, target = (argv if argv is not None else sys.argv[1:])[:2]
    task = pickle.loads(Path(source).read_bytes())
    result = run_task(task)
    temp = Path(target + ".tmp")
    temp.write_bytes(pickle.dumps(result))
    os.replace(temp, target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
