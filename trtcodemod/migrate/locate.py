"""Locate: every problem of one side of a verification, at a file and line of the user's code.

Three kinds, from the verifier's report and the observer's facts:

* ``hostile``: a node of the exported graph that the static TensorRT check flags (its
  ``source`` comes from the exporter's stack traces, mapped back to the user's files);
* ``baked``: a value Python read out of a tensor during a forward (observed), or a
  ``TracerWarning`` (the export's own word for it), at the user's line;
* ``export_failure``: an exporter that failed, at the innermost user frame of its traceback
  when it has one, and with the rules the error names (``adaptive_avg_pool2d`` → TRT601);
* ``state``: where a graph computes other values than its model, the lines of forward that
  wrote module attributes or deep-copied (observed): what the trace froze;
* ``unfaithful``: a graph that differs from its model on the traced inputs (at the line where
  its values first differ, when found) or that ONNX Runtime refuses (at the line that made the
  node it names).
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from trtcodemod.evidence.facts import OVERLAPPING_WRITE, Facts, Span, norm
from trtcodemod.usercode import AT_USER_LINE
from trtcodemod.verify.results import VerifyReport

from .check_calls import only_decides_a_check, reports
from .constant_reads import configuration_test_lines, constant_constructor_lines, constant_test_lines

_TRACEBACK_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
_PLAIN_FRAME = re.compile(r"(?P<file>/[^\s:'\"()]+\.py):(?P<line>\d+)")
#: A frame of a TorchScript graph's source range, innermost first: the "Defined at:" of an operator the exporter
#: could not convert inside an autograd Function (``/zoo/roma/mappings.py(25): forward``).
_SCRIPT_FRAME = re.compile(r"(?P<file>/[^\s:'\"()]+\.py)\((?P<line>\d+)\): \w+")


@dataclass
class Problem:
    """One located problem; ``path``/``line`` are None when nothing points at a line."""

    kind: str  # hostile | baked | export_failure | state | undefined | unfaithful
    path: str | None
    line: int | None
    op: str
    rule: str | None
    message: str
    severity: str = "error"
    exporter: str | None = None
    #: Where the modules of torch's classes that the observed forwards called at this line were built
    #: (``module_calls.with_builds``): a fix at such a build addresses what the module's nodes do here.
    built: tuple[Span, ...] = field(default=(), compare=False)

    @property
    def source(self) -> str | None:
        return f"{self.path}:{self.line}" if self.path else None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("built")
        if self.built:
            out["built_at"] = [f"{b.path}:{b.line}" for b in self.built]
        return out


#: How a mapped source names the helper trtcodemod inserted that holds it (``source_map``: "(in NAME, inserted by
#: trtcodemod)").
INSERTED_HELPER = re.compile(r"\(in (\w+), inserted by trtcodemod\)")


def split_source(source: str | None) -> tuple[str | None, int | None]:
    """``"/path/file.py:12 (in helper, ...)"`` -> ``("/path/file.py", 12)`` (normalised); Nones where there is no line."""
    if not source:
        return None, None
    match = re.match(r"^(.*?):(\d+)", source)
    if not match:
        return None, None
    return norm(match.group(1)), int(match.group(2))


def hostile_nodes(report: VerifyReport, side: str) -> list[Problem]:
    """The static TensorRT check's issues of ``side``'s graphs (errors and warnings)."""
    out = []
    for exporter, graphs in report.graphs_by_exporter.items():
        graph = (graphs or {}).get(side)
        for issue in graph.trt_issues if graph else []:
            path, line = split_source(issue.source)
            helper = INSERTED_HELPER.search(issue.source or "")
            reason = issue.reason + (f" (inside {helper.group(1)}, a helper trtcodemod inserted)" if helper else "")
            out.append(Problem("hostile", path, line, issue.op, issue.rule, reason, issue.severity, exporter))
    return out


#: What a bake inside a check that raises means: not a wrong value, a check the graph drops.
GUARD_NOTE = ("; it stands in a check that raises (an assert, `if ...: raise`): the exported graph drops the "
              "check, so the engine computes where eager mode would raise")
#: The same for a check whose branches raise or only warn (``if nan: warnings.warn(...)``).
WARN_GUARD_NOTE = ("; it stands in a check that only raises or warns (`if ...: warnings.warn(...)`): the exported "
                   "graph drops the check and its warning, and computes the same values")

#: What a read inside such a check's branch means: it only makes the message of the raise or report.
MESSAGE_NOTE = ("; it is read only for the message of a check's report or exception (`print(...)`, a log, a warning, "
                "the text of a `raise`): the exported graph drops the check and its message, and computes the same "
                "values")

#: The same for a read whose value only decides whether a check function raises (:mod:`.check_calls`).
CHECK_CALL_NOTE = ("; it only decides whether a check function raises (a function that only raises or returns a "
                   "constant, called as a statement, its result unused): the exported graph drops the check and "
                   "computes the same values")

#: What a read means when it reads only the model's own values (:mod:`.constant_reads`).
CONSTANT_NOTE = ("; the condition reads only the model's own values (buffers, parameters, settings as `__init__` "
                 "left them), the same for every input: the graph keeps the branch eager mode takes on every input")

#: What a read means when its condition reads only tensors built from configuration (:mod:`.constant_reads`).
CONFIGURATION_NOTE = ("; the condition reads only tensors built from configuration (literals, number parameters, "
                      "the dtype and device of the inputs), the same for every input: the graph keeps the branch eager "
                      "mode takes on every input")

#: What a constructor's constant means when it copies only literals and the model's own values.
CONSTANT_DATA_NOTE = ("; the tensor built here copies only literals and the model's own values (settings as "
                      "`__init__` left them), the same for every input: the constant the trace keeps is right on "
                      "every input")

#: What a read means when the trace shows its value reaches no model input (:mod:`~trtcodemod.verify.input_free`).
INPUT_FREE_NOTE = ("; the traced graph computes the value read here from constants and the model's own parameters and "
                   "buffers only, never from an input: it is the same for every input, so the graph keeps the branch or "
                   "number eager mode computes on every input")

#: The TracerWarning of a tensor built from Python values (``torch.tensor``, ``torch.as_tensor``...).
CONSTRUCTED = "results are registered as constants"

#: What ``torch.as_tensor(t, ...)`` of a tensor means: the tracer warns at every ``as_tensor`` call, but of a tensor
#: it records a cast (``aten::to``), which follows the input (speechbrain's ``length_to_mask``:
#: ``torch.as_tensor(mask, dtype=dtype, device=device)``, zoo 42).
CAST_NOTE = ("; `torch.as_tensor` of a tensor here (the observed run saw a tensor in its argument): the trace records "
             "a cast of it, not a constant, so the value follows the input")


def _only_checks(body: list[ast.stmt]) -> bool:
    """Statements that raise or report and change no value: ``raise``, ``pass``, reporting
    calls, and ``if``s (on anything) whose branches are such statements too."""
    return all(isinstance(s, (ast.Raise, ast.Pass))
               or isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and reports(s.value)
               or isinstance(s, ast.If) and _only_checks(s.body) and _only_checks(s.orelse)
               for s in body)


def _raises(body: list[ast.stmt]) -> bool:
    """A block that only raises: ``raise``, after assignments to plain names at most (kornia's
    ``min_vert = ...; raise ValueError(f"... {min_vert}")``, a message's parts computed first)."""
    return bool(body) and isinstance(body[-1], ast.Raise) and all(
        isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets)
        or isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) for s in body[:-1])


