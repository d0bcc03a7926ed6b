"""Adaptive average pooling → exact, export-friendly pooling (TRT601).

Why: the TorchScript exporter only exports ``adaptive_avg_pool2d`` when the output
size is 1 (GlobalAveragePool) or divides a *static* input size (AveragePool). With a
dynamic spatial axis it stops with "ONNX export of operator adaptive_avg_pool2d,
input size not accessible"; with a size that does not divide the input, "output size
that are not factor of input size"; with a ``None`` entry, "output_size is not
constant". The common workaround (an ``AvgPool2d`` with kernel and stride computed
from one input size) is wrong for every other size.

Matching goes through the file's imports; ``nn.AdaptiveAvgPool2d`` is matched where
the module is built (``__init__``, ``nn.Sequential(...)``, anywhere).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, int_value, parenthesize
from trtcodemod.helpers import is_reserved
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety

_FUNCTIONS = {
    "torch.nn.functional.adaptive_avg_pool2d": ("2d", "_trt_adaptive_avg_pool2d"),
    "torch.nn.functional.adaptive_avg_pool1d": ("1d", "_trt_adaptive_avg_pool1d"),
    "torch.adaptive_avg_pool1d": ("1d", "_trt_adaptive_avg_pool1d"),
}
_MODULES = {
    f"{prefix}AdaptiveAvgPool{dims}": (dims.lower(), f"_TrtAdaptiveAvgPool{dims}")
    for prefix in ("torch.nn.", "torch.nn.modules.", "torch.nn.modules.pooling.")
    for dims in ("1d", "2d")
}

_REFERENCES = (
    "https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveAvgPool2d.html",
    "https://github.com/pytorch/pytorch/blob/main/torch/onnx/_internal/torchscript_exporter/symbolic_opset9.py",
    "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
)


def _output_sizes(node: cst.BaseExpression, dims: str) -> list[int | None] | None:
    """Literal output size per pooled axis (``None`` keeps the axis), else None."""
    count = 2 if dims == "2d" else 1
    single = int_value(node)
    if single is not None:
        return [single] * count
    if not isinstance(node, (cst.Tuple, cst.List)) or len(node.elements) != count:
        return None
    sizes: list[int | None] = []
    for element in node.elements:
        if isinstance(element, cst.StarredElement):
            return None
        if isinstance(element.value, cst.Name) and element.value.value == "None":
            sizes.append(None)
            continue
        value = int_value(element.value)
        if value is None:
            return None
        sizes.append(value)
    return sizes


def _mean_axes(sizes: list[int | None] | None) -> list[int] | None:
    """Axes to average when every pooled axis has output size 1, else None."""
    if sizes is None or any(size not in (1, None) for size in sizes) or 1 not in sizes:
        return None
    return [axis for axis, size in zip(range(-len(sizes), 0), sizes) if size == 1]


def _mean_call(tensor: cst.BaseExpression, axes: list[int]) -> cst.Call:
    axes_text = str(axes[0]) if len(axes) == 1 else "(" + ", ".join(map(str, axes)) + ")"
    call = cst.parse_expression(f"_.mean({axes_text}, keepdim=True)")
    assert isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
    return call.with_changes(func=call.func.with_changes(value=parenthesize(tensor)))


class AdaptiveAvgPool(Rule):
    info = RuleInfo(
        id="TRT601",
        name="adaptive-avg-pool",
        summary="adaptive average pooling fails to export with dynamic or non-dividing sizes; use exact bins",
        doc="""\
What it finds: `F.adaptive_avg_pool2d(x, s)`, `F.adaptive_avg_pool1d(x, s)` and the modules
`nn.AdaptiveAvgPool2d(s)` / `nn.AdaptiveAvgPool1d(s)` where they are built (in `__init__`,
inside `nn.Sequential(...)`, anywhere), under any import alias.

Why it hurts: ONNX has no adaptive pooling. The TorchScript exporter emits
GlobalAveragePool for size 1 and an AveragePool when the size divides a static input size;
otherwise it stops: "input size not accessible" when the spatial axes are dynamic,
"output size that are not factor of input size", "output_size is not constant" for a `None`
entry. Replacing the layer by an `AvgPool2d` whose kernel and stride come from one input
size (the usual advice) silently computes something else for every other size.

The rewrite: output size 1 on every pooled axis becomes a mean with kept dimensions
(`F.adaptive_avg_pool2d(x, 1)` → `x.mean((-2, -1), keepdim=True)`, `(1, None)` →
`x.mean(-2, keepdim=True)`), one ReduceMean. Other sizes, and sizes that are not literal,
call an inserted helper, `_trt_adaptive_avg_pool2d(x, s)` / `_trt_adaptive_avg_pool1d(x, s)`,
that computes PyTorch's bins exactly (bin i of o over n spans [floor(i*n/o), ceil((i+1)*n/o)),
any n and o, overlapping bins when n < o, `None` keeps an axis) from the input's shape, so
the export stays correct when the spatial axes are dynamic. Each bin gathers its elements
and masks the unused slots with `torch.where` before summing, so inf and NaN stay in their
own bins; it sums first and divides by the bin size, accumulating float16/bfloat16 in
float32, as PyTorch does. Modules become `_TrtAdaptiveAvgPool2d(s)` / `_TrtAdaptiveAvgPool1d(s)`,
inserted subclasses of the torch modules whose forward calls the helper: same arguments,
`output_size` attribute and `isinstance` checks, no parameters, so `state_dict` and the
indices of an `nn.Sequential` are unchanged.

