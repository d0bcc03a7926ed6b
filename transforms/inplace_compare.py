"""In-place comparisons (``x.gt_(v)``) the TorchScript exporter writes as bool (TRT323)."""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import as_argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper, tensor_method_receiver

HELPER = "_trt_compare_"

#: In-place method → the comparison the helper runs (torch's aliases share one).
OPS = {
    "gt_": "gt", "greater_": "gt", "ge_": "ge", "greater_equal_": "ge",
    "lt_": "lt", "less_": "lt", "le_": "le", "less_equal_": "le",
    "eq_": "eq", "ne_": "ne", "not_equal_": "ne",
    "logical_and_": "logical_and", "logical_or_": "logical_or", "logical_xor_": "logical_xor",
    "logical_not_": "logical_not",
}


class InplaceCompare(Rule):
    needs_text = tuple(sorted({name.encode() for name in OPS}))
    info = RuleInfo(
        id="TRT323",
        name="inplace-compare",
        summary="`x.gt_(v)` and the other in-place comparisons export as a bool comparison with no cast back "
                "(TorchScript exporter): the graph's type differs from the model's; cast while exporting",
        doc="""\
What it finds: the in-place comparison methods of a tensor: `x.gt_(v)`, `ge_`, `lt_`, `le_`,
`eq_`, `ne_` (and their aliases `greater_`, `greater_equal_`, `less_`, `less_equal_`,
`not_equal_`), `logical_and_`, `logical_or_`, `logical_xor_` and `logical_not_()`, with one
operand (none for `logical_not_`), in any code. YOLOv5's mask decoding ends with
`return masks.gt_(0.5)` (`utils/segment/general.py`: `process_mask`, `process_mask_upsample`,
`process_mask_native`), ultralytics' with `masks.gt_(0.0)`, and training code builds its masks
with `gt_bboxes.sum(2, keepdim=True).gt_(0.0)`.

Why it hurts: the method writes the comparison into `x` in `x`'s own type (1.0 and 0.0 for a
float tensor). The TorchScript exporter (torch 2.13, any opset) writes only the comparison:
ONNX `Greater` and the like, whose output is bool, with no `Cast` back. The graph returns bool
where the model returns float32; arithmetic on it downstream is promoted another way (`* 2`
exports as an int64 product) or refused (`Add` of a bool and a float: ONNX Runtime and TensorRT
reject the graph). The dynamo exporter writes the cast: its graph is right.

The rewrite: `masks.gt_(0.5)` → `_trt_compare_(masks, "gt", 0.5)`, an inserted helper that is
the in-place method itself except while the TorchScript exporter traces, where it writes the
out-of-place comparison cast to the input's type into the input (`input.zero_().add_(
torch.gt(input, 0.5).to(input.dtype))`, `logical_or_` for a bool input): in the graph, the
comparison and a `Cast`, and later reads of the input see the values written (the exporter keeps
in-place arithmetic; a `copy_` into one of the graph's inputs, such as LeViT's drop-path draw
`rnd.ge_(self.drop_rate)` given as a forward argument, becomes an `aten::copy` it cannot export).
A call with other arguments (keywords, unpacked ones) is reported without a fix.

Fix safety: safe. Eager mode, `torch.compile`, `torch.export` and the dynamo exporter run the
in-place method itself; `torch.jit.script` runs it too (a number operand as a 0-d tensor, which
takes part in type promotion as the number does); the traced graph computes the same values in
the same type. An in-place write into a view of another tensor (`x[:, :2].gt_(0)`) is not kept by
the TorchScript exporter before or after the fix (the write into the base tensor is lost):
that is TRT203's slice-assignment problem, not this one. TensorRT versions: all.""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def process_mask(protos, coefs):\n"
                "    masks = (coefs @ protos.flatten(1)).sigmoid()\n"
                "    return masks.gt_(0.5)\n",
                "def process_mask(protos, coefs):\n"
                "    masks = (coefs @ protos.flatten(1)).sigmoid()\n"
                "    return _trt_compare_(masks, \"gt\", 0.5)\n",
            ),
            Example("def keep(valid, other):\n    return valid.logical_and_(other)\n",
                    "def keep(valid, other):\n    return _trt_compare_(valid, \"logical_and\", other)\n"),
            Example("def above(x, v):\n    return x.gt_(other=v)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.Tensor.gt_.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        receiver = tensor_method_receiver(self, node, tuple(OPS))
        if receiver is None:
            return
        method = node.func.attr.value  # type: ignore[attr-defined]
        op = OPS[method]
        operands = 0 if op == "logical_not" else 1
        message = (f"`{method}` writes the comparison into the tensor in its own type, but the TorchScript exporter "
                   "writes only the comparison (bool, no cast back): the graph's type differs from the model's")
        if has_star_args(node) or any(a.keyword is not None for a in node.args) or len(node.args) != operands:
            if len(node.args) <= 1:  # a keyword or an unpacked operand: no tensor method takes more
                self.report(node, f"{message} (not rewritten: other arguments)")
            return
        args = [cst.Arg(value=as_argument(receiver)), cst.Arg(value=cst.SimpleString(f'"{op}"'))]
        args += [cst.Arg(value=a.value) for a in node.args]
        args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                if i < len(args) - 1 else a for i, a in enumerate(args)]
        self.report(node, f"{message}; {HELPER}() casts it back while exporting (the method itself otherwise)",
                    Fix({node: cst.Call(func=cst.Name(HELPER), args=args)}, safety=Safety.SAFE, helpers=(HELPER,)))


RULES = (InplaceCompare,)
