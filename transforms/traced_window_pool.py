"""Pooling whose window or stride is computed from a size (TRT395): gathered windows while exporting.

PSPNet's pyramid pooling (pytorch-semseg's ``pyramidPooling``, copied into torchxrayvision's ChestX-Det model and
many segmentation repositories) pools with windows computed from the input's size:
``k_sizes.append((int(h / pool_size), int(w / pool_size)))``, then ``F.avg_pool2d(x, k_sizes[i],
stride=strides[i])``. Whether a window is computed so is followed per function: names bound from a tensor's sizes
(``h, w = x.shape[2:]``), and every name, list or loop target whose value computes with them (arithmetic,
``int()``, a list the computed values are appended to) are size-derived; a pooling call whose window or stride
argument mentions a computed one (not a bare size: TRT342 takes a window read whole from the sizes) is rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from trtcodemod.astutil import argument, bound_names, has_star_args, walk
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

_AVG = ("input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
_MAX = ("input", "kernel_size", "stride", "padding", "dilation", "ceil_mode")

#: torch's function -> (its parameters the helper takes, in order; the helper).
_FUNCTIONS = {
    "torch.nn.functional.avg_pool1d": (_AVG[:-1], "_trt_traced_avg_pool1d"),
    "torch.nn.functional.avg_pool2d": (_AVG, "_trt_traced_avg_pool2d"),
    "torch.nn.functional.avg_pool3d": (_AVG, "_trt_traced_avg_pool3d"),
    **{f"torch.nn.functional.max_pool{n}d": (_MAX, f"_trt_traced_max_pool{n}d") for n in (1, 2, 3)},
}

#: Calls whose result computes with their arguments' sizes (a number made of a size is still one).
_COMPUTING_BUILTINS = frozenset({"int", "round", "max", "min", "abs"})
_COMPUTING_FUNCTIONS = ("math.floor", "math.ceil", "math.trunc")
#: Methods that add their argument to the list they are called on.
_ADDING = frozenset({"append", "extend", "insert"})


@dataclass
class _Frame:
    #: Names bound straight from a tensor's sizes (``h``), and names whose value computes with sizes.
    sized: set[str] = field(default_factory=set)
    computed: set[str] = field(default_factory=set)


class TracedWindowPool(Rule):
    needs_text = spelled(*_FUNCTIONS)
    info = RuleInfo(
        id="TRT395",
        name="traced-window-pool",
        summary="pooling whose window or stride is computed from the input's size (PSPNet's pyramid pooling, "
                "`F.avg_pool2d(x, (int(h / p), int(w / p)))`): the export bakes or refuses it; the windows "
                "gathered and reduced while exporting",
        doc="""\
What it finds: `F.avg_pool1d/2d/3d` and `F.max_pool1d/2d/3d` (any import of them) whose
`kernel_size` or `stride` argument computes with a tensor's sizes in the same function: a name bound
from `x.shape`/`x.size()` (`h, w = x.shape[2:]`) taken through arithmetic, `int()`, `round()`,
`min`/`max` or `math.floor`/`ceil`, directly in the argument or through names, lists the computed
values are appended to, and loop targets over them. PSPNet's pyramid pooling as pytorch-semseg
writes it (`ptsemseg/models/utils.py`, `pyramidPooling.forward`, copied into torchxrayvision's
ChestX-Det PSPNet and ICNet code): `k_sizes.append((int(h / pool_size), int(w / pool_size)))`, then
`F.avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)`. A window read whole from the sizes
(`x.size()[2:]`, global pooling) is TRT342's. Calls with unpacked arguments, `return_indices` or
keywords the function does not have are left alone.

