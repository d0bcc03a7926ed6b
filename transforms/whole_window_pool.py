"""Pooling whose window is the whole axis of the tensor it pools → a reduction while exporting (TRT342).

Older code writes global pooling as a pooling whose window is read from the input's own sizes:
``F.avg_pool2d(x, x.size()[2:])``, ``F.max_pool2d(x, (h, w))`` after ``n, c, h, w = x.size()``,
``F.avg_pool2d(x, (x.size(2), 1))`` (strip pooling over the height). While the TorchScript exporter
traces, those sizes are traced values and the pooling symbolic stops on a kernel that is not
constant. The rewrite calls an inserted helper (``trtcodemod/helpers/whole_pooling.py``) that is
torch's own function outside an export and a mean (amax) over those axes while exporting.

What the window means is followed per function: the local names bound from a tensor's sizes
(``h, w = x.shape[2:]``, ``n, c, h, w = x.size()``, ``h = x.size(2)``, ``size = x.size()[2:]``,
``size = (h, w)``), each with the tensor and the axis it was read from; a name rebound, or a
tensor rebound (``x = self.conv(x)``) or resized in place, is forgotten, and so is a name bound
in a branch or a loop when the block ends (and, in a loop, anything the loop body rebinds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

import libcst as cst

from trtcodemod.astutil import argument, bound_names, code_of, has_star_args, int_value, strip_parens, walk
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._attribute_config import class_writes
from trtcodemod.transforms._op_calls import in_inserted_helper

_AVG = ("input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
_AVG_1D = _AVG[:-1]
_MAX = ("input", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices")

#: torch's function -> (pooled axes, max?, its parameters in order, the helper).
_FUNCTIONS = {
    "torch.nn.functional.avg_pool1d": (1, False, _AVG_1D, "_trt_whole_avg_pool1d"),
    "torch.avg_pool1d": (1, False, _AVG_1D, "_trt_whole_avg_pool1d"),
    "torch.nn.functional.avg_pool2d": (2, False, _AVG, "_trt_whole_avg_pool2d"),
    "torch.nn.functional.avg_pool3d": (3, False, _AVG, "_trt_whole_avg_pool3d"),
    **{f"torch.nn.functional.max_pool{n}d": (n, True, _MAX, f"_trt_whole_max_pool{n}d") for n in (1, 2, 3)},
    **{f"torch.max_pool{n}d": (n, True, _MAX[:-1], f"_trt_whole_max_pool{n}d") for n in (1, 2, 3)},
}

#: In-place methods that change a tensor's shape: its sizes read before no longer hold.
_RESHAPING_IN_PLACE = frozenset({"unsqueeze_", "squeeze_", "resize_", "resize_as_", "transpose_", "t_", "swapaxes_",
                                 "swapdims_", "as_strided_", "set_"})


@dataclass(frozen=True)
class _Axis:
    """One size of the tensor named ``owner``: ``owner.size(axis)``."""
    owner: str
    axis: int


@dataclass(frozen=True)
class _Shape:
    """``owner.shape[start:stop]`` (``stop`` None: to the end)."""
    owner: str
    start: int
    stop: int | None


#: A window entry: a size of a tensor, a literal int, or unknown (None).
_Entry = Union[_Axis, int, None]


@dataclass(frozen=True)
class _Seq:
    entries: tuple[_Entry, ...]


_Fact = Union[_Axis, _Shape, _Seq]


@dataclass
class _Frame:
    facts: dict[str, _Fact] = field(default_factory=dict)
    #: Per open block (branch, loop, try, with): the names bound in it, forgotten when it ends.
    blocks: list[set[str]] = field(default_factory=list)

    def forget(self, name: str) -> None:
        """``name`` is rebound: what it held, and every size read from it, no longer holds."""
        self.facts.pop(name, None)
        for key, fact in list(self.facts.items()):
            if _owners(fact) & {name}:
                del self.facts[key]

    def bind(self, name: str, fact: _Fact | None) -> None:
        self.forget(name)
        if fact is not None:
            self.facts[name] = fact
            if self.blocks:
                self.blocks[-1].add(name)


def _owners(fact: _Fact) -> set[str]:
    if type(fact) is _Seq:
        return {e.owner for e in fact.entries if type(e) is _Axis}
    return {fact.owner}  # type: ignore[union-attr]


_BLOCKS = (cst.If, cst.For, cst.While, cst.Try, cst.With, cst.Match) if hasattr(cst, "Match") else \
    (cst.If, cst.For, cst.While, cst.Try, cst.With)


class WholeWindowPool(Rule):
    needs_text = spelled(*_FUNCTIONS)
    info = RuleInfo(
        id="TRT342",
        name="whole-window-pool",
        summary="pooling whose window is read from the pooled tensor's own sizes (global pooling written as "
                "`F.avg_pool2d(x, x.size()[2:])`) stops the TorchScript export: the kernel is not constant; a mean "
                "(amax) over those axes instead",
        doc="""\
