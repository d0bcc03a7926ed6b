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
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional, Sequence

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange

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

    def before_codegen(self, node: cst.CSTNode) -> None:
        if node in self.wanted:
            self._starts.append(CodePosition(self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        if node in self.wanted:
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
        if node not in self.wanted:
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
    files. Here each group's innermost class or function alone is generated, starting at
    the line CPython's ``ast`` gives for it (``ast`` parses in C, far faster than any
    code generation). A node that cannot be placed this way falls back to the whole file.
    """
    found: dict[cst.CSTNode, CodeRange] = {}
    leftovers: list[cst.CSTNode] = []
    tree: ast.Module | None | bool = None
    for scopes, nodes in groups:
        nodes = list(nodes)
        start = None
        if scopes:
            if tree is None:
                tree = _parse_ast(source)
            if tree:
                start = _scope_start(module, tree, scopes)
        if start is None:
            leftovers.extend(nodes)
            continue
        line, indents = start
        scope = scopes[-1]
        state = _PositionState(
            default_indent=module.default_indent,
            default_newline=module.default_newline,
            wanted=set(nodes),
            line=line,
            indent_tokens=list(indents),
        )
        scope._codegen(state)
        found.update(state.found)
        leftovers.extend(node for node in nodes if node not in state.found)
    if leftovers:
        found.update(node_ranges(module, leftovers))
    return found


def _parse_ast(source: bytes) -> ast.Module | bool:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False  # LibCST accepted what CPython did not: use the slow path


def _scope_start(
    module: cst.Module, tree: ast.Module, scopes: tuple[cst.CSTNode, ...]
) -> tuple[int, list[str]] | None:
    """First line of the innermost scope's generated code, and the indentation around it."""
    cst_body: Sequence[cst.CSTNode] = module.body
    ast_body: list[ast.stmt] = tree.body
    indents: list[str] = []
    for depth, scope in enumerate(scopes):
        position = _ast_index(cst_body, scope)
        if position is None or position >= len(ast_body):
            return None
        counterpart = ast_body[position]
        if not isinstance(counterpart, _AST_TWIN[type(scope)]):
            return None
        if depth == len(scopes) - 1:
            decorators = getattr(scope, "decorators", ())
            first = counterpart.decorator_list[0].lineno if counterpart.decorator_list else counterpart.lineno
            if decorators:
                first -= len(decorators[0].leading_lines)
            return first - len(scope.leading_lines), indents
        block = scope.body
        if type(block) is not cst.IndentedBlock:
            return None
        indents.append(block.indent if block.indent is not None else module.default_indent)
        cst_body, ast_body = block.body, counterpart.body
    return None


_AST_TWIN: dict[type, tuple[type, ...]] = {
    cst.ClassDef: (ast.ClassDef,),
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
}


def _ast_index(body: Sequence[cst.CSTNode], statement: cst.CSTNode) -> int | None:
    """Index in ``ast``'s statement list of a LibCST body statement (``a; b`` is two there)."""
    index = 0
    for item in body:
        if item is statement:
            return index
        index += len(item.body) if type(item) is cst.SimpleStatementLine else 1
    return None