def _raises_or_reports(body: list[ast.stmt]) -> bool:
    """Does ``body`` (of :func:`_only_checks` statements) raise or report anywhere?"""
    return any(_raises_or_reports(s.body) or _raises_or_reports(s.orelse) if isinstance(s, ast.If)
               else not isinstance(s, ast.Pass) for s in body)


@lru_cache(maxsize=64)
def _guard_lines(path: str, mtime: float) -> dict[int, str]:
    """Lines of ``path`` in the test of a check, each with its note: a check that only raises
    (``assert``, ``if cond: raise ...``, ``_assert(...)``/``torch._assert(...)``/``torch._check(...)``
    calls), or an ``if`` whose branches only raise or warn (monai's ``if isnan(x).any(): if
    grad: raise ... else: warnings.warn(...)``); and the test of a condition that reads only the
    model's own values (:func:`.constant_reads.constant_test_lines`)."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return {}
    lines: dict[int, str] = {}
    for node in ast.walk(tree):
        test: ast.AST | None = None
        note = GUARD_NOTE
        message: list[ast.stmt] = []  # the check's branches, whose reads make only its message
        if isinstance(node, ast.Assert):
            test = node
        elif isinstance(node, ast.If) and not node.orelse and _raises(node.body):
            test, message = node.test, node.body
        elif isinstance(node, ast.If) and _only_checks(node.body) and _only_checks(node.orelse) \
                and _raises_or_reports([*node.body, *node.orelse]):
            test, note, message = node.test, WARN_GUARD_NOTE, [*node.body, *node.orelse]
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name.endswith("assert") or name.startswith("_check"):
                test = node
        if test is not None:
            for line in range(test.lineno, (test.end_lineno or test.lineno) + 1):
                lines.setdefault(line, note)
        for statement in message:
            # torchfcpe's `if torch.max(y) > 1.: print('... max value is ', torch.max(y))`: the value printed
            for line in range(statement.lineno, (statement.end_lineno or statement.lineno) + 1):
                lines.setdefault(line, MESSAGE_NOTE)
    for line in constant_test_lines(tree, Path(path)):
        lines.setdefault(line, CONSTANT_NOTE)
    return lines


@lru_cache(maxsize=64)
def _constant_data_lines(path: str, mtime: float) -> frozenset[int]:
    """Lines of ``path`` whose tensor constructors copy only constants (:func:`.constant_reads.constant_constructor_lines`)."""
    try:
        return frozenset(constant_constructor_lines(ast.parse(Path(path).read_text(encoding="utf-8")), Path(path)))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return frozenset()


def _constant_data_note(path: str | None, line: int | None, message: str) -> str:
    """:data:`CONSTANT_DATA_NOTE` for a constructor's warning at a line that copies only constants; else ""."""
    if not path or not line or CONSTRUCTED not in message:
        return ""
    try:
        mtime = Path(path).stat().st_mtime
    except OSError:
        return ""
    return CONSTANT_DATA_NOTE if line in _constant_data_lines(path, mtime) else ""


