"""Bitwise operators on tensor sizes (TRT732): no ONNX operator before opset 18; arithmetic while tracing.

``((w - 1) | (k - 1)) + 1`` (MONAI's ``divisible_pad_t``: the next multiple of a power of two),
``h >> 1``, ``n & 1``: under the TorchScript exporter a size is a traced 0-d integer tensor, the
operator records ``aten::bitwise_or`` (``__and__``, ``__xor__``, shifts), and the export stops
("ONNX export does NOT support exporting bitwise OR for non-boolean input values"). The rewrite
calls a helper (``_trt_size_bitwise`` in ``trtcodemod/helpers/sizes.py``) that is the Python
operator everywhere but in a trace, where it computes the same integer with floor divisions,
products and sums.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import code_of, helper_call
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._size_facts import SizeRule

HELPER = "_trt_size_bitwise"
#: In-place operators that combine a Python flag with a comparison (`multi_label &= nc > 1`).
_FLAG_ASSIGN: dict[type, str] = {cst.BitAndAssign: "&=", cst.BitOrAssign: "|=", cst.BitXorAssign: "^="}
_OPERATORS: dict[type, str] = {cst.BitOr: "|", cst.BitAnd: "&", cst.BitXor: "^", cst.LeftShift: "<<",
                               cst.RightShift: ">>"}


class BitwiseOnSize(SizeRule):
    info = RuleInfo(
        id="TRT732",
        name="bitwise-on-size",
        summary="`|`, `&`, `^` on a tensor size have no ONNX operator (TorchScript exporter, opset < 18; shifts break "
                "the dynamo exporter); compute the same integer with arithmetic while tracing",
        doc="""\
What it finds, in forward code: a binary `|`, `&`, `^`, `<<` or `>>` one of whose operands is a
tensor size (`x.shape[i]`, `x.size(i)`, names unpacked from `x.shape`, arithmetic on those with
numbers, as TRT711-TRT713 decide it) and whose other operand is not a tensor: MONAI's
`divisible_pad_t` rounds each spatial size up to a multiple of `k` with
`w_mult = ((w - 1) | (k - 1)) + 1`. A chain (`a | b | c`) is one finding; an in-place `w |= k`
is left alone.

