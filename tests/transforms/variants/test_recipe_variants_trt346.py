"""The size-numel recipe (TRT346) on real-code variants.

Each variant in ``tests/recipe_variants/trt346/`` is a small runnable model reduced from real code
(cited in its docstring) that counts elements with ``numel()`` of a ``torch.Size``: Idefics2's padding
images (``(pixel_values == 0.0).sum(...) != pixel_values.shape[1:].numel()``), MONAI's RetinaNet anchor
counts per level (``[x.shape[2:].numel() for x in head_outputs]``, then a ``split`` by them), timm's
Fourier position embedding (``x.reshape(B, feat_shape.numel(), -1)`` with ``feat_shape = x.shape[2:]``)
kornia's descriptors (``descriptors.reshape(B, N, descriptors.shape[1:].numel())``) and U-Mamba's
bottleneck (``x.reshape(B, C, x.shape[2:].numel())``, the map's pixels as tokens).

The TorchScript export keeps the traced count and warns nowhere. At another height or width
RetinaNet's ``Split`` and timm's and U-Mamba's ``Reshape`` fail in ONNX Runtime; Idefics2's graph runs and calls a
padding image real, which random inputs never show: ``migrate`` traces again at other sizes because the
code holds a finding of a rule whose bake is silent, ties the first changed node to the finding and
applies TRT346, ending with exit 0 and the rewritten model equivalent. kornia's count is over the patch,
a constant of the extractor: with the batch and the keypoints dynamic the graph follows the sizes and
``migrate`` leaves the call. Rewritten from the code alone, each graph equals eager mode at other sizes
and on edge values, and eager mode is unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant, load_variant,
                            seeded, with_specials)
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt346"
CODE_ALONE = Options(select=("TRT346",), scope="all")

#: variant -> the call TRT346 takes, as written, and whether the original's export bakes a size that matters.
CALLS: dict[str, tuple[str, bool]] = {
    "idefics2_padding_images": ("pixel_values.shape[1:].numel()", True),
    "monai_retinanet_levels": ("x.shape[2:].numel()", True),
    "timm_fourier_embed": ("feat_shape.numel()", True),
    "kornia_laf_descriptors": ("descriptors.shape[1:].numel()", False),
    "umamba_bottleneck_tokens": ("x.shape[2:].numel()", True),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_migrate_applies_the_rule_where_the_count_is_baked(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt346_m_{name}")
    call, baked = CALLS[name]
    line = _line_of(path, call)
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [f.line for f in found] == [line]
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    if not baked:
        assert report["retrace"]["same"] is True, report.get("retrace")  # asked for by the finding, same graph
        assert applied == [], applied
        return
    assert applied == [("TRT346", line)], applied
    added = [text for text in report["diff"].splitlines() if text.startswith("+") and "_trt_size_numel(" in text]
    assert any("def _trt_size_numel(" in text for text in added)
    assert any("def " not in text and ".numel()" not in text for text in added), report["diff"]  # the call


def _sets(name: str) -> dict[str, tuple[torch.Tensor, ...]]:
    """Other sizes of the dynamic axes, edge values (zeros, negatives, infinities and NaN)."""
    if name == "idefics2_padding_images":
        padded = torch.rand(3, 2, 3, 20, 12, generator=seeded(2))
        padded[0, 1] = 0.0
        padded[2, 0] = 0.0
        return {"batch-1": (torch.rand(1, 2, 3, 16, 24, generator=seeded(1)),), "padding-at-another-size": (padded,),
                "zeros": (torch.zeros(2, 2, 3, 8, 8),), "negatives": (-torch.rand(2, 2, 3, 12, 16, generator=seeded(3)),),
                "specials": (with_specials((2, 2, 3, 8, 12), 4),)}
    if name == "monai_retinanet_levels":
        return {"batch-1": (torch.rand(1, 1, 16, 24, generator=seeded(1)),),
                "taller": (torch.rand(3, 1, 40, 12, generator=seeded(2)),),
                "zeros": (torch.zeros(2, 1, 8, 8),), "negatives": (-torch.rand(2, 1, 20, 28, generator=seeded(3)),)}
    if name == "timm_fourier_embed":
        return {"batch-1": (torch.randn(1, 3, 6, 8, generator=seeded(1)),),
                "larger": (torch.randn(3, 3, 9, 5, generator=seeded(2)),),
                "specials": (with_specials((2, 3, 4, 7), 3),)}
    if name == "umamba_bottleneck_tokens":
        return {"batch-1": (torch.randn(1, 1, 12, 16, generator=seeded(1)),),
                "other-map": (torch.randn(3, 1, 20, 10, generator=seeded(2)),),
                "zeros": (torch.zeros(2, 1, 8, 8),), "negatives": (-torch.rand(2, 1, 6, 14, generator=seeded(3)),),
                "specials": (with_specials((2, 1, 10, 12), 4),)}
    return {"batch-1": (torch.rand(1, 5, 1, 16, 16, generator=seeded(1)),),
            "more-keypoints": (torch.rand(3, 11, 1, 16, 16, generator=seeded(2)),),
            "zeros": (torch.zeros(2, 3, 1, 16, 16),)}


@pytest.mark.parametrize("name", list(CALLS))
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt346_{name}")
    example = module.inputs(seeded(0))
    new_source = fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode()
    assert new_source.count("_trt_size_numel(") == 2, new_source  # the call and its def
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt346_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    if CALLS[name][1]:  # the original's graph: exported, wrong (or refused) at another size
        before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
        with pytest.raises((AssertionError, Exception)):  # noqa: B017 - a refused Split/Reshape or other values
            for label, inputs in _sets(name).items():
                assert_graph_within(before, original, inputs, 1e-5, label)
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in {"example": example, **_sets(name)}.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **_sets(name)})
