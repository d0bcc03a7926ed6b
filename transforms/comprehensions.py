"""Comprehensions that iterate over a tensor in forward code (TRT406, opt-in, detect only).

A comprehension counts as iterating over a tensor when the evidence is in the code:

- ``range(n)`` where ``n`` is a size of a tensor: ``x.shape[i]``, ``x.size(i)``,
  ``x.size()[i]``, ``len(x)`` of an evident tensor, or a local name bound to one of those
  in the same function (``b = x.size(0)``, ``b, c, h, w = x.shape``);
- the tensor itself: the result of a ``torch`` function (``torch.unbind(x)``,
  ``torch.sigmoid(x)``; not the fixed-count ``chunk``/``meshgrid``), ``x.unbind(...)``, a
  parameter annotated ``torch.Tensor``, or a local name bound to a ``torch`` call;
- either of those inside ``enumerate(...)`` / ``zip(...)``.

A plain parameter (``for f in feats``) is not evidence: lists of feature maps are common
and iterating them is fine. Only forward code of ``nn.Module`` subclasses is searched (see
:mod:`trtcodemod.transforms._runtime_scope`).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import int_value, method_call
from trtcodemod.rules import Example, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule

#: torch functions whose result has a count fixed by the call, not by a tensor's size.
_FIXED_COUNT = frozenset({
    "torch.chunk", "torch.meshgrid", "torch.broadcast_tensors", "torch.atleast_1d", "torch.atleast_2d",
    "torch.atleast_3d", "torch.Size", "torch.no_grad", "torch.device", "torch.finfo", "torch.iinfo",
})

_TENSOR_ANNOTATIONS = frozenset({"torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.BoolTensor"})


class TensorComprehension(RuntimeScopeRule):
    scope = "forward"
    info = RuleInfo(
        id="TRT406",
        name="tensor-comprehension",
        summary="a comprehension over a tensor's first axis in forward: a traced export unrolls it with the "
        "example's size (opt-in)",
        doc="""\
What it finds: list, set, dict and generator comprehensions in forward code whose loop runs
over a tensor: `torch.stack([f(t) for t in x.unbind(0)])`,
`[x[i] for i in range(x.shape[0])]`, `[g(t) for t in torch.sigmoid(x)]`. The code must show
that the loop is over a tensor or one of its sizes (a `range` of `x.shape[i]`,
`x.size(i)`, or a local bound to one; the result of a `torch` function; `.unbind()`; a
parameter annotated `torch.Tensor`); a comprehension over a parameter of unknown type
(`[conv(f) for f in feats]`) is not reported. Opt-in: selected only by its ID, its name
or the prefix `TRT4`, never by `ALL`.

Why it hurts: a traced export runs the comprehension once, with the example input, and
records one copy of its body per element: the iteration count becomes a constant of the
graph. Measured with torch 2.13 and a dynamic first axis: the TorchScript exporter turns
`[t.sum(0) for t in x]` into a `Split` into exactly as many pieces as the example had, so
ONNX Runtime fails on any other batch size; `[x[i] * i for i in range(x.shape[0])]`
exports as a fixed number of `Gather`s and silently returns the example's count of rows
for a larger batch. With `torch.export.Dim.AUTO` the dynamo exporter emitted
`SplitToSequence`/`SequenceAt`, sequence ops no TensorRT version parses. The guidance this
project follows suggests a plain `for` loop instead of a comprehension; a traced `for`
loop is unrolled the same way, so that changes nothing for the export.

What to do (not rewritten): compute on the whole tensor at once (most per-element bodies
are batched operations already: `t.sum(0) for t in x` is `x.sum(1)`), or use
`torch.vmap`-style batching by hand with broadcasting. When the count is really fixed by
the model (a constant number of heads or levels), iterate over that constant rather than
a tensor size, or keep the dynamic axis out of the loop. A stacked comprehension of one function of
each element (`torch.stack([f(e) for e in x])`, or `f(x[i])` over `range(x.shape[0])`) is
TRT366's: it maps `f` with `torch.vmap` while tracing.

Fix safety: none (detect only).

