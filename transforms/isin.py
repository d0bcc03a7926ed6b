"""``torch.isin`` (TRT305): the TorchScript exporter cannot convert it; compare by broadcasting.

The rewrite calls an inserted helper (``trtcodemod/helpers/isin.py``) that is
``torch.isin`` outside an export and the guidance's broadcast ``==`` plus ``any`` while
exporting. Matching goes through the file's imports (``torch.isin``, ``from torch import
isin``); tensors have no ``isin`` method, so there is no method form to guess at.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

ISIN_HELPER = "_trt_isin"
_MESSAGE = "the TorchScript exporter cannot convert `torch.isin` (aten::isin), so the model does not export"


class Isin(Rule):
    needs_text = (b"isin",)
    info = RuleInfo(
        id="TRT305",
        name="isin",
        summary="`torch.isin` does not export (no ONNX symbolic for aten::isin); compare by broadcasting instead",
        doc="""\
What it finds: `torch.isin(elements, test_elements)` (also imported as `from torch import
isin`), with or without `invert=`. A call with `assume_unique=` or unpacked arguments is
reported without a fix.

Why it hurts: the TorchScript exporter has no symbolic for `aten::isin` at any opset (torch
2.13): `torch.onnx.export` stops with `UnsupportedOperatorError: Exporting the operator
'aten::isin' ...`, so there is no ONNX file for TensorRT at all. Models use it to keep the
detections of chosen classes or the tracks of known ids.

The rewrite: `torch.isin(a, b)` → `_trt_isin(a, b)`, an inserted helper. Outside
`torch.onnx.export` it is `torch.isin` itself. While exporting it compares every element
with every test element and counts the matches, `(a.unsqueeze(-1) == b.reshape(-1))` summed
as int32 over the last axis and compared with 0 (Unsqueeze, Reshape, Equal, Cast, ReduceSum,
Greater, all parsed by TensorRT), negated for `invert=True`. A count rather than `any`: the
dynamo exporter's `any` over an empty axis (no test elements) comes out True in ONNX Runtime.

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`
run `torch.isin` itself (a fixed cost of a Python call and two flag checks, about 0.5 µs).
The exported comparison gives `isin`'s answer on every input: it compares with torch's `==`
as `isin` does (NaN matches nothing, -0.0 matches 0.0, mixed integer and float dtypes are
promoted), a 0-d `elements` gives a 0-d result, empty `elements` an empty one, empty
`test_elements` all False. Inputs `torch.isin` refuses (bool, complex) and Python numbers
keep `torch.isin` while exporting too, so the error stays the same. The comparison holds
`elements.numel() * test_elements.numel()` booleans: fine for the short id lists models
test against, not for two large tensors.

TensorRT versions: all (the export fails before TensorRT is involved).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def keep_classes(labels, wanted):\n    return torch.isin(labels, wanted)\n",
                "def keep_classes(labels, wanted):\n    return _trt_isin(labels, wanted)\n",
            ),
            Example("lost = torch.isin(track_ids, alive, invert=True)\n",
                    "lost = _trt_isin(track_ids, alive, invert=True)\n"),
            Example("seen = torch.isin(ids, known, assume_unique=True)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.isin.html",
            "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        if not self.context.refers_to(node.func, "torch.isin"):
            return
        elements, tests = argument(node, 0, "elements"), argument(node, 1, "test_elements")
        invert = argument(node, None, "invert")
        if has_star_args(node) or elements is None or tests is None:
            self.report(node, f"{_MESSAGE}; call _trt_isin(elements, test_elements) (not rewritten: "
                        "unpacked or missing arguments)")
            return
        if len(node.args) != 2 + (invert is not None):
            self.report(node, f"{_MESSAGE}; call _trt_isin(elements, test_elements) (not rewritten: `assume_unique=` "
                        "or other arguments: with non-unique inputs torch's answer may differ from the comparison)")
            return
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args = [cst.Arg(value=elements.value, comma=comma), cst.Arg(value=tests.value)]
        if invert is not None:
            args[-1] = args[-1].with_changes(comma=comma)
            args.append(invert.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        self.report(node, f"{_MESSAGE}; compare by broadcasting while exporting (`torch.isin` otherwise)",
                    Fix({node: cst.Call(func=cst.Name(ISIN_HELPER), args=args)}, helpers=(ISIN_HELPER,)))


RULES = (Isin,)
