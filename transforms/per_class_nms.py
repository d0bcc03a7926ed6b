"""TRT738: NMS run class by class in a loop over ``labels.unique()``, one NMS call while tracing.

Class-aware NMS written without ``batched_nms``: for each distinct label, pick the label's candidates, run NMS on
them, and gather the kept positions (mapped back to the whole set) in a list that is concatenated afterwards. The rule
reads the recipe by what it does, not by its names (the label picked by a mask or by an index, the index made by
``nonzero``, ``torch.where`` or ``nonzero(as_tuple=True)``, the NMS torchvision's or the project's own), and while
tracing runs the same NMS once on boxes moved apart by class (:mod:`trtcodemod.helpers.suppression`).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from trtcodemod.astutil import children, code_of, int_value, strip_parens, variable_names, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import TRACING_HELPER, RuntimeScopeRule
from trtcodemod.transforms.greedy_nms_loop import _appended, _empty_list_before

APART, BY_CLASS = "_trt_classes_apart", "_trt_by_class"
#: TRT302's sort-based ``torch.unique`` (where migrate took its fix first): the same sorted values.
UNIQUE = "_trt_unique"

#: Words in an NMS function's name that make it another algorithm than one greedy NMS of one set of boxes (soft-NMS
#: changes scores; a batched or multi-class NMS groups by itself; rotated boxes are not corners).
_OTHER_ALGORITHMS = ("soft", "batched", "multi", "class", "rotat", "matrix", "weighted", "cluster", "merge")
#: Keyword arguments of the NMS call that cap its output: per class in the loop, over all classes in one call.
_CAPS = ("max", "top", "limit", "num", "count", "k")

_ASSUMPTION = ("the function the loop calls is greedy NMS of corner boxes `(x1, y1, x2, y2)` in the first four "
               "columns (two boxes whose IoU is 0 never suppress each other, and it returns the kept positions in "
               "the same order on a set as on the set's rows of one class), and the labels are whole numbers (class "
               "indices): moving each class's boxes by its label times a span wider than all boxes leaves no overlap "
               "between classes; the corners moved that far round to within a float32 step of the moved distance, "
               "which decides nothing except an IoU within that rounding of the threshold, or the IoU of boxes not "
               "much wider than that step (the span, and so the step, grows with the widest and farthest box)")


@dataclass(frozen=True)
class Recipe:
    """A per-class NMS loop as the rule reads it: the kept list (or, where ``marked``, the boolean mask the kept
    positions are set in), the labels, the call of NMS (its function, the boxes, the scores, and its other arguments
    as written)."""

    kept: str
    marked: bool
    labels: cst.BaseExpression
    call: cst.Call
    boxes: cst.BaseExpression
    scores: cst.BaseExpression


class PerClassNms(RuntimeScopeRule):
    needs_text = (b"unique",)
    info = RuleInfo(
        id="TRT738",
        name="per-class-nms",
        summary="NMS run class by class in a loop over `labels.unique()`, each class's kept positions appended: "
                "tracing unrolls it with the example's classes; one NMS call on boxes moved apart by class while "
                "tracing",
        doc="""\
