"""Writes into ``x[..., [i, j]]`` that the TorchScript exporter turns into a graph ONNX Runtime refuses (TRT344).

An assignment (plain or augmented) whose subscript ends in a list of positions right after an
Ellipsis exports with ``dynamo=False`` (torch 2.13, opset 17), but the exporter writes the
Ellipsis's place among the ``index_put`` indices as an absent value: the graph holds an ``Add``
of that absent value, which ONNX Runtime refuses at load. The rewrite wraps the list in an
inserted helper (``trtcodemod/helpers/indexing.py``) that returns it untouched outside an export
and the equivalent slice while exporting, where there is one (integers of one sign in strictly
increasing even steps).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import int_value, int_values, plain_read, short_code, strip_parens, walk
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_index_list"
#: The write of positions no slice names, through a name bound to a list (``y[..., class_range] = v``).
WRITE_HELPER = "_trt_ellipsis_list_write"
#: torch functions that build an index tensor from a literal list (reported, not rewritten).
_TENSOR_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor", "torch.LongTensor", "torch.IntTensor"})


def _is_ellipsis(element: cst.SubscriptElement) -> bool:
    return type(element.slice) is cst.Index and type(element.slice.value) is cst.Ellipsis


def ellipsis_last_index(subscript: cst.Subscript) -> cst.BaseExpression | None:
    """The last index of ``x[..., <index>]`` (any elements before the Ellipsis) when it is a list literal or a
    call (``torch.tensor([0, 2])``), the forms whose write the TorchScript exporter breaks; else None.

    Measured (torch 2.13, opset 17): the write fails in ONNX Runtime only where the list comes right after the
    Ellipsis and last; ``x[..., [0, 2], :]``, ``x[..., 1, [0, 2]]`` and ``x[:, [0, 2]]`` export and run."""
    elements = list(subscript.slice)
    if len(elements) < 2 or not _is_ellipsis(elements[-2]):
        return None
    last = elements[-1].slice
    if type(last) is not cst.Index or last.star is not None:
        return None
    if type(last.value) in (cst.List, cst.Call):
        return last.value
    return None


def _list_valued(node: cst.BaseExpression) -> bool:
    """An expression that always makes a list or a tuple of positions: a literal (a tuple with at least one
    element), a comprehension, ``list(...)``/``sorted(...)``/``tuple(...)``, or the sum of two such
    (``list(range(5)) + list(range(15, 15 + nc))``). PyTorch indexes with a tuple inside the subscript
    (``x[..., (9, 19)]``) as with the list of the same positions."""
    node = strip_parens(node)
    if type(node) in (cst.List, cst.ListComp):
        return True
    if type(node) is cst.Tuple:
        return bool(node.elements) and not any(type(e) is cst.StarredElement for e in node.elements)
    if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in ("list", "sorted", "tuple"):
        return True
    return type(node) is cst.BinaryOperation and type(node.operator) is cst.Add \
        and _list_valued(node.left) and _list_valued(node.right)


def list_name_index(context, subscript: cst.Subscript) -> cst.Name | cst.Attribute | None:
    """The last index of ``x[..., name]`` where every binding of ``name`` in the enclosing function makes a list
    or a tuple (YOLOv5-Face's ``class_range = list(range(5)) + list(range(15, 15 + self.nc))``), or of
    ``x[..., self.name]`` in a method where every binding of ``name`` in the class's body and of ``self.name``
    in its methods makes one (X-VLA's ``gripper_idx = (9, 19)``); else None."""
    elements = list(subscript.slice)
    if len(elements) < 2 or not _is_ellipsis(elements[-2]):
        return None
    last = elements[-1].slice
    if type(last) is not cst.Index or last.star is not None:
        return None
    function = context.function
    if function is None:
        return None
    if type(last.value) is cst.Attribute:
        return last.value if _self_attribute_list(context, function, last.value) else None
    if type(last.value) is not cst.Name:
        return None
    name = last.value.value
    bound: list[cst.BaseExpression | None] = []
    for node in walk(function):
        if type(node) is cst.Param and node.name.value == name:
            return None
        if type(node) is cst.Assign:
            if any(type(t.target) is cst.Name and t.target.value == name for t in node.targets):
                bound.append(node.value if len(node.targets) == 1 else None)
        elif type(node) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.AsName) \
                or (type(node) in (cst.Global, cst.Nonlocal)):
            for inner in walk(node):
                if type(inner) is cst.Name and inner.value == name and _binds(node, inner):
                    return None
    if not bound or not all(value is not None and _list_valued(value) for value in bound):
        return None
    return last.value


def _self_attribute_list(context, function: cst.FunctionDef, index: cst.Attribute) -> bool:
    """``index`` is ``self.name`` in a method (``self`` its first parameter) of a class whose body binds
    ``name`` and whose methods bind ``self.name`` only to lists or tuples (at least one binding; none
    augmented, annotated without a value, unpacked or looped over)."""
    klass = context.enclosing_class
    params = function.params.params
    if klass is None or not params or type(index.value) is not cst.Name or index.value.value != params[0].name.value:
        return False
    name = index.attr.value
    bound: list[cst.BaseExpression | None] = []
    for statement in klass.body.body:  # the class body's own bindings
        for small in getattr(statement, "body", ()) if type(statement) is cst.SimpleStatementLine else ():
            if type(small) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == name
                                                 for t in small.targets):
                bound.append(small.value if len(small.targets) == 1 else None)
            elif type(small) is cst.AnnAssign and type(small.target) is cst.Name and small.target.value == name:
                bound.append(small.value)
            elif type(small) is cst.AugAssign and type(small.target) is cst.Name and small.target.value == name:
                return False
    for method in klass.body.body:
        if type(method) is not cst.FunctionDef or not method.params.params:
            continue
        owner = method.params.params[0].name.value
        for node in walk(method):
            target = None
            if type(node) is cst.AnnAssign and node.value is not None and type(node.target) is cst.Attribute \
                    and type(node.target.value) is cst.Name and node.target.value.value == owner \
                    and node.target.attr.value == name:
                bound.append(node.value)
                continue
            if type(node) in (cst.AugAssign, cst.AnnAssign):
                target = node.target
            elif type(node) in (cst.For, cst.CompFor, cst.NamedExpr, cst.AsName):
                target = node.target if type(node) is not cst.AsName else node.name
            if target is not None and any(_is_attribute(n, owner, name) for n in _bound_targets(target)):
                return False
            if type(node) is cst.Assign:
                for t in node.targets:
                    hit = [n for n in _bound_targets(t.target) if _is_attribute(n, owner, name)]
                    if hit:
                        direct = strip_parens(t.target) is hit[0] and len(node.targets) == 1
                        bound.append(node.value if direct else None)
    return bool(bound) and all(value is not None and _list_valued(value) for value in bound)


