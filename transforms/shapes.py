"""``squeeze`` / ``unsqueeze`` → indexing (TRT401, TRT402, TRT403).

Why: the TorchScript exporter turns ``x.squeeze(d)`` on an axis whose size is not
known at export time into an ONNX ``If`` (squeeze only when the size is 1, else
return the input). The two branches have different ranks, which TensorRT rejects
("IIfConditionalOutputLayer inputs must have the same shape"). Indexing with a
constant (``x[:, 0]``) or inserting ``None`` exports as Gather/Unsqueeze with no
branch.

Matching: the function forms (``torch.squeeze(x, 1)``) go through the file's
imports; the method form (``x.squeeze(1)``) cannot be resolved by name, so it
matches any receiver that is not an imported module (``np.squeeze(a, 1)`` is
NumPy's function and is left alone). Indexing means the same for NumPy arrays, so
a NumPy receiver would still be rewritten correctly.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import (
    argument, code_of, has_star_args, helper_call, index_expr, int_value, int_values, method_call, parenthesize,
    strip_parens,
)
from trtcodemod.evidence.proofs import SQUEEZE_NEVER_ONE, prove_squeeze, prove_squeeze_all
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety

_REFERENCES = (
    "https://pytorch.org/docs/stable/generated/torch.squeeze.html",
    "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
)


def _inserted_axes(dims: list[int]) -> list[str]:
    """Index items that add the axes of ``unsqueeze(d)`` for each ``d`` in turn, all counted
    from the front or all from the end (``[1, 1]`` → ``:, None, None``; ``[-2]`` →
    ``..., None, :``). Each insertion moves the axes already added at or after its place."""
    ends = [-d for d in dims] if dims[0] < 0 else [d for d in dims]
    added: list[int] = []
    for at in ends:
        added = [a + 1 if a >= at else a for a in added] + [at]
    if dims[0] >= 0:
        return ["None" if i in added else ":" for i in range(max(added) + 1)]
    return ["..."] + ["None" if i in added else ":" for i in range(max(added), 0, -1)]


def _picked_axes(dims: list[int]) -> list[str] | None:
    """Index items that pick index 0 of every axis in ``dims`` at once (``(1, -1)`` →
    ``:, 0, ..., 0``); None when an axis repeats or none is named. Axes counted from the
    front come before ``...`` and those from the end after it, so one subscript addresses
    all of them as ``squeeze(dims)`` does; where the tensor has too few axes for both
    sides to be distinct, both raise."""
    if not dims or len(set(dims)) != len(dims):
        return None
    front = sorted(d for d in dims if d >= 0)
    back = sorted(-d for d in dims if d < 0)
    items = ["0" if i in front else ":" for i in range(front[-1] + 1)] if front else []
    if back:
        items += ["..."] + ["0" if i in back else ":" for i in range(back[-1], 0, -1)]
    return items


class _ShapeCall:
    """A squeeze/unsqueeze call split into tensor, dim argument and form."""

    def __init__(self, tensor: cst.BaseExpression, dim_arg: cst.Arg | None, extra_args: bool) -> None:
        self.tensor = tensor
        self.dim_arg = dim_arg
        self.extra_args = extra_args


def _match(rule: Rule, call: cst.Call, method: str) -> _ShapeCall | None:
    """``x.<method>(d)`` or ``torch.<method>(x, d)``; None for anything else."""
    if has_star_args(call):
        return None
    if rule.context.refers_to(call.func, f"torch.{method}"):
        tensor = argument(call, 0, "input")
        if tensor is None:
            return None
        dim = argument(call, 1, "dim")
        return _ShapeCall(tensor.value, dim, len(call.args) > (2 if dim else 1))
    parts = method_call(call)
    if parts is None or parts[1] != method:
        return None
    receiver = parts[0]
    if rule.context.qualified_names(receiver) or _is_module_like(receiver):
        return None  # np.squeeze(...), some_module.squeeze(...): not a tensor method
    dim = argument(call, 0, "dim")
    return _ShapeCall(receiver, dim, len(call.args) > (1 if dim else 0))


def _is_module_like(receiver: cst.BaseExpression) -> bool:
    return type(receiver) is cst.Name and receiver.value in {"torch", "np", "numpy", "self", "cls"}


#: The helper that keeps a squeeze the run never saw squeeze anything (``trtcodemod/helpers/tracing.py``).
SQUEEZE_KEPT_HELPER = "_trt_squeeze_kept"


class SqueezeDim(Rule):
    needs_text = (b"squeeze",)
    requires = (ObservedFacts,)
    info = RuleInfo(
        id="TRT401",
        name="squeeze-dim",
        summary="`x.squeeze(d)` exports as an ONNX `If` on a dynamic axis; index with `x[..., 0, ...]` instead",
        doc="""\
