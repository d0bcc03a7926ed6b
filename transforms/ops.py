"""Operators with no TensorRT-parsable ONNX form: ``atan2`` (TRT301), ``unique`` (TRT302).

Both are replaced by helpers built from operators TensorRT parses, inserted into the
rewritten file (``trtcodemod/helpers/atan2.py``, ``trtcodemod/helpers/unique.py``).

Matching: the function forms (``torch.atan2``, ``torch.arctan2``, ``torch.unique``) go
through the file's imports. The method forms (``y.atan2(x)``, ``x.unique()``) cannot be
resolved by name; they match any receiver that is not an imported module or ``self``.
Both helpers hand a non-tensor receiver back to its own method or to torch, so a
``Series.unique()`` from pandas keeps working after the rewrite.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, helper_call, method_call
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper, tensor_method_receiver


ATAN2_HELPER = "_trt_atan2"
UNIQUE_HELPER = "_trt_unique"


class Atan2(Rule):
    needs_text = (b"atan2", b"arctan2")
    info = RuleInfo(
        id="TRT301",
        name="atan2",
        summary="`torch.atan2` has no ONNX op and exports with wrong edge values; use the exact Atan-based helper",
        doc="""\
What it finds: `torch.atan2(y, x)`, `torch.arctan2(y, x)` and the methods `y.atan2(x)`,
`y.arctan2(x)`. The in-place `y.atan2_(x)` and calls with `out=` are reported without a
fix. A method call cannot be resolved by name: any receiver that is not an imported module
(`np`, `math`) or `self` matches; the helper hands a non-tensor receiver that has its own
`atan2` method back to that method.

Why it hurts: ONNX has no Atan2 operator. Old exporters fail on it; current ones (torch
2.13, both the TorchScript and the dynamo exporter) emit `Atan(y / x)` plus a quadrant
correction with `Where`, and that graph is wrong at the edges (checked with ONNX Runtime):
`atan2(0, -1)` is -pi instead of pi, `atan2(1, -0.)` is -pi/2 instead of pi/2,
`atan2(0, 0)` and `atan2(inf, inf)` are NaN (TorchScript) or 0 (dynamo), and the dynamo
graph maps NaN inputs to 0. Headings of objects pointing exactly backwards (y = 0, x < 0)
are ordinary data in detection and tracking, so these are not curiosities.

The rewrite: `torch.atan2(y, x)` → `_trt_atan2(y, x)`, an inserted helper. Outside
`torch.onnx.export` it is `torch.atan2` itself. While exporting it takes a formulation made
of Abs, Min/Max, Div, Atan, Mul/Sub, comparisons, Reciprocal, IsNaN and Where, all parsed by
every TensorRT version in the support table (no IsInf, which 8.4/8.5 lack): it takes
`atan(min(|y|,|x|) / max(|y|,|x|))`, whose argument stays in [0, 1] where Atan is accurate
(no `y / x` overflow or loss near |y/x| huge), and reflects it into the right octant and
quadrant; signed zeros are told apart with `1 / x < 0`.