@lru_cache(maxsize=64)
def _as_tensor_arguments(path: str, mtime: float) -> dict[int, frozenset[str]]:
    """line -> the names passed first to the ``as_tensor`` calls on it (``torch.as_tensor(mask, dtype=...)``); a line
    with an ``as_tensor`` call of anything but a plain name is left out."""
    del mtime  # the cache key: a rewritten file is parsed again
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return {}
    names: dict[int, set[str]] = {}
    other: set[int] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "as_tensor"):
            continue
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
            if node.args and isinstance(node.args[0], ast.Name):
                names.setdefault(line, set()).add(node.args[0].id)
            else:
                other.add(line)
    return {line: frozenset(found) for line, found in names.items() if line not in other}


def _cast_note(path: str | None, line: int | None, message: str, facts: Facts | None) -> str:
    """:data:`CAST_NOTE` for a constructor's warning at a line whose ``as_tensor`` calls each take a name the observed
    run saw hold a tensor there; else ""."""
    if facts is None or not path or not line or CONSTRUCTED not in message or "as_tensor" not in message:
        return ""
    try:
        arguments = _as_tensor_arguments(path, Path(path).stat().st_mtime).get(line)
        if arguments and facts.stale(path, Path(path).read_bytes()):
            return ""  # (another file than the one that ran: its lines are not the facts' lines)
    except OSError:
        return ""
    if not arguments:
        return ""
    resolved = facts.resolve(path) or path
    for name in arguments:
        if not any(e.get("line", 0) <= line <= e.get("end_line", e.get("line", 0))
                   for e in facts.tensor_events(resolved, name)):
            return ""
    return CAST_NOTE


@lru_cache(maxsize=64)
def _configuration_lines(path: str, mtime: float) -> frozenset[int]:
    """Lines of ``path``'s tests that read only tensors built from configuration
    (:func:`.constant_reads.configuration_test_lines`; a LibCST pass, so asked only where no cheaper note holds)."""
    return frozenset(configuration_test_lines(path))


def _guard_note(path: str | None, line: int | None, callers: list[str | None] | None = None,
                user: bool = True) -> str:
    """The note of the check whose test holds ``line`` ("" where there is none); ``callers``, the
    user's lines the trace saw call the function holding it, let a read inside a check function
    called as a statement count (:func:`.check_calls.only_decides_a_check`). ``user``: a user's line,
    whose condition may also be proven to read configuration only (not asked of torch's own files)."""
    if not path or not line:
        return ""
    try:
        mtime = Path(path).stat().st_mtime
    except OSError:
        return ""
    note = _guard_lines(path, mtime).get(line, "")
    if not note and only_decides_a_check(path, line, callers):
        note = CHECK_CALL_NOTE
    if not note and user and line in _configuration_lines(path, mtime):
        note = CONFIGURATION_NOTE
    return note


def _library_guard_note(origins: list[str | None]) -> str:
    """The note of the check the observed reads at a line stand in, where every one of them happened in a
    library's check that only raises, not in the line itself (``Normal(mean, std)`` at the user's line, read by
    torch's ``if not torch._is_all_true(valid): raise ValueError`` in ``Distribution.__init__``); else ""."""
    if not origins or None in origins:
        return ""
    notes = [_guard_note(*split_source(origin), user=False) for origin in origins]
    if not all(notes):
        return ""
    return notes[0] + _inside(str(origins[0]))


#: How the note of a bake begins whose trace baked the same numbers at two sizes (``retrace``).
STEADY = "the number baked here is the same in the graph traced at"
UNTRACED_NOTE = (", but the TorchScript export did not (no TracerWarning at this line: the code takes "
                 "another path while tracing, e.g. behind `torch.jit.is_tracing()`), so its graph bakes nothing here")


def _input_free_lines(report: VerifyReport, side: str) -> set[tuple[str, int]]:
    """The lines where every value this side's TorchScript trace read into Python reaches no model input."""
    free: dict[tuple[str, int], bool] = {}
    for check in report.checks(side):
        if check.exporter != "torchscript":
            continue
        for warning in check.warnings:
            path, line = split_source(warning.source)
            if warning.category == "TracerWarning" and path and line and warning.input_free is not None:
                key = (os.path.realpath(path), line)
                free[key] = free.get(key, True) and warning.input_free
    return {key for key, value in free.items() if value}


