"""Which lines build the module that a line of ``forward`` calls.

A torch module built in ``__init__`` (``self.attn = nn.MultiheadAttention(...)``) does its
work, and makes its nodes and its TracerWarnings, inside torch's files: the exporter maps all
of it to the innermost line of the user's code, the call (``x = self.attn(x)``), while a rule
that replaces the module finds its construction. This module connects the two by reading the
user's file: the module a call's callee names (``self.attn``, ``self.blocks[i]``, a name a
``for`` loop binds over ``self.blocks``), the statements of the same class that assign that
attribute (``self.attn = ...`` in any method), and the statements of the same method that
bind the names their value uses (``layer = nn.TransformerEncoderLayer(...)`` before
``self.encoder = nn.TransformerEncoder(layer, 2)``) or the other attributes of ``self`` it takes
(``nn.TransformerEncoder(self.transformer_layer, 2)``), a few levels deep.

Where the code names the class at run time (unet's ``class_ = getattr(nn, class_name)`` then
``class_(kernel_size)`` in a factory function, a registry, a ``functools.partial``), no statement
of the class spells it: the observed run says which call built each module the line called
(:func:`with_builds`, from the observer's ``module_call`` records), in whatever file that call is.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trtcodemod.evidence.facts import Facts

    from .locate import Problem

#: How many levels of local names a construction is followed through.
_DEPTH = 3


@lru_cache(maxsize=64)
def _tree(path: str, mtime: float) -> ast.Module | None:
    try:
        return ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None


def _within(node: ast.AST, line: int) -> bool:
    return node.lineno <= line <= (node.end_lineno or node.lineno)


def _self_attributes(node: ast.AST) -> set[str]:
    """``X`` of every ``self.X`` read in ``node``."""
    return {n.attr for n in ast.walk(node)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"}


def _bound_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _callee_attributes(call: ast.Call, function: ast.AST) -> set[str]:
    """The attributes of ``self`` whose module ``call`` calls: named in its callee, or in what a
    ``for`` loop or an assignment of the same function binds the callee's name to."""
    attributes = _self_attributes(call.func)
    names = {n.id for n in ast.walk(call.func) if isinstance(n, ast.Name) and n.id != "self"}
    if names:
        for node in ast.walk(function):
            if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and _bound_names(node.target) & names:
                attributes |= _self_attributes(node.iter)
            elif isinstance(node, ast.Assign) and any(_bound_names(t) & names for t in node.targets):
                attributes |= _self_attributes(node.value)
    return attributes


def _local_constructions(call: ast.Call, function: ast.AST) -> list[tuple[int, int]]:
    """Line ranges of the calls that build the module ``call`` calls by a local name the same function binds to a
    call (pypots' TimeMixer: ``down_pool = torch.nn.AvgPool1d(window)``, then ``down_pool(x)`` in a loop)."""
    if not isinstance(call.func, ast.Name):
        return []
    name = call.func.id
    return [(node.value.lineno, node.value.end_lineno or node.value.lineno) for node in ast.walk(function)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)]


def _assigned(node: ast.stmt, attributes: set[str]) -> bool:
    """Does ``node`` assign ``self.<one of attributes>``, or fill it (``self.layers.append(...)``)?"""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        return (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute)
                and isinstance(func.value.value, ast.Name) and func.value.value.id == "self"
                and func.value.attr in attributes)
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
        node, (ast.AnnAssign, ast.AugAssign)) else []
    return any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
               and t.attr in attributes for target in targets for t in ast.walk(target))


def _local_bindings(method: ast.AST, names: set[str]) -> list[ast.stmt]:
    """The statements of ``method`` that bind one of ``names``: assignments and ``for`` loops."""
    out: list[ast.stmt] = []
    for node in ast.walk(method):
        if isinstance(node, ast.Assign) and any(_bound_names(t) & names for t in node.targets):
            out.append(node)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and _bound_names(node.target) & names:
            out.append(node)
        elif isinstance(node, (ast.For, ast.AsyncFor)) and _bound_names(node.target) & names:
            out.append(node)
    return out


def _read_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def function_lines(path: str, line: int) -> tuple[int, int] | None:
    """The first and last line of the innermost function of the file at ``path`` holding ``line``; None where the
    file cannot be read or no function holds it."""
    try:
        tree = _tree(path, Path(path).stat().st_mtime)
    except OSError:
        return None
    if tree is None:
        return None
    holding = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and _within(f, line)]
    if not holding:
        return None
    function = max(holding, key=lambda f: f.lineno)
    return function.lineno, function.end_lineno or function.lineno


def construction_lines(path: str, line: int) -> list[tuple[int, int]]:
    """Line ranges (first, last) of ``path`` that build the modules the call at ``line`` calls;
    empty where no call of a module attribute of ``self`` is there."""
    try:
        tree = _tree(path, Path(path).stat().st_mtime)
    except OSError:
        return []
    if tree is None:
        return []
    classes = [c for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and _within(c, line)]
    if not classes:
        return []
    owner = max(classes, key=lambda c: c.lineno)  # the innermost class holding the line
    methods = [f for f in ast.walk(owner) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    holding = [f for f in methods if _within(f, line)]
    if not holding:
        return []
    function = max(holding, key=lambda f: f.lineno)
    attributes: set[str] = set()
    ranges: list[tuple[int, int]] = []
    for call in ast.walk(function):
        if isinstance(call, ast.Call) and _within(call, line):
            attributes |= _callee_attributes(call, function)
            ranges += _local_constructions(call, function)
    if not attributes:
        return ranges
    followed: set[str] = set()
    # Another attribute of ``self`` that a construction takes (``nn.TransformerEncoder(encoder_layer=
    # self.transformer_layer, ...)``, pytorch-beam-search's) is followed to its own assignments too.
    for _ in range(_DEPTH + 1):
        fresh_attributes = attributes - followed
        if not fresh_attributes:
            break
        followed |= fresh_attributes
        read_attributes: set[str] = set()
        for method in methods:
            statements = [s for s in ast.walk(method) if isinstance(s, ast.stmt) and _assigned(s, fresh_attributes)]
            seen: set[int] = set()
            for _ in range(_DEPTH + 1):
                fresh = [s for s in statements if id(s) not in seen]
                if not fresh:
                    break
                names: set[str] = set()
                for statement in fresh:
                    seen.add(id(statement))
                    ranges.append((statement.lineno, statement.end_lineno or statement.lineno))
                    value = statement.iter if isinstance(statement, (ast.For, ast.AsyncFor)) else getattr(
                        statement, "value", None)
                    if value is not None:
                        names |= _read_names(value) - {"self"}
                        read_attributes |= _self_attributes(value)
                statements = _local_bindings(method, names) if names else []
        attributes = attributes | read_attributes
    return ranges


def with_builds(problems: list["Problem"], facts: "Facts | None") -> list["Problem"]:
    """``problems``, each at a line that the observed forwards called a module of torch's classes at
    carrying where those modules were built (``Problem.built``)."""
    if facts is None:
        return problems
    out = []
    for problem in problems:
        built = tuple(facts.builds_called_at(problem.path, problem.line)) if problem.path and problem.line else ()
        out.append(replace(problem, built=built) if built else problem)
    return out
