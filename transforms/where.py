"""``torch.where``: the three-argument select as an arithmetic blend (TRT102), and the
one-argument form, which is a ``nonzero`` (TRT103).

Matching goes through the file's imports (``torch.where``, ``th.where``,
``from torch import where``); a project's own ``where`` never matches. The method
form ``x.where(c, y)`` is not matched: its receiver cannot be resolved by name
(``DataFrame.where`` has the same spelling), and it is rare in model code.
"""

from __future__ import annotations

import ast
import math
import operator

import libcst as cst

from trtcodemod.astutil import (
    argument, children, float_value, has_star_args, keywords, method_call, parenthesize, strip_parens,
)
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled

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
    if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "float":
        if node.args and type(node.args[0].value) is cst.SimpleString:
            text = node.args[0].value.evaluated_value
            if isinstance(text, str) and text.strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):
                return True
    if type(node) is cst.Attribute and node.attr.value in ("inf", "nan", "NINF", "PINF", "NAN", "Inf", "NaN"):
        if rule.context.qualified_names(node) or (
            type(node.value) is cst.Name and node.value.value in ("math", "np", "numpy", "torch")
        ):
            return True
    if type(node) is cst.Float:
        value = float_value(node)
        if value is not None and math.isinf(value):
            return True  # 1e400
    return any(_is_nonfinite_literal(rule, child) for child in children(node))


#: Python number types a literal branch can have, as ``type(value)``.
_Number = bool | int | float | complex

_ARITHMETIC = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul, cst.Divide: operator.truediv,
    cst.FloorDivide: operator.floordiv, cst.Modulo: operator.mod, cst.Power: operator.pow,
}


def _number(node: cst.BaseExpression) -> _Number | None:
    """The Python number a literal branch is (``2``, ``-1.5``, ``True``, ``1j``, ``2 ** 8``), else None.

    Its Python type matters as much as its value: ``torch.where`` promotes a bool, int,
    float or complex scalar by its kind, so ``2`` and ``2.0`` give different dtypes.
    """
    if type(node) is cst.Integer:
        return _evaluated(node)
    if type(node) in (cst.Float, cst.Imaginary):
        return _evaluated(node)
    if type(node) is cst.Name and node.value in ("True", "False"):
        return node.value == "True"  # keywords: they cannot be rebound
    if type(node) is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
        inner = _number(node.expression)
        if inner is None:
            return None
        return -inner if type(node.operator) is cst.Minus else +inner
    if type(node) is cst.BinaryOperation and type(node.operator) in _ARITHMETIC:
        left, right = _number(node.left), _number(node.right)
        if left is None or right is None:
            return None
        if type(node.operator) is cst.Power and (not isinstance(right, (bool, int)) or abs(right) > 64
                                                      or abs(left) > 2 ** 16):
            return None  # keep the evaluation cheap: `10 ** 10 ** 10` is not a fill value
        try:
            return _ARITHMETIC[type(node.operator)](left, right)
        except (ArithmeticError, ValueError, TypeError):
            return None  # 1 / 0, 2 ** -1.5j...: leave it to run time
    return None


def _evaluated(node: cst.Integer | cst.Float | cst.Imaginary) -> _Number | None:
    try:
        value = ast.literal_eval(node.value)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, (int, float, complex)) else None


def _zero(value: _Number) -> bool:
    """A zero that adds nothing to any value's sign: ``0``, ``0.0``, ``False`` (never ``-0.0``)."""
    if isinstance(value, complex):
        return value == 0 and not math.copysign(1.0, value.real) < 0 and not math.copysign(1.0, value.imag) < 0
    return value == 0 and not math.copysign(1.0, float(value)) < 0


def _magnitude(value: _Number) -> float:
    return abs(value) if not isinstance(value, complex) else max(abs(value.real), abs(value.imag))


