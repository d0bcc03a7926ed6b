"""A resize by a scale factor computed from a size (TRT362): ``F.interpolate`` cannot take it traced.

``ratio = L / max(h, w)`` then ``F.interpolate(x, scale_factor=ratio, ...)`` (CascadePSP's
``resize_max_side``: the longer side brought to ``L``). While the TorchScript exporter traces, a size
is a 0-d tensor, so the factor is one too, and ``F.interpolate`` hands it to its kernel, which takes
only Python floats: the export stops with "upsample_bilinear2d() received an invalid combination of
arguments". The rewrite routes the call through ``_trt_interpolate`` (TRT727's helper, same
signature), which is ``F.interpolate`` everywhere but in a trace given such a tensor, where it
computes the same resize from the traced factor (``trtcodemod/helpers/interpolate.py``).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, bound_names, is_true
from trtcodemod.rules import Example, Fix, RuleInfo, Safety, spelled
from trtcodemod.transforms._size_facts import SizeRule
from trtcodemod.transforms.bicubic_resize import HELPER, antialiased

_FUNCTIONS = ("torch.nn.functional.interpolate",)
#: The modes the helper computes from a traced factor; a mode held in a variable may be any of them.
_MODES = frozenset({"nearest", "linear", "bilinear", "trilinear", "bicubic", "area"})
#: Modes whose kernels take the output size torch computes first when the factor is recomputed (a traced factor
#: exports then; area's adaptive pooling to a traced size does not, bicubic's Resize TensorRT cannot parse).
_SIZED_MODES = frozenset({"nearest", "linear", "bilinear", "trilinear"})
#: Python functions of numbers whose result is computed from a size when an argument is.
_NUMBER_FUNCTIONS = frozenset({"max", "min", "float", "int", "round", "abs"})


class TracedScaleResize(SizeRule):
    needs_text = spelled(*_FUNCTIONS)
    info = RuleInfo(
        id="TRT362",
        name="traced-scale-resize",
        summary="`F.interpolate(x, scale_factor=<computed from a size>)` does not export (a traced factor is a "
                "tensor, which the resize kernels refuse); compute the resize from the traced factor",
        doc="""\
