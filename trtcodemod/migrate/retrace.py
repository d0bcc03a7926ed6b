"""A second trace as evidence: does a size-derived bake change the exported graph?

Under the TorchScript exporter every size is a traced tensor, so ``if x.shape[1] == 3:``
raises a ``TracerWarning`` whether axis 1 is dynamic or not. Where the observer saw no tensor
value read at the warning's line (in eager the value was a plain ``int``: a size), the
original is exported once more with every declared dynamic axis at ``2n + 1`` (the observer's
stretched set) and the two graphs are compared structurally (``samegraph.py``). The same
graph means no Python value baked from a size depends on those axes (at those two points):
the bake is a warning. Another graph keeps it an error, with the first differing node's line.

With no dynamic axis declared every input size is fixed, so a value computed from sizes alone
is the same on every input the graph accepts: a warning, no second trace needed. That holds on
the rewritten side too, at every line the rewrite left as it was (found by diffing the file).

A trace-only constant (``torch.tensor(...)`` at a line that never ran in eager, inside
``if torch.jit.is_tracing():`` and the like) gets the same verdict when its warning is the
constructor's ("... results are registered as constants") and no tensor's value is read at
that line: a number read out of a tensor raises its own "Converting a tensor to a Python ..."
warning where it is read, and is located there. A ``torch.tensor([w, h])`` of sizes that stays
an error names the manual step: build it in the graph with ``torch.stack`` of ``torch.as_tensor``.
"""

from __future__ import annotations

import difflib
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from trtcodemod.evidence.facts import Facts, norm
from .locate import CHECK_CALL_NOTE, CONSTRUCTED, GUARD_NOTE, STEADY, WARN_GUARD_NOTE, Problem

#: The op of a bake located from the exporter's TracerWarning (``locate.baked_values``).
TRACED = "(traced constant)"
#: The op of the problem a second trace locates: the first node its graph differs at.
RETRACED_GRAPH = "(retraced graph)"
EXPORTER = "torchscript"
#: The op of a value the observer saw Python read (``locate.baked_values``).
OBSERVED_READ = "(baked value)"
#: The op of a loop the two traces unrolled another number of times (:func:`_unrolled`).
UNROLLED = "(unrolled loop)"
#: The bakes a second trace of the rewritten model judges: its TracerWarnings, and what the original's
#: own second trace located (its first differing node, its unrolled loops), which the rewritten graph
#: answers as well: the same graph at two sizes shows none of them there.
JUDGED_AFTER = (TRACED, RETRACED_GRAPH, UNROLLED)
#: The ops of the original's problems a second trace locates (``Retrace.extra``), carried to the rewritten side.
CARRIED_OPS = (RETRACED_GRAPH, UNROLLED)
#: The TracerWarning of a tensor built from Python values (``torch.tensor``, ``torch.as_tensor``...).
CONSTANT = CONSTRUCTED
#: The TracerWarning of a tensor's value read into Python (a number, a bool, a list...).
CONVERTED = "Converting a tensor to a Python"
#: Said where such a constant stays an error: the step that keeps the sizes in the graph.
MANUAL_STEP = ("; if it is built from a list of sizes (`torch.tensor([w, h])`, `torch.as_tensor(shapes)`), build "
               "it in the graph instead: `torch.stack([torch.as_tensor(w), torch.as_tensor(h)])` keeps the sizes "
               "the TorchScript exporter passes as 0-d tensors (`torch.tensor([...])`, `torch.as_tensor([...])` and "
               "`x.new_tensor([...])` copy them into a constant)")
#: The constructors whose constant MANUAL_STEP is about.
_LIST_CONSTRUCTORS = (f"torch.tensor {CONSTANT}", f"torch.as_tensor {CONSTANT}")
TRACE_ONLY_NOTE = ("; this line runs only while tracing (eager mode takes another path) and builds a tensor from "
                   "Python values, reading no tensor's value here")


