"""Top-k with a K above TensorRT's TopK limit (TRT804).

TensorRT's ONNX parser takes TopK with ``K < 3840`` only, and detection heads ask for more
(a pre-NMS top-k of 5000 is common in mmdet configs). The rule finds ``torch.topk(x, K)`` /
``x.topk(K)`` whose K is known to reach the limit: a literal, a module constant, a default
of the function's parameter, or a ``self`` attribute set once in the class from a literal
or an ``__init__`` default (``self.pre_top_k = pre_top_k`` with ``pre_top_k=5000``). It
rewrites the call to an inserted helper that exports as several TopK rounds. A ``min(C,
x.shape[d])`` K is TRT803's (its helper takes the rounds for a cap of 3840 or more).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import int_value, short_code
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._attribute_config import self_writes
from trtcodemod.transforms.detection import _CHANGELOG, _ONNX_TOPK, _OPERATORS, _TORCH_TOPK, _TopkRule
from trtcodemod.versions import TOPK_K_LIMIT

HELPER = "_trt_topk_large"
#: The TopK layer's page: "k must obey k <= d, k <= 3840" (the parser checks K < 3840).
_TOPK_LAYER = "https://docs.nvidia.com/deeplearning/tensorrt/latest/_static/operators/TopK.html"
_MMDEPLOY = "https://github.com/open-mmlab/mmdeploy/issues/2149"


class TopkLargeK(_TopkRule):
    info = RuleInfo(
        id="TRT804",
        name="topk-large-k",
        summary="`topk(x, K)` with K of 3840 or more: TensorRT's TopK takes K below 3840; export it in rounds",
        doc="""\
What it finds: `torch.topk(x, K)` / `x.topk(K)` in run-time code whose K is known to be
3840 or more: an integer literal, a local assigned once from one, a module-level constant
(`PRE_TOP_K = 5000`), a default of the function's parameter, or a `self` attribute assigned
once in the class from a literal or from an `__init__` parameter's default
(`self.nms_pre = nms_pre` with `nms_pre=5000`). A K of `min(C, x.shape[d])` is TRT803's,
and so is a top-k in the block of a pre-NMS size guard (`if 0 < nms_pre < x.shape[0]:`)
that TRT803 rewrites (its fix takes the rounds too). A K the code does not show (a config object, a value passed in) is not reported by
`check`; `migrate` locates such a TopK in the exported graph.

Why it hurts: the TensorRT ONNX parser takes TopK with `K < 3840` only (onnx-tensorrt
operators.md; the TopK layer takes `k <= 3840`): the model does not build. MMDeploy's
rewriter clamps K to 3840, which returns other detections; Torch-TensorRT leaves the op in
PyTorch.

The rewrite: `x.topk(K, ...)` → `_trt_topk_large(x, K, ...)` (an inserted helper; `dim`,
`largest`, `sorted` pass through). Outside `torch.onnx.export` it is `torch.topk` itself.
While exporting, for a Python int K of 3840 or more, it takes the best 3839 entries
(TopK), drops them from the axis keeping the others in their order (a stable partition:
`CumSum` of the kept flags gives each kept entry its place, `ScatterElements` moves the
values and their original positions there, a constant `Slice` drops the taken tail), takes
the next round from what is left, and concatenates the rounds' values and indices (mapped
back to the input's positions). ONNX's TopK orders equal values by index, lower first, and
the partition never reorders what is left, so the rounds return exactly what one TopK of K
returns (measured in ONNX Runtime with both exporters: the same values and indices, with
ties, NaN and -inf). The result is always sorted, also for `sorted=False` (whose order is
unspecified). K = 5000 takes 2 rounds; each round adds a TopK over what is left and a
scatter over the axis (measured in ONNX Runtime on 3 x 12000: see benchmarks/topk_rounds.py).

Fix safety: unsafe. Eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and
`torch.export` run `torch.topk`: same values, indices, gradients and errors. The exported
graph's values are those of the original top-k; its indices are assumed to order equal
values by index, lower first, as ONNX specifies: TensorRT does not document its order among
equal values, so there the indices of tied scores may be other (equal-valued, distinct)
entries than eager PyTorch's or ONNX Runtime's, and where NaN sorts in TensorRT's TopK is
not documented. The kept flags are summed in float32 (TensorRT's CumSum is floating point
only): exact for axes below 2**24 entries, and only while TensorRT keeps that CumSum in
float32: a build that allows FP16 kernels may run it in half precision (exact up to 2048
entries): build strongly typed or pin the layer's precision. A K not known as a Python int
while exporting (a tensor) exports the original TopK.