def _cheap(node: cst.BaseExpression) -> bool:
    """Pure and cheap to evaluate twice: names, attributes, constant subscripts, comparisons."""
    if type(node) in (cst.Name, cst.Integer, cst.Float, cst.SimpleString):
        return True
    if type(node) is cst.Attribute:
        return _cheap(node.value)
    if type(node) is cst.Subscript:
        if not _cheap(node.value):
            return False
        for element in node.slice:
            sl = element.slice
            if type(sl) is cst.Index:
                if not _cheap(sl.value):
                    return False
            elif type(sl) is cst.Slice:
                if any(part is not None and not _cheap(part) for part in (sl.lower, sl.upper, sl.step)):
                    return False
        return True
    if type(node) is cst.UnaryOperation:
        return type(node.operator) is not cst.Not and _cheap(node.expression)
    if type(node) is cst.BinaryOperation:
        return _cheap(node.left) and _cheap(node.right)
    if type(node) is cst.Comparison:
        return _cheap(node.left) and all(
            _cheap(c.comparator) and type(c.operator) not in (cst.In, cst.NotIn, cst.Is, cst.IsNot)
            for c in node.comparisons
        )
    if type(node) is cst.Call:
        parts = method_call(node)
        return (
            parts is not None
            and parts[1] in _CHEAP_METHODS
            and _cheap(parts[0])
            and not has_star_args(node)
            and all(arg.keyword is None and _cheap(arg.value) for arg in node.args)
        )
    return False


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
    needs_text = spelled("torch.where")
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

The rewrite (`~c` below is written `torch.logical_not(c)`):
- two tensor branches: `a * c + b * ~c`. Multiplying by the bool mask keeps each branch's
  own dtype (int stays int, half stays half), and the sum promotes like `torch.where`
  does; unlike the common `c.float() * a + (1 - c.float()) * b`, integer results stay
  integers and half precision is not widened to float32;
- a number written in the call (`0.0`, `-1`, `True`, `1j`, `2 ** 8`) and a tensor held in
  a name or attribute: `torch.where(m, x, -1)` → `x * m + (~m).to(x.dtype) * (-1)`; the
  mask cast to the tensor's dtype meets the number exactly as the tensor does, so the
  dtype is `torch.where`'s (`torch.result_type(x, -1)`: an int tensor with `2.5` gives the
  default float, a half tensor with `2.5` stays half, a bool tensor with `1` is int64);
- a zero selected by `~c` and any tensor expression: `torch.where(m, 0.0, x)` →
  `x * ~m + 0.0` (adding the number as written promotes as `torch.where` does);
- two numbers: `torch.where(m, 2.5, -1)` → `m * 2.5 + ~m * (-1)`: a bool tensor times a
  Python number has that number's default dtype (bool, int64, the default float or complex
  dtype) and the condition's shape, and the sum is what `torch.where` gives for two
  scalars (the default float for `2.5` and `-1`, int64 for `1` and `0`, bool for `True`
  and `False`);
- the condition appears twice, so it is rewritten only when it is cheap and pure to repeat
  (a name, an attribute, a comparison of those, `.bool()`/`.isnan()`...); otherwise assign
  it to a name first. A number with a tensor branch that is not a name (`x * 2`) is
  reported too (its dtype is needed): assign the branch to a name first.

Fix safety: unsafe. What the rewritten code keeps and where it differs from `torch.where`:
- Values: the same wherever the branch that is not selected is finite. The blend evaluates
  and multiplies both branches, and `inf * 0` and `nan * 0` are NaN, so an inf/NaN in the
  unselected branch (a `0/0` IoU, a `-inf` fill, a `log(0)`) becomes NaN in the result. In
  float16, any value above 65504 is `inf`: fills that are infinite or beyond the float16
  range are reported without a fix, and a branch that divides or takes a `log`/`sqrt` (the
  classic `torch.where(union > 0, inter / union, 0)` guard) is rewritten with a warning in
  the message: the guard no longer protects anything. Signed zeros: a selected `-0.0` (a
  value or a `-0.0` fill) comes out as `+0.0` unless the value not selected is negative
  (`-0.0 + 0.0` is `+0.0`). An int number out of an integer tensor's range
  (`torch.where(m, int8_x, 1000)`) raises in `torch.where` and wraps around in the blend.
  A uint8 condition (deprecated, accepted by `torch.where`) holding values other than 0
  and 1 scales the selected branch. Cost: 3 to 5 elementwise operations instead of one,
  and the condition is computed twice.