def traced_lines(report: VerifyReport, side: str) -> set[tuple[str, int]] | None:
    """The lines where this side's TorchScript export read a tensor's value (its TracerWarnings);
    None without a TorchScript export that ran through (then nothing is known of what it read)."""
    lines: set[tuple[str, int]] | None = None
    for check in report.checks(side):
        if check.exporter != "torchscript":
            continue
        if check.detail.startswith(("not exported", "export failed")):
            continue
        lines = lines if lines is not None else set()
        for warning in check.warnings:
            path, line = split_source(warning.source)
            if warning.category == "TracerWarning" and path and line:
                lines.add((os.path.realpath(path), line))
    return lines


def baked_values(report: VerifyReport, side: str, facts: Facts | None,
                 observed: Facts | None = None) -> list[Problem]:
    """Observed value reads (the original only) and the export's TracerWarnings. One inside a
    check that only raises or warns is a warning: the graph drops a check, it computes no wrong
    value; so is a read in eager mode that the TorchScript trace did not make (it took another path),
    and ``torch.as_tensor`` of a tensor (:data:`CAST_NOTE`; ``observed``: the facts for that note on the
    rewritten side, read at files as they ran)."""
    observed = observed if observed is not None else facts
    out: list[Problem] = []
    if facts is not None and side == "before":
        traced = traced_lines(report, side)
        input_free = _input_free_lines(report, side)
        for (path, line), methods in sorted(facts.baked_lines().items()):
            guard = _guard_note(path, line, facts.read_callers(path, line)) or _library_guard_note(
                facts.read_origins(path, line))
            if not guard and (os.path.realpath(path), line) in input_free:
                guard = INPUT_FREE_NOTE
            untraced = traced is not None and (os.path.realpath(path), line) not in traced
            note = guard or (UNTRACED_NOTE if untraced else "")
            what = (f"Python reads a tensor's value here in eager mode ({', '.join(methods)})" if untraced and not guard
                    else f"Python reads a tensor's value here ({', '.join(methods)}): the export bakes it in")
            out.append(Problem("baked", path, line, "(baked value)", None, what + note,
                               "warning" if guard or untraced else "error"))
    for check in report.checks(side):
        if side == "after" and check.faithful is True:
            continue  # a rewritten graph proven faithful on every input set bakes nothing that matters
        for warning in check.warnings:
            if warning.category != "TracerWarning":
                continue
            path, line = split_source(warning.source)
            # The check may be torch's own, inside the call the user's line makes (the attention's
            # `if head_dim * num_heads != embed_dim: raise` behind `self.transformer(x)`).
            guard = _guard_note(path, line, warning.callers)
            if not guard and warning.origin and _guard_note(*split_source(warning.origin), user=False):
                guard = _guard_note(*split_source(warning.origin), user=False) + _inside(warning.origin)
            guard = guard or _constant_data_note(path, line, warning.message) or _cast_note(
                path, line, warning.message, observed)
            if not guard and warning.input_free:
                guard = INPUT_FREE_NOTE
            out.append(Problem("baked", path, line, "(traced constant)", None, warning.message + guard,
                               "warning" if guard else "error", check.exporter))
    return out


#: Said of a value read from the data that a rewritten graph proven faithful on every input set still bakes.
DATA_READ_NOTE = ("; the rewritten graph matched eager mode on every input set only because they all gave the value "
                  "read here alike: Python reads this tensor's value in eager mode too (observed), so it comes from "
                  "the data, and the graph keeps the example's value for every input")


def hidden_data_reads(report: VerifyReport, facts: Facts | None) -> list[Problem]:
    """The data reads a rewritten graph bakes although it is faithful on every input set.

    :func:`baked_values` skips a faithful rewritten side's TracerWarnings: a size read there the
    second input set (other sizes) would have exposed. A tensor's value read from the data (the
    observed eager reads: a size is a Python int in eager mode, a tensor read there is a value) is
    exposed only by an input set that changes that value, which random inputs of one scale need not
    do: pyniftireg's scaling and squaring takes ``ceil(log2(max |v|))`` squarings, alike on every
    input set, and the graph keeps that count for every field. Each such TracerWarning of a number (not
    a truth value) the rewritten export gave at a line of such a read, not in a check and not computed
    from constants, is one."""
    if facts is None:
        return []
    data = {(os.path.realpath(path), line) for path, line in facts.baked_lines()}
    out: list[Problem] = []
    seen: set[tuple[str, int]] = set()
    for check in report.checks("after"):
        if check.exporter != "torchscript" or check.faithful is not True:
            continue
        for warning in check.warnings:
            path, line = split_source(warning.source)
            if warning.category != "TracerWarning" or not path or not line or warning.input_free:
                continue
            if "Python boolean" in warning.message:
                # A decision, not a number: a branch on values is judged by the rules that read its condition
                # (TRT101), and one on a size dressed as a tensor (EnCodec's `length <= max_pad` against
                # buffers) by the second trace; neither is a count or scale the graph silently keeps.
                continue
            key = (os.path.realpath(path), line)
            if key not in data or key in seen:
                continue
            if _guard_note(path, line, warning.callers) or _constant_data_note(path, line, warning.message):
                continue
            if _library_guard_note(facts.read_origins(path, line)):
                # Every read the run saw at the line is a library's check that only raises (torch's validation of a
                # distribution's arguments, gluonts' `StudentT(...)`): the number the trace kept is not one of them.
                continue
            seen.add(key)
            out.append(Problem("baked", path, line, "(traced constant)", None, warning.message + DATA_READ_NOTE,
                               "error", check.exporter))
    return out


