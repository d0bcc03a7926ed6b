"""``x.split(n)`` with ``n`` a traced size → ``_trt_split_by_size(x, n, 0)`` (TRT718).

A tensor that stacks ``k`` parts of one size along an axis (``torch.cat`` of per-stage or
per-head tensors) is cut back into its parts by ``split(n, dim)`` with ``n`` the size of one
part, read from a tensor's shape. ``split`` takes a Python ``int``: the TorchScript exporter
records the example's ``n`` as a constant (a ``TracerWarning``), so the exported ``Split`` cuts
the example's sizes at every size. The inserted helper (``trtcodemod/helpers/splitting.py``) is
``split`` itself outside an ONNX export; while exporting it views the axis as ``(-1, n)``, every
other size read from the tensor, and unbinds the parts: ``n`` stays in the graph, and the count
of parts, fixed by the model, is the trace's.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, int_value, method_call, short_code, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms._size_facts import INTEGER_OPERATORS, SizeRule

_FUNCTION = "torch.split"
HELPER = "_trt_split_by_size"


class SplitBySize(SizeRule):
    needs_text = (b"split",)
    info = RuleInfo(
        id="TRT718",
        name="split-by-size",
        summary="`x.split(n)` with `n` a tensor's size: the TorchScript export keeps the example's split sizes",
        doc="""\
