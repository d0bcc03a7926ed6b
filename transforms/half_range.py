"""``torch.arange(..., dtype=torch.float16)``: the exported ``Range`` is float16, which ONNX Runtime refuses (TRT739).

ONNX's ``Range`` takes float16 and bfloat16 in its specification, but ONNX Runtime implements it only for float,
double and the integer types, so a graph holding a half-precision ``Range`` does not load at all ("Type
'tensor(float16)' ... of operator (Range) is invalid"); TensorRT before 10 takes a float ``Range`` only where its
bounds are constants. A prior grid built that way (nemotron-ocr's FOTS detector: ``torch.arange(0,
output_shape[1], dtype=torch.float16)``), or one built in the features' dtype of a model run in half precision
(``torch.arange(end=w, dtype=x.dtype)``), stops the verification there. Counting in the type the arguments give and
casting after, ``torch.arange(0, w).to(torch.float16)``, exports an integer ``Range`` and a ``Cast``.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import code_of, has_star_args, int_value
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

_ARANGE = ("torch.arange",)
_HALF_TYPES = ("torch.float16", "torch.half", "torch.bfloat16")
#: The largest magnitude up to which every integer is exact in the type: past it torch's half-precision ``arange``
#: rounds its own steps (it counts in the narrow type), where the cast rounds the exact integer once.
_EXACT_UP_TO = {"float16": 2048, "bfloat16": 256}
#: The keywords a call may carry: any other (``out=``, ``requires_grad=``, ``layout=``) changes what the cast returns.
_KEYWORDS = {"start", "end", "step", "dtype", "device"}


def _bounds(call: cst.Call) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None] | None:
    """``(start, step)`` of an ``arange`` call (None where not given), or None where the call's arguments are not the
    plain ``(end)``, ``(start, end)``, ``(start, end, step)`` forms and their keywords."""
    positional = [a.value for a in call.args if a.keyword is None]
    named = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if len(positional) > 3 or (len(positional) == 1 and ("start" in named or "step" in named)):
        return None
    start = positional[0] if len(positional) >= 2 else named.get("start")
    step = positional[2] if len(positional) == 3 else named.get("step")
    return start, step


def _without_dtype(call: cst.Call) -> cst.Call:
    """``call`` with its ``dtype=`` argument removed, the comma after the argument before it as the removed one's."""
    args = list(call.args)
    index = next(i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == "dtype")
    removed = args.pop(index)
    if index == len(args) and index > 0:
        args[-1] = args[-1].with_changes(comma=removed.comma)
    return call.with_changes(args=args)


def _exact_everywhere(shapes: list[list[int]], start: int, step: int, kinds: set[str]) -> bool:
    """Did every observed range stay where each of its values, and each count of steps, is an integer the narrow
    type holds exactly (the two forms then agree value for value)?"""
    if not shapes or not kinds or not kinds <= set(_EXACT_UP_TO):
        return False
    limit = min(_EXACT_UP_TO[kind] for kind in kinds)
    return all(len(shape) == 1 and abs(start) + max(shape[0] - 1, 0) * abs(step) <= limit for shape in shapes)


