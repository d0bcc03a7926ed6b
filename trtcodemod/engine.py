"""One parse → selected rules → findings and edits.

The engine knows nothing about particular rules. For a file it:
1. parses the bytes with LibCST (encoding, BOM and line endings are kept by LibCST);
2. runs every selected rule in one batched traversal;
3. resolves positions only when something was found, and drops suppressed findings;
4. for ``fix_source``, applies the non-overlapping fixes, inserts helpers and
   ``import torch`` when the new code needs them, re-parses, and repeats until
   nothing more changes (a fix inside another fix's code lands on the next pass).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Sequence

import libcst as cst
from libcst.metadata import CodeRange

from trtcodemod.astutil import children
from trtcodemod.context import FileContext, ScopeTracker
from trtcodemod.errors import InputError
from trtcodemod.helpers import helper_definitions, is_reserved
from trtcodemod.positions import scoped_ranges
from trtcodemod.registry import select_rules
from trtcodemod.rules import Finding, Fix, PendingFinding, Safety
from trtcodemod.versions import DEFAULT_TARGET, parse_target

#: A fix whose output is fixed again forever would loop; real chains are short.
MAX_PASSES = 8

_SUPPRESS_RE = re.compile(r"#\s*trtcodemod:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)


@dataclass(frozen=True)
class Options:
    """What to look for and how far fixes may go."""

    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    unsafe: bool = False
    target: str = DEFAULT_TARGET


@dataclass
class FileResult:
    """The outcome for one file's bytes."""

    source: bytes
    changed: bool
    #: Everything found in the original source, positions in the original.
    findings: list[Finding] = field(default_factory=list)
    #: Findings whose fix was applied (later passes: positions in intermediate code).
    fixed: list[Finding] = field(default_factory=list)


def parse(source: bytes, path: str) -> cst.Module:
    """Parse ``source`` or raise :class:`InputError` naming the line."""
    if b"\x00" in source:
        raise InputError(path, "file contains NUL bytes; not Python source")
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return _raise_syntax(path, exc, source)
    except (UnicodeDecodeError, LookupError, SyntaxError) as exc:
        raise InputError(path, f"cannot decode: {exc}", getattr(exc, "lineno", None)) from None
    except RecursionError:
        raise InputError(path, "source nests too deeply to parse") from None


_LIBCST_WHERE = re.compile(r"^(?:parser|tokenizer) error: (?:error at (\d+):(\d+): )?")


