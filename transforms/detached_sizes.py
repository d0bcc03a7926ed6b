"""``x.data.size()`` / ``x.data.shape`` / ``x.data + y`` (TRT354): sizes and values read through ``.data`` leave the trace.

``x.data`` is a tensor outside autograd and outside ``torch.jit.trace``: its sizes are the traced
example's Python ints, with no ``TracerWarning``, so a ``view`` built from them keeps the example's
batch, height and width (ShuffleNet's ``channel_shuffle`` as many repositories copied it). The
rewrite reads the sizes through an inserted helper (``trtcodemod/helpers/detached.py``) that is
``x.data`` everywhere except while a trace records, where it is ``x`` itself. Values read through
``.data`` (an operand of arithmetic, an argument of a ``torch`` function) are the example's constant in
the trace alike: they go through a second helper, ``x.detach()`` while a trace records.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import has_star_args
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule

HELPER = "_trt_sized_data"
VALUES_HELPER = "_trt_traced_data"


def _detached(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``X`` of ``X.data`` where ``X`` is not rooted at ``self`` (a parameter's sizes are fixed anyway)."""
    if type(node) is not cst.Attribute or node.attr.value != "data":
        return None
    root = node.value
    while type(root) in (cst.Attribute, cst.Subscript):
        root = root.value
    if type(root) is cst.Name and root.value == "self":
        return None
    return node.value


