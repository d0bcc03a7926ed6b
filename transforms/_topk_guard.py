"""A pre-NMS selection behind a size guard (TRT803): ``if 0 < cap < x.shape[d]:`` whose block
takes the top ``cap`` entries, with ``topk(cap)`` or with a sort read through ``[:cap]``.

mmdet-family heads write it as ``0 < nms_pre < scores.shape[0]``, ``nms_pre > 0 and
scores.shape[0] > nms_pre`` or ``scores.shape[0] > nms_pre > 0``. This module reads the
syntax only: which comparison of the test is the size one, what the block selects with, and
the rewritten test. The rule decides whether to report and builds the calls.

This module defines no rule and is not registered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import libcst as cst

from trtcodemod.astutil import argument, bound_names, code_of, has_star_args, int_value, short_code, walk

#: Statements a guarded block may hold: assignments (selections and gathers) and nested ``if``s of them.
_PLAIN = (cst.Assign, cst.AnnAssign, cst.Pass)
#: A selection call read by the rule: (its input, its K argument for a top-k, the method form).
Selection = tuple[cst.BaseExpression, "cst.Arg | None", bool]
_NESTED = (cst.FunctionDef, cst.Lambda, cst.ClassDef)

TOPK_HELPER = "_trt_topk_guarded"
SORT_HELPER = "_trt_sort_guarded"
GUARD_HELPER = "_trt_topk_guard"


@dataclass(frozen=True)
class SizeComparison:
    """``cap < size`` inside a guard's test: the leaf comparison and which of its pairs."""

    leaf: cst.Comparison
    pair: int
    cap: cst.BaseExpression
    size: cst.BaseExpression


def size_comparisons(test: cst.BaseExpression, is_size: Callable[[cst.BaseExpression], bool],
                     is_cap: Callable[[cst.BaseExpression], bool]) -> list[SizeComparison]:
    """Each ``cap < size`` / ``size > cap`` pair of an ``and`` of comparisons (chains included).

    Another form of test (``or``, ``not``, a call) gives nothing: forcing one of its parts
    would change what the rest means.
    """
    if type(test) is cst.BooleanOperation:
        if type(test.operator) is not cst.And:
            return []
        left, right = size_comparisons(test.left, is_size, is_cap), size_comparisons(test.right, is_size, is_cap)
        return left + right
    if type(test) is not cst.Comparison:
        return []
    found: list[SizeComparison] = []
    left = test.left
    for index, target in enumerate(test.comparisons):
        right = target.comparator
        if type(target.operator) is cst.LessThan and is_cap(left) and is_size(right):
            found.append(SizeComparison(test, index, left, right))
        elif type(target.operator) is cst.GreaterThan and is_size(left) and is_cap(right):
            found.append(SizeComparison(test, index, right, left))
        left = right
    return found


def guarded_test(found: SizeComparison, call: cst.BaseExpression) -> cst.BaseExpression:
    """The leaf comparison with its size pair replaced by ``call``, the other pairs kept (``and``)."""
    parts: list[cst.BaseExpression] = []
    left = found.leaf.left
    for index, target in enumerate(found.leaf.comparisons):
        if index == found.pair:
            parts.append(call)
        else:
            parts.append(cst.Comparison(left=left, comparisons=[target]))
        left = target.comparator
    joined = parts[0]
    for part in parts[1:]:
        joined = cst.BooleanOperation(left=joined, operator=cst.And(), right=part)
    return joined.with_changes(lpar=found.leaf.lpar, rpar=found.leaf.rpar) if found.leaf.lpar else joined


def plain_block(node: cst.If) -> bool:
    """The block only assigns (nested ``if``/``else`` of assignments too): running it with the
    identity selection leaves every value as skipping it does, as long as what it assigns is
    a selection of rows."""

    def statements_ok(body: cst.BaseSuite) -> bool:
        for statement in body.body:
            if type(statement) is cst.SimpleStatementLine:
                if not all(type(small) in _PLAIN for small in statement.body):
                    return False
            elif type(statement) is cst.If:
                if not statements_ok(statement.body):
                    return False
                other = statement.orelse
                while type(other) is cst.If:
                    if not statements_ok(other.body):
                        return False
                    other = other.orelse
                if other is not None and not statements_ok(other.body):
                    return False
            elif type(statement) in _PLAIN:  # a one-line suite's small statement
                continue
            else:
                return False
        return True

    return node.orelse is None and statements_ok(node.body)


