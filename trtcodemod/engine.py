"""One parse → selected rules → findings and edits.

The engine knows nothing about particular rules. For a file it:
1. parses the bytes with LibCST (encoding, BOM and line endings are kept by LibCST);
2. runs every selected rule in one batched traversal;
3. resolves positions only when something was found, and drops suppressed findings;
4. for ``fix_source``, applies the non-overlapping fixes, inserts helpers and
   ``import torch`` when the new code needs them, re-parses, and repeats until
   nothing more changes (a fix inside another fix's code lands on the next pass).
   Code of ours that does not re-parse is an internal error naming the rule; the
   pass is redone without that fix, so the file's other fixes still land.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import difflib
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable, Collection, Iterable, Sequence

import libcst as cst
from libcst.metadata import CodeRange

from trtcodemod.astutil import children, walk
from trtcodemod.context import FileContext, ScopeTracker
from trtcodemod.errors import InputError, InternalError
from trtcodemod.files import nesting_problem
from trtcodemod.helpers import inserted_helper, is_reserved
from trtcodemod.insertion import Rename, insert_support, plan_helpers, renamed
from trtcodemod.evidence.proofs import prove_in_file
from trtcodemod.model_code import ModelCode, definition_is_model_code, path_reason, skipped_in
from trtcodemod.positions import scoped_ranges
from trtcodemod.registry import rule_by_id, select_rules
from trtcodemod.rules import Finding, Fix, PendingFinding, Safety
from trtcodemod.star_imports import star_bindings
from trtcodemod.suppression import is_suppressed
from trtcodemod.versions import DEFAULT_TARGET, parse_target

#: A fix whose output is fixed again forever would loop; real chains are short.
MAX_PASSES = 8

#: What a self-documenting f-string field needs in the bytes (cheap test before the walk).
_DEBUG_FIELD_RE = re.compile(rb"=\s*[}!:]")


@dataclass(frozen=True)
class Options:
    """What to look for and how far fixes may go."""

    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    unsafe: bool = False
    target: str = DEFAULT_TARGET
    #: When given, decides alone which findings' fixes are applied, whatever their safety
    #: (``migrate`` applies exactly the fixes its plan proved, unsafe ones included).
    allow: Callable[[Finding], bool] | None = None
    #: With ``allow``: decides for a finding in code that an earlier pass wrote (a ``torch.where``
    #: that TRT101's fix made), given with its lines in the file as it was before any fix
    #: (the first line of the rewritten block), which is where ``migrate`` located it.
    follow_up: Callable[[Finding], bool] | None = None
    #: Facts observed by ``migrate --save-facts`` (a :class:`~trtcodemod.evidence.facts.Facts`),
    #: given as ``--facts``: rules see this file's part through the ``ObservedFacts`` provider, and an unsafe
    #: fix whose assumption they prove is applied without ``unsafe``.
    facts: Any = field(default=None, compare=False)
    #: ``"model"``: only model code (see :mod:`trtcodemod.model_code`); ``"all"``: every line.
    scope: str = "model"
    #: The path judged for model code: the file relative to the project root (None: ``path``),
    #: so that the folders above the project (``/home/me/tools/repo``) never count.
    scope_path: str | None = None


@dataclass
class FileResult:
    """The outcome for one file's bytes."""

    source: bytes
    changed: bool
    #: Everything found in the original source, positions in the original.
    findings: list[Finding] = field(default_factory=list)
    #: Findings whose fix was applied (later passes: positions in intermediate code).
    fixed: list[Finding] = field(default_factory=list)
    #: Fixes that produced code which does not parse (a bug of ours); they were left out.
    internal_errors: list[InternalError] = field(default_factory=list)


def parse(source: bytes, path: str) -> cst.Module:
    """Parse ``source`` or raise :class:`InputError` naming the line."""
    if b"\x00" in source:
        raise InputError(path, "file contains NUL bytes; not Python source")
    too_deep = nesting_problem(source)  # LibCST's native parser would crash the process on it
    if too_deep is not None:
        raise InputError(path, too_deep.message, too_deep.line)
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return _raise_syntax(path, exc, source)
    except (UnicodeDecodeError, LookupError, SyntaxError) as exc:
        raise InputError(path, f"cannot decode: {exc}", getattr(exc, "lineno", None)) from None
    except RecursionError:
        raise InputError(path, "source nests too deeply to parse") from None
    if module.default_newline == "\r" and not module.has_trailing_newline and source.endswith(b"\r"):
        # LibCST only looks for a final "\n": without this a CR-only file loses its last CR.
        module = module.with_changes(has_trailing_newline=True)
    return module


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