#: Said of an eager value read the original's export never reached, judged on the rewritten model's trace.
UNTRACED_AFTER_NOTE = ("; the rewritten model's TorchScript export read no tensor value here (no TracerWarning at "
                       "this line, which the rewrite left as it was: the code takes another path while tracing, e.g. "
                       "behind a library's own tracing check), so its graph bakes nothing here; the original's "
                       "export stopped before it could say")


def untraced_after(problems: list[Problem], original: VerifyReport, final: VerifyReport, rewritten: Any) -> list[Problem]:
    """``problems`` with the eager value reads the rewritten model's trace did not make as warnings.

    :func:`baked_values` judges the original's eager reads on the original's TorchScript trace;
    where that export stopped (HF's `torch.diff` in `find_packed_sequence_indices`, fixed by
    migrate) nothing is known of what the trace read, so every read stays an error. The rewritten
    model's export that ran through answers the same question for each line the rewrite left as it
    was: no TracerWarning there (`if not is_tracing(mask) and (mask[:, -1] == 0).all():`, whose
    library check is true while tracing) means its graph reads no value there. ``rewritten``: a
    :class:`~.retrace.Rewritten` of the changed files."""
    if traced_lines(original, "before") is not None:
        return problems  # the original's own trace judged them already
    traced = traced_lines(final, "after")
    if traced is None:
        return problems
    out = []
    for p in problems:
        if p.kind == "baked" and p.op == "(baked value)" and p.severity == "error" and p.path and p.line:
            # The verifier reports the rewritten model's warnings at the user's lines they copy.
            if rewritten.copy(p.path, p.line) is not None and (os.path.realpath(p.path), p.line) not in traced:
                message = p.message.replace("): the export bakes it in", ") in eager mode", 1)
                p = replace(p, severity="warning", message=message + UNTRACED_AFTER_NOTE)
        out.append(p)
    return out


def _inside(origin: str) -> str:
    """Where a check this line calls into stands (torch's `F.group_norm`: `if size_prods == 1: raise`)."""
    where = origin.split("site-packages/", 1)[-1]
    return f" (the check is in the code this line calls, at {where}, not in this line)"


def _user_frames(text: str, user_files: set[str]) -> list[tuple[str, int]]:
    frames = [(m["file"], int(m["line"])) for m in _TRACEBACK_FRAME.finditer(text)]
    frames += [(m["file"], int(m["line"])) for m in _PLAIN_FRAME.finditer(text)]
    placed = [(norm(f), n) for f, n in frames if norm(f) in user_files]
    if placed:
        # A source range also names where an operand was made ("node defined in m.py(14)" for a constant the
        # failing call at line 15 takes): only a place of last resort.
        return placed
    # Innermost last, as in a Python traceback (the caller takes the last user frame first).
    script = reversed([(m["file"], int(m["line"])) for m in _SCRIPT_FRAME.finditer(text)])
    return [(norm(f), n) for f, n in script if norm(f) in user_files]


#: Export errors that name no operator, and the rules whose fixes take the failing call. torch's
#: adaptive-pooling symbolic, shared by the average and the max forms, stops on an output size with
#: ``None`` in it (``nn.AdaptiveMaxPool2d((1, None))``, ``nn.AdaptiveAvgPool2d((None, 1))``) with
#: "ONNX export of operator adaptive pooling, since output_size is not constant".
#: The TorchScript exporter's graph passes stop with "Argument passed to at() was not in the map" on an
#: in-place op (``y.add_(1)``, ``y[..., 0] += 1``) in the trace of an autograd Function's ``forward``, which
#: it inlines from the Function's node (torch 2.13); no user frame is left on the stack by then. TRT728
#: runs such a ``forward`` as plain code while exporting (only where it finds an in-place write in one).
_UNNAMED_OPERATORS = ((re.compile(r"\bONNX export of operator adaptive pooling\b"), ("TRT601", "TRT602")),
                      (re.compile(r"\bArgument passed to at\(\) was not in the map\b"), ("TRT728",)),
                      # `flag &= nc > 1` (YOLOv5/YOLOv7's `non_max_suppression`): a Python bool and a traced
                      # comparison of sizes stop the export in alias analysis, with no user line.
                      (re.compile(r"\bhave an op for aten::bitwise_(?:and|or|xor)\b.*?Argument types: Tensor, bool\b",
                                  re.S), ("TRT732",)),
                      # `^`, `&`, `|` and `torch.bitwise_or` of integers ("ONNX export does NOT support exporting
                      # bitwise XOR for non-boolean input values"): of tensors (a hash grid's corners) TRT385's, of
                      # a traced size and a number TRT732's; the rule with a finding at the line takes it.
                      (re.compile(r"\bexporting bitwise (?:XOR|AND|OR) for non-boolean input values\b"),
                       ("TRT385", "TRT732")))


