"""Providers: the per-file analyses rules share, computed at most once per file, on demand.

The idea is LibCST's metadata providers (a visitor declares ``METADATA_DEPENDENCIES`` and
reads ``get_metadata``), without their cost: nothing is resolved before the traversal. A
rule lists the providers it reads in ``requires``; ``rule.provider(Kind)`` hands it the
file's one instance (made on the first request, kept by the
:class:`~trtcodemod.context.FileContext`), and refuses a provider the rule did not
declare, so that the declarations stay true (a test runs every rule's examples).

A provider that must see the traversal (where it is: class, method, traced code) is also a
batchable visitor; the engine runs those right after the scope tracker and before the
rules. The others compute on first question. Providers of this project
(``docs/architecture.md``):

- :class:`~trtcodemod.transforms._runtime_scope.RuntimeScope`: which code a traced export runs;
- :class:`~trtcodemod.transforms._size_facts.SizeFacts`: which locals are tensors, sizes, values;
- :class:`~trtcodemod.transforms._tensor_evidence.TensorEvidence` and
  :class:`~trtcodemod.transforms._condition_evidence.ConditionEvidence`: is this a tensor,
  does this condition read tensor values;
- :class:`~trtcodemod.model_code.ModelCode`: which functions only run while the model is built;
- :class:`ObservedFacts` (below): what a recorded run saw at a node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import libcst as cst

from trtcodemod.evidence.facts import FLOOR_GAP, RESULT, Span
from trtcodemod.evidence.proofs import prove_in_file, squeezed_axes
from trtcodemod.rules import RuleInfo, UndeclaredProvider, _required

if TYPE_CHECKING:
    from trtcodemod.context import FileContext

__all__ = ["ObservedFacts", "Provider", "UndeclaredProvider"]

P = TypeVar("P")


def observed_name(node: cst.CSTNode) -> str | None:
    """The name the observer records ``node`` under at a torch call (``x``, ``self.x``), or None."""
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self":
        return f"self.{node.attr.value}"
    return None


class Provider:
    """Base of the per-file analyses: made once per file by ``context.provider(cls)``.

    A provider that consults another declares it in ``requires``, as a rule does; the rules
    that read it then count as reading that one too.
    """

    requires: tuple[type, ...] = ()

    def __init__(self, context: "FileContext") -> None:
        super().__init__()  # a visitor provider's other base
        self.context = context

    def provider(self, kind: "type[P]") -> "P":
        """The file's one ``kind`` analysis, which this provider must have declared."""
        if kind not in _required(type(self)):
            raise UndeclaredProvider(f"{type(self).__name__} reads {kind.__name__} without declaring it "
                                     "in `requires`")
        return self.context.provider(kind)


