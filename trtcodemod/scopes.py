"""Which names each scope binds, and what a name means where it is used.

Rules ask "is this ``F.pad`` torch's ``pad``?" for code anywhere in a file. Imports say
what a name *may* be; Python's scope rules say whether, at that point, it still is:

- a function sees its own names, then those of the functions around it, then the
  module's; a class body is not visible from the methods (or lambdas, comprehensions)
  inside it; a lambda and a comprehension are scopes of their own;
- a name bound anywhere in a function (parameter, assignment, ``for``/``with``/``except``
  target, walrus, ``match`` capture, ``del``, nested ``def``/``class``, import) is local
  to the whole function, even before the binding; ``global``/``nonlocal`` make a name
  refer to another scope that this function may rebind;
- at module level, code runs in order: a rebinding shadows the import for the code after
  it; code inside a function runs later, so a module-level rebinding anywhere (also
  through ``global`` in some function) means the name cannot be trusted there.

Whenever a name is bound other than by an absolute import on the way, it does not
resolve: a missed finding costs little, a rewrite of the user's own function is a bug.

Cost: LibCST's full scope analysis costs several times the parse. Here a scope's
bindings are collected only when a rule asks about a name some import binds, in that
scope, and once per scope: a walk over its statements (no expressions). Walrus
targets, the only bindings inside expressions, are looked for (a walk over the
expressions of that one scope) only when no statement on the way binds the name, i.e.
when the answer would otherwise be "torch's" (or "the builtin").

:class:`Bindings` is also the binding collector of the rules that reason about local
names (boolean-mask evidence in ``indexing``, ``len(x)`` in ``python_values``).
"""

from __future__ import annotations

from typing import Iterable, Iterator

import libcst as cst

from trtcodemod.astutil import bound_names, children, visit_readonly
from trtcodemod.names import ImportTable, canonical, dotted_name, import_bindings

# How a name is bound (the first element of each entry of ``Bindings.sites``).
PARAM = "param"
ASSIGN = "assign"
ANNOTATION = "annotation"  # `x: int` without a value: local, but nothing assigned
AUGASSIGN = "augassign"
WALRUS = "walrus"
FOR = "for"
COMPREHENSION = "comprehension"
WITH = "with"
EXCEPT = "except"
MATCH = "match"
IMPORT = "import"
DEF = "def"
CLASS = "class"
GLOBAL = "global"
NONLOCAL = "nonlocal"
NESTED_NONLOCAL = "nested-nonlocal"  # `nonlocal x` in a function nested in this one
DEL = "del"
TYPE = "type"

#: Kinds that declare or delete a name without giving it a value (left out of ``values``).
_NO_VALUE_KINDS = frozenset({ANNOTATION, DEL, NESTED_NONLOCAL})

_BITWISE_AUG = (cst.BitAndAssign, cst.BitOrAssign, cst.BitXorAssign)

Value = cst.BaseExpression | None


