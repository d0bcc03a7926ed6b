"""The padded-batch recipe (TRT351) on real-code variants: the DETR family's packing of its input batch.

Each variant in ``tests/recipe_variants/trt351/`` is a small runnable model reduced from real code (cited in
its docstring) whose forward packs its 4-D input into a padded batch (and a mask) with the tracing form of
its packing function: DETR's, Conditional DETR's, DINO's, Grounding DINO's and LW-DETR's
``_onnx_nested_tensor_from_tensor_list``, RF-DETR's (sizes through ``torch.as_tensor``, a block size) and
torchvision's ``_onnx_batch_images`` (rounded to ``size_divisible``, no mask). Each takes the largest size
over the images with a comprehension over the batch and pads the images in a loop over it: the TorchScript
export splits the batch into the example's rows, so its graph refuses another batch size.

``migrate`` locates the loops from the export's warnings (the eager run never enters the tracing form),
applies TRT351 at both lines and ends at exit 0 with the rewritten model equivalent; rewritten from the code
alone, each graph equals eager mode at other batch sizes, heights and widths, on zeros and negatives, and
eager mode is the code as written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import assert_eager_unchanged, assert_graph_within, built_variant, export_variant, seeded
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt351"
CODE_ALONE = Options(select=("TRT351",), scope="all")

#: variant -> (the largest size's comprehension, the padding loop), as written.
LINES: dict[str, tuple[str, str]] = {
    "detr_nested_tensor": ("torch.stack([img.shape[i] for img in tensor_list])", "    for img in tensor_list:"),
    "conditional_detr_nested_tensor": ("torch.stack([img.shape[i] for img in tensor_list])",
                                       "    for img in tensor_list:"),
    "dino_valid_ratio": ("torch.stack([img.shape[i] for img in tensor_list])", "    for img in tensor_list:"),
    "groundingdino_nested_tensor": ("torch.stack([img.shape[i] for img in tensor_list])",
                                    "    for img in tensor_list:"),
    "lwdetr_nested_tensor": ("torch.stack([img.shape[i] for img in tensor_list])", "    for img in tensor_list:"),
    "rfdetr_block_size": ("dim_sizes = torch.stack(", "    for img in tensor_list:"),
    "torchvision_batch_images": ("torch.stack([img.shape[i] for img in images])", "        for img in images:"),
}


def _lines(name: str) -> list[int]:
    path = HERE / f"{name}.py"
    return [_line_of(path, fragment) for fragment in LINES[name]]


@pytest.mark.parametrize("name", list(LINES))
def test_found_from_the_code(name: str) -> None:
    path = HERE / f"{name}.py"
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert [(f.rule, f.line) for f in found] == [("TRT351", line) for line in _lines(name)]


@pytest.mark.parametrize("name", ["detr_nested_tensor", "rfdetr_block_size", "torchvision_batch_images"])
def test_migrate_applies_the_rule(name: str) -> None:
    path = HERE / f"{name}.py"
    module, _ = built_variant(path, f"trt351_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == [("TRT351", line)
                                                                               for line in _lines(name)]
    assert report["after"]["faithful"] is True


def _sets(module) -> dict[str, tuple[torch.Tensor]]:
    g = seeded(7)
    return {"batch-3": (torch.rand(3, 3, 12, 10, generator=g),),
            "batch-2-wider": (torch.rand(2, 3, 9, 17, generator=g),),
            "batch-4-small": (torch.rand(4, 3, 5, 6, generator=g),),
            "zeros": (torch.zeros(2, 3, 8, 8),),
            "negatives": (-torch.rand(3, 3, 11, 7, generator=g),)}


@pytest.mark.parametrize("name", list(LINES))
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt351_{name}")
    example = module.inputs(seeded(0))
    new_source = fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode()
    assert new_source.count("_trt_tracing() and isinstance(") == 2, new_source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt351_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    with pytest.raises(Exception, match="split"):  # the example's one row, split off the batch
        assert_graph_within(before, original, _sets(module)["batch-3"], 1e-5, "batch-3")
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in {"example": example, **_sets(module)}.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **_sets(module)})
