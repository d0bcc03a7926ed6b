"""``torch.diag`` (TRT320): no ONNX symbolic; the matrix of a vector, or the diagonal of a matrix, by
indexing. ``torch.diagonal`` (the same family): an EyeLike of a run-time shape; the diagonal gathered.

The rewrite calls an inserted helper (``trtcodemod/helpers/diagonal.py``) that is ``torch.diag``
(``torch.diagonal``) outside an export and, while exporting, builds either meaning from ranges of
the input's size.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import torch_operator_call

HELPER = "_trt_diag"
DIAGONAL_HELPER = "_trt_diagonal"


class Diagonal(Rule):
    needs_text = (b"diag",)
    info = RuleInfo(
        id="TRT320",
        name="diag-by-index",
        summary="`torch.diag` does not export (no ONNX symbolic), `torch.diagonal` exports as an EyeLike of a run-time "
                "shape; build the matrix or take the diagonal by indexing",
        doc="""\
What it finds: `torch.diag(x)` and `torch.diag(x, diagonal)`, also as a method (`x.diag()`),
arguments by position or keyword. A call with `out=` or unpacked arguments is reported without a
fix. Also `torch.diagonal(x, offset, dim1, dim2)` and `x.diagonal(...)` (the diagonal family:
MONAI's MMD writes `torch.diag(torch.diagonal(y_y))`), arguments by position or keyword; with
unpacked arguments or a keyword it does not take (`outdim=`, named dimensions) it is reported
without a fix. `torch.diag_embed` and `torch.diagflat` are other functions (both export).

Why it hurts: the TorchScript exporter has no symbolic for `aten::diag` at any opset (torch 2.13):
`torch.onnx.export` stops with `UnsupportedOperatorError`. Forward code builds diagonal matrices
with it: kornia's guided filter regularises a covariance with `eps` on its diagonal
(`guidance.new_full((C,), eps).diag()`, `filters/guided.py:152`), kornia's quaternion fit weighs
points with `torch.diag(w)` (`geometry/quaternion.py:760`), MONAI's `normalize_transform` scales an
affine with `torch.diag(torch.cat((norm, ...)))` (`networks/utils.py:272`, in `AffineTransform`'s
forward) and its MMD metric drops a diagonal with `torch.diag(torch.diagonal(y_y))`
(`metrics/mmd.py:80`). `torch.diagonal` exports (TorchScript, opset 17, any offset and
dimensions, measured with torch 2.13) as the input times an `EyeLike` of a `ConstantOfShape` of
its sizes, summed (Mul, ReduceSum, then an `If` on the size): with dynamic axes the EyeLike's
shape is computed at run time, and TensorRT builds EyeLike only from static dimensions (the graph
check names it here). The product also changes values: an infinity off the diagonal times the
EyeLike's 0 is NaN, so the diagonal element of its row becomes NaN in the graph (eager mode keeps
it). kornia's `angle_error_mat` takes a trace with `relative.diagonal(dim1=-2, dim2=-1)`
(`metrics/pose.py`).

