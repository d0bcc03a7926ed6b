"""``torch.median`` / ``torch.nanmedian`` / ``torch.kthvalue`` / ``torch.quantile`` (TRT319): no ONNX symbolic; their values
from a sort.

The rewrite calls an inserted helper (``trtcodemod/helpers/selection.py``) that is the torch
function outside an export and, while exporting, the element of a sort at the median's (the
``k``-th) position, or torch's interpolation between the two elements around a quantile's rank.
Only where the values alone are used: ``torch.median(x)``, and the values of the dim form (``[0]``
or ``.values``); ``torch.quantile`` returns values only. Function and method forms.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers  # noqa: F401  (cst.matchers)

from trtcodemod.astutil import has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import torch_operator_call
from trtcodemod.transforms._tensor_evidence import TensorEvidence, evident_in_scope

HELPERS = {"median": "_trt_median", "nanmedian": "_trt_nanmedian", "kthvalue": "_trt_kthvalue",
           "quantile": "_trt_quantile"}
#: The helper's parameters after the tensor, as torch names them.
_PARAMETERS = {"median": ("dim", "keepdim"), "nanmedian": ("dim", "keepdim"), "kthvalue": ("k", "dim", "keepdim"),
               "quantile": ("q", "dim", "keepdim")}
#: Functions returning (values, indices): their values are taken from `[0]`, `.values` or an unpacking.
_PAIRED = ("median", "nanmedian", "kthvalue")


class OrderStatistic(Rule):
    needs_text = (b"median", b"kthvalue", b"quantile")
    requires = (TensorEvidence,)
    info = RuleInfo(
        id="TRT319",
        name="sorted-median",
        summary="`torch.median`/`torch.nanmedian`/`torch.kthvalue`/`torch.quantile` do not export (no ONNX "
                "symbolic); take the value from a sort",
        doc="""\
What it finds: `torch.median(x)`, and the values of `torch.median(x, dim, keepdim)` and
`torch.kthvalue(x, k, dim, keepdim)` (`[0]` or `.values` of the call), also as methods
(`x.median(dim=-1)[0]`), arguments by position or keyword. `obj.median()` without arguments is
not taken: pandas objects have that method too. A call whose indices may be used (the
result indexed otherwise or kept, or unpacked into a name the function reads), or with `out=` or
unpacked arguments, is reported without a fix. `values, _indices = torch.kthvalue(x, k)`, where
the second name appears nowhere else in the function (an underscored name, or any name bound
there and never read: `med, med_indexes = th.median(x, dim=2)`), is the values alone: it becomes
`values = _trt_kthvalue(x, k)`. `torch.nanmedian` the same way (neuralforecast's robust scalers:
`x_median, _ = x_nan.nanmedian(dim=dim, keepdim=keepdim)` in `common/_scalers.py`, which every model's
`robust` scaler runs): `_trt_nanmedian`. `torch.mode` stays TRT706's.
`torch.quantile(x, q, dim, keepdim, interpolation=...)` (one tensor, no indices) is taken whole;
its method form `x.quantile(...)` only where the code shows `x` is a tensor (a recorded run is not
asked: the fix is safe, and may not rest on what the runs held) or the call passes `keepdim`: pandas and xarray objects have `.quantile(q)` too. With `out=` or
unpacked arguments it is reported without a fix.

Why it hurts: neither exporter converts `aten::median` or `aten::kthvalue` (torch 2.13): the
TorchScript exporter stops with `UnsupportedOperatorError` at every opset and the dynamo
exporter with a `ConversionError`. Median filters do it in their forward pass: timm's
`MedianPool2d` (`x.unfold(...).median(dim=-1)[0]`, `layers/median_pool.py:48`), MONAI's
`median_filter` (`torch.median(features, dim=1)[0]`, `networks/layers/simplelayers.py:495`),
kornia's `median_blur` outside an export (`filters/median.py:213`); kornia's DISK keeps its `n`
strongest keypoints with `minus_threshold, _indices = torch.kthvalue(-detection_logp, n)`
(`feature/disk/detector.py:59`). The TorchScript exporter has no symbolic for `aten::quantile`
either (the dynamo exporter decomposes it): carvekit's TRACER zeroes the channels of an attention
mask under a quantile of them (`torch.quantile(mask.float(), self.confidence_ratio, dim=-1,
keepdim=True)`, `ml/arch/tracerb7/att_modules.py:142`), diffusion samplers clip by a quantile of
|x| per sample (CogVideo's `dynamic_threshold`, `l, r = x.quantile(q=torch.tensor([1 - p, p]),
dim=-1, keepdim=True)`, `sat/sgm/modules/diffusionmodules/sampling_utils.py:24`; Color-diffusion's
`torch.quantile(rearrange(img, 'b ... -> b (...)').abs(), percentile, dim=-1)`).

The rewrite: `torch.median(x, dim=1)[0]` → `_trt_median(x, dim=1)` (`_trt_kthvalue` for
`kthvalue`), the same arguments with the tensor first. Outside `torch.onnx.export` it is the torch
function itself. While exporting it sorts along the axis (ONNX TopK) and takes the element at
`(n - 1) // 2` (the lower median, as torch) or at `k - 1`. ONNX does not say where TopK puts NaN,
so NaN is sorted as `+inf` and restored from a count (IsNaN, ReduceSum, Where): the median is NaN
wherever the axis holds one (torch propagates it), the `k`-th value is NaN where `k` reaches past
the axis's numbers (torch orders NaN last). Float and int32/int64 tensors; other dtypes, an empty
or 0-d input, and a `k` that is not a Python int in `1..n` keep the torch function (and its
error). TensorRT parses TopK with a `K` under 3840: the length of the axis (windows of a median
filter, not whole images).

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run
the torch function itself (values, gradients, errors). The exported graph gives the same values;
among equal zeros of both signs, which sign the value carries is the selection's (torch's
quickselect, TopK's sort) and can differ, as NaN payloads can.

