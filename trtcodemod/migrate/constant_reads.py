"""Conditions that read only what the model holds, never what it is given.

transformers' EoMT decides per layer ``if self.training or self.attn_mask_probs[i] > 0:`` and
passes ``prob=self.attn_mask_probs[i]`` to a static method that tests ``if prob < 1:``. Python
reads a tensor's value there, so the trace bakes the branch; but the value is a buffer of the
model, the same for every input, so the baked branch is the one eager mode takes on every input.

:func:`constant_test_lines` finds the tests of ``if``, ``while`` and conditional expressions whose
every leaf is such a value: an attribute of ``self`` that no method of the file assigns or changes
in place after ``__init__`` and that an ``__init__`` of the file sets (a buffer, a parameter, a
config number; and ``self.training``), a literal, a module-level constant or import, a local bound
only to such values (``for i, layer in enumerate(self.layers)``), or a parameter of a private
function (``_name``, called from its own file) that every call in the file passes such a value, and
pure arithmetic, comparisons, indexing and reading calls (``len``, ``.item()``, ``.any()``) over
them. It reasons on one file; an attribute changed from another file is outside what it sees,
which is why the graph's equivalence is still checked on every input set.

:func:`configuration_test_lines` finds the tests that read only tensors built from configuration
(piq's DSS: ``weight`` from ``torch.arange(1, dct_size + 1, dtype=x.dtype, device=x.device)``, then
``if weight[m, n] < threshold:``): the rules' own proof (``ConditionEvidence``'s ``fixed``), asked
through a traversal as a pass of the rules makes it, so migrate and TRT101/TRT104 agree.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import libcst as cst

from trtcodemod.module_files import find_module
from trtcodemod.providers import Provider

#: Builtins that compute from their arguments alone.
_PURE_BUILTINS = frozenset({"len", "int", "float", "bool", "abs", "min", "max", "sum", "round", "enumerate", "range",
                            "zip", "reversed", "list", "tuple"})
#: Tensor methods that read a value and change nothing.
_READING_METHODS = frozenset({"item", "any", "all", "sum", "numel", "size", "dim", "tolist", "float", "int", "bool",
                              "long", "abs", "max", "min", "mean", "prod", "nonzero", "isnan", "isinf", "isfinite",
                              # a copy or a view of the value, on the CPU or as NumPy (monai's DiNTS reads its
                              # architecture code as ``self.arch_code_a[i].data.cpu()``)
                              "cpu", "detach", "clone", "numpy", "contiguous", "flatten", "argmax", "argmin"})
_INIT = "__init__"
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _self_root(node: ast.AST) -> str | None:
    """``x`` for ``self.x``, ``self.x.y``, ``self.x[i]``, ``self.x.y[i].z``; None otherwise."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return node.attr
        node = node.value
    return None


