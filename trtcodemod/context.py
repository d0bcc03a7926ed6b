"""What a rule may know about the file being analysed.

One :class:`FileContext` is made per parse. The engine's :class:`ScopeTracker`
runs first in the batch of visitors and keeps the enclosing classes and functions
up to date, so every rule sees the same view without walking the tree itself.
Names are resolved for the scope the traversal is in (:mod:`trtcodemod.scopes`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, TypeVar

import libcst as cst
from libcst.metadata import CodeRange

from trtcodemod.names import ImportTable
from trtcodemod.positions import ScopedPositions
from trtcodemod.findings import PendingFinding
from trtcodemod.scopes import ScopeResolver
from trtcodemod.versions import Version

if TYPE_CHECKING:
    from trtcodemod.evidence.facts import FileFacts


T = TypeVar("T")
_MISSING = object()


class NameSet(frozenset):
    """Qualified names to match expressions against, built once (for rules that ask about
    every name of a file): see :meth:`FileContext.refers_to_any`."""

    def __init__(self, names: "Iterable[str]") -> None:
        super().__init__()
        self.last_parts = frozenset(name.rsplit(".", 1)[-1] for name in self)


@lru_cache(maxsize=1024)
def _name_set(qualified: tuple[str, ...]) -> NameSet:
    return NameSet(qualified)


@dataclass
class FileContext:
    """Per-file state shared by the rules of one pass."""

    path: str
    module: cst.Module
    target: Version
    unsafe: bool
    imports: ImportTable = field(default_factory=ImportTable)
    #: The bytes ``module`` was parsed from, when known (cheap checks before tree walks).
    source: bytes | None = None
    classes: list[cst.ClassDef] = field(default_factory=list)
    functions: list[cst.FunctionDef] = field(default_factory=list)
    #: Enclosing classes and functions in nesting order.
    scopes: list[cst.CSTNode] = field(default_factory=list)
    findings: list[PendingFinding] = field(default_factory=list)
    #: What a recorded run (``migrate --save-facts``, given as ``--facts``) observed in this
    #: file (None without facts or when they say nothing about this file). Rules ask through
    #: the :class:`~trtcodemod.providers.ObservedFacts` provider, in terms of nodes.
    facts: "FileFacts | None" = None
    #: What names mean where the traversal is (kept current by :class:`ScopeTracker`).
    resolver: ScopeResolver = field(init=False)
    _positions: "ScopedPositions | None" = field(default=None, init=False, repr=False)
    _providers: dict[type, Any] = field(default_factory=dict, init=False, repr=False)
    #: Providers that are visitors (see :meth:`provider`), in the order they were asked for.
    companions: list[cst.BatchableCSTVisitor] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        self.resolver = ScopeResolver(self.module, self.imports, self.source)

    def provider(self, kind: "type[T]") -> "T":
        """The file's one ``kind(self)``: a shared analysis (:mod:`trtcodemod.providers`), made on
        the first request. A provider that is a visitor (where the traversal is, which code an
        export runs) joins :attr:`companions`: the engine runs those right after the scope
        tracker and before the rules, so it is kept once per node instead of once per rule."""
        found = self._providers.get(kind, _MISSING)
        if found is _MISSING:
            found = self._providers[kind] = kind(self)
            if isinstance(found, cst.BatchableCSTVisitor):
                self.companions.append(found)
        return found

    def release(self) -> None:
        """Drop what the rules shared once the pass is over. Providers point back at this
        context; without this the whole parsed module would wait for the garbage collector's
        next full pass instead of being freed with the last reference."""
        self.companions.clear()
        self._providers.clear()

    def add_finding(self, finding: PendingFinding, scopes: tuple[cst.CSTNode, ...] | None = None) -> None:
        finding.scopes = tuple(self.scopes) if scopes is None else scopes
        self.findings.append(finding)

    def position(self, node: cst.CSTNode) -> CodeRange | None:
        """Where ``node`` is (1-based lines, 0-based columns), for matching ``facts``.

        Costs a position pass over the enclosing class or function on first use there
        (``ScopedPositions``): only rules that consult facts call it, and only when there are
        facts for this file.
        """
        return self._scoped_positions().get(node, tuple(self.scopes))

    def function_body_lines(self) -> tuple[int, int] | None:
        """First and last line of the body of the function the traversal is in (None outside a
        function, or where it cannot be placed): cheap, no position pass."""
        return self._scoped_positions().body_lines(tuple(self.scopes))

    def in_function_body(self, node: cst.CSTNode) -> bool:
        """Is ``node`` inside the body of the function the traversal is in?"""
        return bool(self.scopes) and type(self.scopes[-1]) is cst.FunctionDef and \
            self._scoped_positions().in_body(node, self.scopes[-1])

    def _scoped_positions(self) -> ScopedPositions:
        if self._positions is None:
            self._positions = ScopedPositions(self.module, self.source)
        return self._positions

    # --- names -------------------------------------------------------------
    def qualified_names(self, node: cst.BaseExpression) -> tuple[str, ...]:
        """The imported objects a Name/Attribute expression refers to in the current scope
        (sorted; empty when nothing is imported under its first name, or a local binding,
        a parameter, a later definition... shadows the import)."""
        return self.resolver.resolve(node)

    def refers_to(self, node: cst.BaseExpression, *qualified: str) -> str | None:
        """Which of ``qualified`` the expression names in the current scope, if any."""
        return self.refers_to_any(node, _name_set(qualified))

    def refers_to_any(self, node: cst.BaseExpression, names: NameSet) -> str | None:
        """:meth:`refers_to` for a prepared set of names (the first match in sorted order)."""
        # `a.b.attr` can only name something whose last part is `attr` (an import renames
        # only the head): most calls are answered here, without resolving anything.
        kind = type(node)
        if kind is cst.Attribute:
            if node.attr.value not in names.last_parts:
                return None
        elif kind is cst.Name and not self.imports.may_bind(node.value, names):
            # A name means at most what the file's imports bind it to (scopes only narrow that).
            return None
        for name in self.resolver.resolve(node):
            if name in names:
                return name
        return None

    def torch_name(self) -> str:
        """The name bound to ``torch`` that generated code in the current scope should use.

        Keeps the user's alias (``import torch as th`` → ``th``), unless a local name,
        a parameter or a later assignment shadows it here. When no such name is usable,
        returns ``torch`` and the engine adds ``import torch`` if the module binds none.
        """
        names = sorted(self.imports.local_names_for("torch"), key=lambda n: (n != "torch", n))
        for name in names:
            if "torch" in (self.resolver.lookup(name) or ()):
                return name
        if self.resolver.lookup("torch") == ():
            return "torch"  # nothing binds `torch` here: the engine imports it
        # Every alias and `torch` itself are shadowed here (`def f(torch): ...`): no name
        # reaches the module from this scope. Generated code keeps using the module-level
        # name, as before scopes were tracked; the rules that generate code are rare there.
        return names[0] if names else "torch"

    def torch_attr(self, dotted: str) -> cst.BaseExpression:
        """An expression for ``torch.<dotted>`` using the file's own torch alias."""
        return cst.parse_expression(f"{self.torch_name()}.{dotted}")

    # --- where we are ------------------------------------------------------
    @property
    def function(self) -> cst.FunctionDef | None:
        return self.functions[-1] if self.functions else None

    @property
    def enclosing_class(self) -> cst.ClassDef | None:
        """The class whose method we are in (None in a plain or nested function)."""
        if not self.classes or not self.functions:
            return None
        return self.classes[-1] if len(self.functions) == self._method_depth() else None

    def _method_depth(self) -> int:
        # A method's FunctionDef sits directly inside the class body; the tracker
        # records at which function depth each class was entered.
        return self._class_function_depth[-1] + 1 if self._class_function_depth else -1

    _class_function_depth: list[int] = field(default_factory=list)