`_trt_nanmedian` sorts the same way and counts each line's numbers (`count`, the NaN left out); the
value is the sorted element at `(count - 1) // 2` (ONNX GatherElements), NaN where a line holds no
number, as torch gives: the lower median of the numbers. An inf among them sorts beside the NaN
placed as `+inf`, but the position stays inside the first `count` elements, so the value is inf
exactly where the numbers' median is. Integer inputs hold no NaN and take the median's sort.

`_trt_quantile` is `torch.quantile` itself except while the TorchScript exporter traces (the dynamo
exporter gets torch's own decomposition). There it follows torch's `quantile_compute`: ranks
`q * (n - 1)` in the input's dtype (`q` a float, a 0-d or a 1-D tensor; `dim=None` over all
elements; `keepdim`; `interpolation` linear, lower, higher, midpoint or nearest), the sorted elements
at the floor and ceiling of each rank (ONNX Gather), torch's `lerp` between them, and NaN for every
slice holding a NaN (NaN sorted as `+inf`, then restored). lower, higher, nearest and midpoint give
torch's values bit for bit; linear within an ulp (torch's CPU `lerp` fuses its multiply-add, the
graph rounds twice). A `q` outside `[0, 1]` (a tensor's values read when the trace reaches the call),
an empty or integer input, or a `dim` out of range keep `torch.quantile` and its error. TensorRT
parses the sort as TopK with `K` = the length of the reduced axis, which must stay under 3840:
channels or a window are fine; a quantile over a whole image's pixels (`dim=None`, or a flattened
`(t h w)` axis) of 3840 elements or more builds no engine. The static check names such a TopK
(TRT804) only where the graph shows its K: after a `reshape(b, -1)` with a dynamic batch, K is a
`Shape` the check cannot bound, and nothing is reported.