def _raise_syntax(path: str, exc: cst.ParserSyntaxError, source: bytes) -> cst.Module:
    """Name the line and the reason; CPython's own parser words both best when it agrees."""
    try:
        compile(source, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as python_error:
        if python_error.lineno is not None:
            raise InputError(path, f"syntax error: {python_error.msg}", python_error.lineno) from None
    except (ValueError, RecursionError, MemoryError):
        pass
    message = str(exc.message).split("\n", 1)[0]
    line = exc.raw_line
    match = _LIBCST_WHERE.match(message)
    if match:
        if match.group(1):
            line = int(match.group(1))
        message = message[match.end():]
    raise InputError(path, f"syntax error: {message}", line) from None


def check_source(source: bytes, path: str, options: Options = Options()) -> list[Finding]:
    """Findings for one file, without changing it."""
    module = parse(source, path)
    return _analyze(module, source, path, options)[0]


def fix_source(source: bytes, path: str, options: Options = Options()) -> FileResult:
    """Findings for one file and the source with every allowed fix applied."""
    current = source
    module = parse(current, path)
    first: list[Finding] | None = None
    fixed: list[Finding] = []
    for _ in range(MAX_PASSES):
        findings, chosen = _analyze(module, current, path, options)
        if first is None:
            first = findings
        if not chosen:
            break
        fixed.extend(chosen)
        current = _apply(module, [f.edit for f in chosen if f.edit is not None]).bytes
        module = parse(current, path)
    return FileResult(
        source=current if current != source else source,
        changed=current != source,
        findings=first or [],
        fixed=fixed,
    )


# --- analysis ----------------------------------------------------------------


def _analyze(
    module: cst.Module, source: bytes, path: str, options: Options
) -> tuple[list[Finding], list[Finding]]:
    """All findings of one pass, and those whose fixes to apply now (non-overlapping)."""
    target = parse_target(options.target)
    context = FileContext(path=path, module=module, target=target, unsafe=options.unsafe)
    context.imports.add_imports_from(module.body)
    rules = [cls(context) for cls in select_rules(options.select, options.ignore)]
    rules = [rule for rule in rules if rule.info.applies_to(target)]
    if not rules:
        return [], []
    _Batch([ScopeTracker(context), *rules]).run(module)
    if not context.findings:
        return [], []
    groups: dict[tuple[cst.CSTNode, ...], list[cst.CSTNode]] = {}
    for pending in context.findings:
        wanted = groups.setdefault(pending.scopes, [])
        wanted.append(pending.node)
        if pending.edit is not None:
            wanted.extend(pending.edit.replacements)
    positions = scoped_ranges(module, source, groups.items())
    lines = _source_lines(module, source)
    findings: list[Finding] = []
    fixable: list[tuple[Finding, list[CodeRange]]] = []
    for pending in context.findings:
        finding = _finalize(pending, positions, path, options)
        if _suppressed(finding, lines):
            continue
        findings.append(finding)
        if finding.edit is not None and _allowed(finding.edit.safety, options):
            ranges = [positions[node] for node in finding.edit.replacements if node in positions]
            fixable.append((finding, ranges))
    findings.sort(key=lambda f: (f.line, f.column, f.rule))
    return findings, _non_overlapping(fixable)


_DEFINITIONS = frozenset({"FunctionDef", "ClassDef"})


@lru_cache(maxsize=None)
def _hook_names(visitor_type: type) -> tuple[str, ...]:
    """The visit_/leave_ methods a visitor class really defines.

    LibCST's base classes declare a no-op hook for every node type; calling those
    for every node of every file would cost more than the rules themselves.
    """
    base = cst.BatchableCSTVisitor
    return tuple(
        name
        for name in dir(visitor_type)
        if name.startswith(("visit_", "leave_"))
        and name != "visit_batched"
        and getattr(visitor_type, name) is not getattr(base, name, None)
    )


class _Batch:
    """Runs several batchable visitors in one read-only traversal, in list order.

    LibCST's own ``visit`` rebuilds every node on the way back up, even for a
    read-only visitor; walking the dataclass fields directly costs a fraction of that.
    """

    def __init__(self, visitors: Sequence[cst.BatchableCSTVisitor]) -> None:
        self._visit: dict[str, list] = {}
        self._leave: dict[str, list] = {}
        for visitor in visitors:
            for name in _hook_names(type(visitor)):
                table = self._visit if name.startswith("visit_") else self._leave
                table.setdefault(name.split("_", 1)[1], []).append(getattr(visitor, name))
        for methods in self._leave.values():
            methods.reverse()  # leave in reverse order, so the tracker pops last

    def run(self, module: cst.Module) -> None:
        visit, leave = self._visit, self._leave
        # An explicit stack: deeply nested expressions must not hit the recursion limit.
        stack: list[tuple[cst.CSTNode, bool]] = [(module, False)]
        while stack:
            node, leaving = stack.pop()
            kind = type(node).__name__
            if leaving:
                for method in leave.get(kind, ()):
                    method(node)
                continue
            if kind in _DEFINITIONS and is_reserved(node):
                continue  # our own inserted helpers are TensorRT-safe by construction
            for method in visit.get(kind, ()):
                method(node)
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(children(node)))


def _finalize(
    pending: PendingFinding, positions: dict, path: str, options: Options
) -> Finding:
    where = positions.get(pending.node)
    start = (where.start.line, where.start.column + 1) if where else (1, 1)
    end = (where.end.line, where.end.column + 1) if where else start
    edit = pending.edit
    safety = edit.safety if edit is not None else Safety.NONE
    return Finding(
        rule=pending.info.id,
        name=pending.info.name,
        message=pending.message,
        path=path,
        line=start[0],
        column=start[1],
        end_line=end[0],
        end_column=end[1],
        fix=safety,
        edit=edit,
    )


def _allowed(safety: Safety, options: Options) -> bool:
    return safety is Safety.SAFE or (safety is Safety.UNSAFE and options.unsafe)


def _source_lines(module: cst.Module, source: bytes) -> list[str]:
    """The file's lines, for suppression comments (decoding is far cheaper than code generation)."""
    return source.decode(module.encoding, errors="replace").splitlines()


def _suppressed(finding: Finding, lines: list[str]) -> bool:
    """``# trtcodemod: ignore`` (all rules) or ``ignore[TRT101, TRT2]`` on the finding's line."""
    candidates = {finding.line}
    if finding.end_line - finding.line <= 2:
        candidates.add(finding.end_line)
    for number in candidates:
        if not 0 < number <= len(lines):
            continue
        for match in _SUPPRESS_RE.finditer(lines[number - 1]):
            codes = match.group("codes")
            if codes is None:
                return True
            wanted = [c.strip().upper() for c in codes.split(",") if c.strip()]
            if any(finding.rule.startswith(code) or finding.name.upper() == code for code in wanted):
                return True
    return False


def _non_overlapping(fixable: list[tuple[Finding, list[CodeRange]]]) -> list[Finding]:
    """Greedy by position: a fix overlapping an earlier chosen one waits for the next pass."""
    chosen: list[Finding] = []
    taken: list[CodeRange] = []
    for finding, ranges in sorted(fixable, key=lambda item: _range_key(item[1])):
        if any(_overlap(a, b) for a in ranges for b in taken):
            continue
        chosen.append(finding)
        taken.extend(ranges)
    return chosen