class Rewritten:
    """The files a rewrite changed: which lines of the rewritten side are the original's, unchanged."""

    def __init__(self, sources: dict[str, tuple[bytes, bytes]]) -> None:
        self._files = {norm(path): pair for path, pair in sources.items()}
        self._maps: dict[str, dict[int, int]] = {}

    def changed(self, path: str) -> bool:
        return norm(path) in self._files

    def origin(self, path: str, line: int) -> int | None:
        """The original's line that rewritten ``line`` is a copy of; None where the rewrite wrote it."""
        key = norm(path)
        if key not in self._files:
            return line
        if key not in self._maps:
            old, new = (text.decode("utf-8", "replace").splitlines() for text in self._files[key])
            blocks = difflib.SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks()
            self._maps[key] = {b + 1 + k: a + 1 + k for a, b, size in blocks for k in range(size)}
        return self._maps[key].get(line)

    def copy(self, path: str, line: int) -> int | None:
        """The rewritten line that is an unchanged copy of the original's ``line``; None where the
        rewrite changed that line."""
        key = norm(path)
        if key not in self._files:
            return line
        self.origin(path, line)  # builds the map
        return next((new for new, old in self._maps[key].items() if old == line), None)


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
    #: The covered lines that run only while tracing (their note says so).
    trace_only: set[tuple[str, int]] = field(default_factory=set)
    #: The verdict is "no dynamic axis": a fact about the inputs, not about the original's graph.
    sizes_fixed: bool = False
    #: Covered lines whose baked numbers were the same in both traces while the graph differed
    #: elsewhere: warnings of their own, with ``steady_note``.
    steady: set[tuple[str, int]] = field(default_factory=set)
    steady_note: str = ""
    #: Lines no verdict covers because the data decides what they read (:data:`DATA_BAKED_NOTE`).
    data_read: set[tuple[str, int]] = field(default_factory=set)
    #: The ops of the bakes the verdict covers: the exporter's TracerWarnings, unless a second trace of
    #: the rewritten model judged the original's located lines too (:data:`JUDGED_AFTER`).
    ops: tuple[str, ...] = (TRACED,)
    #: Lines of value reads (not sizes) whose numbers differed between the two traces while the graph stayed the
    #: same: the graph does not use what was read there (:func:`unused_reads`); warnings, with ``unused_note``.
    unused: set[tuple[str, int]] = field(default_factory=set)
    unused_note: str = ""
    #: Lines of value reads whose numbers were the same in both traces while the whole graph stayed the same: what
    #: is read there follows neither the stretched axes nor the other data (:func:`same_reads`); warnings, with
    #: ``same_reads_note``.
    same_reads: set[tuple[str, int]] = field(default_factory=set)
    same_reads_note: str = ""

    def apply(self, problems: list[Problem], rewritten: Rewritten | None = None,
              carry: bool = False) -> list[Problem]:
        """``problems`` with the verdict's note (and severity) on the bakes it covers.

        ``rewritten``: for the rewritten side, what the rewrite changed. A verdict on the
        original's graph covers only the files the rewrite left as they were; "no dynamic axis"
        covers every line the rewrite left as it was, wherever it moved.

        ``carry``: on the rewritten side, where no second trace of the rewritten model judged it and
        its graph is not faithful either, the original's extra problems (a loop unrolled another
        number of times, the line of the first differing node) stand at the lines the rewrite left
        as they were: that code is in the rewritten model unchanged (torchvision's post-processing,
        `for i in range(b):` over the batch, beside a boolean mask TRT201 rewrote in the same file).
        They keep the user's line, as every problem of the rewritten side does (the verification maps
        its graph's lines back): a helper inserted above does not move them. A line the rewrite
        changed is dropped: the rewritten code is not what the original's graphs showed.
        """
        out = []
        for p in problems:
            if (p.path, p.line) in self.data_read and p.kind == "baked" and DATA_BAKED_NOTE not in p.message:
                p = Problem(p.kind, p.path, p.line, p.op, p.rule, f"{p.message}; {DATA_BAKED_NOTE}", p.severity,
                            p.exporter)
            at = self._origin(p, rewritten)
            if at is not None:
                where = "" if rewritten is None else (
                    " (judged on the original; the rewrite leaves this line as it was)" if self.sizes_fixed
                    else " (judged on the original; the rewrite leaves this file as it was)")
                only = TRACE_ONLY_NOTE if (p.path, at) in self.trace_only else ""
                steady = (p.path, at) in self.steady
                unused = (p.path, at) in self.unused
                same_read = (p.path, at) in self.same_reads
                note = self.unused_note if unused else self.same_reads_note if same_read else \
                    self.steady_note if steady else self.note
                p = Problem(p.kind, p.path, p.line, p.op, p.rule, f"{p.message}{only}; {note}{where}",
                            "warning" if self.demote or steady or unused or same_read else "error", p.exporter)
            if p.kind == "baked" and p.op == TRACED and p.severity == "error" \
                    and p.message.startswith(_LIST_CONSTRUCTORS) and MANUAL_STEP not in p.message:
                p = Problem(p.kind, p.path, p.line, p.op, p.rule, p.message + MANUAL_STEP, p.severity, p.exporter)
            out.append(p)
        if rewritten is not None:
            # the differing node's line is the original graph's: the rewritten one is checked itself,
            # unless nothing checked it (``carry``)
            return out + (self._carried(out, rewritten) if carry else [])
        return out + [p for p in self.extra if not any(_same(p, q) for q in out)]

    def _carried(self, out: list[Problem], rewritten: Rewritten) -> list[Problem]:
        """The extras at lines the rewrite left as they were, at the original's line (zoo 30's
        ty3_yolov3_nms: its loop at evaluate.py:238, not at :297 of the rewritten file)."""
        carried = []
        for p in self.extra:
            if not (p.path and p.line) or rewritten.copy(p.path, p.line) is None:
                continue
            if not any(_same(p, q) or (q.path, q.line, q.op) == (p.path, p.line, p.op) for q in out + carried):
                carried.append(p)
        return carried

    def _origin(self, p: Problem, rewritten: Rewritten | None) -> int | None:
        """The original's line of a bake this verdict covers; None when it covers nothing here."""
        # An unused read is located twice: the observer's read and the exporter's TracerWarning.
        reads = self.unused | self.same_reads
        ops = (*self.ops, OBSERVED_READ) if (p.path, p.line) in reads else self.ops
        if not (p.kind == "baked" and p.op in ops and p.severity == "error" and p.path and p.line):
            return None
        at: int | None = p.line
        if rewritten is not None:
            # The verifier reports the rewritten model's bakes at the user's lines: judged where the rewrite
            # left that line as it was (a helper inserted above moves it in the rewritten file, not here).
            # An unused read is judged so too: the rewrite left the read, and what rebinds it, as they were.
            copied = self.sizes_fixed or (p.path, p.line) in reads
            at = (p.line if rewritten.copy(p.path, p.line) is not None else None) if copied else (
                None if rewritten.changed(p.path) else p.line)
        return at if at is not None and (p.path, at) in self.lines else None


