"""A Python ``for`` loop whose trip count follows a dynamic axis: what a second trace shows unrolled.

A traced export runs a Python loop and records its body once per iteration. Where the loop runs
once per frame of a video (``for i in range(num_frames):``, ``num_frames`` read from the input's
shape) the graph holds the example's count of copies: a trace at another size has another count,
and the graph traced first computes only the example's frames. Nothing warns: ``range`` takes
the traced size as a plain ``int``. The two graphs the second trace compares (:mod:`.retrace`)
say where: every node's stack names the lines of the user's code that made it, so the lines run
inside the loop make more nodes in one graph than in the other.

:func:`unrolled_loops` finds those loops: for each user line whose node count differs between
the graphs, the innermost ``for`` around it in its file; a loop is kept when the lines directly in its body
(in no loop nested in it) that every iteration runs (in no ``if`` of the body) all changed their
count in one direction (a branch taken at one size changes only its own lines; one taken on the
first iteration only keeps its count), or, with no such line that made nodes, the lines that
changed did; and most of the lines its body's nodes pass through (the body's own and those of what
it calls) that made nodes in both graphs changed their count the same way (a repeated body repeats
all of them; a body run as often that reaches a branch taken at one size only, a cache that misses
at a new size inside a method it calls, keeps most of theirs); and no kept loop around it explains it already (a loop nested in an unrolled loop
repeats with it, in its body or in code its body calls).

:func:`repeated_at` gives the node counts of one line (the first differing node's) where the second
graph has another number of them: with no ``for`` around it, a Python list whose length follows a
dynamic axis (``list(boxes.unbind(0))``) repeats as a loop does.
"""

from __future__ import annotations

import ast
import os
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from trtcodemod.evidence.facts import norm


@dataclass(frozen=True)
class Unrolled:
    """One loop: its file, the line of its ``for``, its header's text, and one line of its body's node
    counts in the two graphs."""

    path: str
    line: int
    header: str
    counts: tuple[int, int]


def _line_counts(model: Any, user: Any, outer: dict[tuple[str, int], set[tuple[str, int]]]) -> Counter[tuple[str, int]]:
    """``(file, line) -> nodes`` whose stack passes through that line of a user's file (each node
    counted once per line, in the main graph and its subgraphs); ``outer`` gathers, for each line,
    the lines further out on those stacks (its callers)."""
    from trtcodemod.trt.source_map import is_user_frame, iter_nodes, node_frames

    counts: Counter[tuple[str, int]] = Counter()
    for node in iter_nodes(model.graph):
        stack = [(norm(f.file), f.line) for f in node_frames(node) if (user(f.file) if user else is_user_frame(f))]
        for k, key in enumerate(stack):  # innermost first
            outer.setdefault(key, set()).update(stack[k + 1:])
        counts.update(set(stack))
    return counts


@lru_cache(maxsize=64)
def _loops(path: str, mtime: float) -> tuple[tuple[int, int, int, str, frozenset[int]], ...]:
    """``(for line, body first line, body last line, header text, lines under an if)`` of every ``for``
    in ``path``: the last are the lines of the bodies of ``if`` statements in the loop's body (not in a
    loop nested in it), run on some iterations only."""
    del mtime  # the cache key: a file rewritten since is parsed again
    try:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return ()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.AsyncFor)) and node.body:
            header = f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}"
            out.append((node.lineno, node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno, header,
                        frozenset(_conditional(node.body))))
    return tuple(out)


def _conditional(body: list[ast.stmt]) -> set[int]:
    """The lines of ``if`` branches in ``body``, not looking into nested loops or functions."""
    lines: set[int] = set()
    for statement in body:
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef,
                                  ast.ClassDef)):
            continue
        if isinstance(statement, ast.If):
            for branch in (statement.body, statement.orelse):
                for inner in branch:
                    lines.update(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1))
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            nested = getattr(statement, field, None)
            if isinstance(nested, list):
                lines |= _conditional([n for n in nested if isinstance(n, ast.stmt)] +
                                      [b for h in nested if isinstance(h, ast.ExceptHandler) for b in h.body])
    return lines


def _innermost(path: str, line: int) -> tuple[int, int, int, str, frozenset[int]] | None:
    """The innermost ``for`` whose body holds ``line``."""
    try:
        mtime = os.path.getmtime(path)
    except OSError:
        return None
    around = [loop for loop in _loops(path, mtime) if loop[1] <= line <= loop[2]]
    return max(around, key=lambda loop: loop[1]) if around else None


def in_body(path: str, loop_line: int, line: int) -> bool:
    """Is ``line`` of ``path`` in the body of the ``for`` at ``loop_line`` (or of a loop nested in it)?"""
    try:
        mtime = os.path.getmtime(path)
    except OSError:
        return False
    return any(loop[0] == loop_line and loop[1] <= line <= loop[2] for loop in _loops(path, mtime))


