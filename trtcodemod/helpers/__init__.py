"""TensorRT-safe functions that rewritten code calls.

Each helper is an ordinary, importable function (``from trtcodemod.helpers import
trt_atan2``) and, at the same time, the text the engine copies into a rewritten
module under a reserved name, so rewritten models need no trtcodemod at run time.
The copy is taken from this package's source files: one source of truth.

Rules:
- a helper function's name starts with ``_trt_`` (the reserved prefix); a helper
  class (for example an ``nn.Module`` that replaces a module built in ``__init__``)
  starts with ``_Trt``;
- it uses only ``torch`` (imported as ``import torch``) and other ``_trt_`` helpers
  of the same module, which it lists in ``__helper_requires__``.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import Path

import libcst as cst

#: Modules of this package holding helpers; each function named ``_trt_*`` is one.
HELPER_MODULES: tuple[str, ...] = ("atan2", "unique", "indexing", "padding", "pooling")

RESERVED_PREFIX = "_trt_"
RESERVED_CLASS_PREFIX = "_Trt"

Definition = cst.FunctionDef | cst.ClassDef


def is_reserved(statement: cst.CSTNode) -> bool:
    """A module-level helper definition that trtcodemod inserted (or would insert)."""
    if isinstance(statement, cst.FunctionDef):
        return statement.name.value.startswith(RESERVED_PREFIX)
    if isinstance(statement, cst.ClassDef):
        return statement.name.value.startswith(RESERVED_CLASS_PREFIX)
    return False


@lru_cache(maxsize=None)
def _helper_nodes() -> dict[str, tuple[Definition, tuple[str, ...]]]:
    """Helper name → (its definition parsed from the package source, helpers it needs)."""
    table: dict[str, tuple[Definition, tuple[str, ...]]] = {}
    here = Path(__file__).parent
    for module_name in HELPER_MODULES:
        path = here / f"{module_name}.py"
        if not path.exists():
            continue
        module = cst.parse_module(path.read_bytes())
        functions = {stmt.name.value: stmt for stmt in module.body if is_reserved(stmt)}
        for name, node in functions.items():
            requires = tuple(
                other for other in functions if other != name and _mentions(node, other)
            )
            table[name] = (node, requires)
    return table


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in _walk(node))


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)


def helper_definitions(names: list[str] | tuple[str, ...]) -> list[Definition]:
    """FunctionDefs for ``names`` and what they need, dependencies first, each once."""
    table = _helper_nodes()
    ordered: list[str] = []

    def add(name: str) -> None:
        if name in ordered:
            return
        if name not in table:
            raise KeyError(f"unknown helper {name!r}")
        for dep in table[name][1]:
            add(dep)
        ordered.append(name)

    for name in names:
        add(name)
    return [table[name][0] for name in ordered]


def __getattr__(name: str):
    """Public aliases: ``trt_atan2`` is the helper ``_trt_atan2``."""
    reserved = RESERVED_PREFIX + name[len("trt_"):] if name.startswith("trt_") else None
    if reserved:
        for module_name in HELPER_MODULES:
            try:
                module = importlib.import_module(f"{__name__}.{module_name}")
            except ModuleNotFoundError:
                continue
            if hasattr(module, reserved):
                return getattr(module, reserved)
    raise AttributeError(name)
