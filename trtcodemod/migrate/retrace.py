"""A second trace as evidence: does a size-derived bake change the exported graph?

Under the TorchScript exporter every size is a traced tensor, so ``if x.shape[1] == 3:``
raises a ``TracerWarning`` whether axis 1 is dynamic or not. Where the observer saw no tensor
value read at the warning's line (in eager the value was a plain ``int``: a size), the
original is exported once more with every declared dynamic axis at ``2n + 1`` (the observer's
stretched set) and the two graphs are compared structurally (``samegraph.py``). The same
graph means no Python value baked from a size depends on those axes (at those two points):
the bake is a warning. Another graph keeps it an error, with the first differing node's line.

With no dynamic axis declared every input size is fixed, so a value computed from sizes alone
is the same on every input the graph accepts: a warning, no second trace needed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from .facts import Facts
from .locate import Problem

#: The op of a bake located from the exporter's TracerWarning (``locate.baked_values``).
TRACED = "(traced constant)"
EXPORTER = "torchscript"


@dataclass
class Retrace:
    """The verdict on the size-derived bakes of one model; :meth:`apply` puts it on problems."""

    #: ``(path, line)`` of the bakes the verdict covers.
    lines: set[tuple[str, int]] = field(default_factory=set)
    #: True: the bakes are warnings (the graph does not depend on the sizes).
    demote: bool = False
    note: str = ""
    #: A problem at the line of the first differing node, where no bake is located already.
    extra: list[Problem] = field(default_factory=list)
    #: What the report keeps: seconds spent, stretched axes, same graph or not, why not measured.
    summary: dict[str, Any] = field(default_factory=dict)

    def apply(self, problems: list[Problem], unchanged: Callable[[str], bool] | None = None) -> list[Problem]:
        """``problems`` with the verdict's note (and severity) on the bakes it covers.

        ``unchanged``: for the rewritten side, which files hold the original's code (the verdict
        was reached on the original; elsewhere it says nothing).
        """
        out = []
        for p in problems:
            if p.kind == "baked" and p.op == TRACED and (p.path, p.line) in self.lines and p.severity == "error" \
                    and (unchanged is None or unchanged(p.path or "")):
                where = "" if unchanged is None else " (judged on the original; the rewrite leaves this file as it was)"
                p = Problem(p.kind, p.path, p.line, p.op, p.rule, f"{p.message}; {self.note}{where}",
                            "warning" if self.demote else "error", p.exporter)
            out.append(p)
        if unchanged is not None:
            return out  # the differing node's line is the original graph's: the rewritten one is checked itself
        return out + [p for p in self.extra if not any(_same(p, q) for q in out)]


def _same(a: Problem, b: Problem) -> bool:
    return (a.kind, a.path, a.line, a.op, a.message) == (b.kind, b.path, b.line, b.op, b.message)


def size_derived(problems: list[Problem], facts: Facts) -> set[tuple[str, int]]:
    """Lines of TorchScript bakes where the observer ran the line and saw no tensor value read,
    and no observed size there changed between the input sets (a dynamic axis feeds it)."""
    reads = {(e["path"], e["line"]) for e in facts.value_reads()}
    varying = {(e["path"], e["line"]) for e in facts.events if e["kind"] == "squeeze"
               and len({tuple(x.get("sizes", [])) for x in facts.events if x["kind"] == "squeeze"
                        and (x["path"], x["line"]) == (e["path"], e["line"])}) > 1}
    return {(p.path, p.line) for p in problems
            if p.kind == "baked" and p.op == TRACED and p.severity == "error" and p.exporter == EXPORTER
            and p.path and p.line and facts.ran(p.path, p.line)
            and (p.path, p.line) not in reads and (p.path, p.line) not in varying}


def _points(stretched: list[str]) -> str:
    """``x[2] (height) 8->17`` -> ``x[2] (height) 8 and 17``."""
    return "; ".join(s.replace("->", " and ") for s in stretched)


def judge(problems: list[Problem], facts: Facts, session: Any, dynamic_axes: dict[str, Any],
          progress: Callable[[str], None]) -> Retrace:
    """The verdict on the size-derived bakes among ``problems`` (the original's side)."""
    lines = size_derived(problems, facts)
    if not lines:
        return Retrace()
    if not dynamic_axes:
        return Retrace(lines, True, "no dynamic axis is declared: every input size is fixed, so a value computed "
                                    "from sizes alone is the same on every input the graph accepts",
                       summary={"lines": len(lines), "same": None, "seconds": 0.0, "stretched": []})
    from .samegraph import first_difference

    progress("a second trace at other sizes (size-derived bakes)")
    start = time.perf_counter()
    original = session.original_onnx(EXPORTER)
    path, stretched, why = session.retrace(EXPORTER) if original else (None, [], "the original did not export")
    summary: dict[str, Any] = {"lines": len(lines), "stretched": stretched, "same": None}
    if path is None or original is None or not stretched:
        summary["seconds"] = round(time.perf_counter() - start, 2)
        why = why or "no dynamic axis changed size"
        return Retrace(lines, False, f"a second trace at other sizes could not decide it ({why})", summary=summary)
    try:
        diff = first_difference(original, path)
    except Exception as exc:  # noqa: BLE001 - an unreadable graph decides nothing: the bake stays
        summary["seconds"] = round(time.perf_counter() - start, 2)
        return Retrace(lines, False, f"the two traces could not be compared ({type(exc).__name__}: {exc})",
                       summary=summary)
    summary.update(seconds=round(time.perf_counter() - start, 2), same=diff is None)
    points = _points(stretched)
    if diff is None:
        return Retrace(lines, True, f"same graph at {points}: the value does not depend on the dynamic axes",
                       summary=summary)
    where = diff.source
    summary["first_difference"] = {"op": diff.op, "source": where}
    note = f"the graph traced at {points} differs (first at a {diff.op} node" + (
        f" from {where})" if where else ")") + ": a value baked from a size changes the graph"
    extra = []
    if where:
        from .locate import _split

        at_path, at_line = _split(where)
        if at_path and (at_path, at_line) not in lines:
            extra.append(Problem("baked", at_path, at_line, "(retraced graph)", None,
                                 f"the graph traced at {points} differs first at a {diff.op} node from this line: "
                                 "a value computed from an input size is baked in here", "error", EXPORTER))
    return Retrace(lines, False, note, extra, summary)