def check_source(source: bytes, path: str, options: Options = Options(), original: bytes | None = None,
                 crashes: list[InternalError] | None = None) -> list[Finding]:
    """Findings for one file, without changing it.

    ``original``: the file as it was before fixes made ``source`` (``apply`` checks what
    remains), so that ``options.facts``, observed on the original, meet the right lines.
    ``crashes``: where a rule that raised is named (its findings are left out, the other
    rules' kept); without it, such a rule's error is raised.
    """
    module = parse(source, path)
    own: list[InternalError] = []
    findings = analyze(module, source, path, options, original=original, crashes=own)[0]
    if own and crashes is None:
        raise own[0]
    if crashes is not None:
        crashes.extend(own)
    return findings


def fix_source(source: bytes, path: str, options: Options = Options()) -> FileResult:
    """Findings for one file and the source with every allowed fix applied."""
    current = source
    module = parse(current, path)
    first: list[Finding] | None = None
    fixed: list[Finding] = []
    failed: list[InternalError] = []
    blocked: set[tuple[str, str]] = set()
    for _ in range(MAX_PASSES):
        # A fix that produced invalid code once would do it again on every pass.
        crashed: list[InternalError] = []
        findings, chosen = analyze(module, current, path, options, blocked, original=source, crashes=crashed)
        failed += [c for c in crashed if all(c.message != f.message for f in failed)]
        if first is None:
            first = findings
        if not chosen:
            break
        applied, new_module, new_source, bad = _apply_checked(module, chosen, current)
        for group, reason in bad:
            blocked.update((f.rule, f.message) for f in group)
            failed.append(_internal_error(path, group, reason, source, current))
        if not applied:
            break
        # Reported at their lines in the file as it was (a later pass sees rewritten lines).
        fixed.extend(findings_in_original(applied, source, current))
        current, module = new_source, new_module
    return FileResult(
        source=current if current != source else source,
        changed=current != source,
        findings=first or [],
        fixed=fixed,
        internal_errors=failed,
    )


def _apply_checked(
    module: cst.Module, chosen: list[Finding], source: bytes
) -> tuple[list[Finding], cst.Module, bytes, list[tuple[list[Finding], str]]]:
    """Apply ``chosen`` and re-parse; fixes whose code does not parse are left out.

    Returns the fixes applied, the new module and its bytes, and each left-out group
    of fixes with the parser's reason. Only the failing case costs more than one pass:
    halving finds the culprits in a few extra applications.
    """
    attempt = _try_apply(module, chosen, source)
    if not isinstance(attempt, str):
        return chosen, attempt[0], attempt[1], []
    bad: list[tuple[list[Finding], str]] = []
    good = _without_culprits(module, chosen, source, attempt, bad)
    attempt = _try_apply(module, good, source) if good else attempt
    if good and isinstance(attempt, str):
        # Each fix parses alone but not together: keep the largest prefix that does.
        kept: list[Finding] = []
        for finding in good:
            trial = _try_apply(module, [*kept, finding], source)
            if isinstance(trial, str):
                bad.append(([finding], trial))
            else:
                kept.append(finding)
        good = kept
        attempt = _try_apply(module, good, source) if good else attempt
    if not good or isinstance(attempt, str):
        return [], module, source, bad
    return good, attempt[0], attempt[1], bad


def _without_culprits(
    module: cst.Module, fixes: list[Finding], source: bytes, reason: str,
    bad: list[tuple[list[Finding], str]],
) -> list[Finding]:
    """``fixes`` minus those that fail on their own (``reason``: why ``fixes`` failed together)."""
    if len(fixes) == 1:
        bad.append((fixes, reason))
        return []
    half = len(fixes) // 2
    good: list[Finding] = []
    for part in (fixes[:half], fixes[half:]):
        attempt = _try_apply(module, part, source)
        if isinstance(attempt, str):
            good.extend(_without_culprits(module, part, source, attempt, bad))
        else:
            good.extend(part)
    return good