def _assigned_roots(target: ast.AST) -> Iterator[str]:
    """The attributes of ``self`` an assignment to ``target`` changes: ``x`` for ``self.x``,
    ``self.x[i]`` or ``self.x.y``, each element of a tuple target, never what an index reads
    (``table[: self.n] = 0`` changes ``table``, not ``self.n``: monai's DiNTS ``decode``)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _assigned_roots(element)
    elif isinstance(target, ast.Starred):
        yield from _assigned_roots(target.value)
    else:
        root = _self_root(target)
        if root is not None:
            yield root


def _own_nodes(func: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``func``'s body, without those of functions or classes defined inside it."""
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (*_FUNCTIONS, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


class _FileFacts:
    """What one parsed file says about where names and attributes get their values."""

    def __init__(self, tree: ast.Module, path: Path | None = None, depth: int = 2) -> None:
        self.module_constants: set[str] = set()
        for stmt in tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self.module_constants.update((a.asname or a.name).split(".")[0] for a in stmt.names)
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant):
                self.module_constants.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        self.owner: dict[ast.AST, ast.ClassDef | None] = {}
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self._collect(tree, None)
        #: Each function's own nodes, walked once.
        self.nodes = {id(f): list(_own_nodes(f)) for f in self.functions}
        self.changed = self._changed_attributes()
        #: Attributes some ``__init__`` of the file sets on ``self``: the values whose origin it sees.
        self.initialised = {"training"}  # set by ``nn.Module`` itself, and by ``.eval()`` before an export
        for func in self.functions:
            if func.name == _INIT:
                for node in self.nodes[id(func)]:
                    targets = node.targets if isinstance(node, ast.Assign) else (
                        [node.target] if isinstance(node, ast.AnnAssign) else [])
                    self.initialised.update(t.attr for t in targets if isinstance(t, ast.Attribute)
                                            and isinstance(t.value, ast.Name) and t.value.id == "self")
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                            and node.func.attr == "register_buffer" and node.args \
                            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                        self.initialised.add(node.args[0].value)
        if path is not None and depth > 0:
            self.initialised |= _inherited(tree, path, depth)
        #: The calls of each attribute or function name, with the function they are in.
        self.calls: dict[str, list[tuple[ast.Call, ast.AST]]] = {}
        for caller in self.functions:
            for node in self.nodes[id(caller)]:
                if isinstance(node, ast.Call):
                    callee = node.func
                    name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", None)
                    if name:
                        self.calls.setdefault(name, []).append((node, caller))

    def _collect(self, node: ast.AST, cls: ast.ClassDef | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _FUNCTIONS):
                self.functions.append(child)
                self.owner[child] = cls
                self._collect(child, None)
            elif isinstance(child, ast.ClassDef):
                self._collect(child, child)
            else:
                self._collect(child, cls)

    def _changed_attributes(self) -> set[str] | None:
        """Attributes of ``self`` assigned or changed in place outside ``__init__`` anywhere in the
        file (None when ``setattr`` on ``self`` makes that unknowable)."""
        changed: set[str] = set()
        for func in self.functions:
            if func.name == _INIT:
                continue
            for node in self.nodes[id(func)]:
                targets: list[ast.AST] = []
                if isinstance(node, ast.Assign):
                    targets = list(node.targets)
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                    targets = [node.target]
                elif isinstance(node, ast.Delete):
                    targets = list(node.targets)
                elif isinstance(node, ast.Call):
                    func_expr = node.func
                    if isinstance(func_expr, ast.Name) and func_expr.id in ("setattr", "delattr") and node.args \
                            and isinstance(node.args[0], ast.Name) and node.args[0].id == "self":
                        return None
                    name = func_expr.attr if isinstance(func_expr, ast.Attribute) else getattr(func_expr, "id", "")
                    if isinstance(func_expr, ast.Attribute) and func_expr.attr not in _READING_METHODS:
                        # Any other method of an attribute may change it: ``self.queue.append(x)``,
                        # ``self.buf.add_(1)``.
                        targets = [func_expr.value]
                    if name.endswith("_") and not name.startswith("_"):
                        targets += node.args[:1]  # an in-place function: ``nn.init.ones_(self.w)``
                changed.update(root for target in targets for root in _assigned_roots(target))
        return changed