It also finds a Python flag (a name or attribute that is no tensor and no size) combined by `&`, `|`
or `^`, in place or not, with one comparison of sizes: YOLOv5's and YOLOv7's `non_max_suppression`
write `multi_label &= nc > 1` (`nc = prediction.shape[2] - 5`). Under the TorchScript exporter the
comparison is a 0-d bool tensor, and `bool & Tensor` records `aten::bitwise_and(Tensor, bool)`, for
which the JIT has no op: the export stops in alias analysis ("We don't have an op for
aten::bitwise_and but it isn't a special case"), with no line of the user's code in the error;
`migrate` takes that error as this rule's. Two comparisons (`(h > 1) & (w > 1)`, both traced) export
as an ONNX `And` and are left alone. The rewrite takes the comparison's truth, `multi_label &=
bool(nc > 1)`: in eager mode a comparison of `int`s is a `bool` already, so nothing changes; while
tracing the value becomes a constant of the traced call (a TracerWarning at that line, which
`migrate`'s second trace at other sizes judges: a size of a static axis, such as the class axis,
gives the same value at every size).

Why it hurts: under the TorchScript exporter a size is a traced 0-d int64 tensor, so the
operator records `aten::bitwise_or` (`bitwise_and`, `bitwise_xor`), for which the exporter has
no ONNX operator on integers before opset 18: `torch.onnx.export(..., dynamo=False)` stops with
"ONNX export does NOT support exporting bitwise OR for non-boolean input values" (torch 2.13,
opset 17), and TensorRT parses no bitwise operator at any opset. Shifts are different: the
TorchScript exporter writes `__lshift__`/`__rshift__` of a traced size as Pow, Cast and Div,
which export and parse (measured on Mimicry's SAGAN attention, `H * W >> 2`: nothing to fix
there); a shift of a symbolic size breaks the dynamo exporter's trace, which is where the shift
rewrite matters. MONAI's VarNet and its other reconstruction networks pad this
way and do not export.

The rewrite: `(w - 1) | (k - 1)` → `_trt_size_bitwise("|", w - 1, k - 1)`. Outside a trace the
helper is the Python operator on its two operands (ints stay ints, anything else does what
the operator does). While a trace passes a 0-d integer tensor for one operand (or, while
`torch.export` records the model for the dynamo exporter, whose ONNX translation has no bitwise
operator on a symbolic size either, a `SymInt`) and a Python `int` for the other (for a
shift: the size on the left, a count below 63 on the right), it computes the same integer: `t & c` keeps, for each run of set bits `[lo, hi)` of `c`,
`floor(t / 2**lo) - floor(t / 2**hi) * 2**(hi - lo)` shifted back by `lo` (the floor taken as a
truncating `Div` and a step down, so two's-complement bits of negative sizes come out as
Python's; a negative `c` clears the bits of `~c`); `t | c = t + c - (t & c)`,
`t ^ c = t + c - 2 (t & c)`, `t << n = t * 2**n`, `t >> n = floor(t / 2**n)`. The graph: Div,
Mul, Sub, Add, Greater, Cast. Two traced operands keep the operator (and its export error).

Fix safety: unsafe, as TRT712's helpers: the assumption is that while tracing the operands are
what the rule took them for: a traced size and a Python int (anything else keeps the
operator). Eager mode, `torch.fx` and `torch.compile` run the operator itself (`torch.export`
the same integer in arithmetic); `torch.jit.script` compiles the helper's operator branch only
for operands it can type.

TensorRT versions: all (the export fails before TensorRT is involved).""",
        fix=Safety.UNSAFE,
        assumption="while tracing, one operand is a traced size and the other a Python int (anything else keeps "
                   "the operator and its export error); for a flag and a comparison of sizes, that the comparison's "
                   "value is the same at every input size the graph serves (a static axis)",
        fails_when=(
            "both operands traced (two sizes): the operator is kept and the export still fails there",
            "a flag combined with a comparison of sizes of a dynamic axis: the graph keeps the example's truth "
            "(migrate's second trace at other sizes reports it)",
            "`torch.jit.script` of the rewritten function with operands it types as tensors",
        ),
        examples=(
            Example(
                "def pad(x: torch.Tensor, k: int = 16):\n"
                "    b, c, h, w = x.shape\n"
                "    w_mult = ((w - 1) | (k - 1)) + 1\n"
                "    return F.pad(x, (0, w_mult - w))\n",
                "def pad(x: torch.Tensor, k: int = 16):\n"
                "    b, c, h, w = x.shape\n"
                "    w_mult = (_trt_size_bitwise(\"|\", w - 1, k - 1)) + 1\n"
                "    return F.pad(x, (0, w_mult - w))\n",
                unsafe=True,
            ),
            Example(
                "def half_width(x: torch.Tensor):\n"
                "    half = x.shape[-1] >> 1\n"
                "    return x[..., :half]\n",
                "def half_width(x: torch.Tensor):\n"
                "    half = _trt_size_bitwise(\">>\", x.shape[-1], 1)\n"
                "    return x[..., :half]\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://onnx.ai/onnx/operators/onnx__BitwiseOr.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: Bitwise operations taken inside an outer one (a chain: one finding).
        self._inner: set[int] = set()

    def _operand(self, expr: cst.BaseExpression) -> bool:
        """A number the helper may take: not a tensor (a size, arithmetic, a literal, a parameter)."""
        return not self.is_tensor(expr)

    def _sized(self, node: cst.BinaryOperation) -> bool:
        """Is ``node`` a bitwise operation on a size (its operands or a chained one's)?"""
        sides = (node.left, node.right)
        if any(self.is_tensor(side) for side in sides):
            return False
        return any(self.size_derived(side) or self._bitwise(side) and self._sized(side) for side in sides)

    @staticmethod
    def _bitwise(expr: cst.BaseExpression) -> bool:
        return type(expr) is cst.BinaryOperation and type(expr.operator) in _OPERATORS

    def _convert(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """``expr`` with every bitwise operation of its chain as a helper call."""
        if not self._bitwise(expr):
            return expr
        self._inner.add(id(expr))
        left = self._convert(expr.left)  # type: ignore[attr-defined]
        right = self._convert(expr.right)  # type: ignore[attr-defined]
        op = _OPERATORS[type(expr.operator)]  # type: ignore[attr-defined]
        return helper_call(HELPER, cst.SimpleString(f'"{op}"'), _bare(left), _bare(right))  # a call needs no parentheses

    # -- a Python flag combined with a comparison of sizes: `multi_label &= nc > 1` --------------

    def _size_comparison(self, expr: cst.BaseExpression) -> bool:
        """``nc > 1``: one comparison whose operands are no tensors and one of which is a size."""
        if type(expr) is not cst.Comparison or len(expr.comparisons) != 1:
            return False
        operands = (expr.left, expr.comparisons[0].comparator)
        return not any(self.is_tensor(o) or self.is_value(o) for o in operands) \
            and any(self.size_derived(o) for o in operands)

    def _flag_operand(self, expr: cst.BaseExpression) -> bool:
        """The other side: a name or attribute that is no tensor, no size and no comparison of sizes."""
        return type(expr) in (cst.Name, cst.Attribute) and not self.is_tensor(expr) and not self.is_value(expr) \
            and not self.size_derived(expr)

    def _report_flag(self, node: cst.CSTNode, comparison: cst.Comparison, op: str) -> None:
        self.found(node, f"`{op}` of a Python flag and `{code_of(comparison)}`, a comparison of traced sizes: under "
                         "the TorchScript exporter the comparison is a 0-d bool tensor and `bool "
                         f"{op} Tensor` records `aten::bitwise_*` with a Python bool, for which the exporter has no "
                         "op (it stops in alias analysis, with no line); `bool(...)` takes the comparison's value as "
                         "the flag does (the trace keeps it as a constant, with a TracerWarning here)",
                   Fix({comparison: cst.Call(cst.Name("bool"), [cst.Arg(_bare(comparison))])}, safety=Safety.UNSAFE))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not self._frames or not self.active() or type(node.operator) not in _FLAG_ASSIGN:
            return
        value = node.value
        if self._size_comparison(value) and self._flag_operand(node.target):
            self._report_flag(node, value, _FLAG_ASSIGN[type(node.operator)])

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if self._frames and self.active() and type(node.operator) in (cst.BitAnd, cst.BitOr, cst.BitXor):
            for flag, comparison in ((node.left, node.right), (node.right, node.left)):
                if self._size_comparison(comparison) and self._flag_operand(flag):
                    self._report_flag(node, comparison, _OPERATORS[type(node.operator)])
                    return
        self._visit_bitwise(node)

    def _visit_bitwise(self, node: cst.BinaryOperation) -> None:
        if id(node) in self._inner or not self._frames or not self.active() or not self._bitwise(node) \
                or not self._sized(node):
            return
        replacement = self._convert(node)
        op = _OPERATORS[type(node.operator)]
        self.found(node, f"`{op}` on a traced size records `aten::bitwise_*`/a shift, which the TorchScript exporter "
                         f"cannot write (no ONNX bitwise operator on integers before opset 18, none in TensorRT); "
                         f"{HELPER} computes the same integer with arithmetic while tracing (the operator otherwise)",
                   Fix({node: replacement}, safety=Safety.UNSAFE, helpers=(HELPER,)))


def _bare(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` without its own parentheses (it becomes a call argument), where that reads the same."""
    if type(expr) in (cst.Tuple, cst.GeneratorExp) or not getattr(expr, "lpar", None):
        return expr
    return expr.with_changes(lpar=[], rpar=[])


RULES = (BitwiseOnSize,)
