"""``torch.searchsorted`` (TRT318): no ONNX symbolic; a count of the boundaries below each value.

The rewrite calls an inserted helper (``trtcodemod/helpers/searching.py``) that is
``torch.searchsorted`` outside an export and, while exporting, counts comparisons, which gives
torch's index wherever the boundaries are ascending (the function's precondition).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_searchsorted"
#: Keywords the helper takes under torch's names (``sorter`` and ``out`` are not taken).
_KEYWORDS = frozenset({"sorted_sequence", "input", "out_int32", "right", "side"})
_NUMBERS = (cst.Integer, cst.Float)


class SearchSorted(Rule):
    needs_text = (b"searchsorted",)
    info = RuleInfo(
        id="TRT318",
        name="searchsorted-count",
        summary="`torch.searchsorted` does not export (no ONNX symbolic); count the boundaries below each value",
        doc="""\
What it finds: `torch.searchsorted(sorted_sequence, values, ...)` (any import alias of `torch`),
arguments by position or keyword, with `right=`, `side=` and `out_int32=`. A call with
`sorter=` or `out=`, with unpacked arguments, or with a number written as the values (torch's
scalar form, which the helper's tensor parameter would not script) is reported without a fix.
`torch.bucketize` is not reported: it exports (Greater, ReduceSum) and TensorRT parses it.

Why it hurts: neither exporter converts `aten::searchsorted` (torch 2.13): the TorchScript
exporter stops with `UnsupportedOperatorError` at every opset and the dynamo exporter with a
`ConversionError`, so there is no ONNX file for TensorRT. Real forward code uses it to find
chunks and segments: transformers' Splinter (`first_idx = torch.searchsorted(rows, rows,
side="left")`, `modeling_splinter.py:728`), MusicFlamingo and dots3_note chunk offsets
(`modeling_musicflamingo.py:357`, `modeling_dots3_note.py:1835`), kornia's histogram matching
(`contrib/histogram_matching.py:147`) and SIFT's pyramid levels (`feature/sift/scale_space.py:772`).

The rewrite: `torch.searchsorted(...)` → `_trt_searchsorted(...)`, the same arguments. Outside
`torch.onnx.export` it is `torch.searchsorted` itself. While exporting, the index of each value is
the number of boundaries `s` with `not (s >= v)` (`not (s > v)` for `right=True` /
`side="right"`), over a one-dimensional boundary row or one row per leading index of the values:
GreaterOrEqual (Greater), Not and ReduceSum, which TensorRT parses; `out_int32` casts to int32. A
NaN value passes every boundary (index `n`), as in torch; an empty boundary row gives 0. What
torch refuses (dtypes that differ, opposite `side` and `right`, shapes that do not match) keeps
`torch.searchsorted` and its error. The graph compares every value with every boundary
(`m * n` booleans): meant for boundary rows of tens to thousands, not for millions.

Fix safety: unsafe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`
run `torch.searchsorted` itself. The exported graph gives torch's index when the boundaries
are ascending along their last axis and hold no NaN, which torch asks of its input. On other
boundaries torch's binary search returns an index that depends on where it probes, and the
count can differ.

TensorRT versions: all (the export fails before TensorRT is involved).""",
        fix=Safety.UNSAFE,
        assumption="the boundaries are ascending along their last axis and hold no NaN",
        fails_when=(
            "boundaries that are not sorted (torch's answer is then its search order's)",
            "a NaN among the boundaries (sorted to the end): torch's search may stop before it, the count passes it",
        ),
        examples=(
            Example(
                "def chunk_of(boundaries, starts):\n"
                "    return torch.searchsorted(boundaries, starts, right=True) - 1\n",
                "def chunk_of(boundaries, starts):\n"
                "    return _trt_searchsorted(boundaries, starts, right=True) - 1\n",
                unsafe=True,
            ),
            Example("first = torch.searchsorted(rows, rows, side=\"left\")\n",
                    "first = _trt_searchsorted(rows, rows, side=\"left\")\n", unsafe=True),
            Example("order = torch.searchsorted(edges, x, sorter=perm)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.searchsorted.html",
            "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or not self.context.refers_to(node.func, "torch.searchsorted"):
            return
        message = ("the exporters cannot convert `torch.searchsorted` (aten::searchsorted), so the model does not "
                   "export")
        values = argument(node, 1, "input")
        keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        positional = [arg for arg in node.args if arg.keyword is None]
        if (has_star_args(node) or keywords - _KEYWORDS or len(positional) > 2 or values is None
                or argument(node, 0, "sorted_sequence") is None or _is_number(values.value)):
            self.report(node, f"{message}; count the boundaries below each value (not rewritten: `sorter`, `out`, "
                        "a number as the values, unpacked or missing arguments)")
            return
        self.report(node, f"{message}; count the boundaries below each value while exporting "
                    "(`torch.searchsorted` otherwise; exact on ascending boundaries)",
                    Fix({node: node.with_changes(func=cst.Name(HELPER))}, safety=Safety.UNSAFE, helpers=(HELPER,)))


def _is_number(node: cst.BaseExpression) -> bool:
    """A number written out (``3``, ``-0.5``): torch's scalar form of the values."""
    if isinstance(node, cst.UnaryOperation):
        node = node.expression
    return isinstance(node, _NUMBERS)


RULES = (SearchSorted,)
