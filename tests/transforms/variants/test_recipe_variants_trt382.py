"""The weights-only operator rule (TRT382) on real-code variants: Glow-style log-determinants of a weight.

Each variant in ``tests/recipe_variants/trt382/`` is a small runnable model reduced from real code of a different
author (cited in its docstring): rosinality's ``InvConv2d`` (``torch.slogdet`` of the squeezed weight in float64, back
to float32, times the traced height and width), y0ast's ``InvertibleConv1x1.get_weight`` (a method forward calls, in
a class whose LU branch writes other attributes outside ``__init__``), ikostrikov's ``InvertibleMM`` (the
log-determinant repeated over the batch, summed in place), normflows' ``Invertible1x1Conv.inverse`` (the method the
density evaluation runs) and a course project's ``InvConv`` (sizes read from ``x.size()``, a running log-determinant
as an input). ``torch.slogdet`` has no TorchScript ONNX symbolic, so every original's export stops. Rewritten from the
code alone by the safe rule (no ``--unsafe``), eager mode is unchanged (values, gradients, an empty batch) and the
graph, exported with dynamic axes, equals eager mode in ONNX Runtime at other sizes. ``migrate`` applies TRT382 at the
call and ends at exit 0 with a faithful graph.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from variant_models import assert_migrate_applies, assert_safe_rewrite_exports

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt382"
VARIANTS = sorted(p.stem for p in HERE.glob("*.py"))

#: variant -> the texts its log-determinants become from the code alone.
CODE_ALONE_CALLS: dict[str, tuple[str, ...]] = {
    "rosinality_invconv2d_double": (
        "height * width * _trt_weights_slogdet(self.weight.squeeze().double())[1].float()",),
    "y0ast_get_weight": ("dlogdet = _trt_weights_slogdet(self.weight)[1] * h * w",),
    "ikostrikov_invertible_mm": (
        "return inputs @ self.W, _trt_weights_slogdet(self.W)[-1].unsqueeze(0).unsqueeze(0).repeat(",
        "return inputs @ torch.inverse(self.W), -_trt_weights_slogdet(self.W)[-1].unsqueeze(0).unsqueeze(0).repeat("),
    "normflows_invertible_1x1_inverse": (
        "log_det = -_trt_weights_slogdet(self.W)[1]", "log_det = _trt_weights_slogdet(self.W)[1]"),
    "lunkers_invconv_shape": ("dlogdet = _trt_weights_slogdet(self.w)[1] * height * width",),
}
#: variant -> sizes (as its ``inputs`` takes them) other than the example's; the empty batch where the model runs it.
SIZES: dict[str, list[tuple[int, ...]]] = {
    "rosinality_invconv2d_double": [(1, 1, 1), (3, 9, 4), (0, 3, 5)],
    "y0ast_get_weight": [(1, 1, 1), (4, 7, 3), (0, 2, 2)],
    "ikostrikov_invertible_mm": [(1,), (7,), (0,)],
    "normflows_invertible_1x1_inverse": [(1, 1, 1), (3, 8, 2), (0, 4, 4)],
    "lunkers_invconv_shape": [(1, 1, 1), (3, 2, 9), (0, 5, 5)],
}


def test_the_variants_are_the_five_cited() -> None:
    assert VARIANTS == sorted(CODE_ALONE_CALLS) == sorted(SIZES)
    repositories = set()
    for name in VARIANTS:
        doc = (HERE / f"{name}.py").read_text()
        [(repository, _)] = re.findall(r"from ([\w.-]+/[\w.-]+) @ ([0-9a-f]{40})", doc)
        repositories.add(repository)
    assert len({r.split("/")[0] for r in repositories}) == len(repositories) == 5


@pytest.mark.parametrize("name", VARIANTS)
def test_rewritten_from_the_code_alone_exports_and_keeps_eager(name: str, tmp_path: Path) -> None:
    assert_safe_rewrite_exports(HERE / f"{name}.py", "TRT382", tmp_path, CODE_ALONE_CALLS[name], SIZES[name],
                                "slogdet")


@pytest.mark.parametrize("name", VARIANTS)
def test_migrate_applies_the_rule_end_to_end(name: str) -> None:
    assert_migrate_applies(HERE / f"{name}.py", "TRT382", f"trt382_migrate_{name}")