#: torch functions whose own Python checks stop the TorchScript export with an error that names no operator,
#: by the frame of ``torch/nn/functional.py`` the export's traceback fails in: ``F.max_unpool2d`` checks the
#: output size it computed from traced sizes as a Python bool ("cond must be a bool, but got a Tensor"), where
#: a module built elsewhere and handed down calls it (monai's QuickNAT builds `nn.MaxUnpool2d` in the network's
#: `__init__` and passes it to the blocks whose forward calls it).
_FAILING_TORCH_FUNCTIONS = {f"max_unpool{n}d": ("TRT340",) for n in (1, 2, 3)}
_FUNCTIONAL_FRAME = re.compile(r'torch/nn/functional\.py", line \d+, in (?P<name>\w+)')


def _rules_of_torch_frames(texts: list[str]) -> list[str]:
    found: list[str] = []
    for text in texts:
        for match in _FUNCTIONAL_FRAME.finditer(text):
            found.extend(r for r in _FAILING_TORCH_FUNCTIONS.get(match["name"], ()) if r not in found)
    return found


#: A module scope in the TorchScript graph the exporter prints with its error ("scope:
#: m.Denoiser::/m.MedianPool2d::median # file.py:26:0"): attribute names, not operators. A median
#: filter held as ``self.median`` named TRT319 for an ``Unfold`` that failed before any median.
_SCOPE = re.compile(r"\bscope: [^#\n]*")
#: A file path in the error ("[at /work/quantile/denoise.py:13]"): a folder named after an operator
#: names no operator.
_PATH = re.compile(r"(?:[\w.~-]*/)+[\w.-]*")
#: The alias analysis's error on a bitwise operator with a Python bool (TRT732's), which names an operator TRT385's
#: export failures name too.
_NO_BITWISE_SCHEMA = re.compile(r"\bhave an op for aten::bitwise_(?:and|or|xor)\b")


def _rules_named(text: str) -> list[str]:
    from trtcodemod.trt.check import RULES

    text = _PATH.sub("", _SCOPE.sub("", text))
    found = []
    # The alias analysis's "We don't have an op for aten::bitwise_and ... Argument types: Tensor, bool" is a
    # Python flag and a traced comparison (TRT732's, below), not the integer tensors TRT385 takes.
    named = _NO_BITWISE_SCHEMA.sub("", text)
    for name, rules in RULES.items():
        if len(name) > 3 and re.search(rf"\b{re.escape(name)}\b", named):
            found.extend(r for r in rules[:1] if r not in found)
    for pattern, rules in _UNNAMED_OPERATORS:
        if pattern.search(text):
            found.extend(r for r in rules if r not in found)
    return found


def export_failures(report: VerifyReport, side: str, facts: Facts | None,
                    tracebacks: dict[str, list[str]] | None = None) -> list[Problem]:
    """Each exporter that failed on ``side``: where (innermost user frame) and which rule it names."""
    user_files = set(facts.files) if facts else set()
    out = []
    for exporter, error in report.side_errors(side).items():
        if not error:
            continue
        texts = [error, *((tracebacks or {}).get(exporter, []) if side == "before" else [])]
        frames = [f for text in texts for f in reversed(_user_frames(text, user_files))]
        at = AT_USER_LINE.search(error)
        if not frames and at is not None:
            # The rewritten side has no facts to say which files are the user's: the export
            # worker picked the line among them, and the verifier mapped it to the user's file.
            frames = [(norm(at["file"]), int(at["line"]))]
        path, line = frames[0] if frames else (None, None)
        rules = _rules_named(error) or _rules_of_torch_frames(texts[1:])
        for rule in rules or [None]:
            out.append(Problem("export_failure", path, line, "(export)", rule, error[:300], "error", exporter))
        cause = _shape_lost_at(error, path, user_files)
        if cause is not None and cause != (path, line):
            # The operator stopped on a value whose shape an `If` made upstream lost: that line is the cause.
            out.append(Problem("export_failure", cause[0], cause[1], "(export)", None, error[:300], "error", exporter))
    return out


#: The value an export error is caused by, made by an ``If`` at a line (``%v : ... = onnx::If(...) ... # file:line:col``).
_IF_MADE_AT = re.compile(r"= onnx::If\(.*?# (\S+?):(\d+):\d+", re.S)


def _shape_lost_at(error: str, path: str | None, user_files: set[str]) -> tuple[str, int] | None:
    """Where an ``If`` made the value whose shape an operator needed ("batch_norm for unknown channel size" after a
    ``squeeze`` of a dynamic axis: funasr's CAM++): a user's file, or on a rewritten copy the file the failure is
    placed in (the graph names the copy's path, the failure the user's)."""
    from trtcodemod.trt.check import SHAPE_LOSS

    made = _IF_MADE_AT.search(error)
    if made is None or not SHAPE_LOSS.search(error):
        return None
    where = norm(made.group(1))
    if where in user_files:
        return where, int(made.group(2))
    tail = os.sep.join(path.split(os.sep)[-2:]) if path is not None else None
    if tail and where.endswith(os.sep + tail):  # the copy's file of the same package folder and name
        return path, int(made.group(2))
    return None


