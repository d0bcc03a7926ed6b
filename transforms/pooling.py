"""Adaptive average and max pooling → exact, export-friendly pooling (TRT601, TRT602).

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

from trtcodemod.astutil import argument, has_star_args, int_value
from trtcodemod.context import NameSet
from trtcodemod.helpers import is_reserved
from trtcodemod.evidence.proofs import prove_pool_export_fails
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled

_FUNCTIONS = {
    "torch.nn.functional.adaptive_avg_pool2d": ("2d", "_trt_adaptive_avg_pool2d"),
    "torch.nn.functional.adaptive_avg_pool1d": ("1d", "_trt_adaptive_avg_pool1d"),
    "torch.adaptive_avg_pool1d": ("1d", "_trt_adaptive_avg_pool1d"),
}
#: ``F.interpolate(x, size=s, mode="area")`` is adaptive average pooling to ``s`` (what torch calls).
_INTERPOLATE = ("torch.nn.functional.interpolate",)
_AREA_HELPER = "_trt_area_resize"
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
    if type(node) not in (cst.Tuple, cst.List) or len(node.elements) != count:
        return None
    sizes: list[int | None] = []
    for element in node.elements:
        if type(element) is cst.StarredElement:
            return None
        if type(element.value) is cst.Name and element.value.value == "None":
            sizes.append(None)
            continue
        value = int_value(element.value)
        if value is None:
            return None
        sizes.append(value)
    return sizes


def _global(sizes: list[int | None] | None) -> bool:
    """Output size 1 on every axis: the exporter emits GlobalAveragePool for any input size."""
    return sizes is not None and all(size == 1 for size in sizes)


class AdaptiveAvgPool(Rule):
    needs_text = (*spelled(*_FUNCTIONS, *_MODULES), b"area")
    info = RuleInfo(
        id="TRT601",
        name="adaptive-avg-pool",
        summary="adaptive average pooling fails to export with dynamic or non-dividing sizes; use exact bins",
        doc="""\
What it finds: `F.adaptive_avg_pool2d(x, s)`, `F.adaptive_avg_pool1d(x, s)` and the modules
`nn.AdaptiveAvgPool2d(s)` / `nn.AdaptiveAvgPool1d(s)` where they are built (in `__init__`,
inside `nn.Sequential(...)`, anywhere), under any import alias; and the same pooling spelled
as a resize, `F.interpolate(x, size=s, mode="area")`, which torch computes with
`adaptive_avg_pool2d` (segmentation_models_pytorch's PSPNet takes that path while exporting,
as "more robustly supported", and the export fails there just the same).

Why it hurts: ONNX has no adaptive pooling. The TorchScript exporter emits
GlobalAveragePool for size 1 and an AveragePool when the size divides a static input size;
otherwise it stops: "input size not accessible" when the spatial axes are dynamic,
"output size that are not factor of input size", "output_size is not constant" for a `None`
entry. Replacing the layer by an `AvgPool2d` whose kernel and stride come from one input
size (the usual advice) silently computes something else for every other size.

Output size 1 on every axis (`nn.AdaptiveAvgPool2d(1)`, `(1, 1)`) is not reported: the
exporter turns it into GlobalAveragePool for any input size, which TensorRT parses.

The rewrite: `F.adaptive_avg_pool2d(x, s)` → `_trt_adaptive_avg_pool2d(x, s)` (and the 1-D
form), an inserted helper; `F.interpolate(x, size=s, mode="area")` → `_trt_area_resize(x, s)`,
which is `F.interpolate` itself outside an export and the same exact bins while exporting a
4-D floating input (another input keeps `F.interpolate`). Outside `torch.onnx.export` it is `F.adaptive_avg_pool2d` itself.
While exporting it computes PyTorch's bins exactly from the input's shape (bin i of o over n
spans [floor(i*n/o), ceil((i+1)*n/o)), any n and o, overlapping bins when n < o, `None`
keeps an axis), so the graph stays correct when the spatial axes are dynamic: each bin
gathers its elements and masks the unused slots with `torch.where` before summing, so inf
and NaN stay in their own bins, and it sums first and divides by the bin size, accumulating
float16/bfloat16 in float32, as PyTorch does. Modules become `_TrtAdaptiveAvgPool2d(s)` /
`_TrtAdaptiveAvgPool1d(s)`, inserted subclasses of the torch modules whose forward calls
the helper: same arguments, `output_size` attribute and `isinstance` checks, no
parameters, so `state_dict` and the indices of an `nn.Sequential` are unchanged.

