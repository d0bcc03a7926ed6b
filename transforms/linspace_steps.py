"""``torch.linspace(start, end, n)`` with ``n`` read at run time (TRT368): the export divides 0 by 0 at one step.

The TorchScript exporter writes ``linspace`` as ``Range(0, n) * step + start`` with ``step = (end - start) /
(n - 1)``; at ``n = 1`` the graph's one value is NaN where torch gives ``[start]``. The rewrite calls an
inserted helper (``trtcodemod/helpers/spacing.py``) that is ``torch.linspace`` itself outside an export and
for a count the trace keeps as a constant, and while the exporter traces a run-time count, the same range
times step with the divisor raised to at least 1.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, as_argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_linspace"
_PARAMS = ("start", "end", "steps")
_KEYWORDS = {"dtype", "device", "requires_grad"}
_FLOATS = {"float", "float32", "float16", "half", "bfloat16", "float64", "double"}


def _literal_int(node: cst.BaseExpression) -> bool:
    return type(node) is cst.Integer


def _not_float_dtype(node: cst.BaseExpression) -> bool:
    """``torch.long`` and the other dtypes written as attributes of ``torch`` that are not floating ones. A dtype
    held in a name or read from a tensor (``dtype=_dtype``, ``dtype=x.dtype``) is taken: the helper is
    ``torch.linspace`` itself wherever the result is not a floating tensor."""
    return type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "torch" \
        and node.attr.value not in _FLOATS


class LinspaceSteps(Rule):
    needs_text = spelled("torch.linspace")
    info = RuleInfo(
        id="TRT368",
        name="linspace-steps",
        summary="`torch.linspace(a, b, n)` with `n` read at run time: the TorchScript export divides by `n - 1`, "
                "a NaN (or, cast to an integer, the most negative int64) where `n` is 1; divide by at least 1 "
                "while exporting",
        doc="""\
What it finds: `torch.linspace(start, end, steps)` whose `steps` is not an integer literal (a size read
from a tensor, or a number computed from one), with at most `dtype=` (a floating dtype, or a dtype held in
a name or read from a tensor: kornia's `dtype=_dtype`), `device=` and `requires_grad=` besides. Real model
code builds coordinate grids and relative positions this way: stereo_matching 0.2.0's S2M2
(`_s2m2_get_pe`, called with `H // 8, W // 8` of a feature map) takes `torch.linspace(0, h - 1, h)` and
`torch.linspace(0, w - 1, w)`, meshes them, and indexes its positional table with the `.long()`
differences; Deformable DETR's reference points, RIFE's backward-warp grid, kornia's illumination ramps
and timm's Fourier position grid space one point per row or column of a map the same way.

Why it hurts: the TorchScript exporter writes `linspace` as `Range(0, steps) * step + start` with
`step = (end - start) / (steps - 1)`. Where `steps` is 1 at run time (a map of 8 rows pooled by 8), the
step is 0/0 and the one value is NaN, where torch gives `[start]`; cast with `.long()` it is the most
negative `int64`, and a `Gather` indexed by it is refused by ONNX Runtime ("indices element out of data
bounds, idx=-9223372036854775808"). At a traced example with one step, the graph fails on that very
example; elsewhere it fails only at the sizes that make one step.

The rewrite: `torch.linspace(0, h - 1, h)` → `_trt_linspace(0, h - 1, h)`, an inserted helper (keywords
pass through). Outside a TorchScript export, and where `steps` is a number the trace keeps as a
constant, it is `torch.linspace` itself. While the exporter traces a run-time `steps`, it computes the
exporter's own formula, `arange(steps) * ((end - start) / max(steps - 1, 1)) + start`, cast to the
dtype `torch.linspace` gives: the same nodes for two or more steps, and `[start]` for one. Where that dtype
is not a floating one (a dtype held in a name), it is `torch.linspace` itself.

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile`, `torch.export` and the dynamo
exporter run `torch.linspace` itself (same values, dtype, device, `requires_grad`, exceptions). While
the TorchScript exporter traces, the graph is the original's wherever the original's is defined (two
or more steps; its rounding is the exporter's range times step, within a float epsilon of torch's
two-sided formula, as it was), and torch's value at one step.

In `migrate`: the graph that ONNX Runtime refuses (or whose values first differ) is placed at the line
of the node the `NaN` reaches, often the indexing several lines below; the plan ties this rule's
findings in the same file to it (a NaN index is a wrong index), applies and verifies the fix.

TensorRT versions: all (the 0/0 is in the graph before TensorRT sees it).""",
        fix=Safety.SAFE,
        examples=(
            Example("grid_y = torch.linspace(0, h - 1, h).to(device)\n",
                    "grid_y = _trt_linspace(0, h - 1, h).to(device)\n"),
            Example("x_pos = torch.linspace(-3, 3, 2 * w + 1, dtype=torch.float32)\n",
                    "x_pos = _trt_linspace(-3, 3, 2 * w + 1, dtype=torch.float32)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.linspace.html",
            "https://github.com/pytorch/pytorch/blob/main/torch/onnx/_internal/torchscript_exporter/symbolic_opset9.py",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or not self.context.refers_to(node.func, "torch.linspace"):
            return
        if has_star_args(node):
            return
        steps = argument(node, 2, "steps")
        if steps is None or _literal_int(steps.value):
            return
        given = {a.keyword.value for a in node.args if a.keyword is not None}
        positional = [a for a in node.args if a.keyword is None]
        if len(positional) > 3 or not given <= (_KEYWORDS | set(_PARAMS)):
            return
        dtype = argument(node, None, "dtype")
        if dtype is not None and _not_float_dtype(dtype.value):
            return
        args = [a.with_changes(value=as_argument(a.value)) for a in node.args]
        self.report(node, "`torch.linspace` with a run-time number of steps exports as a range times "
                          "`(end - start) / (steps - 1)`: NaN where `steps` is 1 (torch gives `[start]`); "
                          f"`{HELPER}` divides by at least 1 while exporting (`torch.linspace` otherwise)",
                    Fix({node: node.with_changes(func=cst.Name(HELPER), args=args)}, helpers=(HELPER,)))


RULES = (LinspaceSteps,)