#: How a problem's message says where the input a node is refused for (its type) was made.
REFUSED_INPUT_MADE_AT = "the input it refuses for its type was made at "
#: ... and where that input's type was set, where it passed through nodes that keep a type on the way there.
REFUSED_INPUT_TYPED_AT = "the input it refuses had that type from "
#: The op of an ``unfaithful`` problem whose graph ONNX Runtime does not load or run at all.
FAILS_TO_RUN = "(graph fails to run)"
#: The op of an ``unfaithful`` problem whose failing input sets eager float32 cannot judge (its own
#: float64 run is far from it at much of the output) and no set of their shapes could: not judged.
NO_REFERENCE = "(no float32 reference)"
#: The op of an ``unfaithful`` problem whose graph runs and gives other values than eager mode.
WRONG_VALUES = "(wrong values)"


def unfaithful_graphs(report: VerifyReport, side: str, baked: bool = False) -> list[Problem]:
    """A graph that differs from its own model even on the traced inputs: wrong values, at the
    line where its values first part from eager mode's when that was found (``divergence``).

    ``baked``: graphs that differ only on other input sets too (a bake that nothing located
    explains: migrate names them rather than end with nothing remaining), at the line where
    their values first part on the first such set, when that was found. A graph ONNX Runtime refuses on
    another set at a node it names (a Concat of a batch the trace baked and one that follows the input)
    is located at that node's line either way: a problem the plan can match fixes to."""
    out = []
    for check in report.checks(side):
        refusal = bool(check.failed_node and check.failed_node.source)
        if check.faithful is not False or (check.baked and not baked and not refusal):
            continue
        refused = check.failed_node or None
        # ONNX Runtime refused the graph at load, or ran it and refused it on one input set.
        op = FAILS_TO_RUN if "failed" in check.detail or refused else \
            NO_REFERENCE if check.no_reference_sets else WRONG_VALUES
        path, line, message = *split_source(None), check.detail
        found = check.divergence or None
        if refused and refused.source:
            # ONNX Runtime names the node it refuses: the line that made it is where to fix.
            path, line = split_source(refused.source)
            message += f"; ONNX Runtime refuses the {refused.op} node {refused.node!r} made at {refused.source}"
            if refused.input_source and refused.input_source != refused.source:
                # The node is refused for its input's type: the line that made that input may be the cause.
                message += f"; {REFUSED_INPUT_MADE_AT}{refused.input_source}"
            if refused.input_origin and refused.input_origin not in (refused.source, refused.input_source):
                # It passed through a clamp or an index on the way: the line that gave it its type.
                message += f"; {REFUSED_INPUT_TYPED_AT}{refused.input_origin}"
        elif found and found.source:
            dropped = found.dropped
            # A line that ran torch calls and left no node is what the trace dropped: the cause,
            # where the first differing value is only where it shows.
            path, line = split_source(dropped[0] if dropped else found.source)
            on = f" on input set {check.failing_sets[0]}" if check.baked and check.failing_sets else ""
            message += (f"; the graph's values first differ from eager mode's{on} at {found.source} "
                        f"({found.op} node {found.node!r}, max abs error {found.max_abs_err:.3g}, after "
                        f"{found.lines_agreeing} line(s) that agree)")
            if dropped:
                message += (f"; {', '.join(dropped)} ran torch calls that left no node in the graph: the trace "
                            f"dropped them (an in-place write through `.data`, a value changed behind the tracer)")
        out.append(Problem("unfaithful", path, line, op, None, message, "error", check.exporter))
    return out


#: Observed events that an export freezes: the kind, the rule that names the construct, and why.
_FROZEN_EVENTS = {
    "state_write": ("TRT703", "(module state)", "forward writes `self.{attribute}`: the exported graph keeps its "
                                                "value from the traced call and never updates it"),
    "deepcopy": ("TRT722", "(deepcopy)", "forward calls copy.deepcopy ({type}): the trace records the copy's "
                                         "values, not the copying"),
}


#: Said of a state write that changed nothing on any observed call.
UNCHANGED_NOTE = ("; but on every observed call the value written equaled the one it replaced (up to dtype and "
                  "device: a cache cast in forward), so no state passes between calls")


#: The end of what is said of a write of scratch state (:data:`SCRATCH_NOTE`).
SCRATCH_TAIL = "so its value does not cross calls (scratch state)"
#: Said of a write of scratch state: every observed call wrote the attribute before reading it.
SCRATCH_NOTE = ("; but on every observed call forward wrote `self.{attribute}` before any read of it in that call "
                "(rebuilt from the call's own inputs: a `restart_engine()` or reset at the top of forward), "
                + SCRATCH_TAIL)


def carried_attributes(facts: Facts) -> set[str]:
    """The attributes some observed forward read before writing them in that forward (``state_read``)."""
    return {e.get("attribute") for e in facts.events if e["kind"] == "state_read"}