class Bindings:
    """Every binding of a name in one scope: how, and with which value where one is assigned.

    Driven either by :func:`~trtcodemod.astutil.visit_readonly` over a whole scope (every
    node; see :func:`scope_bindings`) or statement by statement (:func:`statement_bindings`,
    which leaves walrus targets to :func:`walrus_targets`).
    """

    def __init__(self, *, comprehension_targets: bool = True) -> None:
        #: name → (kind, assigned value or None) for each binding, in source order.
        self.sites: dict[str, list[tuple[str, Value]]] = {}
        #: name → qualified names, for names bound by absolute imports.
        self.imports: dict[str, set[str]] = {}
        #: Names bound other than by an absolute import (they never resolve to torch).
        self.other: set[str] = set()
        #: name → ``position`` when it was first put in ``other`` (module scans).
        self.first: dict[str, int] = {}
        #: Set by module scans to the index of the top-level statement being read.
        self.position = 0
        # Comprehension targets belong to the comprehension's own scope (Python 3), but the
        # mask evidence of ``indexing`` has always counted them as the function's: kept there.
        self._comprehension_targets = comprehension_targets

    # --- recording ---------------------------------------------------------------
    def bind(self, name: str, kind: str, value: Value = None) -> None:
        self.sites.setdefault(name, []).append((kind, value))
        self.other.add(name)
        self.first.setdefault(name, self.position)

    def bind_import(self, name: str, qualified: str | None) -> None:
        self.sites.setdefault(name, []).append((IMPORT, None))
        if qualified is None:
            self.bind_other(name)  # project-relative: it binds the name, never to torch
        else:
            self.imports.setdefault(name, set()).add(qualified)

    def bind_other(self, name: str) -> None:
        self.other.add(name)
        self.first.setdefault(name, self.position)

    def target(self, node: cst.BaseExpression, kind: str, value: Value = None) -> None:
        """The names an assignment-like target binds (``a``, ``a, (b, *c)``; not ``a.b``/``a[i]``).

        A flat tuple of names given a tuple of as many values (``x, xp = x.to(t), xp.to(t)``) binds
        each name to its own value; any other unpacking binds its names to no known value."""
        if type(node) is cst.Name:
            self.bind(node.value, kind, value)
            return
        pairs = _unpacked_pairs(node, value)
        if pairs is not None:
            for name, element in pairs:
                self.bind(name, kind, element)
            return
        for name in bound_names(node):
            self.bind(name, kind)

    def bind_params(self, params: cst.Parameters) -> None:
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            self.bind(param.name.value, PARAM)
        for star in (params.star_arg, params.star_kwarg):
            if type(star) is cst.Param:
                self.bind(star.name.value, PARAM)

    @property
    def values(self) -> dict[str, list[Value]]:
        """name → the values assigned to it (None: a binding whose value is unknown)."""
        return {
            name: [value for kind, value in sites if kind not in _NO_VALUE_KINDS]
            for name, sites in self.sites.items()
            if any(kind not in _NO_VALUE_KINDS for kind, _ in sites)
        }

    # --- visitor hooks (read by visit_readonly and by the statement scan) -----------
    # Nested scopes bind their own name here and nothing else.
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.bind(node.name.value, DEF)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.bind(node.name.value, CLASS)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.target(target.target, ASSIGN, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.target(node.target, ASSIGN, node.value)
        elif type(node.target) is cst.Name:
            self.bind(node.target.value, ANNOTATION)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if type(node.target) is cst.Name:
            # `m &= other` keeps a bool mask bool when `other` is one; anything else is unknown.
            keeps = isinstance(node.operator, _BITWISE_AUG)
            self.bind(node.target.value, AUGASSIGN, node.value if keeps else None)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.target(node.target, WALRUS, node.value)

    def visit_For(self, node: cst.For) -> None:
        self.target(node.target, FOR)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        if self._comprehension_targets:
            self.target(node.target, COMPREHENSION)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.target(node.asname.name, WITH)

    def visit_ExceptHandler(self, node: cst.ExceptHandler | cst.ExceptStarHandler) -> None:
        if node.name is not None:
            self.target(node.name.name, EXCEPT)

    visit_ExceptStarHandler = visit_ExceptHandler

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self.bind(item.name.value, GLOBAL)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:
            self.bind(item.name.value, NONLOCAL)

    def visit_Del(self, node: cst.Del) -> None:
        # `del x` makes `x` local to the whole function, like an assignment.
        for name in bound_names(node.target):
            self.bind(name, DEL)

    def visit_Import(self, node: cst.Import | cst.ImportFrom) -> bool:
        for local, qualified in import_bindings(node):
            self.bind_import(local, qualified)
        return False

    visit_ImportFrom = visit_Import

    def visit_TypeAlias(self, node: cst.CSTNode) -> None:
        name = getattr(node, "name", None)
        if type(name) is cst.Name:
            self.bind(name.value, TYPE)

    # `match` captures: `case F:`, `case [F, *rest]:`, `case {"k": F, **rest}:`, `case P(x=F) as G:`.
    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.bind(node.name.value, MATCH)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.bind(node.name.value, MATCH)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.bind(node.rest.value, MATCH)


def scope_bindings(scope: cst.FunctionDef | cst.Module) -> dict[str, list[Value]]:
    """name → assigned values for one function or module, from a walk over all of it.

    Comprehension targets count as bindings of the function here (the mask evidence of
    ``indexing`` relies on that: a name also used as a loop variable is unknown).
    """
    collector = Bindings()
    if type(scope) is cst.FunctionDef:
        collector.bind_params(scope.params)
        visit_readonly(scope.body, collector)
    else:
        for statement in scope.body:
            visit_readonly(statement, collector)
    return collector.values


# --- statement-level scan --------------------------------------------------------------


def _suite_statements(suite: cst.BaseSuite | None) -> Iterable[cst.CSTNode]:
    if suite is None:
        return ()
    return suite.body  # IndentedBlock: statements; SimpleStatementSuite: small statements


def _scan(statements: Iterable[cst.CSTNode], collector: Bindings, nested: str | None) -> None:
    """Record the bindings of ``statements`` (and the blocks inside them) except walrus targets.

    ``nested``: NONLOCAL to also record, as NESTED_NONLOCAL, the names that functions
    nested in this scope declare ``nonlocal`` (they may rebind ours); None not to look.
    """
    for statement in statements:
        kind = type(statement)
        if kind is cst.SimpleStatementLine:
            for small in statement.body:  # type: ignore[attr-defined]
                hook = getattr(collector, "visit_" + type(small).__name__, None)
                if hook is not None:
                    hook(small)
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            hook = collector.visit_FunctionDef if kind is cst.FunctionDef else collector.visit_ClassDef
            hook(statement)  # type: ignore[arg-type]
            if nested is not None:
                inner = _suite_statements(statement.body)  # type: ignore[attr-defined]
                for name in declared_names(inner, cst.Nonlocal):
                    collector.bind(name, NESTED_NONLOCAL)
        elif isinstance(statement, cst.BaseCompoundStatement):
            if kind is cst.For:
                collector.visit_For(statement)  # type: ignore[arg-type]
            elif kind is cst.With:
                for item in statement.items:  # type: ignore[attr-defined]
                    collector.visit_WithItem(item)
            elif kind is cst.Try or kind is cst.TryStar:
                imported = _absolute_imports(_suite_statements(statement.body))  # type: ignore[attr-defined]
                for handler in statement.handlers:  # type: ignore[attr-defined]
                    if imported and _catches_import_failure(handler):
                        _scan_fallback(handler, collector, nested, imported)
                        continue
                    collector.visit_ExceptHandler(handler)
                    _scan(_suite_statements(handler.body), collector, nested)
            elif kind is cst.Match:
                for case in statement.cases:  # type: ignore[attr-defined]
                    visit_readonly(case.pattern, collector)
                    _scan(_suite_statements(case.body), collector, nested)
            _scan_blocks(statement, collector, nested)
        else:
            # A small statement of a one-line suite (`if c: x = 1`).
            hook = getattr(collector, "visit_" + kind.__name__, None)
            if hook is not None:
                hook(statement)


#: Exceptions a failed import raises, and the handlers that catch them with others.
_IMPORT_FAILURES = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _absolute_imports(statements: Iterable[cst.CSTNode]) -> set[str]:
    """Names the plain import statements of a ``try`` body bind absolutely (``from torch.nn.functional
    import rms_norm``), the body's own statements only."""
    names: set[str] = set()
    for statement in statements:
        if type(statement) is cst.SimpleStatementLine:
            for small in statement.body:  # type: ignore[attr-defined]
                if type(small) in (cst.Import, cst.ImportFrom):
                    names.update(local for local, qualified in import_bindings(small) if qualified is not None)
    return names


def _catches_import_failure(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    """``except:``, ``except ImportError:``, ``except (ImportError, AttributeError):``, ``except Exception:``."""
    caught = handler.type
    if caught is None:
        return True
    kinds = [element.value for element in caught.elements] if type(caught) is cst.Tuple else [caught]
    return any(type(kind) is cst.Name and kind.value in _IMPORT_FAILURES for kind in kinds)


def _scan_fallback(handler: cst.ExceptHandler | cst.ExceptStarHandler, collector: Bindings, nested: str | None,
                   imported: set[str]) -> None:
    """An import-failure handler of a ``try`` whose body imports names absolutely. Where the import
    succeeds (the only case in which the code after it is the one that runs with the names the body
    imports: ``try: from torch.nn.functional import rms_norm`` / ``except ImportError: from .fast_norm
    import rms_norm``, timm's form), the names keep the body's meaning: the handler's other bindings of
    those names (a project-relative import, a ``def``, an assignment) do not make them unknown. Its
    absolute imports still add their qualified names (``from functorch import vmap``), and every other
    name it binds is bound as usual."""
    scratch = Bindings(comprehension_targets=collector._comprehension_targets)
    scratch.position = collector.position
    scratch.visit_ExceptHandler(handler)
    _scan(_suite_statements(handler.body), scratch, nested)
    for name, sites in scratch.sites.items():
        collector.sites.setdefault(name, []).extend(sites)
    for name, qualified in scratch.imports.items():
        collector.imports.setdefault(name, set()).update(qualified)
    for name in scratch.other - imported:
        collector.other.add(name)
        collector.first.setdefault(name, scratch.first.get(name, collector.position))


def _scan_blocks(statement: cst.CSTNode, collector: Bindings, nested: str | None) -> None:
    """The body, ``orelse`` and ``finalbody`` blocks of a compound statement."""
    body = getattr(statement, "body", None)
    if isinstance(body, cst.BaseSuite):
        _scan(_suite_statements(body), collector, nested)
    orelse = getattr(statement, "orelse", None)
    if type(orelse) is cst.If:
        _scan((orelse,), collector, nested)
    elif orelse is not None:
        _scan(_suite_statements(orelse.body), collector, nested)
    final = getattr(statement, "finalbody", None)
    if final is not None:
        _scan(_suite_statements(final.body), collector, nested)


def _all_statements(statements: Iterable[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Every statement and small statement below ``statements``, nested definitions included."""
    stack = list(statements)
    while stack:
        statement = stack.pop()
        yield statement
        kind = type(statement)
        if kind is cst.SimpleStatementLine:
            stack.extend(statement.body)  # type: ignore[attr-defined]
        elif isinstance(statement, cst.BaseCompoundStatement):
            stack.extend(_suite_statements(getattr(statement, "body", None)))  # `match` has none
            orelse = getattr(statement, "orelse", None)
            if type(orelse) is cst.If:
                stack.append(orelse)
            elif orelse is not None:
                stack.extend(_suite_statements(orelse.body))
            final = getattr(statement, "finalbody", None)
            if final is not None:
                stack.extend(_suite_statements(final.body))
            for part in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
                stack.extend(_suite_statements(part.body))


def declared_names(statements: Iterable[cst.CSTNode], kind: type) -> set[str]:
    """Names declared ``global`` (``kind`` cst.Global) or ``nonlocal`` anywhere below ``statements``."""
    found: set[str] = set()
    for statement in _all_statements(statements):
        if type(statement) is kind:
            found.update(item.name.value for item in statement.names)  # type: ignore[attr-defined]
    return found


def statement_bindings(scope: cst.CSTNode) -> Bindings:
    """The bindings of one scope, walrus targets aside (see :func:`walrus_targets`).

    For a module, ``first`` gives the index of the top-level statement where each name
    is first bound other than by an import; names some function or class anywhere
    declares ``global`` count as bound by the top-level statement that contains it.
    """
    collector = Bindings(comprehension_targets=False)
    kind = type(scope)
    if kind is cst.Module:
        for index, statement in enumerate(scope.body):  # type: ignore[attr-defined]
            collector.position = index
            _scan((statement,), collector, None)
            if type(statement) is not cst.SimpleStatementLine:
                for name in declared_names((statement,), cst.Global):
                    collector.bind(name, GLOBAL)
    elif kind is cst.FunctionDef:
        collector.bind_params(scope.params)  # type: ignore[attr-defined]
        _scan(_suite_statements(scope.body), collector, NONLOCAL)  # type: ignore[attr-defined]
    elif kind is cst.ClassDef:
        _scan(_suite_statements(scope.body), collector, None)  # type: ignore[attr-defined]
    elif kind is cst.Lambda:
        collector.bind_params(scope.params)  # type: ignore[attr-defined]
    else:  # a comprehension: its `for` targets, at every level
        comp = getattr(scope, "for_in", None)
        while comp is not None:
            collector.target(comp.target, COMPREHENSION)
            comp = comp.inner_for_in
    return collector


# --- walrus targets ----------------------------------------------------------------------

#: Nodes with no expression below them: never descended into.
_LEAVES = frozenset({cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Pass,
                     cst.Break, cst.Continue, cst.Ellipsis})


def _walrus_in(nodes: Iterable[cst.CSTNode], found: dict[str, int], position: int) -> None:
    """Record the walrus targets that bind in the scope ``nodes`` belong to."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in _LEAVES:
            continue
        if kind is cst.NamedExpr:
            for name in bound_names(node.target):  # type: ignore[attr-defined]
                found.setdefault(name, position)
        elif kind is cst.FunctionDef:
            # Only the header runs in this scope (decorators, defaults, annotations).
            stack.extend(node.decorators)  # type: ignore[attr-defined]
            stack.append(node.params)  # type: ignore[attr-defined]
            if node.returns is not None:  # type: ignore[attr-defined]
                stack.append(node.returns)  # type: ignore[attr-defined]
            continue
        elif kind is cst.ClassDef:
            stack.extend(node.decorators)  # type: ignore[attr-defined]
            stack.extend(node.bases)  # type: ignore[attr-defined]
            stack.extend(node.keywords)  # type: ignore[attr-defined]
            continue
        elif kind is cst.Lambda:
            stack.append(node.params)  # type: ignore[attr-defined]
            continue
        # A walrus inside a comprehension binds in the enclosing function: descend.
        stack.extend(children(node))


def walrus_targets(scope: cst.CSTNode) -> dict[str, int]:
    """Names a walrus binds in ``scope`` → index of the top-level statement (modules; else 0)."""
    found: dict[str, int] = {}
    kind = type(scope)
    if kind is cst.Module:
        for index, statement in enumerate(scope.body):  # type: ignore[attr-defined]
            _walrus_in((statement,), found, index)
    elif kind is cst.FunctionDef or kind is cst.ClassDef:
        _walrus_in((scope.body,), found, 0)  # type: ignore[attr-defined]
    elif kind is cst.Lambda:
        _walrus_in((scope.body,), found, 0)  # type: ignore[attr-defined]
    # Comprehensions: a walrus inside one binds in the enclosing scope, never in it.
    return found


# --- resolution --------------------------------------------------------------------------

_FUNCTION_LIKE = (cst.FunctionDef, cst.Lambda)

_NO_WALRUS: dict[str, int] = {}

#: ``lookup`` result for a name some scope binds other than by an absolute import.
SHADOWED = None


class ScopeResolver:
    """What a name means at the point of the traversal the :class:`ScopeTracker` is at.

    The tracker calls :meth:`open_definition`, :meth:`enter_block`, :meth:`close_definition`
    (functions and classes: their scope starts with their body, since decorators,
    defaults, annotations and bases are evaluated outside), :meth:`push`/:meth:`pop`
    (lambdas and comprehensions) and :meth:`statement` (module-level position).
    """

    def __init__(self, module: cst.Module, imports: ImportTable, source: bytes | None = None) -> None:
        """``source``: the module's bytes, when known (no ``:=`` in them: no walrus to look for)."""
        self.module = module
        self.imports = imports
        self._walrus_possible = source is None or b":=" in source
        #: Scopes the traversal is in, outermost first (the module is implicit).
        self.stack: list[cst.CSTNode] = []
        self._pending: list[cst.CSTNode] = []  # functions/classes whose body has not begun
        self._deferred = 0  # functions and lambdas on the stack: their code runs later
        self._top = {id(statement): index for index, statement in enumerate(module.body)}
        #: Index of the top-level statement the traversal is in.
        self.position = 0
        self._bindings: dict[int, Bindings] = {}
        self._walrus: dict[int, dict[str, int]] = {}
        self._cache: dict[tuple[int, str, int], tuple[str, ...] | None] = {}
        self._attributes: dict[tuple[int, tuple[str, ...]], tuple[str, ...]] = {}

    # --- kept current by the tracker ---------------------------------------------------
    def statement(self, node: cst.CSTNode) -> None:
        if not self.stack:
            index = self._top.get(id(node))
            if index is not None:
                self.position = index

    def open_definition(self, node: cst.FunctionDef | cst.ClassDef) -> None:
        self._pending.append(node)

    def enter_block(self, block: cst.CSTNode) -> None:
        if self._pending and self._pending[-1].body is block:  # type: ignore[attr-defined]
            self.push(self._pending.pop())

    def close_definition(self, node: cst.FunctionDef | cst.ClassDef) -> None:
        if self.stack and self.stack[-1] is node:
            self.pop()
        elif self._pending and self._pending[-1] is node:
            self._pending.pop()

    def push(self, scope: cst.CSTNode) -> None:
        self.stack.append(scope)
        if isinstance(scope, _FUNCTION_LIKE):
            self._deferred += 1

    def pop(self) -> None:
        scope = self.stack.pop()
        if isinstance(scope, _FUNCTION_LIKE):
            self._deferred -= 1

    # --- per-scope facts, computed on first need ----------------------------------------
    def bindings(self, scope: cst.CSTNode) -> Bindings:
        """The statement-level bindings of ``scope`` (a function, class, lambda, comprehension or module)."""
        found = self._bindings.get(id(scope))
        if found is None:
            found = self._bindings[id(scope)] = statement_bindings(scope)
        return found

    def walrus(self, scope: cst.CSTNode) -> dict[str, int]:
        """Names a walrus binds in ``scope`` (see :func:`walrus_targets`)."""
        if not self._walrus_possible:
            return _NO_WALRUS
        found = self._walrus.get(id(scope))
        if found is None:
            found = self._walrus[id(scope)] = walrus_targets(scope)
        return found

    # --- questions -----------------------------------------------------------------------
    def lookup(self, name: str) -> tuple[str, ...] | None:
        """What ``name`` refers to here: the sorted qualified names of the imports that bind
        it (``()``: nothing binds it), or None (SHADOWED): something else binds it, or may."""
        key = (id(self.stack[-1]) if self.stack else 0, name, self.position)
        try:
            return self._cache[key]
        except KeyError:
            found = self._cache[key] = self._lookup(name)
            return found

    def resolve(self, node: cst.BaseExpression) -> tuple[str, ...]:
        """Qualified names a Name/Attribute expression refers to here (sorted, maybe empty)."""
        head = node
        while type(head) is cst.Attribute:
            head = head.value  # type: ignore[attr-defined]
        if type(head) is not cst.Name or not self.imports.binds(head.value):  # type: ignore[attr-defined]
            return ()  # the common case, answered without any scope work
        bound = self.lookup(head.value)  # type: ignore[attr-defined]
        if not bound:
            return ()
        if head is node:
            return bound
        # Many rules ask about the same call: what the attribute path adds to the head is
        # the same from every scope, so its answer is kept per node and head meaning.
        key = (id(node), bound)
        found = self._attributes.get(key)
        if found is None:
            dotted = dotted_name(node)
            if dotted is None:
                found = ()
            else:
                suffix = dotted[dotted.index("."):]
                found = tuple(sorted(canonical(f"{qualified}{suffix}") for qualified in bound))
            self._attributes[key] = found
        return found

    def _lookup(self, name: str) -> tuple[str, ...] | None:
        stack = self.stack
        passed: list[cst.CSTNode] = []
        innermost = len(stack) - 1
        for index in range(innermost, -1, -1):
            scope = stack[index]
            if type(scope) is cst.ClassDef and index != innermost:
                # A class body is not visible from the scopes inside it. A lambda's defaults
                # and a comprehension's first iterable are evaluated in it, though: when the
                # class binds the name, do not guess which one is meant.
                if type(stack[index + 1]) is not cst.FunctionDef and name in self.bindings(scope).sites:
                    return SHADOWED
                continue
            bindings = self.bindings(scope)
            if name in bindings.other:
                return SHADOWED
            qualified = bindings.imports.get(name)
            passed.append(scope)
            if qualified:
                return self._unless_walrus(name, passed, None, tuple(sorted(qualified)))
        module = self.bindings(self.module)
        first = module.first.get(name)
        if first is not None and (self._deferred or first <= self.position):
            return SHADOWED
        qualified = module.imports.get(name)
        if not qualified and name not in module.sites:
            # Bound by nothing in this file but maybe by a star import of the user's own module.
            qualified = self.imports.star_binding(name)
        return self._unless_walrus(name, passed, self.module, tuple(sorted(qualified)) if qualified else ())

    def _unless_walrus(
        self, name: str, scopes: list[cst.CSTNode], module: cst.Module | None, found: tuple[str, ...]
    ) -> tuple[str, ...] | None:
        """``found``, unless a walrus in one of ``scopes`` (or in the module) binds ``name`` too."""
        for scope in scopes:
            if name in self.walrus(scope):
                return SHADOWED
        if module is not None:
            position = self.walrus(module).get(name)
            if position is not None and (self._deferred or position <= self.position):
                return SHADOWED
        return found

    def binds(self, name: str) -> bool:
        """Whether anything (an import, a definition, a parameter...) binds ``name`` here:
        False means a use of ``name`` here is the builtin of that name."""
        return self.lookup(name) != ()


def _unpacked_pairs(target: cst.BaseExpression, value: Value) -> list[tuple[str, cst.BaseExpression]] | None:
    """``a, b = f(x), g(y)``: each name with its own value, or None for any other form (a starred
    element, a nested target, a value that is not a tuple of as many plain elements)."""
    if type(target) not in (cst.Tuple, cst.List) or type(value) not in (cst.Tuple, cst.List):
        return None
    names, values = target.elements, value.elements  # type: ignore[union-attr]
    if len(names) != len(values) or not names:
        return None
    if any(type(e) is not cst.Element or type(e.value) is not cst.Name for e in names):
        return None
    if any(type(e) is not cst.Element for e in values):
        return None
    return [(n.value.value, v.value) for n, v in zip(names, values)]  # type: ignore[attr-defined]
