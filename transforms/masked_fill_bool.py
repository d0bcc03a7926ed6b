"""``masked_fill`` with a Python bool fill value (``adj.masked_fill(self_mask, False)``), which the TorchScript
exporter has no schema for (TRT380)."""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, method_call, parenthesize
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
    return None if any(a.star for a in call.args) else argument(call, position, keyword)


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
    needs_text = (b"masked_fill", b"full")
    requires = (TensorEvidence, ObservedFacts)
    info = RuleInfo(
        id="TRT380",
        name="masked-fill-bool",
        summary="`t.masked_fill(m, False)`, `torch.full(size, False)`: a Python bool fill value stops the TorchScript "
                "ONNX export (no schema for a bool Scalar); of bool tensors write `t & ~m` / `t | m`, else fill with "
                "`0` / `1` (`dtype=torch.bool` for `full`)",
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

The same exporter stops on `torch.full(size, False)` (a bool tensor: torch takes the dtype from
the fill value; Microsoft SFM's causal masks start so) and `torch.full_like(x, True)` for the
same reason. `torch.full((n, n), False, device=d)` -> `torch.full((n, n), 0, device=d,
dtype=torch.bool)`; where a `dtype=` is given, and for `full_like` (the dtype is `x`'s), the
value becomes `0`/`1`. A `full` imported by name is reported without a fix (its module's `bool`
may not be in scope), one with `out=` is left alone.

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
`torch.compile` and `torch.export`. `torch.full(size, 0, dtype=torch.bool)` is the tensor
`torch.full(size, False)` is (dtype, device, values, the same error for `requires_grad=True`).
With a recorded run (`migrate`, `--facts`), a site whose
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

    def _full(self, node: cst.Call, names: set[str]) -> None:
        """``torch.full(size, False)`` (a bool tensor: the fill value's type) and ``torch.full_like(x, True)``."""
        if any(a.keyword is not None and a.keyword.value == "out" for a in node.args):
            return
        value = _argument(node, 1, "fill_value")
        literal = _bool_literal(value)
        if literal is None or in_inserted_helper(self):
            return
        integer = value.with_changes(value=cst.Integer(_INTEGER[literal]))
        why = ("a Python bool fill value stops the TorchScript ONNX export (its alias analysis has no schema of "
               f"{'full' if 'torch.full' in names else 'full_like'} for a bool Scalar)")
        typed = any(a.keyword is not None and a.keyword.value == "dtype" for a in node.args)
        if "torch.full_like" in names or typed:
            self.report(node, f"{why}; the integer {_INTEGER[literal]} is the same Scalar after conversion to the "
                              "result's dtype", Fix({value: integer}, safety=Safety.SAFE))
            return
        if type(node.func) is not cst.Attribute:
            self.report(node, f"{why}; write the integer {_INTEGER[literal]} with dtype=torch.bool")
            return
        dtype = cst.Arg(cst.Attribute(node.func.value, cst.Name("bool")), keyword=cst.Name("dtype"),
                        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
        args = [integer if a is value else a for a in node.args]
        last = args[-1]
        if last.comma is cst.MaybeSentinel.DEFAULT or isinstance(last.comma, cst.MaybeSentinel):
            args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            args.append(dtype)
        else:
            args.append(dtype.with_changes(comma=last.comma))
            args[-1 - 1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        self.report(node, f"{why}; the bool Scalar makes a bool tensor, which the integer {_INTEGER[literal]} with "
                          "dtype=torch.bool makes too", Fix({node: node.with_changes(args=args)}, safety=Safety.SAFE))

    def visit_Call(self, node: cst.Call) -> None:
        names = set(self.context.qualified_names(node.func))
        if names & {"torch.full", "torch.full_like"} and not any(a.star for a in node.args):
            self._full(node, names)
            return
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
            other = cst.UnaryOperation(cst.BitInvert(), _operand(mask.value)) if negate else mask.value
            if in_place:
                replacement: cst.BaseExpression = cst.Call(
                    cst.Attribute(receiver, cst.Name("bitwise_and_" if negate else "bitwise_or_")),
                    [cst.Arg(other)])
            else:
                operator = cst.BitAnd() if negate else cst.BitOr()
                combined = cst.BinaryOperation(_operand(receiver), operator, _operand(other),
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
