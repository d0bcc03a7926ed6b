"""An operator the TorchScript exporter or TensorRT cannot take, applied to the module's own weights only (TRT382).

``torch.linalg.slogdet(w)`` of ``w = self.weight.squeeze(-1).squeeze(-1)`` (a Glow-style invertible 1x1 convolution's
log-determinant, pyimgano's FastFlow) depends on no input, yet stops the TorchScript ONNX export (no symbolic for
``aten::linalg_slogdet``), where the exporter's constant folding would have made any exportable computation on the
weights a constant. The rewrite calls a helper (``trtcodemod/helpers/weights.py``) that computes the operator outside
the trace while that exporter records the model, so the graph holds the value for the exported weights.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import helper_call
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms.module_state import _self_state, state_attr

RULE = "TRT382"
#: torch function -> the helper computing it outside the trace while exporting.
HELPERS = {
    "torch.slogdet": "_trt_weights_slogdet", "torch.linalg.slogdet": "_trt_weights_linalg_slogdet",
    "torch.det": "_trt_weights_det", "torch.linalg.det": "_trt_weights_linalg_det",
    "torch.logdet": "_trt_weights_logdet", "torch.linalg.pinv": "_trt_weights_pinv",
    "torch.erfinv": "_trt_weights_erfinv", "torch.special.erfinv": "_trt_weights_erfinv",
}
#: The operators the TorchScript exporter writes (as ONNX ``Det``, which TensorRT does not parse); the others stop it.
_EXPORTED_AS_DET = frozenset({"torch.det", "torch.linalg.det", "torch.logdet"})
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)
_CONSTANT_NAMES = frozenset({"True", "False", "None"})


def _self_attribute(node: cst.BaseExpression) -> str | None:
    """``X`` of ``self.X`` or of a chain starting there (``self.X.weight``, ``self.X[0]``), as TRT703 reads it."""
    return state_attr(node) if _self_state(node) else None


def _written_outside_init(cls: cst.ClassDef) -> set[str]:
    """Attributes of ``self`` that a method other than ``__init__`` assigns (state kept in forward, never weights)."""
    written: set[str] = set()

    class Writes(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node.name.value != "__init__"

        def _target(self, target: cst.BaseExpression) -> None:
            if type(target) in (cst.Tuple, cst.List):
                for element in target.elements:
                    self._target(element.value)
            elif _self_state(target):  # TRT703's reading of a write to the module: `self.x`, `self.x[i]`, `self.a.b`
                written.add(state_attr(target))

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                self._target(target.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._target(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            self._target(node.target)

        def visit_Call(self, node: cst.Call) -> None:
            # setattr(self, "x", v), self.register_buffer("x", v) outside __init__, in-place methods on self.x_
            if type(node.func) is cst.Attribute and node.func.attr.value.endswith("_") \
                    and not node.func.attr.value.startswith("_"):
                name = _self_attribute(node.func.value)
                if name is not None:
                    written.add(name)

    cls.body.visit(Writes())
    return written


class _Weights:
    """Which expressions of one method compute from the module's weights (attributes of ``self`` no other method
    writes), literals and torch functions only, never from an argument."""

    def __init__(self, function: cst.FunctionDef, written: set[str], rule: Rule) -> None:
        self.rule = rule
        self.written = written
        self.parameters = {p.name.value for p in (*function.params.posonly_params, *function.params.params,
                                                  *function.params.kwonly_params)}
        self.assigned: dict[str, list[cst.BaseExpression | None]] = {}
        assigned = self.assigned

        class Bindings(cst.CSTVisitor):
            def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
                return node is function

            def visit_Lambda(self, node: cst.Lambda) -> bool:
                return False

            def visit_Assign(self, node: cst.Assign) -> None:
                for target in node.targets:
                    if type(target.target) is cst.Name:
                        assigned.setdefault(target.target.value, []).append(
                            node.value if len(node.targets) == 1 else None)
                    else:
                        for name in _names(target.target):
                            assigned.setdefault(name, []).append(None)

            def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
                if type(node.target) is cst.Name:
                    assigned.setdefault(node.target.value, []).append(node.value)

            def visit_AugAssign(self, node: cst.AugAssign) -> None:
                for name in _names(node.target):
                    assigned.setdefault(name, []).append(None)

            def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
                for name in _names(node.target):
                    assigned.setdefault(name, []).append(None)

            def visit_For(self, node: cst.For) -> None:
                for name in _names(node.target):
                    assigned.setdefault(name, []).append(None)

            def visit_WithItem(self, node: cst.WithItem) -> None:
                if node.asname is not None:
                    for name in _names(node.asname.name):
                        assigned.setdefault(name, []).append(None)

        function.body.visit(Bindings())

    def holds(self, node: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> bool:
        if isinstance(node, _LITERALS):
            return True
        if type(node) is cst.Name:
            if node.value in _CONSTANT_NAMES:
                return True
            values = self.assigned.get(node.value)
            if node.value in self.parameters or not values or node.value in seen:
                return False
            return all(v is not None and self.holds(v, seen | {node.value}) for v in values)
        if type(node) is cst.Attribute:
            if node.attr.value in ("device", "dtype"):
                return True  # where a tensor lives and its type: no value of it (`torch.eye(n, device=x.device)`)
            name = _self_attribute(node)
            if name is not None:
                return name not in self.written
            return self.holds(node.value, seen)
        if type(node) is cst.UnaryOperation:
            return self.holds(node.expression, seen)
        if type(node) is cst.BinaryOperation:
            return self.holds(node.left, seen) and self.holds(node.right, seen)
        if type(node) in (cst.Tuple, cst.List):
            return all(type(e) is cst.Element and self.holds(e.value, seen) for e in node.elements)
        if type(node) is cst.Subscript:
            return self.holds(node.value, seen) and all(self._index_holds(e.slice, seen) for e in node.slice)
        if type(node) is cst.Call:
            if any(a.star for a in node.args) or not all(self.holds(a.value, seen) for a in node.args):
                return False
            qualified = self.rule.context.qualified_names(node.func)
            if qualified:
                return any(q.startswith(("torch.", "math.")) and not q.startswith("torch.nn.") for q in qualified)
            # A method of a weights-only value (``self.weight.squeeze(-1)``); ``self.f(...)`` reads ``self``, an
            # argument, so a method of the module itself is never taken.
            return type(node.func) is cst.Attribute and self.holds(node.func.value, seen)
        return False

    def _index_holds(self, index: cst.BaseSlice, seen: frozenset[str]) -> bool:
        if type(index) is cst.Index:
            return self.holds(index.value, seen)
        parts = (index.lower, index.upper, index.step) if type(index) is cst.Slice else (None,)
        return type(index) is cst.Slice and all(p is None or self.holds(p, seen) for p in parts)


def _names(target: cst.BaseExpression) -> list[str]:
    if type(target) is cst.Name:
        return [target.value]
    if type(target) in (cst.Tuple, cst.List):
        return [n for e in target.elements for n in _names(e.value)]
    if type(target) is cst.StarredElement:
        return _names(target.value)
    return []


class WeightsOnlyOp(Rule):
    needs_text = spelled(*HELPERS)
    info = RuleInfo(
        id=RULE,
        name="weights-only-op",
        summary="`torch.linalg.slogdet(self.weight...)`: an operator the TorchScript exporter or TensorRT cannot "
                "take, of the module's weights alone; compute it outside the trace while exporting, so the graph "
                "holds its value",
        doc="""\