- Dtype and shape: the shape is the broadcast of the condition and both branches, as in
  `torch.where`, and so is the dtype for number literals (above) and for two tensors of
  the same dimensionality. It differs for a 0-d tensor branch joined with a dimensioned
  one of the same kind (`torch.where` keeps the dimensioned one's dtype: int32 with a 0-d
  int64 tensor is int32, the sum is int64); for a branch that is a Python number held in a
  name or made by a call (`fill`, `math.pi`, `float(s)`), which the rewrite cannot tell
  from a tensor (`fill * c` is a float32 or int64 tensor, so a float16, bfloat16 or
  narrower int tensor on the other side is widened; `torch.where` would keep it); and for
  a uint8 condition with an integer or bool branch (int8 with uint8 gives int16).
- Gradients: the same as `torch.where`'s: each branch receives the upstream gradient where
  it is selected and zeros where it is not, and `requires_grad` is the same. A `sqrt`,
  `log` or division inside a branch gives NaN gradients where it is not selected with
  `torch.where` too (`0 * inf` in its backward); the blend adds two differences: where the
  forward value became NaN (above) the loss does, and an inf/NaN upstream gradient gives
  the unselected branch NaN (`inf * 0`) where `torch.where` gives it 0. The zeros the
  unselected branch receives are `g * 0`: `-0.0` where the upstream gradient `g` is
  negative, where `torch.where` gives `+0.0`.
- Aliasing: none to keep: `torch.where` always returns a new tensor, and so does the
  blend.
- Exceptions: a Python bool or int condition raises `TypeError` as in `torch.where` (from
  `torch.logical_not`). A float or integer tensor condition raises `RuntimeError` in
  `torch.where`; the blend multiplies by its values and raises nothing. Branch shapes that
  do not broadcast raise in both. Both branches are evaluated in both (they are
  arguments).
- Toolchains: only tensor operators, `.to` and `torch.logical_not`: the rewritten
  expression scripts, fx-traces, compiles and exports wherever `torch.where` did, with
  two exceptions. A bool number (`torch.where(m, x, True)`) fails the TorchScript ONNX
  exporter before and after (it has no `where` or `mul` taking a Python bool); the dynamo
  exporter takes both. A branch that is a number computed from a dynamic size
  (`torch.where(y >= h - 1, h - 1, y + 1)` with `h` from `x.shape`, torchvision's
  RoIAlign) is a symbolic number to the dynamo exporter with dynamic axes, and its
  `aten_mul_scalar` cannot multiply the mask by one (ConversionError); `torch.where`
  exports there. The TorchScript exporter takes both.