What it finds, in run-time code: a `for c in <labels>.unique():` loop (or `torch.unique(labels)`, `sorted=True`
or nothing else, or a name the block bound to one of those; through the conversions that keep the values and their
order: `.cpu()`, `.detach()`, `.tolist()` and `torch.jit.annotate(List[int], ...)`, as in detectron2's
`batched_nms`) with no `else`, whose body picks the candidates of
class `c` by a mask (`m = labels == c`, `labels.eq(c)`, `torch.eq(labels, c)`) or by their positions (`idx =
torch.nonzero(labels == c).squeeze(1)`, `(labels == c).nonzero(as_tuple=True)[0]`, `torch.where(labels == c)[0]`,
`(idx,) = torch.where(m)`, or a range of the rows picked by the mask, `index_tensor[m]` where the block bound
`index_tensor = torch.arange(n)` before the loop), runs a function whose name says NMS on the picked rows of a boxes
tensor and a scores tensor (`keep = nms(boxes[idx], scores[idx], iou_threshold)`, the picked rows written inline or
bound to names first, `class_boxes = boxes[m]`; torchvision's or the project's own), and
appends the kept positions mapped back to the whole set (`kept.append(idx[keep])`, `torch.nonzero(m).squeeze(1)
[keep]`) to a list the block made empty before the loop, or sets them in a boolean mask (`keep_mask[idx[keep]] =
True`, torchvision's own `_batched_nms_vanilla`). It may skip a class that has no candidate (`if m.sum() == 0: continue`, a test of the class's mask or positions
only; a skip by the label, `if c == 0: continue`, is another recipe). After the loop the
list may only be concatenated (`torch.cat(kept)`, `torch.cat(kept) if kept else ...`) or tested for truth (`if
len(kept):`) until it is bound again. Seen in class-aware NMS helpers of detection packages and training scripts
(owndet's `class_aware_nms`, test-time-augmentation merges, page-layout detectors), written without
`torchvision.ops.batched_nms`, and in torchvision's own per-class path (which `batched_nms` takes on CPU for more than
4000 box coordinates, and which the code that copies it keeps).

Why it hurts: the loop's trip count is the number of distinct labels in the example, so a traced export (the
TorchScript exporter) unrolls it that many times, each trip comparing with the example's label as a constant:
the graph keeps the example's classes, whatever the input (`torch.unique` itself exports as ONNX `Unique`, which
TensorRT never parses). The dynamo exporter stops at the data-dependent loop.

