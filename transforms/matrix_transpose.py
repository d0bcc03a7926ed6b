"""``x.mT`` → ``_trt_mT(x)`` (TRT314): the matrix-transpose property has no ONNX symbolic.

The inserted helper (``trtcodemod/helpers/transposing.py``) is ``x.mT`` itself outside an export
and ``x.transpose(-2, -1)``, the same view, while exporting.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import helper_call, short_code
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import MODULE_LIKE, in_inserted_helper

HELPER = "_trt_mT"


class MatrixTranspose(Rule):
    needs_text = (b".mT",)
    info = RuleInfo(
        id="TRT314",
        name="matrix-transpose",
        summary="`x.mT` does not export (no ONNX symbolic for aten::mT); transpose the last two axes instead",
        doc="""\
What it finds: the tensor property `x.mT`, the last two axes swapped (a batch of matrices
transposed), read anywhere in run-time code: `A.mT @ A`, `torch.linalg.solve(A.mT, b)`,
descriptor similarities `desc_a @ desc_b.mT` (kornia's DeDoDe, its homography and epipolar
solvers). A parameter named like a module (kornia's fundamental matrix `F` in `F.mT[:, :2]`,
where `F` is usually `torch.nn.functional`) is the function's tensor. `mH` (the conjugate
transpose) is left alone: for a complex tensor it is not a transpose.

Why it hurts: the TorchScript exporter has no symbolic for `aten::mT` at any opset (torch
2.13): `torch.onnx.export` stops with `UnsupportedOperatorError: Exporting the operator
'aten::mT' ...`, so there is no ONNX file for TensorRT at all.

The rewrite: `x.mT` → `_trt_mT(x)`, an inserted helper that is `x.mT` itself in eager mode,
under `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`, and
`x.transpose(-2, -1)` while `torch.onnx.export` runs: the same view (shape, strides, storage),
exported as a `Transpose`, which every TensorRT release parses.

Fix safety: safe. Outside an export nothing changes (one Python call and two flag checks).
While exporting, `transpose(-2, -1)` is `mT` for every tensor of two or more axes: the same
view of the same storage, an in-place write through it reaching `x` as before, the same
gradients. A tensor of fewer axes, which `mT` refuses, and an object that is not a tensor (NumPy
arrays have `mT` too) keep `x.mT` and its error or result.""",
        fix=Safety.SAFE,
        examples=(
            Example("def similarity(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:\n    return a @ b.mT\n",
                    "def similarity(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:\n    return a @ _trt_mT(b)\n"),
            Example("normal = (points.mT @ points).inverse()\n", "normal = (_trt_mT(points) @ points).inverse()\n"),
            Example("def gradient_rows(F, x2):\n    return F.mT[:, :2] @ x2.T\n",
                    "def gradient_rows(F, x2):\n    return _trt_mT(F)[:, :2] @ x2.T\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/tensors.html#torch.Tensor.mT",
            "https://pytorch.org/docs/stable/generated/torch.transpose.html",
            "https://pytorch.org/docs/stable/onnx_torchscript_supported_aten_ops.html",
        ),
    )

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "mT" or in_inserted_helper(self):
            return
        receiver = node.value
        if self.context.qualified_names(receiver) or (
                type(receiver) is cst.Name and receiver.value in MODULE_LIKE and not self._parameter(receiver.value)):
            return  # a module's attribute named mT, not a tensor's property
        if receiver.lpar and type(receiver) not in (cst.Tuple, cst.GeneratorExp, cst.NamedExpr):
            receiver = receiver.with_changes(lpar=[], rpar=[])  # `(a + b).mT`: an argument needs none
        self.report(node, f"`{short_code(node)}`: the TorchScript exporter has no symbolic for `aten::mT`, so the "
                          f"model does not export; `{HELPER}` transposes the last two axes while exporting",
                    Fix({node: helper_call(HELPER, receiver)}, helpers=(HELPER,)))

    def _parameter(self, name: str) -> bool:
        """Is ``name`` a parameter of an enclosing function (kornia's fundamental matrix ``F``), not the
        module a file usually binds it to (``self`` and ``cls`` stay modules)?"""
        if name in ("self", "cls"):
            return False
        for function in self.context.functions:
            params = function.params
            every = [*params.posonly_params, *params.params, *params.kwonly_params]
            every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
            if any(p.name.value == name for p in every):
                return True
        return False


RULES = (MatrixTranspose,)
