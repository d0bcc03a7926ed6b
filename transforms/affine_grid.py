"""``F.affine_grid`` (TRT309): no ONNX symbolic before opset 20, no TensorRT AffineGrid; a base grid
times the affine matrices.

The rewrite calls an inserted helper (``trtcodemod/helpers/affine.py``) that is ``F.affine_grid``
outside an export and, while exporting a 2-D or 3-D grid, PyTorch's own construction of it.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_affine_grid"
_FUNCTION = "torch.nn.functional.affine_grid"
_PARTIAL = "functools.partial"


class AffineGrid(Rule):
    needs_text = (b"affine_grid",)
    info = RuleInfo(
        id="TRT309",
        name="affine-grid",
        summary="`F.affine_grid` does not export before opset 20 and TensorRT has no AffineGrid; build the base grid "
                "and multiply",
        doc="""\
What it finds: `F.affine_grid(theta, size, align_corners=...)` (any import alias of
`torch.nn.functional.affine_grid`), arguments by position or keyword, for 2-D grids (`size` of
four) and 3-D ones (`size` of five), the size written out, unpacked into a list
(`[len(x), len(shape), *shape]`, torchreg) or held by a name (`size=list(src.shape)`, MONAI):
the helper reads its length when the call runs, so the rule need not know it. Unpacked arguments
(`F.affine_grid(*args)`) are reported without a fix. Also
`F.affine_grid` kept as a value and called through a name: the function of a `functools.partial`
or the whole right side of an assignment (OpenPCDet's SECOND head binds
`self.affine_grid = partial(F.affine_grid, align_corners=True)`, or `F.affine_grid` itself, and
calls `self.affine_grid(theta, torch.Size(...))`).

Why it hurts: the TorchScript exporter has no symbolic for `aten::affine_grid_generator` before
opset 20 (torch 2.13; `verify` and `migrate` export at 17): `torch.onnx.export` stops with
`UnsupportedOperatorError`. At opset 20 and later it exports as ONNX `AffineGrid`, which no
TensorRT release parses. Spatial transformer networks and kornia's patch extraction
(`kornia/feature/laf.py`, `extract_patches_from_pyramid`, behind SIFT and KeyNet-AffNet-HardNet)
build their sampling grids this way before `F.grid_sample`.

The rewrite: `F.affine_grid` → `_trt_affine_grid` in the call (only the name: a fix inside the
arguments, `len(x)` → `x.shape[0]`, lands in the same pass), the same arguments. Outside
`torch.onnx.export` it is `F.affine_grid` itself. While exporting a 2-D grid (`size` of four,
`theta` floating of shape `(N, 2, 3)`) it builds the grid as PyTorch does
(`AffineGridGenerator.cpp`): `x` and `y` from `linspace(-1, 1, n)` (times `(n - 1) / n` without
`align_corners`; 0 for one step), a base grid of `(x, y, 1)`, and `bmm` with `theta` transposed;
a 3-D grid (`size` of five, `theta` `(N, 3, 4)`) likewise from a base grid of `(x, y, z, 1)`, `x`
along the width and `z` along the depth. The graph holds Range, Mul, Div, Expand, Concat and
MatMul, which TensorRT parses. A size that is not positive raises F.affine_grid's `ValueError`; a
size of another length or a theta that does not match it keeps `F.affine_grid` (its own error). A bound value becomes the helper
(`partial(_trt_affine_grid, align_corners=True)`, `self.affine_grid = _trt_affine_grid`): it takes
`F.affine_grid`'s parameters under the same names, so every call through the name reaches it with
the arguments it gives.

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run
`F.affine_grid` itself (values, gradients, errors and the warning for `align_corners=None`); a name
bound to the helper holds another function object than `F.affine_grid` (only a test of identity,
`is F.affine_grid`, tells them apart). The
exported graph's values are the same construction; the exporter writes `linspace` as a range
times a step, which rounds otherwise than PyTorch's two-sided `linspace` (measured within 5e-7 in
float32 on grids up to 32 x 32). Before the exporter, the helper's grid equals `F.affine_grid`'s bit
for bit (2-D and 3-D, float32 and float64, both `align_corners`, sizes of one). A size read from a shape is traced (symbolic under the dynamo
exporter, where `torch.linspace` would fix it to the example's): its points come from a range with
`linspace`'s two-sided formula (within half a float epsilon of it), so the grid follows the size
under both exporters, one pixel included (the graph chooses the single point 0; the trace does
not decide it).

TensorRT versions: all (the export fails, or gives AffineGrid, before TensorRT is involved).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def sample(img, theta, ps):\n"
                "    grid = F.affine_grid(theta, [theta.shape[0], img.shape[1], ps, ps], align_corners=False)\n"
                "    return F.grid_sample(img, grid, align_corners=False)\n",
                "def sample(img, theta, ps):\n"
                "    grid = _trt_affine_grid(theta, [theta.shape[0], img.shape[1], ps, ps], align_corners=False)\n"
                "    return F.grid_sample(img, grid, align_corners=False)\n",
            ),
            Example("grid = F.affine_grid(theta, [len(x), len(shape), *shape], align_corners)\n",
                    "grid = _trt_affine_grid(theta, [len(x), len(shape), *shape], align_corners)\n"),
            Example("grid = F.affine_grid(*args)\n"),
            Example(
                "from functools import partial\n"
                "self.affine_grid = partial(F.affine_grid, align_corners=True)\n",
                "from functools import partial\n"
                "self.affine_grid = partial(_trt_affine_grid, align_corners=True)\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.affine_grid.html",
            "https://onnx.ai/onnx/operators/onnx__AffineGrid.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        if self.context.refers_to(node.func, _PARTIAL):
            bound = node.args[0] if node.args else None
            if bound is not None and not bound.star and bound.keyword is None:
                self._bound_value(bound.value, "`partial(F.affine_grid, ...)`")
            return
        if not self.context.refers_to(node.func, _FUNCTION):
            return
        message = ("the TorchScript exporter cannot convert `F.affine_grid` (aten::affine_grid_generator) before "
                   "opset 20, and TensorRT parses no AffineGrid")
        if has_star_args(node) or argument(node, 0, "theta") is None or argument(node, 1, "size") is None:
            self.report(node, f"{message}; build the base grid and multiply by theta (not rewritten: unpacked "
                        "arguments)")
            return
        self.report(node, f"{message}; build the base grid and multiply by theta while exporting (`F.affine_grid` "
                    "otherwise)", Fix({node.func: cst.Name(HELPER)}, helpers=(HELPER,)))

    def visit_Assign(self, node: cst.Assign) -> None:
        if not in_inserted_helper(self):
            self._bound_value(node.value, "a name bound to `F.affine_grid`")

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and not in_inserted_helper(self):
            self._bound_value(node.value, "a name bound to `F.affine_grid`")

    def _bound_value(self, value: cst.BaseExpression, how: str) -> None:
        """``F.affine_grid`` as a value, called later through a name: the name gets the helper, which
        takes the same parameters (the calls cannot be found from here: an attribute, a partial)."""
        if not self.context.refers_to(value, _FUNCTION):
            return
        self.report(value, f"{how} is called with `F.affine_grid`'s arguments, which the TorchScript exporter cannot "
                    "convert (aten::affine_grid_generator) before opset 20, and TensorRT parses no AffineGrid; bind "
                    "the helper instead: `F.affine_grid` outside an export, the base grid times theta while exporting",
                    Fix({value: cst.Name(HELPER)}, helpers=(HELPER,)))


RULES = (AffineGrid,)