class ObservedFacts(Provider):
    """What a recorded run (``migrate``, or ``--facts``) saw at a node: one more source of
    evidence, asked in the same terms as the static ones (a node, not lines and columns).

    Every answer is "unknown" (None, False) without facts for this file, so a rule never
    tests whether facts exist. Positions cost one pass over the module, paid on the first
    question and only when there are facts.
    """

    def __init__(self, context: "FileContext") -> None:
        super().__init__(context)
        self.facts = context.facts
        self._silent_bodies: dict[tuple[int, int], bool] = {}

    @property
    def known(self) -> bool:
        """Whether the recorded run says anything about this file."""
        return self.facts is not None

    def _where(self, node: cst.CSTNode) -> Any:
        return None if self.facts is None else self.context.position(node)

    def _silent(self, node: cst.CSTNode) -> bool:
        """``node`` is in the body of the function the traversal is in, and nothing was observed
        anywhere in that body: every question below has its "never ran" answer, known without
        the position pass over the function (most functions of a library file never run)."""
        if self.facts is None:
            return False
        span = self.context.function_body_lines()
        if span is None:
            return False
        silent = self._silent_bodies.get(span)
        if silent is None:
            silent = self._silent_bodies[span] = self.facts.silent(*span)
        return silent and self.context.in_function_body(node)

    def _where_observed(self, node: cst.CSTNode) -> Any:
        """``node``'s range for a question about what was observed there; None where nothing can be
        (no facts, or a silent function's body: :meth:`_silent`)."""
        return None if self._silent(node) else self._where(node)

    def line(self, node: cst.CSTNode) -> int | None:
        """The line ``node`` starts on, where a rule names it beside an observation (None
        without facts: positions cost a pass)."""
        where = self._where(node)
        return None if where is None else where.start.line

    def reads_values(self, node: cst.CSTNode) -> bool | None:
        """True: Python read a tensor's value inside ``node`` (``__bool__``, ``.item()``...), so an
        export bakes it in; False: it ran and read none; None: no facts, or it never ran."""
        where = self._where_observed(node)
        if where is None:
            return None
        reads = self.facts.value_reads(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        return None if reads is None else bool(reads)

    def reads_values_but_its_own(self, node: cst.CSTNode) -> bool | None:
        """:meth:`reads_values` leaving out a read at exactly ``node``'s span: ``int(t)`` reading the value of
        the tensor its own argument made (py-feat's ``int(torch.ceil(torch.tensor(h / step)))``), where whether
        that tensor came from the data is a question about the argument, asked apart."""
        where = self._where_observed(node)
        if where is None:
            return None
        own = (where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        reads, span = self.facts.value_reads(*own), self.facts.span(*own)
        if reads is None or span is None:
            return None
        return any(not span.same(Span(e["path"], e["line"], e["column"], e["end_line"], e["end_column"]))
                   for e in reads)

    def reads_values_inside(self, node: cst.CSTNode, statement: cst.CSTNode) -> bool | None:
        """:meth:`reads_values` for ``node``, a part of the compound ``statement`` (a nested ``if``'s test),
        leaving out the reads located at a statement around ``statement``: the run locates a read at the
        statement that made it, so one whose span starts before ``statement`` and ends after it is an
        enclosing ``if``'s own test (UniMatch's ``if is_self_attn:`` around ``if attn_num_splits > 1:``)."""
        where, around = self._where_observed(node), self._where_observed(statement)
        if where is None or around is None:
            return None
        reads = self.facts.value_reads(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        if reads is None:
            return None
        start, end = (around.start.line, around.start.column + 1), (around.end.line, around.end.column + 1)
        return any(not ((e["line"], e["column"]) < start and (e["end_line"], e["end_column"]) >= end) for e in reads)

    def ran(self, node: cst.CSTNode) -> bool | None:
        """Did ``node``'s lines run in the observed forwards (None: no facts)?"""
        if self._silent(node):
            return False
        where = self._where(node)
        return None if where is None else self.facts.ran(where.start.line, where.end.line)

    def number_parameters(self, function: cst.FunctionDef,
                          kinds: frozenset[str] = frozenset({"int", "float"})) -> frozenset[str]:
        """Parameters of ``function`` that every recorded call passed a plain number (``int`` or
        ``float``, never a tensor): ``H`` and ``W`` of Swin's ``forward(self, x, H, W)``. Empty
        without facts, or where it was not seen called."""
        where = self._where(function)
        if where is None:
            return frozenset()
        # The code object's first line is its first decorator's, or the ``def``'s.
        body = function.body
        end = self._where(body)
        last = end.start.line if end is not None else where.end.line
        held = self.facts.parameters(function.name.value, where.start.line, last)
        return frozenset(name for name, seen in held.items() if seen and seen <= kinds)

    def parameter_kinds(self, function: cst.FunctionDef) -> dict[str, frozenset[str]]:
        """What each parameter of ``function`` held over the recorded calls (``tensor``, ``int``, ``shape``...):
        ``reference`` of demucs's ``center_trim(tensor, reference)`` held a tensor in one call and an ``int`` in
        another. Empty without facts, or where it was not seen called."""
        where = self._where(function)
        if where is None:
            return {}
        end = self._where(function.body)
        last = end.start.line if end is not None else where.end.line
        held = self.facts.parameters(function.name.value, where.start.line, last)
        return {name: frozenset(seen) for name, seen in held.items() if seen}

    def input_is_tensor(self, name: str) -> bool:
        """Did the recorded run pass a tensor as the model's input ``name`` (in some input set)?"""
        return self.facts is not None and bool(self.facts.facts.inputs.get(name, {}).get("shapes"))

    def traced(self, node: cst.CSTNode) -> bool:
        """Did the observed export warn (a ``TracerWarning``) that a traced tensor became a Python
        or NumPy value on ``node``'s lines?"""
        where = self._where_observed(node)
        return where is not None and bool(self.facts.traced(where.start.line, where.end.line))

    def converted(self, node: cst.CSTNode) -> bool:
        """Did the observed export say, on ``node``'s lines, that it converted a traced tensor into a Python
        number or bool ("Converting a tensor to a Python ..."), which only a traced value causes? (The warning that
        ``torch.tensor``/``torch.as_tensor`` results are constants comes with plain Python numbers too.)"""
        where = self._where_observed(node)
        return where is not None and any(message.startswith("Converting a tensor to a Python")
                                         for message in self.facts.traced(where.start.line, where.end.line))

    def traced_own(self, function: cst.FunctionDef) -> bool:
        """Did the observed export warn on ``function``'s own lines: those of its statements, not of
        the functions and classes it defines (a closure ``__init__`` stores on the object runs where
        forward calls it, and its warnings say nothing of ``__init__``)?"""
        where = self._where_observed(function)
        if where is None or not self.facts.traced(where.start.line, where.end.line):
            return False
        nested: list[tuple[int, int]] = []
        stack: list[cst.CSTNode] = [function.body]
        while stack:
            node = stack.pop()
            if type(node) in (cst.FunctionDef, cst.ClassDef):
                inner = self._where(node)
                if inner is None:
                    return False  # cannot tell its lines from the method's: not this method's warning
                nested.append((inner.start.line, inner.end.line))
            else:
                stack.extend(node.children)
        line = where.start.line
        for start, end in sorted(nested):
            if line < start and self.facts.traced(line, start - 1):
                return True
            line = max(line, end + 1)
        return line <= where.end.line and bool(self.facts.traced(line, where.end.line))

    def traced_messages(self, node: cst.CSTNode) -> list[str]:
        """The ``TracerWarning`` messages the observed export raised on ``node``'s lines (empty without facts)."""
        where = self._where_observed(node)
        return [] if where is None else list(self.facts.traced(where.start.line, where.end.line))

    def located(self, node: cst.CSTNode, rule: str) -> bool:
        """Did the graph check of the observed export place a node that ``rule`` removes on
        ``node``'s lines (``migrate`` notes them before the rules run)?"""
        where = self._where_observed(node)
        return where is not None and rule in self.facts.located(where.start.line, where.end.line)

    def deep_copied(self, node: cst.Call) -> list[str]:
        """The types of what the recorded forwards saw the call ``node`` deep-copy (``Tensor``, ``list``...):
        the observer records ``copy.deepcopy`` only while the model runs. Empty without facts."""
        where = self._where_observed(node)
        if where is None:
            return []
        span = self.facts.span(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        return [] if span is None else [str(e.get("type", "")) for e in self.facts.facts.at("deepcopy", span)]

    def builds_any(self, *classes: str) -> bool:
        """Was a call of this file seen building a module of one of ``classes`` (``torch.nn.MaxPool1d``)?
        Cheap: a rule asks it before asking :meth:`built` of every call."""
        return self.facts is not None and any(name in classes for name in self.facts.built_classes())

    def built(self, node: cst.Call) -> list[str]:
        """The classes of torch's modules (``torch.nn.MaxPool1d``) that the call ``node`` was seen to
        build while the model was built, whatever named the class there (``getattr(nn, name)(k)``, a
        registry, a ``functools.partial``); empty without facts or observation."""
        where = self._where_observed(node)
        if where is None:
            return []
        return self.facts.built(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)

    def proof(self, info: RuleInfo, node: cst.CSTNode) -> str | None:
        """The observation covering the assumption of the unsafe fix of the rule ``info``
        describes at ``node``, or None."""
        where = self._where_observed(node)
        if where is None:
            return None
        return prove_in_file(self.facts, info, where.start.line, where.start.column + 1, where.end.line,
                             where.end.column + 1)

    def indexed(self, node: cst.Subscript) -> list[tuple[str, int]]:
        """How the recorded forwards indexed a tensor at the read ``node``: ``(index kind, rank of the indexed
        tensor)`` per call, the kind as ``tensor_sites.index_kind`` writes it (``bool:1``,
        ``tuple(basic,bool:1)``). Empty without facts or where it was not seen."""
        where = self._where_observed(node)
        if where is None:
            return []
        span = self.facts.span(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        if span is None:
            return []
        return [(str(e.get("index")), int(e.get("rank", -1))) for e in self.facts.facts.at("index", span)]

    def squeezed_axes(self, node: cst.Call) -> tuple[int, ...] | None:
        """The axes that had size 1 on every observed call of ``squeeze()`` at ``node`` (None: not observed,
        or its rank changed between calls)."""
        where = self._where_observed(node)
        if where is None:
            return None
        span = self.facts.span(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        return None if span is None else squeezed_axes(self.facts.facts.at("squeeze_all", span))

    def squeezed_counts(self, node: cst.Call) -> set[int]:
        """How many axes each observed call of ``squeeze(d)`` at ``node`` named (``{1}``: one integer every time);
        empty where it was not observed."""
        where = self._where_observed(node)
        if where is None:
            return set()
        span = self.facts.span(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        return set() if span is None else {len(e.get("sizes", [])) for e in self.facts.facts.at("squeeze", span)}

    # --- tensors seen at torch calls (the observer's ``tensor_sites``) ---------------------------
    def _tensor_events(self, node: cst.CSTNode) -> list[dict[str, Any]]:
        """The records of ``node`` holding a tensor: a name (``x``, ``self.anchors``) at a torch
        call that contains it, or a call or subscript at exactly its span (its result)."""
        name = RESULT if type(node) in (cst.Call, cst.Subscript) else observed_name(node)
        if name is None:
            return []
        where = self._where_observed(node)
        if where is None:
            return []
        return self.facts.tensors(name, where.start.line, where.start.column + 1, where.end.line,
                                  where.end.column + 1)

    def floor_gap(self, node: cst.CSTNode) -> bool:
        """Did a floor division at ``node`` (``a // b``, ``torch.floor_divide(a, b)``) give a quotient
        other than its truncation in the recorded run (a negative one, not whole)? False without
        facts or observation."""
        where = self._where_observed(node)
        if where is None:
            return False
        return bool(self.facts.tensors(FLOOR_GAP, where.start.line, where.start.column + 1, where.end.line,
                                       where.end.column + 1))

    def is_tensor(self, node: cst.CSTNode) -> bool:
        """Was ``node`` seen holding a tensor in the recorded run: a name (or ``self.<name>``)
        passed to a torch function or tensor method, as receiver or argument, on its line, or a
        call or subscript whose result was a tensor? False without facts or observation."""
        return bool(self._tensor_events(node))

    def written_tensor(self, target: cst.Subscript, value: cst.CSTNode) -> bool:
        """Was ``value``, a name (or ``self.<name>``), seen holding a tensor written by ``target[...] = value``?
        The write's torch call (``__setitem__``) is recorded at the span of its target alone, which does not
        hold the value. False without facts or observation."""
        name = observed_name(value)
        if name is None:
            return False
        where = self._where_observed(target)
        if where is None:
            return False
        return bool(self.facts.tensors(name, where.start.line, where.start.column + 1, where.end.line,
                                       where.end.column + 1))

    def dtypes(self, node: cst.CSTNode) -> set[str]:
        """The dtypes ``node`` was seen with (``bool``, ``float32``...; empty when unknown)."""
        return {dtype for event in self._tensor_events(node) for dtype in event.get("dtypes", [])}

    def shapes(self, node: cst.CSTNode) -> list[list[int]]:
        """The shapes ``node`` was seen with (at most a few distinct ones; empty when unknown)."""
        found: list[list[int]] = []
        for event in self._tensor_events(node):
            found.extend(shape for shape in event.get("shapes", []) if shape not in found)
        return found

    def axis_varies(self, node: cst.CSTNode, axis: int) -> bool | None:
        """Did the size of ``axis`` (negative counts from the end) of the tensor ``node`` change
        across the observed calls? None when ``node`` was not seen, or its rank changed."""
        shapes = self.shapes(node)
        if not shapes or len({len(shape) for shape in shapes}) != 1:
            return None
        rank = len(shapes[0])
        if not -rank <= axis < rank:
            return None
        return len({shape[axis] for shape in shapes}) > 1
