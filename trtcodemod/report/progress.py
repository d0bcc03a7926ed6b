"""Progress on standard error: a one-line bar for long batch runs on a terminal, and the
status line of one model's run (``verify``, ``migrate``)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from typing import TextIO


class Progress:
    """``[#######.....]  312/1387  22%  models/resnet.py`` redrawn in place, at most 10 times a second.

    Drawn only when ``stream`` is a terminal (never into a pipe, a file or CI logs) and
    ``TERM`` is not ``dumb``; silent for runs shorter than ``delay`` seconds, so that
    small runs stay quiet. :meth:`close` erases the line.
    """

    def __init__(self, total: int, stream: TextIO | None = None, *, enabled: bool = True, delay: float = 0.5,
                 label: str = "checking") -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = total
        self.done = 0
        self.label = label
        self.enabled = enabled and total > 1 and _is_terminal(self.stream)
        self._start = time.monotonic()
        self._delay = delay
        self._last = 0.0
        self._drawn = False

    def __call__(self, outcome: object = None) -> None:
        self.done += 1
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._start < self._delay or (now - self._last < 0.1 and self.done < self.total):
            return
        self._last = now
        self._draw(getattr(getattr(outcome, "file", None), "display", ""))

    def _draw(self, name: str) -> None:
        width = shutil.get_terminal_size((80, 24)).columns
        share = self.done / self.total if self.total else 1.0
        count = f"{self.done:>{len(str(self.total))}}/{self.total}"
        bar_width = max(10, min(30, width // 4))
        filled = int(bar_width * share)
        head = f"{self.label} [{'#' * filled}{'.' * (bar_width - filled)}] {count} {share:4.0%} "
        room = width - len(head) - 1
        tail = name if len(name) <= room else "..." + name[-(room - 3):] if room > 3 else ""
        self.stream.write("\r" + head + tail + "\x1b[K")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._drawn = False

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class StatusLine:
    """One self-overwriting status line on stderr when stderr is a terminal; with ``lines``
    (``migrate --profile``), one line per message where it is not (a log file)."""

    def __init__(self, lines: bool = False) -> None:
        self.tty = sys.stderr.isatty()
        self.enabled = self.tty or lines
        self.label = ""
        self.start = time.monotonic()

    def __call__(self, message: str) -> None:
        if self.enabled:
            line = f"[{time.monotonic() - self.start:5.1f}s] {self.label}: {message}"
            sys.stderr.write(f"\r\x1b[K{line}" if self.tty else f"{line}\n")
            sys.stderr.flush()

    def done(self) -> None:
        if self.tty:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False
