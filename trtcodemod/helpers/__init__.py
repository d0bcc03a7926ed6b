"""TensorRT-safe functions that rewritten code calls.

Each helper is an ordinary, importable function (``from trtcodemod.helpers import
trt_atan2``) and, at the same time, the text the engine copies into a rewritten
module under a reserved name, so rewritten models need no trtcodemod at run time.
The copy is taken from this package's source files: one source of truth.

Rules:
- a helper function's name starts with ``_trt_`` (the reserved prefix); a helper
  class (for example an ``nn.Module`` that replaces a module built in ``__init__``)
  starts with ``_Trt``;
- it uses only ``torch`` (imported as ``import torch``) and other helpers, by name
  (found by reading its body; they may live in another helper module);
- a name ending in ``_<number>`` is reserved for copies: where a module already binds
  ``_trt_atan2`` itself, the engine inserts ours as ``_trt_atan2_1`` (and renames the
  calls between helpers to match). Whether a definition is ours is decided by its
  content (:func:`inserted_helper`), never by its name alone.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

import libcst as cst

#: Modules of this package holding helpers; each function named ``_trt_*`` is one.
HELPER_MODULES: tuple[str, ...] = (
    "onnx_export", "atan2", "unique", "indexing", "padding", "pooling", "assignment", "detection", "copying",
    "sizes", "tracing", "interpolate", "sizes_tensor", "isin", "splitting", "cumulative", "angles", "affine",
    "eye", "folding", "sampling", "transposing", "normalization", "tiling", "attention", "multihead",
    "spectral", "powers", "constants", "scanning",
    "searching", "selection", "diagonal", "histogram", "finite", "symbolics", "inverse", "division",
    "convolution", "unpooling", "accumulation", "sorting", "whole_pooling", "comparisons", "numel", "rolling",
    "slice_masks",
    "detached", "transposed", "per_image", "appending", "mapping", "reshaping", "spacing", "shifting",
    "promotion", "interleave", "sequences", "distances", "weights", "triangles", "bitwise", "broadcasting",
    "compiling", "traced_pooling", "suppression", "ranges",
)

RESERVED_PREFIX = "_trt_"
RESERVED_CLASS_PREFIX = "_Trt"

Definition = cst.FunctionDef | cst.ClassDef


def is_reserved(statement: cst.CSTNode) -> bool:
    """A definition under a reserved name (``_trt_*`` function, ``_Trt*`` class).

    The name alone says nothing about who wrote it: rules use this to stay out of
    anything that looks like a helper, while :func:`inserted_helper` tells whether a
    definition really is one of ours.
    """
    if isinstance(statement, cst.FunctionDef):
        return statement.name.value.startswith(RESERVED_PREFIX)
    if isinstance(statement, cst.ClassDef):
        return statement.name.value.startswith(RESERVED_CLASS_PREFIX)
    return False


class _HelperTable(Mapping[str, tuple[Definition, tuple[str, ...]]]):
    """Helper name → (its definition parsed from the package source, helpers it needs).

    The names and what each helper needs come from Python's own parser (milliseconds for every
    module); a module is parsed with LibCST, whose nodes the engine copies, only when one of its
    helpers is first asked for. Parsing all 500-odd helpers with LibCST and walking them took
    about 3 s in every process that inserted a helper."""

    def __init__(self, folder: Path, module_names: Sequence[str]) -> None:
        self._folder = folder
        self._module_of: dict[str, str] = {}
        mentioned: dict[str, set[str]] = {}
        for module_name in module_names:
            path = folder / f"{module_name}.py"
            if not path.exists():
                continue
            for stmt in ast.parse(path.read_bytes(), str(path)).body:
                if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                        or not _reserved_name(stmt.name, isinstance(stmt, ast.ClassDef)):
                    continue
                if stmt.name in self._module_of:
                    # Python keeps the last definition and the engine would copy the first: two helpers
                    # under one name are a bug in the package, never a choice.
                    raise RuntimeError(f"helper {stmt.name!r} is defined twice (the second in {path.name})")
                self._module_of[stmt.name] = module_name
                mentioned[stmt.name] = _names_in(stmt)
        # Dependencies may cross helper modules; a helper calling itself needs nothing more.
        self._needs = {name: tuple(other for other in self._module_of if other != name and other in names)
                       for name, names in mentioned.items()}
        self._parsed: dict[str, dict[str, Definition]] = {}

    def __getitem__(self, name: str) -> tuple[Definition, tuple[str, ...]]:
        module_name = self._module_of[name]
        if module_name not in self._parsed:
            module = cst.parse_module((self._folder / f"{module_name}.py").read_bytes())
            self._parsed[module_name] = {stmt.name.value: stmt for stmt in module.body if is_reserved(stmt)}
        return self._parsed[module_name][name], self._needs[name]

    def __contains__(self, name: object) -> bool:
        return name in self._module_of

    def __iter__(self) -> Iterator[str]:
        return iter(self._module_of)

    def __len__(self) -> int:
        return len(self._module_of)

    def needs(self, name: str) -> tuple[str, ...]:
        """The other helpers ``name`` calls (read without parsing its module with LibCST)."""
        return self._needs[name]


def _reserved_name(name: str, is_class: bool) -> bool:
    return name.startswith(RESERVED_CLASS_PREFIX if is_class else RESERVED_PREFIX)


@lru_cache(maxsize=None)
def _helper_nodes() -> _HelperTable:
    """Every helper of :data:`HELPER_MODULES`, indexed once per process."""
    return _HelperTable(Path(__file__).parent, HELPER_MODULES)


#: The fields of Python's syntax tree that hold an identifier as written (a ``cst.Name`` in LibCST's).
_NAME_FIELDS = ("id", "attr", "name", "arg", "asname", "rest")


def _names_in(node: ast.AST) -> set[str]:
    """Every identifier written in ``node``: names, attributes, definitions, parameters, keywords."""
    names: set[str] = set()
    for child in ast.walk(node):
        for field in _NAME_FIELDS:
            value = getattr(child, field, None)
            if isinstance(value, str):
                names.add(value)
        if isinstance(child, (ast.Global, ast.Nonlocal)):
            names.update(child.names)
    return names


def helper_names() -> frozenset[str]:
    """Canonical names of every helper the engine can insert."""
    return frozenset(_helper_nodes())


def helper_requires(name: str) -> tuple[str, ...]:
    """The other helpers that helper ``name`` calls."""
    return _helper_nodes().needs(name)


def helper_closure(names: Iterable[str]) -> list[str]:
    """``names`` and the helpers they need, dependencies first, each once."""
    table = _helper_nodes()
    ordered: list[str] = []
    for name in names:
        _add_with_dependencies(name, table, ordered)
    return ordered


def _add_with_dependencies(name: str, table: _HelperTable, ordered: list[str]) -> None:
    if name in ordered:
        return
    if name not in table:
        raise KeyError(f"unknown helper {name!r}")
    for dep in table.needs(name):
        _add_with_dependencies(dep, table, ordered)
    ordered.append(name)


def helper_definitions(names: list[str] | tuple[str, ...]) -> list[Definition]:
    """FunctionDefs for ``names`` and what they need, dependencies first, each once."""
    table = _helper_nodes()
    return [table[name][0] for name in helper_closure(names)]


# --- recognising an inserted helper by its content ------------------------------
# Two definitions are "token-equal" when their syntax trees match once whitespace is
# set aside: blank lines, indentation, line-ending kinds and spacing are layout, while
# names, literals, operators, brackets and comments are content. Comparing the trees
# costs a fraction of generating and tokenizing the code.

_RENAMED = re.compile(r"^(?P<base>.+)_(?P<number>[1-9][0-9]*)$")
_LINE_BREAKS = re.compile(r"\r\n?")
#: Nodes that are only layout.
_LAYOUT = (cst.BaseParenthesizableWhitespace, cst.Newline)
#: Fields holding lists of EmptyLine: only their comments are content.
_LINE_FIELDS = frozenset({"leading_lines", "lines_after_decorators", "footer"})


@lru_cache(maxsize=None)
def _fields(node_type: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(node_type))


def _comments(lines: Sequence[cst.EmptyLine]) -> list[str]:
    return [line.comment.value.rstrip() for line in lines if line.comment is not None]


class _Matcher:
    """Compares a definition with a helper's, collecting the names it uses for helpers."""

    def __init__(self, helpers: Mapping[str, object]) -> None:
        self.helpers = helpers
        self.names: dict[str, str] = {}

    def same(self, want: object, got: object) -> bool:
        if type(want) is not type(got):
            return False
        if isinstance(want, cst.CSTNode):
            if isinstance(want, _LAYOUT):
                return True
            if isinstance(want, cst.Name):
                return self._same_name(want.value, got.value)  # type: ignore[attr-defined]
            if isinstance(want, cst.TrailingWhitespace):
                return _comments([cst.EmptyLine(comment=want.comment)]) == _comments(
                    [cst.EmptyLine(comment=got.comment)]  # type: ignore[attr-defined]
                )
            for name in _fields(type(want)):
                a, b = getattr(want, name), getattr(got, name)
                if name in _LINE_FIELDS:
                    if _comments(a) != _comments(b):
                        return False
                elif name == "indent" and isinstance(want, cst.IndentedBlock):
                    continue
                elif isinstance(a, str) and isinstance(b, str):
                    if _LINE_BREAKS.sub("\n", a) != _LINE_BREAKS.sub("\n", b):  # a string literal's lines
                        return False
                elif not self.same(a, b):
                    return False
            return True
        if isinstance(want, (list, tuple)):
            return len(want) == len(got) and all(self.same(a, b) for a, b in zip(want, got))  # type: ignore[arg-type]
        return want == got

    def _same_name(self, want: str, got: str) -> bool:
        if want not in self.helpers:
            return want == got
        if got != want and canonical_name(got) != want:
            return False
        return self.names.setdefault(want, got) == got


