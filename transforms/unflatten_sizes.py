"""``x.unflatten(dim, sizes)`` (TRT345): the TorchScript export loses the result's sizes; view instead.

The TorchScript exporter writes ``unflatten`` as a ``Reshape`` whose shape it builds with
``Add``/``Mod`` on the rank and slices of ``Shape``; its shape inference cannot follow that shape,
so it gives the result the sizes of the traced example, dynamic axes included, and a size read
from the result or anything computed from it later (``y.shape[0]``, ``view(b, ...)``) is folded to
the example's number. The rewrite calls an inserted helper (``trtcodemod/helpers/splitting.py``)
that is ``torch.unflatten`` outside an export and the same view written with ``view`` while
exporting, every other size read from the input.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper, tensor_method_receiver

HELPER = "_trt_unflatten"
_MESSAGE = ("the TorchScript exporter gives the result of `unflatten` the traced example's sizes, dynamic axes "
            "included, so a size read from it (or from anything computed from it) later is baked in")


class UnflattenSizes(Rule):
    needs_text = (b"unflatten",)
    info = RuleInfo(
        id="TRT345",
        name="unflatten-sizes",
        summary="`unflatten` leaves its result with the traced example's sizes in a TorchScript export: sizes "
                "read from it later are baked; view with the other sizes read from the input instead",
        doc="""\
What it finds: `torch.unflatten(x, dim, sizes)` and the tensor method `x.unflatten(dim, sizes)`,
by position or keyword, the axis an integer and the sizes anything but a named-tensor list:
a literal (`(-1, 2)`, `(self.heads, self.dim)`), a slice of a shape (`f.shape[2:]`), a name.
A chain (`x.unflatten(1, (-1, d)).unflatten(-1, (-1, d))`) is one finding.
Calls with unpacked arguments are reported without a fix. Left alone: a call with another
number of arguments (`self.unflatten(outputs)`, a pytree's `unflatten`), an axis written as a
string (named tensors).

Why it hurts: the TorchScript exporter writes `unflatten` as a `Reshape` whose target shape it
computes from the input's `Shape`, cut at the axis with `Add` and `Mod` on the rank; its shape
inference cannot evaluate that shape, so it types the result with the traced example's sizes,
every dynamic axis included. Any size read afterwards from the result, or from a tensor computed
from it (`y.shape[0]`, `y.view(b, n, -1)`, a reshape in attention downstream), is then folded to
the example's number: the exported graph runs only at the example's batch (or image) size, and
ONNX Runtime and TensorRT refuse a `Reshape` or compute wrong shapes at any other. This happens
whether or not the unflattened axis itself is dynamic: the result loses every symbolic size.
transformers' Perceiver optical flow (a zoo model's `F.unfold(f, 3, padding=1).unflatten(2,
f.shape[2:])`) exported at batch 3 has 3 in every `Reshape` of the network, from the
preprocessor's `space_to_depth` (`modeling_perceiver.py:2346`) to the decoder. The same call is
common in model code: V-JEPA 2's rotary embedding (`x.unflatten(-1, (-1, 2))`), LLaVA-NeXT-Video
(`unflatten(0, (batch_size, frames))`), ESMFold's outer product (`unflatten(1, (-1, d))`
twice). The dynamo exporter is not affected.

The rewrite: `x.unflatten(2, f.shape[2:])` → `_trt_unflatten(x, 2, f.shape[2:])`, an inserted
helper. Outside `torch.onnx.export` it is `torch.unflatten` itself. While exporting it returns
`x.view(x.shape[:d] + tuple(sizes) + x.shape[d + 1:])`, `d` the axis counted from the front:
the sizes are read from `x` in the graph (`Shape`, `Gather`, `Concat`), which the exporter's
shape inference follows, so later sizes stay computed. Splitting one axis in two or more is
always a view, so `view` gives `unflatten`'s result: the same values, shape, strides and storage.