What it finds: `F.avg_pool1d/2d/3d`, `F.max_pool1d/2d/3d`, `torch.avg_pool1d` and
`torch.max_pool1d/2d/3d` (under any import: `nn.functional.avg_pool2d`, `from torch.nn.functional
import avg_pool2d`) whose window on a pooled axis is that axis's size of the same tensor it pools:
global pooling as older code writes it. `F.avg_pool2d(x, x.size()[2:])`,
`kernel_size=x.shape[-2:]`, `(x.data.size()[2], x.data.size()[3])`, `(h, w)` from
`n, c, h, w = x.size()` or `h, w = x.shape[2:]`, `size = x.size()[2:]` then
`F.avg_pool2d(x, size, stride=size)`, and strip pooling over one whole axis, `(x.size(2), 1)`.
What a window means is followed per function: each local name bound from a tensor's sizes keeps
the tensor and the axis it was read from; a name rebound is forgotten, and so is every size read
from a tensor rebound (`x = self.conv(x)`) or reshaped in place (`x.unsqueeze_(0)`), and a name bound
in a branch or loop once the block ends (in a loop, whatever its body rebinds). The pooled tensor
must be a plain name. A call with unpacked arguments, padding other than 0 or a dilation other than
1 on a whole axis, a `divisor_override` or `return_indices` other than `None`/`False` is reported
without a fix. The pooling may also be one the module stores: `self.avg_pool(x0, kernel_size=x0.shape[2:])`
where the class writes `self.avg_pool` once, in `__init__`, with torch's pooling functions only, also
chosen by a conditional expression (cellpose's `make_style`, `cellpose/resnet_torch.py:132`:
`self.avg_pool = F.avg_pool3d if conv_3D else F.avg_pool2d`), all averages or all maxima.

Why it hurts: while the TorchScript exporter traces, `x.size()` holds traced values, and the
pooling symbolic needs a constant kernel: the export stops with "Failed to export a node ...
onnx::Gather ... because it is not constant. Please try to make things (e.g. kernel sizes) static"
(torch 2.13), with a dynamic batch alone too (the shape it gathers from is not constant). Sizes read
through `x.data` are Python ints while tracing, and `F.max_pool1d`'s symbolic takes a traced size
as a constant: those exports succeed, with no warning, with the traced size baked into the window,
so the graph is wrong at every other size (the rewrite reduces the whole axes at any size). `migrate` applies the rule's findings in a file together once the
export stops at one of them (the exporter stops at the first such call).

The rewrite: `F.avg_pool2d(x, x.size()[2:])` → `_trt_whole_avg_pool2d(x, x.size()[2:], whole=(2, 3))`
(`_trt_whole_max_pool2d`, the 1-D and 3-D forms alike), the arguments unchanged; `whole` gives,
for each pooled axis in order, the axis of `x` whose size the window reads (`None` where the window
is something else, as the `1` of a strip). For a stored pooling, the helpers are stored in its place
(`self.avg_pool = _trt_whole_avg_pool3d if conv_3D else _trt_whole_avg_pool2d`) and the call is given
one `whole` entry per number of pooled axes (`whole=((2, 3), (2, 3, 4))`; each helper takes the one of
its own); the module's other calls of the attribute pass no `whole` and are torch's call. The inserted helper is torch's function itself outside
`torch.onnx.export`. While exporting a floating tensor, on each pooled axis whose entry names that
very axis at the input's rank (`x.size()[2:]` read as axes 2 and 3 is the whole window of a 4-D
input only: a 3-D input keeps torch's call) and has padding 0 (dilation 1), it takes the mean
(`amax` for max pooling) over those axes with `keepdim` (ReduceMean / ReduceMax); a window as long
as its axis with no padding gives one output whatever the stride and `ceil_mode`, so neither needs
to match. Where another axis pools a window of its own (Python ints), torch's pooling follows with a
window of 1 on the reduced axes and the given window, stride, padding, `ceil_mode` and
`count_include_pad` on the others (the same sums over the same elements). Anything else keeps
torch's call (and its error) while exporting too.

