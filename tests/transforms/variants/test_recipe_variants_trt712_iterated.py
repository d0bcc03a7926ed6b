"""TRT712 on real-code variants of per-axis size arithmetic over a loop or comprehension target.

Real code rounds each size of a shape in a comprehension: torchreg 0.1.3's pyramid (the user's wrapper of
``gauss_smoothing``, ``[int(round(s / self.scale)) for s in x.shape[2:]]``: ``tests/transforms/
test_iterated_sizes.py``), and in ``tests/recipe_variants/trt712/``, each reduced from another author's
repository (cited in its docstring): DeepLab's multi-scale inputs (kazuto1011/deeplab-pytorch,
``[int(s * p) for s in x.shape[2:]]``) and jitfields' resize by a factor (balbasty/jitfields,
``[pymath.ceil(s*f) for s, f in zip(x.shape[-ndim:], factor)]``). The target is one size each turn
(:meth:`~trtcodemod.transforms._size_facts.SizeRule.iterated_sizes`), so the rounding is TRT712's from the
code alone: the rewrite test below fails without it (no finding). The original exports not faithful (the
example's sizes baked); the rewritten graph equals eager mode at other sizes and on edge values, and eager
mode is unchanged. ``migrate`` applies TRT712 at the line and ends with exit 0, equivalent (these two it
took before too, from the export's TracerWarning at the line; torchreg's `round`, which raises instead of
warning, it did not: that migrate test is in ``test_iterated_sizes.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_follows_where_baked, axes_json, built, export_variant, line_of, load_variant,
                            rewrite_variant, seeded)

from trtcodemod.engine import Options

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt712"

#: variant -> the line's code, and what the rewrite writes there.
VARIANTS = {
    "deeplab_msc_pyramid": ("size = [int(s * p) for s in x.shape[2:]]",
                            "size = [_trt_size_int(s * p) for s in x.shape[2:]]"),
    "jitfields_resize_factor": ("shape = [pymath.ceil(s * f) for s, f in zip(x.shape[-ndim:], self.factor)]",
                                "shape = [_trt_size_ceil(s * f) for s, f in zip(x.shape[-ndim:], self.factor)]"),
}


def _sets(name: str) -> dict[str, tuple[torch.Tensor, ...]]:
    """Other sizes (odd ones: the roundings differ from the example's) and edge values."""
    if name == "deeplab_msc_pyramid":
        return {"other size": (torch.randn(2, 3, 37, 21, generator=seeded(1)),),
                "tiny": (torch.randn(1, 3, 3, 5, generator=seeded(2)),),
                "zeros": (torch.zeros(1, 3, 16, 16),), "negatives": (-torch.rand(1, 3, 29, 40, generator=seeded(3)),)}
    return {"other size": (torch.randn(2, 2, 7, 13, 5, generator=seeded(1)),),
            "ones": (torch.randn(1, 2, 1, 1, 1, generator=seeded(2)),),
            "zeros": (torch.zeros(1, 2, 9, 4, 11),), "negatives": (-torch.rand(1, 2, 15, 6, 9, generator=seeded(3)),)}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_rounds_each_size_in_the_graph_and_the_model_exports_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt712i_m_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["faithful"] is False
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT712", line_of(path, VARIANTS[name][0]))]
    assert report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert VARIANTS[name][1] in report["diff"], report["diff"]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rewrite_follows_the_size_where_the_original_bakes_it(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt712i_d_{name}")
    original = built(module)
    example = module.inputs(seeded(0))
    baked, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    text, after = rewrite_variant(path, Options(select=("TRT712",), unsafe=True, scope="all"), tmp_path,
                                  f"trt712i_d_rewritten_{name}")
    assert VARIANTS[name][1] in text
    rewritten = built(after)
    rewritten.load_state_dict(original.state_dict())
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = _sets(name)
    assert_follows_where_baked(baked, session, original, rewritten, example, sets)
