"""What one observed run established, per source site; JSON in and out.

``observe.py`` produces the raw dict in a worker; this module is the read side that
``locate`` and ``plan`` use, and, through :class:`FileFacts` (one file's part), what
``check``/``apply --facts`` hand to rules (the :class:`~trtcodemod.providers.ObservedFacts`
provider). What proves an unsafe fix's assumption is ``proofs.py``'s business: it reads
this module, never the reverse. A site is ``(path, line, column, end_line, end_column)`` of the
expression Python was evaluating (1-based columns, like a finding's).
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

FACTS_VERSION = 1
#: Tensor methods the observer records among its value reads that read a size, not the data:
#: ``len(t)`` is ``t.shape[0]`` (:meth:`Facts.value_reads` leaves them out).
SIZE_READS = frozenset({"__len__"})
#: The end column of an event that covers its whole line (a warning knows only the line).
_WHOLE_LINE = 1 << 20
#: The name a tensor event gives a call's result (``tensor_sites.RESULT``; no name holds it yet).
RESULT = "<result>"
#: The name of a tensor event at a floor division (``//``, ``torch.floor_divide``) whose quotient was not
#: its truncation somewhere: where the exporter's truncating ``Div`` gives other values (TRT339).
FLOOR_GAP = "<floor-gap>"
#: The event of a subscript write that read memory it overwrote (``t[..., 1:] = t[..., :-1]``): eager PyTorch's
#: result there is undefined, and every exporter's graph differs from it (TRT740).
OVERLAPPING_WRITE = "overlapping_write"
#: Events that say nothing of the code around them running in a forward: what a function's parameters held
#: (recorded at its ``def``), and a call that built a module while the model was built (a factory's line).
_NOT_FORWARD = frozenset({"parameter", "module_built"})
#: The fields every event has (``observe.py`` writes them; a facts file without them is malformed).
_EVENT_FIELDS = ("kind", "path", "line", "column", "end_line", "end_column")


class FactsError(ValueError):
    """A facts file that cannot be read or is not what ``migrate --save-facts`` writes."""


@dataclass(frozen=True)
class Span:
    """A source range; a finding's or an observed expression's."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    def same(self, other: "Span") -> bool:
        """The same expression: the same range, or the same end with the starts on different lines. CPython (3.11+)
        places a method call whose attribute lies on a later line than the call's start at the attribute's name
        (``x.sum(-1)\\n    .squeeze()`` is observed from ``squeeze``), and a call's closing parenthesis is its own."""
        if (self.path, self.end_line, self.end_column) != (other.path, other.end_line, other.end_column):
            return False
        return (self.line, self.column) == (other.line, other.column) or self.line != other.line

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


def source_hash(source: bytes) -> str:
    """What facts remember of a file's contents: facts prove nothing about other contents."""
    return hashlib.sha256(source).hexdigest()


