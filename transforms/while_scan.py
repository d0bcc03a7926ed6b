"""An index stepped along a run of true elements (TRT336): ``while mask[..., i, :]: i += 1``.

A ``while`` whose only statement steps a counter by one and whose test reads one element of a
tensor at that counter is a search: the index of the first false element from the start, in
the loop's order. A traced export unrolls it with the example's trip count; the rewrite finds
the same index in the graph while tracing (``trtcodemod/helpers/scanning.py``).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import helper_call, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule

HELPER = "_trt_scan_while"


class WhileScan(RuntimeScopeRule):
    needs_text = (b"while",)
    info = RuleInfo(
        id="TRT336",
        name="while-scan",
        summary="`while t[..., i, :]: i += 1` searches for the first false element: tracing unrolls it with the "
                "example's trip count; find the index in the graph",
        doc="""\
What it finds, in forward code: a `while` loop with no `else` whose body is one statement
stepping a counter by one (`i += 1`, `i -= 1`, `i = i + 1`, `i = i - 1`) and whose test is a
subscript of a tensor (a name or an attribute of one, `self.mask`) at that counter, every other
index of the subscript being `...` or `:`: `while mask[..., right, :]: right += 1`. MONAI's
`CoilSensitivityModel.get_fully_sampled_region` finds the fully sampled centre of the k-space
mask with two such loops, one up and one down from the middle. Also a test that is a function
of that slice: the only subscript in it and the only place it reads the counter, with no call
but methods of the slice or of their results (`while cur_gt[k].sum() == 0: k -= 1`, PointRCNN's
proposal target layer finding the last gt box that is not zero padding); a test that hands the
slice to a function (`torch.sum(t[k])`) or reads the counter elsewhere is left, but for a guard
before it that stops the loop at a whole number (`k >= 0 and ...`, `cnt > 0 and ...` stepping down,
`i < 5 and ...` up: OpenPCDet's target assigners and proposal target layer), passed as `last=`,
the last index the loop can test.

Why it hurts: each trip reads one element into a Python `bool`, so a traced export (the
TorchScript exporter) runs the loop with the example's mask and keeps the index it ended at as a
constant (the tracer warns "Converting a tensor to a Python boolean"); everything computed from
it (the centre's width and start, the slice it copies) is the example's at every input. (This
is a case of TRT104, which reports such loops and can only script them.)

The rewrite: `while mask[..., right, :]: right += 1` →
`right = _trt_scan_while(lambda right: mask[..., right, :], mask, -2, right, 1)`. Outside a
TorchScript trace (eager, fx, `torch.compile`, `torch.export`) the helper is the loop:
`i = start; while test(i): i += step`, the same tests in the same order, the same result and
errors (the dynamo exporter stops at the loop's data-dependent test, as on the original). While
`torch.jit.trace` (the TorchScript exporter) records the model it computes the index from the
tensor's line along the indexed axis: the elements the loop would test in its order
(`line[i:]` stepping up; stepping down `line[:i + 1]` reversed and then the whole line reversed,
as Python's negative indices continue from the end), a stop appended, and the first that is
zero, `ArgMax` of `== 0`; the index is `start + step * count`, a traced integer, so the slices
and sizes computed from it follow the input. The graph: Transpose, Reshape, Slice, Concat,
Equal, Cast, ArgMax, Mul, Add. For a function of the slice the rule also writes it as a
function of the slice alone (`lambda _trt_row: _trt_row.sum() == 0`), which the helper maps over
the slices with `torch.vmap` while tracing to give the line (where vmap cannot run it, the loop as
written, unrolled as before). With a guard the traced line ends at `last` (a negative Python
start: the loop as written, which tests nothing where the guard fails first).

Fix safety: unsafe; the assumptions are (1) the test reads one element (every other axis of
the tensor has size 1, as `bool()` of the element requires in eager mode; for a function of the
slice, that it gives one element, and vmap's batched reduction the value the loop's does), (2) the loop ends
before it runs off the tensor (where eager mode raises `IndexError`, the trace returns the
index past the last tested element), and (3) a start the trace computes (a traced size) is not
negative (a Python-number start may be). Where the loop's test raises midway, the counter keeps
its start value instead of the value it had reached (only visible in an `except` around it).

TensorRT versions: all (ArgMax from 8.4).""",
        fix=Safety.UNSAFE,
        assumption=("the test reads a single element (the tensor's other axes have size 1), the loop stops before "
                    "running off the tensor, and a traced start index is not negative"),
        fails_when=(
            "the tensor has other axes longer than 1: eager mode raises at `bool()`, the trace reads the line of "
            "the flattened tensor",
            "every element from the start is true: eager mode raises IndexError, the trace returns the index past "
            "the end",
            "a start computed from traced values that is negative: the trace tests from the line's start",
        ),
        examples=(
            Example(
                "def get_fully_sampled_region(self, mask):\n"
                "    left = right = mask.shape[-2] // 2\n"
                "    while mask[..., right, :]:\n"
                "        right += 1\n"
                "    while mask[..., left, :]:\n"
                "        left -= 1\n"
                "    return left + 1, right\n",
                "def get_fully_sampled_region(self, mask):\n"
                "    left = right = mask.shape[-2] // 2\n"
                "    right = _trt_scan_while(lambda right: mask[..., right, :], mask, -2, right, 1)\n"
                "    left = _trt_scan_while(lambda left: mask[..., left, :], mask, -2, left, -1)\n"
                "    return left + 1, right\n",
                unsafe=True,
            ),
            Example(
                "def sample_rois(self, roi_boxes3d, gt_boxes3d):\n"
                "    cur_gt = gt_boxes3d[0]\n"
                "    k = cur_gt.__len__() - 1\n"
                "    while cur_gt[k].sum() == 0:\n"
                "        k -= 1\n"
                "    return cur_gt[:k + 1]\n",
                "def sample_rois(self, roi_boxes3d, gt_boxes3d):\n"
                "    cur_gt = gt_boxes3d[0]\n"
                "    k = cur_gt.__len__() - 1\n"
                "    k = _trt_scan_while(lambda k: cur_gt[k].sum() == 0, cur_gt, 0, k, -1, lambda _trt_row: "
                "_trt_row.sum() == 0)\n"
                "    return cur_gt[:k + 1]\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.jit.trace.html",
            "https://onnx.ai/onnx/operators/onnx__ArgMax.html",
        ),
    )

    def visit_While(self, node: cst.While) -> None:
        if not self.active() or node.orelse is not None:
            return
        step = _step(node.body)
        if step is None:
            return
        counter, delta = step
        scan, last = _guarded(node.test, counter, delta)
        found = _scanned(scan, counter)
        if found is None:
            return
        tensor, axis, element = found
        test = cst.Lambda(params=cst.Parameters(params=[cst.Param(name=cst.Name(counter))]), body=node.test)
        arguments = [test, tensor, _integer(axis), cst.Name(counter), _integer(delta)]
        if element is not scan:  # the test is a function of the slice: `cur_gt[k].sum() == 0`
            arguments.append(cst.Lambda(params=cst.Parameters(params=[cst.Param(name=cst.Name(ROW))]),
                                        body=scan.deep_replace(element, cst.Name(ROW))))
        call = helper_call(HELPER, *arguments)
        if last is not None:  # `k >= 0 and ...`: the loop tests no index past `last`
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            call = call.with_changes(args=[*call.args[:-1], call.args[-1].with_changes(comma=comma),
                                           cst.Arg(_integer(last), keyword=cst.Name("last"), equal=_EQUAL)])
        statement = cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(target=cst.Name(counter))], value=call)],
            leading_lines=node.leading_lines)
        what = "an element" if element is node.test else "the test of the slice at it"
        self.found(node, f"`while` steps `{counter}` along `{cst.Module([]).code_for_node(tensor)}` until {what} "
                         "is false: a traced export unrolls it with the example's trip count and keeps the index it "
                         f"ended at; {HELPER} finds the index in the graph while tracing (the loop otherwise)",
                   Fix({node: statement}, safety=Safety.UNSAFE, helpers=(HELPER,)))


_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _guarded(test: cst.BaseExpression, counter: str, delta: int) -> tuple[cst.BaseExpression, int | None]:
    """``(scan, last)`` for ``counter >= 0 and scan`` (``> c``, ``>= c`` stepping down; ``< c``, ``<= c`` stepping up;
    ``c`` a whole number, not negative): the last index the loop tests; else ``(test, None)``."""
    if type(test) is not cst.BooleanOperation or type(test.operator) is not cst.And or test.lpar:
        return test, None
    bound = test.left
    if type(bound) is not cst.Comparison or len(bound.comparisons) != 1 or bound.lpar \
            or type(bound.left) is not cst.Name or bound.left.value != counter:
        return test, None
    target = bound.comparisons[0]
    if type(target.comparator) is not cst.Integer:
        return test, None
    value = int(target.comparator.evaluated_value)
    last = {(-1, cst.GreaterThan): value + 1, (-1, cst.GreaterThanEqual): value,
            (1, cst.LessThan): value - 1, (1, cst.LessThanEqual): value}.get((delta, type(target.operator)))
    if last is None or last < 0:
        return test, None
    return test.right, last


def _integer(value: int) -> cst.BaseExpression:
    if value < 0:
        return cst.UnaryOperation(operator=cst.Minus(), expression=cst.Integer(str(-value)))
    return cst.Integer(str(value))


def _step(body: cst.BaseSuite) -> tuple[str, int] | None:
    """``(counter, +1 or -1)`` for a body that is one statement stepping a counter by one."""
    if type(body) is cst.IndentedBlock:
        if len(body.body) != 1 or type(body.body[0]) is not cst.SimpleStatementLine:
            return None
        small = body.body[0].body
    else:  # `while test: i += 1` on one line
        small = body.body  # type: ignore[attr-defined]
    if len(small) != 1:
        return None
    statement = small[0]
    if type(statement) is cst.AugAssign and type(statement.target) is cst.Name \
            and type(statement.value) is cst.Integer and statement.value.evaluated_value == 1:
        sign = {cst.AddAssign: 1, cst.SubtractAssign: -1}.get(type(statement.operator))
        return (statement.target.value, sign) if sign else None
    if type(statement) is cst.Assign and len(statement.targets) == 1 and type(statement.targets[0].target) is cst.Name:
        name = statement.targets[0].target.value
        value = statement.value
        if type(value) is cst.BinaryOperation and type(value.left) is cst.Name and value.left.value == name \
                and type(value.right) is cst.Integer and value.right.evaluated_value == 1:
            sign = {cst.Add: 1, cst.Subtract: -1}.get(type(value.operator))
            return (name, sign) if sign else None
    return None


def _plain(expr: cst.BaseExpression) -> bool:
    """A name or an attribute chain of names: evaluating it twice reads the same object."""
    while type(expr) is cst.Attribute:
        expr = expr.value
    return type(expr) is cst.Name


def _scanned(test: cst.BaseExpression, counter: str) -> tuple[cst.BaseExpression, int, cst.Subscript] | None:
    """``(tensor, axis, subscript)`` for a test ``tensor[..., counter, :]`` (other indices ``...`` or ``:``), or a
    test that reads the counter only there, a function of that slice (``cur_gt[k].sum() == 0``): no call of
    anything but a method of it, no name bound in the test, no other subscript."""
    if type(test) is cst.Subscript:
        found = _slice_at(test, counter)
        return None if found is None else (*found, test)
    if any(type(n) in _BINDS for n in walk(test)):
        return None
    subscripts = [n for n in walk(test) if type(n) is cst.Subscript]
    if len(subscripts) != 1:
        return None
    element = subscripts[0]
    if sum(type(n) is cst.Name and n.value == counter for n in walk(test)) != 1:
        return None  # the counter read outside the slice (`k > 0 and ...`): another scan
    if any(n.value == ROW for n in walk(test) if type(n) is cst.Name):
        return None
    for call in (n for n in walk(test) if type(n) is cst.Call):
        receiver = call.func
        if type(receiver) is not cst.Attribute:
            return None  # `f(t[k])` may do anything with the slice; a method of it (`.sum()`) is vmapped
        while type(receiver) is cst.Attribute:
            receiver = receiver.value
        if receiver is not element and type(receiver) is not cst.Call:
            return None
    found = _slice_at(element, counter)
    return None if found is None else (*found, element)


#: Nodes that bind names or open a scope: a test holding one is not a function of the slice alone.
_BINDS = (cst.Lambda, cst.NamedExpr, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Await)

#: The name of the slice in the mapped test (``lambda _trt_row: _trt_row.sum() == 0``).
ROW = "_trt_row"


def _slice_at(test: cst.Subscript, counter: str) -> tuple[cst.BaseExpression, int] | None:
    """``(tensor, axis)`` for ``tensor[..., counter, :]`` (other indices ``...`` or ``:``)."""
    if not _plain(test.value) or test.lpar:
        return None
    position = None
    ellipsis = None
    for index, element in enumerate(test.slice):
        inner = element.slice
        if type(inner) is cst.Index and type(inner.value) is cst.Name and inner.value.value == counter \
                and inner.star is None:
            if position is not None:
                return None
            position = index
        elif type(inner) is cst.Index and type(inner.value) is cst.Ellipsis:
            if ellipsis is not None:
                return None
            ellipsis = index
        elif type(inner) is cst.Slice and inner.lower is None and inner.upper is None and inner.step is None:
            continue
        else:
            return None
    if position is None:
        return None
    if ellipsis is not None and ellipsis < position:
        return test.value, position - len(test.slice)  # counted from the end: -1 is the last axis
    return test.value, position


RULES = (WhileScan,)
