"""What one observed run established, per source site; JSON in and out.

``observe.py`` produces the raw dict in a worker; this module is the read side that
``locate`` and ``plan`` use. A site is ``(path, line, column, end_line, end_column)`` of
the expression Python was evaluating (1-based columns, like a finding's).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

FACTS_VERSION = 1


@dataclass(frozen=True)
class Span:
    """A source range; a finding's or an observed expression's."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    def same(self, other: "Span") -> bool:
        return (self.path, self.line, self.column, self.end_line, self.end_column) == (
            other.path, other.line, other.column, other.end_line, other.end_column)

    def overlaps(self, other: "Span") -> bool:
        if self.path != other.path:
            return False
        return (self.line, self.column) < (other.end_line, other.end_column) and (
            other.line, other.column) < (self.end_line, self.end_column)

    def has_line(self, path: str, line: int) -> bool:
        return self.path == path and self.line <= line <= self.end_line


def norm(path: str) -> str:
    """One spelling per file: observations and findings meet on the real path."""
    return os.path.realpath(path)


@dataclass
class Facts:
    """Lines that ran, and events (value reads, indices, len, squeeze) at sites."""

    runs: int = 0
    lines: dict[str, set[int]] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    run_errors: list[str] = field(default_factory=list)

    # --- JSON ------------------------------------------------------------------------------
    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Facts":
        if int(data.get("version", FACTS_VERSION)) != FACTS_VERSION:
            raise ValueError(f"facts version {data.get('version')} is not {FACTS_VERSION}")
        return cls(runs=int(data.get("runs", 0)),
                   lines={norm(p): set(v) for p, v in data.get("lines", {}).items()},
                   events=[dict(e, path=norm(e["path"])) for e in data.get("events", [])],
                   inputs=dict(data.get("inputs", {})), run_errors=list(data.get("run_errors", [])))

    def to_json(self) -> dict[str, Any]:
        return {"version": FACTS_VERSION, "runs": self.runs, "run_errors": self.run_errors,
                "lines": {p: sorted(v) for p, v in sorted(self.lines.items())},
                "events": self.events, "inputs": self.inputs}

    @classmethod
    def load(cls, path: Path) -> "Facts":
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))

    def save(self, path: Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    # --- queries -----------------------------------------------------------------------------
    @property
    def files(self) -> list[str]:
        """The user's files that ran: where the model's code came from."""
        return sorted(self.lines)

    def ran(self, path: str, line: int, end_line: int | None = None) -> bool:
        lines = self.lines.get(norm(path), set())
        return any(n in lines for n in range(line, (end_line or line) + 1))

    def at(self, kind: str, span: Span) -> list[dict[str, Any]]:
        """Events of ``kind`` at exactly ``span``; failing that, those overlapping it."""
        events = [e for e in self.events if e["kind"] == kind and e["path"] == span.path]
        spans = [(e, Span(e["path"], e["line"], e["column"], e["end_line"], e["end_column"])) for e in events]
        exact = [e for e, s in spans if s.same(span)]
        return exact or [e for e, s in spans if s.overlaps(span)]

    def value_reads(self) -> list[dict[str, Any]]:
        """Where Python read a tensor's value during a forward: what an export bakes in."""
        return [e for e in self.events if e["kind"] == "value_read"]

    def baked_lines(self) -> dict[tuple[str, int], list[str]]:
        """``(path, line) -> methods`` of the value reads made there."""
        out: dict[tuple[str, int], list[str]] = {}
        for e in self.value_reads():
            methods = out.setdefault((e["path"], e["line"]), [])
            if e["method"] not in methods:
                methods.append(e["method"])
        return out

    def varying_axes(self) -> dict[str, list[int]]:
        return {name: list(info.get("varying", [])) for name, info in self.inputs.items()}


def summarize(events: Iterable[dict[str, Any]]) -> int:
    """How many times the events were seen, all together."""
    return sum(int(e.get("count", 1)) for e in events)