def _try_apply(module: cst.Module, fixes: list[Finding], source: bytes) -> tuple[cst.Module, bytes] | str:
    """The fixed module and its bytes, or why the generated code does not parse."""
    try:
        code = apply_fixes(module, [f.edit for f in fixes if f.edit is not None], source).bytes
    except Exception as exc:  # a replacement LibCST cannot even build or print
        return f"{type(exc).__name__}: {exc}"
    try:
        return cst.parse_module(code), code
    except cst.ParserSyntaxError as exc:
        return str(exc.message).split("\n", 1)[0]
    except (SyntaxError, RecursionError) as exc:  # whatever else the parser may raise on our output
        return f"{type(exc).__name__}: {exc}"


def _internal_error(path: str, group: list[Finding], reason: str, original: bytes, current: bytes) -> InternalError:
    """The error for fixes left out, at the finding's line in the user's file."""
    line = group[0].line if current is original else _original_line(original, current, group[0].line)
    rules = sorted({f.rule for f in group})
    names = ", ".join(rules)
    return InternalError(
        path,
        f"rule{'s' * (len(rules) > 1)} {names} produced invalid code ({reason}); "
        "that fix was left out, the file's other fixes were applied",
        line,
        rules=tuple(rules),
    )


@lru_cache(maxsize=4)
def _line_ops(original: bytes, current: bytes) -> tuple[tuple[str, int, int, int, int], ...]:
    """The line diff of two versions of a file (one per pass, asked for by many findings)."""
    matcher = difflib.SequenceMatcher(None, original.splitlines(), current.splitlines(), autojunk=False)
    return tuple(matcher.get_opcodes())


def _line_map(original: bytes, current: bytes) -> Callable[[int], int | None]:
    """Lines of ``current`` → the same, unchanged lines of ``original`` (None inside changed code)."""
    mapping: dict[int, int] = {}
    for tag, i1, _i2, j1, j2 in _line_ops(original, current):
        if tag == "equal":
            for offset in range(j2 - j1):
                mapping[j1 + offset + 1] = i1 + offset + 1
    return mapping.get


def _span_map(original: bytes, current: bytes) -> Callable[[int, int, int, int], tuple[int, int, int, int] | None]:
    """A span on one line an earlier pass changed → the span of the same text on the original
    lines that change replaced, where the text occurs exactly once among those lines and once
    among the lines replacing them: a fix that wraps an expression keeps it (TRT709's `X *
    mask.squeeze(1)` → `_trt_complex_mul(X, mask.squeeze(1))` keeps the squeeze TRT401 asks the
    facts about). Columns 1-based, the end exclusive, as :meth:`FileFacts.span` takes them."""
    old_lines = original.decode("utf-8", "replace").splitlines()
    new_lines = current.decode("utf-8", "replace").splitlines()
    blocks = [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in _line_ops(original, current) if tag == "replace"]

    def hits(lines: list[str], first: int, last: int, text: str) -> list[tuple[int, int]]:
        found = []
        for index in range(first, last):
            at = lines[index].find(text)
            while at >= 0:
                found.append((index, at))
                at = lines[index].find(text, at + 1)
        return found

    def moved(line: int, column: int, end_line: int, end_column: int) -> tuple[int, int, int, int] | None:
        if line != end_line or column < 1 or end_column <= column:
            return None
        for i1, i2, j1, j2 in blocks:
            if j1 <= line - 1 < j2:
                text = new_lines[line - 1][column - 1:end_column - 1]
                if not text.strip() or len(hits(new_lines, j1, j2, text)) != 1:
                    return None
                old = hits(old_lines, i1, i2, text)
                if len(old) != 1:
                    return None
                index, at = old[0]
                return index + 1, at + 1, index + 1, at + 1 + len(text)
        return None

    return moved


def _original_line(original: bytes, current: bytes, line: int) -> int:
    """Line ``line`` of the rewritten ``current`` mapped back to ``original`` (1-based)."""
    for tag, i1, i2, j1, j2 in _line_ops(original, current):
        if j1 <= line - 1 < j2 or (j1 == j2 == line - 1):
            return i1 + (line - 1 - j1) + 1 if tag == "equal" else min(i1, max(i2 - 1, i1)) + 1
    return line


def findings_in_original(findings: list[Finding], original: bytes, current: bytes) -> list[Finding]:
    """Findings of the rewritten ``current``, their lines moved to where they stand in ``original``
    (what a user sees on disk after ``apply --dry-run`` or ``--check``, which write nothing)."""
    if original == current:
        return findings
    return [
        dataclasses.replace(
            finding,
            line=_original_line(original, current, finding.line),
            end_line=_original_line(original, current, finding.end_line),
        )
        for finding in findings
    ]


