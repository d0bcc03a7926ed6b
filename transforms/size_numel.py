"""``x.shape[1:].numel()`` (TRT346): ``torch.Size.numel()`` reads the traced sizes into a Python int.

Under the TorchScript exporter each size of a ``torch.Size`` is a traced 0-d tensor, but ``numel()``
of the ``Size`` multiplies them in C++ and returns a Python ``int``: the graph keeps the traced
example's count as a constant, and no ``TracerWarning`` says so (found by
``benchmarks/size_coverage.py``). The rewrite calls an inserted helper
(``trtcodemod/helpers/numel.py``) that is ``numel()`` itself outside an export and the product of the
traced sizes while exporting.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import bound_names, method_call, walk
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_size_numel"
_MESSAGE = ("`numel()` of a `torch.Size` multiplies the traced sizes into a Python int: the TorchScript export "
            "keeps the example's count, with no TracerWarning")


def _size_expression(node: cst.BaseExpression) -> bool:
    """``t.shape``, ``t.size()``, or a slice of either (``t.shape[1:]``, ``t.size()[:-1]``): a ``torch.Size``
    where ``t`` is a tensor."""
    if type(node) is cst.Subscript:
        if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Slice:
            return False
        node = node.value
    if type(node) is cst.Attribute:
        return node.attr.value == "shape"
    if type(node) is cst.Call and not node.args:
        parts = method_call(node)
        return parts is not None and parts[1] == "size"
    return False


class SizeNumel(Rule):
    needs_text = (b"numel",)
    info = RuleInfo(
        id="TRT346",
        name="size-numel",
        summary="`x.shape[1:].numel()` (`numel` of a `torch.Size`) is a Python int the TorchScript export bakes "
                "silently; multiply the traced sizes while exporting",
        doc="""\
What it finds: `.numel()` called on a `torch.Size` written as one: `t.shape`, `t.size()`, a slice of
either (`t.shape[1:]`, `t.size()[:-1]`), or a local name bound once in the function to one of those
(`feat_shape = x.shape[2:]` ... `feat_shape.numel()`). `t.numel()` of a tensor is left alone: it is a
tensor method the trace records. Real model code counts the elements of each image or level this
way: transformers' Idefics2, Idefics3, SmolVLM and ModernVBERT find padding images with
`(pixel_values == 0.0).sum(dim=(-1, -2, -3)) != pixel_values.shape[1:].numel()`, kornia's
`get_laf_descriptors` reshapes with `descriptors.shape[1:].numel()`, MONAI's RetinaNet detector
counts anchors per level with `[x.shape[2:].numel() for x in head_outputs[...]]`, and timm's
Fourier position embedding reshapes with `feat_shape.numel()`.

Why it hurts: under `torch.jit.trace` (which the TorchScript exporter runs) every size in
`x.shape` is a traced 0-d tensor, and arithmetic on them (`h * w`) is recorded. `torch.Size.numel()`
is not: it multiplies the sizes in C++ and hands back a Python `int`, which the exported graph keeps
as a constant. No `TracerWarning` is raised, so nothing in the export points at the line: at another
height or width the graph compares with, or reshapes to, the traced example's count (a `Reshape`
ONNX Runtime refuses, or wrong values). `benchmarks/size_coverage.py` found it among about 170 size
idioms (the others that bake silently are listed in its docstring). The dynamo exporter is not
affected (its sizes are symbolic integers that `numel()` multiplies symbolically).

The rewrite: `pixel_values.shape[1:].numel()` → `_trt_size_numel(pixel_values.shape[1:])`, an
inserted helper. Outside `torch.onnx.export`, and for anything that is not a `torch.Size` holding
traced sizes, it is `shape.numel()` itself (an `int`; an object without `numel` raises as before).
While the TorchScript exporter traces, it multiplies the sizes one by one with `*`, which the
trace records as `Mul` nodes on the input's `Shape`: a 0-d `int64` tensor that follows the input.