Fix safety: safe. Eager, `torch.jit.script` (which passes a tuple of sizes as the helper's list),
`torch.fx`, `torch.compile` and `torch.export` run `torch.unflatten` itself. While exporting, an
input `unflatten` refuses before viewing (a 0-d tensor, an axis out of range, no sizes, sizes
that are not numbers) keeps `torch.unflatten`, and its error; sizes that do not multiply up to
the axis (or a `-1` on an empty axis) make `view` raise where `unflatten` raises.

In `migrate`: the export warns nowhere (no Python value is read), so the bake shows only where a
size is read later, often in another file. `migrate` traces the original again at other sizes of
the dynamic axes and takes the first node whose graph changed (also where no warning asked for the
second trace); that node, or a node ONNX Runtime refuses to run at another size, is tied to every
`unflatten` finding on the exported path, whatever its line, and the fix is applied and verified.
Where the graph already follows the sizes (the result meets a tensor whose sizes the exporter kept,
as V-JEPA 2's rotated pairs are added to the input), nothing is located and the call stays.

TensorRT versions: all (the sizes are baked before TensorRT sees the graph).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "class Patches(nn.Module):\n"
                "    def forward(self, f):\n"
                "        y = F.unfold(f, 3, padding=1).unflatten(2, f.shape[2:])\n"
                "        return y.view(y.shape[0], -1, 9)\n",
                "class Patches(nn.Module):\n"
                "    def forward(self, f):\n"
                "        y = _trt_unflatten(F.unfold(f, 3, padding=1), 2, f.shape[2:])\n"
                "        return y.view(y.shape[0], -1, 9)\n",
            ),
            Example("pairs = torch.unflatten(x, -1, (-1, 2))\n",
                    "pairs = _trt_unflatten(x, -1, (-1, 2))\n"),
            Example("video = feats.unflatten(0, sizes=(batch_size, frames))\n",
                    "video = _trt_unflatten(feats, 0, (batch_size, frames))\n"),
            Example("y = x.unflatten(*args)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.unflatten.html",
            "https://pytorch.org/docs/stable/generated/torch.Tensor.view.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
            "https://github.com/huggingface/transformers/blob/main/src/transformers/models/perceiver/modeling_perceiver.py",
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._inner: set[int] = set()  # calls a chain's outer finding rewrites

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or id(node) in self._inner:
            return
        parts = self._parts(node)
        if parts is None:
            return
        if parts == "unpacked":
            self.report(node, f"{_MESSAGE}; view with the other sizes read from the input (not rewritten: "
                        "unpacked arguments)")
            return
        self.report(node, f"{_MESSAGE}; `{HELPER}` views with the other sizes read from the input while exporting "
                    "(`torch.unflatten` otherwise)",
                    Fix({node: self._rewritten(node, parts)}, helpers=(HELPER,)))

    def _parts(self, node: cst.Call) -> tuple[cst.Arg, cst.Arg, cst.Arg] | str | None:
        """The tensor, axis and sizes of a call this rule takes; "unpacked" for one with unpacked
        arguments; None for any other call."""
        if self.context.refers_to(node.func, "torch.unflatten"):
            tensor, first = argument(node, 0, "input"), 1
        else:
            receiver = tensor_method_receiver(self, node, ("unflatten",))
            if receiver is None:
                return None
            if receiver.lpar and type(receiver) not in (cst.Tuple, cst.GeneratorExp, cst.NamedExpr):
                receiver = receiver.with_changes(lpar=[], rpar=[])  # `(a + b).unflatten(...)`: an argument needs none
            tensor, first = cst.Arg(value=receiver), 0
        if has_star_args(node):
            return "unpacked"
        dim, sizes = argument(node, first, "dim"), argument(node, first + 1, "sizes")
        known = {"input", "dim", "sizes"} if first else {"dim", "sizes"}
        if tensor is None or dim is None or sizes is None or len(node.args) != first + 2 \
                or any(a.keyword is not None and a.keyword.value not in known for a in node.args):
            return None  # another function's `unflatten` (a pytree's, a runner's), or not torch's arguments
        if type(dim.value) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
            return None  # named tensors: `x.unflatten("C", (("C1", 2), ("C2", 3)))`
        return tensor, dim, sizes

    def _rewritten(self, node: cst.Call, parts: tuple[cst.Arg, cst.Arg, cst.Arg]) -> cst.Call:
        """``HELPER(tensor, dim, sizes)``, every argument by position, the call's line breaks and last
        comma kept; a tensor that is itself such a call (`x.unflatten(1, a).unflatten(-1, b)`) is
        rewritten inside it, one finding for the chain."""
        tensor, dim, sizes = parts
        inner = tensor.value
        if type(inner) is cst.Call:
            inner_parts = self._parts(inner)
            if isinstance(inner_parts, tuple):
                self._inner.add(id(inner))
                tensor = tensor.with_changes(value=self._rewritten(inner, inner_parts))
        args = [a.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT) for a in (tensor, dim, sizes)]
        separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args = [a if isinstance(a.comma, cst.Comma) else a.with_changes(comma=separator) for a in args[:-1]] \
            + [args[-1].with_changes(comma=node.args[-1].comma)]
        return node.with_changes(func=cst.Name(HELPER), args=args)


RULES = (UnflattenSizes,)