# --- analysis ----------------------------------------------------------------


def _crashed_rule(exc: BaseException, rules: Sequence[Any]) -> Any | None:
    """The rule whose hook raised ``exc`` (the innermost rule frame of its traceback), if any."""
    ids = {id(rule) for rule in rules}
    culprit = None
    tb = exc.__traceback__
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        if id(owner) in ids:
            culprit = owner
        tb = tb.tb_next
    return culprit


def analyze(
    module: cst.Module, source: bytes, path: str, options: Options, blocked: Collection[tuple[str, str]] = (),
    original: bytes | None = None, crashes: list[InternalError] | None = None,
    excluded: frozenset[str] = frozenset(),
) -> tuple[list[Finding], list[Finding]]:
    """All findings of one pass, and those whose fixes to apply now (non-overlapping).

    Fixes of findings whose (rule, message) is in ``blocked`` are never applied.
    ``original``: the file before earlier passes changed it into ``source`` (for facts).
    A rule that raises is left out of the pass and named in ``crashes`` (a bug of ours must
    cost that rule's findings in that file, never the file's other findings or a batch);
    without ``crashes`` its error propagates. ``excluded``: rule IDs already left out.
    """
    target = parse_target(options.target)
    model_only = options.scope == "model"
    if model_only and path_reason(options.scope_path or path) is not None:
        return [], []
    facts = None
    if options.facts is not None:
        moved = original is not None and original != source
        facts = options.facts.for_file(path, _line_map(original, source) if moved else None,
                                       source=original if original is not None else source,
                                       span_map=_span_map(original, source) if moved else None)
    context = FileContext(path=path, module=module, target=target, unsafe=options.unsafe, facts=facts,
                          source=source)
    context.imports.add_imports_from(module.body)
    stars = star_bindings(path, source)
    context.imports.add_star_bindings(stars)
    # A name a star import binds never shows in this file's text (pytorch-YOLOv4's `tool/yolo_layer.py` gets `np`
    # from `from tool.torch_utils import *`): a rule that waits for `numpy` in the text looks at what it binds too.
    text = source + b"\n" + " ".join(sorted({q for _, q, _ in stars} | {m for _, _, m in stars})).encode() \
        if stars else source
    if facts is not None and facts.built_classes():
        # Nor does a class a factory named at run time (`getattr(nn, name)(k)`), which the run saw a call build.
        text = text + b"\n" + " ".join(facts.built_classes()).encode()
    rules = [cls(context) for cls in select_rules(options.select, options.ignore)
             if cls.info.applies_to(target) and cls.may_find(text) and cls.info.id not in excluded]
    if not rules:
        return [], []
    try:
        observed = _observed_definitions(facts, original if original is not None else source) if model_only else ()
        _Batch([ScopeTracker(context), *context.companions, *rules], model_only=model_only,
               observed=observed).run(module)
    except Exception as exc:
        culprit = _crashed_rule(exc, rules) if crashes is not None else None
        if culprit is None:
            raise
        rule = culprit.info.id
        detail = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        crashes.append(InternalError(path, f"rule {rule} failed on this file ({detail}); its findings here "
                                           "were left out, the other rules' kept", rules=(rule,)))
        return analyze(module, source, path, options, blocked, original, crashes, excluded | {rule})
    finally:
        context.release()
    if model_only and context.findings:
        # The context's shared analyses are released: the engine is this provider's only user.
        context.findings = ModelCode(context).without_build_time(context.findings)
    if not context.findings:
        return [], []
    _keep_debug_fstrings(module, source, context.findings)
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
        if is_suppressed(finding, lines):
            continue
        proved = False
        if facts is not None and finding.edit is not None and finding.edit.safety is Safety.UNSAFE:
            proof = prove_in_file(facts, rule_by_id(finding.rule), finding.line, finding.column, finding.end_line,
                                  finding.end_column, finding.edit)
            if proof:
                # The observation covers the fix's assumption: applied without --unsafe, and says why.
                finding = replace(finding, message=f"{finding.message} (assumption proved by facts: {proof})")
                proved = True
        findings.append(finding)
        if finding.edit is not None and (finding.rule, finding.message) not in blocked and (
                _permitted(finding, options, original, source) if options.allow is not None
                else proved or _allowed(finding.edit.safety, options)):
            ranges = [positions[node] for node in finding.edit.replacements if node in positions]
            fixable.append((finding, ranges))
    findings.sort(key=lambda f: (f.line, f.column, f.rule))
    return findings, _non_overlapping(fixable)