def _inherited(tree: ast.Module, path: Path, depth: int) -> set[str]:
    """Attributes the ``__init__`` of a base class imported from another file (``from ..modeling_utils
    import BaseStereoModel``; the stereo-matching models' ``self.config = config``) sets on ``self``, and
    that no method of that file changes afterwards: a subclass reads there what the base's ``__init__``
    left, as it reads what its own sets (its own file's changes are checked as for its own attributes).
    Followed through the base's own bases, ``depth`` files deep."""
    imported: dict[str, tuple[str | None, int, str]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                imported[alias.asname or alias.name] = (statement.module, statement.level, alias.name)
    bases = {b.id for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
             for b in node.bases if isinstance(b, ast.Name)}
    found: set[str] = set()
    for base in sorted(bases & set(imported)):
        module, level, name = imported[base]
        source = find_module(path, module, level, installed=True)
        if source is None or source == path:
            continue
        try:
            other = ast.parse(source.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
            continue
        if not any(isinstance(s, ast.ClassDef) and s.name == name for s in other.body):
            continue  # re-exported from elsewhere: not followed
        facts = _FileFacts(other, source, depth - 1)
        if facts.changed is not None:
            found |= facts.initialised - facts.changed
    return found


class _Judge:
    """Decides whether an expression, read in a given function, holds only the model's own values."""

    def __init__(self, facts: _FileFacts) -> None:
        self.facts = facts
        self._busy: set[tuple[int, str]] = set()
        self._known: dict[tuple[int, str, int], bool] = {}
        self._bindings: dict[int, dict[str, list[ast.AST]]] = {}

    def constant(self, expr: ast.AST, func: ast.AST, depth: int = 2) -> bool:
        if isinstance(expr, ast.Constant):
            return True
        if isinstance(expr, ast.Name):
            return self._name(expr.id, func, depth)
        if _self_root(expr) is not None:
            root = _self_root(expr)
            if self.facts.changed is None or root in self.facts.changed or root not in self.facts.initialised:
                return False
            return all(self.constant(s.slice, func, depth) for s in ast.walk(expr) if isinstance(s, ast.Subscript))
        if isinstance(expr, ast.Attribute):
            return self.constant(expr.value, func, depth)
        if isinstance(expr, ast.Subscript):
            return self.constant(expr.value, func, depth) and self.constant(expr.slice, func, depth)
        if isinstance(expr, ast.Slice):
            return all(self.constant(p, func, depth) for p in (expr.lower, expr.upper, expr.step) if p is not None)
        if isinstance(expr, (ast.BinOp, ast.BoolOp, ast.Compare, ast.UnaryOp, ast.Tuple, ast.List, ast.IfExp)):
            return all(self.constant(c, func, depth) for c in ast.iter_child_nodes(expr)
                       if not isinstance(c, (ast.operator, ast.boolop, ast.cmpop, ast.unaryop, ast.expr_context)))
        if isinstance(expr, ast.Call) and not expr.keywords or isinstance(expr, ast.Call) and all(
                k.arg is not None for k in expr.keywords):
            return self._call(expr, func, depth)
        return False

    def _call(self, call: ast.Call, func: ast.AST, depth: int) -> bool:
        callee = call.func
        if isinstance(callee, ast.Name):
            pure = callee.id in _PURE_BUILTINS
        elif isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id == "math":
            pure = True
        elif isinstance(callee, ast.Attribute):
            pure = callee.attr in _READING_METHODS and self.constant(callee.value, func, depth)
        else:
            pure = False
        arguments = [*call.args, *(k.value for k in call.keywords)]
        return pure and not any(isinstance(a, ast.Starred) for a in call.args) \
            and all(self.constant(a, func, depth) for a in arguments)

    def _name(self, name: str, func: ast.AST, depth: int) -> bool:
        if name in ("True", "False", "None"):
            return True
        key = (id(func), name)
        if key in self._busy:
            return True  # a loop of bindings adds no new source of values
        known = self._known.get((*key, depth))
        if known is not None:
            return known
        bindings = self._bindings_of(func).get(name, [])
        self._busy.add(key)
        try:
            if name in self._params(func):
                answer = not bindings and self._param(name, func, depth)
            elif not bindings:
                answer = name in self.facts.module_constants
            else:
                answer = all(self._binding(b, func, depth) for b in bindings)
        finally:
            self._busy.discard(key)
        self._known[(*key, depth)] = answer
        return answer

    def _bindings_of(self, func: ast.AST) -> dict[str, list[ast.AST]]:
        """Every node of ``func`` that binds each name (computed once per function)."""
        found = self._bindings.get(id(func))
        if found is None:
            found = {}
            for node in self.facts.nodes.get(id(func), []):
                for name in self._bound_names(node):
                    found.setdefault(name, []).append(node)
            self._bindings[id(func)] = found
        return found

    @staticmethod
    def _params(func: ast.AST) -> list[str]:
        if not isinstance(func, _FUNCTIONS):
            return []
        args = func.args
        return [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]] + \
            [a.arg for a in (args.vararg, args.kwarg) if a is not None]

    @staticmethod
    def _bound_names(node: ast.AST) -> list[str]:
        """The names ``node`` binds."""
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr, ast.comprehension)):
            targets = [node.target]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            return [(a.asname or a.name).split(".")[0] for a in node.names]
        elif isinstance(node, ast.ExceptHandler):
            return [node.name] if node.name else []
        return [t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)]

    def _binding(self, node: ast.AST, func: ast.AST, depth: int) -> bool:
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.NamedExpr)):
            return self.constant(node.value, func, depth)
        if isinstance(node, ast.AnnAssign):
            return node.value is not None and self.constant(node.value, func, depth)
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            return self.constant(node.iter, func, depth)
        return False  # ``with ... as``, ``except ... as``, imports inside the function

    def _param(self, name: str, func: ast.AST, depth: int) -> bool:
        """A parameter holds the model's own value when every call of ``func`` in the file passes one."""
        if depth <= 0 or not isinstance(func, _FUNCTIONS) or not func.name.startswith("_") \
                or func.name.startswith("__"):
            return False  # a public function may be called from other files, with anything
        cls = self.facts.owner.get(func)
        decorators = {d.id for d in func.decorator_list if isinstance(d, ast.Name)}
        positional = [a.arg for a in [*func.args.posonlyargs, *func.args.args]]
        if cls is not None and "staticmethod" not in decorators:
            positional = positional[1:]  # ``self`` or ``cls``, bound by the attribute call
        calls = [(call, caller) for call, caller in self.facts.calls.get(func.name, [])
                 if self._calls(call, func, cls)]
        if not calls:
            return False
        defaults = dict(zip(reversed(positional), reversed(func.args.defaults)))
        for call, caller in calls:
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                return False
            passed = next((k.value for k in call.keywords if k.arg == name), None)
            if passed is None and name in positional and positional.index(name) < len(call.args):
                passed = call.args[positional.index(name)]
            if passed is None:
                default = defaults.get(name)
                if default is None or not self.constant(default, func, 0):
                    return False
            elif not self.constant(passed, caller, depth - 1):
                return False
        return True

    @staticmethod
    def _calls(call: ast.Call, func: ast.AST, cls: ast.ClassDef | None) -> bool:
        callee = call.func
        name = getattr(func, "name", None)
        if cls is None:
            return isinstance(callee, ast.Name) and callee.id == name
        return isinstance(callee, ast.Attribute) and callee.attr == name and isinstance(callee.value, ast.Name) \
            and callee.value.id in ("self", "cls", cls.name)


