"""``torch.einsum`` and ``torch.outer`` of operands of two dtypes (TRT370): eager mode promotes, the export does not.

``torch.einsum('i,j->ij', torch.arange(n), inv_freq)`` (an ``int64`` range times ``float32`` frequencies, the
usual rotary or sinusoidal embedding) is ``float32`` in eager mode: torch promotes the operands. Both exporters
write one ONNX ``Einsum`` of the operands as they are, and ONNX forbids an ``Einsum`` of two types: ONNX Runtime
refuses to load the graph. ``torch.outer(torch.arange(n), inv_freq)`` (and its alias ``torch.ger``) is exported by
the TorchScript exporter as an ``Einsum`` after casting the second operand to the first's type: an ``int64`` product
of truncated frequencies, where eager mode's is ``float32``. The rewrite calls an inserted helper
(``trtcodemod/helpers/promotion.py``) that is the original call outside an export and, while exporting, casts the
operands to the dtype eager mode promotes them to. The other ops of mixed operands (``torch.where``, ``torch.cat``,
``torch.stack``, arithmetic, ``addcmul``, ``torch.maximum``, ``atan2``, ``pow``, ``fmod``) are exported with casts,
and ``matmul``, ``mm``, ``bmm``, ``F.linear``, ``inner``, ``dot`` and ``tensordot`` of two dtypes raise in eager
mode: none of them is taken.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import as_argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

EINSUM_HELPER = "_trt_promoted_einsum"
OUTER_HELPER = "_trt_promoted_outer"
_EINSUM = ("torch.einsum", "torch.functional.einsum")
_OUTER = ("torch.outer", "torch.ger")


class PromotedOperands(Rule):
    needs_text = spelled("einsum", "outer", "ger")
    info = RuleInfo(
        id="TRT370",
        name="promoted-operands",
        summary="`torch.einsum` / `torch.outer` of operands of two dtypes (an integer `arange` and float "
                "frequencies): eager mode promotes them, the export does not (an `Einsum` ONNX Runtime refuses, "
                "an integer `outer`); cast them to the promoted dtype while exporting",
        doc="""\