Why it hurts: read with `int()`, the sizes become Python numbers while the TorchScript exporter
traces: the graph pools the example's windows at every size (a TracerWarning at the `int()`), so
its pyramid bins are wrong at any other input size. Kept traced (TRT712's `_trt_size_int`), they
stop the export: the pooling symbolics take constant windows only ("Failed to export a node ...
because it is not constant. Please try to make things (e.g. kernel sizes) static").

The rewrite: `F.avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)` →
`_trt_traced_avg_pool2d(x, k_sizes[i], stride=strides[i], padding=0)`, the arguments unchanged
(`_trt_traced_max_pool2d` and the 1-D and 3-D forms alike). The inserted helper is torch's
function outside `torch.onnx.export`, and inside it too whenever the window and stride are Python
ints. While exporting with a traced window or stride (0-d integer tensors), no padding, a dilation
of 1, no `ceil_mode` and no `divisor_override`, it gathers each pooled axis's windows, positions
`i * stride + j` for the `(size - window) // stride + 1` outputs `i` and the offsets `j < window`
(Range, Gather, Reshape, all with dynamic sizes), and takes their mean (`amax` for max pooling):
the elements torch's kernel pools. Anything else keeps torch's call, and its error, while
exporting. `migrate` applies it with TRT712's fix of the `int()` that made the window (the two
together make the window follow the size).

Fix safety: safe. Eager mode, `torch.jit.script` (the helper's signature is torch's), `torch.fx`,
`torch.compile` and `torch.export` (symbolic sizes are no tensors) run torch's function itself:
values, dtype, gradients and errors. The export changes only where the window or stride is a
traced size, where the original export stops or pools the example's windows; the mean sums in
another order than torch's kernel (within rounding), the maximum is exact.

TensorRT versions: all (Range, Gather, Reshape, ReduceMean and ReduceMax with dynamic shapes).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def forward(self, x):\n"
                "    h, w = x.shape[2:]\n"
                "    k = (int(h / 6), int(w / 6))\n"
                "    return F.avg_pool2d(x, k, stride=k, padding=0)\n",
                "def forward(self, x):\n"
                "    h, w = x.shape[2:]\n"
                "    k = (int(h / 6), int(w / 6))\n"
                "    return _trt_traced_avg_pool2d(x, k, stride=k, padding=0)\n",
            ),
            Example("def forward(self, x):\n    t = x.size(-1)\n    return F.max_pool1d(x, t // 4)\n",
                    "def forward(self, x):\n    t = x.size(-1)\n    return _trt_traced_max_pool1d(x, t // 4)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.avg_pool2d.html",
            "https://github.com/meetshah1995/pytorch-semseg/blob/master/ptsemseg/models/utils.py",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._frames: list[_Frame] = [_Frame()]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._frames.append(_Frame())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._frames.pop()

    # --- what names hold ---------------------------------------------------------------------

    def _reads_size(self, node: cst.CSTNode) -> bool:
        """``x.shape``, ``x.size()``/``x.size(i)`` or a name bound from them, anywhere in ``node``."""
        frame = self._frames[-1]
        for inner in walk(node):
            if type(inner) is cst.Attribute and inner.attr.value == "shape":
                return True
            if type(inner) is cst.Call and type(inner.func) is cst.Attribute and inner.func.attr.value == "size":
                return True
            if type(inner) is cst.Name and inner.value in frame.sized | frame.computed:
                return True
        return False

    def _computes(self, node: cst.CSTNode) -> bool:
        """Does ``node`` compute with sizes: a computed name, or arithmetic / a number-making call over sizes?"""
        frame = self._frames[-1]
        for inner in walk(node):
            if type(inner) is cst.Name and inner.value in frame.computed:
                return True
            if type(inner) in (cst.BinaryOperation, cst.UnaryOperation) and self._reads_size(inner):
                return True
            if type(inner) is cst.Call and self._reads_size(inner) and not self._bare_size(inner):
                if type(inner.func) is cst.Name and inner.func.value in _COMPUTING_BUILTINS:
                    return True
                if self.context.refers_to(inner.func, *_COMPUTING_FUNCTIONS):
                    return True
        return False

    def _bare_size(self, call: cst.Call) -> bool:
        """``int(x.size(2))``, ``int(h)``: a number-making call of one size as read, no arithmetic (a window as long
        as the axis: TRT342's, which reports it)."""
        if len(call.args) != 1:
            return False
        value = call.args[0].value
        if type(value) is cst.Name:
            return value.value in self._frames[-1].sized
        if type(value) is cst.Subscript and type(value.value) is cst.Attribute and value.value.attr.value == "shape":
            return True
        return type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value == "size"

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        frame = self._frames[-1]
        names = bound_names(target)
        computed, sized = self._computes(value), self._reads_size(value)
        # Never forgotten once bound so: a name computed in one branch (PSPNet's `k_sizes` in the `if`, literal
        # windows in the `else`) may hold a computed window at the pooling; the helper pools torch's way otherwise.
        for name in names:
            if computed:
                frame.computed.add(name)
            elif sized:
                frame.sized.add(name)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        for target in original_node.targets:
            self._bind(target.target, original_node.value)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if original_node.value is not None:
            self._bind(original_node.target, original_node.value)

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        if self._computes(original_node.value) or self._reads_size(original_node.value):
            for name in bound_names(original_node.target):
                self._frames[-1].computed.add(name)

    def visit_For(self, node: cst.For) -> None:
        if self._computes(node.iter):
            self._frames[-1].computed.update(bound_names(node.target))

    # --- the pooling ---------------------------------------------------------------------

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is cst.Attribute and func.attr.value in _ADDING and type(func.value) is cst.Name \
                and any(self._computes(a.value) for a in node.args):
            self._frames[-1].computed.add(func.value.value)
            return
        if in_inserted_helper(self):
            return
        function = self.context.refers_to(func, *_FUNCTIONS)
        if function is None or has_star_args(node):
            return
        parameters, helper = _FUNCTIONS[function]
        kernel, stride = argument(node, 1, "kernel_size"), argument(node, 2, "stride")
        if not any(a is not None and self._computes(a.value) for a in (kernel, stride)):
            return
        positional = [a for a in node.args if a.keyword is None]
        given = {a.keyword.value for a in node.args if a.keyword is not None}
        if len(positional) > len(parameters) or given - set(parameters):
            return  # return_indices, or arguments torch's function would refuse: left as written
        name = function.rsplit(".", 1)[1]
        reduction = "maximum" if "max" in name else "mean"
        self.report(node, f"`{name}`'s window or stride is computed from a size: read with `int()` the trace bakes "
                          "the example's windows, kept traced it stops the TorchScript export (the kernel is not "
                          f"constant); `{helper}` takes the {reduction} of the gathered windows while exporting a "
                          "traced window (torch's call otherwise)",
                    Fix({node: node.with_changes(func=cst.Name(helper))}, helpers=(helper,)))


RULES = (TracedWindowPool,)