def stores(node: cst.CSTNode, code: str) -> bool:
    """Whether ``node`` assigns to the expression spelled ``code`` (``nms_pre = ...``, ``self.k += 1``)."""
    for inner in walk(node):
        targets: list[cst.BaseExpression] = []
        if type(inner) is cst.Assign:
            targets = [t.target for t in inner.targets]
        elif type(inner) in (cst.AugAssign, cst.AnnAssign):
            targets = [inner.target]  # type: ignore[attr-defined]
        elif type(inner) in (cst.For, cst.CompFor):
            targets = [inner.target]  # type: ignore[attr-defined]
        elif type(inner) is cst.NamedExpr:
            targets = [inner.target]
        for target in targets:
            if any(code_of(part) == code for part in walk(target)):
                return True
    return False


def calls_in(block: cst.CSTNode) -> list[cst.Call]:
    """The calls of a block, outside nested functions, lambdas and classes."""
    out: list[cst.Call] = []

    def visit(node: cst.CSTNode) -> None:
        if type(node) in _NESTED:
            return
        if type(node) is cst.Call:
            out.append(node)
        for child in node.children:
            visit(child)

    visit(block)
    return out


def sort_read_through_cap(function: cst.CSTNode, block: cst.If, call: cst.Call, cap: str) -> bool:
    """The sort's results are bound to two names by the block (``ranked, order = x.sort(...)``)
    and every read of those names in ``function`` is ``name[:cap]``: only the first ``cap``
    entries of the sort matter."""
    assignment = next((s for s in walk(block) if type(s) is cst.Assign and s.value is call), None)
    if assignment is None or len(assignment.targets) != 1 or type(assignment.targets[0].target) is not cst.Tuple:
        return False
    names = bound_names(assignment.targets[0].target)
    if len(names) != 2 or len(assignment.targets[0].target.elements) != 2:  # type: ignore[attr-defined]
        return False
    mentions = sum(1 for n in walk(function) if type(n) is cst.Name and n.value in names)
    cut = sum(1 for n in walk(function) if type(n) is cst.Subscript and type(n.value) is cst.Name
              and n.value.value in names and _first(n, cap))
    stored = sum(1 for n in walk(function) for t in _targets(n) for part in walk(t)
                 if type(part) is cst.Name and part.value in names)
    return mentions == cut + stored and stored == 2


def _first(node: cst.Subscript, cap: str) -> bool:
    """``name[:cap]``."""
    if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Slice:
        return False
    part = node.slice[0].slice
    return part.lower is None and part.step is None and part.upper is not None and code_of(part.upper) == cap


def _targets(node: cst.CSTNode) -> list[cst.BaseExpression]:
    if type(node) is cst.Assign:
        return [t.target for t in node.targets]
    if type(node) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor):
        return [node.target]  # type: ignore[attr-defined]
    return []


def sort_arguments(call: cst.Call, method: bool) -> tuple[cst.BaseExpression | None, bool] | None:
    """(dim, descending) of ``x.sort(dim, descending)`` / ``torch.sort(x, dim, descending)`` when
    ``descending`` is ``True`` written out and nothing else is passed (``stable=`` changes ties)."""
    if has_star_args(call):
        return None
    offset = 0 if method else 1
    known = {"dim", "descending"} | ({"input"} if not method else set())
    if any(arg.keyword is not None and arg.keyword.value not in known for arg in call.args):
        return None
    if len(call.args) > 2 + offset:
        return None
    dim = argument(call, offset, "dim")
    descending = argument(call, offset + 1, "descending")
    if descending is None or not (type(descending.value) is cst.Name and descending.value.value == "True"):
        return None
    if dim is not None and int_value(dim.value) is None:
        return None
    return (dim.value if dim is not None else None), True