def _same(a: Problem, b: Problem) -> bool:
    return (a.kind, a.path, a.line, a.op, a.message) == (b.kind, b.path, b.line, b.op, b.message)


def size_derived(problems: list[Problem], facts: Facts) -> set[tuple[str, int]]:
    """Lines of TorchScript bakes where the observer ran the line and saw no tensor value read,
    and no observed size there changed between the input sets (a dynamic axis feeds it). A
    constructor's constant also counts at a line whose every read stands in a check that only raises
    (:func:`check_only_reads`): gluonts' ``StudentT(...)`` line, where torch's distribution code both
    validates its arguments and copies the number 0.5 of ``Chi2`` into a tensor."""
    reads = {(e["path"], e["line"]) for e in facts.value_reads()}
    checks = check_only_reads(problems)
    varying = {(e["path"], e["line"]) for e in facts.events if e["kind"] == "squeeze"
               and len({tuple(x.get("sizes", [])) for x in facts.events if x["kind"] == "squeeze"
                        and (x["path"], x["line"]) == (e["path"], e["line"])}) > 1}
    return {(p.path, p.line) for p in problems
            if p.kind == "baked" and p.op == TRACED and p.severity == "error" and p.exporter == EXPORTER
            and p.path and p.line and facts.ran(p.path, p.line)
            and ((p.path, p.line) not in reads or (CONSTANT in p.message and (p.path, p.line) in checks))
            and (p.path, p.line) not in varying}


def check_only_reads(problems: list[Problem]) -> set[tuple[str, int]]:
    """Lines where the observer saw a tensor's value read and every read located there (observed, or
    the exporter's "Converting a tensor" warning) stands in a check that only raises or warns: what is
    read there decides whether eager mode raises, never a number the graph computes with."""
    notes = (GUARD_NOTE, WARN_GUARD_NOTE, CHECK_CALL_NOTE)
    reads: dict[tuple[str, int], list[bool]] = {}
    observed: set[tuple[str, int]] = set()
    for p in problems:
        if p.kind == "baked" and p.path and p.line and (p.op == OBSERVED_READ or CONVERTED in p.message):
            reads.setdefault((p.path, p.line), []).append(any(note in p.message for note in notes))
            if p.op == OBSERVED_READ:
                observed.add((p.path, p.line))
    return {line for line, guarded in reads.items() if line in observed and all(guarded)}