What it finds: `torch.slogdet`, `torch.linalg.slogdet`, `torch.det`, `torch.linalg.det`,
`torch.logdet`, `torch.linalg.pinv` and `torch.erfinv` called with one argument that the code
shows computes from the module's weights alone: attributes of `self` that no method but
`__init__` writes, literals, any tensor's `.device` and `.dtype`, torch functions and tensor
methods of those, and locals assigned only such values, in a method other than `__init__`.
Glow-style invertible 1x1 convolutions do so for the flow's log-likelihood (pyimgano 0.9.1's
FastFlow, `models/fastflow.py:75`: `w = self.weight.squeeze(-1).squeeze(-1)`,
`_sign, log_abs_det = torch.linalg.slogdet(w)`, then `log_abs_det * h * w`).

Why it hurts: the TorchScript ONNX exporter has no symbolic for `slogdet`, `pinv` and `erfinv`
and stops the whole export; `det` and `logdet` export as ONNX `Det`, which no TensorRT release
parses (TRT706). Yet the value depends on no input: the exporter's constant folding turns
computations on the weights alone into constants of the graph where it can.

What the fix does: the call becomes a helper that is the operator itself in eager mode, under
`torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`, and, while the TorchScript
ONNX exporter traces the model, computes it with tracing suspended and no gradient, so the
result enters the graph as a constant for the exported weights:
```
_sign, log_abs_det = torch.linalg.slogdet(w)  ->  _sign, log_abs_det = _trt_weights_linalg_slogdet(w)
```
The graph then computes the rest (`log_abs_det * h * w`, with `h` and `w` traced sizes) as before.

