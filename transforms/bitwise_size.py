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

from trtcodemod.astutil import helper_call
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._size_facts import SizeRule

HELPER = "_trt_size_bitwise"
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
                   "the operator and its export error)",
        fails_when=(
            "both operands traced (two sizes): the operator is kept and the export still fails there",
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

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
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