def trace_only(problems: list[Problem], facts: Facts) -> set[tuple[str, int]]:
    """Lines of TorchScript bakes that never ran in eager (in a file that did) where the trace
    only built a tensor from Python values: no "Converting a tensor" warning at the line."""
    read = {(p.path, p.line) for p in problems if p.kind == "baked" and CONVERTED in p.message}
    return {(p.path, p.line) for p in problems
            if p.kind == "baked" and p.op == TRACED and p.severity == "error" and p.exporter == EXPORTER
            and p.path and p.line and CONSTANT in p.message and (p.path, p.line) not in read
            and facts.lines.get(norm(p.path)) and not facts.ran(p.path, p.line)}


def _only_numbers(values: list[Any]) -> bool:
    """Numbers the trace read at a line, each an int or a float (a ``bool`` says too little)."""
    flat = [v for value in values for v in (value if isinstance(value, list) else [value])]
    return bool(flat) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in flat)


def steady_lines(lines: set[tuple[str, int]], first: dict[tuple[str, int], list[Any]],
                 second: dict[tuple[str, int], list[Any]]) -> set[tuple[str, int]]:
    """The lines whose trace turned a tensor into the same numbers at both sizes: what the graph
    holds there does not follow the stretched axes (YOLOE's class count, ``int(x[-1].shape[1])``,
    is 3 at every image size). A ``bool`` says too little (``h > 32`` is True at both points), so
    a line that converted one keeps its verdict, except where the export kept a traced comparison's
    operands in its place (``[h, 32]``, :func:`trtcodemod.verify.export._baked_numbers`): SAM's
    ``max(k_size / q_size, 1.0)`` on a static token grid compares the same numbers at every batch."""
    return {k for k in lines if _only_numbers(first.get(k, [])) and first.get(k) == second.get(k)}


def unused_reads(problems: list[Problem], lines: set[tuple[str, int]], first: dict[tuple[str, int], list[Any]],
                 second: dict[tuple[str, int], list[Any]]) -> set[tuple[str, int]]:
    """Lines, outside ``lines`` (the size-derived ones), where the TorchScript export turned a tensor's value into
    numbers (no ``bool``) that differed between the two traces, asked where the two graphs are the same: a number
    the graph used would stand in it as a constant, or as a count of nodes, and differ with it. hear21passt's
    AugmentMelSTFT reads ``torch.randint(...).item()`` into ``fmin``, then rebinds ``fmin`` outside training."""
    read = {(norm(p.path), p.line): (p.path, p.line) for p in problems
            if p.kind == "baked" and p.op == TRACED and p.severity == "error" and p.exporter == EXPORTER
            and p.path and p.line and CONVERTED in p.message and (p.path, p.line) not in lines}
    return {at for key, at in read.items()
            if _only_numbers(first.get(key, [])) and _only_numbers(second.get(key, [])) and first[key] != second[key]}


def same_reads(problems: list[Problem], lines: set[tuple[str, int]], first: dict[tuple[str, int], list[Any]],
               second: dict[tuple[str, int], list[Any]]) -> set[tuple[str, int]]:
    """Lines, outside ``lines`` (the size-derived ones), where the TorchScript export turned a tensor's value into
    numbers (its "Converting a tensor" warning), and both traces (at the example's sizes and data, and at stretched
    sizes with other data) read the same numbers there while the whole graph is the same: a number made of a static
    axis (pl_bolts' YOLO layer, `int(torch.div(num_features, num_attrs, rounding_mode="floor"))` of the channel
    count) or a constant. A bool says too little and is left to its verdict, as in :func:`steady_lines`."""
    read = {(norm(p.path), p.line): (p.path, p.line) for p in problems
            if p.kind == "baked" and p.op == TRACED and p.severity == "error" and p.exporter == EXPORTER
            and p.path and p.line and CONVERTED in p.message and (p.path, p.line) not in lines}
    return {at for key, at in read.items()
            if _only_numbers(first.get(key, [])) and first.get(key) == second.get(key)}


def _steady_note(points: str, diff_op: str, where: str | None) -> str:
    return (f"{STEADY} {points}: it does not depend on the "
            f"dynamic axes (the graph differs elsewhere, first at a {diff_op} node" + (f" from {where})" if where
                                                                                     else ")"))


