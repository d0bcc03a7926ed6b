"""Line/column ranges of a few nodes, computed in one lean code-generation pass.

LibCST's ``PositionProvider`` records a range for every node of the module through
the metadata machinery; on model libraries that costs more than parsing. The engine
needs ranges only for the nodes it reports or replaces, so this pass generates the
code once, keeps no text, and records just those. The ranges follow the same rules as
``PositionProvider`` (syntactic: leading/trailing whitespace excluded).
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional

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