Fix safety: safe. Eager, `torch.jit.script` (scripted modules and `@torch.jit.script`
functions), `torch.fx`, `torch.compile(fullgraph=True)` and `torch.export` run
`torch.atan2` itself: the same values bit for bit, dtype, gradients (also at |y| == |x|
and at (0, 0)), and errors, for one Python call and a few flag checks more. Speed: that is
a fixed cost of about 0.4 µs a call on a 2-core CPU (`python benchmarks/helpers.py
--no-onnx --match small`): 1.37x a bare 0-d `torch.atan2`, 1.23x a module forward around
it; within 10% only where the call takes about 4 µs or more (the check of an export in
progress alone is 0.2 µs, and TorchScript needs `torch.jit.is_scripting()` first). An fx
trace records `torch.atan2` (the method form too), so the traced graph still scripts. The exported
graph gives torch's results on every input: signed zeros in both arguments, every infinity
combination, NaN in either argument, broadcasting, dtype promotion (integers give the
default float dtype; float16 and bfloat16 are computed in float32 and rounded back).
Finite values may differ from torch's by rounding, within about one unit in the last place
(torch's own float32 kernel is not correctly rounded either: its `atan2(1, 1)` is one ulp
below pi/4, the helper's is pi/4 rounded to nearest).

TensorRT versions: all. The exported form of `torch.atan2` is wrong on every version,
so the rule is not limited to old targets.""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def heading(boxes):\n    return torch.atan2(boxes[:, 6], boxes[:, 7])\n",
                "def heading(boxes):\n    return _trt_atan2(boxes[:, 6], boxes[:, 7])\n",
            ),
            Example("yaw = rot_sin.atan2(rot_cos)\n", "yaw = _trt_atan2(rot_sin, rot_cos)\n"),
            Example("angle = torch.arctan2(dy, dx)\n", "angle = _trt_atan2(dy, dx)\n"),
            Example("yaw.atan2_(cos)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.atan2.html",
            "https://en.wikipedia.org/wiki/Atan2",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        if self.context.refers_to(node.func, "torch.atan2", "torch.arctan2"):
            receiver = None
        else:
            receiver = tensor_method_receiver(self, node, ("atan2", "arctan2", "atan2_", "arctan2_"))
            if receiver is None:
                return
            name = method_call(node)[1]  # type: ignore[index]
            if name.endswith("_"):
                self.report(node, f"in-place {name}() exports as Atan with wrong edge values; "
                            f"assign the result of _trt_atan2 instead")
                return
        if has_star_args(node):
            self.report(node, "atan2 has no ONNX op and exports with wrong edge values; "
                        "call _trt_atan2(y, x) (not rewritten: unpacked arguments)")
            return
        if receiver is None:
            y = argument(node, 0, "input")
            x = argument(node, 1, "other")
            expected = 2
        else:
            y = cst.Arg(value=receiver)
            x = argument(node, 0, "other")
            expected = 1
        if y is None or x is None:
            return
        if len(node.args) != expected:
            self.report(node, "atan2 has no ONNX op and exports with wrong edge values; "
                        "call _trt_atan2(y, x) (not rewritten: extra arguments such as out=)")
            return
        replacement = helper_call(ATAN2_HELPER, y.value, x.value)
        self.report(
            node,
            "atan2 has no ONNX op; the exported Atan/Where chain gets y = 0 with x < 0, x = -0.0, 0/0 and "
            "inf/inf wrong; use the exact helper",
            Fix({node: replacement}, helpers=(ATAN2_HELPER,)),
        )


#: unique's optional arguments: (function position, method position, keyword, the value the helper assumes).
_UNIQUE_OPTIONS = (
    (1, 0, "sorted", "True"),
    (2, 1, "return_inverse", "False"),
    (3, 2, "return_counts", "False"),
    (4, 3, "dim", "None"),
)


_UNIQUE_EXTRAS = ("return_inverse", "return_counts")
#: The extra results asked for -> the helper that returns them.
_UNIQUE_HELPERS = {
    (): UNIQUE_HELPER,
    ("return_inverse",): "_trt_unique_inverse",
    ("return_counts",): "_trt_unique_counts",
    ("return_inverse", "return_counts"): "_trt_unique_inverse_counts",
}


class Unique(Rule):
    needs_text = (b"unique",)
    info = RuleInfo(
        id="TRT302",
        name="unique",
        summary="`torch.unique` exports as ONNX `Unique`, which TensorRT never supports; use a sort-based helper",
        doc="""\
What it finds: `torch.unique(x)` and `x.unique()`. The sorted form over the whole tensor
(`dim=None`, `sorted` absent or `True`) is rewritten, also with `return_inverse=True` and
`return_counts=True` written as literals (kornia's histogram matching,
`_, bin_idx, s_counts = torch.unique(source, return_inverse=True, return_counts=True)`);
`dim=`, `sorted=False` and flags that are not literals are reported without a fix. A method call cannot be resolved by name: any
receiver that is not an imported module or `self` matches (`np.unique(a)` does not); the
helper calls a non-tensor's own `.unique()`, so a pandas `Series.unique()` still works.

Why it hurts: it exports as the ONNX `Unique` op, which no TensorRT version parses.

The rewrite: `torch.unique(x)` → `_trt_unique(x)`, an inserted helper. Outside
`torch.onnx.export` it is `torch.unique` itself. While exporting it flattens `x`, sorts it
and keeps the first value of each run of equal values. The exported graph holds `TopK`
(the sort), `Slice`/`Concat`/`Equal`/`Not` plus `Range` for the first position (the run
starts), and `Cast` → `NonZero` → `Gather` (the selection); no `Unique`. The result's length still depends on the data, so
the graph keeps a `NonZero`: it needs TensorRT 8.5 or newer, and ONNX-TensorRT documents
TopK's K as below 3840, so inputs of more elements than that will not build (class ids or
per-image labels fit; whole feature maps do not). Before TensorRT 10, TopK's K must also
be a build-time constant, so the input's size must be static there (a unique of a masked,
data-dependent selection will not build on 8.x; `trtcodemod verify` and `inspect` flag the
computed K).

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`
run `torch.unique` itself (same values, dtype, device and errors); an fx trace records
`torch.unique`, so the traced graph still scripts. The exported graph gives the same
values, order, length and dtype as `torch.unique` for every dtype (bool included, sorted
through int32) and shape, 0-d tensors included, and empty ones with both exporters: fed to
a graph exported with a dynamic length, and as the example the graph is traced with (every
size in the graph follows the input's length; a `values[:1]` would be traced as length 1,
since `torch.export` assumes a dynamic length of 2 or more, and the dynamo exporter refuses a
`Concat` of pieces that are all empty in the example, as a `(0, 4)` input makes two slices, so
the predecessors are the values behind one filler value); NaN is unequal to itself,
so every NaN is kept, after all numbers, as torch does. One unspecified detail: when both
0.0 and -0.0 occur, torch returns one of them depending on its sort algorithm and the input
size, and the exported graph may return the other. `sorted=False` is not rewritten: torch's
order is then implementation-defined, and a sorted result is not the same function.

With the extra results the helper is `_trt_unique_inverse`, `_trt_unique_counts` or
`_trt_unique_inverse_counts` (torch's own function outside an export, each scriptable with
its literal flags). While exporting, the sort also gives where each value came from; a count
is the distance from one run's start (NonZero) to the next, exact: counts alone keep the fix
safe. An element's index among the distinct values is the number of run starts up to its
sorted place, less one, a running sum (CumSum) put back in the input's shape by
ScatterElements; TensorRT's CumSum is floating point only, so the sum is taken in float32,
exact below 2**24 elements: with `return_inverse=True` the fix is unsafe for that assumption,
and `migrate` verifies it.

TensorRT versions: all (Unique is unsupported in every version); the rewritten graph
needs 8.5 or newer.""",
        fix=Safety.SAFE,
        assumption="with `return_inverse=True`: fewer than 2**24 elements (the inverse indices are a running count "
                   "summed in float32, as TensorRT's CumSum is floating point only)",
        fails_when=("an input of 2**24 elements or more: the inverse indices past that round in the graph",),
        examples=(
            Example("classes = torch.unique(labels)\n", "classes = _trt_unique(labels)\n"),
            Example(
                "def present(det):\n    return det[:, 5].unique(sorted=True)\n",
                "def present(det):\n    return _trt_unique(det[:, 5])\n",
            ),
            Example("ids, counts = torch.unique(labels, return_counts=True)\n",
                    "ids, counts = _trt_unique_counts(labels)\n"),
            Example("_, bins, counts = torch.unique(x, return_inverse=True, return_counts=True)\n",
                    "_, bins, counts = _trt_unique_inverse_counts(x)\n", unsafe=True),
            Example("rows = torch.unique(pairs, dim=0)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.unique.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        if self.context.refers_to(node.func, "torch.unique"):
            tensor = argument(node, 0, "input")
            method = False
        else:
            receiver = tensor_method_receiver(self, node, ("unique",))
            if receiver is None:
                return
            tensor = cst.Arg(value=receiver)
            method = True
        problem, extras = self._unsupported(node, method)
        if tensor is None and problem is None:
            return
        if problem or tensor is None:
            self.report(node, f"unique exports as ONNX Unique, which TensorRT never supports; {problem}")
            return
        helper = _UNIQUE_HELPERS[extras]
        if "return_inverse" in extras:
            # The inverse is a running count of the runs, summed in float32 (TensorRT's CumSum).
            self.report(node, "unique exports as ONNX Unique, which TensorRT never supports; use the sort-based "
                              "helper, whose inverse indices count the runs in float32 (exact below 2**24 elements)",
                        Fix({node: helper_call(helper, tensor.value)}, helpers=(helper,), safety=Safety.UNSAFE))
            return
        self.report(
            node,
            "unique exports as ONNX Unique, which TensorRT never supports; use the sort-based helper",
            Fix({node: helper_call(helper, tensor.value)}, helpers=(helper,)),
        )

    @staticmethod
    def _unsupported(node: cst.Call, method: bool) -> tuple[str | None, tuple[str, ...]]:
        """Why this call cannot be rewritten (or None), and the extra results it asks for
        (``return_inverse``, ``return_counts``, each given as a literal ``True``)."""
        if has_star_args(node):
            return "not rewritten: unpacked arguments", ()
        known = 0 if method else 1
        extras: list[str] = []
        for function_position, method_position, keyword, assumed in _UNIQUE_OPTIONS:
            arg = argument(node, method_position if method else function_position, keyword)
            if arg is None:
                continue
            known += 1
            value = arg.value
            if keyword in _UNIQUE_EXTRAS and type(value) is cst.Name and value.value == "True":
                extras.append(keyword)
            elif not (type(value) is cst.Name and value.value == assumed):
                allowed = "True or False" if keyword in _UNIQUE_EXTRAS else assumed
                return (f"not rewritten: `{keyword}=` must be {allowed} as a literal for the helper "
                        "(`dim` and unsorted output need a hand-written sort-based version)"), ()
        if len(node.args) != known:
            return "not rewritten: unexpected arguments", ()
        return None, tuple(extras)


RULES = (Atan2, Unique)