def scratch_write(events: list[dict], carried: set[str], runs: int) -> bool:
    """Are these ``state_write`` events of one line scratch state: on every observed call (two at least),
    each write came before any read of its attribute in that call, and no call read one of them before
    writing it? Facts from before reads were recorded (no ``fresh``) are never scratch."""
    return (runs >= 2 and bool(events) and all(e.get("fresh") is True for e in events)
            and not any(e.get("attribute") in carried for e in events))


def frozen_state(report: VerifyReport, side: str, facts: Facts | None) -> list[Problem]:
    """What forward did to Python state (attribute writes, deep copies), at its lines, where a
    graph of ``side`` computes other values than its model: the likely reasons, with no node."""
    if facts is None or side != "before":
        return []
    if not any(c.faithful is False for c in report.checks(side)):
        return []
    out: dict[tuple[str, int, str], Problem] = {}
    changed: set[tuple[str, int, str]] = set()
    writes: dict[tuple[str, int, str], list[dict]] = {}
    for event in facts.events:
        known = _FROZEN_EVENTS.get(event["kind"])
        if known is None:
            continue
        rule, op, why = known
        key = (event["path"], event["line"], op)
        if not event.get("unchanged"):
            changed.add(key)
        if event["kind"] == "state_write":
            writes.setdefault(key, []).append(event)
        if key not in out:
            out[key] = Problem("state", event["path"], event["line"], op, rule,
                               why.format(attribute=event.get("attribute", "?"), type=event.get("type", "?")))
    carried = carried_attributes(facts)
    result = []
    for key, p in out.items():
        if key not in changed:
            # A write that put back the value it replaced on every observed call (a cache cast in forward)
            # passes no state between calls: a warning, which leaves the graph's real cause to be found.
            p = replace(p, severity="warning", message=p.message + UNCHANGED_NOTE)
        elif key in writes and scratch_write(writes[key], carried, facts.runs):
            # Scratch state: what the call read of it, it wrote first in that call (from its inputs): the graph
            # bakes nothing of it across calls; a warning, the graph's real cause is found elsewhere.
            names = sorted({e.get("attribute", "?") for e in writes[key]})
            p = replace(p, severity="warning", message=p.message + SCRATCH_NOTE.format(attribute="`, `self.".join(names)))
        result.append(p)
    return result


#: Said of a write the recorded run saw read memory it overwrote (TRT740).
OVERLAPPING_WRITE_WHY = (
    "this write read memory it overwrote in the recorded run (its value is a slice of the tensor it writes, the two "
    "parts overlapping): eager PyTorch leaves that copy undefined (it copies in the kernel's order, so later elements "
    "read values already written), and every exporter's graph writes the source as it was, so no export can equal the "
    "eager outputs; by hand, where the shift is what the code means, copy the source first (`t[..., 1:] = "
    "t[..., :-1].clone()`: `trtcodemod apply --unsafe --select TRT740`)")
#: ... where the graph matched the eager outputs all the same.
OVERLAP_MATCHED_NOTE = ("; the graph matched the eager outputs here all the same (a copy order that read each "
                        "element first)")


def overlapping_writes(report: VerifyReport, side: str, facts: Facts | None) -> list[Problem]:
    """The writes of the original that read memory they overwrote in the recorded run, at their lines: errors where
    its graph differs from its eager outputs, a warning otherwise."""
    if facts is None or side != "before":
        return []
    lines = sorted({(e["path"], e["line"]) for e in facts.events if e["kind"] == OVERLAPPING_WRITE})
    if not lines:
        return []
    differs = any(c.faithful is False for c in report.checks(side)) or any(
        row.exporter is not None and (row.passed is False or row.before.passed is False) for row in report.backends)
    return [Problem("undefined", path, line, "(overlapping write)", "TRT740",
                    OVERLAPPING_WRITE_WHY if differs else OVERLAPPING_WRITE_WHY + OVERLAP_MATCHED_NOTE,
                    "error" if differs else "warning") for path, line in lines]


def locate(report: VerifyReport, side: str, facts: Facts | None, observed: Facts | None = None) -> list[Problem]:
    """Every problem of ``side`` (``before`` or ``after``) of a verification report. ``observed``: the observed
    run's facts where ``facts`` is None (the rewritten side), for what reads them at files as they ran."""
    return [*hostile_nodes(report, side), *baked_values(report, side, facts, observed),
            *export_failures(report, side, facts, report.export_tracebacks or None),
            *frozen_state(report, side, facts), *overlapping_writes(report, side, facts),
            *unfaithful_graphs(report, side)]


def errors(problems: Iterable[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "error"]


def raise_guard(path: str, line: int) -> tuple[int, int] | None:
    """The first and last line of the test of the ``if`` whose body raises at ``line`` of the file at ``path``
    (``if not ok: raise ValueError(...)``, a validation); None where there is none, or the file cannot be read."""
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return None
    return _raise_guard(path, line, stamp)


@lru_cache(maxsize=256)
def _raise_guard(path: str, line: int, stamp: int) -> tuple[int, int] | None:
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and any(isinstance(s, ast.Raise) and s.lineno == line for s in node.body):
            return node.test.lineno, node.test.end_lineno or node.test.lineno
    return None