Which TensorRT versions: all (the limit holds from 8.x to 10.x; the operator documentation
of every release lists it).""",
        fix=Safety.UNSAFE,
        assumption=(
            "equal values are ordered by index, lower first, as ONNX specifies for TopK, and the axis has fewer than "
            "2**24 entries"),
        examples=(
            Example(
                "def pre_nms(scores):\n    return scores.topk(5000, dim=1)\n",
                "def pre_nms(scores):\n    return _trt_topk_large(scores, 5000, dim=1)\n",
                unsafe=True,
            ),
            Example(
                "class Head(nn.Module):\n"
                "    def __init__(self, nms_pre=6000):\n"
                "        super().__init__()\n"
                "        self.nms_pre = nms_pre\n\n"
                "    def forward(self, scores):\n"
                "        values, keep = torch.topk(scores, self.nms_pre)\n"
                "        return values, keep\n",
                "class Head(nn.Module):\n"
                "    def __init__(self, nms_pre=6000):\n"
                "        super().__init__()\n"
                "        self.nms_pre = nms_pre\n\n"
                "    def forward(self, scores):\n"
                "        values, keep = _trt_topk_large(scores, self.nms_pre)\n"
                "        return values, keep\n",
                unsafe=True,
            ),
            Example(
                "PRE_TOP_K = 4000\n\n\ndef pre_nms(scores):\n    return torch.topk(scores, PRE_TOP_K, largest=True)\n",
                "PRE_TOP_K = 4000\n\n\ndef pre_nms(scores):\n    return _trt_topk_large(scores, PRE_TOP_K, largest=True)\n",
                unsafe=True,
            ),
        ),
        references=(_OPERATORS, _CHANGELOG, _TOPK_LAYER, _ONNX_TOPK, _TORCH_TOPK, _MMDEPLOY),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._guarded: set[int] = set()

    def visit_If(self, node: cst.If) -> None:
        guard = self.size_guard(node)
        if guard is not None and guard.why_not is None:
            self._guarded.add(id(guard.selection))  # TRT803's guard fix takes it, in rounds where needed

    def visit_Call(self, node: cst.Call) -> None:
        found = self.topk_call(node)
        if found is None or id(node) in self._guarded:
            return
        source, k_arg, method = found
        k = self._known_k(k_arg.value)
        if k is None or k < TOPK_K_LIMIT:
            return
        message = (f"top-k with K = {k} (`{short_code(k_arg.value, 24)}`): TensorRT's TopK takes K below "
                   f"{TOPK_K_LIMIT}; export it as rounds of 3839 (fix needs --unsafe: equal scores may come "
                   "in another index order in TensorRT)")
        self.found_once(node, message, Fix({node: self.helper_call(node, source, method, HELPER)},
                                           safety=Safety.UNSAFE, helpers=(HELPER,)))

    # --- what K is ---------------------------------------------------------------------------
    def _known_k(self, k: cst.BaseExpression) -> int | None:
        value = int_value(k)
        if value is not None and type(k) is cst.Integer:
            return value
        if type(k) is cst.Name:
            local = self.sole_value(k)
            if local is not None:
                return int_value(local) if type(local) is cst.Integer else None
            return self._parameter_default(k.value) or self._module_constant(k.value)
        if type(k) is cst.Attribute and type(k.value) is cst.Name and k.value.value == "self":
            return self._attribute_value(k.attr.value)
        return None

    def _parameter_default(self, name: str) -> int | None:
        function = self.context.function
        if function is None or self.local_values().get(name) != [None]:  # bound only as the parameter
            return None
        for param in (*function.params.params, *function.params.kwonly_params):
            if param.name.value == name and type(param.default) is cst.Integer:
                return int_value(param.default)
        return None

    def _module_constant(self, name: str) -> int | None:
        values = [
            target_value
            for stmt in self.context.module.body if type(stmt) is cst.SimpleStatementLine
            for small in stmt.body if type(small) is cst.Assign
            for target_value in _assigned(small, name)
        ]
        if len(values) == 1 and type(values[0]) is cst.Integer:
            return int_value(values[0])
        return None

    def _attribute_value(self, attr: str) -> int | None:
        method = self.current_method()
        if method is None:
            return None
        record, _ = method
        writes: list[tuple[cst.FunctionDef, cst.BaseExpression]] = []
        for definitions in record.methods.values():
            for function in definitions:
                writes.extend((function, value) for value in self_writes(function, attr))
        if len(writes) != 1:
            return None  # never set here, or set in several places: not a fixed configuration
        function, value = writes[0]
        if type(value) is cst.Integer:
            return int_value(value)
        if type(value) is cst.Name and function.name.value == "__init__":
            for param in (*function.params.params, *function.params.kwonly_params):
                if param.name.value == value.value and type(param.default) is cst.Integer:
                    return int_value(param.default)
        return None


def _assigned(statement: cst.Assign, name: str) -> list[cst.BaseExpression]:
    """The value ``statement`` gives ``name`` (``name = v``); a tuple target counts as a non-literal."""
    out: list[cst.BaseExpression] = []
    for target in statement.targets:
        if type(target.target) is cst.Name and target.target.value == name:
            out.append(statement.value)
        elif type(target.target) in (cst.Tuple, cst.List):
            if any(type(e.value) is cst.Name and e.value.value == name for e in target.target.elements):
                out.append(cst.Name("_unknown"))
    return out


RULES = (TopkLargeK,)
