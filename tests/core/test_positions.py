"""`scoped_ranges` places nodes exactly where LibCST's PositionProvider does.

The engine positions findings by generating only the enclosing class or function and
shifting it to the line CPython's symbol table gives for its keyword; anything it cannot
place that way goes through a whole-file pass. Both paths must agree with
``PositionProvider`` on every node, and the fast one must be the one taken where it can be.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from trtcodemod import positions
from trtcodemod.astutil import walk
from trtcodemod.positions import scoped_ranges
from support import REPO

EXAMPLES = REPO / "examples"

#: (name, source, whether every scope should be placed without the whole-file pass)
CASES: list[tuple[str, bytes, bool]] = [
    ("decorators and comments", b"""\
import torch


# a comment before the decorator
@torch.no_grad()
@staticmethod(
    # inside the decorator
    1,
)

# between decorator and def
def f(x):
    return x + 1


class A(
    object,
):
    '''A docstring
    with

    blank lines
    '''

    @property
    def p(self): return self.q

    async def g(self, y):
        z = [
            y,
            y,
        ]
        return z
""", True),
    ("nested classes and functions", b"""\
a = 1; b = 2
class Outer:
    class Inner:
        def m(self):
            def local(v):
                class Deep:
                    w = v * 2
                return Deep
            return local(self)
    def m(self):
        return 3
""", True),
    ("namesakes in order", b"""\
class A:
    def forward(self, x):
        return x
    def forward(self, x):
        return x * 2
def forward(x):
    return x - 1
class A:
    def forward(self, x):
        return x / 2
""", True),
    ("backslash continuation in the header", b"""\
def \\
    f(x):
    return \\
        x
class \\
    C:
    y = 1
""", True),
    ("tabs and a form feed", b"""\
class T:
\tdef f(self):
\t\tif self:
\t\t\treturn 1
\x0c
\tdef g(self):
\t\treturn 2
""", True),
    ("CRLF line endings", b"class A:\r\n    def f(self):\r\n        return '''x\r\ny'''\r\n\r\n    def g(self):\r\n        return 2\r\n", True),
    ("CR-only line endings", b"class A:\r    def f(self):\r        return 1\r\r    def g(self):\r        return 2\r", True),
    ("a coding cookie and non-ASCII text", "# -*- coding: latin-1 -*-\ns = 'caf\u00e9 na\u00efve'\nclass A:\n    def f(self):\n        return '\u00e9\u00e9'  # \u00e9\n".encode("latin-1"), True),
    ("a namesake nested in an if takes the whole-file pass", b"""\
def f(x):
    return x
if True:
    def f(x):
        return -x
class B:
    def g(self):
        return f(1)
""", False),
    ("a function named like a comprehension scope takes the whole-file pass", b"""\
squares = [i * i for i in range(3)]
def listcomp(v):
    return v
""", False),
]


def _nodes_by_scope(module: cst.Module) -> dict[tuple[cst.CSTNode, ...], list[cst.CSTNode]]:
    """Every node, grouped by its enclosing classes and functions (outermost first)."""
    groups: dict[tuple[cst.CSTNode, ...], list[cst.CSTNode]] = {}

    def visit(node: cst.CSTNode, scopes: tuple[cst.CSTNode, ...]) -> None:
        groups.setdefault(scopes, []).append(node)
        inner = (*scopes, node) if type(node) in (cst.ClassDef, cst.FunctionDef) else scopes
        for child in node.children:
            visit(child, inner)

    for statement in module.body:
        visit(statement, ())
    return groups


def _check_against_provider(source: bytes, monkeypatch: pytest.MonkeyPatch) -> list[cst.CSTNode]:
    """Compare every node's range; return the nodes the whole-file pass had to place."""
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    groups = _nodes_by_scope(module)
    slow: list[cst.CSTNode] = []
    whole_file = positions.node_ranges

    def recording(module: cst.Module, nodes):
        nodes = list(nodes)
        slow.extend(nodes)
        return whole_file(module, nodes)

    monkeypatch.setattr(positions, "node_ranges", recording)
    found = scoped_ranges(module, source, groups.items())
    wrong = [(cst.Module([]).code_for_node(node)[:40], found.get(node), expected[node])
             for nodes in groups.values() for node in nodes if found.get(node) != expected[node]]
    assert not wrong, wrong[:5]
    return [node for node in slow if any(node in nodes for scopes, nodes in groups.items() if scopes)]