@dataclass(frozen=True)
class Guard:
    """A size guard around one selection of ``cap`` entries, and why it has no fix (or None)."""

    node: cst.If
    comparison: SizeComparison
    selection: cst.Call
    source: cst.BaseExpression
    method: bool
    sort: bool
    why_not: str | None

    def message(self) -> str:
        what = "a sort read through `[:%s]`" % short_code(self.comparison.cap, 16) if self.sort else \
            "a top-k of `%s`" % short_code(self.comparison.cap, 16)
        return (f"size guard `{short_code(self.comparison.leaf, 40)}` around {what}: the TorchScript export keeps "
                "the branch the example took (for larger inputs every entry, or for smaller ones a TopK of more "
                "entries than there are), and a cap of 3840 or more is a TopK past TensorRT's limit")


def read_guard(node: cst.If, function: cst.CSTNode | None, is_size: Callable[[cst.BaseExpression], bool],
               is_cap: Callable[[cst.BaseExpression], bool],
               topk_call: Callable[[cst.Call], Selection | None],
               sort_call: Callable[[cst.Call], Selection | None]) -> Guard | None:
    """The guard ``node`` is, if any: a ``cap < size`` comparison in its test and exactly one
    selection of ``cap`` entries in its block. ``topk_call`` reads a top-k call as (input, K
    argument, method form), ``sort_call`` a sort call as (input, None, method form)."""
    for comparison in size_comparisons(node.test, is_size, is_cap):
        cap = code_of(comparison.cap)
        chosen: list[tuple[cst.Call, Selection, bool]] = []
        for call in calls_in(node.body):
            topk = topk_call(call)
            if topk is not None:
                chosen.append((call, topk, False))
                if topk[1] is None or code_of(topk[1].value) != cap:
                    return None  # another top-k in the block: not a plain pre-selection
                continue
            sort = sort_call(call)
            if sort is not None:
                chosen.append((call, sort, True))
        if len(chosen) != 1:
            continue
        call, (source, _, method), sort = chosen[0]
        why_not = _why_not(node, function, comparison, call, method, sort)
        return Guard(node, comparison, call, source, method, sort, why_not)
    return None


def _why_not(node: cst.If, function: cst.CSTNode | None, comparison: SizeComparison, call: cst.Call, method: bool,
             sort: bool) -> str | None:
    cap = code_of(comparison.cap)
    if node.orelse is not None:
        return "the guard has an `else`"
    if not plain_block(node):
        return "the block does more than assign (a call statement, a loop, a return...)"
    if stores(node.body, cap):
        return "the block assigns the cap"
    if sort:
        if sort_arguments(call, method) is None:
            return "only a `sort(descending=True)` (with an optional literal `dim`) is taken"
        if function is None or not sort_read_through_cap(function, node, call, cap):
            return f"the sort's results are read otherwise than through `[:{short_code(comparison.cap, 16)}]`"
        return None
    offset = 0 if method else 1
    dim, largest = argument(call, 1 + offset, "dim"), argument(call, 2 + offset, "largest")
    if largest is not None and not (type(largest.value) is cst.Name and largest.value.value == "True"):
        return "only `largest=True` has a -inf padding"
    if dim is not None and int_value(dim.value) is None:
        return "the top-k axis is not a number"
    return None


def guard_fix(guard: Guard) -> dict[cst.CSTNode, cst.CSTNode]:
    """Replacements: the size comparison → ``_trt_topk_guard(cap, size)``; the selection → the
    guarded helper with the same input, the cap as K, and the call's other arguments."""
    comparison = guard.comparison
    test_call = cst.Call(func=cst.Name(GUARD_HELPER), args=[
        cst.Arg(value=comparison.cap, comma=_COMMA), cst.Arg(value=comparison.size)])
    return {comparison.leaf: guarded_test(comparison, test_call),
            guard.selection: selection_call(guard.selection, guard.source, guard.method, guard.sort, comparison.cap)}