Fix safety: safe. Results equal PyTorch's up to rounding (a different summation order:
about one unit in the last place), for every shape, float dtype, empty batches, inf and
NaN. Inputs PyTorch rejects (integer dtypes, wrong rank) still raise; an empty spatial
axis, which PyTorch rejects, gives NaN in the size-1 mean. A module passed around as a
class (`pool_layer=nn.AdaptiveAvgPool2d`, subclasses) is reported without a fix.

TensorRT versions: all; the failure is in the exporter. The new graph uses ReduceMean, or
Range/Gather/Where/ReduceSum/Div, all supported since TensorRT 8.4.""",
        fix=Safety.SAFE,
        examples=(
            Example("y = F.adaptive_avg_pool2d(x, 1)\n", "y = x.mean((-2, -1), keepdim=True)\n"),
            Example("y = F.adaptive_avg_pool2d(x, (7, 7))\n", "y = _trt_adaptive_avg_pool2d(x, (7, 7))\n"),
            Example("self.pool = nn.AdaptiveAvgPool2d((7, None))\n",
                    "self.pool = _TrtAdaptiveAvgPool2d((7, None))\n"),
            Example("head = nn.Sequential(nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten())\n",
                    "head = nn.Sequential(_TrtAdaptiveAvgPool2d((1, 1)), nn.Flatten())\n"),
            Example("pool_layer = nn.AdaptiveAvgPool2d\n"),
        ),
        references=_REFERENCES,
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._not_values: set[int] = set()
        self._import_depth = 0

    # --- calls ---------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        self._not_values.add(id(node.func))
        if isinstance(node.func, cst.Name) and node.func.value in ("isinstance", "issubclass"):
            for arg in node.args[1:]:
                self._mark_not_values(arg.value)
        function = self.context.refers_to(node.func, *_FUNCTIONS)
        if function is not None:
            self._function_call(node, *_FUNCTIONS[function])
            return
        module = self.context.refers_to(node.func, *_MODULES)
        if module is not None:
            self._module_call(node, *_MODULES[module])

    def _function_call(self, node: cst.Call, dims: str, helper: str) -> None:
        name = f"adaptive_avg_pool{dims}"
        tensor = argument(node, 0, "input")
        size = argument(node, 1, "output_size")
        if has_star_args(node) or tensor is None or size is None or len(node.args) != 2:
            self.report(node, f"{name} fails to export with dynamic or non-dividing sizes; "
                        "not rewritten because its arguments are not all visible")
            return
        axes = _mean_axes(_output_sizes(size.value, dims))
        if axes is not None:
            self.report(node, f"{name} to size 1 is a mean over the pooled axes",
                        Fix({node: _mean_call(tensor.value, axes)}))
            return
        new_call = node.with_changes(func=cst.Name(helper))
        self.report(node, f"{name} fails to export with dynamic or non-dividing sizes; "
                    "compute the exact bins instead", Fix({node: new_call}, helpers=(helper,)))

    def _module_call(self, node: cst.Call, dims: str, helper: str) -> None:
        name = f"nn.AdaptiveAvgPool{dims}"
        if has_star_args(node) or len(node.args) != 1 or argument(node, 0, "output_size") is None:
            self.report(node, f"{name} fails to export with dynamic or non-dividing sizes; "
                        "not rewritten because its arguments are not all visible")
            return
        self.report(node, f"{name} fails to export with dynamic or non-dividing sizes; "
                    "use a subclass that computes the exact bins",
                    Fix({node: node.with_changes(func=cst.Name(helper))}, helpers=(helper,)))

    # --- the classes and functions named as values --------------------------------
    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._import_depth += 1

    def leave_ImportFrom(self, original_node: cst.ImportFrom) -> None:
        self._import_depth -= 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_values.add(id(node.attr))
        self._value_reference(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._value_reference(node)

    def _mark_not_values(self, node: cst.BaseExpression) -> None:
        self._not_values.add(id(node))
        if isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                self._mark_not_values(element.value)

    def _value_reference(self, node: cst.Name | cst.Attribute) -> None:
        if id(node) in self._not_values or self._import_depth:
            return
        name = self.context.refers_to(node, *_FUNCTIONS, *_MODULES)
        if name is None:
            return
        if any(is_reserved(scope) for scope in (*self.context.classes, *self.context.functions)):
            return  # inside an inserted helper
        self.report(node, f"{name.rsplit('.', 1)[1]} is used as a value (passed, stored or subclassed), "
                    "so trtcodemod cannot rewrite where it is called; it fails to export with dynamic or "
                    "non-dividing sizes")


RULES = (AdaptiveAvgPool,)