#: How each verdict this module writes into a bake's message begins (after "; ").
VERDICT_STARTS = (STEADY, "same graph at ", "the graph traced at ", "no dynamic axis is declared",
                  "a second trace at other sizes could not decide it", "the two traces could not be compared",
                  "the rewritten model's graph traced at ")


def verdict_of(message: str) -> str:
    """The verdict a second trace wrote into a bake's ``message`` ("; same graph at ...: the value does
    not depend on the dynamic axes"), from its "; " on; "" where there is none. A rule that names the
    bake speaks in its own words instead of the exporter's, and keeps this: whether the bake matters."""
    found = [i for start in VERDICT_STARTS for i in [message.find(f"; {start}")] if i >= 0]
    return message[min(found):] if found else ""


def _points(stretched: list[str]) -> str:
    """``x[2] (height) 8->17`` -> ``x[2] (height) 8 and 17``."""
    return "; ".join(s.replace("->", " and ") for s in stretched)


#: Why "no dynamic axis" does not hold where the graph differs on inputs of the traced sizes.
DATA_BAKED_NOTE = ("no dynamic axis is declared, but the graph differs from the model on input sets of the traced "
                   "sizes: a number read here may come from a size the data decides (rows a threshold or NMS kept)")


def judge(problems: list[Problem], facts: Facts, session: Any, dynamic_axes: dict[str, Any],
          progress: Callable[[str], None], data_baked: bool = False) -> Retrace:
    """The verdict on the size-derived bakes among ``problems`` (the original's side).

    ``data_baked``: the original's graph matches its model on the traced inputs and not on other
    sets of the same sizes, so something their data decides is baked; with no dynamic axis, a
    number read from a tensor's size then proves nothing (a row count after a threshold is a size
    too), and those lines keep their error; tensors built from sizes (a constructor's warning) do not.
    """
    only = trace_only(problems, facts)
    lines = size_derived(problems, facts) | only
    read: set[tuple[str, int]] = set()
    if not dynamic_axes and data_baked:
        read = lines & {(p.path, p.line) for p in problems if p.kind == "baked" and CONVERTED in p.message}
        lines -= read
    if not lines:
        return Retrace(data_read=read)
    if not dynamic_axes:
        return Retrace(lines, True, "no dynamic axis is declared: every input size is fixed, so a value computed "
                                    "from sizes alone is the same on every input the graph accepts",
                       summary={"lines": len(lines), "same": None, "seconds": 0.0, "stretched": [],
                                "data_read": len(read)},
                       trace_only=only, sizes_fixed=True, data_read=read)
    from .samegraph import first_difference

    progress("a second trace at other sizes (size-derived bakes)")
    start = time.perf_counter()
    original = session.original_onnx(EXPORTER)
    path, stretched, why = session.retrace(EXPORTER) if original else (None, [], "the original did not export")
    summary: dict[str, Any] = {"lines": len(lines), "stretched": stretched, "same": None}
    if path is None or original is None or not stretched:
        summary["seconds"] = round(time.perf_counter() - start, 2)
        why = why or "no dynamic axis changed size"
        return Retrace(lines, False, f"a second trace at other sizes could not decide it ({why})", summary=summary,
                       trace_only=only)
    try:
        diff = first_difference(original, path)
    except Exception as exc:  # noqa: BLE001 - an unreadable graph decides nothing: the bake stays
        summary["seconds"] = round(time.perf_counter() - start, 2)
        return Retrace(lines, False, f"the two traces could not be compared ({type(exc).__name__}: {exc})",
                       summary=summary, trace_only=only)
    summary.update(seconds=round(time.perf_counter() - start, 2), same=diff is None)
    points = _points(stretched)
    if diff is None:
        first, second = _numbers(session, "original"), _numbers(session, "retrace")
        unused = unused_reads(problems, lines, first, second)
        same = same_reads(problems, lines, first, second) - unused
        summary["unused_reads"] = len(unused)
        summary["same_reads"] = len(same)
        return Retrace(lines | unused | same, True,
                       f"same graph at {points}: the value does not depend on the dynamic axes",
                       summary=summary, trace_only=only, unused=unused,
                       same_reads=same, same_reads_note=f"same graph at {points}, where the two traces (other "
                                                         "sizes, other data) read the same numbers here: the value "
                                                         "follows neither the dynamic axes nor the data",
                       unused_note=f"same graph at {points}, where the two traces read other numbers here: the graph "
                                   "does not use the value read (it is rebound or dropped before anything the graph "
                                   "computes reads it)")
    where = diff.source
    summary["first_difference"] = {"op": diff.op, "source": where}
    note = f"the graph traced at {points} differs (first at a {diff.op} node" + (
        f" from {where})" if where else ")") + ": a value baked from a size changes the graph"
    extra = []
    at_path, at_line = None, None
    if where:
        from .locate import split_source

        at_path, at_line = split_source(where)
        if at_path and (at_path, at_line) not in lines:
            extra.append(Problem("baked", at_path, at_line, RETRACED_GRAPH, None,
                                 f"the graph traced at {points} differs first at a {diff.op} node from this line: "
                                 "a value computed from an input size is baked in here"
                                 + _repeated(original, path, at_path, at_line), "error", EXPORTER))
    extra += _unrolled(original, path, points, summary)
    steady = steady_lines(lines, _numbers(session, "original"), _numbers(session, "retrace")) - {(at_path, at_line)}
    summary["steady_lines"] = len(steady)
    return Retrace(lines, False, note, extra, summary, trace_only=only, steady=steady,
                   steady_note=_steady_note(points, diff.op, where))


