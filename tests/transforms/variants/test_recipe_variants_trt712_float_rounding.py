"""TRT712 on real-code variants of a size rounded up through ``float``: ``math.ceil(float(h) / stride)``.

Two libraries by other authors write the stride arithmetic with ``float`` of the size inside the rounding, in
``tests/recipe_variants/trt712/`` (each cites its source): ptlflow's input scaler (``int(math.ceil(float(h) /
stride)) * stride`` on sizes its ``__init__`` keeps, zoo 54's FastFlowNet) and pytorchcv's TensorFlow-style "SAME"
padding (``math.ceil(float(height) / stride)`` with the stride a keyword argument, then ``max`` of it). Rewriting
only the ``float`` left ``math.ceil`` reading the traced number, so the graph kept the example's size and ``migrate``
took the fixes back as not proved. The rounding is rewritten whole now (``_trt_size_ceil(_trt_size_float(h) /
stride)``): the rewrite tests below fail without it. The original exports not faithful; the rewritten graph equals
eager mode at other sizes and on edge values, eager mode is unchanged, and ``migrate`` ends with exit 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_follows_where_baked, axes_json, built, export_variant, line_of, load_variant,
                            observed_facts, rewrite_variant, seeded)

from trtcodemod.engine import Options

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt712"

#: variant -> the lines' code, and what the rewrite writes there (with the facts of a recorded run: the sizes
#: are held on `self` or handed down as arguments, which the code alone does not show to be sizes).
VARIANTS = {
    "ptlflow_stride_scaler": (
        "self.tgt_height = int(math.ceil(float(self.orig_height) / stride)) * stride",
        "self.tgt_height = _trt_size_ceil(_trt_size_float(self.orig_height) / stride) * stride"),
    "pytorchcv_tf_same_padding": (
        "oh = math.ceil(float(height) / stride)",
        "oh = _trt_size_ceil(_trt_size_float(height) / stride)"),
}


def _sets(name: str) -> dict[str, tuple[torch.Tensor, ...]]:
    """Other sizes (rounded up to other multiples than the example's), a tiny one and edge values."""
    shape = (1, 6, 40, 56) if name == "ptlflow_stride_scaler" else (1, 4, 16, 20)
    channels = shape[1]
    return {"other size": (torch.randn(2, channels, 33, 71, generator=seeded(1)),),
            "tiny": (torch.randn(1, channels, 3, 5, generator=seeded(2)),),
            "zeros": (torch.zeros(shape),), "negatives": (-torch.rand(1, channels, 29, 17, generator=seeded(3)),),
            "infinities": (torch.full(shape, float("inf")),)}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rewrite_follows_the_size_where_the_original_bakes_it(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt712f_d_{name}")
    original = built(module)
    example = module.inputs(seeded(0))
    baked, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    facts = observed_facts(path, module, tmp_path, traced)
    text, after = rewrite_variant(path, Options(select=("TRT712",), unsafe=True, scope="all", facts=facts), tmp_path,
                                  f"trt712f_d_rewritten_{name}")
    assert VARIANTS[name][1] in text, text
    code = text.split('"""', 2)[2]  # past the module docstring, which quotes the original
    assert "math.ceil(float(" not in code, code
    rewritten = built(after)
    rewritten.load_state_dict(original.state_dict())
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = _sets(name)
    assert_follows_where_baked(baked, session, original, rewritten, example, sets)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_rounds_the_size_in_the_graph_and_the_model_exports_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt712f_m_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["faithful"] is False
    assert ("TRT712", line_of(path, VARIANTS[name][0])) in [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert not report["reverted"], report["reverted"]
    assert report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert VARIANTS[name][1] in report["diff"], report["diff"]
