"""Floor division the TorchScript exporter writes as truncation (TRT339).

``aten::floor_divide`` (every ``//`` of a tensor, ``torch.floor_divide``, ``x.floor_divide``, and a
traced size's ``//``) exports as an ONNX ``Div``, which truncates toward zero: wherever the
quotient is negative and not whole, the graph is one above eager mode, with no error and no
warning. Tensor divisions take ``_trt_floor_divide`` (``trtcodemod/helpers/division.py``), which
is ``//`` outside an export (safe); a size divided where a sign can be negative (``-(-h // s)``,
the ceiling idiom) takes ``_trt_size_floordiv`` (``trtcodemod/helpers/sizes.py``), a traced
floor division only while a trace passes a size (unsafe, as the other size helpers).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import has_star_args, helper_call, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper, tensor_method_receiver
from trtcodemod.transforms._size_facts import INTEGER_OPERATORS, SizeRule

HELPER = "_trt_floor_divide"
DIV_HELPER = "_trt_div_floor"
SIZE_HELPER = "_trt_size_floordiv"
_FUNCTIONS = ("torch.floor_divide",)
_DIVISIONS = ("torch.div", "torch.divide")


class FloorDivide(SizeRule):
    needs_text = (b"//", b"floor_divide", b"rounding_mode")

    def __init__(self, context) -> None:
        super().__init__(context)
        #: The ``_trt_size_max(...)``-style calls the traversal is inside (innermost last).
        self._in_size_choice: list[cst.Call] = []
    info = RuleInfo(
        id="TRT339",
        name="floor-divide",
        summary="`//` of a tensor (or of a size that can be negative) exports as a Div that truncates toward zero: "
                "wrong values for negative quotients; divide with a floor the graph keeps",
        doc="""\
What it finds, in forward code: `a // b` and `torch.floor_divide(a, b)` / `a.floor_divide(b)`
where `a` is a tensor (a forward input, a torch function's result, arithmetic on one, as TRT702
and TRT711-TRT715 decide it; with a recorded run, `migrate` or `--facts`, only those whose
quotient the run saw differ from its truncation: a negative one, not whole; without one, not
indices the code shows non-negative, `torch.arange(n) // k`, `x.argmax(1) // w`, divided by a
divisor not written negative), and `a // b` of tensor sizes where either side is written so that
it can be negative: a negation (`-(-h // s)`, the ceiling idiom), a negative literal (`h // -s`)
or a difference whose first term is not a size (`(k - h) // 2`; a size minus something, `(h - 1)
// s + 1`, is taken as non-negative, as the code that divides it takes it); sizes a caller hands
down as parameters annotated `int` (or seen holding ints) count where the observed export warned at
the line and the run read no tensor value there, or inside TRT712's `_trt_size_max`/`_trt_size_min`
(geffnet's TF-style "same" padding, `max((-(i // -s) - 1) * s + (k - 1) * d + 1 - i, 0)` called with
`x.size()[-2:]`: `max` bakes the pad and the ceiling truncates; both are rewritten), in a branch written for the
trace too (`if torch.jit.is_tracing(): n = (n - 7) // 2`, icefall's Zipformer: what the export runs,
and what a recorded run never reaches, so it is taken without an observation). An in-place `t //= d`
on a tensor is reported without a fix (a new tensor would not alias the old one). With a recorded
run only, also `torch.div(a, b, rounding_mode="floor")` (and `a.div(b, rounding_mode="floor")`)
where the run saw the graph's quotient differ from torch's: an integer one exports exactly, a float
one as `Floor(Div)`.

Why it hurts: the TorchScript exporter writes `aten::floor_divide` as an ONNX `Div` (with a
cast to an integer and back for floats), and ONNX's `Div` truncates toward zero (torch 2.13,
opset 17). Where the quotient is negative and not whole, the graph gives one more than eager
mode: `-7 // 2` is -4 in torch and -3 in ONNX Runtime and TensorRT, a float's `-0.5 // 1` is
-1.0 and 0.0, with no error and no warning. Under the exporter a size is a traced 0-d tensor,
so `-(-h // 4)` at h = 10 gives 2 rows instead of 3, at the traced size too. `torch.div(a, b,
rounding_mode="floor")` exports correctly for integers (Div, Mod, a sign test and a step down)
but as `Floor(Div)` for floats, which differs from torch's floor division where the quotient
rounds (`1.0 // 0.1` is 9.0 in torch, `floor(1.0 / 0.1)` is 10.0).