def _through(model: Any, user: Any, body: set[tuple[str, int]]) -> Counter[tuple[str, int]]:
    """``(file, line) -> nodes`` made by the lines ``body`` and what they call: for each node whose stack
    passes through one of them, the lines from there inwards (each counted once per node)."""
    from trtcodemod.trt.source_map import is_user_frame, iter_nodes, node_frames

    counts: Counter[tuple[str, int]] = Counter()
    for node in iter_nodes(model.graph):
        stack = [(norm(f.file), f.line) for f in node_frames(node) if (user(f.file) if user else is_user_frame(f))]
        at = next((k for k, key in enumerate(stack) if key in body), None)  # innermost first
        if at is not None:
            counts.update(set(stack[:at + 1]))
    return counts


def _repeats(model_a: Any, model_b: Any, user: Any, body: set[tuple[str, int]], more: bool) -> bool:
    """Does what the loop's body makes repeat, rather than take another branch somewhere inside it? A loop
    unrolled another number of times makes every node of its body another number of times, down to the lines
    its body calls; a body that runs as often at both sizes but reaches a branch taken at one only (a cache
    that misses at a new size, deep in a method the body calls) changes the count of its own lines and of
    that branch, while the lines it runs at both sizes keep theirs. Kept where most of the lines that made
    nodes in both graphs changed their count in the loop's direction."""
    a, b = _through(model_a, user, body), _through(model_b, user, body)
    common = [key for key in a if b.get(key)]
    moved = [key for key in common if (b[key] > a[key] if more else b[key] < a[key])]
    return 2 * len(moved) > len(common)


def unrolled_loops(path_a: str, path_b: str, user: Any = None) -> list[Unrolled]:
    """The loops the two graphs unrolled a different number of times, outermost first."""
    import onnx

    outer: dict[tuple[str, int], set[tuple[str, int]]] = {}
    model_a = onnx.load(path_a, load_external_data=False)
    model_b = onnx.load(path_b, load_external_data=False)
    a = _line_counts(model_a, user, outer)
    b = _line_counts(model_b, user, outer)
    # Lines directly in each loop's body (the loop is their innermost), with their counts.
    by_loop: dict[tuple[str, int], list[tuple[int, int]]] = {}
    bodies: dict[tuple[str, int], list[tuple[str, int]]] = {}
    spans: dict[tuple[str, int], tuple[int, int, int, str]] = {}
    for key in set(a) | set(b):
        loop = _innermost(*key)
        if loop is None:
            continue
        spans[(key[0], loop[0])] = loop
        by_loop.setdefault((key[0], loop[0]), []).append((a.get(key, 0), b.get(key, 0)))
        bodies.setdefault((key[0], loop[0]), []).append(key)
    found = []
    for (path, line), counts in by_loop.items():
        conditional = spans[(path, line)][4]
        lines = list(zip(bodies[(path, line)], counts))
        # The lines every iteration runs (outside any `if` of the body) all repeat more (or all fewer)
        # times: the loop's count. A branch taken at one size changes only its own lines; one taken on
        # some iterations only (the first) may keep its count. With no such line, the changed ones.
        every = [c for key, c in lines if key[1] not in conditional] or [c for _, c in lines if c[0] != c[1]]
        if not every or not (all(y > x for x, y in every) or all(y < x for x, y in every)):
            continue
        if not _repeats(model_a, model_b, user, set(bodies[(path, line)]), every[0][1] > every[0][0]):
            continue
        x, y = max(every, key=lambda c: (min(c), max(c)))
        found.append(Unrolled(path, line, spans[(path, line)][3], (x, y)))
    # A loop inside another found loop repeats with it, in its body or in code its body calls: the outer
    # one is the cause.
    def inside(u: Unrolled, o: Unrolled) -> bool:
        first, last = spans[(o.path, o.line)][1:3]
        if o.path == u.path and first <= u.line <= last:
            return True
        callers = set().union(*(outer.get(key, set()) for key in bodies[(u.path, u.line)]))
        return any(path == o.path and first <= line <= last for path, line in callers)

    kept = [u for u in found if not any(o is not u and inside(u, o) for o in found)]
    return sorted(kept, key=lambda u: (u.path, u.line))


#: Said of the line of the first differing node where it made more (or fewer) nodes in the second graph:
#: a Python list whose length follows a dynamic axis repeats its elements' nodes as a loop does.
REPEATED_NOTE = ("; this line made {a} node(s) in the first graph and {b} in the second: what it builds repeats "
                 "with the dynamic axes, as an unrolled loop does (a Python list of one element per row of a "
                 "dynamic axis: `list(x.unbind(0))`, `x.split(1)`, `[item] * x.shape[0]`, a comprehension over "
                 "the batch)")


def repeated_at(path_a: str, path_b: str, where: tuple[str, int], user: Any = None) -> tuple[int, int] | None:
    """The node counts of the user's line ``where`` in the two graphs, where both made nodes there and
    the second made another number of them; None otherwise (a baked number changes a constant, not the
    count)."""
    import onnx

    outer: dict[tuple[str, int], set[tuple[str, int]]] = {}
    key = (norm(where[0]), where[1])
    a = _line_counts(onnx.load(path_a, load_external_data=False), user, outer).get(key, 0)
    b = _line_counts(onnx.load(path_b, load_external_data=False), user, outer).get(key, 0)
    return (a, b) if a and b and a != b else None