def _range_key(ranges: list[CodeRange]) -> tuple[int, int]:
    if not ranges:
        return (0, 0)
    first = min(ranges, key=lambda r: (r.start.line, r.start.column))
    return (first.start.line, first.start.column)


def _overlap(a: CodeRange, b: CodeRange) -> bool:
    a0, a1 = (a.start.line, a.start.column), (a.end.line, a.end.column)
    b0, b1 = (b.start.line, b.start.column), (b.end.line, b.end.column)
    return a0 < b1 and b0 < a1


# --- rewriting -----------------------------------------------------------------


#: Parents in which any expression may stand without parentheses.
_LOOSE_PARENTS = (
    cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Expr, cst.Arg, cst.Element,
    cst.DictElement, cst.Index, cst.Param, cst.AssignTarget, cst.Tuple, cst.List, cst.Set,
)
_ATOMIC = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.Imaginary,
    cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Dict, cst.Set,
    cst.ListComp, cst.SetComp, cst.DictComp, cst.Ellipsis,
)


class _Replacer(cst.CSTTransformer):
    """Swaps nodes by identity; a compound expression dropped into a tighter context gets parentheses."""

    def __init__(self, replacements: dict[cst.CSTNode, object]) -> None:
        super().__init__()
        self.replacements = replacements
        self._parents: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._parents.append(node)
        return True

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        self._parents.pop()
        replacement = self.replacements.get(original_node)
        if replacement is None:
            return updated_node
        parent = self._parents[-1] if self._parents else None
        if (
            isinstance(replacement, cst.BaseExpression)
            and not isinstance(replacement, _ATOMIC)
            and not replacement.lpar
            and parent is not None
            and not isinstance(parent, _LOOSE_PARENTS)
        ):
            replacement = replacement.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return replacement


def _apply(module: cst.Module, fixes: Iterable[Fix]) -> cst.Module:
    replacements: dict[cst.CSTNode, object] = {}
    helpers: list[str] = []
    for fix in fixes:
        replacements.update(fix.replacements)
        helpers.extend(h for h in fix.helpers if h not in helpers)
    new_module = module.visit(_Replacer(replacements))
    needs_torch = bool(helpers) or any(_uses_name(node, "torch") for node in replacements.values())
    return _insert_support(new_module, helpers, needs_torch)


def _uses_name(node: object, name: str) -> bool:
    if isinstance(node, cst.FlattenSentinel):
        return any(_uses_name(n, name) for n in node.nodes)
    if not isinstance(node, cst.CSTNode):
        return False
    if isinstance(node, cst.Name) and node.value == name:
        return True
    return any(_uses_name(child, name) for child in node.children)


def _insert_support(module: cst.Module, helpers: list[str], needs_torch: bool) -> cst.Module:
    """Add ``import torch`` and helper definitions after the leading imports, once."""
    defined = {stmt.name.value for stmt in module.body if is_reserved(stmt)}
    missing = [h for h in helpers if h not in defined]
    new_defs = [d for d in helper_definitions(missing) if d.name.value not in defined]
    add_import = needs_torch and not _binds_torch(module)
    if not new_defs and not add_import:
        return module
    body = list(module.body)
    index = _after_leading_imports(body)
    inserted: list[cst.BaseStatement] = []
    if add_import:
        inserted.append(cst.parse_statement("import torch\n"))
    for number, definition in enumerate(new_defs):
        blank = [cst.EmptyLine(), cst.EmptyLine()]
        if number == 0:
            blank.append(cst.EmptyLine(comment=cst.Comment("# Inserted by trtcodemod: TensorRT-safe helpers.")))
        inserted.append(definition.with_changes(leading_lines=blank))
    if new_defs and index < len(body):
        # Keep two blank lines between the helpers and the code that follows.
        follower = body[index]
        lead = list(getattr(follower, "leading_lines", ()))
        if hasattr(follower, "leading_lines") and len(lead) < 2:
            body[index] = follower.with_changes(
                leading_lines=[cst.EmptyLine()] * (2 - len(lead)) + lead
            )
    body[index:index] = inserted
    return module.with_changes(body=body)


def _binds_torch(module: cst.Module) -> bool:
    from trtcodemod.names import ImportTable

    table = ImportTable()
    table.add_imports_from(module.body)
    return "torch" in table.local_names_for("torch")


def _after_leading_imports(body: list[cst.BaseStatement]) -> int:
    """Index after the module docstring, ``__future__`` and the leading import block."""
    index = 0
    if body and _is_docstring(body[0]):
        index = 1
    while index < len(body) and _is_import_line(body[index]):
        index += 1
    return index


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _is_import_line(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
    )
