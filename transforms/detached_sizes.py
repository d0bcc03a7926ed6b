"""``x.data.size()`` / ``x.data.shape`` (TRT354): sizes read through ``.data`` leave the trace.

``x.data`` is a tensor outside autograd and outside ``torch.jit.trace``: its sizes are the traced
example's Python ints, with no ``TracerWarning``, so a ``view`` built from them keeps the example's
batch, height and width (ShuffleNet's ``channel_shuffle`` as many repositories copied it). The
rewrite reads the sizes through an inserted helper (``trtcodemod/helpers/detached.py``) that is
``x.data`` everywhere except while a trace records, where it is ``x`` itself.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule

HELPER = "_trt_sized_data"


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
    needs_text = (b".data.",)
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

Why it hurts: under `torch.jit.trace` (which the TorchScript exporter runs) a tensor's sizes are
traced values, and a `view` built from them follows the input. `x.data` is a new tensor outside
autograd that the tracer does not record: its sizes are plain Python ints, the example's. The
exported `Reshape` keeps the traced batch, height and width as constants, and no `TracerWarning`
points at the line: at another size ONNX Runtime refuses the `Reshape` (or, where the element
count happens to agree, the graph computes other values). The dynamo exporter is not affected.

The rewrite: `x.data.size()` → `_trt_sized_data(x).size()`, `x.data.shape` →
`_trt_sized_data(x).shape`. The inserted helper is `x.data` outside a trace, under
`torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`, and for anything that is not a
tensor; while `torch.jit.trace` records, it is `x` itself, whose sizes are the same numbers and
are recorded.

Fix safety: safe. `x.data` and `x` have the same sizes, so `.size()` and `.shape` give the same
numbers everywhere, and an object that is not a tensor gets its own `.data` as before (the same
values and exceptions); the helper is used only for its sizes, so no value, gradient or alias
changes. In `migrate`: the export warns nowhere and the constant lands on the `view` that uses
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

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is not cst.Attribute or func.attr.value != "size":
            return
        receiver = _detached(func.value)
        if receiver is not None:
            self._found(node, func.value, receiver, cst.Module([]).code_for_node(node))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "shape":
            return
        receiver = _detached(node.value)
        if receiver is not None:
            self._found(node, node.value, receiver, cst.Module([]).code_for_node(node))


RULES = (DetachedSizes,)
