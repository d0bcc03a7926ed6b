"""Proofs from observed facts: which observation covers an unsafe fix's assumption.

A rule whose unsafe fix can be proved names its prover in ``RuleInfo.proof``, next to its fix
and its stated assumption. :func:`prove` is the one place that decides, for both consumers:
``migrate``'s plan (``plan.py``), which passes the problems it located at the finding, and
``check``/``apply --facts`` (the engine, and rules that ask through their facts provider, by
:func:`prove_in_file`), which have none. A prover takes an :class:`Observation` and returns
what was observed, in words, or None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

from .facts import RESULT, Facts, FileFacts, Span, summarize


@dataclass(frozen=True)
class Observation:
    """What a prover reads: the run's facts and the finding's span in the observed file."""

    facts: Facts
    span: Span
    #: ``migrate``'s problems located at the finding (each with ``kind``, ``rule`` and
    #: ``exporter``); none outside ``migrate``, where no export was observed.
    problems: Sequence[Any] = ()


Prover = Callable[[Observation], Optional[str]]


def _sets(facts: Facts) -> str:
    """``N input set(s)``, naming the stretched dynamic axes a proof held across."""
    text = f"{facts.runs} input set(s)"
    return text + (f", one with the dynamic axes stretched ({'; '.join(facts.stretched)})" if facts.stretched else "")


#: How :func:`prove_squeeze` begins where the squeeze changed nothing: TRT401 then keeps the tensor as
#: it is while tracing (``_trt_squeeze_kept``) instead of indexing the axis.
SQUEEZE_NEVER_ONE = "observed: the squeezed axis never had size 1"


def prove_squeeze(seen: Observation) -> str | None:
    """TRT401: the squeezed axis had size 1 on every observed call (the stretched set's too); or it never
    had, on every call of a run that stretched the dynamic axes (the squeeze changed nothing there)."""
    events = seen.facts.at("squeeze", seen.span)
    sizes = [size for e in events for size in e.get("sizes", [])]
    if not events or not sizes:
        return None
    if all(size == 1 for size in sizes):
        return f"observed: the squeezed axis had size 1 in all {summarize(events)} call(s) over {_sets(seen.facts)}"
    if all(size != 1 for size in sizes) and seen.facts.stretched:
        seen_sizes = ", ".join(map(str, sorted(set(sizes))))
        return (f"{SQUEEZE_NEVER_ONE} (it had {seen_sizes}) in all {summarize(events)} call(s) over "
                f"{_sets(seen.facts)}: the squeeze changed nothing")
    return None


def squeezed_axes(events: Sequence[dict[str, Any]]) -> tuple[int, ...] | None:
    """TRT403: the axes of ``squeeze()`` that had size 1 on every observed call (``squeeze_all`` events), counted
    from the front; None when nothing was observed or the rank changed between calls."""
    shapes = [e["shape"] for e in events if isinstance(e.get("shape"), list)]
    if not shapes or len(shapes) != len(events) or len({len(shape) for shape in shapes}) != 1:
        return None
    return tuple(axis for axis in range(len(shapes[0])) if all(shape[axis] == 1 for shape in shapes))


def prove_squeeze_all(seen: Observation) -> str | None:
    """TRT403: every call of ``squeeze()`` had one rank, on a run that stretched the dynamic axes: the axes of size 1
    on every call are the ones the code squeezes; an axis that varied is kept."""
    events = seen.facts.at("squeeze_all", seen.span)
    axes = squeezed_axes(events)
    if axes is None or not seen.facts.stretched:
        return None
    shapes = [e["shape"] for e in events]
    varied = [axis for axis in range(len(shapes[0])) if len({shape[axis] for shape in shapes}) > 1]
    kept = "; ".join(f"axis {axis} varied ({', '.join(map(str, sorted({s[axis] for s in shapes})))})"
                     for axis in varied) or "no axis varied"
    squeezed = ", ".join(map(str, axes)) or "none"
    return (f"observed: squeeze() had shapes of rank {len(shapes[0])} whose axes {squeezed} had size 1 in all "
            f"{summarize(events)} call(s) over {_sets(seen.facts)}; {kept}")


def prove_mask(seen: Observation) -> str | None:
    """TRT201: the index was a 1-D bool tensor on every observed call."""
    events = seen.facts.at("index", seen.span)
    if not events or not all(e.get("index") == "bool:1" for e in events):
        return None
    return (f"observed: the index was a 1-D bool tensor in all {summarize(events)} call(s) over "
            f"{seen.facts.runs} input set(s)")


def prove_len(seen: Observation) -> str | None:
    """TRT704: the argument of ``len()`` was a tensor on every observed call."""
    events = seen.facts.at("len", seen.span)
    if not events or not all(e.get("tensor") for e in events):
        return None
    return f"observed: the argument of len() was a tensor in all {summarize(events)} call(s)"


def prove_pool_export_fails(seen: Observation) -> str | None:
    """TRT601, TRT602: an export failed on the adaptive pooling (their fixes are unsafe for speed
    alone: where the pooling already exports, with static dividing sizes, the exact bins are slower)."""
    failed = sorted({p.exporter or "the" for p in seen.problems
                     if p.kind == "export_failure" and p.rule in ("TRT601", "TRT602")})
    if not failed:
        return None
    return f"observed: the {', '.join(failed)} export fails on adaptive pooling, so it does not already export"


#: The TorchScript exporter's words where it detaches a value of ``state_dict(keep_vars=True)`` that is no tensor.
NO_DETACH = "object has no attribute 'detach'"


def prove_state_dict_export(seen: Observation) -> str | None:
    """TRT377: the export failed detaching a value of the module's ``state_dict`` (what the guard leaves out while
    exporting is what the exporter failed on, so no export of the original ever read it)."""
    failed = sorted({p.exporter or "the" for p in seen.problems
                     if p.kind == "export_failure" and NO_DETACH in (p.message or "")})
    if not failed:
        return None
    return (f"observed: the {', '.join(failed)} export fails detaching a value of the module's state_dict that is no "
            "tensor, so no export of the original got past reading it")


def prove_both_ways(seen: Observation) -> str | None:
    """TRT101's emptiness exits and narrowing guards (``if not keep.any(): continue``; ``if valid.sum() > k:
    valid = mask & valid``): the test on the ``if``'s own line went both ways on the verifier's input sets
    (``truth`` events; the stretched set records none). The rewritten graph always takes the way it records
    (past the exit, through the narrowing), so the verification, which compares it with the model on those
    sets, compared that way with the model where it took the other: that is what the fix assumes."""
    events = [e for e in seen.facts.at("truth", seen.span) if e["line"] == seen.span.line]
    taken = summarize(e for e in events if e.get("value") is True)
    passed = summarize(e for e in events if e.get("value") is False)
    if not taken or not passed:
        return None
    return (f"observed: the test at line {seen.span.line} went both ways ({taken} call(s) true, {passed} false) "
            f"over {seen.facts.runs} input set(s), so the verification compares the graph, which always takes the "
            "way it records, with the model where it took the other")


def prove_bool_fill(seen: Observation) -> str | None:
    """TRT380's bitwise form: the ``masked_fill`` at the span returned a bool tensor on every observed call, so its
    receiver was one (the result has the receiver's dtype) and its mask too (a mask of any other dtype raises)."""
    events = [e for e in seen.facts.tensor_events(seen.span.path, RESULT)
              if Span(e["path"], e["line"], e["column"], e["end_line"], e["end_column"]).same(seen.span)]
    if not events or any(e.get("dtypes") != ["bool"] for e in events):
        return None
    return (f"observed: masked_fill returned a bool tensor (of a bool receiver and mask) in all {summarize(events)} "
            f"call(s) over {seen.facts.runs} input set(s)")


def prover_of(info: Any, edit: Any = None) -> Prover | None:
    """The prover of a fix: its form's own (``Fix.proof``), else its rule's (``RuleInfo.proof``)."""
    return getattr(edit, "proof", None) or getattr(info, "proof", None)


def prove(info: Any, seen: Observation, edit: Any = None) -> str | None:
    """What covers the assumption of the unsafe fix of the rule ``info`` describes (of ``edit``'s form where it
    names its own prover), or None (no prover, or the observation does not cover it)."""
    prover = prover_of(info, edit)
    return None if prover is None else prover(seen)


def prove_in_file(facts: FileFacts, info: Any, line: int, column: int, end_line: int, end_column: int,
                  edit: Any = None) -> str | None:
    """:func:`prove` at this span of the analysed file (the facts only record; this module
    and the rules' provers decide what proves what)."""
    if prover_of(info, edit) is None:
        return None
    span = facts.span(line, column, end_line, end_column)
    return None if span is None else prove(info, Observation(facts.facts, span), edit)