def judge_loops(session: Any, progress: Callable[[str], None]) -> Retrace:
    """The second trace where no bake asked for one, yet the original's graph differs from its model at
    other sizes and nothing is located: a Python loop whose count follows a dynamic axis warns nowhere
    (``range`` takes the traced size as an ``int``), so the unrolled loops are looked for directly."""
    from .samegraph import first_difference

    progress("a second trace at other sizes (a graph that differs with nothing located)")
    start = time.perf_counter()
    original = session.original_onnx(EXPORTER)
    path, stretched, why = session.retrace(EXPORTER) if original else (None, [], "the original did not export")
    summary: dict[str, Any] = {"lines": 0, "stretched": stretched, "same": None}
    if path is None or original is None or not stretched:
        summary.update(seconds=round(time.perf_counter() - start, 2), why=why or "no dynamic axis changed size")
        return Retrace(summary=summary)
    try:
        diff = first_difference(original, path)
    except Exception:  # noqa: BLE001 - an unreadable graph decides nothing
        summary["seconds"] = round(time.perf_counter() - start, 2)
        return Retrace(summary=summary)
    summary.update(same=diff is None)
    extra = [] if diff is None else _unrolled(original, path, _points(stretched), summary)
    if diff is not None and not extra and diff.source:
        # No loop, yet the graph changed: a size read as the example's number with no warning (the
        # TorchScript exporter types the result of `unflatten` with the example's sizes, and folds
        # every size read from it later). The first difference is where the number shows.
        from .locate import split_source

        summary["first_difference"] = {"op": diff.op, "source": diff.source}
        at_path, at_line = split_source(diff.source)
        if at_path:
            extra.append(Problem("baked", at_path, at_line, RETRACED_GRAPH, None,
                                 f"the graph traced at {_points(stretched)} differs first at a {diff.op} node from "
                                 "this line: a value computed from an input size is baked in here"
                                 + _repeated(original, path, at_path, at_line), "error", EXPORTER))
    summary["seconds"] = round(time.perf_counter() - start, 2)
    return Retrace(extra=extra, summary=summary)


def loops_of_rewritten(session: Any, progress: Callable[[str], None]) -> list[Problem]:
    """The Python loops the last rewrite verified unrolls with the dynamic axes, from a second trace of it:
    asked where the original did not export (no second trace of it could look) and the rewrite that let it
    through still differs from its model for a reason no candidate changes (TimesFM 3: `nn.RMSNorm` stopped
    the original's export; past it, two loops over the patches carry running statistics). Their lines are the
    user's files' (mapped from the copy)."""
    from .samegraph import first_difference

    progress("a second trace of the rewritten model at other sizes (what keeps it unfaithful)")
    traced, path, stretched, _ = session.retrace_rewritten(EXPORTER)
    if traced is None or path is None or not stretched:
        return []
    try:
        if first_difference(traced, path) is None:
            return []
    except Exception:  # noqa: BLE001 - an unreadable graph names no loop
        return []
    tree = session.ctx.last_rewrite[0]
    loops = _unrolled(traced, path, _points(stretched), {})
    return [replace(p, path=where[0], line=where[1]) for p in loops for where in [tree.map_path(p.path, p.line)]]