class HalfRange(Rule):
    needs_text = spelled(*_ARANGE)
    requires = (ObservedFacts,)
    info = RuleInfo(
        id="TRT739",
        name="half-range",
        summary="`torch.arange(..., dtype=torch.float16)` exports a float16 `Range`, which ONNX Runtime refuses; "
                "count in the arguments' type and cast: `torch.arange(0, w).to(torch.float16)`",
        doc="""\
What it finds: `torch.arange(...)` whose `dtype=` is `torch.float16`, `torch.half` or `torch.bfloat16`
(nemotron-ocr's FOTS prior grid: `torch.arange(0, output_shape[1], dtype=torch.float16)`), or, with facts
(inside `migrate`), any `dtype=` expression where the recorded run saw the call make a float16 or bfloat16
tensor (`torch.arange(end=w, dtype=x.dtype, device=x.device)` in a model run in half precision). Its start and
step must be integer literals or left out; the end may be anything (a traced size).

Why it hurts: the exporters write the call as an ONNX `Range` of the requested type. ONNX Runtime has no
float16 or bfloat16 `Range` kernel, so the graph does not load ("Type 'tensor(float16)' of input parameter ...
of operator (Range) ... is invalid"), and TensorRT before 10 parses a floating-point `Range` only where its
bounds are initializers, which a traced size is not.

The rewrite: the `dtype=` argument moves to a cast after the call, `torch.arange(0, w).to(torch.float16)`. The
range is then counted in the type its arguments give (int64 for integer bounds and a traced size), which the
exporters write as an integer `Range` that every ONNX Runtime and TensorRT version takes, and the `Cast` after
it makes the requested type.

Fix safety: unsafe. torch's half-precision `arange` counts in the narrow type, so past the integers that type
holds exactly (2048 for float16, 256 for bfloat16) its values drift from the exact ones (float16's `arange(1,
4097)` gives 2048 where the cast gives 2050; past 32768 it repeats values), where the cast rounds each exact
integer once: the two agree only where every value, and every count of steps from the start, stays within that
bound. `migrate` applies it where every range the recorded run made at the line did (and, for a `dtype=`
expression, made a float16 or bfloat16 tensor); `--unsafe` applies it from the code alone. A float start or step
(`torch.arange(0.5, w, dtype=torch.float16)`) is left alone: its values are rounded differently by the two
forms at any size.

TensorRT versions: all (ONNX Runtime refuses the float16 `Range` before TensorRT is reached; TensorRT before 10
refuses a float `Range` with a traced bound).""",
        fix=Safety.UNSAFE,
        assumption="every value of the range, and every count of steps from its start, is an integer the requested "
                   "type holds exactly (at most 2048 for float16, 256 for bfloat16), where both forms agree",
        fails_when=("a range past 2048 (float16) or 256 (bfloat16): torch's half-precision arange counts in the "
                    "narrow type and drifts from the exact values the cast rounds",),
        examples=(
            Example(
                "def priors(shape, downsample):\n"
                "    xs = torch.arange(0, shape[1], dtype=torch.float16) * downsample\n"
                "    return xs + downsample / 2\n",
                "def priors(shape, downsample):\n"
                "    xs = torch.arange(0, shape[1]).to(torch.float16) * downsample\n"
                "    return xs + downsample / 2\n",
                unsafe=True,
            ),
            Example("sx = torch.arange(w, dtype=torch.half, device=d) + 0.5\n",
                    "sx = torch.arange(w, device=d).to(torch.half) + 0.5\n", unsafe=True),
        ),
        references=(
            "https://onnx.ai/onnx/operators/onnx__Range.html",
            "https://github.com/microsoft/onnxruntime/blob/main/docs/OperatorKernels.md",
            "https://github.com/onnx/onnx-tensorrt/blob/release/8.6-GA/docs/operators.md",
            "https://pytorch.org/docs/stable/generated/torch.arange.html",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or self.context.refers_to(node.func, *_ARANGE) is None:
            return
        if has_star_args(node) or not {a.keyword.value for a in node.args if a.keyword is not None} <= _KEYWORDS:
            return
        dtype = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "dtype"), None)
        bounds = _bounds(node)
        if dtype is None or bounds is None:
            return
        start, step = (int_value(v) if v is not None else default for v, default in zip(bounds, (0, 1)))
        if start is None or step is None:
            return  # a float or computed start or step: the two forms round differently at any size
        observed = self.provider(ObservedFacts)
        seen = observed.dtypes(node) & set(_EXACT_UP_TO)
        named = self.context.refers_to(dtype, *_HALF_TYPES)
        if named is None and not seen:
            return  # a dtype expression the run did not show half precision (or no run)
        kinds = {"bfloat16" if named == "torch.bfloat16" else "float16"} if named else seen
        fixed = cst.Call(func=cst.Attribute(value=_without_dtype(node), attr=cst.Name("to")),
                         args=[cst.Arg(value=dtype)])
        shapes = observed.shapes(node)
        proved = _exact_everywhere(shapes, start, step, kinds) and (named is not None or seen == observed.dtypes(node))
        words = (f"the recorded run saw every range at this line within the integers {'/'.join(sorted(kinds))} holds "
                 f"exactly (lengths {sorted({s[0] for s in shapes})}, start {start}, step {step})")
        self.report(node, f"`{code_of(dtype)}` range: ONNX Runtime has no {'/'.join(sorted(kinds))} `Range` "
                          f"(TensorRT before 10 no float one with a traced bound); counting in the arguments' type "
                          f"and casting after exports an integer `Range` (unsafe: the two agree while every value "
                          f"is an integer the type holds exactly)",
                    Fix({node: fixed}, safety=Safety.UNSAFE,
                        proof=lambda _seen, ok=proved, text=words: text if ok else None))


RULES = (HalfRange,)
