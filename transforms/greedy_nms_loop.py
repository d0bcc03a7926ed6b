"""TRT397: a hand-written greedy NMS loop (``while order.numel() > 0:``), one NMS node while tracing.

Detection code that avoids torchvision's compiled ops writes NMS itself: sort the scores, then
``while order.numel() > 0:`` keep the best remaining index and drop the later ones whose box overlaps it
too much. The rule recognises the loop by what it does, not by how it is spelled (the IoU written out
column by column, through box slices, or by a helper; the threshold as ``<=``, ``.le()`` or a mask), and
while tracing hands the loop's own candidates, in its own order, to ``torchvision.ops.nms``
(:mod:`trtcodemod.helpers.suppression`).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from trtcodemod.astutil import bound_names, children, code_of, int_value, strip_parens, variable_names, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._branch_building import _names_bound_by
from trtcodemod.transforms._runtime_scope import TRACING_HELPER, RuntimeScopeRule

HELPER, READY, INTO = "_trt_greedy_nms", "_trt_nms_ready", "_trt_greedy_nms_into"

#: Calls that turn the list of kept indices into a tensor, which the tracing branch's tensor replaces.
_MAKERS = ("torch.tensor", "torch.as_tensor", "torch.LongTensor", "torch.stack")
#: Wrappers around a picked index that leave its value: ``order[0].item()``, ``int(order[0])``.
_VALUE_METHODS = ("item", "long", "int")

_ASSUMPTION = ("the loop is greedy NMS by IoU: it keeps the first (or, after an ascending sort, the last) remaining "
               "candidate and drops every other whose IoU with it exceeds the threshold, the IoU of corner boxes "
               "`(x1, y1, x2, y2)` in the first four columns of the box tensor it reads, widths counted as `x2 - x1` "
               "or, where it adds 1, `x2 - x1 + 1`; an epsilon the loop adds to the union, or a strict `<` where "
               "NMS keeps an IoU equal to the threshold, changes no pick (no IoU within rounding of the threshold)")


@dataclass(frozen=True)
class Recipe:
    """A greedy NMS loop as the rule reads it: the list (or buffer) it keeps indices in, the buffer's count (None for a
    list), the box tensor, the threshold, the pixel-width offset and whether it picks at the end."""

    kept: str
    counter: str | None
    boxes: cst.BaseExpression
    threshold: cst.BaseExpression
    offset: int
    last: bool


class GreedyNmsLoop(RuntimeScopeRule):
    needs_text = (b"while",)
    info = RuleInfo(
        id="TRT397",
        name="greedy-nms-loop",
        summary="a hand-written greedy NMS loop (`while order.numel() > 0:` keeping `order[0]`, dropping overlaps): "
                "tracing unrolls it with the example's boxes; one NMS node while tracing",
        doc="""\