What it finds: `x.split(n, dim)`, `x.split(n, dim=d)` and `torch.split(x, n, dim)` in
run-time code, where `x` is a tensor, `n` is one size of a tensor (`a.shape[0]`, `a.size(1)`,
a local bound to one, `int()` of one, arithmetic of sizes and integers), and `dim` is an
integer literal or left out. Where an observed export (`migrate`, `--facts`) warned at the line
that it turned a traced tensor into a Python integer, `x` need not be shown to be a tensor and
`n` may be any name or string-keyed entry (`batch_size = hidden_states[0].shape[0]`, a size a
caller hands in as `bs`, LoFTR's `data['bs']`), or integer arithmetic of those (`x.shape[0] // 2`
of a submodule's output). Left alone: a literal (`split(4)`, `split(2 * 3)`): nothing traced;
a list of sizes (`split([b, b])`, RAFT's encoder): the TorchScript exporter keeps traced sizes
in a list as computed inputs of the `Split`, so nothing is baked. The typical code stacks parts
of one size and cuts them apart again: transformers' DPT-style reassemble stage concatenates the
backbone's stages along the batch and takes them back with `hidden_states.split(batch_size,
dim=0)` (ZoeDepth); a multi-head merge cuts `(B*H, ...)` into `H` tensors of `B` with
`out.split(batch_size, dim=0)`.

Why it hurts: `split` takes a Python `int`, so tracing turns the traced size into a number (the
exporter warns: "Converting a tensor to a Python integer") and the ONNX `Split` keeps the
example's sizes: at another batch or image size ONNX Runtime and TensorRT refuse the node or
cut at the wrong places. The dynamo exporter is not affected.

The rewrite: `_trt_split_by_size(x, n, dim)`, an inserted helper that is `x.split(n, dim)`
itself in eager mode, under `torch.jit.script`, fx, compile and `torch.export`, so nothing
changes outside an ONNX export. While `torch.onnx.export` runs it views the axis as `(-1, n)`,
every other size read from `x` (`x.view(x.shape[:d] + (-1, n) + x.shape[d + 1:])`), and unbinds
the parts along it: the same values, shapes and strides as `split`'s parts, with `n` and the
other sizes kept in the graph. A `view` and not `unflatten(dim, (-1, n))`: the TorchScript
exporter keeps a size read later from a part of `unflatten` as the example's (Deformable DETR's
two-stage decoder reads `hidden_states.shape[:-1]` of such a part).

Fix safety: unsafe, for the exported graph only. `split` also takes an axis that is not a
multiple of `n` (its last part is shorter) and `n` of 0 on an empty axis; the export's form
raises there. On an empty axis with `n` positive, `split` returns one empty part and the
export's form none. The assumption is that the axis
holds at least one whole part and a whole number of them, of size `n`: true where the axis was
built by stacking parts of that size, which is what the form is for. `migrate` applies the fix
where the observed export baked a value at the line and keeps it only if the rewritten model is
equivalent on every input set. Applies to every TensorRT version.""",
        fix=Safety.UNSAFE,
        assumption="while exporting to ONNX, the split axis holds one or more whole parts of size `n` (otherwise "
                   "`split` returns a shorter last part where the export's form raises, or, on an empty axis, one "
                   "empty part where it returns none); outside an export the helper is `split` itself",
        fails_when=("the exported axis is not a multiple of `n` (a remainder part): the export's form raises",
                    "the exported axis is empty: `split` returns one empty part, the export's form no part",
                    "`n` is 0 while exporting: the export's form raises"),
        examples=(
            Example(
                "def stages(x: torch.Tensor, y: torch.Tensor) -> list[torch.Tensor]:\n"
                "    batch = x.shape[0]\n    stacked = torch.cat([x, y], dim=0)\n"
                "    return [part * 2 for part in stacked.split(batch, dim=0)]\n",
                "def stages(x: torch.Tensor, y: torch.Tensor) -> list[torch.Tensor]:\n"
                "    batch = x.shape[0]\n    stacked = torch.cat([x, y], dim=0)\n"
                "    return [part * 2 for part in _trt_split_by_size(stacked, batch, 0)]\n",
                unsafe=True,
            ),
            Example(
                "def heads(out: torch.Tensor, x: torch.Tensor) -> torch.Tensor:\n"
                "    return torch.cat(torch.split(out, x.size(0), -1), dim=1)\n",
                "def heads(out: torch.Tensor, x: torch.Tensor) -> torch.Tensor:\n"
                "    return torch.cat(_trt_split_by_size(out, x.size(0), -1), dim=1)\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.split.html",
            "https://pytorch.org/docs/stable/generated/torch.Tensor.view.html",
            "https://pytorch.org/docs/stable/generated/torch.unbind.html",
            "https://onnx.ai/onnx/operators/onnx__Split.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not self._frames or not self.active() or has_star_args(node) or in_inserted_helper(self):
            return
        if self.context.refers_to(node.func, _FUNCTION):
            tensor, size, dim = argument(node, 0, "tensor"), argument(node, 1, "split_size_or_sections"), \
                argument(node, 2, "dim")
            expected = 2
        else:
            parts = method_call(node)
            if parts is None or parts[1] != "split" or self.context.qualified_names(parts[0]):
                return
            tensor, size, dim = None, argument(node, 0, "split_size"), argument(node, 1, "dim")
            receiver = parts[0]
            expected = 1
        if size is None or len(node.args) > expected + 1:
            return
        receiver = tensor.value if tensor is not None else receiver
        if not self.is_tensor(receiver) and not self.traced_at(node):
            return
        axis = 0 if dim is None else int_value(dim.value)
        if axis is None or not self._traced_size(size.value, node):
            return
        if receiver.lpar and type(receiver) not in (cst.Tuple, cst.GeneratorExp, cst.NamedExpr):
            receiver = receiver.with_changes(lpar=[], rpar=[])  # `(x + 1).split(n)`: an argument needs none
        new = cst.Call(cst.Name(HELPER), [cst.Arg(receiver), cst.Arg(size.value), cst.Arg(cst.parse_expression(str(axis)))])
        self.found(node, f"`{short_code(node)}` splits by a traced size: the TorchScript export keeps the "
                         f"example's split sizes; `{HELPER}` keeps the size in the graph while exporting",
                   Fix({node: new}, safety=Safety.UNSAFE, helpers=(HELPER,)))

    def _traced_size(self, expr: cst.BaseExpression, node: cst.Call) -> bool:
        """``expr`` is one size of a tensor (or integer arithmetic of sizes and integers), not
        literals alone; or the observed export warned at the call and ``expr`` is a size handed
        in loosely (:meth:`_warned_size`)."""
        if type(expr) in (cst.List, cst.Tuple) or not any(type(n) is cst.Name for n in walk(expr)):
            return False  # sections, or literals (`4`, `2 * 3`): nothing traced
        if self.integer_size(expr):
            return True
        return self.traced_at(node) and self._warned_size(expr)

    def _warned_size(self, expr: cst.BaseExpression) -> bool:
        """Where the export turned a traced tensor into a Python integer on this line: a size of
        a local not shown to be a tensor, a name (``batch_size = hidden[0].shape[0]``, a parameter
        a caller hands a size in, LoFTR's ``bs``), a string-keyed entry (``data['bs']``), or
        integer arithmetic of those with sizes and integers (hlb-CIFAR10's ``x.shape[0]//2``). A
        wrong guess raises in the rewritten model, and migrate keeps the fix only where the
        rewritten model is equivalent."""
        if type(expr) is cst.BinaryOperation and type(expr.operator) in INTEGER_OPERATORS:
            return all(self.integer_size(side) or self._warned_size(side) for side in (expr.left, expr.right))
        return self._loose_size(expr) or type(expr) is cst.Name or (
            type(expr) is cst.Subscript and len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index
            and type(expr.slice[0].slice.value) is cst.SimpleString)


RULES = (SplitBySize,)