Fix safety: unsafe, for speed alone. Eager, `torch.jit.script`, `torch.fx`, `torch.compile`
and `torch.export` run PyTorch's own operator: the same values bit for bit, dtype, strides
(`x.view(n, -1)` after the pool keeps working), gradients, aliasing, quantized inputs and
errors, for one Python call and a few flag checks more. The exported graph equals PyTorch's
values up to rounding (a different summation order: about one unit in the last place) for
every shape, float dtype, empty batch, inf and NaN. The assumption is about cost: where the
input size is static and divisible the original already exports, as one AveragePool, and
the bins run 15 to 80 times slower than it in ONNX Runtime (`benchmarks/helpers.py`). So the
fix is for models whose spatial axes are dynamic or do not divide, where the original does
not export at all: it runs with `--unsafe`, or when `trtcodemod migrate` sees that the
export fails at that line. A module passed around as a class
(`pool_layer=nn.AdaptiveAvgPool2d`, subclasses) is reported without a fix.

TensorRT versions: all; the failure is in the exporter. The new graph uses ReduceMean, or
Range/Gather/Where/ReduceSum/Div, all supported since TensorRT 8.4.""",
        fix=Safety.UNSAFE,
        proof=prove_pool_export_fails,
        assumption=(
            "the pooling does not already export as one AveragePool, where the exact bins are slower (values are the "
            "same up to rounding)"),
        examples=(
            Example("y = F.adaptive_avg_pool2d(x, (7, 7))\n", "y = _trt_adaptive_avg_pool2d(x, (7, 7))\n",
                    unsafe=True),
            Example("self.pool = nn.AdaptiveAvgPool2d((7, None))\n",
                    "self.pool = _TrtAdaptiveAvgPool2d((7, None))\n", unsafe=True),
            Example("head = nn.Sequential(nn.AdaptiveAvgPool2d((6, 6)), nn.Flatten())\n",
                    "head = nn.Sequential(_TrtAdaptiveAvgPool2d((6, 6)), nn.Flatten())\n", unsafe=True),
            Example("pool_layer = nn.AdaptiveAvgPool2d\n"),
            Example('y = F.interpolate(x, size=(6, 6), mode="area")\n', "y = _trt_area_resize(x, (6, 6))\n",
                    unsafe=True),
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
        if type(node.func) is cst.Name and node.func.value in ("isinstance", "issubclass"):
            for arg in node.args[1:]:
                self._mark_not_values(arg.value)
        function = self.context.refers_to(node.func, *_FUNCTIONS)
        if function is not None:
            self._function_call(node, *_FUNCTIONS[function])
            return
        module = self.context.refers_to(node.func, *_MODULES)
        if module is not None:
            self._module_call(node, *_MODULES[module])
            return
        if self.context.refers_to(node.func, *_INTERPOLATE) is not None:
            self._area_resize(node)

    def _area_resize(self, node: cst.Call) -> None:
        """``F.interpolate(x, size=s, mode="area")``: adaptive average pooling under another name."""
        mode = argument(node, 3, "mode")
        if mode is None or type(mode.value) is not cst.SimpleString or mode.value.evaluated_value != "area":
            return
        tensor, size = argument(node, 0, "input"), argument(node, 1, "size")
        named = {a.keyword.value for a in node.args if a.keyword is not None}
        if has_star_args(node) or tensor is None or size is None or named - {"input", "size", "mode"} \
                or len(node.args) != 3:
            self.report(node, "interpolate(mode='area') is adaptive average pooling, which fails to export with "
                        "dynamic or non-dividing sizes; not rewritten because it has other arguments")
            return
        if _global(_output_sizes(size.value, "2d")):
            return  # GlobalAveragePool: exports for any input size
        self.report(node, "interpolate(mode='area') is adaptive average pooling, which fails to export with dynamic "
                    "or non-dividing sizes; compute the exact bins instead (slower where sizes are static and divide)",
                    Fix({node: cst.Call(func=cst.Name(_AREA_HELPER), args=[
                        cst.Arg(tensor.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                        cst.Arg(size.value)])}, safety=Safety.UNSAFE, helpers=(_AREA_HELPER,)))

    def _function_call(self, node: cst.Call, dims: str, helper: str) -> None:
        name = f"adaptive_avg_pool{dims}"
        tensor = argument(node, 0, "input")
        size = argument(node, 1, "output_size")
        if has_star_args(node) or tensor is None or size is None or len(node.args) != 2:
            self.report(node, f"{name} fails to export with dynamic or non-dividing sizes; "
                        "not rewritten because its arguments are not all visible")
            return
        if _global(_output_sizes(size.value, dims)):
            return  # GlobalAveragePool: exports for any input size
        new_call = node.with_changes(func=cst.Name(helper))
        self.report(node, f"{name} fails to export with dynamic or non-dividing sizes; "
                    "compute the exact bins instead (slower where sizes are static and divide)",
                    Fix({node: new_call}, safety=Safety.UNSAFE, helpers=(helper,)))

    def _module_call(self, node: cst.Call, dims: str, helper: str) -> None:
        name = f"nn.AdaptiveAvgPool{dims}"
        size = argument(node, 0, "output_size")
        if size is not None and not has_star_args(node) and _global(_output_sizes(size.value, dims)):
            return  # GlobalAveragePool: exports for any input size
        if has_star_args(node) or len(node.args) != 1 or size is None:
            self.report(node, f"{name} fails to export with dynamic or non-dividing sizes; "
                        "not rewritten because its arguments are not all visible")
            return
        self.report(node, f"{name} fails to export with dynamic or non-dividing sizes; "
                    "use a subclass that computes the exact bins (slower where sizes are static and divide)",
                    Fix({node: node.with_changes(func=cst.Name(helper))}, safety=Safety.UNSAFE, helpers=(helper,)))

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
        if type(node) in (cst.Tuple, cst.List):
            for element in node.elements:
                self._mark_not_values(element.value)

    def _value_reference(self, node: cst.Name | cst.Attribute) -> None:
        if id(node) in self._not_values or self._import_depth:
            return
        name = self.context.refers_to_any(node, _VALUE_NAMES)
        if name is None:
            return
        if any(is_reserved(scope) for scope in (*self.context.classes, *self.context.functions)):
            return  # inside an inserted helper
        self.report(node, f"{name.rsplit('.', 1)[1]} is used as a value (passed, stored or subclassed), "
                    "so trtcodemod cannot rewrite where it is called; it fails to export with dynamic or "
                    "non-dividing sizes")


#: Every name TRT601 looks for where it is used as a value.
_VALUE_NAMES = NameSet([*_FUNCTIONS, *_MODULES])

_MAX_FUNCTIONS = {
    **{f"torch.nn.functional.adaptive_max_pool{d}": d for d in ("1d", "2d", "3d")},
    "torch.adaptive_max_pool1d": "1d",
}
_MAX_MODULES = {
    f"{prefix}AdaptiveMaxPool{d}": d
    for prefix in ("torch.nn.", "torch.nn.modules.", "torch.nn.modules.pooling.")
    for d in ("1d", "2d", "3d")
}


def _max_sizes(node: cst.BaseExpression, dims: str) -> list[int | None] | None:
    if dims == "3d":
        single = int_value(node)
        if single is not None:
            return [single] * 3
        if type(node) in (cst.Tuple, cst.List) and len(node.elements) == 3:
            values = [int_value(e.value) if type(e) is not cst.StarredElement else None for e in node.elements]
            return values if all(v is not None for v in values) else None
        return None
    return _output_sizes(node, dims)


#: What TRT602 rewrites: the function or module -> the helper (1-D and 2-D; 3-D is reported only).
_MAX_HELPERS = {
    "torch.nn.functional.adaptive_max_pool1d": "_trt_adaptive_max_pool1d",
    "torch.nn.functional.adaptive_max_pool2d": "_trt_adaptive_max_pool2d",
    **{f"{prefix}AdaptiveMaxPool{d}": f"_TrtAdaptiveMaxPool{d}"
       for prefix in ("torch.nn.", "torch.nn.modules.", "torch.nn.modules.pooling.") for d in ("1d", "2d")},
}


class AdaptiveMaxPool(Rule):
    needs_text = spelled(*_MAX_FUNCTIONS, *_MAX_MODULES)
    info = RuleInfo(
        id="TRT602",
        name="adaptive-max-pool",
        summary="adaptive max pooling fails to export with dynamic or non-dividing sizes "
                "(and the dynamo exporter bakes the kernel in); use exact bins",
        doc="""\