@pytest.mark.parametrize("name,source,fast", CASES, ids=[case[0] for case in CASES])
def test_ranges_match_the_position_provider(name: str, source: bytes, fast: bool,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    slow_scoped = _check_against_provider(source, monkeypatch)
    if fast:
        assert not slow_scoped
    else:
        assert slow_scoped  # the case exists to exercise the fallback


@pytest.mark.parametrize("path", sorted(EXAMPLES.rglob("*.py")), ids=lambda p: p.name)
def test_ranges_match_on_the_examples(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _check_against_provider(path.read_bytes(), monkeypatch)


def test_source_cpython_rejects_takes_the_whole_file_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    # LibCST parses 3.12 type parameters; this CPython may not: either way the ranges hold.
    source = b"class A:\n    def f[T](self, x: T) -> T:\n        return x\n"
    _check_against_provider(source, monkeypatch)


def _check_scoped_positions(source: bytes) -> positions.ScopedPositions:
    """``ScopedPositions`` (what the facts' questions use): every node, asked from within its
    scopes, where ``PositionProvider`` places it (the file's last node included)."""
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    scoped = positions.ScopedPositions(module, source)
    wrong = [(cst.Module([]).code_for_node(node)[:40], scoped.get(node, scopes), expected[node])
             for scopes, nodes in _nodes_by_scope(module).items() for node in nodes
             if scoped.get(node, scopes) != expected[node]]
    assert not wrong, wrong[:5]
    assert positions.all_ranges(module) == dict(expected)  # the whole-file pass, the module node included
    return scoped


@pytest.mark.parametrize("name,source,fast", CASES, ids=[case[0] for case in CASES])
def test_scoped_positions_match_the_position_provider(name: str, source: bytes, fast: bool) -> None:
    _check_scoped_positions(source)


@pytest.mark.parametrize("path", sorted(EXAMPLES.rglob("*.py")), ids=lambda p: p.name)
def test_scoped_positions_match_on_the_examples(path: Path) -> None:
    _check_scoped_positions(path.read_bytes())


def test_scoped_positions_asked_in_one_function_generate_only_that_function() -> None:
    source = b"import torch\n\nx = torch.zeros(3)\n\n\ndef f(t):\n    return t[0]\n\n\ndef g(t):\n    return t[1]\n"
    module = cst.parse_module(source)
    scoped = positions.ScopedPositions(module, source)
    f = module.body[2]
    subscript = f.body.body[0].body[0].value
    assert scoped.get(subscript, (f,)).start.line == 7
    assert scoped._whole is None and list(scoped._by_scope) == [f]


def test_module_and_class_statements_are_placed_alone() -> None:
    """A module-level table or a class attribute is generated by its statement alone, not the file
    nor the class; a small statement after others on its line (`a = 1; b = x[0]`) too."""
    source = (b"import torch\n\n\ndef f(t):\n    return t\n\n\nclass A:\n    '''doc'''\n\n"
              b"    scale: float = torch.ones(2)[0]\n\n    def g(self):\n        return 1\n\n\n"
              b"CFG = {\n    'a': torch.zeros(3)[1],\n}\nn = 1; m = CFG['a']\n")
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    scoped = positions.ScopedPositions(module, source)
    cls = module.body[2]
    attribute = cls.body.body[1].body[0].value  # torch.ones(2)[0]
    table, pair = module.body[3], module.body[4]
    asked = [(attribute, (cls,)), *((n, ()) for n in (*walk(table), *walk(pair)))]
    assert all(scoped.get(node, scopes) == expected[node] for node, scopes in asked)
    assert scoped.get(attribute, (cls,)).start.line == 11
    assert scoped._whole is None and cls not in scoped._by_scope