class DetachedSizes(RuntimeScopeRule):
    needs_text = (b".data",)
    info = RuleInfo(
        id="TRT354",
        name="detached-sizes",
        summary="`x.data.size()` / `x.data.shape`: sizes read through `.data` are the traced example's numbers, "
                "baked with no TracerWarning; read them from the tensor while tracing",
        doc="""\
What it finds: `X.data.size()`, `X.data.size(i)`, `X.data.shape` (and a subscript of either) in
run-time code, where `X` is not an attribute chain of `self` (a parameter's or buffer's sizes do
not change with the input). ShuffleNet's channel shuffle, as nanodet, many ShuffleNet and
ERFNet/ENet-style repositories and several video and recurrent models copied it:
```
batchsize, num_channels, height, width = x.data.size()
x = x.view(batchsize, groups, num_channels // groups, height, width)
```
And `X.data` read for its values: an operand of arithmetic or of a comparison (`x.data + grid`)
or a positional argument of a `torch` function that makes a new tensor (`torch.exp(w.data)`; not
one whose name ends in `_`, nor one given `out=`), or the value bound to a plain name
(`prior_data = priors.data`, RetinaFace's `_detect` in face_detection and in biubug6's
Pytorch_Retinaface, whose priors are then decoded against every image's offsets). YOLOv3 decoders as eriklindernoren's
PyTorch-YOLOv3 wrote them and many repositories copied: `pred_boxes[..., 0] = x.data + self.grid_x`,
`pred_boxes[..., 2] = torch.exp(w.data) * self.anchor_w`.

Why it hurts: under `torch.jit.trace` (which the TorchScript exporter runs) a tensor's sizes are
traced values, and a `view` built from them follows the input. `x.data` is a new tensor outside
autograd that the tracer does not record: its sizes are plain Python ints, the example's. The
exported `Reshape` keeps the traced batch, height and width as constants, and no `TracerWarning`
points at the line: at another size ONNX Runtime refuses the `Reshape` (or, where the element
count happens to agree, the graph computes other values). Its values alike: the trace records
them as a constant of the example's values, with no warning, so the graph computes the example's
boxes for every input (and at another batch, a node that meets the constant refuses it; measured
with torch 2.13 on a YOLOv3 decoder: `x.data + grid` exported at batch 1 gives batch 1's values).
The dynamo exporter is not affected.

The rewrite: `x.data.size()` → `_trt_sized_data(x).size()`, `x.data.shape` →
`_trt_sized_data(x).shape`. The inserted helper is `x.data` outside a trace, under
`torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`, and for anything that is not a
tensor; while `torch.jit.trace` records, it is `x` itself, whose sizes are the same numbers and
are recorded. A value read: `x.data + g` → `_trt_traced_data(x) + g`, the second helper `x.data`
everywhere else and `x.detach()` while a trace records (the same values, outside autograd as
`.data` is, and recorded).

Fix safety: safe. `x.data` and `x` have the same sizes, so `.size()` and `.shape` give the same
numbers everywhere, and an object that is not a tensor gets its own `.data` as before (the same
values and exceptions); the helper is used only for its sizes, so no value, gradient or alias
changes. For values, `x.detach()` holds the same values as `x.data`, without gradient, and is
only read by an operation that makes a new tensor (an operand, a non-in-place `torch` function's
argument), so the result, its dtype, device and gradient are the same; only the trace differs. A name
bound to it holds `x.data` itself outside a trace (the same object as before, so the same aliasing);
while a trace records, `x.detach()`, which shares `x`'s storage as `.data` does, and also its version
counter: a write through the name while tracing is recorded (with `.data` the graph loses it), and a
backward through `x` after such a write would raise where `.data`'s would not (no exporter runs one). In `migrate`: the export warns nowhere and the constant lands on the `view` that uses
the sizes, so `migrate` traces the original again at other sizes whenever the code holds a
finding of this rule and ties what changed to it, then verifies the fix. TensorRT versions: all
(the sizes are baked before TensorRT sees the graph).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def channel_shuffle(x, groups):\n"
                "    batchsize, num_channels, height, width = x.data.size()\n"
                "    x = x.view(batchsize, groups, num_channels // groups, height, width)\n"
                "    return torch.transpose(x, 1, 2).contiguous().view(batchsize, -1, height, width)\n",
                "def channel_shuffle(x, groups):\n"
                "    batchsize, num_channels, height, width = _trt_sized_data(x).size()\n"
                "    x = x.view(batchsize, groups, num_channels // groups, height, width)\n"
                "    return torch.transpose(x, 1, 2).contiguous().view(batchsize, -1, height, width)\n",
            ),
            Example(
                "class Gru(nn.Module):\n"
                "    def forward(self, x):\n"
                "        state = torch.zeros([x.data.size()[0], 8] + list(x.data.shape[2:]))\n"
                "        return x[:, :8] + state\n",
                "class Gru(nn.Module):\n"
                "    def forward(self, x):\n"
                "        state = torch.zeros([_trt_sized_data(x).size()[0], 8] + list(_trt_sized_data(x).shape[2:]))\n"
                "        return x[:, :8] + state\n",
            ),
            Example(
                "class Decode(nn.Module):\n"
                "    def forward(self, x, grid):\n"
                "        return torch.exp(x.data) * 2 + grid\n",
                "class Decode(nn.Module):\n"
                "    def forward(self, x, grid):\n"
                "        return torch.exp(_trt_traced_data(x)) * 2 + grid\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
            "https://github.com/RangiLyu/nanodet/blob/main/nanodet/model/backbone/shufflenetv2.py",
        ),
    )

    def _found(self, outer: cst.CSTNode, data: cst.Attribute, receiver: cst.BaseExpression, spelled: str) -> None:
        replacement = cst.Call(func=cst.Name(HELPER), args=[cst.Arg(value=receiver.with_changes(lpar=[], rpar=[])
                                                                    if isinstance(receiver, cst.Name) else receiver)])
        self.found(outer, f"`{spelled}` reads the sizes of `.data`, which a trace does not record: the TorchScript "
                          f"export keeps the example's numbers, with no TracerWarning; `{HELPER}` reads them from "
                          "the tensor while tracing (`.data` otherwise)",
                   Fix({data: replacement}, helpers=(HELPER,)))

    def _value(self, data: cst.BaseExpression) -> None:
        """``data`` read for its values (an operand, a function's argument): through the values' helper."""
        receiver = _detached(data)
        if receiver is None:
            return
        spelled = cst.Module([]).code_for_node(data)
        replacement = cst.Call(func=cst.Name(VALUES_HELPER), args=[cst.Arg(value=receiver)])
        self.found(data, f"`{spelled}` reads values through `.data`, which a trace does not record: the TorchScript "
                         f"export keeps the example's values as a constant, with no TracerWarning; `{VALUES_HELPER}` "
                         "reads them through `detach()` while tracing (`.data` otherwise)",
                   Fix({data: replacement}, helpers=(VALUES_HELPER,)))

    def visit_Assign(self, node: cst.Assign) -> None:
        """``prior_data = priors.data`` (RetinaFace's ``_detect``, as biubug6's Pytorch_Retinaface and its copies
        write it): a name bound to the values, which every later read takes as the example's constant."""
        if len(node.targets) == 1 and type(node.targets[0].target) is cst.Name:
            self._value(node.value)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._value(node.left)
        self._value(node.right)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        self._value(node.expression)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if any(type(t.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for t in node.comparisons):
            return  # identity and membership: of the `.data` object itself, not of its values
        self._value(node.left)
        for target in node.comparisons:
            self._value(target.comparator)

    def visit_Call(self, node: cst.Call) -> None:
        self._function_arguments(node)
        func = node.func
        if type(func) is not cst.Attribute or func.attr.value != "size":
            return
        receiver = _detached(func.value)
        if receiver is not None:
            self._found(node, func.value, receiver, cst.Module([]).code_for_node(node))

    def _function_arguments(self, node: cst.Call) -> None:
        """``torch.exp(w.data)``: a ``torch`` function that makes a new tensor of its arguments."""
        if has_star_args(node) or any(a.keyword is not None and a.keyword.value == "out" for a in node.args):
            return
        names = self.context.qualified_names(node.func)
        if not any(n.startswith("torch.") and not n.endswith("_") and n.count(".") == 1 for n in names):
            return  # `torch.nn.init.normal_(w.data)`, a method, a user's function: may write or keep it
        for arg in node.args:
            if arg.keyword is None:
                self._value(arg.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "shape":
            return
        receiver = _detached(node.value)
        if receiver is not None:
            self._found(node, node.value, receiver, cst.Module([]).code_for_node(node))


RULES = (DetachedSizes,)