What it finds: `F.adaptive_max_pool1d/2d/3d(x, s)` calls and `nn.AdaptiveMaxPool1d/2d/3d(s)`
where they are built (`__init__`, `nn.Sequential(...)`, `nn.ModuleList([...])`, anywhere),
under any import alias, unless every output size is a literal 1. Real code: ultralytics'
YOLO-World `ImagePoolingAttn` pools each feature map to `k x k` with
`nn.AdaptiveMaxPool2d((k, k))`; timm's `adaptive_avgmax_pool` and MONAI's pooling layers call
`F.adaptive_max_pool2d`.

Why it hurts: ONNX has no adaptive pooling; exporters emit a fixed `MaxPool` computed from
the example input's size. Measured with torch 2.13: the TorchScript exporter stops with
"input size not accessible" when a pooled axis is dynamic and with "output size that are
not factor of input size" when the size does not divide; the dynamo exporter also fails
on a non-dividing size, and with dynamic spatial axes (`dynamic_shapes`) it silently
exports the kernel and stride of the example input: exported at 8x8 with output 4, the
graph returns 8x8 (not 4x4) for a 16x16 input, with no error. Output size 1 on every axis
(`nn.AdaptiveMaxPool2d(1)`, `(1, 1)`) exports as GlobalMaxPool / ReduceMax for any input
size and is not reported.