def _repeated(original: str, retraced: str, path: str, line: int) -> str:
    """:data:`~.unrolled.REPEATED_NOTE` where the first differing node's line made another number of nodes
    in the second graph (torchvision's MultiScaleRoIAlign given `list(boxes.unbind(0))`, one tensor per
    image of a dynamic batch); nothing where it did not or the graphs cannot be read again."""
    from .unrolled import REPEATED_NOTE, repeated_at

    try:
        counts = repeated_at(original, retraced, (path, line))
    except Exception:  # noqa: BLE001 - graphs we cannot read again add nothing
        return ""
    return REPEATED_NOTE.format(a=counts[0], b=counts[1]) if counts else ""


def _unrolled(original: str, retraced: str, points: str, summary: dict[str, Any]) -> list[Problem]:
    """A problem at each Python loop the two graphs unrolled a different number of times."""
    from .unrolled import unrolled_loops

    try:
        loops = unrolled_loops(original, retraced)
    except Exception:  # noqa: BLE001 - graphs we cannot read again name no loop
        return []
    summary["unrolled_loops"] = [f"{u.path}:{u.line}" for u in loops]
    return [Problem("baked", u.path, u.line, UNROLLED, None,
                    f"`{u.header}` repeats with the dynamic axes: the graph traced at {points} unrolls it another "
                    f"number of times (a line of its body made {u.counts[0]} node(s) in the first graph, "
                    f"{u.counts[1]} in the second): a traced export runs a Python loop and records its body once per "
                    "iteration", "error", EXPORTER) for u in loops]


def _numbers(session: Any, which: str) -> dict[tuple[str, int], list[Any]]:
    """The session's baked numbers by line (a session that cannot tell gives none)."""
    numbers = getattr(session, "baked_numbers", None)
    return {(norm(path), line): values for (path, line), values in (numbers(which) if numbers else {}).items()}


def judge_rewritten(after: list[Problem], session: Any, progress: Callable[[str], None]) -> Retrace:
    """The verdict on the bakes ``after`` locates in the rewritten model (their lines mapped to the
    user's files), from a second trace of the rewritten model itself: asked when the original's
    graph changed with the sizes (a bake a fix removed) and bakes are what is left. The same
    graph at other sizes says none of them depends on the dynamic axes (monai's constant channel
    count, kept constant on purpose, after the fixes of its window pads). That covers what the
    original's own second trace located too (:data:`JUDGED_AFTER`): Real-CUGAN's crop back to
    `h0 * 3`, the first node the original's graph differed at, under the `if w0 != pw or h0 != ph:`
    TRT717 removed, is in the rewritten graph at every size, and that graph is the same at both."""
    from .samegraph import first_difference

    lines = {(p.path, p.line) for p in after
             if p.kind == "baked" and p.op in JUDGED_AFTER and p.severity == "error" and p.path and p.line}
    if not lines:
        return Retrace()
    progress("a second trace of the rewritten model at other sizes")
    start = time.perf_counter()
    traced, path, stretched, why = session.retrace_rewritten(EXPORTER)
    summary: dict[str, Any] = {"lines": len(lines), "stretched": stretched, "same": None}
    if traced is None or path is None or not stretched:
        summary.update(seconds=round(time.perf_counter() - start, 2), why=why or "no dynamic axis changed size")
        return Retrace(summary=summary)
    try:
        diff = first_difference(traced, path)
    except Exception:  # noqa: BLE001 - an unreadable graph decides nothing: the bakes stay
        diff = True
    summary.update(seconds=round(time.perf_counter() - start, 2), same=diff is None)
    if diff is True:
        return Retrace(summary=summary)
    if diff is not None:
        steady = steady_lines(lines, _numbers(session, "rewritten"), _numbers(session, "retrace-after"))
        from .locate import split_source

        where = diff.source
        steady -= {split_source(where)} if where else set()
        summary["steady_lines"] = len(steady)
        return Retrace(steady, False, "", summary=summary, steady=steady,
                       steady_note=_steady_note(_points(stretched), diff.op, where))
    return Retrace(lines, True, f"the rewritten model's graph traced at {_points(stretched)} is the same: the value "
                                "does not depend on the dynamic axes", summary=summary, ops=JUDGED_AFTER)
