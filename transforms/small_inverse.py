"""``torch.inverse`` / ``torch.linalg.inv`` / ``torch.linalg.solve`` (TRT338): the adjugate while exporting.

The rewrite calls inserted helpers (``trtcodemod/helpers/inverse.py``) that are the torch functions
outside an export and, while exporting, the closed-form inverse of 2x2, 3x3 and 4x4 matrices
(transposed cofactors over the determinant) and Gaussian elimination with partial pivoting,
unrolled, for 5x5 up to 128x128; larger sizes keep the torch function, whose export fails as
before. Unsafe: it rounds differently from LAPACK's LU, and a singular matrix gives
infinities or NaN where torch raises.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import as_argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper, tensor_method_receiver

INVERSE = "_trt_inverse"
SOLVE = "_trt_solve"
_INVERSES = ("torch.inverse", "torch.linalg.inv")
_SOLVES = ("torch.linalg.solve",)
#: Determinants (ONNX Det, which no TensorRT release parses): the helper, and the matrix's parameter name.
_DETERMINANTS = {"torch.det": ("_trt_det", "input"), "torch.linalg.det": ("_trt_det", "A"),
                 "torch.logdet": ("_trt_logdet", "input")}
_METHODS = {"inverse": INVERSE, "det": "_trt_det", "logdet": "_trt_logdet"}


class SmallInverse(Rule):
    needs_text = spelled(*_INVERSES, *_SOLVES, *_DETERMINANTS)
    info = RuleInfo(
        id="TRT338",
        name="small-inverse",
        summary="`torch.inverse`/`torch.linalg.inv`/`torch.linalg.solve` do not export and `torch.det` exports as "
                "Det, which TensorRT does not parse; the adjugate over the determinant for 2x2, 3x3 and 4x4 "
                "matrices, pivoted elimination up to 128x128, while exporting",
        doc="""\
What it finds: `torch.inverse(m)`, `torch.linalg.inv(m)`, the method `m.inverse()`,
`torch.linalg.solve(A, B)`, and the determinants `torch.det(m)`, `torch.linalg.det(m)`,
`torch.logdet(m)`, `m.det()` and `m.logdet()`. Calls with other arguments (`out=`, `left=False`,
unpacked ones) are reported without a fix; an `inverse(...)` or `det(...)` method with arguments is
not a tensor's and is left alone.