The rewrite (1-D and 2-D): `F.adaptive_max_pool2d(x, s)` → `_trt_adaptive_max_pool2d(x, s)`
(and the 1-D form), `nn.AdaptiveMaxPool2d(s)` → `_TrtAdaptiveMaxPool2d(s)` (a subclass with the
same constructor, `output_size` attribute and `isinstance` checks, no parameters, so
`state_dict` and `nn.Sequential` indices are unchanged, whose forward calls the helper).
Outside `torch.onnx.export` the helper is torch's function itself. While exporting a floating
input it takes the maximum of each of PyTorch's bins, computed from the traced sizes with
TRT601's bin machinery (bin i of o over n spans [floor(i*n/o), ceil((i+1)*n/o)), any n and o,
overlapping bins when n < o, `None` keeps an axis; the width's bins, then the height's: a
maximum is separable), so the graph follows any height and width. The output size may itself be
read from a shape (SAFMN's pyramid, `(h // 2**i, w // 2**i)`; mmdetection's BFP, another level's
`size()[2:]`): while the exporter traces that is a 0-d tensor, the error "output_size is not
constant" with torch's function, and the bins are computed from it in the graph as well. A bin's unused slots repeat
an element of the same bin, so the maximum is exact and no bin is ever empty; a NaN stays in
the bins that hold it. `return_indices=True` (a tuple, and TensorRT's MaxPool has no Indices
output), calls with other arguments, `torch.adaptive_max_pool1d` (it returns the indices too)
and the 3-D forms are reported without a fix; so is a module passed around as a class.