def constant_test_lines(tree: ast.Module, path: Path | None = None) -> set[int]:
    """Lines of the tests (of ``if``, ``while``, ``x if c else y``) in methods that read only the
    model's own values: from ``self``, through a parameter, or a local bound from them (with ``path``,
    also attributes a base class's ``__init__`` in another file sets: :func:`_inherited`)."""
    facts = _FileFacts(tree, path)
    judge = _Judge(facts)
    lines: set[int] = set()
    for func in facts.functions:
        for node in facts.nodes[id(func)]:
            if not isinstance(node, (ast.If, ast.While, ast.IfExp)):
                continue
            test = node.test
            # What it reads comes from ``self``, a parameter or a local bound from them (DiNTS's
            # ``for i, activation in enumerate(self.arch_code_a[b].data): if activation:``).
            reads = any(_self_root(n) is not None or isinstance(n, ast.Name) for n in ast.walk(test))
            if reads and judge.constant(test, func):
                lines.update(range(test.lineno, (test.end_lineno or test.lineno) + 1))
    return lines


#: Tensor constructors whose data argument a trace copies into a constant (``torch.tensor``,
#: ``torch.as_tensor``, the legacy ``torch.Tensor``/``torch.FloatTensor``..., ``x.new_tensor``).
_CONSTRUCTORS = frozenset({"tensor", "as_tensor", "new_tensor", "Tensor", "FloatTensor", "DoubleTensor", "HalfTensor",
                           "LongTensor", "IntTensor", "ShortTensor", "ByteTensor", "BoolTensor"})


def _constructor_data(call: ast.Call) -> ast.AST | None:
    """The data argument of a tensor constructor call (None for another call)."""
    callee = call.func
    name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
    if name not in _CONSTRUCTORS or isinstance(callee, ast.Attribute) and name != "new_tensor" and not (
            isinstance(callee.value, ast.Name) and callee.value.id == "torch"):
        return None
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "data"), None)


def constant_constructor_lines(tree: ast.Module, path: Path | None = None) -> set[int]:
    """Lines where every tensor built from Python values copies only literals and the model's own values
    (``torch.tensor([[0.1, 0.2], [0.5, 0.5]])``, ``torch.tensor(self.anchors)`` that no method changes):
    the constant a trace keeps there is the same for every input. A line with another constructor too
    (``torch.tensor([w, h])`` of sizes) is not one of them. With ``path``, attributes a base class's
    ``__init__`` in another file sets count as the model's own too (:func:`_inherited`)."""
    facts = _FileFacts(tree, path)
    judge = _Judge(facts)
    constant: set[int] = set()
    other: set[int] = set()
    for func in facts.functions:
        for node in facts.nodes[id(func)]:
            if not isinstance(node, ast.Call):
                continue
            callee = node.func
            name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
            if name not in _CONSTRUCTORS:
                continue
            data = _constructor_data(node)
            lines = range(node.lineno, (node.end_lineno or node.lineno) + 1)
            (constant if data is not None and judge.constant(data, func) else other).update(lines)
    return constant - other


class _FixedTests(Provider, cst.BatchableCSTVisitor):
    """Collects the lines of the tests (and ``range`` bounds) the shared evidence proves the same for every input."""

    def __init__(self, context) -> None:
        from trtcodemod.transforms._condition_evidence import ConditionEvidence

        super().__init__(context)
        self._evidence = context.provider(ConditionEvidence)
        self.lines: set[int] = set()

    def visit_If(self, node: cst.If) -> None:
        self._test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._test(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._test(node.test)

    def visit_For(self, node: cst.For) -> None:
        call = node.iter
        if type(call) is cst.Call and type(call.func) is cst.Name and call.func.value == "range":
            self._test(call)

    def _test(self, test: cst.BaseExpression) -> None:
        if self.context.function is None:
            return
        facts = self._evidence.current_facts()
        if facts is None or not facts.fixed(test):
            return
        where = self.context.position(test)
        if where is not None:
            self.lines.update(range(where.start.line, where.end.line + 1))


def configuration_test_lines(path: str) -> set[int]:
    """Lines of ``path``'s tests that read only tensors built from configuration (and numbers), the
    same for every input (empty where the file cannot be read or parsed)."""
    from trtcodemod.engine import traverse

    try:
        source = Path(path).read_bytes()
        if b"torch" not in source:
            return set()
        return traverse(source, path, _FixedTests).lines
    except Exception:  # noqa: BLE001 - a file we cannot analyse proves nothing (its reads stay errors); a bug
        return set()  # of ours must not stop the migration of the model