TensorRT versions: all (the export fails before TensorRT is involved).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def forward(self, x):\n"
                "    x = x.unfold(2, 3, 1).unfold(3, 3, 1)\n"
                "    return x.contiguous().view(x.size()[:4] + (-1,)).median(dim=-1)[0]\n",
                "def forward(self, x):\n"
                "    x = x.unfold(2, 3, 1).unfold(3, 3, 1)\n"
                "    return _trt_median(x.contiguous().view(x.size()[:4] + (-1,)), dim=-1)\n",
            ),
            Example("upper = torch.kthvalue(scores, k=upper_index).values\n",
                    "upper = _trt_kthvalue(scores, k=upper_index)\n"),
            Example("middle = torch.median(depth)\n", "middle = _trt_median(depth)\n"),
            Example("def threshold(logp, n):\n    minus, _indices = torch.kthvalue(-logp, n)\n    return -minus\n",
                    "def threshold(logp, n):\n    minus = _trt_kthvalue(-logp, n)\n    return -minus\n"),
            Example("threshold = torch.quantile(mask.float(), self.confidence_ratio, dim=-1, keepdim=True)\n",
                    "threshold = _trt_quantile(mask.float(), self.confidence_ratio, dim=-1, keepdim=True)\n"),
            Example("value, index = torch.median(x, dim=1)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.median.html",
            "https://pytorch.org/docs/stable/generated/torch.kthvalue.html",
            "https://pytorch.org/docs/stable/generated/torch.quantile.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._values_of: set[int] = set()  # ids of calls whose values alone are taken

    def visit_Assign(self, node: cst.Assign) -> None:
        """``values, _indices = torch.kthvalue(...)`` with the indices' name read nowhere in the
        function (underscored or not: SpeckleNoisePytorch's ``med_unf_input, med_unf_indexes =
        th.median(...)`` never reads the second): the values alone are used."""
        if len(node.targets) != 1 or not isinstance(node.value, cst.Call):
            return
        target = node.targets[0].target
        if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != 2:
            return
        first, second = (element.value for element in target.elements)
        if any(isinstance(e, cst.StarredElement) for e in target.elements):
            return
        if not (isinstance(first, cst.Name) and isinstance(second, cst.Name)):
            return
        function = self.context.function
        if function is None or _reads(function, second.value) != 1:  # only this binding names it
            return
        found = torch_operator_call(self, node.value, _PAIRED)
        if found is None or (found[2] == 0 and not node.value.args):
            return
        self._values(node, node.value, cst.Assign(targets=[cst.AssignTarget(target=first)], value=node.value))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            index = node.slice[0].slice.value
            if isinstance(index, cst.Integer) and index.value == "0":
                self._values(node, node.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "values":
            self._values(node, node.value)

    def visit_Call(self, node: cst.Call) -> None:
        if id(node) in self._values_of:
            return
        found = torch_operator_call(self, node, tuple(HELPERS))
        if found is None:
            return
        name, tensor, first = found
        if name == "quantile":
            self._quantile(node, tensor, first)
            return
        if name in ("median", "nanmedian") and len(node.args) == first:
            if first == 0:
                return  # `obj.median()`: pandas objects have the method too, and nothing says a tensor
            if tensor is not None:
                self._fix(node, node, name, tensor, first)  # torch.median(x): one value
                return
        self.report(node, f"{self._message(name)}; take the value from a sort (not rewritten: the indices may be "
                    "used, or unpacked, missing or other arguments)")

    def _values(self, outer: cst.CSTNode, call: cst.BaseExpression, assign: cst.Assign | None = None) -> None:
        if not isinstance(call, cst.Call):
            return
        found = torch_operator_call(self, call, _PAIRED)
        if found is None or (found[2] == 0 and not call.args):
            return  # `.median().values` of what may be a pandas object: left to visit_Call
        self._values_of.add(id(call))
        name, tensor, first = found
        parameters = _PARAMETERS[name]
        keywords = {arg.keyword.value for arg in call.args if arg.keyword is not None}
        positional = [arg for arg in call.args[first:] if arg.keyword is None]
        if (tensor is None or has_star_args(call) or keywords - set(parameters) - {"input"}
                or len(positional) > len(parameters)
                or (name == "kthvalue" and not positional and "k" not in keywords)):
            self.report(call, f"{self._message(name)}; take the value from a sort (not rewritten: unpacked, "
                        "missing or other arguments)")
            return
        self._fix(outer, call, name, tensor, first, assign)

    def _quantile(self, call: cst.Call, tensor: cst.Arg | None, first: int) -> None:
        """``torch.quantile(x, q, dim, keepdim, interpolation=...)`` or ``x.quantile(...)``: one tensor,
        rewritten in place. The method form only where ``x`` is a tensor by the code or a recorded run,
        or the call passes torch's ``keepdim``: pandas and xarray objects have ``.quantile(q)`` too. The code
        alone decides (no recorded run): a safe fix may not rest on what the observed runs held."""
        keywords = {arg.keyword.value for arg in call.args if arg.keyword is not None}
        if first == 0 and tensor is not None and "keepdim" not in keywords \
                and not evident_in_scope(self.context, tensor.value, self.provider(TensorEvidence).bindings):
            return
        positional = [arg for arg in call.args[first:] if arg.keyword is None]
        if (tensor is None or has_star_args(call) or keywords - {"q", "dim", "keepdim", "interpolation", "input"}
                or len(positional) > 3 or (not positional and "q" not in keywords)):
            self.report(call, f"{self._message('quantile')}; take it from a sort (not rewritten: unpacked, missing or "
                        "other arguments, `out=`)")
            return
        self._fix(call, call, "quantile", tensor, first)

    def _fix(self, outer: cst.CSTNode, call: cst.Call, name: str, tensor: cst.Arg, first: int,
             assign: cst.Assign | None = None) -> None:
        rest = [arg for arg in call.args if arg is not tensor]
        if first == 0:  # method form: the receiver becomes the first argument
            rest = list(call.args)
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        tensor_arg = cst.Arg(value=tensor.value, keyword=None, equal=cst.MaybeSentinel.DEFAULT,
                             comma=comma if rest else cst.MaybeSentinel.DEFAULT)
        if rest:
            rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        helper = HELPERS[name]
        replacement = call.with_changes(func=cst.Name(helper), args=[tensor_arg, *rest])
        if assign is not None:  # `values, _indices = ...` -> `values = ...`
            replacement = assign.with_changes(value=replacement)
        self.report(call, f"{self._message(name)}; take the value from a sort while exporting (`torch.{name}` "
                    "otherwise)", Fix({outer: replacement}, helpers=(helper,)))

    @staticmethod
    def _message(name: str) -> str:
        return f"the exporters cannot convert `torch.{name}` (aten::{name}), so the model does not export"


def _reads(function: cst.FunctionDef, name: str) -> int:
    """How many times ``name`` appears as a name in ``function`` (bindings and reads)."""
    return len(cst.matchers.findall(function, cst.matchers.Name(name)))


RULES = (OrderStatistic,)
