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

from trtcodemod.astutil import int_value, int_values, short_code
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_index_list"
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


def reported_index(context, subscript: cst.Subscript) -> cst.BaseExpression | None:
    """The index TRT344 reports in a write into ``subscript``: a list literal, or an index tensor built from
    one by ``torch.tensor`` and the like, right after an Ellipsis and last (TRT203 leaves these writes to it)."""
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
there would place the written elements otherwise next to a slice). TRT203 stays quiet on these
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
tests/recipe_variants/trt344/).

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
            Example("def shift(points: torch.Tensor, dx: float):\n"
                    "    points[..., [0, 1, 3]] += dx\n    return points\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/tensor_view.html",
            "https://onnx.ai/onnx/operators/onnx__ScatterND.html",
            "https://github.com/ultralytics/ultralytics/blob/main/ultralytics/models/rtdetr/predict.py",
            "https://github.com/ultralytics/yolov5/blob/master/utils/general.py",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._torch = context.imports.imports_module("torch")

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._target(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._target(node.target)

    def _target(self, target: cst.BaseExpression) -> None:
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


RULES = (EllipsisIndexWrite,)