Which TensorRT versions: `Where` is parsed by every TensorRT in the support table
(8.4 to 10.x); the rewrite is for older releases and for engine builds that still fail on
it.""",
        fix=Safety.UNSAFE,
        assumption="the branch that is not selected is finite: an inf or NaN there becomes NaN in the blend",
        # Every TensorRT of the support table parses Where: below 8.4 only (or select it and
        # give an older --target when an engine build still fails on it).
        needed_before=(8, 4),
        examples=(
            Example(
                "boxes = torch.where(keep[:, None], refined, anchors)\n",
                "boxes = refined * keep[:, None] + anchors * torch.logical_not(keep[:, None])\n",
                unsafe=True,
            ),
            Example(
                "scores = torch.where(scores > thresh, scores, 0.0)\n",
                "scores = scores * (scores > thresh) + torch.logical_not(scores > thresh).to(scores.dtype) * 0.0\n",
                unsafe=True,
            ),
            Example(
                "ids = torch.where(matched, track_ids, -1)\n",
                "ids = track_ids * matched + torch.logical_not(matched).to(track_ids.dtype) * (-1)\n",
                unsafe=True,
            ),
            Example(
                "level = torch.where(near, 2.5, -1)\n",
                "level = near * 2.5 + torch.logical_not(near) * (-1)\n",
                unsafe=True,
            ),
            # The number needs the dtype of `logits * 2`, which is not a name: assign it first.
            Example("logits = torch.where(valid, logits * 2, -1.5)\n"),
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
            if value is not None and not _finite(value):
                self.report(node, message + "; not rewritten: an infinite or NaN branch turns the blend into NaN "
                            "(inf * 0 is NaN)")
                return
            if value is not None and _magnitude(value) > _FP16_MAX:
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
        """The blend, or None when a number branch would need a tensor branch's dtype it cannot read.

        Every form multiplies by ``torch.logical_not(cond)`` somewhere: it raises the
        ``TypeError`` that ``torch.where`` raises for a Python bool/int condition, where
        ``~cond`` or ``cond.logical_not()`` would compute garbage or raise another error.
        """
        na, nb = _number(a), _number(b)
        cond = parenthesize(cond)
        not_cond = cst.Call(func=self.context.torch_attr("logical_not"), args=[cst.Arg(strip_parens(cond))])
        if na is None and nb is None:
            # The sum promotes like torch.where (but for the 0-d corner in the doc).
            return _add(_mul(a, cond), _mul(b, not_cond))
        if na is not None and nb is not None:
            # `bool tensor * number` has the number's default dtype (bool, int64, the default
            # float or complex), and the sum of two such is torch.where's result_type of the
            # two scalars; the shape is the condition's. The tensor goes first: TorchScript
            # reads `True * m` as a Python bool times a number and fails.
            return _add(_mul(cond, a), _mul(not_cond, b))
        if nb is not None:
            tensor, number, mask, other_mask = a, b, cond, not_cond
        else:
            tensor, number, mask, other_mask = b, a, not_cond, cond
        if mask is not_cond and _zero(nb if nb is not None else na):
            # `t * ~c + 0`: adding the number as written promotes like torch.where does with
            # a number (an int tensor and 0.0 give the default float), and turns the -0.0 of
            # a masked negative value into the +0.0 torch.where writes.
            return _add(_mul(tensor, mask), number)
        if type(tensor) in (cst.Name, cst.Attribute) and _cheap(tensor):
            # `mask.to(t.dtype) * number` is exactly torch.result_type(t, number): a tensor
            # of t's dtype meets the Python number as t does, whatever t's shape.
            return _add(_mul(tensor, mask), _mul(_mask_as(other_mask, tensor), number))
        return None



def _finite(value: _Number) -> bool:
    if isinstance(value, complex):
        return math.isfinite(value.real) and math.isfinite(value.imag)
    return math.isfinite(value)


_NONFINITE_OPS = frozenset({
    "div", "divide", "true_divide", "floor_divide", "remainder", "fmod", "log", "log2", "log10", "log1p",
    "sqrt", "rsqrt", "reciprocal", "exp", "exp2", "expm1", "pow", "acos", "asin", "atanh", "acosh", "tan",
})
_NONFINITE_OPERATORS = {cst.Divide: "/", cst.FloorDivide: "//", cst.Modulo: "%", cst.Power: "**"}


def _may_be_nonfinite(node: cst.CSTNode) -> str | None:
    """An operation in ``node`` that can turn finite inputs into inf/NaN (``/``, ``log``...)."""
    if type(node) is cst.BinaryOperation and type(node.operator) in _NONFINITE_OPERATORS:
        return _NONFINITE_OPERATORS[type(node.operator)]
    if type(node) is cst.Call:
        func = node.func
        name = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else None
        if name in _NONFINITE_OPS:
            return name
    for child in children(node):
        found = _may_be_nonfinite(child)
        if found:
            return found
    return None


class WhereNonzero(Rule):
    needs_text = spelled("torch.where")
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
