"""``torch.diag`` (TRT320): no ONNX symbolic; the matrix of a vector, or the diagonal of a matrix, by
indexing.

The rewrite calls an inserted helper (``trtcodemod/helpers/diagonal.py``) that is ``torch.diag``
outside an export and, while exporting, builds either meaning from ranges of the input's size.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import torch_operator_call

HELPER = "_trt_diag"


class Diagonal(Rule):
    needs_text = (b"diag",)
    info = RuleInfo(
        id="TRT320",
        name="diag-by-index",
        summary="`torch.diag` does not export (no ONNX symbolic); build the matrix or take the diagonal by indexing",
        doc="""\
What it finds: `torch.diag(x)` and `torch.diag(x, diagonal)`, also as a method (`x.diag()`),
arguments by position or keyword. A call with `out=` or unpacked arguments is reported without a
fix. `torch.diagonal`, `torch.diag_embed` and `torch.diagflat` are other functions (the first two
export).

Why it hurts: the TorchScript exporter has no symbolic for `aten::diag` at any opset (torch 2.13):
`torch.onnx.export` stops with `UnsupportedOperatorError`. Forward code builds diagonal matrices
with it: kornia's guided filter regularises a covariance with `eps` on its diagonal
(`guidance.new_full((C,), eps).diag()`, `filters/guided.py:152`), kornia's quaternion fit weighs
points with `torch.diag(w)` (`geometry/quaternion.py:760`), MONAI's `normalize_transform` scales an
affine with `torch.diag(torch.cat((norm, ...)))` (`networks/utils.py:272`, in `AffineTransform`'s
forward) and its MMD metric drops a diagonal with `torch.diag(torch.diagonal(y_y))`
(`metrics/mmd.py:80`).

The rewrite: `torch.diag(x, d)` → `_trt_diag(x, d)` (the receiver first for the method). Outside
`torch.onnx.export` it is `torch.diag` itself. While exporting, of a vector of length `n`: a
square of side `n + |d|` that holds the vector, padded with zeros, where `column - row == d`
(Range, Sub, Equal, Where); of a matrix: the block the diagonal crosses (Slice, clamped to the
size) and every `(k + 1)`-th of its flattened elements (Range, Mul, Gather). Values are copied,
never multiplied, so NaN and infinities stay where they were; sizes follow dynamic axes. What
torch refuses (a 0-d or 3-d input) and an offset that is not a Python int keep `torch.diag`.

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run
`torch.diag` itself (values, gradients, errors; the diagonal of a matrix is a copy there as in
the graph). The exported graph holds the same values (ONNX Runtime's Where writes a selected
`-0.0` as `0.0`; the graph selects it).

TensorRT versions: all (the export fails before TensorRT is involved).""",
        fix=Safety.SAFE,
        examples=(
            Example("def regularized(cov, guidance, eps):\n"
                    "    C = cov.shape[-1]\n"
                    "    return cov + guidance.new_full((C,), eps).diag().view(1, 1, 1, C, C)\n",
                    "def regularized(cov, guidance, eps):\n"
                    "    C = cov.shape[-1]\n"
                    "    return cov + _trt_diag(guidance.new_full((C,), eps)).view(1, 1, 1, C, C)\n"),
            Example("weighted = data.T @ torch.diag(w) @ data\n", "weighted = data.T @ _trt_diag(w) @ data\n"),
            Example("upper = torch.diag(sim, diagonal=batch_size)\n", "upper = _trt_diag(sim, diagonal=batch_size)\n"),
            Example("torch.diag(x, out=buffer)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.diag.html",
            "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = torch_operator_call(self, node, ("diag",))
        if found is None:
            return
        _, tensor, first = found
        message = "the TorchScript exporter cannot convert `torch.diag` (aten::diag), so the model does not export"
        keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        positional = [arg for arg in node.args[first:] if arg.keyword is None]
        if tensor is None or has_star_args(node) or keywords - {"input", "diagonal"} or len(positional) > 1:
            self.report(node, f"{message}; build it by indexing (not rewritten: `out`, unpacked, missing or other "
                        "arguments)")
            return
        rest = [arg for arg in node.args if arg is not tensor] if first else list(node.args)
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        tensor_arg = cst.Arg(value=tensor.value, comma=comma if rest else cst.MaybeSentinel.DEFAULT)
        if rest:
            rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        self.report(node, f"{message}; build it by indexing while exporting (`torch.diag` otherwise)",
                    Fix({node: node.with_changes(func=cst.Name(HELPER), args=[tensor_arg, *rest])}, helpers=(HELPER,)))


RULES = (Diagonal,)
