"""Value reads that only decide whether a check function raises.

Libraries validate their inputs with functions of their own: kornia's ``KORNIA_CHECK(cond, msg)``,
``KORNIA_CHECK_SAME_SIZE(x, y)``, a project's ``check_positive(t)``. Such a function only raises
(or reports) and returns a constant: its statements are ``if``s, assignments to its own locals,
``raise``, ``return True``/``return False``/``return``, reporting calls and its docstring. Called
as a statement (its result unused), nothing it computes reaches the model's values: a tensor value
it reads, or one its caller reads only to hand to it, decides whether eager mode raises, and the
exported graph, which drops the check, computes the same values. That is the case of a check that
only raises (``assert``, ``if ...: raise``; :mod:`.locate`), with the raise one call away:

* a read inside the check function (``x_shape[dim] == y_shape[dim]`` in kornia's
  ``KORNIA_CHECK_SAME_SIZE``), where every call the trace saw (the TorchScript exporter's
  TracerWarning keeps the user's calling line) is a statement calling that function;
* a read in the arguments of such a call statement (``KORNIA_CHECK(bool((s > 0).all()), ...)``),
  or bound to a local that is read only in the arguments of such call statements
  (``positive = bool((host_sigma > 0).all())`` / ``KORNIA_CHECK(positive, ...)``, kornia's
  Gaussian blur).

The called function is found through the file's imports (``from kornia.core.check import
KORNIA_CHECK``, relative imports too, one re-export deep per module) or its own definitions; a name
that resolves to nothing, a method, or a function with any other statement is not a check, and the
read stays an error. Arguments and assignments are taken as computing, not changing, values: a call
inside them that writes state would be missed (what the static view cannot see).
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

from trtcodemod.module_files import imported_function

#: Calls that report and change no value (the same sense as :mod:`.locate`'s checks).
_REPORTING = frozenset({"print", "warn", "warning", "info", "debug", "error", "critical", "exception"})


@lru_cache(maxsize=128)
def _tree(path: str, mtime: float) -> ast.Module | None:
    del mtime  # the cache key: a rewritten file is parsed again
    try:
        return ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None


def _parse(path: Path) -> ast.Module | None:
    try:
        return _tree(str(path), path.stat().st_mtime)
    except OSError:
        return None


def reports(call: ast.Call) -> bool:
    """``print(...)``, ``warn(...)``, ``warnings.warn(...)``, ``logger.warning(...)``, ``self.log.info(...)``."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in ("print", "warn")
    if not isinstance(func, ast.Attribute) or func.attr not in _REPORTING:
        return False
    receiver = func.value.attr if isinstance(func.value, ast.Attribute) else getattr(func.value, "id", "")
    return receiver == "warnings" or "log" in receiver.lower()


def _local_target(target: ast.expr) -> bool:
    if isinstance(target, ast.Name):
        return True
    return isinstance(target, (ast.Tuple, ast.List)) and all(_local_target(e) for e in target.elts)


def _only_checks(body: list[ast.stmt]) -> bool:
    """Statements of a check function: nothing leaves it but an exception, a report or a constant."""
    for s in body:
        if isinstance(s, (ast.Raise, ast.Pass, ast.Continue, ast.Break)):
            continue
        if isinstance(s, ast.Expr) and (isinstance(s.value, ast.Constant)
                                        or isinstance(s.value, ast.Call) and reports(s.value)):
            continue
        if isinstance(s, ast.Return) and (s.value is None or isinstance(s.value, ast.Constant)):
            continue
        if isinstance(s, (ast.If, ast.While)) and _only_checks(s.body) and _only_checks(s.orelse):
            continue
        if isinstance(s, ast.For) and _local_target(s.target) and _only_checks(s.body) and _only_checks(s.orelse):
            continue
        if isinstance(s, ast.Assign) and all(_local_target(t) for t in s.targets):
            continue
        if isinstance(s, (ast.AugAssign, ast.AnnAssign)) and isinstance(s.target, ast.Name):
            continue
        return False
    return True


def is_check_function(node: ast.AST) -> bool:
    """A function (not a method's ``self`` state, not a generator) whose statements only raise,
    report, bind its locals, loop or return a constant."""
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.decorator_list \
        and _only_checks(node.body)


def _calls_check(path: Path, statement: ast.stmt) -> bool:
    """``statement`` is a call of a check function whose result is unused: ``CHECK(...)``."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    return isinstance(func, ast.Name) and is_check_function(imported_function(path, func.id))


def _spans(node: ast.AST, line: int) -> bool:
    return node.lineno <= line <= (node.end_lineno or node.lineno)


def _innermost(tree: ast.AST, line: int, kinds: tuple[type, ...]) -> ast.AST | None:
    found = None
    for node in ast.walk(tree):
        if isinstance(node, kinds) and _spans(node, line):
            if found is None or node.lineno >= found.lineno:
                found = node
    return found


def _statements(function: ast.AST) -> list[ast.stmt]:
    """Every statement of ``function``'s body, nested ones included, not those of inner functions."""
    out: list[ast.stmt] = []
    todo = list(getattr(function, "body", []))
    while todo:
        s = todo.pop()
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        out.append(s)
        for field in ("body", "orelse", "finalbody", "handlers"):
            todo.extend(getattr(s, field, []) or [])
    return out


def _read_feeds_checks(path: Path, function: ast.AST, line: int) -> bool:
    """The value read at ``line`` of ``function`` reaches only checks: the line is in a check call
    statement, or binds a local read only in the arguments of check call statements."""
    statements = _statements(function)
    holding = [s for s in statements if _spans(s, line) and not isinstance(s, (ast.If, ast.For, ast.While,
                                                                                  ast.With, ast.Try))]
    if len(holding) != 1:
        return False
    statement = holding[0]
    if _calls_check(path, statement):
        return True
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)):
        return False
    name = statement.targets[0].id
    checks = [s for s in statements if _calls_check(path, s)]
    uses = [n for s in statements for n in ast.walk(s)
            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    inner = [n for f in ast.walk(function) if f is not function
             and isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for n in ast.walk(f)
             if isinstance(n, ast.Name) and n.id == name]
    if inner:
        return False  # a closure may read it when and where it likes
    in_checks = {id(n) for s in checks for n in ast.walk(s)}
    return bool(uses) and all(id(n) in in_checks for n in uses)


def _called_as_check(caller: str | None, name: str) -> bool:
    """``caller`` (``path:line``) is a statement ``name(...)`` whose result is unused."""
    if not caller:
        return False
    file, _, number = caller.rpartition(":")
    if not number.isdigit():
        return False
    tree = _parse(Path(file))
    if tree is None:
        return False
    line = int(number)
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and _spans(node, line):
            func = node.value.func
            called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if called == name:
                return True
    return False


def only_decides_a_check(path: str | None, line: int | None, callers: list[str | None] | None = None) -> bool:
    """Does the value read at ``path:line`` only decide whether a check function raises? (module doc)

    ``callers`` are the user's lines that called the function holding the line, as the trace saw
    them; a read inside a check function needs them (without them, nothing says its result is unused).
    """
    if not path or not line:
        return False
    file = Path(path)
    tree = _parse(file)
    if tree is None:
        return False
    function = _innermost(tree, line, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return False
    if is_check_function(function):
        return bool(callers) and all(_called_as_check(c, function.name) for c in callers)
    return _read_feeds_checks(file, function, line)