What it finds, in run-time code: a `while` loop with no `else` whose test asks whether an index tensor
still holds anything (`order.numel() > 0`, `order.size(0) > 0`, `len(order) > 0`, `order.shape[0]`,
`order.numel()`), which, inside its body, appends an element of it picked at one end (`i = order[0]`,
`order[0].item()`, `int(order[0])`, `order[-1]`, `keep.append(j := order[0])`) to a list that the block
made empty before the loop (or writes it into a buffer at a count that starts at 0 and steps by one,
ssd.pytorch's `keep[count] = i; count += 1`), compares an overlap against a threshold (`iou <= t`, `ovr.le(t)`, `< t`), and
divides (or calls a function named for IoU or overlap) to get it. Its body may only bind local names,
append the pick, `break` under a test, `raise` (kuangliu's unknown-mode error) and write scratch
tensors in place (ssd.pytorch's `torch.index_select(x1, 0, idx, out=xx1)`, `w.resize_as_(xx2)`); a `break` before the
first append (a loop that never keeps the last box) is not this recipe. The box tensor is found by meaning: the tensor whose columns the loop's
coordinates were read from (`x1 = boxes[:, 0]`, `x1, y1, x2, y2 = boxes.unbind(-1)`), the tensor the
body indexes at the pick with a second index (`bbox[j, :2]`), or the only other tensor the body indexes
at the pick (`box_iou(boxes[i][None], boxes[order[1:]])`). After the loop the list may only be returned,
sliced, measured by `len` (kornia's `if len(keep) > 0:`) or tested for truth (`if keep:`), both decided on
the example while tracing (where no box is kept the graph returns the tracing branch's empty index
tensor), or made a tensor by `torch.tensor`,
`torch.as_tensor`, `torch.LongTensor` or `torch.stack`.
Seen in ssd.pytorch-style box utilities, RetinaFace and YOLO ports, notebooks and tools that avoid
torchvision's compiled ops: the same algorithm spelled many ways.

Why it hurts: every trip reads `order.numel()` (or an `.item()`) into Python, so a traced export
(the TorchScript exporter) runs the loop once on the example and unrolls it: the graph keeps the
example's number of boxes and its picks, whatever the input (TracerWarnings at the `while` line). The
dynamo exporter stops at the data-dependent test.

The rewrite: `while ...: <body>` → `if not torch.jit.is_scripting() and _trt_tracing() and
_trt_nms_ready(): keep = _trt_greedy_nms(boxes, order, threshold, offset, last) else: while ...:
<body>`, and each conversion of the list after the loop `torch.tensor(keep, dtype=d)` →
`(keep.to(dtype=d) if isinstance(keep, torch.Tensor) else torch.tensor(keep, dtype=d))`; a buffer and
its count become `keep, count = _trt_greedy_nms_into(keep, boxes, idx, overlap, 0, True)` (the kept
indices at the buffer's start, the rest as it was, and their number, a traced 0-d tensor where the loop
counts in a Python int, so `ids[:count]` follows the input). While a
tracer records the model (and torchvision is importable), the helper runs NMS once on the loop's own
candidates in the loop's own order: the boxes at `order`, each candidate's rank as its score (so NMS
picks in the loop's order, ties and all), and the far corners shifted by 1 where the loop counts
widths as `x2 - x1 + 1`; the kept positions map back through `order`. The TorchScript exporter writes
torchvision's NMS as ONNX `NonMaxSuppression`, which TensorRT parses into its NMS layer. Eager code,
scripting, fx and `torch.compile` run the loop as written.

Fix safety: unsafe; the assumption is that the loop computes the IoU of corner boxes in the first four
columns of the tensor found (a "min" overlap, centre-size boxes or rotated boxes are other algorithms:
`migrate` keeps the fix only where the rewritten graph matches eager mode on every input set), and
that no IoU lies within the rounding of the threshold (the loop's epsilon in the union, or a strict `<`,
can keep a box NMS drops there). Where the loop keeps a list of Python ints, the tracing branch's
tensor of indices stands for it in the return value. `migrate` applies it where the loop's lines hold
a located problem (the `while` test read into Python) and keeps it only if the rewritten model's graph
matches eager mode. Where the loop is not NMS (an SSD training script clamps the far edges with `min`), the
graph differs and migrate takes the fix back; TRT104 then scripts the loop as before.

TensorRT versions: NonMaxSuppression from 8.5 (INMSLayer).""",
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        fails_when=(
            "the loop's overlap is not the IoU of corner boxes (intersection over the smaller box, centre-size "
            "boxes, rotated boxes): NMS drops other boxes",
            "an IoU equal to the threshold to within the loop's epsilon: the loop and NMS decide it differently",
            "the loop raises midway (a `nonzero().squeeze()` that leaves a 0-d index where one box survives a pick, "
            "then `order[0]`): the graph goes on and keeps the boxes NMS keeps",
        ),
        examples=(
            Example(
                "def nms(boxes, scores, threshold=0.5):\n"
                "    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]\n"
                "    areas = (x2 - x1) * (y2 - y1)\n"
                "    order = scores.argsort(descending=True)\n"
                "    keep = []\n"
                "    while order.numel() > 0:\n"
                "        i = order[0]\n"
                "        keep.append(i)\n"
                "        xx1 = x1[order[1:]].clamp(min=x1[i])\n"
                "        yy1 = y1[order[1:]].clamp(min=y1[i])\n"
                "        xx2 = x2[order[1:]].clamp(max=x2[i])\n"
                "        yy2 = y2[order[1:]].clamp(max=y2[i])\n"
                "        inter = (xx2 - xx1).clamp(min=0) * (yy2 - yy1).clamp(min=0)\n"
                "        iou = inter / (areas[i] + areas[order[1:]] - inter)\n"
                "        order = order[1:][iou <= threshold]\n"
                "    return torch.stack(keep)\n",
                "def nms(boxes, scores, threshold=0.5):\n"
                "    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]\n"
                "    areas = (x2 - x1) * (y2 - y1)\n"
                "    order = scores.argsort(descending=True)\n"
                "    keep = []\n"
                "    if not torch.jit.is_scripting() and _trt_tracing() and _trt_nms_ready():\n"
                "        keep = _trt_greedy_nms(boxes, order, threshold, 0, False)\n"
                "    else:\n"
                "        while order.numel() > 0:\n"
                "            i = order[0]\n"
                "            keep.append(i)\n"
                "            xx1 = x1[order[1:]].clamp(min=x1[i])\n"
                "            yy1 = y1[order[1:]].clamp(min=y1[i])\n"
                "            xx2 = x2[order[1:]].clamp(max=x2[i])\n"
                "            yy2 = y2[order[1:]].clamp(max=y2[i])\n"
                "            inter = (xx2 - xx1).clamp(min=0) * (yy2 - yy1).clamp(min=0)\n"
                "            iou = inter / (areas[i] + areas[order[1:]] - inter)\n"
                "            order = order[1:][iou <= threshold]\n"
                "    return (keep if isinstance(keep, torch.Tensor) else torch.stack(keep))\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/vision/stable/generated/torchvision.ops.nms.html",
            "https://onnx.ai/onnx/operators/onnx__NonMaxSuppression.html",
            "https://github.com/amdegroot/ssd.pytorch/blob/master/layers/box_utils.py",
        ),
    )

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if not self.active() or self.context.function is None:
            return
        for index, loop in enumerate(node.body):
            if type(loop) is not cst.While or loop.orelse is not None:
                continue
            order = _emptiness_test(loop.test)
            if order is None:
                continue
            recipe = self._recipe(loop, order, node.body[:index])
            if recipe is None:
                continue
            kept, boxes = recipe.kept, recipe.boxes
            # a buffer written at a count stays a tensor, read as before; a list's conversions are replaced
            makers = [] if recipe.counter is not None else self._makers(kept, loop)
            if makers is None:
                continue
            torch = self.context.torch_name()
            arguments = (f"{code_of(boxes).strip()}, {order}, {code_of(recipe.threshold).strip()}, "
                         f"{recipe.offset}, {recipe.last}")
            if recipe.counter is None:
                tracing = cst.parse_statement(f"{kept} = {HELPER}({arguments})\n")
            else:
                tracing = cst.parse_statement(f"{kept}, {recipe.counter} = {INTO}({kept}, {arguments})\n")
            test = cst.parse_expression(f"not {torch}.jit.is_scripting() and {TRACING_HELPER}() and {READY}()")
            rewritten = cst.If(test=test, body=cst.IndentedBlock(body=[tracing]),
                               orelse=cst.Else(body=cst.IndentedBlock(body=[loop.with_changes(leading_lines=())])),
                               leading_lines=loop.leading_lines)
            replacements: dict[cst.CSTNode, cst.CSTNode] = {loop: rewritten}
            for maker in makers:
                replacements[maker] = self._converted(maker, kept, torch)
            helpers = (TRACING_HELPER, READY, HELPER) + ((INTO,) if recipe.counter is not None else ())
            fix = Fix(replacements, safety=Safety.UNSAFE, helpers=helpers)
            self.found(loop, lambda kept=kept, order=order, boxes=boxes: self._message(kept, order, boxes), fix)

    # --- the recipe ---------------------------------------------------------------
    def _recipe(self, loop: cst.While, order: str, before: list[cst.BaseStatement]) -> Recipe | None:
        """What a greedy NMS loop over ``order`` keeps, where, and how (None: not one)."""
        statements = _flattened(loop.body)
        if statements is None:
            return None
        picks: dict[str, bool] = {}  # name -> picked at the end (order[-1])
        kept: str | None = None
        counter: str | None = None  # ssd.pytorch's buffer: `keep[count] = i`, `count += 1`
        ends: set[bool] = set()
        bound: set[str] = set()
        scratch: list[str] = []  # names written in place by a call (`index_select(..., out=xx1)`)
        for statement in statements:
            if type(statement) is cst.Break:
                if kept is None:
                    return None  # a stop before the first keep: the last candidate may never be kept
                continue
            stored = _stored(statement)
            if type(statement) is cst.Expr and _appended(statement.value) is not None or stored is not None:
                if stored is not None:
                    name, index, value = stored
                    if counter not in (None, index):
                        return None
                    counter = index
                else:
                    name, value = _appended(statement.value)  # type: ignore[misc]
                if kept not in (None, name):
                    return None
                kept = name
                if type(value) is cst.NamedExpr and type(value.target) is cst.Name:
                    end = _pick(value.value, order)
                    if end is not None:
                        picks[value.target.value] = end
                        bound.add(value.target.value)
                elif type(value) is cst.Name and value.value in picks:
                    end = picks[value.value]
                else:
                    end = _pick(value, order)
                if end is None:
                    return None
                ends.add(end)
                continue
            if type(statement) is cst.Expr:
                written = _scratch_write(statement.value)
                if written is None:
                    return None
                scratch.append(written)
                continue
            targets = _targets(statement)
            if targets is None:
                return None
            bound.update(targets)
            if type(statement) is cst.Assign and len(targets) == 1:
                end = _pick(statement.value, order)
                if end is not None:
                    picks[targets[0]] = end
        if kept is None or len(ends) != 1 or order not in bound or kept in bound:
            return None
        if counter is None:
            if not _empty_list_before(before, kept):
                return None
        elif not _counts_from_zero(statements, before, counter, kept):
            return None
        if set(scratch) & {kept, order, counter}:
            return None
        threshold = _threshold(loop.body, bound | set(picks))
        if threshold is None or not _divides(loop.body):
            return None
        boxes = self._boxes(loop, before, order, set(picks) | bound)
        if boxes is None:
            return None
        offset = 1 if _adds_one(loop.body) or any(_adds_one(s) for s in before if _reads(loop.body, s)) else 0
        return Recipe(kept, counter, boxes, threshold, offset, ends.pop())

    def _boxes(self, loop: cst.While, before: list[cst.BaseStatement], order: str, loop_names: set[str]
               ) -> cst.BaseExpression | None:
        """The tensor whose rows the loop's candidates index: by meaning, not by name (see the rule's doc)."""
        columns = _column_aliases(before)
        from_columns: dict[str, set[int]] = {}
        two_index: dict[str, cst.BaseExpression] = {}
        single: dict[str, cst.BaseExpression] = {}
        arithmetic = _arithmetic_names(before)
        for node in walk(loop.body):
            if type(node) is not cst.Subscript or not node.slice:
                continue
            first = node.slice[0].slice
            if type(first) is not cst.Index or not (variable_names(first.value) & (loop_names | {order})):
                continue
            base = node.value
            if type(base) is not cst.Name or base.value in loop_names or base.value == order:
                continue
            name = base.value
            if name in columns:
                source, column = columns[name]
                from_columns.setdefault(source, set()).add(column)
            elif len(node.slice) >= 2:
                two_index[name] = base
            elif name not in arithmetic:
                single[name] = base
        if from_columns:
            if len(from_columns) != 1:
                return None
            source, used = next(iter(from_columns.items()))
            return cst.Name(source) if used <= {0, 1, 2, 3} else None
        if two_index:
            return next(iter(two_index.values())) if len(two_index) == 1 else None
        return next(iter(single.values())) if len(single) == 1 else None

    # --- after the loop -------------------------------------------------------------
    def _makers(self, kept: str, loop: cst.While) -> list[cst.Call | cst.Name] | None:
        """The calls after the loop that make a tensor of the kept list and its truth tests (replaced), or None
        where the list is read any other way (the tracing branch's tensor would not stand for it)."""
        function = self.context.function
        if function is None:
            return None
        after = False
        makers: list[cst.Call | cst.Name] = []
        allowed: set[int] = set()
        parents: dict[int, cst.CSTNode] = {}
        for node in walk(function.body):
            for child in children(node):
                parents[id(child)] = node
        inside = {id(n) for n in walk(loop)}
        for node in walk(function.body):
            if node is loop:
                after = True
                continue
            if not after or id(node) in inside:
                continue
            if type(node) is cst.Call and node.args and type(node.args[0].value) is cst.Name \
                    and node.args[0].value.value == kept and node.args[0].keyword is None and not node.args[0].star \
                    and self.context.refers_to(node.func, *_MAKERS) is not None:
                if any(a.keyword is None or a.keyword.value not in ("dtype", "device") for a in node.args[1:]):
                    return None
                makers.append(node)
                allowed.add(id(node.args[0].value))
            if type(node) is cst.Name and node.value == kept and id(node) not in allowed:
                parent = parents.get(id(node))
                if type(parent) is cst.Return or type(parent) is cst.Subscript and parent.value is node:
                    continue
                if type(parent) is cst.Arg and type(parents.get(id(parent))) is cst.Call \
                        and code_of(parents[id(parent)].func).strip() == "len":
                    continue  # kornia's `if len(keep) > 0:` (decided on the example while tracing)
                if type(parent) is cst.If and parent.test is node \
                        or type(parent) is cst.UnaryOperation and type(parent.operator) is cst.Not:
                    makers.append(node)  # `if keep:` (torchvision stand-ins): the tensor's truth is its size's
                    continue
                return None
        return makers

    def _converted(self, maker: cst.Call | cst.Name, kept: str, torch: str) -> cst.BaseExpression:
        """``(kept.to(...) if isinstance(kept, torch.Tensor) else <maker>)``; for a truth test of the list,
        ``(kept.numel() > 0 if isinstance(kept, torch.Tensor) else kept)``."""
        if type(maker) is cst.Name:
            return cst.parse_expression(f"({kept}.numel() > 0 if isinstance({kept}, {torch}.Tensor) else {kept})")
        name = self.context.refers_to(maker.func, *_MAKERS)
        options = ", ".join(f"{a.keyword.value}={code_of(a.value).strip()}" for a in maker.args[1:])
        if name == "torch.LongTensor":
            options = "dtype=" + torch + ".long"
        tensor = f"{kept}.to({options})" if options else kept
        return cst.parse_expression(f"({tensor} if isinstance({kept}, {torch}.Tensor) else {code_of(maker).strip()})")

    def _message(self, kept: str, order: str, boxes: cst.BaseExpression) -> str:
        return (f"a greedy NMS loop over `{order}` keeps indices in `{kept}` (boxes `{code_of(boxes).strip()}`): a "
                "traced export reads the loop's test into Python and unrolls it with the example's boxes; while "
                f"tracing, {HELPER} runs NMS once on the loop's candidates in its order (the loop otherwise)")


# --- reading the loop ---------------------------------------------------------------------
def _emptiness_test(test: cst.BaseExpression) -> str | None:
    """The index tensor a test asks to be non-empty: ``o.numel() > 0``, ``o.size(0) > 0``, ``len(o) > 0``,
    ``o.shape[0] != 0``, or the count alone."""
    test = strip_parens(test)
    if type(test) is cst.Comparison and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if type(target.operator) not in (cst.GreaterThan, cst.NotEqual) or int_value(target.comparator) != 0:
            return None
        test = strip_parens(test.left)
    if type(test) is cst.Call:
        func = test.func
        if type(func) is cst.Name and func.value == "len" and len(test.args) == 1 \
                and type(test.args[0].value) is cst.Name:
            return test.args[0].value.value
        if type(func) is cst.Attribute and type(func.value) is cst.Name:
            if func.attr.value == "numel" and not test.args:
                return func.value.value
            if func.attr.value == "size" and len(test.args) == 1 and int_value(test.args[0].value) == 0:
                return func.value.value
        return None
    if type(test) is cst.Subscript and type(test.value) is cst.Attribute and test.value.attr.value == "shape" \
            and type(test.value.value) is cst.Name and len(test.slice) == 1 \
            and type(test.slice[0].slice) is cst.Index and int_value(test.slice[0].slice.value) == 0:
        return test.value.value.value
    return None


def _flattened(body: cst.BaseSuite) -> list[cst.BaseSmallStatement] | None:
    """The body's small statements in source order, ``if`` bodies (and their ``else``) included; None for any other
    compound statement (a nested loop, ``with``, ``try``)."""
    out: list[cst.BaseSmallStatement] = []
    lines = body.body if type(body) is cst.IndentedBlock else [cst.SimpleStatementLine(body=body.body)]
    for line in lines:
        if type(line) is cst.SimpleStatementLine:
            out.extend(line.body)
        elif type(line) is cst.If:
            branch: cst.If | cst.Else | None = line
            while branch is not None:
                inner = _flattened(branch.body)
                if inner is None:
                    return None
                out.extend(inner)
                branch = branch.orelse if type(branch) is cst.If else None
        else:
            return None
    return out


def _appended(value: cst.BaseExpression) -> tuple[str, cst.BaseExpression] | None:
    """``(list, value)`` for ``list.append(value)``."""
    if type(value) is not cst.Call or type(value.func) is not cst.Attribute or value.func.attr.value != "append" \
            or type(value.func.value) is not cst.Name or len(value.args) != 1 or value.args[0].keyword is not None:
        return None
    return value.func.value.value, value.args[0].value


def _stored(statement: cst.BaseSmallStatement) -> tuple[str, str, cst.BaseExpression] | None:
    """``(buffer, counter, value)`` for ``buffer[counter] = value`` (ssd.pytorch's ``keep[count] = i``)."""
    if type(statement) is not cst.Assign or len(statement.targets) != 1:
        return None
    target = statement.targets[0].target
    if type(target) is not cst.Subscript or type(target.value) is not cst.Name or len(target.slice) != 1:
        return None
    index = target.slice[0].slice
    if type(index) is not cst.Index or type(index.value) is not cst.Name:
        return None
    return target.value.value, index.value.value, statement.value


def _scratch_write(value: cst.BaseExpression) -> str | None:
    """The name a call statement writes in place and nothing else: ``torch.index_select(x1, 0, idx, out=xx1)``,
    ``w.resize_as_(xx2)`` (ssd.pytorch's preallocated buffers); None for any other call."""
    if type(value) is not cst.Call:
        return None
    out = [a for a in value.args if a.keyword is not None and a.keyword.value == "out"]
    if len(out) == 1 and type(out[0].value) is cst.Name:
        return out[0].value.value
    if type(value.func) is cst.Attribute and value.func.attr.value.endswith("_") \
            and not value.func.attr.value.startswith("_") and type(value.func.value) is cst.Name:
        return value.func.value.value
    return None


def _counts_from_zero(statements: list[cst.BaseSmallStatement], before: list[cst.BaseStatement], counter: str,
                      buffer: str) -> bool:
    """The counter starts at 0 before the loop, steps by one once a trip, and is read only as the buffer's index."""
    steps = [s for s in statements if type(s) is cst.AugAssign and type(s.target) is cst.Name
             and s.target.value == counter]
    if len(steps) != 1 or type(steps[0].operator) is not cst.AddAssign or int_value(steps[0].value) != 1:
        return False
    reads = sum(1 for s in statements for n in walk(s) if type(n) is cst.Name and n.value == counter)
    if reads != 2:  # `buffer[counter]` and `counter += 1`
        return False
    for statement in reversed(before):
        if counter not in variable_names(statement):
            continue
        if type(statement) is not cst.SimpleStatementLine:
            return False
        for small in reversed(statement.body):
            if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name \
                    and small.targets[0].target.value == counter:
                return int_value(small.value) == 0
            if counter in variable_names(small):
                return False
    return False


def _pick(value: cst.BaseExpression, order: str) -> bool | None:
    """For ``order[0]`` (False) or ``order[-1]`` (True), also through ``.item()``, ``int()``, ``.long()``, and
    ``order.item()`` (the one element left); None otherwise."""
    value = strip_parens(value)
    unwrapped = False
    while True:
        if type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value in _VALUE_METHODS \
                and not value.args:
            value, unwrapped = strip_parens(value.func.value), True
        elif type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "int" \
                and len(value.args) == 1:
            value, unwrapped = strip_parens(value.args[0].value), True
        else:
            break
    if type(value) is cst.Name and value.value == order:
        return False if unwrapped else None
    if type(value) is cst.Subscript and type(value.value) is cst.Name and value.value.value == order \
            and len(value.slice) == 1 and type(value.slice[0].slice) is cst.Index:
        position = int_value(value.slice[0].slice.value)
        return {0: False, -1: True}.get(position) if position is not None else None
    return None


def _targets(statement: cst.BaseSmallStatement) -> list[str] | None:
    """The local names an assignment binds; None for anything else the body may not hold."""
    if type(statement) is cst.Pass or type(statement) is cst.Raise:
        return []  # an error path (`raise TypeError('Unknown nms mode')`): eager mode keeps it
    if type(statement) is cst.Assign:
        names: list[str] = []
        for target in statement.targets:
            if not _names_only(target.target):
                return None
            names.extend(bound_names(target.target))
        return names
    if type(statement) in (cst.AugAssign, cst.AnnAssign) and type(statement.target) is cst.Name:
        return [statement.target.value]
    return None


def _names_only(target: cst.BaseExpression) -> bool:
    if type(target) is cst.Name:
        return True
    if type(target) in (cst.Tuple, cst.List):
        return all(_names_only(e.value) for e in target.elements)
    return False


def _empty_list_before(before: list[cst.BaseStatement], kept: str) -> bool:
    """``kept = []`` (or ``kept: list[int] = []``) is among the block's statements before the loop, and the last
    binding of ``kept`` there."""
    for statement in reversed(before):
        if type(statement) is not cst.SimpleStatementLine:
            if kept in variable_names(statement):
                return False
            continue
        for small in reversed(statement.body):
            value = None
            if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name \
                    and small.targets[0].target.value == kept:
                value = small.value
            elif type(small) is cst.AnnAssign and type(small.target) is cst.Name and small.target.value == kept:
                value = small.value
            elif kept in variable_names(small):
                return False
            else:
                continue
            return type(value) is cst.List and not value.elements
    return False


def _threshold(body: cst.BaseSuite, loop_names: set[str]) -> cst.BaseExpression | None:
    """The one value overlaps are compared against (``iou <= t``, ``iou < t``, ``iou.le(t)``), computed before the
    loop; None where there is none or several."""
    found: dict[str, cst.BaseExpression] = {}
    for node in walk(body):
        value = None
        if type(node) is cst.Comparison and len(node.comparisons) == 1 \
                and type(node.comparisons[0].operator) in (cst.LessThanEqual, cst.LessThan):
            value = node.comparisons[0].comparator
        elif type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in ("le", "lt") \
                and len(node.args) == 1:
            value = node.args[0].value
        if value is None or code_of(value).strip() in ("0", "0.", "0.0"):
            continue
        if variable_names(value) & loop_names:
            continue
        found[code_of(value).strip()] = value
    return next(iter(found.values())) if len(found) == 1 else None


def _divides(body: cst.BaseSuite) -> bool:
    """Whether the body computes a ratio: a division, or a call of a function named for IoU or overlap."""
    for node in walk(body):
        if type(node) is cst.BinaryOperation and type(node.operator) is cst.Divide:
            return True
        if type(node) is cst.Call:
            name = node.func.attr.value if type(node.func) is cst.Attribute else \
                node.func.value if type(node.func) is cst.Name else ""
            if name == "div" or "iou" in name.lower() or "overlap" in name.lower():
                return True
    return False


def _adds_one(node: cst.CSTNode) -> bool:
    """A difference plus one in ``node`` (pixel boxes: a width of ``x2 - x1 + 1``; not ``idx + 1``)."""
    return any(type(n) is cst.BinaryOperation and type(n.operator) is cst.Add
               and code_of(n.right).strip() in ("1", "1.", "1.0")
               and type(strip_parens(n.left)) is cst.BinaryOperation and type(strip_parens(n.left).operator) is cst.Subtract
               for n in walk(node))


def _reads(body: cst.BaseSuite, statement: cst.BaseStatement) -> bool:
    """Whether the loop's body reads a name ``statement`` binds (the areas computed before the loop)."""
    return bool(_names_bound_by(statement) & variable_names(body))


def _column_aliases(before: list[cst.BaseStatement]) -> dict[str, tuple[str, int]]:
    """Names bound before the loop to a column of a tensor: ``x1 = boxes[:, 0]``, ``x1, y1, x2, y2 = boxes[:, 0],
    ...``, ``= boxes.unbind(-1)`` (or ``1``), ``= boxes.T``."""
    aliases: dict[str, tuple[str, int]] = {}
    for statement in before:
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            if type(small) is not cst.Assign or len(small.targets) != 1:
                continue
            target, value = small.targets[0].target, strip_parens(small.value)
            if type(target) is cst.Name:
                column = _column(value)
                if column is not None:
                    aliases[target.value] = column
            elif type(target) in (cst.Tuple, cst.List) and all(type(e.value) is cst.Name for e in target.elements):
                names = [e.value.value for e in target.elements]
                if type(value) is cst.Tuple and len(value.elements) == len(names):
                    for name, element in zip(names, value.elements):
                        column = _column(element.value)
                        if column is not None:
                            aliases[name] = column
                    continue
                source = _unbound_columns(value)
                if source is not None:
                    for position, name in enumerate(names):
                        aliases[name] = (source, position)
    return aliases


def _column(value: cst.BaseExpression) -> tuple[str, int] | None:
    """``(tensor, c)`` for ``tensor[:, c]``."""
    value = strip_parens(value)
    if type(value) is not cst.Subscript or type(value.value) is not cst.Name or len(value.slice) != 2:
        return None
    rows, column = value.slice[0].slice, value.slice[1].slice
    if type(rows) is not cst.Slice or rows.lower or rows.upper or rows.step or type(column) is not cst.Index:
        return None
    position = int_value(column.value)
    return (value.value.value, position) if position is not None and position >= 0 else None


def _unbound_columns(value: cst.BaseExpression) -> str | None:
    """The tensor of ``tensor.unbind(-1)`` / ``unbind(1)`` / ``unbind(dim=-1)`` / ``tensor.T`` / ``tensor.t()``."""
    if type(value) is cst.Attribute and value.attr.value == "T" and type(value.value) is cst.Name:
        return value.value.value
    if type(value) is not cst.Call or type(value.func) is not cst.Attribute or type(value.func.value) is not cst.Name:
        return None
    method = value.func.attr.value
    if method == "t" and not value.args:
        return value.func.value.value
    if method == "unbind" and len(value.args) == 1 and int_value(value.args[0].value) in (-1, 1):
        return value.func.value.value
    return None


def _arithmetic_names(before: list[cst.BaseStatement]) -> set[str]:
    """Names bound before the loop to a product (the areas): not box tensors."""
    names: set[str] = set()
    for statement in before:
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            if type(small) is cst.Assign and any(type(n) is cst.BinaryOperation and type(n.operator) is cst.Multiply
                                                 or type(n) is cst.Call and type(n.func) is cst.Attribute
                                                 and n.func.attr.value in ("mul", "prod")
                                                 or type(n) is cst.Call and code_of(n.func).strip() == "torch.mul"
                                                 for n in walk(small.value)):
                for target in small.targets:
                    names.update(bound_names(target.target))
    return names


RULES = (GreedyNmsLoop,)