@dataclass
class Facts:
    """Lines that ran, and events (value reads, indices, len, squeeze, the names holding
    tensors at torch calls) at sites."""

    runs: int = 0
    lines: dict[str, set[int]] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    run_errors: list[str] = field(default_factory=list)
    #: path -> :func:`source_hash` of the file the run executed (facts files from before
    #: hashes were kept have none, and are taken as they are).
    hashes: dict[str, str] = field(default_factory=dict)
    #: The dynamic axes the observer's extra set stretched (``x[2] (height) 8->17``), if any.
    stretched: list[str] = field(default_factory=list)
    #: The lines that ran during the observed forwards (``lines`` also has those that ran while
    #: importing and building); None for facts files from before it was kept: all ran then.
    forward: dict[str, set[int]] | None = None
    #: (number of events when built, (path, name) -> tensor events): see :meth:`tensor_events`.
    _tensor_index: tuple[int, dict[tuple[str, str], list[dict[str, Any]]]] | None = field(
        default=None, init=False, repr=False, compare=False)

    # --- JSON ------------------------------------------------------------------------------
    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Facts":
        if not isinstance(data, dict):
            raise FactsError("not a JSON object")
        if int(data.get("version", FACTS_VERSION)) != FACTS_VERSION:
            raise FactsError(f"facts version {data.get('version')} is not {FACTS_VERSION}")
        if not isinstance(data.get("lines", {}), dict) or not isinstance(data.get("events", []), list):
            raise FactsError("'lines' must be an object and 'events' a list")
        for number, event in enumerate(data.get("events", [])):
            if not isinstance(event, dict) or any(k not in event for k in _EVENT_FIELDS):
                raise FactsError(f"event {number} lacks one of {', '.join(_EVENT_FIELDS)}")
        return cls(runs=int(data.get("runs", 0)),
                   lines={norm(p): set(v) for p, v in data.get("lines", {}).items()},
                   events=[dict(e, path=norm(e["path"])) for e in data.get("events", [])],
                   inputs=dict(data.get("inputs", {})), run_errors=list(data.get("run_errors", [])),
                   hashes={norm(p): str(h) for p, h in dict(data.get("hashes", {})).items()},
                   stretched=[str(c) for c in data.get("stretched", [])],
                   forward=None if data.get("forward") is None else
                   {norm(p): set(v) for p, v in dict(data["forward"]).items()})

    def to_json(self) -> dict[str, Any]:
        return {"version": FACTS_VERSION, "runs": self.runs, "run_errors": self.run_errors,
                "lines": {p: sorted(v) for p, v in sorted(self.lines.items())},
                "events": self.events, "inputs": self.inputs,
                "hashes": dict(sorted(self.hashes.items())), "stretched": self.stretched,
                **({} if self.forward is None else {"forward": {p: sorted(v) for p, v in sorted(self.forward.items())}})}

    @classmethod
    def load(cls, path: Path) -> "Facts":
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))

    @classmethod
    def read(cls, path: Path) -> "Facts":
        """:meth:`load`, with every way it can fail turned into one :class:`FactsError` message."""
        try:
            return cls.load(path)
        except FactsError as exc:
            raise FactsError(f"{path}: not a facts file from `migrate --save-facts`: {exc}") from None
        except FileNotFoundError:
            raise FactsError(f"{path}: no such file") from None
        except OSError as exc:
            raise FactsError(f"{path}: cannot read it: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise FactsError(f"{path}: not a facts file from `migrate --save-facts`: not UTF-8 text") from None
        except json.JSONDecodeError as exc:
            raise FactsError(f"{path}: not a facts file from `migrate --save-facts`: invalid JSON "
                             f"(line {exc.lineno}: {exc.msg})") from None
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            raise FactsError(f"{path}: not a facts file from `migrate --save-facts`: {exc!r}") from None

    def save(self, path: Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    # --- queries -----------------------------------------------------------------------------
    @property
    def files(self) -> list[str]:
        """The user's files that ran: where the model's code came from."""
        return sorted(self.lines)

    @property
    def forward_files(self) -> list[str]:
        """The user's files where a line ran during the observed forwards (all, for old facts)."""
        return self.files if self.forward is None else sorted(p for p, v in self.forward.items() if v)

    def lines_ran(self, files: Iterable[str]) -> int:
        """How many lines of ``files`` ran during the forwards (while importing and building too, for old facts)."""
        lines = self.lines if self.forward is None else self.forward
        return sum(len(lines.get(f, ())) for f in files)

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
        """Where Python read a tensor's value during a forward: what an export bakes in.

        ``len(t)`` (``__len__``) is not one: it reads ``t.shape[0]``, a size, never the data. The
        TorchScript trace warns where it is taken, so the bake is located from that warning and
        judged like any size (a second trace at other sizes, ``retrace.py``); counted as a value,
        it made `if len(desc1) == 0:` look data-dependent (TRT101) and kept it from that test."""
        return [e for e in self.events if e["kind"] == "value_read" and e.get("method") not in SIZE_READS]

    def baked_lines(self) -> dict[tuple[str, int], list[str]]:
        """``(path, line) -> methods`` of the value reads made there."""
        out: dict[tuple[str, int], list[str]] = {}
        for e in self.value_reads():
            methods = out.setdefault((e["path"], e["line"]), [])
            if e["method"] not in methods:
                methods.append(e["method"])
        return out

    def read_callers(self, path: str, line: int) -> list[str | None]:
        """The user's lines that called the function holding the value reads at ``path:line``, one
        per distinct caller (None where the read had none, or the facts predate callers)."""
        out: list[str | None] = []
        for e in self.value_reads():
            if (e["path"], e["line"]) == (path, line) and e.get("caller") not in out:
                out.append(e.get("caller"))
        return out

    def read_origins(self, path: str, line: int) -> list[str | None]:
        """Where the value reads at ``path:line`` happened, one per distinct place: ``path:line`` of the
        library frame that read on the user's behalf (torch's argument check behind a distribution built
        at the user's line), None for a read the line made itself (or facts that predate origins)."""
        out: list[str | None] = []
        for e in self.value_reads():
            if (e["path"], e["line"]) == (path, line) and e.get("origin") not in out:
                out.append(e.get("origin"))
        return out

    def note_traced(self, warnings: Iterable[tuple[str, int, str]]) -> None:
        """Keep the export's ``TracerWarning``s, ``(path, line, message)``, as events of kind
        ``traced``: a traced tensor became a Python or NumPy value at that line, which rules
        take as evidence that what the line reads there is a tensor (or one's size)."""
        for path, line, message in warnings:
            event = {"kind": "traced", "path": norm(path), "line": line, "column": 1, "end_line": line,
                     "end_column": _WHOLE_LINE, "direct": True, "count": 1, "message": message}
            if event not in self.events:
                self.events.append(event)

    def note_located(self, problems: Iterable[tuple[str, int, str]]) -> None:
        """Keep the nodes the graph check located, ``(path, line, rule)``, as events of kind
        ``located``: the exported graph holds a node that rule removes, made at that line, which a
        rule whose construct the syntax cannot tell apart takes as its evidence (TRT334: a CumSum of
        integers where the code shows no dtype)."""
        for path, line, rule in problems:
            event = {"kind": "located", "path": norm(path), "line": line, "column": 1, "end_line": line,
                     "end_column": _WHOLE_LINE, "direct": True, "count": 1, "rule": rule}
            if event not in self.events:
                self.events.append(event)

    def builds_called_at(self, path: str, line: int) -> list[Span]:
        """Where the modules of torch's classes that the observed forwards called at ``path:line``
        were built: the user's constructor calls (``class_(kernel_size)`` in unet's factory), for a
        module inside a container too (``self.features(x)`` runs its ``nn.MaxPool1d``)."""
        out: list[Span] = []
        for e in self.events:
            if e["kind"] == "module_call" and e["path"] == norm(path) and e["line"] == line:
                built = e.get("built") or ()
                if len(built) == 5:
                    span = Span(norm(str(built[0])), *(int(n) for n in built[1:]))
                    if not any(span.same(s) for s in out):
                        out.append(span)
        return out

    def tensor_events(self, path: str, name: str) -> list[dict[str, Any]]:
        """The observer's records of ``name`` holding a tensor in ``path`` (indexed on first use:
        rules ask for every name they meet)."""
        index = self._tensor_index
        if index is None or index[0] != len(self.events):
            table: dict[tuple[str, str], list[dict[str, Any]]] = {}
            for e in self.events:
                if e["kind"] == "tensor":
                    table.setdefault((e["path"], e.get("name", "")), []).append(e)
            index = self._tensor_index = (len(self.events), table)
        return index[1].get((path, name), [])

    def varying_axes(self) -> dict[str, list[int]]:
        return {name: list(info.get("varying", [])) for name, info in self.inputs.items()}

    # --- one file, for check / apply --facts -----------------------------------------------------
    def resolve(self, path: str) -> str | None:
        """The facts' spelling of ``path``, or None when the facts say nothing about it.

        Facts hold real absolute paths of where ``migrate`` ran. The same file checked
        there matches exactly; a checkout elsewhere (CI) matches when exactly one file of
        the facts ends with the path as given (``src/model.py``), compared part by part.
        """
        real = norm(path)
        known = set(self.lines) | {e["path"] for e in self.events}
        if real in known:
            return real
        parts = Path(os.path.normpath(path)).parts
        parts = tuple(p for p in parts if p not in ("", ".", os.sep))
        if not parts or ".." in parts or os.path.isabs(path):
            return None
        hits = [k for k in known if Path(k).parts[-len(parts):] == parts]
        return hits[0] if len(hits) == 1 else None

    def stale(self, path: str, source: bytes) -> bool:
        """Were the facts about ``path`` observed on other contents than ``source``?"""
        resolved = self.resolve(path)
        known = self.hashes.get(resolved) if resolved is not None else None
        return known is not None and known != source_hash(source)

    def for_file(self, path: str, line_map: Callable[[int], int | None] | None = None,
                 source: bytes | None = None,
                 span_map: Callable[[int, int, int, int], tuple[int, int, int, int] | None] | None = None,
                 ) -> "FileFacts | None":
        """What the facts say about one file (None when nothing), for a rule's context.

        ``source``: the contents the facts must have been observed on; facts about a file
        that changed since say nothing (a changed configuration line can make a proved
        assumption false).
        """
        resolved = self.resolve(path)
        if resolved is None or (source is not None and self.stale(path, source)):
            return None
        return FileFacts(self, resolved, line_map, span_map)


@dataclass
class FileFacts:
    """Per-(path, line) answers about one file (``context.facts``): what the
    :class:`~trtcodemod.providers.ObservedFacts` provider asks, node by node, for the rules.

    ``line_map`` maps a line of the source being analysed to the line the facts were
    observed on (None: that line was changed by an earlier fix pass, so nothing is known).
    """

    facts: Facts
    path: str
    line_map: Callable[[int], int | None] | None = None
    #: Where ``line_map`` knows nothing (a line an earlier fix pass changed): a span of the analysed
    #: source → the span of the same text on the original lines that pass replaced, when it maps one.
    span_map: Callable[[int, int, int, int], tuple[int, int, int, int] | None] | None = None
    #: (number of events when built, every line of this file where something was observed, sorted).
    _observed_lines: tuple[int, list[int]] | None = field(default=None, init=False, repr=False, compare=False)
    #: (number of events when built, :meth:`_builds`'s table).
    _built: tuple[int, dict[tuple[int, int, int, int], list[str]]] | None = field(
        default=None, init=False, repr=False, compare=False)

    def span(self, line: int, column: int, end_line: int, end_column: int) -> Span | None:
        """Where a span of the analysed source was observed (None: an earlier fix pass moved it)."""
        if self.line_map is None:
            return Span(self.path, line, column, end_line, end_column)
        start, end = self.line_map(line), self.line_map(end_line)
        if start is None or end is None or end - start != end_line - line:
            moved = self.span_map(line, column, end_line, end_column) if self.span_map is not None else None
            return None if moved is None else Span(self.path, *moved)
        return Span(self.path, start, column, end, end_column)

    def silent(self, line: int, end_line: int) -> bool:
        """Nothing was observed on these lines of the analysed source: none ran (not even while
        importing or building), no event touches them. Then every question about a span inside
        has its "never ran" answer. False after an earlier fix pass moved lines (``line_map``)."""
        if self.line_map is not None:
            return False
        cached = self._observed_lines
        if cached is None or cached[0] != len(self.facts.events):
            lines = set(self.facts.lines.get(self.path, ()))
            for e in self.facts.events:
                if e["path"] == self.path:
                    lines.update(range(int(e["line"]), int(e["end_line"]) + 1))
            cached = self._observed_lines = (len(self.facts.events), sorted(lines))
        observed = cached[1]
        at = bisect.bisect_left(observed, line)
        return at == len(observed) or observed[at] > end_line

    def forward_lines(self) -> set[int]:
        """Lines of the observed contents where something was recorded while the model ran
        (value reads, indexing, writes to ``self``, the export's warnings): forward code. What a
        function's parameters held is recorded at its ``def`` and says nothing of its body; a module
        built by a line was built before the model ran (:data:`_NOT_FORWARD`)."""
        return {int(e["line"]) for e in self.facts.events
                if e.get("path") == self.path and e.get("line") and e["kind"] not in _NOT_FORWARD}

    def parameters(self, function: str, line: int, end_line: int) -> dict[str, set[str]]:
        """What each parameter of the function ``function`` defined on these lines held in the
        recorded calls (``tensor``, ``int``, ``float``, ``bool``; see the observer's
        ``_note_parameters``); empty where it was not seen called."""
        span = self.span(line, 1, end_line, 1)
        if span is None:
            return {}
        held: dict[str, set[str]] = {}
        for e in self.facts.events:
            if e["kind"] == "parameter" and e["path"] == span.path and e.get("function") == function \
                    and span.line <= e["line"] <= span.end_line:
                held.setdefault(str(e.get("name")), set()).add(str(e.get("holds")))
        return held

    def ran(self, line: int, end_line: int | None = None) -> bool:
        """Did any of these lines run in the observed forwards (or while building the model)?"""
        span = self.span(line, 1, end_line or line, 1)
        return span is not None and self.facts.ran(span.path, span.line, span.end_line)

    def value_reads(self, line: int, column: int, end_line: int, end_column: int) -> list[dict[str, Any]] | None:
        """The tensor value reads observed inside this span; None when the span never ran (or moved)."""
        span = self.span(line, column, end_line, end_column)
        if span is None or not self.facts.ran(span.path, span.line, span.end_line):
            return None
        return [e for e in self.facts.value_reads() if e["path"] == span.path
                and Span(e["path"], e["line"], e["column"], e["end_line"], e["end_column"]).overlaps(span)]

    def tensors(self, name: str, line: int, column: int, end_line: int, end_column: int) -> list[dict[str, Any]]:
        """The observer's records of ``name`` holding a tensor at a torch call whose span
        holds this one (``tensor_sites.py``); for the result name, the call at exactly this span."""
        span = self.span(line, column, end_line, end_column)
        if span is None:
            return []
        found = []
        for e in self.facts.tensor_events(span.path, name):
            site = Span(e["path"], e["line"], e["column"], e["end_line"], e["end_column"])
            if site.same(span) or (name != RESULT and _contains(site, span)):
                found.append(e)
        return found

    def _builds(self) -> dict[tuple[int, int, int, int], list[str]]:
        """The span of each call of this file seen building modules of torch's classes -> those classes."""
        cached = self._built
        if cached is None or cached[0] != len(self.facts.events):
            table: dict[tuple[int, int, int, int], list[str]] = {}
            for e in self.facts.events:
                if e["kind"] == "module_built" and e["path"] == self.path:
                    classes = table.setdefault((e["line"], e["column"], e["end_line"], e["end_column"]), [])
                    if str(e.get("cls")) not in classes:
                        classes.append(str(e.get("cls")))
            cached = self._built = (len(self.facts.events), table)
        return cached[1]

    def built_classes(self) -> list[str]:
        """Every class of torch's a call of this file was seen building (``torch.nn.MaxPool1d``): the
        engine lets a rule that waits for a class's name in the text see these too."""
        return sorted({name for names in self._builds().values() for name in names})

    def built(self, line: int, column: int, end_line: int, end_column: int) -> list[str]:
        """The classes of torch's (``torch.nn.MaxPool1d``) of the modules the call at exactly this span
        built while the model was built, in the order first seen."""
        span = self.span(line, column, end_line, end_column)
        if span is None:
            return []
        return list(self._builds().get((span.line, span.column, span.end_line, span.end_column), ()))

    def located(self, line: int, end_line: int) -> list[str]:
        """The rules of the graph check's nodes located on these lines (:meth:`Facts.note_located`)."""
        span = self.span(line, 1, end_line, 1)
        if span is None:
            return []
        return [e.get("rule", "") for e in self.facts.events if e["kind"] == "located"
                and e["path"] == span.path and span.line <= e["line"] <= span.end_line]

    def traced(self, line: int, end_line: int) -> list[str]:
        """The export's ``TracerWarning`` messages on these lines (see :meth:`Facts.note_traced`)."""
        span = self.span(line, 1, end_line, 1)
        if span is None:
            return []
        return [e.get("message", "") for e in self.facts.events if e["kind"] == "traced"
                and e["path"] == span.path and span.line <= e["line"] <= span.end_line]


def _contains(outer: Span, inner: Span) -> bool:
    return (outer.line, outer.column) <= (inner.line, inner.column) and \
        (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column)


def summarize(events: Iterable[dict[str, Any]]) -> int:
    """How many times the events were seen, all together."""
    return sum(int(e.get("count", 1)) for e in events)