def selection_call(call: cst.Call, source: cst.BaseExpression, method: bool, sort: bool,
                   cap: cst.BaseExpression) -> cst.Call:
    """The selection as the guarded helper: the same input, the cap as K, the call's other arguments."""
    offset = 0 if method else 1
    if sort:
        names = ("dim", "descending")
        helper = SORT_HELPER
    else:
        names = ("k", "dim", "largest", "sorted")
        helper = TOPK_HELPER
    args = [cst.Arg(value=source, comma=_COMMA), cst.Arg(value=cap)]
    for position, keyword in enumerate(names):
        if keyword == "k":
            continue
        given = argument(call, position + offset, keyword)
        if given is not None:
            args[-1] = args[-1].with_changes(comma=_COMMA)
            args.append(cst.Arg(value=given.value, keyword=cst.Name(keyword), equal=_EQUAL))
    return cst.Call(func=cst.Name(helper), args=args, lpar=call.lpar, rpar=call.rpar)


_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


# --- the early-return form: ``if k >= len(x): return x, s`` before ``s, i = topk(s, k, dim=0)`` ---------------
@dataclass(frozen=True)
class EarlyReturn:
    """``if cap >= size: return a, b`` directly before ``v, i = topk(b, cap, dim=d)`` and a ``return``
    of ``a[i]`` / ``v`` in the early return's order (SuperPoint's ``top_k_keypoints``)."""

    node: cst.If
    cap: cst.BaseExpression
    size: cst.BaseExpression
    selection: cst.Call
    source: cst.BaseExpression
    method: bool

    def message(self) -> str:
        return (f"early return `if {short_code(self.node.test, 40)}: return ...` before a top-k of "
                f"`{short_code(self.cap, 16)}`: the TorchScript export keeps the branch the example took (every "
                "entry for larger inputs, or a TopK of more entries than there are for smaller ones)")


def _sized_name(node: cst.BaseExpression,
                size_of: Callable[[cst.BaseExpression], "tuple[cst.BaseExpression, int] | None"]
                ) -> tuple[str, int] | None:
    """``len(x)`` → (x, 0); ``x.shape[d]`` / ``x.size(d)`` → (x, d), for a plain name ``x``."""
    if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "len" and len(node.args) == 1 \
            and node.args[0].keyword is None and node.args[0].star == "" and type(node.args[0].value) is cst.Name:
        return node.args[0].value.value, 0
    found = size_of(node)
    if found is None or type(found[0]) is not cst.Name:
        return None
    return found[0].value, found[1]  # type: ignore[union-attr]


def _names(node: cst.BaseExpression) -> list[str] | None:
    """``a, b`` / ``(a, b)`` / ``a`` → the names, else None."""
    if type(node) is cst.Name:
        return [node.value]
    if type(node) is cst.Tuple and all(type(e) is cst.Element and type(e.value) is cst.Name for e in node.elements):
        return [e.value.value for e in node.elements]  # type: ignore[attr-defined]
    return None


def _return_value(statement: cst.BaseStatement) -> cst.BaseExpression | None:
    if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 \
            and type(statement.body[0]) is cst.Return:
        return statement.body[0].value
    return None


#: Decorators under which a traced export compiles the function with TorchScript (LightGlue-ONNX's SuperPoint:
#: ``@torch.jit.script_if_tracing`` on ``select_top_k_keypoints``), so its branches are kept, not traced.
_SCRIPTING_DECORATORS = {"torch.jit.script", "torch.jit.script_if_tracing", "jit.script", "jit.script_if_tracing",
                         "script", "script_if_tracing"}


def _compiled_by_torchscript(function: cst.FunctionDef) -> bool:
    for decorator in function.decorators:
        target = decorator.decorator.func if type(decorator.decorator) is cst.Call else decorator.decorator
        if code_of(target) in _SCRIPTING_DECORATORS:
            return True
    return False