def canonical_name(name: str) -> str | None:
    """The helper a name stands for: itself, or ``_trt_atan2`` for a fresh ``_trt_atan2_3``."""
    table = _helper_nodes()
    if name in table:
        return name
    match = _RENAMED.match(name)
    if match and match.group("base") in table:
        return match.group("base")
    return None


def fresh_name(canonical: str, number: int) -> str:
    """The ``number``-th alternative name of a helper whose own name a module already uses."""
    return f"{canonical}_{number}"


@dataclass(frozen=True)
class InsertedHelper:
    """A module-level definition that is exactly a helper the engine inserts."""

    #: The helper's name in the package (``_trt_atan2``).
    canonical: str
    #: Canonical name → the name this copy uses for it, for itself and each helper it calls.
    names: Mapping[str, str]


def inserted_helper(statement: cst.CSTNode) -> InsertedHelper | None:
    """What ``statement`` is, when it is a helper definition the engine inserted (or would).

    It is one when it is token-equal to the helper's own definition (leading blank lines
    and comments, indentation, spacing and line endings aside), where each helper name may carry a
    fresh-name suffix (``_trt_atan2_1``), used consistently. Nothing is stored beside
    the code: a second run recognises a renamed copy from its content alone.
    """
    if not is_reserved(statement):
        return None
    canonical = canonical_name(statement.name.value)  # type: ignore[attr-defined]
    if canonical is None:
        return None
    table = _helper_nodes()
    matcher = _Matcher(table)
    want = table[canonical][0].with_changes(leading_lines=())
    if not matcher.same(want, statement.with_changes(leading_lines=())):
        return None
    names = matcher.names
    if names.get(canonical) != statement.name.value or len(set(names.values())) != len(names):  # type: ignore[attr-defined]
        return None
    return InsertedHelper(canonical, names)


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