Fix safety: unsafe, for speed, as TRT601's. Eager, `torch.jit.script` (the helpers carry
torch's `BroadcastingList` types in a type comment), `torch.fx`, `torch.compile` and
`torch.export` run torch's operator: the same values, dtype, strides, gradients (max pooling
sends a gradient to one index of a tie; the bins' `amax` would split it, which is why the bins
are taken only while exporting) and errors. The exported graph computes exactly torch's
maxima for every shape, float dtype, empty batch and inf (ONNX Runtime's ReduceMax may drop a
NaN that torch keeps). The assumption: where the pooled sizes are static and divide, the
original already exports as one MaxPool and the bins (Range/Gather/ReduceMax) are slower; so
the fix runs with `--unsafe`, or when `trtcodemod migrate` sees the export fail at the
pooling. The module form also differs from torch's class by `type(m) is` and its repr's name.

TensorRT versions: all (the failure is in the exporters; the new graph uses Range, Gather,
Min and ReduceMax, supported since TensorRT 8.4).""",
        fix=Safety.UNSAFE,
        proof=prove_pool_export_fails,
        assumption=(
            "the pooling does not already export as one MaxPool (static, dividing sizes), where the exact bins are "
            "slower (values are the same)"),
        examples=(
            Example("y = F.adaptive_max_pool2d(feat, (7, 7))\n", "y = _trt_adaptive_max_pool2d(feat, (7, 7))\n",
                    unsafe=True),
            Example("self.im_pools = nn.ModuleList([nn.AdaptiveMaxPool2d((k, k)) for _ in range(nf)])\n",
                    "self.im_pools = nn.ModuleList([_TrtAdaptiveMaxPool2d((k, k)) for _ in range(nf)])\n",
                    unsafe=True),
            Example("head = nn.Sequential(nn.AdaptiveMaxPool1d(8), nn.Flatten())\n",
                    "head = nn.Sequential(_TrtAdaptiveMaxPool1d(8), nn.Flatten())\n", unsafe=True),
            Example("y, where = F.adaptive_max_pool2d(feat, 7, return_indices=True)\n"),
            Example("self.pool = nn.AdaptiveMaxPool3d((4, 4, 4))\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveMaxPool2d.html",
            "https://github.com/pytorch/pytorch/blob/main/torch/onnx/_internal/torchscript_exporter/symbolic_opset9.py",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        function = self.context.refers_to(node.func, *_MAX_FUNCTIONS)
        if function is not None:
            dims = _MAX_FUNCTIONS[function]
            size, name, given = argument(node, 1, "output_size"), f"adaptive_max_pool{dims}", {"input", "output_size"}
            found = function
        else:
            module = self.context.refers_to(node.func, *_MAX_MODULES)
            if module is None:
                return
            dims = _MAX_MODULES[module]
            size, name, given = argument(node, 0, "output_size"), f"nn.AdaptiveMaxPool{dims}", {"output_size"}
            found = module
        if any(is_reserved(scope) for scope in (*self.context.classes, *self.context.functions)):
            return
        if size is not None and not has_star_args(node):
            sizes = _max_sizes(size.value, dims)
            if sizes is not None and all(s == 1 for s in sizes):
                return  # GlobalMaxPool / ReduceMax: exports for any input size
        why = (f"{name}: the TorchScript exporter fails when a pooled axis is dynamic or the output size does not "
               "divide it, and the dynamo exporter bakes the example's kernel in")
        helper = _MAX_HELPERS.get(found)
        named = {a.keyword.value for a in node.args if a.keyword is not None}
        if helper is None or has_star_args(node) or size is None or len(node.args) != len(given) or named - given:
            reason = ("it asks for the indices or passes other arguments" if helper is not None
                      else "no exact form for this one")
            self.report(node, f"{why}; not rewritten ({reason}): reshape and `amax` when sizes always divide, "
                        "or compute the bins")
            return
        self.report(node, f"{why}; `{helper}` takes the maximum of PyTorch's exact bins from the traced sizes while "
                    "exporting (slower where sizes are static and divide)",
                    Fix({node: node.with_changes(func=cst.Name(helper))}, safety=Safety.UNSAFE, helpers=(helper,)))


RULES = (AdaptiveAvgPool, AdaptiveMaxPool)