def traverse(source: bytes, path: str, make: Callable[[FileContext], cst.BatchableCSTVisitor]) -> Any:
    """One read-only traversal of ``source`` by the visitor ``make`` builds on the file's context, as
    a pass of the rules runs it (scopes, imports, the providers it asks for): an analysis outside a
    pass (``migrate`` asking the shared evidence about a line) sees what the rules see. Returns the visitor."""
    module = parse(source, path)
    context = FileContext(path=path, module=module, target=parse_target(DEFAULT_TARGET), unsafe=False, source=source)
    context.imports.add_imports_from(module.body)
    context.imports.add_star_bindings(star_bindings(path, source))
    visitor = make(context)
    try:
        _Batch([ScopeTracker(context), *context.companions, visitor]).run(module)
    finally:
        context.release()
    return visitor


def _permitted(finding: Finding, options: Options, original: bytes | None, source: bytes) -> bool:
    """``options.allow``, then ``options.follow_up`` for a finding in code an earlier pass wrote."""
    if options.allow is None or options.allow(finding):
        return True
    if original is None or original == source:
        return False
    unchanged = _line_map(original, source)(finding.line)
    if unchanged is not None:
        # An unchanged line of the original: the plan decided it in the first pass, at that line of
        # the original (a fix that overlapped another waits a pass, and a fix above it may have
        # changed the line count: kornia's CLAHE, TRT311 on an unfold chain after TRT717 above it).
        return unchanged != finding.line and options.allow(dataclasses.replace(
            finding, line=unchanged, end_line=_original_line(original, source, finding.end_line)))
    # A changed line where the finding's own text stands once, as it stood once on the lines that
    # change replaced (a fix wrapped the expression): the plan decided it there, in the first pass.
    moved = _span_map(original, source)(finding.line, finding.column, finding.end_line, finding.end_column)
    if moved is not None and options.allow(dataclasses.replace(
            finding, line=moved[0], column=moved[1], end_line=moved[2], end_column=moved[3])):
        return True
    if options.follow_up is None:
        return False
    return options.follow_up(findings_in_original([finding], original, source)[0])


def _keep_debug_fstrings(module: cst.Module, source: bytes, pending: list[PendingFinding]) -> None:
    """No fix inside a self-documenting f-string expression (``f"{len(x)=}"``).

    Python prints such an expression's source text before its value, so any rewrite there
    changes the program's output; the finding stays, without its fix.
    """
    if not _DEBUG_FIELD_RE.search(source):
        return  # every `{expr=}`, `{expr = !r}`, `{expr=:.2f}` spells this
    quoted: set[int] = set()
    for node in walk(module):
        if type(node) is cst.FormattedStringExpression and node.equal is not None:
            quoted.update(id(inner) for inner in walk(node.expression))
    if not quoted:
        return
    for finding in pending:
        if finding.edit is not None and (id(finding.node) in quoted
                                         or any(id(n) in quoted for n in finding.edit.replacements)):
            finding.edit = None
            finding.message = (f"{finding.message} (not rewritten: it stands inside a self-documenting f-string, "
                               "`{expr=}`, which prints the expression's own text)")


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


def _observed_definitions(facts: Any, observed_source: bytes) -> frozenset[str]:
    """Names of the functions in which the recorded run saw the model do something (``--facts``):
    whatever their name suggests (`make_grid` is also torchvision's image-grid helper), the
    model ran them, so they are model code."""
    if facts is None:
        return frozenset()
    lines = facts.forward_lines()
    if not lines:
        return frozenset()
    try:
        tree = ast.parse(observed_source)
    except (SyntaxError, ValueError):
        return frozenset()
    return frozenset(node.name for node in ast.walk(tree)
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and any(node.lineno <= line <= (node.end_lineno or node.lineno) for line in lines))


