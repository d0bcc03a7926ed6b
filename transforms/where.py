"""``torch.where``: the three-argument select as an arithmetic blend (TRT102), and the
one-argument form, which is a ``nonzero`` (TRT103).

Matching goes through the file's imports (``torch.where``, ``th.where``,
``from torch import where``); a project's own ``where`` never matches. The method
form ``x.where(c, y)`` is not matched: its receiver cannot be resolved by name
(``DataFrame.where`` has the same spelling), and it is rare in model code.
"""

from __future__ import annotations

import math

import libcst as cst

from trtcodemod.astutil import argument, children, float_value, has_star_args, keywords, method_call, parenthesize
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety

_REFERENCES = (
    "https://pytorch.org/docs/stable/generated/torch.where.html",
    "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
    "https://pytorch.org/docs/stable/generated/torch.nonzero.html",
)

#: Largest finite float16 value: a fill value beyond it is inf in half precision.
_FP16_MAX = 65504.0

#: Methods whose result is a bool tensor: evidence that ``~c`` is a logical not.
_BOOL_METHODS = frozenset({
    "bool", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "logical_not", "logical_and",
    "logical_or", "logical_xor", "eq", "ne", "gt", "ge", "lt", "le", "any", "all", "isclose",
})

#: Cheap, side-effect-free methods a repeated condition/branch may call.
_CHEAP_METHODS = _BOOL_METHODS | {"float", "half", "int", "long", "double", "abs", "detach"}


def _is_nonfinite_literal(rule: Rule, node: cst.CSTNode) -> bool:
    """``float('inf')``, ``math.inf``, ``torch.nan``, ``np.inf``... anywhere inside ``node``."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "float":
        if node.args and isinstance(node.args[0].value, cst.SimpleString):
            text = node.args[0].value.evaluated_value
            if isinstance(text, str) and text.strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):
                return True
    if isinstance(node, cst.Attribute) and node.attr.value in ("inf", "nan", "NINF", "PINF", "NAN", "Inf", "NaN"):
        if rule.context.qualified_names(node) or (
            isinstance(node.value, cst.Name) and node.value.value in ("math", "np", "numpy", "torch")
        ):
            return True
    if isinstance(node, cst.Float):
        value = float_value(node)
        if value is not None and math.isinf(value):
            return True  # 1e400
    return any(_is_nonfinite_literal(rule, child) for child in children(node))


def _number(node: cst.BaseExpression) -> float | None:
    """The value of a numeric literal (``2``, ``-1.5``), else None."""
    return float_value(node)


def _is_float_literal(node: cst.BaseExpression) -> bool:
    while isinstance(node, cst.UnaryOperation):
        node = node.expression
    return isinstance(node, cst.Float)


def _cheap(node: cst.BaseExpression) -> bool:
    """Pure and cheap to evaluate twice: names, attributes, constant subscripts, comparisons."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(node, cst.Attribute):
        return _cheap(node.value)
    if isinstance(node, cst.Subscript):
        if not _cheap(node.value):
            return False
        for element in node.slice:
            sl = element.slice
            if isinstance(sl, cst.Index):
                if not _cheap(sl.value):
                    return False
            elif isinstance(sl, cst.Slice):
                if any(part is not None and not _cheap(part) for part in (sl.lower, sl.upper, sl.step)):
                    return False
        return True
    if isinstance(node, cst.UnaryOperation):
        return not isinstance(node.operator, cst.Not) and _cheap(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return _cheap(node.left) and _cheap(node.right)
    if isinstance(node, cst.Comparison):
        return _cheap(node.left) and all(
            _cheap(c.comparator) and not isinstance(c.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot))
            for c in node.comparisons
        )
    if isinstance(node, cst.Call):
        parts = method_call(node)
        return (
            parts is not None
            and parts[1] in _CHEAP_METHODS
            and _cheap(parts[0])
            and not has_star_args(node)
            and all(arg.keyword is None and _cheap(arg.value) for arg in node.args)
        )
    return False