The rewrite: `for c in labels.unique(): <body>` → `if not torch.jit.is_scripting() and _trt_tracing(): kept =
[_trt_by_class(nms(_trt_classes_apart(boxes, labels), scores, iou_threshold), labels)] else: for ...: <body>`
(for a mask: `keep_mask[nms(_trt_classes_apart(boxes, labels), scores, iou_threshold)] = True`).
While a tracer records the model, the loop's own NMS runs once on every candidate, the corners of each moved by
its label times a span wider than all boxes (torchvision's `batched_nms` trick), so that no two classes overlap
and each class's boxes suppress only each other; `_trt_by_class` then orders the kept positions class by class,
smallest label first, each class's in the order NMS kept them, as the loop gathers them (a mask has no order).
Eager code, scripting,
fx and `torch.compile` run the loop as written. Where the NMS is itself a loop (TRT397's recipe), migrate applies
both and the graph holds one NMS node.

Fix safety: unsafe; the assumption is that the function called is greedy NMS of corner boxes in the first four
columns and that the labels are whole numbers (class indices); the moved corners round to within a float32 step
of the distance moved (about 0.004 for a 500-pixel image and 80 classes), which changes a pick only where an IoU
lies within that rounding of the threshold, or where boxes are not much wider than that step (the span grows with
the widest and farthest box: a decode that overflows to boxes of millions of pixels beside boxes of a hundredth of a
pixel moves the small ones by steps wider than they are). `migrate` applies it where the loop's lines hold a
located problem (the loop unrolled, `Unique` in the graph) and keeps it only where the rewritten graph matches eager
mode.

TensorRT versions: NonMaxSuppression from 8.5 (INMSLayer), where the NMS called is torchvision's (or TRT397's).""",
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        fails_when=(
            "the function called is not greedy NMS of corner boxes (soft-NMS, centre-size or rotated boxes, a per-call "
            "cap): one call on every class differs from one call a class",
            "labels that are not whole numbers: two labels closer than 1 move their boxes less than the span apart",
            "an IoU within a float32 step of the moved distance of the threshold: the moved corners decide it "
            "otherwise than the loop",
            "boxes not much wider than a float32 step of the moved distance (a span stretched by a huge or far-off "
            "box): their moved corners lose their size, and their IoUs are not the loop's",
        ),
        examples=(
            Example(
                "def class_nms(boxes, scores, labels, iou_threshold):\n"
                "    kept = []\n"
                "    for label in labels.unique():\n"
                "        idx = torch.nonzero(labels == label).squeeze(1)\n"
                "        keep = nms(boxes[idx], scores[idx], iou_threshold)\n"
                "        kept.append(idx[keep])\n"
                "    return torch.cat(kept)\n",
                "def class_nms(boxes, scores, labels, iou_threshold):\n"
                "    kept = []\n"
                "    if not torch.jit.is_scripting() and _trt_tracing():\n"
                "        kept = [_trt_by_class(nms(_trt_classes_apart(boxes, labels), scores, iou_threshold), labels)]\n"
                "    else:\n"
                "        for label in labels.unique():\n"
                "            idx = torch.nonzero(labels == label).squeeze(1)\n"
                "            keep = nms(boxes[idx], scores[idx], iou_threshold)\n"
                "            kept.append(idx[keep])\n"
                "    return torch.cat(kept)\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/vision/stable/generated/torchvision.ops.batched_nms.html",
            "https://onnx.ai/onnx/operators/onnx__NonMaxSuppression.html",
            "https://onnx.ai/onnx/operators/onnx__Unique.html",
        ),
    )

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if not self.active() or self.context.function is None:
            return
        for index, loop in enumerate(node.body):
            if type(loop) is not cst.For or loop.orelse is not None or loop.asynchronous is not None \
                    or type(loop.target) is not cst.Name:
                continue
            before = node.body[:index]
            labels = self._unique_labels(loop.iter, before)
            if labels is None:
                continue
            recipe = _recipe(loop, labels, loop.target.value, self._ranges(before))
            if recipe is None:
                continue
            if recipe.marked:
                # torchvision's `_batched_nms_vanilla`: the positions set in a mask made before the loop, in no order
                tracing = f"{recipe.kept}[{_tracing_call(recipe, by_class=False)}] = True\n"
            elif _empty_list_before(before, recipe.kept) and self._read_as_whole(recipe.kept, loop):
                tracing = f"{recipe.kept} = [{_tracing_call(recipe, by_class=True)}]\n"
            else:
                continue
            torch = self.context.torch_name()
            rewritten = cst.If(
                test=cst.parse_expression(f"not {torch}.jit.is_scripting() and {TRACING_HELPER}()"),
                body=cst.IndentedBlock(body=[cst.parse_statement(tracing)]),
                orelse=cst.Else(body=cst.IndentedBlock(body=[loop.with_changes(leading_lines=())])),
                leading_lines=loop.leading_lines)
            helpers = (TRACING_HELPER, APART) + (() if recipe.marked else (BY_CLASS,))
            fix = Fix({loop: rewritten}, safety=Safety.UNSAFE, helpers=helpers)
            self.found(loop, lambda recipe=recipe: self._message(recipe), fix)

    def _unique_labels(self, iterated: cst.BaseExpression, before: list[cst.BaseStatement]
                       ) -> cst.BaseExpression | None:
        """The labels of ``torch.unique(labels)`` / ``labels.unique()`` / ``_trt_unique(labels)`` (sorted, nothing
        else asked), directly or through the last binding of a name in ``before``."""
        iterated = self._same_values(iterated)
        if type(iterated) is cst.Name:
            bound = _last_binding(before, iterated.value)
            if bound is None:
                return None
            iterated = self._same_values(bound)
        if type(iterated) is not cst.Call:
            return None
        arguments = list(iterated.args)
        own = type(iterated.func) is cst.Name and iterated.func.value == UNIQUE and len(arguments) == 1
        if own or self.context.refers_to(iterated.func, "torch.unique") is not None:
            if not arguments or arguments[0].keyword is not None or arguments[0].star:
                return None
            labels, rest = arguments[0].value, arguments[1:]
        elif type(iterated.func) is cst.Attribute and iterated.func.attr.value == "unique":
            labels, rest = iterated.func.value, arguments
        else:
            return None
        for argument in rest:
            # `sorted=True` (the default) only: any other option returns another thing to iterate
            if argument.keyword is None or argument.keyword.value != "sorted" \
                    or code_of(argument.value).strip() != "True":
                return None
        return labels

    def _ranges(self, before: list[cst.BaseStatement]) -> frozenset[str]:
        """The names whose last binding among ``before``'s simple statements is ``torch.arange(n)``: one positional
        argument (from 0 by 1), and at most a device and an int64 dtype (the positions ``nonzero`` gives are int64;
        a float range would give float positions)."""
        names = {small.targets[0].target.value for statement in before if type(statement) is cst.SimpleStatementLine
                 for small in statement.body
                 if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name}
        found = set()
        for name in names:
            bound = _last_binding(before, name)
            if type(bound) is not cst.Call or self.context.refers_to(bound.func, "torch.arange") is None \
                    or any(a.star for a in bound.args) or len([a for a in bound.args if a.keyword is None]) != 1:
                continue
            keywords = {a.keyword.value: a.value for a in bound.args if a.keyword is not None}
            if set(keywords) <= {"device", "dtype"} and ("dtype" not in keywords or self.context.refers_to(
                    keywords["dtype"], "torch.int64", "torch.long") is not None):
                found.add(name)
        return frozenset(found)

    def _same_values(self, iterated: cst.BaseExpression) -> cst.BaseExpression:
        """``iterated`` without the conversions that keep its values and their order: ``x.cpu()``, ``x.tolist()``
        (Python numbers, which compare with the labels as the tensor's entries do), ``x.detach()`` and
        ``torch.jit.annotate(List[int], x)`` (a type for the scripting compiler; eager mode returns ``x``)."""
        iterated = strip_parens(iterated)
        while type(iterated) is cst.Call:
            func = iterated.func
            if type(func) is cst.Attribute and func.attr.value in ("cpu", "tolist", "detach") and not iterated.args:
                iterated = strip_parens(func.value)
            elif len(iterated.args) == 2 and not any(a.keyword or a.star for a in iterated.args) \
                    and self.context.refers_to(func, "torch.jit.annotate") is not None:
                iterated = strip_parens(iterated.args[1].value)
            else:
                break
        return iterated

    def _read_as_whole(self, kept: str, loop: cst.For) -> bool:
        """Whether, after the loop and until it is bound again, the list is only concatenated (``torch.cat(kept,
        ...)``) or tested for truth (``if kept:``, ``if len(kept):``, ``len(kept) > 0``): the tracing branch's
        one-entry list stands for it there (a test decided on the example, as the loop's own test is)."""
        function = self.context.function
        if function is None:
            return False
        parents: dict[int, cst.CSTNode] = {}
        for node in walk(function.body):
            for child in children(node):
                parents[id(child)] = node
        inside = {id(n) for n in walk(loop)}
        after = False
        for node in walk(function.body):
            if node is loop:
                after = True
                continue
            if not after or id(node) in inside:
                continue
            if type(node) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == kept
                                                for t in node.targets):
                return self._read_as_whole_in(kept, node.value, parents)
            if type(node) is cst.Name and node.value == kept and not self._whole_read(node, parents):
                return False
        return True

    def _read_as_whole_in(self, kept: str, value: cst.BaseExpression, parents: dict[int, cst.CSTNode]) -> bool:
        return all(self._whole_read(n, parents) for n in walk(value) if type(n) is cst.Name and n.value == kept)

    def _whole_read(self, node: cst.Name, parents: dict[int, cst.CSTNode]) -> bool:
        """``torch.cat(kept, ...)``, or ``kept`` / ``len(kept)`` (alone or compared) as a test."""
        parent = parents.get(id(node))
        if type(parent) is cst.Arg and parent.keyword is None:
            call = parents.get(id(parent))
            if type(call) is cst.Call and call.args[0] is parent \
                    and self.context.refers_to(call.func, "torch.cat", "torch.concat", "torch.concatenate"):
                return True
            if type(call) is cst.Call and len(call.args) == 1 and type(call.func) is cst.Name \
                    and call.func.value == "len":
                node, parent = call, parents.get(id(call))  # type: ignore[assignment]
                if type(parent) is cst.Comparison and parent.left is node:
                    node, parent = parent, parents.get(id(parent))  # type: ignore[assignment]
        return type(parent) in (cst.If, cst.IfExp, cst.While) and parent.test is node \
            or type(parent) is cst.UnaryOperation and type(parent.operator) is cst.Not

    def _message(self, recipe: Recipe) -> str:
        gathered = f"set in the mask `{recipe.kept}`" if recipe.marked else f"gathered in `{recipe.kept}`"
        ordered = "" if recipe.marked else f" and {BY_CLASS} orders the kept positions class by class"
        return (f"NMS run class by class over `{code_of(recipe.labels).strip()}.unique()`, kept positions {gathered}: "
                f"a traced export unrolls the loop with the example's classes (each a constant); while tracing, "
                f"{code_of(recipe.call.func).strip()} runs once on the boxes moved apart by class ({APART}){ordered} "
                "(the loop otherwise)")


# --- reading the loop ---------------------------------------------------------------------
def _recipe(loop: cst.For, labels: cst.BaseExpression, label: str, ranges: frozenset[str] = frozenset()
            ) -> Recipe | None:
    """The per-class NMS recipe in ``loop``'s body (None: not one; see the rule's doc). ``ranges``: the names the
    block bound to ``torch.arange(n)`` before the loop (a range picked by the class's mask is its positions)."""
    lines = loop.body.body if type(loop.body) is cst.IndentedBlock else [cst.SimpleStatementLine(body=loop.body.body)]
    # a range the body binds again is not the range bound before the loop
    ranges = ranges - {n.value for node in walk(loop) if type(node) is cst.AssignTarget
                       for n in walk(node.target) if type(n) is cst.Name} - {label}
    masks: set[str] = set()  # names bound to `labels == c`
    positions: set[str] = set()  # names bound to the positions of `labels == c`
    picked: dict[str, cst.Subscript] = {}  # names bound to a tensor's rows of class `c` (`class_boxes = boxes[m]`)
    kept_local: dict[str, cst.Call] = {}  # name -> the NMS call that bound it
    global_kept: set[str] = set()  # names bound to the kept positions mapped back (`idx[keep]`)
    kept: str | None = None
    marked = False
    call: cst.Call | None = None
    for line in lines:
        if type(line) is cst.If and _skips(line):
            tested = variable_names(line.test)
            if not tested & (masks | positions) or tested - masks - positions - {"len", "torch"}:
                return None  # a skip of a class by its label (`if c == 0: continue`, the background): not every class
            continue
        if type(line) is not cst.SimpleStatementLine:
            return None
        for small in line.body:
            if type(small) is cst.Expr:
                appended = _appended(small.value)
                if appended is None or kept is not None:
                    return None
                name, value = appended
                value = strip_parens(value)
                if not (type(value) is cst.Name and value.value in global_kept
                        or _mapped_back(value, kept_local, masks, positions, labels, label)):
                    return None
                kept = name
                continue
            if type(small) is not cst.Assign or len(small.targets) != 1:
                return None
            target, value = small.targets[0].target, strip_parens(small.value)
            written = _marked(target, value)
            if written is not None:
                name, index = written
                if kept is not None or not _mapped_back(index, kept_local, masks, positions, labels, label) \
                        and not (type(index) is cst.Name and index.value in global_kept):
                    return None
                kept, marked = name, True  # `keep_mask[curr_indices[curr_keep_indices]] = True`
                continue
            if type(target) is cst.Tuple and len(target.elements) == 1 and type(target.elements[0].value) is cst.Name \
                    and _where_tuple(value, masks, labels, label):
                positions.add(target.elements[0].value.value)  # `(idx,) = torch.where(labels == c)`
                continue
            if type(target) is not cst.Name:
                return None
            name = target.value
            if name in picked:
                return None  # picked rows bound again: the call's arguments are read from one binding only
            if _is_mask(value, masks, labels, label):
                masks.add(name)
            elif _positions_of(value, masks, labels, label) or _range_picked(value, ranges, masks, labels, label):
                positions.add(name)
            elif _rows_picked(value, masks | positions, labels, label):
                if name in masks | positions | set(kept_local) | global_kept or name == label:
                    return None
                picked[name] = value  # type: ignore[assignment]
            elif type(value) is cst.Call and _names_nms(value.func):
                if call is not None:
                    return None
                if _picked_call(value, masks | positions, labels, label, picked) is None:
                    return None
                call = value
                kept_local[name] = value
            elif _mapped_back(value, kept_local, masks, positions, labels, label):
                global_kept.add(name)
            else:
                return None
    if kept is None or call is None:
        return None
    boxes, scores = _picked_call(call, masks | positions, labels, label, picked)  # type: ignore[misc]
    if kept in masks | positions | set(picked) | set(kept_local) | global_kept or kept == label:
        return None
    return Recipe(kept, marked, labels, call, boxes, scores)


def _marked(target: cst.BaseExpression, value: cst.BaseExpression) -> tuple[str, cst.BaseExpression] | None:
    """``(mask, index)`` for ``mask[index] = True``."""
    if type(target) is not cst.Subscript or type(target.value) is not cst.Name or len(target.slice) != 1 \
            or type(target.slice[0].slice) is not cst.Index or type(value) is not cst.Name or value.value != "True":
        return None
    return target.value.value, strip_parens(target.slice[0].slice.value)


def _skips(statement: cst.If) -> bool:
    """``if <test>: continue`` (a class with no candidate skipped): nothing else, no ``else``."""
    if statement.orelse is not None:
        return False
    body = statement.body
    small = body.body if type(body) is cst.SimpleStatementSuite else \
        [s for line in body.body if type(line) is cst.SimpleStatementLine for s in line.body] \
        if all(type(line) is cst.SimpleStatementLine for line in body.body) else []
    return len(small) == 1 and type(small[0]) is cst.Continue


def _same(node: cst.BaseExpression, other: cst.BaseExpression) -> bool:
    return code_of(strip_parens(node)).strip() == code_of(strip_parens(other)).strip()


def _is_mask(value: cst.BaseExpression, masks: set[str], labels: cst.BaseExpression, label: str) -> bool:
    """``labels == c`` (either side), ``labels.eq(c)``, ``torch.eq(labels, c)``, or a name bound to one."""
    value = strip_parens(value)
    if type(value) is cst.Name:
        return value.value in masks
    if type(value) is cst.Comparison and len(value.comparisons) == 1 \
            and type(value.comparisons[0].operator) is cst.Equal:
        sides = (value.left, value.comparisons[0].comparator)
        return any(_same(a, labels) and type(strip_parens(b)) is cst.Name and strip_parens(b).value == label
                   for a, b in (sides, sides[::-1]))
    if type(value) is cst.Call and type(value.func) is cst.Attribute:
        if value.func.attr.value == "eq" and len(value.args) == 1 and _same(value.func.value, labels):
            return _is_label(value.args[0].value, label)
        if value.func.attr.value == "eq" and len(value.args) == 2 and code_of(value.func.value).strip() == "torch":
            return _same(value.args[0].value, labels) and _is_label(value.args[1].value, label)
    return False


def _is_label(value: cst.BaseExpression, label: str) -> bool:
    value = strip_parens(value)
    return type(value) is cst.Name and value.value == label


def _positions_of(value: cst.BaseExpression, masks: set[str], labels: cst.BaseExpression, label: str) -> bool:
    """The positions of a class's mask as a 1-d index: ``torch.nonzero(m).squeeze(1)`` (``as_tuple=False``, or
    ``.view(-1)``, ``.flatten()``, ``[:, 0]``), ``m.nonzero().squeeze(1)``, ``m.nonzero(as_tuple=True)[0]``,
    ``torch.where(m)[0]``; or a name bound to one."""
    value = strip_parens(value)
    if type(value) is cst.Subscript and len(value.slice) == 1 and type(value.slice[0].slice) is cst.Index \
            and int_value(value.slice[0].slice.value) == 0:
        inner = strip_parens(value.value)
        return _nonzero_of(inner, masks, labels, label, as_tuple=True) \
            or _where_tuple(inner, masks, labels, label)
    if type(value) is cst.Subscript and len(value.slice) == 2 and type(value.slice[0].slice) is cst.Slice \
            and type(value.slice[1].slice) is cst.Index and int_value(value.slice[1].slice.value) == 0:
        return _nonzero_of(strip_parens(value.value), masks, labels, label, as_tuple=False)
    if type(value) is cst.Call and type(value.func) is cst.Attribute:
        method, arguments = value.func.attr.value, value.args
        flattens = method == "squeeze" and len(arguments) == 1 and int_value(arguments[0].value) in (1, -1) \
            or method == "view" and len(arguments) == 1 and int_value(arguments[0].value) == -1 \
            or method in ("flatten", "ravel") and not arguments
        if flattens:
            return _nonzero_of(strip_parens(value.func.value), masks, labels, label, as_tuple=False)
    return False


def _nonzero_of(value: cst.BaseExpression, masks: set[str], labels: cst.BaseExpression, label: str,
                as_tuple: bool) -> bool:
    """``torch.nonzero(m, as_tuple=<as_tuple>)`` or ``m.nonzero(...)`` of a class's mask (``as_tuple`` absent is
    False)."""
    if type(value) is not cst.Call:
        return False
    arguments = list(value.args)
    if type(value.func) is cst.Attribute and value.func.attr.value == "nonzero":
        if code_of(value.func.value).strip() == "torch":
            if not arguments or arguments[0].keyword is not None:
                return False
            mask, arguments = arguments[0].value, arguments[1:]
        else:
            mask = value.func.value
    else:
        return False
    if not _is_mask(mask, masks, labels, label):
        return False
    tupled = False
    for argument in arguments:
        if argument.keyword is None or argument.keyword.value != "as_tuple":
            return False
        text = code_of(argument.value).strip()
        if text not in ("True", "False"):
            return False
        tupled = text == "True"
    return tupled == as_tuple


def _where_tuple(value: cst.BaseExpression, masks: set[str], labels: cst.BaseExpression, label: str) -> bool:
    """``torch.where(m)`` with the mask alone (a tuple of one index per axis)."""
    value = strip_parens(value)
    return type(value) is cst.Call and code_of(value.func).strip() == "torch.where" and len(value.args) == 1 \
        and value.args[0].keyword is None and _is_mask(value.args[0].value, masks, labels, label)


def _names_nms(func: cst.BaseExpression) -> bool:
    """A function named for NMS and for no other algorithm (``nms``, ``_nms``, ``torchvision.ops.nms``,
    ``tv_nms``; not ``soft_nms``, ``batched_nms``, ``multiclass_nms``)."""
    name = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
    lowered = name.lower()
    return "nms" in lowered and not any(word in lowered for word in _OTHER_ALGORITHMS)


def _rows_picked(value: cst.BaseExpression, pickers: set[str], labels: cst.BaseExpression, label: str) -> bool:
    """``tensor[p]`` where ``p`` picks the class (a mask or positions, named or written inline) and ``tensor`` is
    free of the loop's names: the class's rows of a tensor of every candidate."""
    value = strip_parens(value)
    if type(value) is not cst.Subscript or len(value.slice) != 1 or type(value.slice[0].slice) is not cst.Index:
        return False
    picker = strip_parens(value.slice[0].slice.value)
    if not (type(picker) is cst.Name and picker.value in pickers or _is_mask(picker, set(), labels, label)):
        return False
    return not variable_names(value.value) & (pickers | {label})


def _picked_call(call: cst.Call, pickers: set[str], labels: cst.BaseExpression, label: str,
                 named: dict[str, cst.Subscript] | None = None,
                 ) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """``(boxes, scores)`` of ``nms(boxes[p], scores[p], ...)`` where ``p`` picks the class (a mask or positions,
    named or written inline; the picked rows themselves written inline or a name in ``named`` bound to them), the
    other arguments free of the loop's names and no cap among them."""
    if len(call.args) < 2 or any(a.star for a in call.args):
        return None
    named = named or {}
    picked: list[cst.BaseExpression] = []
    for argument in call.args[:2]:
        value = strip_parens(argument.value)
        if argument.keyword is not None:
            return None
        if type(value) is cst.Name and value.value in named:
            value = named[value.value]
        if not _rows_picked(value, pickers, labels, label):
            return None
        picked.append(value.value)  # type: ignore[attr-defined]
    for argument in call.args[2:]:
        if variable_names(argument.value) & (pickers | {label} | set(named)):
            return None
        if argument.keyword is not None and any(word in argument.keyword.value.lower() for word in _CAPS):
            return None
    return picked[0], picked[1]


def _mapped_back(value: cst.BaseExpression, kept_local: dict[str, cst.Call], masks: set[str], positions: set[str],
                 labels: cst.BaseExpression, label: str) -> bool:
    """``idx[keep]`` (the class's positions at the kept ones), the positions written inline
    (``torch.nonzero(m).squeeze(1)[keep]``, ``torch.where(m)[0][keep]``)."""
    value = strip_parens(value)
    if type(value) is not cst.Subscript or len(value.slice) != 1 or type(value.slice[0].slice) is not cst.Index:
        return False
    index = strip_parens(value.slice[0].slice.value)
    if type(index) is not cst.Name or index.value not in kept_local:
        return False
    base = strip_parens(value.value)
    if type(base) is cst.Name:
        return base.value in positions
    return _positions_of(base, masks, labels, label)


def _range_picked(value: cst.BaseExpression, ranges: frozenset[str], masks: set[str], labels: cst.BaseExpression,
                  label: str) -> bool:
    """``index[m]`` where ``index`` was bound to ``torch.arange(n)`` before the loop and ``m`` is the class's mask:
    a boolean mask picks from a range of its own length (any other length raises) the positions it holds, in
    order, as ``nonzero`` gives them."""
    value = strip_parens(value)
    if type(value) is not cst.Subscript or len(value.slice) != 1 or type(value.slice[0].slice) is not cst.Index:
        return False
    base = strip_parens(value.value)
    return type(base) is cst.Name and base.value in ranges \
        and _is_mask(value.slice[0].slice.value, masks, labels, label)


def _last_binding(before: list[cst.BaseStatement], name: str) -> cst.BaseExpression | None:
    """The value of the last ``name = <value>`` among ``before``'s simple statements (None where a compound statement
    or another kind of statement binds it after that)."""
    for statement in reversed(before):
        if type(statement) is not cst.SimpleStatementLine:
            if name in variable_names(statement):
                return None
            continue
        for small in reversed(statement.body):
            if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name \
                    and small.targets[0].target.value == name:
                return small.value
            if name in variable_names(small):
                return None
    return None


def _tracing_call(recipe: Recipe, by_class: bool) -> str:
    """``<nms>(_trt_classes_apart(boxes, labels), scores, <the rest>)``, in ``_trt_by_class(..., labels)`` where
    ``by_class``."""
    labels = code_of(recipe.labels).strip()
    arguments = [f"{APART}({code_of(recipe.boxes).strip()}, {labels})", code_of(recipe.scores).strip()]
    arguments += [code_of(a).strip().rstrip(",").strip() for a in recipe.call.args[2:]]
    call = f"{code_of(recipe.call.func).strip()}({', '.join(arguments)})"
    return f"{BY_CLASS}({call}, {labels})" if by_class else call


RULES = (PerClassNms,)