Fix safety: safe. Eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`
run torch's function itself (values, dtype, gradients, errors: a window larger than the input
raises as before; a stored pooling is the helper object, so only code that compares the attribute with
torch's function by identity sees the change). The exported graph computes the same mean or maximum: equal within a rounding
for the mean (ReduceMean sums in another order than torch's pooling kernel), exact for the
maximum, infinities included; where a window holds a NaN, torch gives NaN and ONNX Runtime's
ReduceMax gives NaN or skips it, depending on the axes (its MaxPool skips it). An axis of size 0 raises in torch but gives NaN (an empty
mean) in the graph.

TensorRT versions: every release parses ReduceMean and ReduceMax.""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def forward(self, x):\n    x = F.avg_pool2d(x, x.size()[2:])\n    return x\n",
                "def forward(self, x):\n    x = _trt_whole_avg_pool2d(x, x.size()[2:], whole=(2, 3))\n    return x\n",
            ),
            Example(
                "def forward(self, x):\n    n, c, h, w = x.size()\n    return F.max_pool2d(x, (h, 1))\n",
                "def forward(self, x):\n    n, c, h, w = x.size()\n    return _trt_whole_max_pool2d(x, (h, 1), whole=(2, None))\n",
            ),
            Example("def forward(self, x):\n    return F.avg_pool2d(x, x.size()[2:], divisor_override=4)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.avg_pool2d.html",
            "https://github.com/pytorch/pytorch/blob/main/torch/onnx/_internal/torchscript_exporter/symbolic_opset9.py",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._frames: list[_Frame] = [_Frame()]
        self._classes: list[cst.ClassDef] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._classes.pop()

    # --- what names hold -------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._frames.append(_Frame())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._frames.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._frames.append(_Frame())

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._frames.pop()

    def _frame(self) -> _Frame:
        return self._frames[-1]

    def _enter_block(self, node: cst.CSTNode) -> None:
        frame = self._frame()
        if type(node) in (cst.For, cst.While):
            # The body runs again after its later lines: what it rebinds holds nowhere in it.
            for inner in walk(node):
                for name in _assigned(inner):
                    frame.forget(name)
        frame.blocks.append(set())

    def _leave_block(self) -> None:
        frame = self._frame()
        if frame.blocks:
            for name in frame.blocks.pop():
                frame.forget(name)

    def visit_If(self, node: cst.If) -> None:
        self._enter_block(node)

    def leave_If(self, original_node: cst.If) -> None:
        self._leave_block()

    def visit_For(self, node: cst.For) -> None:
        self._enter_block(node)

    def leave_For(self, original_node: cst.For) -> None:
        self._leave_block()

    def visit_While(self, node: cst.While) -> None:
        self._enter_block(node)

    def leave_While(self, original_node: cst.While) -> None:
        self._leave_block()

    def visit_Try(self, node: cst.Try) -> None:
        self._enter_block(node)

    def leave_Try(self, original_node: cst.Try) -> None:
        self._leave_block()

    def visit_With(self, node: cst.With) -> None:
        self._enter_block(node)

    def leave_With(self, original_node: cst.With) -> None:
        self._leave_block()

    def leave_Assign(self, original_node: cst.Assign) -> None:
        for target in original_node.targets:
            self._bind(target.target, original_node.value)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        self._bind(original_node.target, original_node.value)

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        self._bind(original_node.target, None)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, None)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind(node.asname.name, None)

    def leave_Del(self, original_node: cst.Del) -> None:
        for name in bound_names(original_node.target):
            self._frame().forget(name)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        frame = self._frame()
        if type(target) is cst.Name:
            frame.bind(target.value, self._fact(value) if value is not None else None)
            return
        if type(target) in (cst.Tuple, cst.List):
            facts = self._unpacked(target, value) if value is not None else None  # type: ignore[arg-type]
            names = bound_names(target)
            for name in names:
                frame.forget(name)
            for name, fact in (facts or {}).items():
                frame.bind(name, fact)
            return
        for name in bound_names(target):
            frame.forget(name)

    def _unpacked(self, target: cst.Tuple | cst.List, value: cst.BaseExpression) -> dict[str, _Fact]:
        """``n, c, h, w = x.size()``, ``*_, h, w = x.shape``, ``h, w = x.shape[-2:]``, ``h, w = x.size(2), x.size(3)``."""
        elements = list(target.elements)
        out: dict[str, _Fact] = {}
        if type(value) in (cst.Tuple, cst.List) and len(value.elements) == len(elements) \
                and not any(type(e) is cst.StarredElement for e in [*elements, *value.elements]):  # type: ignore
            for element, item in zip(elements, value.elements):  # type: ignore[union-attr]
                if type(element.value) is cst.Name:
                    fact = self._fact(item.value)
                    if fact is not None:
                        out[element.value.value] = fact
            return out
        shape = self._shape(value)
        if shape is None:
            return out
        stars = [i for i, e in enumerate(elements) if type(e) is cst.StarredElement]
        if len(stars) > 1:
            return out
        for i, element in enumerate(elements):
            if type(element) is cst.StarredElement or type(element.value) is not cst.Name:
                continue
            if stars and i > stars[0]:
                if shape.stop is not None and shape.stop != 0:
                    continue
                axis = i - len(elements)  # counted from the end (the slice runs to it)
                if shape.start < 0 and axis < shape.start:
                    continue
            else:
                if shape.start < 0:
                    if shape.stop is not None or len(elements) != -shape.start:
                        continue
                axis = shape.start + i
                if shape.stop is not None and shape.start >= 0 and shape.stop >= 0 \
                        and len(elements) != shape.stop - shape.start:
                    continue
            out[element.value.value] = _Axis(shape.owner, axis)
        return out

    def _fact(self, value: cst.BaseExpression) -> _Fact | None:
        shape = self._shape(value)
        if shape is not None:
            return shape
        entry = self._entry(value)
        if type(entry) is _Axis:
            return entry
        if type(value) in (cst.Tuple, cst.List):
            entries = self._entries(value)
            if entries is not None and any(type(e) is _Axis for e in entries):
                return _Seq(tuple(entries))
        if type(value) is cst.Name:
            held = self._frame().facts.get(value.value)
            if held is not None:
                return held
        return None

    # --- what an expression is -------------------------------------------------------
    def _owner(self, expr: cst.BaseExpression) -> str | None:
        """``x`` for ``x``, ``x.data``, ``x.detach()`` (the same sizes), where ``x`` is a plain local name."""
        while True:
            if type(expr) is cst.Attribute and expr.attr.value == "data":
                expr = expr.value
            elif type(expr) is cst.Call and not expr.args and type(expr.func) is cst.Attribute \
                    and expr.func.attr.value == "detach":
                expr = expr.func.value
            else:
                break
        if type(expr) is cst.Name and not self.context.qualified_names(expr) and expr.value not in ("self", "cls"):
            return expr.value
        return None

    def _whole_shape(self, expr: cst.BaseExpression) -> str | None:
        """The owner of ``x.shape`` / ``x.size()``."""
        if type(expr) is cst.Attribute and expr.attr.value == "shape":
            return self._owner(expr.value)
        if type(expr) is cst.Call and not expr.args and type(expr.func) is cst.Attribute \
                and expr.func.attr.value == "size":
            return self._owner(expr.func.value)
        return None

    def _shape(self, expr: cst.BaseExpression) -> _Shape | None:
        """``x.shape``, ``x.size()``, ``x.shape[a:]``, ``x.size()[a:b]``, ``tuple(...)`` of one, or a name bound to one."""
        owner = self._whole_shape(expr)
        if owner is not None:
            return _Shape(owner, 0, None)
        if type(expr) is cst.Subscript and len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Slice:
            whole = self._shape(expr.value)
            piece = expr.slice[0].slice
            if whole is None or whole.start != 0 or whole.stop is not None or piece.step is not None:
                return None
            start = 0 if piece.lower is None else int_value(piece.lower)
            stop = None if piece.upper is None else int_value(piece.upper)
            if start is None or (piece.upper is not None and stop is None):
                return None
            # `x.shape[:-2]`, `x.shape[1:-1]`: lengths that depend on the rank
            if (start >= 0 and (stop is None or stop >= start)) or (start < 0 and (stop is None or start <= stop < 0)):
                return _Shape(whole.owner, start, stop)
            return None
        if type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value in ("tuple", "list") \
                and len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star \
                and not self.context.qualified_names(expr.func):
            return self._shape(expr.args[0].value)
        if type(expr) is cst.Name:
            held = self._frame().facts.get(expr.value)
            return held if type(held) is _Shape else None
        return None

    def _entry(self, expr: cst.BaseExpression) -> _Entry:
        """One window: a size of a tensor (``x.size(2)``, ``x.shape[-1]``, ``x.size()[3]``, ``int(...)`` of
        one, a name bound to one), a literal int, or None."""
        literal = int_value(expr)
        if literal is not None:
            return literal
        if type(expr) is cst.Name:
            held = self._frame().facts.get(expr.value)
            return held if type(held) is _Axis else None
        if type(expr) is cst.Subscript and len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index:
            index = int_value(expr.slice[0].slice.value)
            if index is None:
                return None
            shape = self._shape(expr.value)
            if shape is not None:
                if shape.start == 0 and shape.stop is None:
                    return _Axis(shape.owner, index)
                if shape.start >= 0 and index >= 0 and (shape.stop is None or shape.start + index < shape.stop):
                    return _Axis(shape.owner, shape.start + index)
                length = -shape.start if shape.stop is None else shape.stop - shape.start
                if shape.start < 0 and 0 <= index < length:
                    return _Axis(shape.owner, shape.start + index)
                return None
            if type(expr.value) is cst.Name:
                held = self._frame().facts.get(expr.value.value)
                if type(held) is _Seq and -len(held.entries) <= index < len(held.entries):
                    return held.entries[index]
            return None
        if type(expr) is cst.Call and not has_star_args(expr):
            func = expr.func
            if type(func) is cst.Attribute and func.attr.value == "size" and len(expr.args) == 1 \
                    and (expr.args[0].keyword is None or expr.args[0].keyword.value == "dim"):
                owner = self._owner(func.value)
                index = int_value(expr.args[0].value)
                return _Axis(owner, index) if owner is not None and index is not None else None
            if type(func) is cst.Name and func.value == "int" and len(expr.args) == 1 \
                    and expr.args[0].keyword is None and not self.context.qualified_names(func):
                inner = self._entry(expr.args[0].value)
                return inner if type(inner) is _Axis else None
        return None

    def _entries(self, expr: cst.BaseExpression) -> list[_Entry] | None:
        if type(expr) in (cst.Tuple, cst.List):
            if any(type(e) is cst.StarredElement for e in expr.elements):  # type: ignore[union-attr]
                return None
            return [self._entry(e.value) for e in expr.elements]  # type: ignore[union-attr]
        if type(expr) is cst.Name:
            held = self._frame().facts.get(expr.value)
            if type(held) is _Seq:
                return list(held.entries)
        return None

    def _windows(self, expr: cst.BaseExpression, count: int) -> list[_Entry] | None:
        """The window on each of the ``count`` pooled axes, as the code reads it."""
        shape = self._shape(expr)
        if shape is not None:
            if shape.start >= 0:
                if shape.stop is not None and shape.stop - shape.start not in (1, count):
                    return None
                if shape.stop is not None and shape.stop - shape.start == 1:
                    return [_Axis(shape.owner, shape.start)] * count
                return [_Axis(shape.owner, shape.start + i) for i in range(count)]
            length = -shape.start if shape.stop is None else shape.stop - shape.start
            if length == 1:
                return [_Axis(shape.owner, shape.start)] * count
            if length != count:
                return None
            return [_Axis(shape.owner, shape.start + i) for i in range(count)]
        entries = self._entries(expr)
        if entries is not None:
            if len(entries) == 1:
                return entries * count
            return entries if len(entries) == count else None
        entry = self._entry(expr)
        return [entry] * count if entry is not None else None

    # --- the calls ---------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is cst.Attribute and func.attr.value in _RESHAPING_IN_PLACE:
            owner = self._owner(func.value)
            if owner is not None:
                frame = self._frame()
                for key, fact in list(frame.facts.items()):
                    if owner in _owners(fact):
                        del frame.facts[key]
        if in_inserted_helper(self):
            return
        function = self.context.refers_to(func, *_FUNCTIONS)
        stored = None
        if function is None:
            stored = self._stored(func)
            if stored is None:
                return
        functions = [function] if function is not None else stored[1]
        if has_star_args(node) or (stored is not None and any(a.keyword is not None and a.keyword.value == "whole"
                                                               for a in node.args)):
            return  # the stored form once rewritten: the helpers stored, the call given their `whole`
        source = argument(node, 0, "input")
        kernel = argument(node, 1, "kernel_size")
        if source is None or kernel is None:
            return
        owner = self._owner(source.value)
        if owner is None:
            return
        wholes: list[list[int | None]] = []
        for key in functions:
            count = _FUNCTIONS[key][0]
            windows = self._windows(kernel.value, count)
            if windows is None:
                return
            wholes.append([window.axis if type(window) is _Axis and window.owner == owner
                           and _can_be_pooled_axis(window.axis, i, count) else None
                           for i, window in enumerate(windows)])
            if all(axis is None for axis in wholes[-1]):
                return
        if len({_FUNCTIONS[key][1] for key in functions}) != 1:
            return  # an average or a maximum, decided at run time
        maximum = _FUNCTIONS[functions[0]][1]
        name = functions[0].rsplit(".", 1)[1] if stored is None else code_of(func).strip()
        message = (f"`{name}` pools a window read from the sizes of the tensor it pools (the whole axis): while the "
                   "TorchScript exporter traces, those sizes are traced values and the kernel is not constant, so "
                   "the export stops")
        positional = [a for a in node.args if a.keyword is None]
        given = {a.keyword.value for a in node.args if a.keyword is not None}
        for key, whole in zip(functions, wholes):
            parameters = _FUNCTIONS[key][2]
            if len(positional) > len(parameters) or given - set(parameters):
                self.report(node, f"{message}; not rewritten: arguments the helper does not take")
                return
            why = self._kept_meaning(node, parameters, whole, maximum)
            if why is not None:
                self.report(node, f"{message}; not rewritten: {why}")
                return
        texts = sorted({_whole_text(whole) for whole in wholes})
        text = texts[0] if len(texts) == 1 else "(" + ", ".join(texts) + ")"
        helpers = tuple(sorted({_FUNCTIONS[key][3] for key in functions}))
        args = list(node.args)
        last = args[-1]
        if last.comma is cst.MaybeSentinel.DEFAULT:
            args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(cst.Arg(value=cst.parse_expression(text), keyword=cst.Name("whole"),
                            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                  whitespace_after=cst.SimpleWhitespace(""))))
        reduction = "amax" if maximum else "mean"
        if stored is None:
            helper = _FUNCTIONS[functions[0]][3]
            self.report(node, f"{message}; `{helper}` takes the {reduction} over those axes while exporting "
                              "(torch's call otherwise)",
                        Fix({node: cst.Call(func=cst.Name(helper), args=args)}, helpers=(helper,)))
            return
        value, _ = stored
        edits: dict[cst.CSTNode, cst.CSTNode] = {node: node.with_changes(args=args)}
        replaced = value.visit(_StoredHelpers(self))
        if not replaced.deep_equals(value):
            edits[value] = replaced
        self.report(node, f"{message}; the class stores {', '.join(f'`{h}`' for h in helpers)} in its place (torch's "
                          f"function outside an export), which takes the {reduction} over those axes while exporting",
                    Fix(edits, helpers=helpers))

    def _stored(self, func: cst.BaseExpression) -> tuple[cst.BaseExpression, list[str]] | None:
        """(the value, the functions it may hold) where ``func`` is ``self.<attr>`` and the class stores into it
        once, in ``__init__``, torch's pooling functions only: ``self.avg_pool = F.avg_pool3d if conv_3D else
        F.avg_pool2d`` (cellpose's ``make_style``), or the helpers a rewrite stored there."""
        if type(func) is not cst.Attribute or type(func.value) is not cst.Name or func.value.value != "self" \
                or not self._classes:
            return None
        writes = class_writes(self._classes[-1], func.attr.value)
        if len(writes) != 1 or writes[0][0].name.value != "__init__":
            return None
        value = writes[0][1]
        functions = self._held(value)
        return (value, functions) if functions else None

    def _held(self, value: cst.BaseExpression) -> list[str] | None:
        """The pooling functions ``value`` may be: one, or either arm of a conditional expression (nested)."""
        value = strip_parens(value)
        if type(value) is cst.IfExp:
            body, orelse = self._held(value.body), self._held(value.orelse)
            return None if body is None or orelse is None else sorted(set(body) | set(orelse))
        key = self.context.refers_to(value, *_FUNCTIONS)
        if key is None and type(value) is cst.Name:
            key = _OF_HELPER.get(value.value)  # stored by an earlier rewrite of another call
        return None if key is None else [key]

    def _kept_meaning(self, node: cst.Call, parameters: tuple[str, ...], whole: list[int | None],
                      maximum: bool) -> str | None:
        """Why the window is not the whole axis after all (padding, dilation, a divisor, indices), else None."""
        def given(name: str) -> cst.BaseExpression | None:
            arg = argument(node, parameters.index(name), name)
            return None if arg is None else arg.value

        count = len(whole)
        for name, neutral in (("padding", 0), ("dilation", 1)):
            if name not in parameters:
                continue
            value = given(name)
            if value is None:
                continue
            values = _ints(value, count)
            if values is None or any(a is not None and v != neutral for a, v in zip(whole, values)):
                return f"`{name}` is not {neutral} on the whole axes (the window is not the whole padded axis)"
        if "divisor_override" in parameters:
            value = given("divisor_override")
            if value is not None and not (type(value) is cst.Name and value.value == "None"):
                return "a `divisor_override` divides by another count than the axis's size"
        if maximum and "return_indices" in parameters:
            value = given("return_indices")
            if value is not None and not (type(value) is cst.Name and value.value == "False"):
                return "it may return indices, which a reduction does not give"
        return None


def _whole_text(whole: list[int | None]) -> str:
    return "(" + ", ".join("None" if a is None else str(a) for a in whole) + ("," if len(whole) == 1 else "") + ")"


#: A helper's name -> the torch function it stands for (a value a rewrite already stored).
_OF_HELPER = {}
for _key, (_count, _maximum, _parameters, _helper) in _FUNCTIONS.items():
    _OF_HELPER.setdefault(_helper, _key)


class _StoredHelpers(cst.CSTTransformer):
    """A stored value with each of torch's pooling functions replaced by its helper."""

    def __init__(self, rule: WholeWindowPool) -> None:
        super().__init__()
        self.rule = rule

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        return self._helper(original_node, updated_node)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self._helper(original_node, updated_node)

    def _helper(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        key = self.rule.context.refers_to(original, *_FUNCTIONS)
        return updated if key is None else cst.Name(_FUNCTIONS[key][3])


def _ints(value: cst.BaseExpression, count: int) -> list[int] | None:
    single = int_value(value)
    if single is not None:
        return [single] * count
    if type(value) in (cst.Tuple, cst.List):
        values = [int_value(e.value) if type(e) is cst.Element else None for e in value.elements]  # type: ignore
        if len(values) == 1:
            values = values * count
        if len(values) == count and all(v is not None for v in values):
            return values  # type: ignore[return-value]
    return None


def _can_be_pooled_axis(axis: int, position: int, count: int) -> bool:
    """Can ``axis`` be the ``position``-th of the ``count`` pooled axes (the last ``count``) of an input with
    one or two leading axes (torch's unbatched and batched forms)?"""
    if axis < 0:
        return axis == position - count
    return axis + count - position in (count + 1, count + 2)


def _assigned(node: cst.CSTNode) -> list[str]:
    """Names a statement rebinds (assignment, augmented assignment, loop target, ``:=``, ``as``)."""
    if type(node) is cst.Assign:
        return [n for t in node.targets for n in bound_names(t.target)]
    if type(node) in (cst.AugAssign, cst.AnnAssign, cst.For):
        return bound_names(node.target)  # type: ignore[union-attr]
    if type(node) is cst.NamedExpr:
        return bound_names(node.target)
    if type(node) is cst.WithItem and node.asname is not None:
        return bound_names(node.asname.name)
    return []


RULES = (WholeWindowPool,)