def _evidently_bool(node: cst.BaseExpression) -> bool:
    """The expression is a bool tensor by construction (comparison, ``~m``, ``isnan``...)."""
    if isinstance(node, cst.Comparison):
        return all(not isinstance(c.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)) for c in node.comparisons)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
        return _evidently_bool(node.expression)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _evidently_bool(node.left) and _evidently_bool(node.right)
    if isinstance(node, cst.Call):
        parts = method_call(node)
        return parts is not None and parts[1] in _BOOL_METHODS
    return False


def _negated(cond: cst.BaseExpression) -> cst.BaseExpression:
    """``~c`` for a bool condition; ``c.logical_not()`` when it may be a (deprecated) uint8 mask."""
    if _evidently_bool(cond):
        return cst.UnaryOperation(operator=cst.BitInvert(), expression=parenthesize(cond))
    return cst.Call(func=cst.Attribute(value=parenthesize(cond), attr=cst.Name("logical_not")))


def _mul(left: cst.BaseExpression, right: cst.BaseExpression) -> cst.BinaryOperation:
    return cst.BinaryOperation(
        left=parenthesize(left), operator=cst.Multiply(), right=parenthesize(right)
    )


def _add(left: cst.BaseExpression, right: cst.BaseExpression) -> cst.BinaryOperation:
    return cst.BinaryOperation(left=left, operator=cst.Add(), right=right)


def _mask_as(mask: cst.BaseExpression, like: cst.BaseExpression) -> cst.Call:
    """``mask.to(like.dtype)``."""
    return cst.Call(
        func=cst.Attribute(value=parenthesize(mask), attr=cst.Name("to")),
        args=[cst.Arg(cst.Attribute(value=parenthesize(like), attr=cst.Name("dtype")))],
    )