class _Batch:
    """Runs several batchable visitors in one read-only traversal, in list order.

    LibCST's own ``visit`` rebuilds every node on the way back up, even for a
    read-only visitor; walking the dataclass fields directly costs a fraction of that.
    """

    def __init__(self, visitors: Sequence[cst.BatchableCSTVisitor], model_only: bool = False,
                 observed: Collection[str] = ()) -> None:
        self._model_only = model_only
        self._observed = observed  # functions the recorded run saw the model execute: model code
        # Keyed by node class: the hot loop asks `type(node)`, never its name.
        self._visit: dict[type, list] = {}
        self._leave: dict[type, list] = {}
        for visitor in visitors:
            for name in _hook_names(type(visitor)):
                kind = getattr(cst, name.split("_", 1)[1], None)
                if kind is None:
                    continue
                table = self._visit if name.startswith("visit_") else self._leave
                table.setdefault(kind, []).append(getattr(visitor, name))
        for methods in self._leave.values():
            methods.reverse()  # leave in reverse order, so the tracker pops last

    def run(self, module: cst.Module) -> None:
        visit, leave, model_only = self._visit, self._leave, self._model_only
        # Our own inserted helpers are TensorRT-safe by construction; a user's function
        # that merely has a helper's name is analysed like any other.
        ours = {id(stmt) for stmt in module.body if is_reserved(stmt) and inserted_helper(stmt) is not None}
        # An explicit stack (deeply nested expressions must not hit the recursion limit) of
        # nodes to enter, and of `_Leaving` marks for the nodes some visitor leaves.
        stack: list = [module]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is _Leaving:
                for method in leave[type(node.node)]:
                    method(node.node)
                continue
            if (kind is cst.FunctionDef or kind is cst.ClassDef) and (
                    id(node) in ours or model_only and not definition_is_model_code(node)
                    and not (kind is cst.FunctionDef and node.name.value in self._observed)):
                continue
            methods = visit.get(kind)
            if methods is not None:
                for method in methods:
                    method(node)
            if kind in leave:
                stack.append(_Leaving(node))
            below = children(node)
            if model_only and (kind is cst.If or kind is cst.IndentedBlock):
                skipped = skipped_in(node)
                if skipped:
                    below = [child for child in below if not any(child is s for s in skipped)]
            below.reverse()
            stack.extend(below)


class _Leaving:
    """A node whose ``leave_*`` hooks are due once everything below it has been visited."""

    __slots__ = ("node",)

    def __init__(self, node: cst.CSTNode) -> None:
        self.node = node


def _finalize(
    pending: PendingFinding, positions: dict, path: str, options: Options
) -> Finding:
    where = positions.get(pending.node)
    start = (where.start.line, where.start.column + 1) if where else (1, 1)
    end = (where.end.line, where.end.column + 1) if where else start
    edit = pending.edit
    if where and edit is not None and edit.covers:
        covered = [positions[node] for node in edit.replacements if node in positions]
        start = min([start, *((r.start.line, r.start.column + 1) for r in covered)])
        end = max([end, *((r.end.line, r.end.column + 1) for r in covered)])
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


def _non_overlapping(fixable: list[tuple[Finding, list[CodeRange]]]) -> list[Finding]:
    """Greedy by position: a fix overlapping an earlier chosen one waits for the next pass.

    O(n log n) in the number of ranges: the chosen ranges are kept as sorted, pairwise
    disjoint intervals, so one binary search answers whether a new range overlaps any.
    """
    chosen: list[Finding] = []
    taken: list[_Span] = []  # the chosen ranges, sorted, pairwise disjoint
    for finding, ranges in sorted(fixable, key=lambda item: _range_key(item[1])):
        spans = [((r.start.line, r.start.column), (r.end.line, r.end.column)) for r in ranges]
        if any(_overlaps_taken(span, taken) for span in spans):
            continue
        chosen.append(finding)
        for span in _merged(spans):
            bisect.insort(taken, span)
    return chosen


_Span = tuple[tuple[int, int], tuple[int, int]]


def _overlaps_taken(span: _Span, taken: list[_Span]) -> bool:
    """Whether ``span`` overlaps one of the disjoint sorted intervals ``taken``: only the last
    one starting before ``span`` ends can (each one before it ends where the next starts, or
    earlier). Same test as :func:`_overlap`."""
    start, end = span
    index = bisect.bisect_left(taken, (end,)) - 1
    return index >= 0 and start < taken[index][1] and taken[index][0] < end


