"""``torch.cumsum`` of an integer or bool tensor (TRT334): TensorRT's CumSum takes floats only.

The rewrite calls an inserted helper (``trtcodemod/helpers/cumulative.py``) that is
``torch.cumsum`` outside an export and, while exporting, sums an int32 or int64 result in float32
and casts it back. Which calls are integer sums is a fact about dtypes: the rule reports a call
whose input the code shows to be integers or bools (a cast such as ``.int()``, a comparison, a
mask operator, ``dtype=`` an integer type), and, with a recorded run (``migrate``, ``--facts``), a
call at whose line the graph check located an integer CumSum. A float ``cumsum`` is never reported.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, method_call
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import torch_operator_call
from trtcodemod.transforms._tensor_evidence import TensorEvidence

HELPER = "_trt_cumsum"
RULE = "TRT334"

#: torch's integer and bool dtypes, by the names ``torch.<name>`` spells them.
_INTEGER_DTYPES = frozenset({"bool", "uint8", "int8", "int16", "short", "int32", "int", "int64", "long"})
#: Of those, the results the helper sums in float32 when ``dtype=`` asks for them.
_SUMMED_DTYPES = frozenset({"int32", "int", "int64", "long"})
#: Tensor methods whose result is an integer or bool tensor whatever the receiver's dtype.
_INTEGER_METHODS = frozenset({
    "int", "long", "bool", "short", "byte", "char", "ne", "eq", "gt", "ge", "lt", "le", "logical_and",
    "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite", "isposinf", "isneginf",
    "argmax", "argmin", "argsort",
})
#: The same as torch functions.
_INTEGER_FUNCTIONS = tuple(f"torch.{name}" for name in (
    "ne", "eq", "gt", "ge", "lt", "le", "logical_and", "logical_or", "logical_xor", "logical_not", "isnan",
    "isinf", "isfinite", "isposinf", "isneginf", "argmax", "argmin", "argsort", "isin"))
#: How many assignments back a name is followed (``mask = ids.ne(pad).int()``, then the cumsum).
_DEPTH = 3


class IntegerCumsum(Rule):
    needs_text = (b"cumsum",)
    requires = (TensorEvidence, ObservedFacts)
    info = RuleInfo(
        id=RULE,
        name="integer-cumsum",
        summary="`torch.cumsum` of an integer or bool tensor exports a CumSum TensorRT refuses (floats only); "
                "sum in float32 while exporting",
        doc="""\
What it finds: `torch.cumsum(x, dim)` and `x.cumsum(dim)`, `dim` by position or keyword, where
`x` is an integer or bool tensor: the code shows it (`x` is, or a local name is assigned once,
a cast such as `.int()`, `.long()`, `.bool()` or `.to(torch.long)`, a comparison, `~`, `&` or
`|`, `.ne(...)`/`.eq(...)`/`.gt(...)`..., a call with `dtype=` an integer type) or the call asks
for `dtype=torch.long`/`torch.int32`. With a recorded run (`migrate`, or `check --facts`), also
a call at whose line the graph check of the export located an integer CumSum (an input mask
`attention_mask.cumsum(-1)` whose dtype the code does not show). A float `cumsum` is not
reported: TensorRT takes it. A method call cannot be resolved by name; receivers that are
modules (`np`, `torch`, `self`) are left alone, and the helper calls a non-tensor's own method.

Why it hurts: TensorRT's CumSum takes FP32, FP16 and BF16 only (the parser's operator table),
and torch exports the cumulative sum of a bool or integer tensor as a CumSum of that type, so
the engine does not build; ONNX Runtime does not even load a CumSum of bool. Position ids are
made this way in every RoBERTa-family model of transformers
(`create_position_ids_from_input_ids`: `mask = input_ids.ne(padding_idx).int()`, then
`torch.cumsum(mask, dim=1).type_as(mask)`), in ESM, Longformer, XLM-R, CamemBERT and more, and
from an attention mask as `attention_mask.long().cumsum(-1) - 1`; kornia's DISK counts tied
keypoints with `torch.cumsum(tied, 0)` on a bool mask.

The rewrite: `torch.cumsum(mask, dim=1)` → `_trt_cumsum(mask, 1)` (`_trt_cumsum(x, d, dtype)`
with a `dtype=`), an inserted helper. Outside `torch.onnx.export` it is `torch.cumsum` itself.
While exporting, where torch's result is int32 or int64 (a bool or integer input, or `dtype=`
one of those) it casts the input to `dtype` if given, then to float32, sums (a CumSum of
float32) and casts to the dtype torch returns (int64 for bool and integer inputs unless `dtype=`
says otherwise). Float results, complex ones and narrow integer ones (`dtype=torch.uint8`, which
wrap) keep `torch.cumsum`. A call with `out=` or unpacked arguments is reported without a fix.

Fix safety: unsafe. Eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and
`torch.export` run `torch.cumsum` itself, bit for bit. The exported graph is exact while every
element and every partial sum is an integer of magnitude at most 2**24 (16,777,216), float32's
exact integers: true of position ids, token counts and mask counts along any real sequence;
beyond it the graph's sums round. `migrate` applies it where the graph check located an integer
CumSum, and keeps it only when the rewritten model is verified equivalent on every input set.