The rewrite: `torch.diag(x, d)` → `_trt_diag(x, d)` (the receiver first for the method). Outside
`torch.onnx.export` it is `torch.diag` itself. While exporting, of a vector of length `n`: a
square of side `n + |d|` that holds the vector, padded with zeros, where `column - row == d`
(Range, Sub, Equal, Where); of a matrix: the block the diagonal crosses (Slice, clamped to the
size) and every `(k + 1)`-th of its flattened elements (Range, Mul, Gather). Values are copied,
never multiplied, so NaN and infinities stay where they were; sizes follow dynamic axes. What
torch refuses (a 0-d or 3-d input) and an offset that is not a Python int keep `torch.diag`.
`torch.diagonal(x, offset, dim1, dim2)` → `_trt_diagonal(x, offset, dim1, dim2)` (the receiver
first for the method): outside an export `torch.diagonal` itself (a view; another array type's
own `.diagonal`, for NumPy's method of the same name); while exporting, with Python int offset and
dimensions torch accepts, the two dimensions moved last (Transpose), the block the diagonal
crosses (Slice, clamped), and element `i` of its row `i` (GatherElements of a Range broadcast over
the other axes, then a Gather of index 0): no EyeLike, no product, so infinities and NaN off the
diagonal stay out of it; the diagonal is the last axis, as torch puts it. Anything else keeps
`torch.diagonal`.

Fix safety: safe for `torch.diag`. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and
`torch.export` run `torch.diag` itself (values, gradients, errors; the diagonal of a matrix is a
copy there as in the graph). The exported graph holds the same values (ONNX Runtime's Where writes
a selected `-0.0` as `0.0`; the graph selects it). Unsafe for `torch.diagonal`: it returns a view,
and the export form is a gathered copy, so code that writes in place through the diagonal (and
reads the tensor) or into the tensor (and reads the diagonal) sees the write in eager mode but not
in the traced graph. (The original does no better: the TorchScript exporter drops both writes with
`torch.diagonal` itself, measured; eager mode, which the helper leaves to `torch.diagonal`, keeps
the view.) `migrate` tries it as a candidate and keeps it only when the rewritten model is
equivalent on every input set.

TensorRT versions: all (the export fails before TensorRT is involved).""",
        fix=Safety.SAFE,
        assumption="nothing writes in place through the diagonal `torch.diagonal` returns, or into its tensor "
                   "while the diagonal is still read (the exported diagonal is a copy, not a view)",
        fails_when=(
            "the diagonal is written in place (`x.diagonal().add_(eps)`, `.fill_(0)`) and the tensor is read after",
            "the tensor is written in place after its diagonal was taken, and the diagonal is read after",
        ),
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
            Example("off_diagonal = y_y.sum() - torch.diagonal(y_y).sum()\n",
                    "off_diagonal = y_y.sum() - _trt_diagonal(y_y).sum()\n", unsafe=True),
            Example("trace = relative.diagonal(dim1=-2, dim2=-1).sum(-1)\n",
                    "trace = _trt_diagonal(relative, dim1=-2, dim2=-1).sum(-1)\n", unsafe=True),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.diag.html",
            "https://pytorch.org/docs/stable/generated/torch.diagonal.html",
            "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = torch_operator_call(self, node, ("diag", "diagonal"))
        if found is None:
            return
        name, tensor, first = found
        if name == "diagonal":
            self._diagonal(node, tensor, first)
            return
        message = "the TorchScript exporter cannot convert `torch.diag` (aten::diag), so the model does not export"
        keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        positional = [arg for arg in node.args[first:] if arg.keyword is None]
        if tensor is None or has_star_args(node) or keywords - {"input", "diagonal"} or len(positional) > 1:
            self.report(node, f"{message}; build it by indexing (not rewritten: `out`, unpacked, missing or other "
                        "arguments)")
            return
        self.report(node, f"{message}; build it by indexing while exporting (`torch.diag` otherwise)",
                    Fix(dict([_helper_call(node, HELPER, tensor, first)]), helpers=(HELPER,)))

    def _diagonal(self, node: cst.Call, tensor: cst.Arg | None, first: int) -> None:
        message = ("`torch.diagonal` exports as the input times an EyeLike of its run-time shape, which TensorRT "
                   "builds only from static dimensions")
        keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        positional = [arg for arg in node.args[first:] if arg.keyword is None]
        if tensor is None or has_star_args(node) or keywords - {"input", "offset", "dim1", "dim2"} \
                or len(positional) > 3:
            self.report(node, f"{message}; gather it (not rewritten: unpacked, missing or other arguments)")
            return
        self.report(node, f"{message}; gather it while exporting (`torch.diagonal`, a view, otherwise; the gathered "
                    "diagonal is a copy)",
                    Fix(dict([_helper_call(node, DIAGONAL_HELPER, tensor, first)]), helpers=(DIAGONAL_HELPER,),
                        safety=Safety.UNSAFE))


def _helper_call(node: cst.Call, helper: str, tensor: cst.Arg, first: int) -> tuple[cst.CSTNode, cst.CSTNode]:
    """What becomes ``helper(<the tensor>, <the other arguments>)``, and its replacement. A function
    call with the tensor first by position only changes its name, so a call in its arguments is
    another fix's (``torch.diag(torch.diagonal(y))``: both in one pass); otherwise the whole call, with
    the tensor (the receiver of a method) first."""
    if first and node.args and node.args[0] is tensor and tensor.keyword is None:
        return node.func, cst.Name(helper)
    rest = [arg for arg in node.args if arg is not tensor] if first else list(node.args)
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    tensor_arg = cst.Arg(value=tensor.value, comma=comma if rest else cst.MaybeSentinel.DEFAULT)
    if rest:
        rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return node, node.with_changes(func=cst.Name(helper), args=[tensor_arg, *rest])


RULES = (Diagonal,)