What it finds, in forward code: `F.interpolate(...)` (any import alias) whose `scale_factor` is
computed from a tensor's size: a size (`x.shape[i]`, names unpacked from `x.shape`), or
arithmetic, `max`/`min`/`float`/`int`/`round`/`abs`, `math` or NumPy functions (`np.sqrt`) of
one, directly or through names the function binds to them (`h, w = im.shape[-2:]`, `ratio = L /
max(h, w)`), alone or in a tuple (CascadePSP's `resize_max_side`, which brings an image's longer
side to `L`; DINO's position embeddings, `(w0 / math.sqrt(N), h0 / math.sqrt(N))`). The mode must be
one the rewrite computes (`nearest`, `linear`, `bilinear`, `trilinear`, `bicubic`, `area`) or a
name; `antialias=True` is left alone, and so is `recompute_scale_factor=True` with a nearest or linear
mode (torch then computes the output size first, which traces: torchvision's detection transform).

Why it hurts: the TorchScript exporter traces, and a traced size is a 0-d tensor, so the factor
is a tensor; `F.interpolate` passes it to `upsample_nearest2d`/`upsample_bilinear2d`/..., whose
Python bindings take floats only: the export stops with a TypeError ("received an invalid
combination of arguments", torch 2.13), on every exporter run whatever the shapes declared.

The rewrite: `F.interpolate(...)` → `_trt_interpolate(...)`, the same arguments (TRT727's
helper). Outside a trace, and in a trace whose factor is a Python number, it is `F.interpolate`
itself. In a trace whose factor is a tensor, it computes what PyTorch computes: each output size
`floor(size * factor)` in float32 (as torch's own traced `F.interpolate` does for a float);
nearest and (bi/tri)linear as two Gathers per axis at PyTorch's source coordinates (`i / factor`,
`(i + 0.5) / factor - 0.5` not below 0 for linear; `in / out` with `recompute_scale_factor`;
`i * (in - 1) / (out - 1)` with `align_corners`), the linear weights the distances; bicubic as
TRT727's weight matrices; area as exact adaptive-pooling bins (`_trt_adaptive_avg_pool2d_onnx`).
Every operator is one TensorRT parses, and the sizes stay dynamic.

Fix safety: unsafe. Eager mode, `torch.fx`, `torch.compile` and `torch.export` run
`F.interpolate` (the helper changes nothing there); `torch.jit.script` cannot compile a function
calling `_trt_interpolate`. In the trace, the graph's values equal PyTorch's under assumptions:
- up to float rounding for linear, bicubic and area (another order of sums; measured against
  PyTorch on 5 to 120 pixels: at most 3e-5 for values of order 1);
- nearest: PyTorch takes `1 / factor` in double and rounds it to float32, the graph divides in
  float32 by a factor that is already float32 (the trace computes `L / size` in float32); where
  `i / factor` is an integer in exact arithmetic the two may floor to neighbouring rows;
- bicubic: finite inputs (TRT727's matrices spread an inf or NaN over its plane);
- the factor is positive (PyTorch refuses a zero output size; the graph's empty output does not).
`trtcodemod migrate` tries it as a candidate where the export stops at the call, and keeps it only
when the verification finds the rewritten model equivalent on every input set.

TensorRT versions: all (the export fails before TensorRT is involved); the graph uses Range,
Floor, Min/Max, Gather, Mul, Add, Div, MatMul and ReduceSum.""",
        fix=Safety.UNSAFE,
        assumption="the factor is positive, and the graph's values equal PyTorch's up to float rounding (linear, "
                   "bicubic: for finite inputs, area); nearest may take a neighbouring row where the source "
                   "coordinate is an integer in exact arithmetic",
        examples=(
            Example(
                "def resize_max_side(im: torch.Tensor, size: int):\n"
                "    h, w = im.shape[-2:]\n"
                "    ratio = size / max(h, w)\n"
                "    return F.interpolate(im, scale_factor=ratio, mode='bilinear', align_corners=False)\n",
                "def resize_max_side(im: torch.Tensor, size: int):\n"
                "    h, w = im.shape[-2:]\n"
                "    ratio = size / max(h, w)\n"
                "    return _trt_interpolate(im, scale_factor=ratio, mode='bilinear', align_corners=False)\n",
                unsafe=True,
            ),
            Example(
                "def shrink(x: torch.Tensor, target: int):\n"
                "    return F.interpolate(x, scale_factor=(target / x.shape[2], target / x.shape[3]))\n",
                "def shrink(x: torch.Tensor, target: int):\n"
                "    return _trt_interpolate(x, scale_factor=(target / x.shape[2], target / x.shape[3]))\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.interpolate.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
            "https://onnx.ai/onnx/operators/onnx__Resize.html",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: Per function being visited: each local name → the value it was last bound to (source order).
        self._bindings: list[dict[str, cst.BaseExpression]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self._bindings.append({})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        super().leave_FunctionDef(original_node)
        self._bindings.pop()

    def leave_Assign(self, original_node: cst.Assign) -> None:
        super().leave_Assign(original_node)
        if not self._bindings:
            return
        for target in original_node.targets:
            for name in bound_names(target.target):
                if type(target.target) is cst.Name:
                    self._bindings[-1][name] = original_node.value
                else:
                    self._bindings[-1].pop(name, None)  # unpacked: `h, w = ...` is the size facts' to judge

    def _from_size(self, expr: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> bool:
        """Is ``expr`` a number computed from a size (see the rule's documentation)?"""
        if self.size_derived(expr):
            return True
        if self.is_tensor(expr):
            return False
        if type(expr) is cst.Name:
            value = self._bindings[-1].get(expr.value) if self._bindings else None
            return value is not None and expr.value not in seen and self._from_size(value, seen | {expr.value})
        if type(expr) is cst.BinaryOperation:
            return (self._from_size(expr.left, seen) or self._from_size(expr.right, seen)) \
                and not self.is_tensor(expr.left) and not self.is_tensor(expr.right)
        if type(expr) is cst.UnaryOperation:
            return self._from_size(expr.expression, seen)
        if type(expr) is cst.Call:
            func = expr.func
            # `math.sqrt(n)`, and NumPy's scalar functions of a size, which give numbers too (FeatUp's
            # `int(np.sqrt(num_og_patches))`, the side of a square grid of position embeddings).
            number = type(func) is cst.Name and (func.value in _NUMBER_FUNCTIONS or func.value.startswith("_trt_size_")) \
                or any(name.startswith(("math.", "numpy.")) for name in self.context.qualified_names(func))
            # `min(vid.shape[-2:])`: the shorter side, a number computed from the shape itself.
            return number and any(self._from_size(arg.value, seen) or self._is_shape_tuple(arg.value)
                                  for arg in expr.args)
        if type(expr) in (cst.Tuple, cst.List):
            return any(self._from_size(element.value, seen) for element in expr.elements)
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if not self._frames or not self.active() or not self.context.refers_to(node.func, *_FUNCTIONS):
            return
        factor = argument(node, 2, "scale_factor")
        size = argument(node, 1, "size")
        given_size = size is not None and not (type(size.value) is cst.Name and size.value.value == "None")
        if factor is None or given_size or antialiased(node, self._scopes):
            return
        mode = argument(node, 3, "mode")
        if mode is not None and type(mode.value) is cst.SimpleString and mode.value.evaluated_value not in _MODES:
            return
        recompute = argument(node, 5, "recompute_scale_factor")
        if recompute is not None and is_true(recompute.value) and (
                mode is None or type(mode.value) is cst.SimpleString and mode.value.evaluated_value in _SIZED_MODES):
            return  # torch computes the output size first and traces it (torchvision's detection transform)
        if mode is not None and type(mode.value) not in (cst.SimpleString, cst.Name, cst.Attribute):
            return
        if not self._from_size(factor.value):
            return
        fix = Fix({node: node.with_changes(func=cst.Name(HELPER))}, safety=Safety.UNSAFE, helpers=(HELPER,))
        self.report(node, "`F.interpolate` by a scale factor computed from a size: while tracing the factor is a "
                          "tensor, which the resize kernels refuse (the export stops with a TypeError); "
                          f"`{HELPER}` computes the resize from the traced factor (PyTorch's coordinates; "
                          "equal up to rounding)", fix)


RULES = (TracedScaleResize,)