Fix safety: safe. Outside that export the helper calls the same torch function on the same
tensor (values, dtype, result type, gradients, errors unchanged); inside it, the value is the
operator's on the weights at export time, which is what the graph would hold had the exporter
had a symbolic and folded it, as it folds every other weights-only computation. The dynamo
exporter is not helped (it still has no function for these operators). Not taken: an argument
that reads a forward argument, a local bound otherwise than by one plain assignment, a call of
another method or function, or an attribute a method other than `__init__` writes (state, not
weights). TensorRT versions: all (a constant).""",
        fix=Safety.SAFE,
        examples=(
            Example("import torch\nfrom torch import nn\n\n"
                    "class InvConv(nn.Module):\n"
                    "    def forward(self, x):\n"
                    "        w = self.weight.squeeze(-1).squeeze(-1)\n"
                    "        _, logdet = torch.linalg.slogdet(w)\n"
                    "        return nn.functional.conv2d(x, self.weight), logdet * x.shape[2] * x.shape[3]\n",
                    "import torch\nfrom torch import nn\n"
                    "class InvConv(nn.Module):\n"
                    "    def forward(self, x):\n"
                    "        w = self.weight.squeeze(-1).squeeze(-1)\n"
                    "        _, logdet = _trt_weights_linalg_slogdet(w)\n"
                    "        return nn.functional.conv2d(x, self.weight), logdet * x.shape[2] * x.shape[3]\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.linalg.slogdet.html",
            "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html",
            "https://arxiv.org/abs/1807.03039",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._written: dict[int, set[str]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.refers_to(node.func, *HELPERS)
        if name is None or in_inserted_helper(self) or len(node.args) != 1:
            return
        argument = node.args[0]
        if argument.star or argument.keyword is not None:
            return
        function, cls = self.context.function, self.context.enclosing_class
        if function is None or cls is None or function.name.value == "__init__":
            return
        if id(cls) not in self._written:
            self._written[id(cls)] = _written_outside_init(cls)
        if not _Weights(function, self._written[id(cls)], self).holds(argument.value):
            return
        helper = HELPERS[name]
        hurts = ("exports as ONNX Det, which no TensorRT release parses" if name in _EXPORTED_AS_DET
                 else "has no ONNX symbolic and stops the TorchScript export")
        self.report(node, f"`{name}` {hurts}, but its argument computes from the module's weights alone; "
                          f"`{helper}` computes it outside the trace while exporting, so the graph holds its value "
                          "for the exported weights",
                    Fix({node: helper_call(helper, argument.value).with_changes(lpar=node.lpar, rpar=node.rpar)},
                        helpers=(helper,)))


RULES = (WeightsOnlyOp,)