TensorRT versions: all (the count is baked in before TensorRT sees the graph).""",
        fix=Safety.NONE,
        opt_in=True,
        examples=(
            Example(
                "class Head(nn.Module):\n"
                "    def forward(self, x):\n"
                "        return torch.stack([self.fc(t) for t in x.unbind(0)])\n"
            ),
            Example(
                "class Gatherer(nn.Module):\n"
                "    def forward(self, x):\n"
                "        b = x.size(0)\n"
                "        return [x[i] * i for i in range(b)]\n"
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls",
            "https://pytorch.org/docs/stable/generated/torch.jit.trace.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: Per function: names bound to a tensor size, names bound to a tensor.
        self._sizes: list[set[str]] = [set()]
        self._tensors: list[set[str]] = [set()]
        self._checking: cst.CSTNode | None = None

    # --- what names hold -------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        tensors = set()
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            annotation = param.annotation
            if annotation is not None and self._is_tensor_annotation(annotation.annotation):
                tensors.add(param.name.value)
        self._sizes.append(set())
        self._tensors.append(tensors)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._sizes.pop()
        self._tensors.pop()

    def _is_tensor_annotation(self, node: cst.BaseExpression) -> bool:
        if any(q in _TENSOR_ANNOTATIONS for q in self.context.qualified_names(node)):
            return True
        return type(node) is cst.Name and node.value == "Tensor" and not self.context.qualified_names(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        if type(target) is cst.Name:
            name = target.value
            self._sizes[-1].discard(name)
            self._tensors[-1].discard(name)
            if self._is_size(node.value):
                self._sizes[-1].add(name)
            elif self._is_tensor(node.value):
                self._tensors[-1].add(name)
        elif type(target) in (cst.Tuple, cst.List) and self._is_shape(node.value):
            for element in target.elements:
                if type(element.value) is cst.Name:
                    self._sizes[-1].add(element.value.value)

    # --- evidence --------------------------------------------------------------------
    def _is_shape(self, node: cst.BaseExpression) -> bool:
        """``x.shape`` or ``x.size()``."""
        if type(node) is cst.Attribute and node.attr.value == "shape":
            return not self.context.qualified_names(node.value)
        if type(node) is cst.Call and not node.args:
            parts = method_call(node)
            return parts is not None and parts[1] == "size" and not self.context.qualified_names(parts[0])
        return False

    def _is_size(self, node: cst.BaseExpression) -> bool:
        """A size of a tensor: ``x.shape[i]``, ``x.size(i)``, ``x.size()[i]``, ``len(x)`` of a tensor, a size name."""
        if type(node) is cst.Name:
            return node.value in self._sizes[-1] and not self.shadowed(node.value)
        if type(node) is cst.Subscript and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
            return self._is_shape(node.value) and int_value(node.slice[0].slice.value) is not None
        if type(node) is cst.Call:
            parts = method_call(node)
            if parts is not None and parts[1] == "size" and len(node.args) == 1 and node.args[0].keyword is None:
                return not self.context.qualified_names(parts[0])
            if type(node.func) is cst.Name and node.func.value == "len" and len(node.args) == 1:
                return not self.context.qualified_names(node.func) and self._is_tensor(node.args[0].value)
        return False

    def _is_tensor(self, node: cst.BaseExpression) -> bool:
        """Evidently a tensor (or a tuple of tensors whose count is a tensor's size)."""
        if type(node) is cst.Name:
            return node.value in self._tensors[-1] and not self.shadowed(node.value)
        if type(node) is cst.Call:
            for name in self.context.qualified_names(node.func):
                if name.startswith("torch.") and not name.startswith(("torch.nn.", "torch.jit.", "torch.onnx.")):
                    return name not in _FIXED_COUNT and name.rsplit(".", 1)[-1][:1].islower()
            parts = method_call(node)
            return parts is not None and parts[1] == "unbind" and not self.context.qualified_names(parts[0])
        return False

    def _over_tensor(self, iterable: cst.BaseExpression) -> str | None:
        """Why ``iterable`` runs over a tensor (for the message), or None."""
        if type(iterable) is cst.Call and type(iterable.func) is cst.Name and \
                not self.context.qualified_names(iterable.func):
            name = iterable.func.value
            args = [arg.value for arg in iterable.args if arg.keyword is None and not arg.star]
            if name == "range" and 1 <= len(args) <= 3:
                stop = args[0] if len(args) == 1 else args[1]
                return "a range over a tensor size" if self._is_size(stop) else None
            if name in ("enumerate", "zip", "reversed"):
                for arg in args[: 1 if name != "zip" else None]:
                    why = self._over_tensor(arg)
                    if why:
                        return why
                return None
        return "a tensor's first axis" if self._is_tensor(iterable) else None

    # --- comprehensions ----------------------------------------------------------------
    def _check(self, node: cst.CSTNode) -> None:
        if not self._torch:
            return
        self._checking = node
        try:
            comp = getattr(node, "for_in", None)
            while comp is not None:
                why = self._over_tensor(comp.iter)
                if why:
                    self.found(node, f"comprehension over {why}: a traced export unrolls it with the example's "
                               "size, so the count is baked into the graph (a Split/Gather per element); compute "
                               "on the whole tensor")
                    return
                comp = comp.inner_for_in
        finally:
            self._checking = None

    def shadowed(self, name: str) -> bool:
        # The comprehension being checked is not in scope yet: its iterable is read from outside it.
        return self.runtime.shadowed(name, outside=self._checking)

    def visit_ListComp(self, node: cst.CSTNode) -> None:
        self._check(node)

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp


RULES = (TensorComprehension,)
