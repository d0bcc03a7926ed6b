"""Proofs from observed facts: which fact covers an unsafe fix's assumption.

One place for both consumers: ``migrate``'s plan (``plan.py``) and ``check``/``apply
--facts`` (the engine, through :func:`prove_in_file`). A prover
takes the facts and the finding's span and returns the observation, in words, or None.
"""

from __future__ import annotations

from typing import Callable

from .facts import Facts, FileFacts, Span, summarize


def _sets(facts: Facts) -> str:
    """``N input set(s)``, naming the stretched dynamic axes a proof held across."""
    text = f"{facts.runs} input set(s)"
    return text + (f", one with the dynamic axes stretched ({'; '.join(facts.stretched)})" if facts.stretched else "")


def prove_squeeze(facts: Facts, span: Span) -> str | None:
    """TRT401: the squeezed axis had size 1 on every observed call (the stretched set's too)."""
    seen = facts.at("squeeze", span)
    if not seen or not all(all(size == 1 for size in e.get("sizes", [])) for e in seen):
        return None
    return f"observed: the squeezed axis had size 1 in all {summarize(seen)} call(s) over {_sets(facts)}"


def prove_mask(facts: Facts, span: Span) -> str | None:
    """TRT201: the index was a 1-D bool tensor on every observed call."""
    seen = facts.at("index", span)
    if not seen or not all(e.get("index") == "bool:1" for e in seen):
        return None
    return f"observed: the index was a 1-D bool tensor in all {summarize(seen)} call(s) over {facts.runs} input set(s)"


def prove_len(facts: Facts, span: Span) -> str | None:
    """TRT704: the argument of ``len()`` was a tensor on every observed call."""
    seen = facts.at("len", span)
    if not seen or not all(e.get("tensor") for e in seen):
        return None
    return f"observed: the argument of len() was a tensor in all {summarize(seen)} call(s)"


#: rule -> a function naming the observed fact that covers the fix's assumption (or None).
#: Only facts about values seen at the finding's own span: what needs an export
#: (``migrate``'s TRT601 proof) stays in ``plan.py``.
SPAN_PROVERS: dict[str, Callable[[Facts, Span], str | None]] = {
    "TRT401": prove_squeeze,
    "TRT201": prove_mask,
    "TRT704": prove_len,
}


def prove_in_file(facts: FileFacts, rule: str, line: int, column: int, end_line: int, end_column: int) -> str | None:
    """The observation that covers the assumption of ``rule``'s unsafe fix at this span of the
    analysed file, or None (the facts only record; this module decides what proves what)."""
    prover = SPAN_PROVERS.get(rule)
    span = facts.span(line, column, end_line, end_column) if prover is not None else None
    return None if span is None else prover(facts.facts, span)