def read_early_return(node: cst.If, function: cst.CSTNode | None,
                      size_of: Callable[[cst.BaseExpression], "tuple[cst.BaseExpression, int] | None"],
                      is_cap: Callable[[cst.BaseExpression], bool],
                      topk_call: Callable[[cst.Call], Selection | None]) -> EarlyReturn | None:
    """The early-return guard ``node`` is, if any. Taken only where running the two statements
    after it with the identity selection (every entry, in order) returns what the early return
    does: the test is ``cap >= size`` (or ``size <= cap``) on one of the returned names, the ``if``
    returns names unchanged, the next statement is ``v, i = topk(s, cap, dim=d)`` (``s`` returned,
    ``d`` the size's axis, ``largest`` left as True) and the last one returns, in the same order,
    ``v`` where the early return has ``s`` and ``x[i]`` where it has ``x``."""
    if type(function) is not cst.FunctionDef or type(function.body) is not cst.IndentedBlock:
        return None
    if _compiled_by_torchscript(function):
        return None  # the TorchScript exporter keeps its `if` as an ONNX If: both outcomes are already in the graph
    body = list(function.body.body)
    if not any(statement is node for statement in body):
        return None
    at = next(index for index, statement in enumerate(body) if statement is node)
    if len(body) != at + 3 or node.orelse is not None or type(node.test) is not cst.Comparison:
        return None
    test = node.test
    if len(test.comparisons) != 1:
        return None
    operator = type(test.comparisons[0].operator)
    if operator is cst.GreaterThanEqual:
        cap, size = test.left, test.comparisons[0].comparator
    elif operator is cst.LessThanEqual:
        size, cap = test.left, test.comparisons[0].comparator
    else:
        return None
    sized = _sized_name(size, size_of)
    if sized is None or not is_cap(cap) or type(node.body) is not cst.IndentedBlock or len(node.body.body) != 1:
        return None
    early = _return_value(node.body.body[0])
    early_names = _names(early) if early is not None else None
    if not early_names or len(set(early_names)) != len(early_names) or sized[0] not in early_names:
        return None
    select, last = body[at + 1], body[at + 2]
    if type(select) is not cst.SimpleStatementLine or len(select.body) != 1 or type(select.body[0]) is not cst.Assign:
        return None
    assign = select.body[0]
    if len(assign.targets) != 1 or type(assign.value) is not cst.Call:
        return None
    bound = _names(assign.targets[0].target)
    found = topk_call(assign.value)
    if bound is None or len(bound) != 2 or found is None or found[1] is None:
        return None
    source, k_arg, method = found
    values, indices = bound
    if type(source) is not cst.Name or source.value not in early_names or code_of(k_arg.value) != code_of(cap):
        return None
    if indices in early_names or values == indices or (values in early_names and values != source.value):
        return None
    final = _return_value(last)
    if final is None:
        return None
    elements = [final] if len(early_names) == 1 else (
        [e.value for e in final.elements] if type(final) is cst.Tuple else [])
    if len(elements) != len(early_names):
        return None
    for name, element in zip(early_names, elements):
        if name == source.value and type(element) is cst.Name and element.value == values:
            continue
        if (type(element) is cst.Subscript and type(element.value) is cst.Name and element.value.value == name
                and len(element.slice) == 1 and type(element.slice[0].slice) is cst.Index
                and type(element.slice[0].slice.value) is cst.Name and element.slice[0].slice.value.value == indices):
            continue
        return None
    offset = 0 if method else 1
    call = assign.value
    dim, largest = argument(call, 1 + offset, "dim"), argument(call, 2 + offset, "largest")
    if dim is None or int_value(dim.value) != sized[1] or sized[1] < 0:
        return None  # the top-k must run along the guarded axis (torch's default -1 is not it)
    if largest is not None and not (type(largest.value) is cst.Name and largest.value.value == "True"):
        return None
    if stores(function, code_of(cap)):
        return None  # the cap must be the same value at the test and at the top-k
    return EarlyReturn(node, cap, size, call, source, method)


def early_return_fix(found: EarlyReturn) -> dict[cst.CSTNode, cst.CSTNode]:
    """``if cap >= size:`` → ``if not _trt_topk_guard(cap, size):``; the top-k → ``_trt_topk_guarded``."""
    test_call = cst.Call(func=cst.Name(GUARD_HELPER), args=[
        cst.Arg(value=found.cap, comma=_COMMA), cst.Arg(value=found.size)])
    test = cst.UnaryOperation(operator=cst.Not(), expression=test_call)
    return {found.node.test: test,
            found.selection: selection_call(found.selection, found.source, found.method, False, found.cap)}