Why it hurts: the TorchScript exporter has no symbolic for `aten::linalg_inv` or
`aten::linalg_solve` (torch 2.13, any opset), and no ONNX op TensorRT parses inverts a matrix:
the export stops with `UnsupportedOperatorError`. kornia inverts its homographies and affine maps
in forward code (`_torch_inverse_cast` in `kornia/utils/helpers.py`, called by
`warp_perspective`, `warp_affine`, `normalize_homography` and the homography estimators: some
80 calls), so models built on them do not export. A determinant exports, as ONNX `Det`, which no
TensorRT release parses: geometry code checks a rotation's handedness or a Jacobian's volume with
`torch.det` (pose and point-cloud registration heads, normalizing flows' `logdet` terms).

The rewrite: `torch.linalg.inv(m)` → `_trt_inverse(m)` (`m.inverse()` too), `torch.linalg.solve(A,
B)` → `_trt_solve(A, B)`, inserted helpers. Outside `torch.onnx.export` they are the torch
functions themselves. While exporting, a float tensor of 2x2, 3x3 or 4x4 matrices (the last two
sizes, static while tracing; batch axes may be dynamic) takes the closed form: each cofactor the
written-out determinant of its minor, the determinant row 0 times its cofactors, the inverse the
transposed cofactors over the determinant (Gather, Mul, Sub, Div, Concat); `solve` is that
inverse times `B` (a MatMul). A matrix of 5x5 up to 128x128 (kornia's thin-plate spline solves an
`(N + 3) x (N + 3)` system in `get_tps_transform`; normal equations of a least-squares fit, a
Kalman gain's innovation covariance) takes Gaussian elimination with partial pivoting in LAPACK's
`getrf`/`getrs` order, unrolled over the static size: per column an ArgMax of the magnitudes at
and below the diagonal (the first largest, as LAPACK), a GatherElements of the pivot row, two
Where to swap it with the current row, a Sub of its multiples from the rows below; then back
substitution, a MatMul and a Div per row. `solve`'s `B` may be a batch of vectors, of matrices,
one matrix or a batch of one for the whole batch (a TPS module's `torch.linalg.solve(L, Z)` with
`Z` of shape `(1, k + 3, 2)`), as torch broadcasts; the inverse solves against the identity.
Real code it takes: kornia's `get_tps_transform` (`_torch_solve_cast`, 9x9 for six point pairs),
the TPS module copied across warping repositories (`TPS_coeffs`, 80x80 for 77 points), MuyGPyS's
`_muygps_compute_solve` (a nearest-neighbour kernel matrix per batch item). Larger sizes keep the
torch function, so their export still fails (the finding says so): invert them outside the
network, or precompute constant ones. `torch.det(m)` → `_trt_det(m)` and `torch.logdet(m)` →
`_trt_logdet(m)`: while exporting, a 1x1 to 4x4 determinant written out (cofactors along row 0),
a 5x5 to 128x128 one the product of the same elimination's pivots times the sign of its row swaps
(LAPACK's `getrf`, which torch's determinant uses too), and `logdet` its logarithm (NaN for a
negative determinant, -inf for zero, as torch). Half-precision matrices keep the torch function
and its error (torch's LU refuses them).

Fix safety: unsafe (`--unsafe`, or verified by `migrate`). Eager, `torch.jit.script`,
`torch.fx`, `torch.compile` and `torch.export` run the torch function itself. The exported
closed form rounds differently from LAPACK's LU factorisation (a few ulps on well-conditioned
matrices, more on ill-conditioned ones); the exported elimination pivots as LAPACK does but
sums in another order (blocked `getrf` reassociates), and a singular matrix gives infinities or
NaN where torch raises `torch.linalg.LinAlgError`.

TensorRT versions: all (the export fails before TensorRT is involved).""",
        fix=Safety.UNSAFE,
        assumption="the matrices inverted while exporting are at most 128x128, not singular and conditioned well "
                   "enough that the closed form's or the unrolled elimination's rounding (not LAPACK's) is good enough",
        fails_when=("a singular matrix: the graph divides by a zero determinant (infinities, NaN) where torch raises",
                    "an ill-conditioned matrix: the cofactors' cancellation loses digits LU pivoting keeps",
                    "a matrix larger than 128x128: the helper keeps `torch.linalg.inv`, and the export fails as before"),
        examples=(
            Example(
                "def warp_points(homography, points):\n"
                "    inverse = torch.inverse(homography)\n"
                "    return (inverse[:, None, :2, :2] @ points[..., None]).squeeze(-1)\n",
                "def warp_points(homography, points):\n"
                "    inverse = _trt_inverse(homography)\n"
                "    return (inverse[:, None, :2, :2] @ points[..., None]).squeeze(-1)\n",
                unsafe=True,
            ),
            Example("dst_norm = src_norm @ dst_to_src.inverse()\n", "dst_norm = src_norm @ _trt_inverse(dst_to_src)\n",
                    unsafe=True),
            Example("x = torch.linalg.solve(A, b, left=False)\n"),
            Example("def handedness(rotation):\n    return torch.linalg.det(rotation) < 0\n",
                    "def handedness(rotation):\n    return _trt_det(rotation) < 0\n", unsafe=True),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.linalg.inv.html",
            "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        name = self.context.refers_to(node.func, *_INVERSES, *_SOLVES, *_DETERMINANTS)
        receiver = tensor_method_receiver(self, node, tuple(_METHODS)) if name is None else None
        if name is None and receiver is None:
            return
        method = node.func.attr.value if receiver is not None else ""  # type: ignore[attr-defined]
        if name in _DETERMINANTS or method in ("det", "logdet"):
            helper, parameter = _DETERMINANTS[name] if name else (_METHODS[method], "")
            shown = name or f"Tensor.{method}"
            message = (f"`{shown}` exports as ONNX Det, which no TensorRT release parses; write the determinant out "
                       "(1x1 to 4x4) or take the product of a pivoted elimination's pivots (5x5 to 128x128) while "
                       "exporting (larger sizes keep Det; rounding differs from LAPACK)")
            wanted: tuple[str, ...] = (parameter,) if receiver is None else ()
        elif name in _SOLVES:
            helper, shown, wanted = SOLVE, "torch.linalg.solve", ("A", "B")
            message = ""
        else:
            helper, shown, wanted = INVERSE, "torch.linalg.inv", ("input",) if receiver is None else ()
            message = ""
        message = message or (
            f"the TorchScript exporter cannot convert `{shown}`, so the model does not export; take the "
            "adjugate over the determinant (2x2 to 4x4) or pivoted elimination (5x5 to 128x128) while exporting "
            "(larger sizes still do not export; rounding differs from LAPACK, a singular matrix gives inf/NaN)")
        keywords = [a.keyword.value for a in node.args if a.keyword is not None]
        positional = [a for a in node.args if a.keyword is None]
        if (has_star_args(node) or len(node.args) != len(wanted) or any(k not in wanted for k in keywords)
                or set(keywords) & set(wanted[:len(positional)])):
            if receiver is not None:
                return  # a tensor's `inverse()` takes no argument: another object's (`cropper.inverse(image)`)
            self.report(node, f"{message} (not rewritten: other arguments)")
            return
        if receiver is not None:
            args = [cst.Arg(value=as_argument(receiver))]
        elif helper == SOLVE:
            args = list(node.args)
        else:  # the helper's one parameter is `input`, whatever torch's function calls it
            args = [cst.Arg(value=node.args[0].value)]
        self.report(node, message, Fix({node: cst.Call(func=cst.Name(helper), args=args)}, safety=Safety.UNSAFE,
                                       helpers=(helper,)))


RULES = (SmallInverse,)