What it finds: `x.squeeze(d)` and `torch.squeeze(x, d)` with a literal axis `d`, a tuple of
literal axes (`x.squeeze((1, -1))`, torch 2.0 and later), or an axis held by a name or an
attribute (`x.squeeze(self.dim)`: a squeeze layer configured with its axis, as docTR's
`SqueezeLayer(dim=3)` after its VIP recogniser's pooling and many `Squeeze(nn.Module)` wrappers).

Why it hurts: ONNX's Squeeze fails on an axis whose size is not 1, so the TorchScript
exporter guards a squeeze on a dynamic axis with an `If` node: one branch squeezes, the
other returns the tensor unchanged. The branches have different ranks and TensorRT
refuses such a conditional.

The rewrite: index the axis with 0 (`x.squeeze(1)` → `x[:, 0]`, `x.squeeze(-1)` →
`x[..., 0]`, `x.squeeze((1, -1))` → `x[:, 0, ..., 0]`; an axis held by a name,
`x.squeeze(self.dim)` → `x.select(self.dim, 0)`, the same view). This exports as a Gather,
with no branch. The TorchScript exporter cannot export a squeeze of several axes at all (it fails on
the list of axes); their index exports with both exporters.

Fix safety: unsafe. `squeeze(d)` leaves a tensor unchanged when axis `d` is not of size 1,
while `x[:, 0]` then silently takes the first slice. The rewrite assumes axis `d` always
has size 1, which is usually why the code squeezes it; with a tuple, every axis it names.
Not always so: RF-DETR's matcher squeezes `(-1, 1)` of a tensor whose last axis holds its
sample points, which `squeeze` leaves alone; `migrate` applies the fix only where the observed
run saw every named axis at size 1. An axis held by a name is also assumed to hold one integer
(a `None` squeezes every axis, a tuple several: `select` takes one); `migrate` leaves it where
the observed run saw it name several axes, and a `None` records no axis, so nothing is proved.
Any other computed axis (`x.squeeze(d + 1)`) or a repeated one is reported without a fix.
Where the run (a stretched input set included) never saw the axis at size 1, the squeeze changed
nothing on any observed call (oflibpytorch's `apply_s_flow`, `(warped_density > 0).squeeze(1)` of an
N-H-W density: axis 1 is the height): inside `migrate` or with `--facts` the call becomes
`_trt_squeeze_kept(x, d)`, the squeeze itself in eager mode and scripted, and the tensor as it is
while a tracer records the model, assuming the axis never has size 1 there (an input of height 1
would keep an axis eager mode drops).

Opt-in: the `If` appears only when axis `d` is dynamic in the export (a batch axis, a slice
of a dynamic axis). Most squeezed axes are static there: after `unsqueeze(d)`, a
`keepdim=True` reduction, `nonzero(...)`'s columns or a size-1 channel the export emits a
plain Squeeze (measured with torch 2.13), and the source cannot tell the two apart. Select
it (`--select TRT401`) to review every squeeze; `trtcodemod migrate` considers it anyway
and applies it exactly where the exported graph has the `If`, with the size-1 assumption
proved from the observed run.""",
        fix=Safety.UNSAFE,
        proof=prove_squeeze,
        assumption=(
            "every squeezed axis always has size 1 (otherwise `squeeze` keeps it and the index takes the first slice), "
            "and an axis held by a name is one integer; for `_trt_squeeze_kept`, the axis never has size 1"),
        opt_in=True,
        examples=(
            Example("scores = logits.squeeze(1)\n", "scores = logits[:, 0]\n", unsafe=True),
            Example("y = torch.squeeze(x, -1)\n", "y = x[..., 0]\n", unsafe=True),
            Example("y = (a + b).squeeze(dim=-2)\n", "y = (a + b)[..., 0, :]\n", unsafe=True),
            Example("m = torch.squeeze(m, (-1, 1))\n", "m = m[:, 0, ..., 0]\n", unsafe=True),
            Example("return x.squeeze(self.dim)\n", "return x.select(self.dim, 0)\n", unsafe=True),
        ),
        references=_REFERENCES,
    )

    def visit_Call(self, node: cst.Call) -> None:
        call = _match(self, node, "squeeze")
        if call is None or call.dim_arg is None:
            return
        dims = int_values(call.dim_arg.value)
        items = _picked_axes(dims) if dims is not None and not call.extra_args else None
        if items is None:
            if dims is not None and not call.extra_args and dims:
                # `squeeze((1, 1))`: literal axes, one of them named twice.
                self.report(node, "squeeze names an axis twice; it exports as an `If` when the axis is dynamic; "
                            "name each axis once and index it")
                return
            if dims is None and not call.extra_args and _named_axis(call.dim_arg.value):
                self._computed_axis(node, call)
                return
            self.report(node, "squeeze with a computed axis exports as an `If` when the axis is dynamic; "
                        "use a literal axis and index it")
            return
        axes = ", ".join(map(str, dims)) if len(dims) == 1 else f"({', '.join(map(str, dims))})"
        proof = self.provider(ObservedFacts).proof(self.info, node)
        if proof is not None and proof.startswith(SQUEEZE_NEVER_ONE):
            # The run never saw the axis at size 1: indexing it would take a slice where squeeze changed
            # nothing; the tensor stays as it is while tracing, and eager mode squeezes as written.
            self.report(node, f"squeeze({axes}) exports as an ONNX `If` on a dynamic axis the recorded run never saw "
                              f"at size 1 (the squeeze changed nothing); {SQUEEZE_KEPT_HELPER} keeps the tensor as "
                              "it is while tracing",
                        Fix({node: helper_call(SQUEEZE_KEPT_HELPER, strip_parens(call.tensor), call.dim_arg.value)},
                            safety=Safety.UNSAFE, helpers=(SQUEEZE_KEPT_HELPER,)))
            return
        replacement = index_expr(parenthesize(call.tensor), items)
        self.report(
            node,
            f"squeeze({axes}) exports as an ONNX `If` on a dynamic axis; index the size-1 axis instead",
            Fix({node: replacement}, safety=Safety.UNSAFE),
        )

    def _computed_axis(self, node: cst.Call, call: _ShapeCall) -> None:
        """``x.squeeze(self.dim)``: one axis held by a name (doctr's ``SqueezeLayer``), picked with ``select`` (or
        kept while tracing, where the run never saw it at size 1)."""
        axis = strip_parens(call.dim_arg.value)
        shown = code_of(axis).strip()
        facts = self.provider(ObservedFacts)
        if facts.squeezed_counts(node) - {1}:
            self.report(node, f"squeeze({shown}) exports as an `If` when an axis is dynamic; the recorded run saw "
                              "it name several axes: index each size-1 axis")
            return
        proof = facts.proof(self.info, node)
        if proof is not None and proof.startswith(SQUEEZE_NEVER_ONE):
            self.report(node, f"squeeze({shown}) exports as an ONNX `If` on a dynamic axis the recorded run never saw "
                              f"at size 1 (the squeeze changed nothing); {SQUEEZE_KEPT_HELPER} keeps the tensor as "
                              "it is while tracing",
                        Fix({node: helper_call(SQUEEZE_KEPT_HELPER, strip_parens(call.tensor), axis)},
                            safety=Safety.UNSAFE, helpers=(SQUEEZE_KEPT_HELPER,)))
            return
        picked = cst.Call(cst.Attribute(parenthesize(call.tensor), cst.Name("select")),
                          [cst.Arg(axis), cst.Arg(cst.Integer("0"))])
        self.report(node, f"squeeze({shown}) with an axis held by a name exports as an ONNX `If` when the axis is "
                          "dynamic; `select` index 0 of the size-1 axis instead",
                    Fix({node: picked}, safety=Safety.UNSAFE))


def _named_axis(axis: cst.BaseExpression) -> bool:
    """Is ``axis`` one integer held by a name or an attribute chain (``dim``, ``self.dim``, ``-self.dim``), evaluated
    once either way?"""
    axis = strip_parens(axis)
    if type(axis) is cst.UnaryOperation and type(axis.operator) is cst.Minus:
        axis = strip_parens(axis.expression)
    while type(axis) is cst.Attribute:
        axis = axis.value
    return type(axis) is cst.Name and axis.value not in ("None", "True", "False")


class Unsqueeze(Rule):
    needs_text = (b"squeeze",)
    info = RuleInfo(
        id="TRT402",
        name="unsqueeze",
        summary="`x.unsqueeze(d)` → `x[..., None, ...]` (opt-in: the exported graph is the same)",
        doc="""\
What it finds: `x.unsqueeze(d)` and `torch.unsqueeze(x, d)` with a literal axis `d`.
Opt-in: selected only by its ID, its name or the prefix `TRT4`, never by `ALL`.

Why: the guidance for TensorRT export replaces both squeeze and unsqueeze by explicit
indexing. Measured with torch 2.13, both exporters emit the same ONNX `Unsqueeze` for
`x.unsqueeze(d)` and for `x[:, None]`, which every TensorRT version parses: the rewrite
does not change the graph TensorRT sees, so the rule is off by default. It stays for
codebases that want one indexing style next to TRT401's squeeze rewrite.

The rewrite: `x.unsqueeze(0)` → `x[None]`, `x.unsqueeze(2)` → `x[:, :, None]`,
`x.unsqueeze(-1)` → `x[..., None]`, `x.unsqueeze(-2)` → `x[..., None, :]`. A chain with every
axis counted from the same end is one index (`m.unsqueeze(1).unsqueeze(1)` → `m[:, None, None]`):
the dynamo exporter folds such a chain into one Unsqueeze, and one index too, not a chain of them.

Fix safety: unsafe. For a dense strided tensor the two are the same view (values, shape,
strides, gradients, aliasing). The method form cannot be resolved by name, so the receiver
is assumed to be such a tensor: a nested, sparse or quantized tensor, a NumPy array
(indexing works, but a computed axis differs), or an object with its own `unsqueeze`
behaves differently after the rewrite.""",
        fix=Safety.UNSAFE,
        assumption=(
            "the receiver is a dense strided tensor, not a NumPy array, a nested, sparse or quantized tensor, or an "
            "object with its own `unsqueeze`"),
        opt_in=True,
        examples=(
            Example("y = x.unsqueeze(0)\n", "y = x[None]\n", unsafe=True),
            Example("y = x.unsqueeze(-1)\n", "y = x[..., None]\n", unsafe=True),
            Example("y = torch.unsqueeze(boxes, 2)\n", "y = boxes[:, :, None]\n", unsafe=True),
            Example("k = w.unsqueeze(-1).unsqueeze(-1)\n", "k = w[..., None, None]\n", unsafe=True),
        ),
        references=_REFERENCES,
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._chained: set[int] = set()  # ids of inner calls of a chain its outer call rewrote

    def _literal(self, node: cst.BaseExpression) -> tuple[cst.BaseExpression, int] | None:
        """``(x, d)`` for ``x.unsqueeze(d)`` / ``torch.unsqueeze(x, d)`` with a literal ``d``."""
        call = _match(self, node, "unsqueeze") if type(node) is cst.Call else None
        if call is None or call.dim_arg is None or call.extra_args:
            return None
        dim = int_value(call.dim_arg.value)
        return None if dim is None else (call.tensor, dim)

    def visit_Call(self, node: cst.Call) -> None:
        found = None if id(node) in self._chained else self._literal(node)
        if found is None:
            return  # a computed axis exports as a plain Unsqueeze: nothing to warn about
        tensor, dim = found
        dims = [dim]
        # A chain counted from the same end is one index, as the dynamo exporter folds the
        # chain into one Unsqueeze (it keeps a chain of indexes as several).
        inner = self._literal(tensor)
        while inner is not None and (inner[1] < 0) == (dim < 0):
            self._chained.add(id(tensor))
            tensor, dims = inner[0], [inner[1], *dims]
            inner = self._literal(tensor)
        replacement = index_expr(parenthesize(tensor), _inserted_axes(dims))
        written = ").unsqueeze(".join(map(str, dims))
        self.report(node, f"unsqueeze({written}) written as indexing (same exported graph; opt-in style rule)",
                    Fix({node: replacement}, safety=Safety.UNSAFE))


#: The helper that squeezes, while tracing, only the axes the run saw at size 1 on every call (``helpers/tracing.py``).
SQUEEZE_AXES_HELPER = "_trt_squeeze_axes"


class SqueezeAll(Rule):
    needs_text = (b"squeeze",)
    requires = (ObservedFacts,)
    info = RuleInfo(
        id="TRT403",
        name="squeeze-all",
        summary="`squeeze()` without an axis, or in-place `squeeze_()`: shape depends on the data",
        doc="""\
What it finds: `x.squeeze()` / `torch.squeeze(x)` with no axis, and the in-place
`x.squeeze_(...)`.

Why it hurts: with no axis, squeeze drops every axis that happens to have size 1, so the
rank of the result depends on the input's shape. The TorchScript exporter writes a Squeeze
without axes, which TensorRT's parser refuses on a tensor with a dynamic axis ("Cannot infer
squeeze dimensions from a dynamic shape"); and a trace at a batch of 1 records the result's
rank without the batch, so what follows (a `Linear`, a `view`) is traced for the wrong rank.
HyperIQA (facexlib) feeds `self.pool(feat).squeeze()` of a globally pooled N-C-1-1 map to its
`Linear` layers. `squeeze_()` also changes the caller's tensor in place, which the exported
graph cannot express.

The rewrite, where observed facts prove it (inside `migrate`, or with `--facts`): the observer
records the shape at each `squeeze()`; the axes of size 1 on every call, over a run that
stretched the dynamic axes, are the ones the code squeezes (the pooled 1x1), and an axis
that varied (the batch) is kept. `self.pool(feat).squeeze()` becomes
`_trt_squeeze_axes(self.pool(feat), [2, 3])`: `squeeze()` itself in eager mode, scripted and
under `torch.compile`, and while a tracer records the model (either ONNX exporter,
`torch.export`) index 0 of axes 2 and 3 (a Gather each, no Squeeze). Without facts, or where
the rank changed between calls, it is reported with no fix.

Fix safety: unsafe. The exported graph assumes the axes of size 1 on every observed call always
have size 1 (otherwise it takes their first slice where `squeeze()` keeps them), and that an
axis that varied is meant to stay: where such an axis has size 1 (a batch of 1), eager mode
drops it and the graph keeps it, the same values one rank up. `migrate` verifies the rewritten
model's outputs at the traced and other sizes: where a `view` or `reshape` restores the batch
(HyperIQA, UPSNet's global context) they match; where the model returns what it squeezed (vissl's
token pooling), eager mode returns no batch axis at a batch of 1 and the graph does, so the fix is
reverted and the line remains with its manual step (name the axes, or export a static batch).
`squeeze_()` is reported with no fix.""",
        fix=Safety.UNSAFE,
        proof=prove_squeeze_all,
        assumption=(
            "the axes of size 1 on every observed call always have size 1, and an axis that varied is meant to stay "
            "(at size 1 eager mode drops it, the graph keeps it)"),
        examples=(Example("y = x.squeeze()\n"), Example("x.squeeze_(1)\n")),
        references=_REFERENCES + ("https://github.com/onnx/onnx-tensorrt/blob/main/onnxOpImporters.cpp",),
    )

    def visit_Call(self, node: cst.Call) -> None:
        call = _match(self, node, "squeeze")
        if call is not None and call.dim_arg is None and not call.extra_args:
            facts = self.provider(ObservedFacts)
            proof = facts.proof(self.info, node)
            axes = facts.squeezed_axes(node) if proof is not None else None
            if axes is None:
                self.report(node, "squeeze() without an axis drops every size-1 axis, so the rank depends on the "
                            "input (a batch of 1 goes too); name the axes it means and index them (after a global "
                            "pool, `x[:, :, 0, 0]` or `x.flatten(1)`)")
                return
            listed = cst.List([cst.Element(cst.Integer(str(axis))) for axis in axes])
            self.report(node, f"squeeze() without an axis drops every size-1 axis, so the rank depends on the input; "
                              f"{SQUEEZE_AXES_HELPER} squeezes only the axes the run saw at size 1 on every call "
                              f"({', '.join(map(str, axes)) or 'none'}) while tracing",
                        Fix({node: helper_call(SQUEEZE_AXES_HELPER, strip_parens(call.tensor), listed)},
                            safety=Safety.UNSAFE, helpers=(SQUEEZE_AXES_HELPER,)))
            return
        parts = method_call(node)
        if parts and parts[1] in ("squeeze_", "unsqueeze_") and not self.context.qualified_names(parts[0]):
            self.report(node, f"in-place {parts[1]}() changes the caller's tensor; use indexing and assign the result")


RULES = (SqueezeDim, Unsqueeze, SqueezeAll)
