"""The house's floors (docs/architecture.md, "Floors"), read from the source with ``ast``.

The graph covers ``trtcodemod`` and ``transforms/`` (installed as ``trtcodemod.transforms``).
An import is *module-level* when it runs as its module is imported (``if TYPE_CHECKING:``
included) and *lazy* when it sits in a function. The checks:

- no import cycle of any length among modules, lazy imports included;
- no module-level import up a floor, nor between two groups of one floor, hence no cycle
  among the groups (folders, with the commands a floor of their own);
- no private name (``_x``) imported from another package.

The allow-lists hold today's exceptions; an entry that no longer occurs fails the test, so
they only shrink.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from support import REPO as ROOT


#: Commands sit on the top floor whatever folder they live in: a command may import anything,
#: and only commands import a command.
COMMANDS = frozenset({"cli", "__main__", "command", "lift_command"})

#: The floors, lowest first. A module-level import goes from a group to itself or to a group
#: on a lower floor. ``core`` is the package's own folder (rules, context, engine, providers,
#: runner...); ``trtcodemod`` is its ``__init__``, the public API.
FLOORS: tuple[frozenset[str], ...] = (
    frozenset({"helpers", "evidence"}),  # the helpers inserted into users' code (torch only); observed facts and proofs
    frozenset({"core"}),
    frozenset({"transforms", "trt", "report"}),
    frozenset({"verify"}),  # the model run: spec, worker, inputs, export, backends, compare
    frozenset({"migrate", "temporal"}),
    frozenset({"zoo"}),  # runs migrate's and verify's per-model functions, many models at once
    frozenset({"trtcodemod"}),
    frozenset({"commands"}),
)

#: Module-level imports up a floor that are still there (none since the observed facts and their
#: proofs moved from migrate/ to the core's own `evidence/` package).
UPWARD: set[tuple[str, str]] = set()

#: Private names still imported from another package (none: what temporal's lift reuses of the
#: control-flow family and TRT703 has public names).
PRIVATE: set[tuple[str, str, str]] = set()


@dataclass(frozen=True)
class Import:
    """``source`` imports module ``target`` (and takes ``name`` from it, for ``from target import name``)."""

    source: str
    target: str
    name: str | None
    line: int
    lazy: bool


def module_paths(root: Path = ROOT) -> dict[str, Path]:
    """Every module's dotted name, as installed, and its file."""
    modules = {}
    for path in [*(root / "trtcodemod").rglob("*.py"), *(root / "transforms").rglob("*.py")]:
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[0] == "transforms":
            parts = ["trtcodemod", *parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def package(module: str, modules: dict[str, Path]) -> str:
    """The package a module belongs to (a package's ``__init__`` belongs to the package itself)."""
    return module if modules[module].name == "__init__.py" else module.rsplit(".", 1)[0]


def group(module: str, modules: dict[str, Path]) -> str:
    """The module's group of :data:`FLOORS`."""
    if module == "trtcodemod":
        return "trtcodemod"
    if module.rsplit(".", 1)[-1] in COMMANDS:
        return "commands"
    owner = package(module, modules)
    return "core" if owner == "trtcodemod" else owner.split(".")[1]


def imports_of(module: str, modules: dict[str, Path]) -> list[Import]:
    """The imports of one module that name a module of the graph, in source order."""
    owner = package(module, modules).split(".")
    found: list[Import] = []

    def add(target: str, name: str | None, node: ast.stmt, lazy: bool) -> None:
        if target in modules and target != module:
            found.append(Import(module, target, name, node.lineno, lazy))

    def walk(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    add(alias.name, None, child, lazy)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join([*owner[: len(owner) - child.level + 1], *([base] if base else [])])
                for alias in child.names:
                    if f"{base}.{alias.name}" in modules:  # `from package import module`
                        add(f"{base}.{alias.name}", None, child, lazy)
                    else:
                        add(base, alias.name, child, lazy)
            walk(child, lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    walk(ast.parse(modules[module].read_text()), False)
    return found


@lru_cache(maxsize=None)  # four tests read one graph
def all_imports(root: Path = ROOT) -> tuple[dict[str, Path], list[Import]]:
    modules = module_paths(root)
    return modules, [found for module in sorted(modules) for found in imports_of(module, modules)]


def components(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of two or more nodes: each is one circle of imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def connect(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(graph):  # recursion as deep as the longest import chain: a few hundred modules at most
        if node not in index:
            connect(node)
    return circles


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One shortest cycle per circle, as ``[a, b, ..., a]``."""
    return [_shortest_cycle(graph, component) for component in components(graph)]


def _named(graph: dict[str, set[str]]) -> str:
    """Every circle of ``graph``, for an assertion's message."""
    return "\n".join(f"{' -> '.join(_shortest_cycle(graph, component))} (the circle: {', '.join(component)})"
                     for component in components(graph))


def _shortest_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """The shortest way from the component's first member back to itself (breadth first)."""
    start, members = component[0], set(component)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph.get(node, ())):
                if nxt not in members:
                    continue
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if nxt not in came_from:
                    came_from[nxt] = node
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no cycle through {start}")  # a component of two or more always has one


def _module_graph(found: list[Import], lazy: bool) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for item in found:
        if lazy or not item.lazy:
            graph.setdefault(item.source, set()).add(item.target)
    return graph


def test_no_import_cycle_among_modules() -> None:
    """At module level and with the lazy imports too: a cycle of any length, named."""
    found = all_imports()[1]
    for lazy in (False, True):
        graph = _module_graph(found, lazy)
        assert not components(graph), f"{'with' if lazy else 'without'} lazy imports:\n{_named(graph)}"


def test_no_import_cycle_among_groups() -> None:
    modules, found = all_imports()
    graph: dict[str, set[str]] = {}
    for item in found:
        source, target = group(item.source, modules), group(item.target, modules)
        if not item.lazy and source != target and (item.source, item.target) not in UPWARD:
            graph.setdefault(source, set()).add(target)
    assert not components(graph), _named(graph)


def test_no_import_up_a_floor() -> None:
    modules, found = all_imports()
    floor = {name: level for level, names in enumerate(FLOORS) for name in names}
    assert set(floor) >= {group(module, modules) for module in modules}, "a group missing from FLOORS"
    upward, seen = [], set()
    for item in found:
        source, target = group(item.source, modules), group(item.target, modules)
        if item.lazy or source == target or floor[target] < floor[source]:
            continue
        seen.add((item.source, item.target))
        if (item.source, item.target) not in UPWARD:
            upward.append(f"{item.source}:{item.line} ({source}) imports {item.target} ({target})")
    assert not upward, "\n".join(upward)
    assert UPWARD - seen == set(), "gone: remove from UPWARD"


def test_no_private_name_from_another_package() -> None:
    modules, found = all_imports()
    private, seen = [], set()
    for item in found:
        if item.name is None or not item.name.startswith("_") or item.name.startswith("__"):
            continue
        if package(item.source, modules) == package(item.target, modules):
            continue
        seen.add((item.source, item.target, item.name))
        if (item.source, item.target, item.name) not in PRIVATE:
            private.append(f"{item.source}:{item.line} imports {item.target}.{item.name}")
    assert not private, "\n".join(private)
    assert PRIVATE - seen == set(), "gone: remove from PRIVATE"


def test_the_checks_see_what_they_check(tmp_path: Path) -> None:
    """The graph builder on a small package: a three-module circle through a lazy import,
    a relative import, ``from package import module`` and a private name."""
    package_dir = tmp_path / "trtcodemod"
    (package_dir / "sub").mkdir(parents=True)
    (tmp_path / "transforms").mkdir()
    (package_dir / "__init__.py").write_text("")
    (package_dir / "a.py").write_text("from trtcodemod.sub import b\n")
    (package_dir / "sub" / "__init__.py").write_text("")
    (package_dir / "sub" / "b.py").write_text("from .c import _hidden\n")
    (package_dir / "sub" / "c.py").write_text("def f():\n    import trtcodemod.a\n\n_hidden = 1\n")
    (tmp_path / "transforms" / "r.py").write_text("from trtcodemod.a import _x\n")
    modules, found = all_imports(tmp_path)
    assert set(modules) == {"trtcodemod", "trtcodemod.a", "trtcodemod.sub", "trtcodemod.sub.b",
                            "trtcodemod.sub.c", "trtcodemod.transforms.r"}
    assert [(i.source, i.target, i.name, i.lazy) for i in found] == [
        ("trtcodemod.a", "trtcodemod.sub.b", None, False),
        ("trtcodemod.sub.b", "trtcodemod.sub.c", "_hidden", False),
        ("trtcodemod.sub.c", "trtcodemod.a", None, True),
        ("trtcodemod.transforms.r", "trtcodemod.a", "_x", False),
    ]
    assert cycles(_module_graph(found, lazy=False)) == []
    assert cycles(_module_graph(found, lazy=True)) == [
        ["trtcodemod.a", "trtcodemod.sub.b", "trtcodemod.sub.c", "trtcodemod.a"]]
    assert [group(m, modules) for m in sorted(modules)] == ["trtcodemod", "core", "sub", "sub", "sub", "transforms"]