class WhereToBlend(Rule):
    info = RuleInfo(
        id="TRT102",
        name="where-to-blend",
        summary="`torch.where(c, a, b)` → `a * c + b * ~c` (no `Where` node); unsafe: inf/NaN in the unused branch leak",
        doc="""\
What it finds: the three-argument `torch.where(c, a, b)` (positional or with the keywords
`condition=`, `input=`, `other=`).

Why it hurts: older TensorRT releases and some engine builds reject the ONNX `Where` node
or the conditional layer made from it, and TensorRT's `Where` takes no INT8/UINT8
operands. A multiply-and-add blend uses only Cast, Not, Mul and Add, which every release
supports. TensorRT 8.4 and later parse `Where` (see the support table), so on a current
release keep `torch.where` unless an engine build fails on it: this rewrite is a fallback.

The rewrite:
- two tensor branches: `a * c + b * ~c`. Multiplying by the bool mask keeps each
  branch's own dtype (int stays int, half stays half), and the sum promotes like
  `torch.where` does; unlike the common `c.float() * a + (1 - c.float()) * b`, integer
  results stay integers and half precision is not widened to float32;
- a zero literal branch: `torch.where(m, x, 0.0)` → `x * m + 0.0`: adding the number as
  written gives the dtype `torch.where` gives (an int tensor with `0.0` is float32) and
  turns the `-0.0` of a masked negative value into the `+0.0` `torch.where` writes;
- another number: `torch.where(m, x, -1)` → `x * m + (~m).to(x.dtype) * (-1)`, so the fill
  takes the tensor's dtype as in `torch.where` (only when `x` is a plain name or
  attribute, which can be repeated for free);
- the condition appears twice, so it is rewritten only when it is cheap and pure to
  repeat (a name, an attribute, a comparison of those, `.bool()`/`.isnan()`...); otherwise
  assign it to a name first. `~c` is written `c.logical_not()` when nothing shows `c` is a
  bool tensor (a deprecated uint8 mask would turn `~` into a bitwise not).

Fix safety: unsafe. The blend evaluates and multiplies both branches, so it equals
`torch.where` only when the branch that is not selected is finite: `inf * 0` and
`nan * 0` are NaN, so an `inf`/NaN in the unused branch (a `0/0` IoU, a `-inf` fill, a
`log(0)`) leaks into the result. In float16, any value above 65504 is `inf`: a large
fill such as `-1e9` overflows, so fills that are infinite or beyond the float16 range are
reported without a fix, and a branch that divides or takes a `log`/`sqrt` (the classic
`torch.where(union > 0, inter / union, 0)` guard) is rewritten with a warning in the
message: the guard no longer protects anything. Signed zeros may change
(a selected `-0.0` plus the other branch's `+0.0` is `+0.0`; an unselected negative
value times 0 is `-0.0`). Dtype promotion differs in corner cases: a 0-d tensor branch
joined with a dimensioned one of the same kind (`torch.where` keeps the dimensioned one's
dtype, the sum may widen), a Python-number variable branch (it becomes float32/int64),
and uint8 masks holding values other than 0 and 1.

Which TensorRT versions: `Where` is parsed by every TensorRT in the support table
(8.4 to 10.x); the rewrite is for older releases and for engine builds that still fail on
it.""",
        fix=Safety.UNSAFE,
        examples=(
            Example(
                "boxes = torch.where(keep[:, None], refined, anchors)\n",
                "boxes = refined * keep[:, None] + anchors * keep[:, None].logical_not()\n",
                unsafe=True,
            ),
            Example(
                "scores = torch.where(scores > thresh, scores, 0.0)\n",
                "scores = scores * (scores > thresh) + 0.0\n",
                unsafe=True,
            ),
            Example(
                "ids = torch.where(matched, track_ids, -1)\n",
                "ids = track_ids * matched + matched.logical_not().to(track_ids.dtype) * (-1)\n",
                unsafe=True,
            ),
            # The fill is -inf: the blend would be NaN everywhere, so no fix.
            Example("logits = torch.where(valid, logits, float('-inf'))\n"),
        ),
        references=_REFERENCES,
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not self.context.refers_to(node.func, "torch.where"):
            return
        cond_arg = argument(node, 0, "condition")
        a_arg = argument(node, 1, "input")
        b_arg = argument(node, 2, "other")
        if a_arg is None and b_arg is None and not has_star_args(node):
            return  # one-argument form: TRT103
        message = "torch.where exports as an ONNX `Where`"
        if has_star_args(node) or cond_arg is None or a_arg is None or b_arg is None or "out" in keywords(node):
            self.report(node, message + "; not rewritten: the arguments are not all visible")
            return
        cond, a, b = cond_arg.value, a_arg.value, b_arg.value
        if _is_nonfinite_literal(self, a) or _is_nonfinite_literal(self, b):
            self.report(node, message + "; not rewritten: an infinite or NaN branch turns the blend into NaN "
                        "(inf * 0 is NaN)")
            return
        for value in (_number(a), _number(b)):
            if value is not None and abs(value) > _FP16_MAX:
                self.report(node, message + "; not rewritten: the fill value overflows float16 (inf), and "
                            "inf * 0 is NaN in the blend")
                return
        if not _cheap(cond):
            self.report(node, message + "; assign the condition to a name first, then the blend can reuse it")
            return
        replacement = self._blend(cond, a, b)
        if replacement is None:
            self.report(node, message + "; a number branch needs the other branch's dtype: assign that branch "
                        "to a name first")
            return
        risky = _may_be_nonfinite(a) or _may_be_nonfinite(b)
        if risky:
            message += (f"; blend the branches with the mask instead, but check the guard: a branch uses "
                        f"`{risky}`, and an inf/NaN it produces where not selected leaks into the blend")
        else:
            message += "; blend the branches with the mask instead"
        self.report(node, message, Fix({node: replacement}, safety=Safety.UNSAFE))

    def _blend(self, cond: cst.BaseExpression, a: cst.BaseExpression, b: cst.BaseExpression) -> cst.BaseExpression | None:
        na, nb = _number(a), _number(b)
        cond = parenthesize(cond)
        not_cond = _negated(cond)
        if na is None and nb is None:
            return _add(_mul(a, cond), _mul(b, not_cond))
        if na is not None and nb is not None:
            # Both numbers: bool * number is int64 or the default float, as in torch.where.
            if nb == 0 and (not _is_float_literal(b) or _is_float_literal(a)) and not _negative_zero(b):
                return _mul(a, cond)
            if na == 0 and (not _is_float_literal(a) or _is_float_literal(b)) and not _negative_zero(a):
                return _mul(b, not_cond)
            return _add(_mul(a, cond), _mul(b, not_cond))
        # One tensor branch, one number.
        tensor, number, mask, other_mask = (a, b, cond, not_cond) if nb is not None else (b, a, not_cond, cond)
        if float_value(number) == 0 and not _negative_zero(number):
            # Adding the zero as written promotes like torch.where does with a number
            # (int tensor + 0.0 is float) and turns the -0.0 of a masked negative into +0.0.
            return _add(_mul(tensor, mask), number)
        if not isinstance(tensor, (cst.Name, cst.Attribute)) or not _cheap(tensor):
            return None
        return _add(_mul(tensor, mask), _mul(_mask_as(other_mask, tensor), number))


_NONFINITE_OPS = frozenset({
    "div", "divide", "true_divide", "floor_divide", "remainder", "fmod", "log", "log2", "log10", "log1p",
    "sqrt", "rsqrt", "reciprocal", "exp", "exp2", "expm1", "pow", "acos", "asin", "atanh", "acosh", "tan",
})
_NONFINITE_OPERATORS = {cst.Divide: "/", cst.FloorDivide: "//", cst.Modulo: "%", cst.Power: "**"}


def _may_be_nonfinite(node: cst.CSTNode) -> str | None:
    """An operation in ``node`` that can turn finite inputs into inf/NaN (``/``, ``log``...)."""
    if isinstance(node, cst.BinaryOperation) and type(node.operator) in _NONFINITE_OPERATORS:
        return _NONFINITE_OPERATORS[type(node.operator)]
    if isinstance(node, cst.Call):
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
        if name in _NONFINITE_OPS:
            return name
    for child in children(node):
        found = _may_be_nonfinite(child)
        if found:
            return found
    return None


def _negative_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and float_value(node) == 0


class WhereNonzero(Rule):
    info = RuleInfo(
        id="TRT103",
        name="where-nonzero",
        summary="one-argument `torch.where(c)` is `nonzero`: a data-dependent output shape (ONNX `NonZero`)",
        doc="""\
What it finds: `torch.where(c)` with only a condition.

Why it hurts: it is `torch.nonzero(c, as_tuple=True)`: the number of indices it returns
depends on the values in `c`, so the graph gets an ONNX `NonZero` node and every tensor
after it has a data-dependent shape. TensorRT before 8.5 has no `NonZero`; later
releases parse it, but a data-dependent shape forces output-size allocation at run time,
blocks many optimizations and is slow.

What to do (not rewritten: the shape of the result changes, so the code after it must
change too):
- keep fixed shapes: select a fixed number of candidates with `torch.topk` on the scores
  and carry the mask as a multiplier (`scores * keep`) instead of compacting;
- keep the mask and use it where the indices were used (`torch.where(c, a, b)`, blends);
- when indices are really needed, build them from the mask with fixed-size operations
  (a cumulative sum of `c.long()` gives each selected element its output slot).

Which TensorRT versions: all; required before 8.5 (no `NonZero`), advisable after.""",
        fix=Safety.NONE,
        examples=(
            Example("rows, cols = torch.where(iou > 0.5)\n"),
            Example("keep = torch.where(scores > thresh)[0]\n"),
        ),
        references=_REFERENCES,
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not self.context.refers_to(node.func, "torch.where") or has_star_args(node):
            return
        if len(node.args) == 1 and argument(node, 0, "condition") is not None:
            self.report(node, "torch.where(c) is nonzero(c, as_tuple=True): ONNX `NonZero` gives a data-dependent "
                        "shape (unsupported before TensorRT 8.5, slow after); keep the mask or use a fixed-size "
                        "top-k")


RULES = (WhereToBlend, WhereNonzero)
