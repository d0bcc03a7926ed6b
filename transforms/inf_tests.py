"""Tests for infinities (TRT733): exported with a float64 Cast, or not at all; compare instead.

The rewrite calls inserted helpers (``trtcodemod/helpers/finite.py``) that are the torch function
outside an export and, while exporting, comparisons with infinity in the input's own dtype.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import INF_TEST_HELPERS, torch_operator_call

#: Each function's helper; ``nan_to_num`` keeps its other arguments.
HELPERS = {**{name.removeprefix("_trt_"): name for name in sorted(INF_TEST_HELPERS)}, "nan_to_num": "_trt_nan_to_num"}

_NAN_TO_NUM_KEYWORDS = frozenset({"nan", "posinf", "neginf"})


class InfTests(Rule):
    needs_text = spelled(*HELPERS)
    info = RuleInfo(
        id="TRT733",
        name="inf-test",
        summary="`isinf`/`isfinite`/`nan_to_num` export with a Cast to float64, which TensorRT lacks "
                "(`isposinf`/`isneginf` do not export); compare with infinity while exporting",
        doc="""\
What it finds: `torch.isinf`, `torch.isfinite`, `torch.isposinf`, `torch.isneginf` and
`torch.nan_to_num`, as functions or tensor methods, in code the model runs. A call with `out=` or
unpacked arguments is reported without a fix.

Why it hurts: the TorchScript exporter writes `aten::isinf` as ONNX `IsInf` of its input cast to
float64 (torch 2.13, every opset), `isfinite` as that and `IsNaN`, and `nan_to_num` with one such
test per infinity it replaces. TensorRT has no float64 tensors, so the parser refuses the graph at
the Cast (TRT701 names it). `isposinf` and `isneginf` have no ONNX symbolic at all: the export
stops. Real code meets this in its numerical guards: kornia's distance transform clears each
round with `torch.nan_to_num(cdt, nan=0.0, posinf=0.0, neginf=0.0)` inside a loop the trace
unrolls (128 Casts at 64 px), its sub-pixel refinement tests `torch.isfinite`, and a frequency
block cleans its spectrum with `nan_to_num`.

The rewrite: the call → `_trt_isinf(x)`, `_trt_isfinite(x)`, ... `_trt_nan_to_num(x, ...)` (the
same arguments), inserted helpers. Outside `torch.onnx.export` each is the torch function itself.
While exporting, a floating-point tensor takes comparisons in its own dtype: `x.abs() == inf`,
`x.abs() < inf` (false for NaN, as `isfinite`), `x == inf`, `x == -inf`, and `nan_to_num` as three
`Where` on `x == inf`, `x == -inf` and `isnan(x)` with the dtype's largest and smallest finite
values where no replacement is given, as torch (not `x != x`: ONNX Runtime's optimizer swaps the
branches of a Where on a Not, and its Where reads a -0.0 from the first branch as 0.0). Comparisons with infinity round nothing, so the
graph computes the function's values exactly; an integer or bool tensor, which holds no infinity,
gives the constant answer in its shape (and `nan_to_num` the tensor).

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run
the torch function itself (values, dtype, errors; the results are bool, or `nan_to_num`'s, whose
gradient the torch function keeps); only the exported graph differs, with the same values.

TensorRT versions: all (Abs, Equal, Less, IsNaN, Not and Where parse from 8.4; a float64 Cast never).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def clean(cdt):\n"
                "    return torch.nan_to_num(cdt, nan=0.0, posinf=0.0, neginf=0.0)\n",
                "def clean(cdt):\n"
                "    return _trt_nan_to_num(cdt, nan=0.0, posinf=0.0, neginf=0.0)\n",
            ),
            Example("valid = torch.isfinite(det).all(-1)\n", "valid = _trt_isfinite(det).all(-1)\n"),
            Example("hit = scores.isposinf()\n", "hit = _trt_isposinf(scores)\n"),
            Example("bad = torch.isinf(x, out=flags)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.isinf.html",
            "https://pytorch.org/docs/stable/generated/torch.nan_to_num.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = torch_operator_call(self, node, tuple(HELPERS))
        if found is None:
            return
        name, tensor, count = found
        message = (f"`{name}` exports with a Cast to float64 (TorchScript exporter), which TensorRT lacks"
                   if name not in ("isposinf", "isneginf") else
                   f"the TorchScript exporter cannot convert `{name}` (aten::{name}), so the model does not export")
        rest = list(node.args[count:])
        plain = tensor is not None and not has_star_args(node) and (
            not rest if name != "nan_to_num" else
            len(rest) <= 3 and all(a.keyword is None or a.keyword.value in _NAN_TO_NUM_KEYWORDS for a in rest))
        if not plain:
            self.report(node, f"{message}; compare with infinity while exporting instead (not rewritten: other "
                              "arguments)")
            return
        args = [cst.Arg(value=tensor.value)] + [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in rest]
        self.report(node, f"{message}; compare with infinity in the tensor's own dtype while exporting "
                          f"(`torch.{name}` otherwise)",
                    Fix({node: cst.Call(func=cst.Name(HELPERS[name]), args=args)}, helpers=(HELPERS[name],)))


RULES = (InfTests,)
