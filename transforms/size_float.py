"""TRT350: a tensor size in arithmetic with a float literal can export as float64 (the TorchScript exporter).

``(point_coords.shape[1] - 2.5) * reweight`` is a Python float in eager mode, and meeting a
float32 tensor it computes in float32. Under the TorchScript exporter the size is a traced 0-d
integer; with static shapes the exporter folds its arithmetic with a Python float as float64, and
where that meets an integer constant of the trace the graph casts the float32 tensor it then meets
to float64 (a ``Cast`` TensorRT lacks). The rewrite takes the whole arithmetic with
``_trt_size_float`` (``float(...)`` in eager mode, the traced result as float32 while tracing), so
the graph stays in float32.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import helper_call, strip_parens, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._size_facts import NUMBER_AS_TENSOR_FAILURES, SizeRule

HELPER = "_trt_size_float"
_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)


def _float_literal(node: cst.BaseExpression) -> bool:
    node = strip_parens(node)
    if type(node) is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
        node = strip_parens(node.expression)
    return type(node) is cst.Float


class SizeFloat(SizeRule):
    needs_text = (b"shape", b"size(")
    info = RuleInfo(
        id="TRT350",
        name="size-float-arithmetic",
        summary="a tensor size in arithmetic with a float literal (`(x.shape[1] - 2.5) * w`): with static shapes the "
                "TorchScript export can fold it to float64 and cast the tensors it meets to float64, which TensorRT "
                "lacks",
        doc="""\
What it finds, in run-time code: arithmetic (`+`, `-`, `*`, `/`) of tensor sizes (`x.shape[i]`,
`x.size(i)`, a local bound to one, `len(x)` of a tensor) and number literals, at least one of them
a float: `(point_coords.shape[1] - 2.5) * reweight`, `h * 0.5 + 1.0`. With an observed run
(`migrate`, `--facts`), also a parameter every recorded call passed a number, where the graph
check placed a float64 Cast on the line: a size the caller hands in (Meta's ONNX SAM decoder,
`select_masks(..., num_points: int)` called with `point_coords.shape[1]`, scores
`iou_preds + (num_points - 2.5) * score_reweight`).

Why it hurts: in eager mode the size is a Python `int` and the result a Python `float`; where
it meets a float32 tensor the arithmetic is float32. Under the TorchScript exporter the size is
a traced 0-d `int64` tensor. With static shapes the exporter's constant folding computes the
arithmetic as float64; where that meets a tensor the trace holds as a constant of an integer or
bool dtype (`torch.tensor([[1000, 0, 0]])`, `torch.arange(5)`, a comparison of such), the folded
result is float64 and the graph casts the float32 tensor it then meets to float64
(`Cast(to=DOUBLE)`). TensorRT has no float64. easydetect's ONNX mask decoder (`SamDecoderOnnx`,
`scores + (point_coords.shape[1] - 2.5) * reweight`, the best-mask choice, exported with static
shapes) casts its IoU scores to float64 this way.

Measured (torch 2.13, opset 17) where the export has no float64 Cast, with or without the rewrite:
any form with dynamic axes (a dynamic batch alone is enough in the SAM decoder); the arithmetic
meeting only inputs, parameters, buffers, float tensors or a 0-d constant (kornia's
`intrinsics_like`, `1.0 * W / 2`; CLAHE's `.div(2.0 * th)`; RF-DETR's `correct_k.mul_(100.0 /
batch_size)`). There the rewrite only moves the rounding (float32 instead of a double narrowed to
float32). A float arithmetic of sizes alone (`x + 2.0 / (5.0 * x.shape[-1])`) folds, with static
shapes, to a float64 constant that the graph casts to float32, with or without the rewrite.

The rewrite takes the whole arithmetic of sizes and number literals: `(point_coords.shape[1] -
2.5)` -> `_trt_size_float(point_coords.shape[1] - 2.5)`. The helper is `float(...)` in eager mode
and when scripted (the same number: the arithmetic is already a Python float), and the traced
result cast to float32 while tracing, so everything it meets stays float32. Converting only the
size is not enough: the exporter's constant folding computes a float32 0-d tensor with a Python
float as two 0-d tensors, and promotes the pair to float64 again.

