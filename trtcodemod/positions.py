"""Line/column ranges of a few nodes, computed in one lean code-generation pass.

LibCST's ``PositionProvider`` records a range for every node of the module through
the metadata machinery; on model libraries that costs more than parsing. The engine
needs ranges only for the nodes it reports or replaces, so this pass generates the
code once, keeps no text, and records just those. The ranges follow the same rules as
``PositionProvider`` (syntactic: leading/trailing whitespace excluded).
"""

from __future__ import annotations

import ast
import re
import symtable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Optional, Sequence

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange

from trtcodemod.astutil import walk

_NEWLINES = re.compile(r"\r\n?|\n")


@dataclass
class _PositionState(CodegenState):
    wanted: set = field(default_factory=set)
    found: dict = field(default_factory=dict)
    line: int = 1
    column: int = 0
    _starts: list = field(default_factory=list)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.column += len(token)

    def add_token(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            segments = _NEWLINES.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def pop_trailing_newline(self) -> None:
        pass  # no text is kept, and nothing after the last newline needs a position

    def wants(self, node: cst.CSTNode) -> bool:
        """Is ``node``'s range recorded?"""
        return node in self.wanted

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self.wants(node):
            self._starts.append(CodePosition(self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        if self.wants(node):
            start = self._starts.pop()
            self.found.setdefault(node, CodeRange(start, CodePosition(self.line, self.column)))

    @contextmanager
    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: Optional[cst.CSTNode] = None,
        end_node: Optional[cst.CSTNode] = None,
    ) -> Iterator[None]:
        if not self.wants(node):
            yield
            return
        # The range may be hoisted from children: make sure theirs get recorded too.
        for extra in (start_node, end_node):
            if extra is not None:
                self.wanted.add(extra)
        start = CodePosition(self.line, self.column)
        try:
            yield
        finally:
            end = CodePosition(self.line, self.column)
            if start_node is not None and start_node in self.found:
                start = self.found[start_node].start
            if end_node is not None and end_node in self.found:
                end = self.found[end_node].end
            self.found[node] = CodeRange(start, end)


@dataclass
class _EveryPositionState(_PositionState):
    """Records every node, as ``PositionProvider`` does, without the metadata machinery (whose
    resolve also walks the whole tree once more before generating it)."""

    def wants(self, node: cst.CSTNode) -> bool:
        return True

    def add_token(self, value: str) -> None:
        if not self.tokens:
            self.tokens.append(value)  # the module's end: a file with code gets no newline added
        super().add_token(value)


def all_ranges(module: cst.Module) -> dict[cst.CSTNode, CodeRange]:
    """The syntactic range of every node of ``module``: what ``PositionProvider`` resolves to."""
    state = _EveryPositionState(default_indent=module.default_indent, default_newline=module.default_newline)
    module._codegen(state)
    return state.found


def node_ranges(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[cst.CSTNode, CodeRange]:
    """Syntactic ranges (1-based lines, 0-based columns) of ``nodes`` within ``module``."""
    state = _PositionState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        wanted=set(nodes),
    )
    module._codegen(state)
    return state.found


def scoped_ranges(
    module: cst.Module,
    source: bytes,
    groups: Iterable[tuple[tuple[cst.CSTNode, ...], Iterable[cst.CSTNode]]],
) -> dict[cst.CSTNode, CodeRange]:
    """Ranges of nodes grouped by their enclosing classes/functions (outermost first).

    Generating a whole file to position a few nodes is the dominant cost on large model
    files. Here each group's innermost class or function alone is generated, and its
    ranges are shifted so that its ``def``/``class`` keyword lands on the line CPython
    gives for it. That line comes from the symbol table (:mod:`symtable`), which CPython
    builds in C with one object per scope: cheaper than :func:`ast.parse`, which makes an
    object of every node. A node that cannot be placed this way falls back to the whole file.
    """
    found: dict[cst.CSTNode, CodeRange] = {}
    leftovers: list[cst.CSTNode] = []
    table: symtable.SymbolTable | None | bool = None
    for scopes, nodes in groups:
        nodes = list(nodes)
        keyword_line = indents = None
        if scopes:
            if table is None:
                table = _symbol_table(source)
            if table:
                keyword_line, indents = _scope_line(module, table, scopes)
        if keyword_line is None:
            leftovers.extend(nodes)
            continue
        scope = scopes[-1]
        state = _PositionState(
            default_indent=module.default_indent,
            default_newline=module.default_newline,
            wanted={*nodes, scope},
            indent_tokens=list(indents),
        )
        scope._codegen(state)
        shift = keyword_line - state.found[scope].start.line
        for node in nodes:
            where = state.found.get(node)
            if where is None:
                leftovers.append(node)
            else:
                found[node] = CodeRange(CodePosition(where.start.line + shift, where.start.column),
                                        CodePosition(where.end.line + shift, where.end.column))
    if leftovers:
        found.update(node_ranges(module, leftovers))
    return found


def _symbol_table(source: bytes) -> symtable.SymbolTable | bool:
    try:
        return symtable.symtable(source, "<source>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False  # LibCST accepted what CPython did not: use the slow path


def _scope_line(
    module: cst.Module, table: symtable.SymbolTable, scopes: tuple[cst.CSTNode, ...],
    children: Callable[[symtable.SymbolTable], list[symtable.SymbolTable]] = symtable.SymbolTable.get_children,
) -> tuple[int | None, list[str]]:
    """Line of the innermost scope's ``def``/``class`` keyword, and the indentation around it.

    Scopes are matched to symbol tables by kind and name; among several of the same name,
    by order, which is safe only when all of them are direct statements of the enclosing
    body (one nested in an ``if`` has a table too but no place in that body): otherwise
    ``None``.
    """
    body: Sequence[cst.CSTNode] = module.body
    indents: list[str] = []
    for depth, scope in enumerate(scopes):
        kind = type(scope)
        if kind not in _TABLE_KIND:
            return None, indents
        name = scope.name.value
        namesakes = [s for s in body if type(s) is kind and s.name.value == name]
        tables = [t for t in children(table) if t.get_type() == _TABLE_KIND[kind] and t.get_name() == name]
        if len(tables) != len(namesakes) or not any(s is scope for s in namesakes):
            return None, indents
        table = tables[next(i for i, s in enumerate(namesakes) if s is scope)]
        if depth == len(scopes) - 1:
            return table.get_lineno(), indents
        block = scope.body
        if type(block) is not cst.IndentedBlock:
            return None, indents
        indents.append(block.indent if block.indent is not None else module.default_indent)
        body = block.body
    return None, indents


_TABLE_KIND: dict[type, str] = {cst.ClassDef: "class", cst.FunctionDef: "function"}


def _shifted(where: CodeRange, shift: int) -> CodeRange:
    return where if not shift else CodeRange(CodePosition(where.start.line + shift, where.start.column),
                                             CodePosition(where.end.line + shift, where.end.column))


#: (node identity -> its statement, statement -> the line it starts on, the indentation around it).
_Statements = tuple[dict[int, cst.CSTNode], dict[cst.CSTNode, int], list[str]]


def _parse_ast(source: bytes) -> ast.Module | bool:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def _statement_index(statements: Sequence[cst.BaseStatement], body: list[ast.stmt], indents: list[str]) -> _Statements:
    """The nodes of each statement of one body that is no class or function, and the line each
    starts on, from :mod:`ast` (whose body has one statement per compound statement and one per
    small statement of a line). Empty where the two disagree."""
    counts = [len(s.body) if type(s) is cst.SimpleStatementLine else 1 for s in statements]
    if sum(counts) != len(body):
        return {}, {}, indents
    index: dict[int, cst.CSTNode] = {}
    lines: dict[cst.CSTNode, int] = {}
    at = 0
    for statement, count in zip(statements, counts):
        if type(statement) not in (cst.FunctionDef, cst.ClassDef):
            lines[statement] = body[at].lineno
            index.update((id(n), statement) for n in walk(statement))
        at += count
    return index, lines, indents


def _function_bodies(tree: ast.Module) -> dict[tuple[str, int], tuple[int, int]]:
    """(name, ``def`` line) -> the first and last line of each function's body."""
    return {(node.name, node.lineno): (node.body[0].lineno, node.end_lineno or node.body[-1].lineno)
            for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


class ScopedPositions:
    """Every node's range (what :func:`all_ranges` gives), generated one innermost class or
    function at a time, as the traversal asks: a library file whose facts are asked about in a
    few of its functions costs those functions, not the whole file. A node outside the
    scopes it is asked from, or a scope the symbol table cannot place, costs the whole file once.
    """

    def __init__(self, module: cst.Module, source: bytes | None) -> None:
        self.module, self.source = module, source
        self._table: symtable.SymbolTable | None | bool = None
        #: scope -> (its nodes' ranges as generated alone, the lines to add to them)
        self._by_scope: dict[cst.CSTNode, tuple[dict[cst.CSTNode, CodeRange], int]] = {}
        self._whole: dict[cst.CSTNode, CodeRange] | None = None
        #: (name, ``def`` line) -> first and last line of that function's body, from :mod:`ast`.
        self._bodies: dict[tuple[str, int], tuple[int, int]] | None = None
        #: module or class -> its statements' nodes, first lines and indentation (:meth:`_in_statement`).
        self._statements: dict[cst.CSTNode, _Statements] = {}
        self._tree: ast.Module | None | bool = None
        #: symbol table id -> its children (``get_children`` makes new objects at every call).
        self._children: dict[int, list[symtable.SymbolTable]] = {}
        #: function -> :meth:`body_lines`'s answer.
        self._body_lines: dict[cst.CSTNode, tuple[int, int] | None] = {}
        #: function -> the nodes of its body (identities), for :meth:`in_body`.
        self._body_nodes: dict[cst.CSTNode, set[int]] = {}

    def body_lines(self, scopes: tuple[cst.CSTNode, ...]) -> tuple[int, int] | None:
        """First and last line of the body of the innermost scope, a function (its decorators and
        signature left out); None where that scope is no function or cannot be placed."""
        if not scopes or type(scopes[-1]) is not cst.FunctionDef or self.source is None:
            return None
        function = scopes[-1]
        if function in self._body_lines:
            return self._body_lines[function]
        if self._table is None:
            self._table = _symbol_table(self.source)
        keyword_line = _scope_line(self.module, self._table, scopes, self._children_of)[0] if self._table else None
        if keyword_line is not None and self._bodies is None:
            if self._tree is None:
                self._tree = _parse_ast(self.source)
            self._bodies = _function_bodies(self._tree) if self._tree else {}
        found = self._body_lines[function] = (
            None if keyword_line is None or self._bodies is None else self._bodies.get((function.name.value, keyword_line)))
        return found

    def in_body(self, node: cst.CSTNode, function: cst.FunctionDef) -> bool:
        """Is ``node`` in ``function``'s body (at any depth)? A walk of that body, once."""
        found = self._body_nodes.get(function)
        if found is None:
            found = self._body_nodes[function] = {id(n) for n in walk(function.body)}
        return id(node) in found

    def get(self, node: cst.CSTNode, scopes: tuple[cst.CSTNode, ...]) -> CodeRange | None:
        """``node``'s range, asked from within ``scopes`` (outermost first)."""
        if scopes and type(scopes[-1]) is cst.ClassDef:
            where = self._in_statement(node, scopes)  # a class attribute: not the whole class
            if where is not None:
                return where
        if self.source is not None:
            # The innermost scope the symbol table can place; one it cannot (a function defined
            # in an `if`) is generated with the scope around it.
            for depth in range(len(scopes), 0, -1):
                if scopes[depth - 1] not in self._by_scope:
                    self._by_scope[scopes[depth - 1]] = self._generate(scopes[:depth])
                if self._by_scope[scopes[depth - 1]][0]:
                    break
        for scope in scopes:  # a class generated whole holds its methods' nodes too
            found, shift = self._by_scope.get(scope, ({}, 0))
            where = found.get(node)
            if where is not None:
                return _shifted(where, shift)
        where = self._in_statement(node, ())
        if where is not None:
            return where
        if self._whole is None:
            self._whole = all_ranges(self.module)
        return self._whole.get(node)

    def _children_of(self, table: symtable.SymbolTable) -> list[symtable.SymbolTable]:
        found = self._children.get(table.get_id())
        if found is None:
            found = self._children[table.get_id()] = table.get_children()
        return found

    def _in_statement(self, node: cst.CSTNode, scopes: tuple[cst.CSTNode, ...]) -> CodeRange | None:
        """``node``'s range when it lies in a statement of the module's body (``scopes`` empty) or of
        the class ``scopes`` ends with, other than a class or function (an annotation, a table of
        configurations, a class attribute): that statement generated alone."""
        owner = scopes[-1] if scopes else self.module
        if owner not in self._statements:
            self._statements[owner] = self._index_statements(scopes)
        index, lines, indents = self._statements[owner]
        statement = index.get(id(node))
        if statement is None:
            return None
        if statement not in self._by_scope:
            state = _EveryPositionState(default_indent=self.module.default_indent,
                                        default_newline=self.module.default_newline, indent_tokens=list(indents))
            statement._codegen(state)
            self._by_scope[statement] = (state.found, lines[statement] - state.found[statement].start.line)
        found, shift = self._by_scope[statement]
        where = found.get(node)
        return None if where is None else _shifted(where, shift)

    def _index_statements(self, scopes: tuple[cst.CSTNode, ...]) -> "_Statements":
        nothing: _Statements = ({}, {}, [])
        if self.source is None:
            return nothing
        if self._tree is None:
            self._tree = _parse_ast(self.source)
        if self._tree is False:
            return nothing
        if not scopes:
            return _statement_index(self.module.body, self._tree.body, [])
        if self._table is None:
            self._table = _symbol_table(self.source)
        keyword_line, indents = (_scope_line(self.module, self._table, scopes, self._children_of)
                                 if self._table else (None, []))
        block = scopes[-1].body
        if keyword_line is None or type(block) is not cst.IndentedBlock:
            return nothing
        name = scopes[-1].name.value
        classes = [n for n in ast.walk(self._tree) if isinstance(n, ast.ClassDef) and n.name == name
                   and n.lineno == keyword_line]
        if len(classes) != 1:
            return nothing
        return _statement_index(block.body, classes[0].body,
                                [*indents, block.indent if block.indent is not None else self.module.default_indent])

    def _generate(self, scopes: tuple[cst.CSTNode, ...]) -> tuple[dict[cst.CSTNode, CodeRange], int]:
        if self._table is None:
            self._table = _symbol_table(self.source or b"")
        if not self._table:
            return {}, 0
        keyword_line, indents = _scope_line(self.module, self._table, scopes, self._children_of)
        if keyword_line is None:
            return {}, 0
        scope = scopes[-1]
        state = _EveryPositionState(default_indent=self.module.default_indent,
                                    default_newline=self.module.default_newline, indent_tokens=list(indents))
        scope._codegen(state)
        return state.found, keyword_line - state.found[scope].start.line
