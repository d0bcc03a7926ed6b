"""Where a migration's time goes: its phases, in order, with their wall times; and its deadline.

``migrate`` opens one :class:`Phases` per model and hands it to the verifier's session, so
the report's ``phases`` list covers observing, the static analysis, each export and check of
the original, the second trace, each round and the lift, in the order they ran. Each phase
says its name and the elapsed time on the progress line as it starts.

A per-model time limit (``--model-timeout``) is a deadline: no worker is given longer than
what is left of it, and a phase that ends past it raises :class:`ModelTimeout`, which
``migrate`` turns into a clean result (exit 2, the phases so far).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

#: The least a worker is given, even with the deadline passed: it starts, finds no time, and
#: the phase that started it ends with :class:`ModelTimeout` (a worker needs a positive limit).
_MIN_WORKER_SECONDS = 1.0


class ModelTimeout(Exception):
    """The model's time limit passed; ``phase`` is the phase that was running."""

    def __init__(self, limit: float, phase: str) -> None:
        super().__init__(f"timed out: the migration took more than {limit:g} s (--model-timeout), "
                         f"during phase {phase!r}")
        self.limit = limit
        self.phase = phase


class Phases:
    """The phases of one migration, ``[{"phase", "seconds"}]`` in order (``rows``)."""

    def __init__(self, progress: Callable[[str], None] | None = None, limit: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.progress = progress or (lambda _msg: None)
        self.clock = clock
        self.start = clock()
        self.limit = limit
        self.rows: list[dict[str, Any]] = []
        #: Prepended to the phases' names (``round 2: ``) while a section of the migration runs.
        self.prefix = ""

    def elapsed(self) -> float:
        return self.clock() - self.start

    def left(self) -> float | None:
        """Seconds left before the deadline (None: no limit)."""
        return None if self.limit is None else self.limit - self.elapsed()

    def worker_timeout(self, seconds: float) -> float:
        """A worker's own limit (``--timeout``), cut to what is left of the model's."""
        left = self.left()
        return seconds if left is None else max(_MIN_WORKER_SECONDS, min(seconds, left))

    def check(self, name: str) -> None:
        left = self.left()
        if left is not None and left <= 0:
            raise ModelTimeout(float(self.limit or 0), name)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time one phase; past the deadline, before it starts or when it ends, :class:`ModelTimeout`."""
        name = self.prefix + name
        self.check(name)
        self.progress(f"{name} (at {self.elapsed():.0f} s)")
        began = self.clock()
        try:
            yield
        finally:
            self.rows.append({"phase": name, "seconds": round(self.clock() - began, 3)})
        self.check(name)

    @contextmanager
    def section(self, prefix: str) -> Iterator[None]:
        """Name the phases inside ``round 2: ...``."""
        saved, self.prefix = self.prefix, f"{self.prefix}{prefix}: "
        try:
            yield
        finally:
            self.prefix = saved