The rewrite: `a // b` → `_trt_floor_divide(a, b)` for tensors, an inserted helper that is
`a // b` itself outside `torch.onnx.export` and, while exporting, the quotient the graph
computes as torch does: `torch.div(..., rounding_mode="floor")` for integers, and for floats
torch's own kernel step by step (`fmod`, the difference divided exactly, a step down where
the signs differ, `floor` and its rounding correction, a zero's sign as a product with +-1
because ONNX Runtime's Where drops the sign of a -0.0 in its first branch). For sizes, `-(-h //
s)` → `-(_trt_size_floordiv(-h, s))`, which is `//` outside a trace and a traced floor division
where a trace passes a size.

Fix safety: safe for tensors: eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and
`torch.export` run `//` itself (same values, dtype, gradients: none, and the same error from
backward), and the export-time quotient is torch's bit for bit on integers, signed zeros,
infinities and NaN (measured in float16, bfloat16, float32 and float64 against torch's
kernel; the composition's own eager `fmod` is not exact where the quotient overflows, but the
graph's `Mod` is, so ONNX Runtime gives torch's values there too). Unsafe for sizes (as
TRT712's and TRT732's helpers): while tracing, the operands are taken to be what the rule took
them for, a traced size and a number.

TensorRT versions: all (Div, Mod, Floor, comparisons, Where, Mul, which every release parses).""",
        fix=Safety.SAFE,
        assumption="for a size divided where a sign can be negative: while tracing, the operands are a traced size "
                   "and a Python number (anything else keeps `//` and its truncating export)",
        fails_when=("both operands of a size division traced and one of them a float: the traced division floors "
                    "a float quotient with `Floor(Div)`, which rounds otherwise than Python where the quotient "
                    "is inexact",),
        examples=(
            Example(
                "def cell(offsets: torch.Tensor, stride: int):\n"
                "    return offsets // stride\n",
                "def cell(offsets: torch.Tensor, stride: int):\n"
                "    return _trt_floor_divide(offsets, stride)\n",
            ),
            Example(
                "def windows(x: torch.Tensor, size: int = 4):\n"
                "    h = x.shape[-1]\n"
                "    return x.new_zeros(x.shape[0], -(-h // size))\n",
                "def windows(x: torch.Tensor, size: int = 4):\n"
                "    h = x.shape[-1]\n"
                "    return x.new_zeros(x.shape[0], -(_trt_size_floordiv(-h, size)))\n",
                unsafe=True,
            ),
            Example("def shrink(t: torch.Tensor):\n    t //= 2\n    return t\n"),
        ),
        references=(
            "https://onnx.ai/onnx/operators/onnx__Div.html",
            "https://pytorch.org/docs/stable/generated/torch.floor_divide.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html",
        ),
    )

    def _message(self, what: str) -> str:
        return (f"{what} exports as an ONNX Div, which truncates toward zero (torch floors): the graph is one "
                "higher wherever the quotient is negative and not whole")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if type(node.operator) is not cst.FloorDivide or not self._frames or not self.active() \
                or in_inserted_helper(self):
            return
        if self.is_tensor(node.left):
            if not self._observed_gap(node) or self._non_negative(node.left) and _positive(node.right):
                return
            self.found(node, self._message("`//` of a tensor") + f"; `{HELPER}` floors in the graph too",
                       Fix({node: helper_call(HELPER, _bare(node.left), _bare(node.right))}, helpers=(HELPER,)))
            return
        if self.is_tensor(node.right):
            return  # a number divided by a tensor: rare, and no helper form keeps Python's reflected division
        sides = (node.left, node.right)
        sized = any(self.size_derived(side) for side in sides) or self._passed_size(node)
        if sized and any(self._may_be_negative(side) for side in sides):
            self.found(node, self._message("`//` of a traced size that can be negative") +
                       f"; `{SIZE_HELPER}` keeps a floor division in the graph",
                       Fix({node: helper_call(SIZE_HELPER, _bare(node.left), _bare(node.right))},
                           safety=Safety.UNSAFE, helpers=(SIZE_HELPER,)))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if type(node.operator) is cst.FloorDivideAssign and self._frames and self.active() \
                and not in_inserted_helper(self) and self.is_tensor(node.target):
            self.found(node, self._message("`//=` of a tensor") + "; not rewritten: a new tensor would not alias the "
                                                                  "old one (write `t = torch.div(t, d, "
                                                                  "rounding_mode=\"floor\")` where nothing else "
                                                                  "holds `t`)")

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        if type(node.func) is cst.Name and node.func.value in _SIZE_CHOICE_HELPERS:
            self._in_size_choice.append(node)
        if not self._frames or not self.active() or in_inserted_helper(self):
            return
        if self.context.refers_to(node.func, *_FUNCTIONS) is not None:
            positional = [a.value for a in node.args if a.keyword is None]
            if len(positional) == 2 and len(node.args) == 2 and not has_star_args(node):
                self._call(node, positional[0], positional[1])
            else:
                self.found(node, self._message("`torch.floor_divide`") + " (not rewritten: other arguments)")
            return
        receiver = tensor_method_receiver(self, node, ("floor_divide",))
        if receiver is not None and len(node.args) == 1 and node.args[0].keyword is None and not has_star_args(node):
            self._call(node, receiver, node.args[0].value)
            return
        if self._observed.known:
            self._div_floor(node)

    def leave_Call(self, original_node: cst.Call) -> None:
        if self._in_size_choice and self._in_size_choice[-1] is original_node:
            self._in_size_choice.pop()

    def _div_floor(self, node: cst.Call) -> None:
        """``torch.div(a, b, rounding_mode="floor")`` (or the method) where the recorded run saw the graph's
        ``Floor(Div)`` differ from torch's quotient (a float one that rounds up to a whole number)."""
        positional = [a.value for a in node.args if a.keyword is None]
        mode = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "rounding_mode"), None)
        if type(mode) is not cst.SimpleString or mode.evaluated_value != "floor" or has_star_args(node) \
                or len(node.args) != len(positional) + 1:
            return
        if self.context.refers_to(node.func, *_DIVISIONS) is not None and len(positional) == 2:
            left, right = positional
        else:
            receiver = tensor_method_receiver(self, node, ("div", "divide"))
            if receiver is None or len(positional) != 1:
                return
            left, right = receiver, positional[0]
        if not self._observed.floor_gap(node):
            return
        self.found(node, "`torch.div(..., rounding_mode=\"floor\")` of floats exports as Floor(Div), which floors the "
                         "rounded quotient (torch floors the exact one: `1.0 // 0.1` is 9.0, the graph says 10.0), and "
                         f"the recorded run met such a quotient here; `{DIV_HELPER}` computes torch's in the graph",
                   Fix({node: helper_call(DIV_HELPER, _bare(left), _bare(right))}, helpers=(DIV_HELPER,)))

    def _may_be_negative(self, expr: cst.BaseExpression) -> bool:
        """Is ``expr`` written so that it can be negative: a negation (``-h``, a negative literal) or a
        difference whose first term is not a size (``k - h``)? A size minus something (``h - 1``, the
        output-size formula) is taken as non-negative, as the code that divides it takes it."""
        if type(expr) is cst.UnaryOperation:
            return type(expr.operator) is cst.Minus
        if type(expr) is cst.BinaryOperation and type(expr.operator) is cst.Subtract:
            return not self.size_derived(expr.left)
        return False

    def _passed_size(self, node: cst.BinaryOperation) -> bool:
        """``i // -s`` of numbers a caller handed down (parameters annotated ``int`` or seen holding ints,
        literals) that are sizes, traced 0-d tensors while exporting (geffnet's TF-style padding, ``max((-(i //
        -s) - 1) * s + ... - i, 0)`` called with ``x.size()[-2:]``): with facts, where the observed export
        warned at the line that a traced value became a Python one and the eager run read no tensor value
        there; or inside TRT712's choice between sizes (``_trt_size_max(...)``, written by an earlier pass
        for that warning: its line changed, so the facts no longer speak for it)."""
        observed = self._observed.known and self.traced_at(node) and self._observed.reads_values(node) is False
        if not observed and not self._in_size_choice:
            return False
        numbers = self._handed_down()
        return all(self._number_of(side, numbers) for side in (node.left, node.right)) and any(
            type(n) is cst.Name and n.value in numbers for n in walk(node))

    def _handed_down(self) -> set[str]:
        """The current function's parameters annotated ``int`` or seen holding only ints, not rebound."""
        function, frame = self.context.function, self._frame()
        if function is None or frame is None:
            return set()
        seen = self._observed.number_parameters(function, frozenset({"int"}))
        rebound = frame.tensors | frame.derived | frame.values | frame.loose | set(frame.sizes)
        return set(frame.ints) | {name for name in seen - rebound if self._local(name)}

    def _number_of(self, expr: cst.BaseExpression, numbers: set[str]) -> bool:
        """``expr`` is integer arithmetic (``+ - * //``, negation) on ``numbers`` and integer literals."""
        if type(expr) is cst.Integer:
            return True
        if type(expr) is cst.Name:
            return expr.value in numbers
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            return self._number_of(expr.expression, numbers)
        if type(expr) is cst.BinaryOperation and type(expr.operator) in INTEGER_OPERATORS:
            return self._number_of(expr.left, numbers) and self._number_of(expr.right, numbers)
        return False

    def _non_negative(self, expr: cst.BaseExpression) -> bool:
        """Indices the code shows are non-negative: ``torch.arange`` from a start that is not negated,
        ``argmax``/``argmin``/``argsort``, and indexing into those."""
        while type(expr) is cst.Subscript:
            expr = expr.value
        if type(expr) is not cst.Call:
            return False
        qualified = self.context.refers_to(expr.func, *_INDEX_FUNCTIONS)
        if qualified == "torch.arange":
            positional = [a.value for a in expr.args if a.keyword is None]
            start = positional[0] if len(positional) > 1 else next(
                (a.value for a in expr.args if a.keyword is not None and a.keyword.value == "start"), None)
            return start is None or not _negatable(start)
        if qualified is not None:
            return True
        return type(expr.func) is cst.Attribute and expr.func.attr.value in ("argmax", "argmin", "argsort") \
            and self.is_tensor(expr.func.value)

    def report(self, node: cst.CSTNode, message: str, fix: Fix | None = None,
               scopes: tuple[cst.CSTNode, ...] | None = None) -> None:
        """Reported in a branch written for the trace too (``if torch.jit.is_tracing(): n = (n - 7) //
        2``, icefall's Zipformer): unlike a size made a Python number there on purpose, which the size
        rules leave, the ``//`` is the same division eager mode runs, and the exporter truncates it."""
        super(SizeRule, self).report(node, message, fix, scopes)

    def _observed_gap(self, node: cst.CSTNode) -> bool:
        """Without facts every tensor division is reported; with them (``migrate``, ``--facts``) only
        those whose quotient the recorded run saw differ from its truncation: the others compute the
        same in the graph. A division in a branch written for the trace, which the eager run never
        reaches, is reported: no observation can speak for it."""
        if self._observed.known and self.runtime.written_for_tracing(node) and not self._observed.ran(node):
            return True
        return not self._observed.known or self._observed.floor_gap(node)

    def _call(self, node: cst.Call, left: cst.BaseExpression, right: cst.BaseExpression) -> None:
        if not self._observed_gap(node):
            return
        self.found(node, self._message("`floor_divide`") + f"; `{HELPER}` floors in the graph too",
                   Fix({node: helper_call(HELPER, _bare(left), _bare(right))}, helpers=(HELPER,)))




#: TRT712's helpers for a choice between sizes: what they are given is a size while tracing.
_SIZE_CHOICE_HELPERS = frozenset({"_trt_size_max", "_trt_size_min"})
_INDEX_FUNCTIONS = ("torch.arange", "torch.argmax", "torch.argmin", "torch.argsort")


def _negatable(expr: cst.BaseExpression) -> bool:
    """Can ``expr`` be negative as written: a negation, or a difference?"""
    return type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus or \
        type(expr) is cst.BinaryOperation and type(expr.operator) is cst.Subtract


def _positive(expr: cst.BaseExpression) -> bool:
    """A divisor the code shows is positive: a positive literal, or a name, attribute or size (whose sign
    the code does not show: taken as a count, as `//` by a block or stride size is)."""
    if type(expr) in (cst.Integer, cst.Float):
        return float(expr.value.replace("_", "")) > 0
    return not _negatable(expr)


def _bare(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` without its own parentheses (it becomes a call argument), where that reads the same."""
    if type(expr) in (cst.Tuple, cst.GeneratorExp, cst.NamedExpr) or not getattr(expr, "lpar", None):
        return expr
    return expr.with_changes(lpar=[], rpar=[])


RULES = (FloorDivide,)