class ScopeTracker(cst.BatchableCSTVisitor):
    """Keeps :class:`FileContext`'s class/function stacks, its name-resolution scopes
    (:class:`~trtcodemod.scopes.ScopeResolver`) and its import table current."""

    def __init__(self, context: FileContext) -> None:
        super().__init__()
        self.context = context

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.context.classes.append(node)
        self.context.scopes.append(node)
        self.context._class_function_depth.append(len(self.context.functions))
        self.context.resolver.statement(node)
        self.context.resolver.open_definition(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.context.classes.pop()
        self.context.scopes.pop()
        self.context._class_function_depth.pop()
        self.context.resolver.close_definition(original_node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.context.functions.append(node)
        self.context.scopes.append(node)
        self.context.resolver.statement(node)
        self.context.resolver.open_definition(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.context.functions.pop()
        self.context.scopes.pop()
        self.context.resolver.close_definition(original_node)

    # A function's or class's own scope starts with its body: decorators, defaults,
    # annotations and bases are evaluated in the enclosing scope.
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.context.resolver.enter_block(node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self.context.resolver.enter_block(node)

    # Lambdas and comprehensions are scopes of their own (their parameters and targets).
    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.context.resolver.push(node)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.context.resolver.pop()

    def visit_ListComp(self, node: cst.CSTNode) -> None:
        self.context.resolver.push(node)

    def leave_ListComp(self, original_node: cst.CSTNode) -> None:
        self.context.resolver.pop()

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp
    leave_SetComp = leave_DictComp = leave_GeneratorExp = leave_ListComp

    # Which top-level statement the traversal is in: module-level code runs in order.
    def visit_SimpleStatementLine(self, node: cst.CSTNode) -> None:
        self.context.resolver.statement(node)

    visit_If = visit_For = visit_While = visit_Try = visit_TryStar = visit_With = visit_Match = (
        visit_SimpleStatementLine
    )

    def visit_Import(self, node: cst.Import) -> None:
        # Also imports inside functions: the table is the cheap first filter of every lookup.
        self.context.imports.add_import(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.context.imports.add_import(node)