def _bound_targets(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """What an assignment target binds: itself, or the elements it unpacks into (a subscript or an attribute
    of a target binds that and nothing inside it)."""
    target = strip_parens(target)
    if type(target) in (cst.Tuple, cst.List):
        return [n for e in target.elements for n in _bound_targets(e.value)]  # type: ignore[attr-defined]
    return [target]


def _is_attribute(node: cst.CSTNode, owner: str, name: str) -> bool:
    return type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == owner \
        and node.attr.value == name


def _root(node: cst.BaseExpression) -> str | None:
    """The name an attribute chain starts from (``self`` of ``self.idx``)."""
    node = strip_parens(node)
    while type(node) is cst.Attribute:
        node = node.value
    return node.value if type(node) is cst.Name else None


def _reaches(value: cst.BaseExpression, owners: set[str]) -> bool:
    """Whether a call in ``value`` is a method of one of ``owners`` (``self.compute()``) or is handed one of
    them (``f(self)``): the ways evaluating the value could rebind an attribute of it."""
    for node in walk(value):
        if type(node) is not cst.Call:
            continue
        if type(node.func) is cst.Attribute and _root(node.func) in owners:
            return True
        if any(type(strip_parens(a.value)) is cst.Name and a.value.value in owners for a in node.args):
            return True
    return False


def _binds(node: cst.CSTNode, name: cst.Name) -> bool:
    """Whether ``name`` is what ``node`` (an augmented or annotated assignment, a loop, a walrus, an ``as``, a
    ``global``/``nonlocal``) binds."""
    if type(node) in (cst.AugAssign, cst.AnnAssign):
        return node.target is name
    if type(node) in (cst.For, cst.CompFor):
        return any(n is name for n in walk(node.target))
    if type(node) is cst.NamedExpr:
        return node.target is name
    if type(node) is cst.AsName:
        return any(n is name for n in walk(node.name))
    return True  # global / nonlocal: the name is not the function's own


def reported_index(context, subscript: cst.Subscript) -> cst.BaseExpression | None:
    """The index TRT344 reports in a write into ``subscript``: a list literal, or an index tensor built from
    one by ``torch.tensor`` and the like, right after an Ellipsis and last, or a name the function binds only
    to lists there (TRT203 leaves these writes to it)."""
    named = list_name_index(context, subscript)
    if named is not None:
        return named
    index = ellipsis_last_index(subscript)
    if type(index) is cst.Call and not any(n in _TENSOR_FACTORIES for n in context.qualified_names(index.func)):
        return None
    return index


def _why_not_a_slice(values: list[int]) -> str | None:
    """Why the positions have no slice of their own (None: they have one)."""
    if not values:
        return "an empty list"
    if (values[0] < 0) != (values[-1] < 0):
        return "positions of both signs (which come first depends on the axis's length)"
    if len(values) > 1:
        step = values[1] - values[0]
        if len(set(values)) != len(values):
            return "a repeated position"
        if step <= 0 or any(b - a <= 0 for a, b in zip(values, values[1:])):
            return "positions out of increasing order"
        if any(b - a != step for a, b in zip(values, values[1:])):
            return "positions that are not evenly spaced"
    return None


def _slice_text(values: list[int]) -> str:
    step = values[1] - values[0] if len(values) > 1 else 1
    stop = values[-1] + 1
    text = f"{values[0]}:{'' if stop == 0 else stop}"
    return text + (f":{step}" if step != 1 else "")


def _before_ellipsis_is_basic(subscript: cst.Subscript) -> bool:
    """Every index before the Ellipsis is a slice, an integer literal or ``None``: none can be a second index
    tensor, next to which the list and a slice would place the written elements differently."""
    for element in list(subscript.slice)[:-2]:
        sl = element.slice
        if type(sl) is cst.Slice:
            continue
        if type(sl) is cst.Index and sl.star is None and (
                int_value(sl.value) is not None or (type(sl.value) is cst.Name and sl.value.value == "None")):
            continue
        return False
    return True


class EllipsisIndexWrite(Rule):
    needs_text = (b"...",)
    info = RuleInfo(
        id="TRT344",
        name="ellipsis-index-write",
        summary="a write into `x[..., [0, 2]]` exports (TorchScript exporter) as a graph ONNX Runtime refuses; the "
                "list becomes the same positions' slice while exporting",
        doc="""\
What it finds: an assignment, plain or augmented, into a subscript that ends in a list of
positions right after an Ellipsis: `boxes[..., [0, 2]] -= pad[0]`, `xyxy[..., [1, 3]] /= h`,
`boxes[..., [0, 2]] = boxes[..., [0, 2]].clamp(0, w)`, `x[0, ..., [1]] = v`, in a file that
imports torch. Detection models write box coordinates this way when they scale boxes back to the
image, normalize them or clip them to its border (YOLOv5's `scale_boxes`, ultralytics' RT-DETR
predictor and `Boxes.xyxyn`, the NumPy branch of ultralytics' `clip_boxes`).

Why it hurts: the TorchScript exporter (torch 2.13, opset 17, static or dynamic axes) exports
the write, but its `index_put` carries the Ellipsis's place as an absent value: the graph
holds an `Add` of that absent value, and ONNX Runtime refuses to load it ("Node (/Add)'s input
0 is marked single but has an empty string in the graph"). Reads (`y = x[..., [0, 2]]`), a list that
is not last or not right after the Ellipsis (`x[..., [0, 2], :]`, `x[..., 1, [0, 2]]`), a list
with no Ellipsis (`x[:, [0, 2]] -= v`) and a slice with a step (`x[..., 0:3:2] -= v`) export and
run; so does the write with the dynamo exporter. An index tensor there
(`x[..., torch.tensor([0, 2])]`) fails the same way.

The rewrite: the list → `_trt_index_list([0, 2])`, an inserted helper that returns the list
itself outside `torch.onnx.export`; while exporting, the slice that names the same positions
(`0:3:2`; `[k]` is `k:k+1`; `[-3, -1]` is `-3::2`), where the positions are integer literals of
one sign in strictly increasing even steps, so the exporter writes an ordinary strided slice
write. The value written, the reads of the same list on the right-hand side and the rest of the
subscript are left as they are. Reported without a fix: an empty list, repeated positions,
positions out of order, unevenly spaced or of both signs (no slice names them), elements that
are not integer literals (`[i, j]`), an index tensor (write the list instead), and an index
before the Ellipsis that is not a slice, an integer literal or `None` (a second index tensor
there would place the written elements otherwise next to a slice).

Positions held by a name: `y[..., class_range] = x[..., class_range].sigmoid()`, where every
binding of `class_range` in the function makes a list or a tuple (a literal, a comprehension,
`list(...)`, `sorted(...)`, `tuple(...)` or a sum of such: YOLOv5-Face's `Detect.forward` writes
its box, objectness and class columns through `list(range(5)) + list(range(15, 15 + self.nc))`,
positions no slice names; FLUX3's unnormalizer in LeRobot through a list comprehension), or by an
attribute of `self` in a method, where the class body's bindings of the name and the methods'
bindings of `self.name` all make one (LeRobot's X-VLA action spaces hold `gripper_idx = (9, 19)`
in the class body, FLUX3's normalizer `self.absolute_dims = list(absolute_dims or [])` in
`__init__`; PyTorch indexes with a tuple there as with the list). A plain assignment
`target[..., positions] = value` whose target is a name or an attribute
becomes `_trt_ellipsis_list_write(target, positions, value)`: outside `torch.onnx.export` (and under
`torch.jit.script`) the helper makes the assignment itself on the same objects; while exporting,
where the positions are distinct, non-negative and below the last axis's length, it writes them
with `target.index_copy_(-1, positions, value broadcast to the part written)` (an ONNX
ScatterElements whose indices follow every size; measured equal to eager mode in ONNX Runtime at
other batch and spatial sizes). Anything else (a repeated or negative position, a bool or tensor
index, a value with more axes than the part) keeps the original write, as does a subclass that binds
the attribute to something else. Python evaluates the value before the target and the index, the
call after them; both are plain reads of names and attributes, and where one is an attribute the value
may not call a method of its owner or hand the owner on (`self.compute()` could rebind it): the objects are the same.
Augmented writes (`commands[..., dims] += anchor`: the in-place operation on the copy keeps the
target's dtype or raises, which an out-of-place value would not) and a subscript with indices
before the Ellipsis are reported without a fix. TRT203 stays quiet on these
writes: this rule's finding and fix replace its "not an integer literal" note. In the pinned
ultralytics 8.4.190, kornia, boxmot, effdet, segment_anything, monai and torchvision sources
(1863 files, every scope) the rule finds 12 such writes, all in ultralytics, and rewrites all 12.

Fix safety: safe. Outside an export the subscript receives the very list it had, so eager
mode, `torch.fx`, `torch.compile` and `torch.export` run the original write (values, dtype,
strides, aliasing, gradients, errors: a position past the axis still raises `IndexError`);
`torch.jit.script` refuses the original ("Ellipses followed by tensor indexing is currently not
supported") and refuses the rewrite the same way. While exporting, a slice write and the list's
write change the same elements by the same operation: augmented assignment on the list reads a
copy, operates and writes it back, on the slice it operates on a view in place; the values are
the same, and the graph's match eager mode's (measured at two sizes with dynamic axes, both
exporters). One difference stays while exporting: where the axis is shorter than a position,
the original raises and the slice takes fewer elements (a traced graph cannot raise either way).
The rule does not ask whether the subscripted value is a tensor: a NumPy array (ultralytics'
`clip_boxes` writes the same line in its NumPy branch) takes the slice while exporting as it
takes the list, the same elements. The helper's call costs about 0.2 microseconds per write in
eager mode (measured: 1.003 to 1.017 times the original's time on the three models of
tests/recipe_variants/trt344/ with literal lists; `_trt_ellipsis_list_write` 0.89 to 1.06 times on
its five named-form models, best of seven runs on a shared 2-core machine).

TensorRT versions: all (the fix is for ONNX Runtime's refusal and the exporter's graph; the
slice write is a `ScatterND`, which TensorRT parses from 8.2, like any write into part of a
tensor: TRT203).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def scale_boxes(boxes: torch.Tensor, gain: float, pad_w: float, pad_h: float):\n"
                "    boxes[..., [0, 2]] -= pad_w\n"
                "    boxes[..., [1, 3]] -= pad_h\n"
                "    boxes[..., :4] /= gain\n"
                "    return boxes\n",
                "def scale_boxes(boxes: torch.Tensor, gain: float, pad_w: float, pad_h: float):\n"
                "    boxes[..., _trt_index_list([0, 2])] -= pad_w\n"
                "    boxes[..., _trt_index_list([1, 3])] -= pad_h\n"
                "    boxes[..., :4] /= gain\n"
                "    return boxes\n",
            ),
            Example(
                "def clip_boxes(boxes: torch.Tensor, h: int, w: int):\n"
                "    boxes[..., [0, 2]] = boxes[..., [0, 2]].clamp(0, w)\n"
                "    return boxes\n",
                "def clip_boxes(boxes: torch.Tensor, h: int, w: int):\n"
                "    boxes[..., _trt_index_list([0, 2])] = boxes[..., [0, 2]].clamp(0, w)\n"
                "    return boxes\n",
            ),
            Example(
                "def decode(x: torch.Tensor, nc: int):\n"
                "    y = torch.full_like(x, 0)\n"
                "    class_range = list(range(5)) + list(range(15, 15 + nc))\n"
                "    y[..., class_range] = x[..., class_range].sigmoid()\n"
                "    return y\n",
                "def decode(x: torch.Tensor, nc: int):\n"
                "    y = torch.full_like(x, 0)\n"
                "    class_range = list(range(5)) + list(range(15, 15 + nc))\n"
                "    _trt_ellipsis_list_write(y, class_range, x[..., class_range].sigmoid())\n"
                "    return y\n",
            ),
            Example("def shift(points: torch.Tensor, dx: float):\n"
                    "    points[..., [0, 1, 3]] += dx\n    return points\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/tensor_view.html",
            "https://onnx.ai/onnx/operators/onnx__ScatterND.html",
            "https://github.com/ultralytics/ultralytics/blob/main/ultralytics/models/rtdetr/predict.py",
            "https://github.com/ultralytics/yolov5/blob/master/utils/general.py",
            "https://github.com/deepcam-cn/yolov5-face/blob/master/models/yolo.py",
            "https://pytorch.org/docs/stable/generated/torch.Tensor.index_copy_.html",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._torch = context.imports.imports_module("torch")

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._target(target.target, node if len(node.targets) == 1 else None)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._target(node.target)

    def _target(self, target: cst.BaseExpression, statement: cst.Assign | None = None) -> None:
        if type(target) in (cst.Tuple, cst.List):
            for element in target.elements:  # type: ignore[attr-defined]
                self._target(element.value)
            return
        if type(target) is not cst.Subscript or not self._torch or in_inserted_helper(self):
            return
        index = reported_index(self.context, target)
        if index is None:
            return
        message = (f"a write into `{short_code(target, 40)}` (a list right after an Ellipsis) exports with the "
                   "TorchScript exporter as a graph ONNX Runtime refuses (an `Add` of an absent input)")
        if type(index) in (cst.Name, cst.Attribute):
            self._named_list(target, index, statement, message)
            return
        if type(index) is cst.Call:
            self.report(target, f"{message}; not rewritten: an index tensor (write the list of positions itself, "
                                "which indexes the same way, and apply again)")
            return
        assert type(index) is cst.List
        values = int_values(index)
        if values is None:
            why = "elements that are not integer literals"
        else:
            why = _why_not_a_slice(values)
            why = why and f"{why}: no slice names the same positions"
        if why is None and not _before_ellipsis_is_basic(target):
            why = "an index before the Ellipsis that may be a tensor (a slice would place the elements otherwise)"
        if why is not None:
            self.report(target, f"{message}; not rewritten: {why}")
            return
        assert values is not None
        call = cst.Call(func=cst.Name(HELPER), args=[cst.Arg(value=index)])
        self.report(target, f"{message}; `{HELPER}` gives the exporter the slice `{_slice_text(values)}` (the list "
                            "itself otherwise)",
                    Fix({index: call}, helpers=(HELPER,)))


    def _named_list(self, target: cst.Subscript, index: cst.Name | cst.Attribute, statement: cst.Assign | None, message: str) -> None:
        """``y[..., positions] = v`` with ``positions`` a name bound to lists: the statement becomes
        ``_trt_ellipsis_list_write(y, positions, v)``, where the write and its evaluation cannot be told apart."""
        elements = list(target.slice)
        if statement is None:
            self.report(target, f"{message}; not rewritten: only a plain `x[..., positions] = value` is")
            return
        if len(elements) != 2 or not plain_read(target.value) or type(strip_parens(target.value)) not in (
                cst.Name, cst.Attribute):
            self.report(target, f"{message}; not rewritten: the written tensor is not a name or an attribute, or "
                                "indexes before the Ellipsis")
            return
        owners = {_root(n) for n in (target.value, index) if type(strip_parens(n)) is cst.Attribute} - {None}
        if owners and _reaches(statement.value, owners):
            self.report(target, f"{message}; not rewritten: the value calls a method of `{sorted(owners)[0]}` or "
                                "hands it on, which could rebind the attribute written or read before the write")
            return
        # Python evaluates the value before the target and the index; both are plain reads of names and
        # attributes, and no call in the value reaches the attributes' owner, so the call's order (target,
        # index, value) reads the same objects.
        call = cst.Call(cst.Name(WRITE_HELPER), [
            cst.Arg(strip_parens(target.value), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(index, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(statement.value),
        ])
        self.report(target, f"{message}; `{WRITE_HELPER}` writes the positions with `index_copy_` along the last "
                            "axis while exporting (no slice names them; the assignment itself otherwise)",
                    Fix({statement: cst.Expr(call, semicolon=statement.semicolon)}, helpers=(WRITE_HELPER,)))


RULES = (EllipsisIndexWrite,)