What it finds (opt-in: the operands' dtypes cannot be read from the text; `migrate` applies it where ONNX
Runtime refuses an `Einsum` of two types made at the line, or a node whose integer input was made at the line
(an integer `outer` at a `Sin`/`Cos`), or where the values first differ at it):
`torch.einsum(equation, a, b, ...)` (also `from torch import einsum`, and the operands in one list or tuple
display) of two operands or more, and `torch.outer(a, b)` / `torch.ger(a, b)`, without keywords. Rotary and
sinusoidal position embeddings write it this way: timesformer-pytorch 0.4.1's `RotaryEmbedding`
(`seq = torch.arange(n, device=device)`, then `einsum('i, j -> i j', seq, self.inv_freqs)`), and the many
`torch.einsum('i,j->ij', t, inv_freq)` / `torch.outer(t, freqs)` of a range left `int64`, or of float32
positions and float64 frequencies (FLUX.1's first `rope`, an `Einsum` of float and double).

Why it hurts: eager mode promotes the operands of `einsum` and `outer` to one dtype (`torch.promote_types` of
all of them: an `int64` range and `float32` frequencies give `float32`). Both exporters write `einsum` as one ONNX
`Einsum` of the operands as they are; ONNX's `Einsum` takes one type, and ONNX Runtime refuses the graph when it
loads it ("Type parameter (T) of Optype (Einsum) bound to different types (tensor(int64) and tensor(float) in
node ..."). The TorchScript exporter writes `outer` as an `Einsum` after casting the second operand to the first's
type: `torch.outer(torch.arange(n), inv_freq)` is an `int64` product of truncated frequencies (0 for every
frequency under 1), where eager mode's is `float32`, and a `Sin` or `Cos` of it is refused at load (TRELLIS's
`torch.outer` of int32 voxel coordinates). Other ops of mixed operands are exported with the casts
eager mode implies (`torch.where`, `torch.cat`, `torch.stack`, arithmetic and its broadcast products
`t[:, None] * freqs[None]`, `addcmul`, `maximum`, `atan2`, `pow`), and `matmul`, `mm`, `bmm`, `baddbmm`,
`F.linear`, `inner`, `dot`, `vdot`, `tensordot` and `linalg.multi_dot` of two dtypes raise in eager mode (torch
2.13): they are not taken.

The rewrite: `einsum('i, j -> i j', seq, self.inv_freqs)` → `_trt_promoted_einsum('i, j -> i j', [seq,
self.inv_freqs])`, and `torch.outer(t, freqs)` → `_trt_promoted_outer(t, freqs)`: inserted helpers that are
`torch.einsum` and `torch.outer` themselves outside an ONNX export (and when scripted), and while exporting cast
every operand to the operands' promoted dtype first, then call the original.

Fix safety: safe. Outside an ONNX export the helper is the original call (values, dtypes, gradients,
exceptions, under eager, `torch.jit.script`, `torch.fx`, `torch.compile`, `torch.export`). While exporting, the
operands are cast to the dtype eager mode computes in, so the graph computes eager mode's values in eager mode's
dtype; where the operands already share one dtype nothing is cast and the graph is the original's.

TensorRT versions: all (ONNX Runtime refuses the graph, and the `outer` values are wrong, before TensorRT
sees it).""",
        fix=Safety.SAFE,
        opt_in=True,
        examples=(
            Example("from torch import einsum\nfreqs = einsum('i, j -> i j', seq, self.inv_freqs)\n",
                    "from torch import einsum\nfreqs = _trt_promoted_einsum('i, j -> i j', [seq, self.inv_freqs])\n"),
            Example("freqs = torch.outer(torch.arange(n), inv_freq)\n",
                    "freqs = _trt_promoted_outer(torch.arange(n), inv_freq)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.einsum.html",
            "https://pytorch.org/docs/stable/generated/torch.outer.html",
            "https://pytorch.org/docs/stable/generated/torch.promote_types.html",
            "https://onnx.ai/onnx/operators/onnx__Einsum.html",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or has_star_args(node) or any(a.keyword is not None for a in node.args):
            return
        if any(self.context.refers_to(node.func, name) for name in _EINSUM):
            self._einsum(node)
        elif any(self.context.refers_to(node.func, name) for name in _OUTER):
            self._outer(node)

    def _einsum(self, node: cst.Call) -> None:
        if len(node.args) < 2:
            return
        equation, rest = node.args[0], node.args[1:]
        if len(rest) == 1:
            listed = rest[0].value
            if not isinstance(listed, (cst.List, cst.Tuple)) or any(
                    isinstance(e, cst.StarredElement) for e in listed.elements):
                return  # one operand, or a list held in a name: nothing to read
            operands = [e.value for e in listed.elements]
        else:
            operands = [a.value for a in rest]
        if len(operands) < 2:
            return
        elements = [cst.Element(as_argument(v), comma=cst.MaybeSentinel.DEFAULT) for v in operands]
        elements = [e.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                    for e in elements[:-1]] + elements[-1:]
        args = [equation.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                cst.Arg(cst.List(elements))]
        self.report(node, "`torch.einsum` promotes operands of two dtypes in eager mode, but the exported `Einsum` "
                          "takes them as they are (ONNX Runtime refuses an `Einsum` of two types); "
                          f"`{EINSUM_HELPER}` casts them to the promoted dtype while exporting",
                    Fix({node: node.with_changes(func=cst.Name(EINSUM_HELPER), args=args)}, helpers=(EINSUM_HELPER,)))

    def _outer(self, node: cst.Call) -> None:
        if len(node.args) != 2:
            return
        args = [a.with_changes(value=as_argument(a.value)) for a in node.args]
        self.report(node, "`torch.outer` promotes operands of two dtypes in eager mode, but the TorchScript export "
                          "casts the second to the first's dtype (an integer range times float frequencies is an "
                          f"integer product); `{OUTER_HELPER}` casts them to the promoted dtype while exporting",
                    Fix({node: node.with_changes(func=cst.Name(OUTER_HELPER), args=args)}, helpers=(OUTER_HELPER,)))


RULES = (PromotedOperands,)