def _merged(spans: list[_Span]) -> list[_Span]:
    """One fix's own ranges, overlapping ones joined (they may nest)."""
    out: list[list[tuple[int, int]]] = []
    for start, end in sorted(spans):
        if out and start < out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(start, end) for start, end in out]


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
    cst.If, cst.While,  # a test needs no parentheses of its own (a multi-line one gets them below)
)
_ATOMIC = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.Imaginary,
    cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Dict, cst.Set,
    cst.ListComp, cst.SetComp, cst.DictComp, cst.Ellipsis,
)
#: Ancestors whose brackets enclose their children, so a line break inside is legal there.
_BRACKETED_PARENTS = (
    cst.Arg, cst.SubscriptElement, cst.List, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp,
)


class _Replacer(cst.CSTTransformer):
    """Swaps nodes by identity, keeping the syntax each replacement needs where it lands.

    - The replaced expression's own parentheses (and the whitespace inside them) go to
      the replacement: a chain spread over lines may be legal only inside them.
    - A compound expression dropped into a tighter context gets parentheses.
    - A replacement spanning lines outside any brackets gets parentheses.
    """

    def __init__(self, replacements: dict[cst.CSTNode, object]) -> None:
        super().__init__()
        self.replacements = replacements
        self._parents: list[cst.CSTNode] = []
        #: Module-level statements holding a replaced node (original nodes).
        self.touched: set[int] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._parents.append(node)
        return True

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        self._parents.pop()
        replacement = self.replacements.get(original_node)
        if replacement is None:
            return updated_node
        self.touched.add(id(self._parents[1] if len(self._parents) > 1 else original_node))
        if not isinstance(replacement, cst.BaseExpression) or type(replacement) is cst.StarredElement:
            return replacement
        parent = self._parents[-1] if self._parents else None
        own = getattr(original_node, "lpar", ())
        if replacement.lpar:
            pass  # the rule wrapped it (or kept the original's parentheses) itself
        elif own:
            replacement = replacement.with_changes(lpar=own, rpar=original_node.rpar)
        elif (
            (
                not isinstance(replacement, _ATOMIC)
                and parent is not None
                and not isinstance(parent, _LOOSE_PARENTS)
            )
            or (not self._bracketed() and _spans_lines(replacement))
        ):
            replacement = replacement.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return replacement

    def _bracketed(self) -> bool:
        return any(
            isinstance(node, _BRACKETED_PARENTS) or (isinstance(node, cst.BaseExpression) and node.lpar)
            for node in reversed(self._parents)
        )


def _spans_lines(expression: cst.BaseExpression) -> bool:
    """Whether the expression's code breaks lines outside its own brackets (illegal on its own)."""
    code = _EMPTY_MODULE.code_for_node(expression)
    if "\n" not in code and "\r" not in code:
        return False
    try:
        ast.parse(code, mode="eval")
    except SyntaxError:
        return True
    return False


_EMPTY_MODULE = cst.Module(body=[])


def apply_fixes(module: cst.Module, fixes: Iterable[Fix], source: bytes = b"") -> cst.Module:
    """``module`` with ``fixes`` applied and the helpers and imports they need inserted.

    ``source`` is the module's text; it only lets a file with no helper name in it
    skip the search for names it already uses.
    """
    replacements: dict[cst.CSTNode, object] = {}
    helpers: list[str] = []
    for fix in fixes:
        replacements.update(fix.replacements)
        helpers.extend(h for h in fix.helpers if h not in helpers)
    plan = plan_helpers(module, helpers, source) if helpers else None
    if plan is not None and plan.renames:
        renamer = Rename(plan.renames, plan.keep)
        replacements = {node: renamed(value, renamer) for node, value in replacements.items()}
    replacer = _Replacer(replacements)
    new_module = module.visit(replacer)
    needs_torch = bool(helpers) or any(_uses_name(node, "torch") for node in replacements.values())
    if plan is None and not needs_torch:
        return new_module
    limit = next((i for i, stmt in enumerate(module.body) if id(stmt) in replacer.touched), len(module.body))
    return insert_support(module, new_module, plan, needs_torch, limit)


def _uses_name(node: object, name: str) -> bool:
    if isinstance(node, cst.FlattenSentinel):
        return any(_uses_name(n, name) for n in node.nodes)
    if not isinstance(node, cst.CSTNode):
        return False
    if type(node) is cst.Name and node.value == name:
        return True
    return any(_uses_name(child, name) for child in node.children)
