"""Zoo output for CI: a line per finished model on stderr, and JUnit XML (one test case per model)."""

from __future__ import annotations

import sys
import time
import xml.etree.ElementTree as ET
from typing import Any, Callable, Sequence, TextIO

Verdict = Callable[[dict[str, Any]], str]
Render = Callable[[dict[str, Any]], str]


def _duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class ZooProgress:
    """``[3/40] resnet: exit 0 (cached) | 1m05s elapsed, about 7m20s left`` per finished model.

    Written whether or not stderr is a terminal (CI logs want it); ``--quiet`` turns it off.
    The estimate is the models still to run times the mean wall time per model run so far.
    """

    def __init__(self, total: int, verdict: Verdict, *, enabled: bool = True, stream: TextIO | None = None) -> None:
        self.total = total
        self.verdict = verdict
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.monotonic()
        self.finished = 0
        self.ran = 0

    def __call__(self, report: dict[str, Any], *, cached: bool = False) -> None:
        self.finished += 1
        self.ran += 0 if cached else 1
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.start
        left = self.total - self.finished
        estimate = f", about {_duration(elapsed / self.ran * left)} left" if self.ran and left else ""
        how = "cached" if cached else self.verdict(report)
        width = len(str(self.total))
        # On a terminal, first erase the command's own status line (``--jobs 1`` draws one).
        erase = "\r\x1b[K" if getattr(self.stream, "isatty", lambda: False)() else ""
        self.stream.write(f"{erase}[{self.finished:>{width}}/{self.total}] {report.get('name', '?')}: "
                          f"exit {report.get('exit_code', 2)} ({how}) | {_duration(elapsed)} elapsed{estimate}\n")
        self.stream.flush()


def junit(reports: Sequence[dict[str, Any]], command: str, verdict: Verdict, render_text: Render) -> str:
    """JUnit XML: a ``testsuite`` per command, a ``testcase`` per model; exit 1 is a
    ``failure`` (the model still has a problem), exit 2 an ``error`` (it could not run)."""
    suite = ET.Element("testsuite", name=f"trtcodemod {command}", tests=str(len(reports)),
                       failures=str(sum(r.get("exit_code") == 1 for r in reports)),
                       errors=str(sum(r.get("exit_code", 2) not in (0, 1) for r in reports)))
    for report in reports:
        case = ET.SubElement(suite, "testcase", classname=f"trtcodemod.{command}", name=str(report.get("name", "")))
        code = report.get("exit_code", 2)
        if code == 0:
            continue
        tag = "failure" if code == 1 else "error"
        element = ET.SubElement(case, tag, message=verdict(report), type=f"exit {code}")
        element.text = render_text(report)
    ET.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