Fix safety: unsafe. While exporting, the arithmetic is float32 where Python computed a double:
a size over 2**24 loses its last digits, and a factor that is not a power of two (`h * 0.1`) can
round one float32 step away from eager mode's double product narrowed to float32. `migrate`
applies it where the graph check finds a float64 Cast made at the line and keeps it only if the
rewritten graph matches eager mode on every input set.

TensorRT versions: all (no version has float64 tensors inside the network).""",
        fix=Safety.UNSAFE,
        assumption="the size fits float32's 24-bit mantissa, and the float arithmetic rounds the same in float32 as "
                   "the double Python computed narrowed to float32",
        fails_when=NUMBER_AS_TENSOR_FAILURES,
        examples=(
            Example(
                "class Choose(nn.Module):\n"
                "    def forward(self, scores, point_coords, reweight):\n"
                "        return torch.argmax(scores + (point_coords.shape[1] - 2.5) * reweight, dim=1)\n",
                "class Choose(nn.Module):\n"
                "    def forward(self, scores, point_coords, reweight):\n"
                "        return torch.argmax(scores + (_trt_size_float(point_coords.shape[1] - 2.5)) * reweight, dim=1)\n",
                unsafe=True,
            ),
            Example(
                "class Half(nn.Module):\n"
                "    def forward(self, x):\n"
                "        h = x.shape[2]\n"
                "        return x * (h * 0.5)\n",
                "class Half(nn.Module):\n"
                "    def forward(self, x):\n"
                "        h = x.shape[2]\n"
                "        return x * (_trt_size_float(h * 0.5))\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
            "https://pytorch.org/docs/stable/tensor_attributes.html#type-promotion-doc",
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._inner: set[int] = set()  # operations inside one this rule already reported
        #: Per function: its parameters every recorded call passed a number (empty without facts).
        self._handed: list[frozenset[str]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        self._handed.append(self._observed.number_parameters(node) if self._observed.known else frozenset())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._handed.pop()
        super().leave_FunctionDef(original_node)

    def _handed_size(self, node: cst.BaseExpression) -> bool:
        """A parameter the recorded calls passed a number, on a line where the graph check placed a float64
        Cast (TRT701's node): a size the caller hands in (`self.select_masks(m, s, point_coords.shape[1])`),
        traced while exporting, as the Cast shows."""
        return type(node) is cst.Name and bool(self._handed) and node.value in self._handed[-1] \
            and self._observed.located(node, "TRT701")

    def visit_Call(self, node: cst.Call) -> None:
        if type(node.func) is cst.Name and node.func.value == HELPER:
            for inner in walk(node):  # already rewritten (a second pass of the engine sees its own fix)
                self._inner.add(id(inner))

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if id(node) in self._inner or not self.active():
            return
        found = self._numbers(node)
        if found is None or not (found[0] and found[1]):
            return
        for inner in walk(node):
            self._inner.add(id(inner))
        expression = cst.Module([]).code_for_node(strip_parens(node))
        self.report(node, f"`{expression}` computes with a tensor size and a float literal: under the TorchScript "
                          "exporter the size is a traced integer, and with static shapes the exporter can fold this "
                          "arithmetic to float64 and cast the tensors it meets to float64 (TensorRT has none); "
                          "`_trt_size_float` makes the result float32 while tracing (`float` otherwise)",
                    Fix({node: helper_call(HELPER, strip_parens(node))}, safety=Safety.UNSAFE, helpers=(HELPER,)))

    def _numbers(self, node: cst.BaseExpression) -> tuple[bool, bool] | None:
        """For arithmetic of sizes and number literals only: (a size in it, a float literal in it); else None."""
        node = strip_parens(node)
        if type(node) is cst.BinaryOperation:
            if type(node.operator) not in _OPERATORS:
                return None
            left, right = self._numbers(node.left), self._numbers(node.right)
            if left is None or right is None:
                return None
            return left[0] or right[0], left[1] or right[1]
        if _float_literal(node):
            return False, True
        if type(node) is cst.Integer or type(node) is cst.UnaryOperation and type(
                strip_parens(node.expression)) is cst.Integer:
            return False, False
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == HELPER:
            return None  # already rewritten
        if type(node) is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
            return self._numbers(node.expression)  # `-x.shape[1] * 0.5`: a negated size is a size's arithmetic
        return (True, False) if self.size_of(node) is not None or self._handed_size(node) else None


RULES = (SizeFloat,)
