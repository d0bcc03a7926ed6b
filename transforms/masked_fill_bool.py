"""``masked_fill`` with a Python bool fill value (``adj.masked_fill(self_mask, False)``), which the TorchScript
exporter has no schema for (TRT380)."""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import method_call, parenthesize
from trtcodemod.evidence.proofs import prove_bool_fill
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms._tensor_evidence import TensorEvidence
from trtcodemod.transforms.bool_add import BoolTensors

#: The bool literals and the integer Scalar each becomes.
_INTEGER = {"False": "0", "True": "1"}


def _argument(call: cst.Call, position: int, keyword: str) -> cst.Arg | None:
    """The argument at ``position`` or named ``keyword``; None when absent or behind a ``*``/``**``."""
    if any(a.star for a in call.args):
        return None
    for index, arg in enumerate(call.args):
        if arg.keyword is None and index == position or arg.keyword is not None and arg.keyword.value == keyword:
            return arg
    return None


def _bool_literal(arg: cst.Arg | None) -> str | None:
    """``"True"``/``"False"`` where ``arg`` is that literal (with no parentheses to keep)."""
    if arg is None or type(arg.value) is not cst.Name or arg.value.lpar:
        return None
    return arg.value.value if arg.value.value in _INTEGER else None


def _operand(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` as an operand of ``&``/``|`` (parenthesized unless an atom or ``~x``), its own whitespace dropped."""
    if type(node) is cst.UnaryOperation and not node.lpar:
        return node
    return parenthesize(node)


class MaskedFillBool(BoolTensors, Rule):
    needs_text = (b"masked_fill",)
    requires = (TensorEvidence, ObservedFacts)
    info = RuleInfo(
        id="TRT380",
        name="masked-fill-bool",
        summary="`t.masked_fill(m, False)`: a Python bool fill value stops the TorchScript ONNX export (no schema "
                "for a bool Scalar); of bool tensors write `t & ~m` / `t | m`, else fill with `0` / `1`",
        doc="""\
What it finds: `t.masked_fill(m, v)`, `t.masked_fill_(m, v)` and `torch.masked_fill(t, m, v)`
where the fill value `v` is the literal `True` or `False` (positional or `value=`). Real code
writes it where `t` is a bool adjacency or mask (egnn-pytorch's
`adj_mat = adj_mat.masked_fill(self_mask, False)`, which takes the diagonal out of a bool
adjacency), and sometimes where `t` is a float or int tensor.

Why it hurts: torch reads the Python bool as a Scalar, but the TorchScript ONNX exporter's
alias analysis has no schema of `masked_fill` for one and stops the export: `RuntimeError: 0
INTERNAL ASSERT FAILED at .../alias_analysis.cpp: We don't have an op for aten::masked_fill but
it isn't a special case. Argument types: Tensor, Tensor, bool`. Writing the value as the
integer `0`/`1` lets the export through, but on a bool tensor it then makes an ONNX `Where`
of bools, which ONNX Runtime's CPU provider does not implement ("Could not find an
implementation for Where(16)"), so the graph cannot be verified there (TensorRT takes it).

What the fix does, where the code shows that `t` and `m` are both bool tensors (each a
comparison with a tensor, a torch function or method that returns bools, `~`, `&`, `|`, `^`
of such, `torch.eye(..., dtype=torch.bool)` and other creations with `dtype=torch.bool`,
`.to(torch.bool)`, an index, a view or a rearrangement of one, einops' `rearrange`, or a local
name assigned one):
```
adj = adj.masked_fill(self_mask, False)    ->  adj = (adj & ~self_mask).contiguous()
keep = keep.masked_fill(forced, True)      ->  keep = (keep | forced).contiguous()
keep.masked_fill_(drop, False)             ->  keep.bitwise_and_(~drop)
keep.masked_fill_(forced, True)            ->  keep.bitwise_or_(forced)
```
The exporter writes these as `Not`, `And`, `Or`, which ONNX Runtime and TensorRT run. Anywhere
else (a float, int or unknown `t`), the value becomes the integer Scalar:
`scores.masked_fill(pad, False)` -> `scores.masked_fill(pad, 0)` (and `True` -> `1`).

Fix safety: safe. Out of place, `masked_fill` broadcasts `t` and `m` both ways and returns a
new contiguous tensor of `t`'s dtype; for bools `t & ~m` (`t | m`) has the same values and
shape and broadcasts the same way (the same error where they do not), and `.contiguous()`
gives it the same strides (`&` of a transposed or channels-last bool would follow its layout);
in place, `masked_fill_` broadcasts only `m` to `t` and returns `t`, as `bitwise_and_` does. A
mask of any dtype but bool raises in `masked_fill` and would not in `&`, so both operands must
be shown bool; and because an in-place write into an `expand()`ed tensor, which `masked_fill_`
still makes (with a deprecation warning), raises in `bitwise_and_`, the in-place form is made
only where the receiver is shown not to be one (no `expand`, `expand_as`, `broadcast_to` or
einops `repeat` on its way). The integer form is the same Scalar after conversion to `t`'s
dtype (0/1 for bool, int, float and complex tensors alike), so it is the same program. Bools
carry no gradient; every form runs in eager mode, `torch.jit.script`, `torch.fx`,
`torch.compile` and `torch.export`. With a recorded run (`migrate`, `--facts`), a site whose
`masked_fill` returned a bool tensor on every call (a bool receiver, and so a bool mask) takes
the out-of-place bitwise form even where the code does not show the dtypes (egnn-pytorch's
`adj_mat` is a forward argument): that form rests on the observation. TensorRT versions: all.""",
        fix=Safety.SAFE,
        assumption="where only a recorded run shows the receiver bool: the receiver of `masked_fill(m, True/False)` "
                   "is a bool tensor on every call (then the mask is one too, or masked_fill raises)",
        fails_when=(
            "a caller the run did not observe passes a float or int receiver: `t & ~m` is then a bitwise and "
            "(an int's other bits kept, a float raises) where masked_fill filled 0",
        ),
        proof=prove_bool_fill,
        examples=(
            Example(
                "import torch\n\n"
                "def no_self_loops(points, radius):\n"
                "    dist = torch.cdist(points, points)\n"
                "    adj = dist < radius\n"
                "    self_mask = torch.eye(dist.shape[-1], dtype=torch.bool)\n"
                "    return adj.masked_fill(self_mask, False)\n",
                "import torch\n\n"
                "def no_self_loops(points, radius):\n"
                "    dist = torch.cdist(points, points)\n"
                "    adj = dist < radius\n"
                "    self_mask = torch.eye(dist.shape[-1], dtype=torch.bool)\n"
                "    return (adj & ~self_mask).contiguous()\n",
            ),
            Example(
                "import torch\n\n"
                "def mask_padding(scores, pad):\n"
                "    return scores.masked_fill(pad, False)\n",
                "import torch\n\n"
                "def mask_padding(scores, pad):\n"
                "    return scores.masked_fill(pad, 0)\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.Tensor.masked_fill_.html",
            "https://onnx.ai/onnx/operators/onnx__Where.html",
        ),
    )

    def _observed_bool(self, node: cst.Call) -> bool:
        """Did the recorded run see this out-of-place ``masked_fill`` return a bool tensor on every call?"""
        observed = self.provider(ObservedFacts)
        return observed.known and observed.dtypes(node) == {"bool"}

    def visit_Call(self, node: cst.Call) -> None:
        parts = method_call(node)
        if "torch.masked_fill" in self.context.qualified_names(node.func):
            first = _argument(node, 0, "input")
            receiver, in_place = (first.value if first is not None else None), False
            mask, value = _argument(node, 1, "mask"), _argument(node, 2, "value")
        elif parts is not None and parts[1] in ("masked_fill", "masked_fill_"):
            receiver, in_place = parts[0], parts[1] == "masked_fill_"
            mask, value = _argument(node, 0, "mask"), _argument(node, 1, "value")
        else:
            return
        literal = _bool_literal(value)
        if literal is None or mask is None or receiver is None or in_inserted_helper(self):
            return
        why = ("a Python bool fill value stops the TorchScript ONNX export (its alias analysis has no schema of "
               "masked_fill for a bool Scalar)")
        shown = self._bool(mask.value) and self._bool(receiver, fresh=in_place)
        if shown or not in_place and self._observed_bool(node):
            negate = literal == "False"
            other = cst.UnaryOperation(cst.BitInvert(), _operand(mask.value)) if negate else _operand(mask.value)
            if in_place:
                replacement: cst.BaseExpression = cst.Call(
                    cst.Attribute(receiver, cst.Name("bitwise_and_" if negate else "bitwise_or_")),
                    [cst.Arg(other)])
            else:
                operator = cst.BitAnd() if negate else cst.BitOr()
                combined = cst.BinaryOperation(_operand(receiver), operator, other,
                                               lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
                replacement = cst.Call(cst.Attribute(combined, cst.Name("contiguous")))
            replacement = replacement.with_changes(lpar=node.lpar, rpar=node.rpar)
            form = f"`{'&' if negate else '|'}`" + (" in place" if in_place else "")
            if shown:
                self.report(node, f"{why}; of bool tensors it is the same as {form}, which exports as And/Or/Not",
                            Fix({node: replacement}, safety=Safety.SAFE))
            else:
                self.report(node, f"{why}; the recorded run saw it return bools only, so it is {form} there "
                                  "(rests on that observation)",
                            Fix({node: replacement}, safety=Safety.UNSAFE))
            return
        self.report(node, f"{why}; the integer {_INTEGER[literal]} is the same Scalar after conversion to the "
                          "receiver's dtype",
                    Fix({value.value: cst.Integer(_INTEGER[literal])}, safety=Safety.SAFE))


RULES = (MaskedFillBool,)