TensorRT versions: all (CumSum is parsed from 8.4, floats only).""",
        fix=Safety.UNSAFE,
        assumption=("every element and partial sum of the integer cumulative sum is an integer of magnitude at most "
                    "2**24, so float32 holds it exactly while exporting"),
        fails_when=(
            "partial sums beyond 2**24 (counts over more than 16 million elements, large ids summed): the "
            "graph's float32 sums round",
            "int64 elements beyond 2**24 in magnitude: the cast to float32 rounds them",
        ),
        examples=(
            Example(
                "def position_ids(input_ids, padding_idx):\n"
                "    mask = input_ids.ne(padding_idx).int()\n"
                "    return (torch.cumsum(mask, dim=1).type_as(mask)) * mask + padding_idx\n",
                "def position_ids(input_ids, padding_idx):\n"
                "    mask = input_ids.ne(padding_idx).int()\n"
                "    return (_trt_cumsum(mask, 1).type_as(mask)) * mask + padding_idx\n",
                unsafe=True,
            ),
            Example("positions = attention_mask.long().cumsum(-1) - 1\n",
                    "positions = _trt_cumsum(attention_mask.long(), -1) - 1\n", unsafe=True),
            Example("counts = torch.cumsum(scores > 0, 0, dtype=torch.int32)\n",
                    "counts = _trt_cumsum(scores > 0, 0, torch.int32)\n", unsafe=True),
            Example("running = torch.cumsum(mask.bool(), dim=0, out=buffer)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.cumsum.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
            "https://github.com/huggingface/transformers/blob/main/src/transformers/models/roberta/modeling_roberta.py",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._evidence: TensorEvidence = self.provider(TensorEvidence)
        self._observed: ObservedFacts = self.provider(ObservedFacts)

    def visit_Call(self, node: cst.Call) -> None:
        found = torch_operator_call(self, node, ("cumsum",))
        if found is None:
            return
        _, tensor, first = found
        dim = argument(node, first, "dim")
        dtype = argument(node, None, "dtype")
        dtype_name = self._dtype_name(dtype.value) if dtype is not None else None
        if dtype is not None and dtype_name is None and not self._located(node):
            return  # a dtype the code does not spell: its sum may be a float one
        if dtype_name is not None and dtype_name not in _INTEGER_DTYPES:
            return  # a float (or complex) result: TensorRT takes it
        shown = dtype_name in _INTEGER_DTYPES or (tensor is not None and dtype is None
                                                 and self._integer(tensor.value, _DEPTH))
        if not shown and not self._located(node):
            return
        message = ("`cumsum` of an integer or bool tensor exports an integer CumSum, which TensorRT does not take "
                   "(FP32/FP16/BF16 only)")
        others = {arg.keyword.value for arg in node.args if arg.keyword is not None} - {"input", "dim", "dtype"}
        positional = [arg for arg in node.args if arg.keyword is None]
        if (has_star_args(node) or tensor is None or dim is None or others or len(positional) > first + 1
                or (dtype_name is not None and dtype_name not in _SUMMED_DTYPES)):
            self.report(node, f"{message}; sum in float32 and cast back while exporting (not rewritten: unpacked, "
                        "missing or other arguments, or a narrow integer dtype)")
            return
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args = [cst.Arg(value=tensor.value, comma=comma), cst.Arg(value=dim.value)]
        if dtype is not None:
            args[-1] = args[-1].with_changes(comma=comma)
            args.append(cst.Arg(value=dtype.value))
        self.report(node, f"{message}; sum in float32 and cast back while exporting (`torch.cumsum` otherwise; "
                    "exact while the partial sums stay within 2**24)",
                    Fix({node: cst.Call(func=cst.Name(HELPER), args=args)}, safety=Safety.UNSAFE, helpers=(HELPER,)))

    # --- evidence ------------------------------------------------------------------------------
    def _located(self, node: cst.Call) -> bool:
        """The graph check of a recorded export located an integer CumSum at this call's lines."""
        return self._observed.located(node, RULE)

    def _dtype_name(self, expr: cst.BaseExpression) -> str | None:
        """``torch.long`` → ``"long"`` (through the file's imports), else None."""
        qualified = self.context.qualified_names(expr)
        for name in sorted(qualified):
            if name.startswith("torch.") and name.count(".") == 1:
                return name.split(".", 1)[1]
        return None

    def _integer_dtype(self, expr: cst.BaseExpression | None) -> bool:
        return expr is not None and self._dtype_name(expr) in _INTEGER_DTYPES

    def _integer(self, expr: cst.BaseExpression, depth: int) -> bool:
        """Does the code show ``expr`` to be an integer or bool tensor?"""
        if isinstance(expr, cst.Comparison):
            return True
        if isinstance(expr, cst.UnaryOperation):
            return isinstance(expr.operator, cst.BitInvert)
        if isinstance(expr, cst.BinaryOperation):
            return isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor))
        if isinstance(expr, cst.Name):
            values = self._evidence.bindings().get(expr.value, [])
            return depth > 0 and len(values) == 1 and values[0] is not None and self._integer(values[0], depth - 1)
        if not isinstance(expr, cst.Call):
            return False
        if self._integer_dtype(next((a.value for a in expr.args if a.keyword and a.keyword.value == "dtype"), None)):
            return True  # torch.ones_like(x, dtype=torch.long), x.sum(dtype=torch.int32)...
        if self.context.refers_to(expr.func, *_INTEGER_FUNCTIONS):
            return True
        parts = method_call(expr)
        if parts is None or self.context.qualified_names(parts[0]):
            return False
        receiver, name = parts
        if name in _INTEGER_METHODS:
            return True
        if name in ("to", "type"):
            target = argument(expr, 0, "dtype")
            return target is not None and self._integer_dtype(target.value)
        if name in ("clone", "contiguous", "detach", "flip", "roll", "transpose", "permute", "view", "reshape",
                    "unsqueeze", "squeeze", "expand", "repeat", "t"):
            return self._integer(receiver, depth)  # the receiver's dtype, moved around
        return False


RULES = (IntegerCumsum,)