Fix safety: safe. Eager, `torch.fx`, `torch.compile`, `torch.export` and the dynamo exporter run
`numel()` itself: the same int. `torch.jit.script` (where a shape is a `List[int]` with no `numel`,
so the original does not compile) multiplies the list's sizes: the same int. While the TorchScript
exporter traces, the product of the sizes is the element count; it is a 0-d tensor there, which
tensor operations, `view`/`reshape` sizes and comparisons take as they take a traced size.

In `migrate`: the export warns nowhere, and the constant lands on the line that uses the count,
often a few lines later; `migrate` traces the original again at other sizes of the dynamic axes and
ties the first node whose graph changed (or a node ONNX Runtime refuses at another size) to every
finding of this rule on the exported path, then applies the fix and verifies it. Since the
observed sets may all match the graph (Idefics2's test is true on every random image, whatever count
the graph keeps), `migrate` makes that second trace whenever the code holds a finding of this rule.
The count, written either way, is a size for TRT712, TRT713 and TRT716 (`int(math.sqrt(...))` of
it, a guard on it, a tensor of it), so their fixes compose with this one.

TensorRT versions: all (the count is baked before TensorRT sees the graph).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "class Vision(nn.Module):\n"
                "    def forward(self, pixel_values):\n"
                "        per_image = pixel_values.shape[1:].numel()\n"
                "        return (pixel_values == 0.0).sum(dim=(-1, -2, -3)) != per_image\n",
                "class Vision(nn.Module):\n"
                "    def forward(self, pixel_values):\n"
                "        per_image = _trt_size_numel(pixel_values.shape[1:])\n"
                "        return (pixel_values == 0.0).sum(dim=(-1, -2, -3)) != per_image\n",
            ),
            Example("d = d.reshape(B, N, d.size()[1:].numel())\n",
                    "d = d.reshape(B, N, _trt_size_numel(d.size()[1:]))\n"),
            Example(
                "def forward(self, x):\n"
                "    feat_shape = x.shape[2:]\n"
                "    return x.reshape(x.shape[0], feat_shape.numel(), -1)\n",
                "def forward(self, x):\n"
                "    feat_shape = x.shape[2:]\n"
                "    return x.reshape(x.shape[0], _trt_size_numel(feat_shape), -1)\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/size.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
            "https://github.com/huggingface/transformers/blob/main/src/transformers/models/idefics2/modeling_idefics2.py",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or node.args:
            return
        parts = method_call(node)
        if parts is None or parts[1] != "numel":
            return
        receiver = parts[0]
        if not (_size_expression(receiver) or self._bound_to_size(receiver)):
            return
        if receiver.lpar:
            receiver = receiver.with_changes(lpar=[], rpar=[])
        self.report(node, f"{_MESSAGE}; `{HELPER}` multiplies the traced sizes while exporting (`numel()` otherwise)",
                    Fix({node: node.with_changes(func=cst.Name(HELPER), args=[cst.Arg(value=receiver)])},
                        helpers=(HELPER,)))

    def _bound_to_size(self, receiver: cst.BaseExpression) -> bool:
        """A local name bound exactly once in the enclosing function, by ``name = <a torch.Size>``, and
        not a parameter."""
        function = self.context.function
        if type(receiver) is not cst.Name or function is None:
            return False
        name = receiver.value
        if any(p.name.value == name for p in (*function.params.params, *function.params.posonly_params,
                                                *function.params.kwonly_params)):
            return False
        values: list[cst.BaseExpression | None] = []
        for inner in walk(function.body):
            if type(inner) is cst.Assign:
                for target in inner.targets:
                    if name in bound_names(target.target):
                        values.append(inner.value if type(target.target) is cst.Name else None)
            elif type(inner) in (cst.AugAssign, cst.AnnAssign) and name in bound_names(inner.target):
                values.append(None)
            elif type(inner) in (cst.For, cst.CompFor) and name in bound_names(inner.target):
                values.append(None)
            elif type(inner) is cst.NamedExpr and name in bound_names(inner.target):
                values.append(None)
            elif type(inner) in (cst.Global, cst.Nonlocal) and any(n.name.value == name for n in inner.names):
                values.append(None)
        return len(values) == 1 and values[0] is not None and _size_expression(values[0])


RULES = (SizeNumel,)
