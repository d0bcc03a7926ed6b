"""The antialias-resize recipe (TRT725) on real-code variants.

Each variant in ``tests/recipe_variants/trt725/`` is a small runnable model reduced from a public
library (cited in its docstring) that resizes with ``F.interpolate(..., antialias=True)``:
position embeddings resized to the image's patch grid or the clip's frames (the output size
follows the input), and masks or an image shrunk to a fixed size or by four (a variable input). The
antialiasing is written out, a parameter defaulting to True (timm's ``resample_abs_pos_embed``)
or an attribute the module stores once from such a constructor parameter (timm's NaFlexViT).
The TorchScript exporter has no symbolic for the antialiased kernels: the original does not
export. The rule rewrites the file from the code alone (``--unsafe``; migrate keeps it only
verified); the rewritten model exports with both exporters without any ``Resize``, the graph
check finds no TensorRT error, its graph equals eager mode within the rule's stated tolerance
(1e-5 of the largest value, float32) at sizes other than the traced one, at the table's own
size (the identity), on empty batches, zeros and negatives (finite inputs: the rule's stated
assumption), and eager mode is unchanged bit for bit (outputs, gradients, exceptions), inf and
NaN included.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import TESTS, rules_found
from variant_models import (assert_eager_unchanged, assert_graph_near_eager, assert_unsafe_rewrite, exported_graph,
                            input_names, resize_eager_sets, resize_input_sets, rewritten_variant)

from trtcodemod.trt.check import check_graph
from trtcodemod.verify.export import export_model

HERE = TESTS / "recipe_variants" / "trt725"

# name → (fragments of the rewritten code, input shapes at other sizes: the table's own size, up
# and down, a 1x1 grid, an empty batch). The patch-grid models and the mask encoder take no empty
# batch: ONNX Runtime's Reshape cannot infer the -1 of the patch flatten (or of GroupNorm) on 0
# elements; other odd sizes instead.
VARIANTS: dict[str, tuple[tuple[str, ...], list[tuple[int, ...]]]] = {
    "transformers_rf_detr_pos_embed": (("patch_pos_embed = _trt_interpolate(\n",),
                                       [(2, 3, 24, 24), (1, 3, 8, 40), (3, 3, 4, 4), (1, 3, 13, 7)]),
    "timm_resample_abs_pos_embed": (("posemb = _trt_interpolate(posemb, size=new_size, mode=interpolation, "
                                     "align_corners=align_corners, antialias=antialias)",),
                                    [(2, 3, 20, 20), (1, 3, 40, 8), (3, 3, 4, 4), (1, 3, 9, 30)]),
    "timm_naflexvit_pos_embed": (("pos_embed_flat = _trt_interpolate(\n",),
                                 [(2, 3, 20, 28), (1, 3, 40, 8), (3, 3, 4, 4), (1, 3, 13, 27)]),
    # a batch of 2 in the example: the dynamo exporter fixes a dynamic axis traced at size 1
    # (GroupNorm's reshape kept batch 1)
    "ultralytics_sam_mask_downsampler": (("x = _trt_interpolate(\n",),
                                         [(3, 1, 24, 24), (2, 1, 100, 30), (2, 1, 8, 8), (2, 1, 23, 97)]),
    "kornia_sam_resize_like_sam": (("out = _trt_interpolate(x, size=size, mode=\"bilinear\", align_corners=False, "
                                    "antialias=True)",
                                    "out = _trt_interpolate(x.cpu(), size=size, mode=\"bilinear\", align_corners=False, "
                                    "antialias=True).to(x.device)"),
                                   [(1, 3, 24, 32), (3, 3, 100, 17), (1, 3, 5, 9), (0, 3, 40, 40)]),
    # no output width of 1 over several rows (input width 4-7): PyTorch's CPU kernel repeats the
    # first row there, the rule's documented difference
    "sam2_mask_as_output": (("low_res_masks = _trt_interpolate(\n",),
                            [(2, 1, 64, 64), (1, 1, 7, 13), (1, 1, 4, 4), (0, 1, 16, 16)]),
    "transformers_videoprism_temporal_pos": (("source_emb = _trt_interpolate(\n",),
                                             [(1, 8, 6), (3, 13, 6), (1, 1, 6), (0, 4, 6)]),
}


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request, tmp_path_factory) -> dict:
    """The variant, the rewritten model, the original's TorchScript export (it fails) and the
    rewritten model exported with both exporters."""
    folder = tmp_path_factory.mktemp(request.param)
    variant = rewritten_variant(HERE / f"{request.param}.py", "TRT725", folder)
    module, original = variant["module"], variant["original"]
    before = export_model(original, module.inputs(torch.Generator().manual_seed(0)), folder / "original.onnx",
                          exporter="torchscript", input_names=input_names(original), output_names=["out"],
                          dynamic_axes=module.DYNAMIC, opset=17)
    graphs = {dynamo: exported_graph(variant["rewritten"], module, folder / f"rewritten_{dynamo}.onnx", dynamo)
              for dynamo in (False, True)}
    return dict(variant, before=before, graphs=graphs)


def test_the_original_does_not_export(migrated) -> None:
    error = migrated["before"].error
    assert error is not None and "_aa" in error, error  # aten::_upsample_{bilinear,bicubic}2d_aa


def test_the_rule_rewrites_the_antialiased_call_from_the_code_alone(migrated) -> None:
    fragments, _ = VARIANTS[migrated["name"]]
    assert rules_found(migrated["path"].read_text(), select=("TRT725",)) == ["TRT725"] * len(fragments)
    assert_unsafe_rewrite(migrated, fragments, "TRT725")  # no antialiased call left; nothing without --unsafe


def test_the_rewritten_graphs_have_no_resize_and_follow_other_sizes(migrated) -> None:
    _, shapes = VARIANTS[migrated["name"]]
    sets = resize_input_sets(migrated["module"], shapes, 1)
    for dynamo in (False, True):
        graph = migrated["graphs"][dynamo]
        assert "Resize" not in {n.op_type for n in graph.graph.node}, dynamo
        assert not [i for i in check_graph(graph) if i.severity == "error"], dynamo
        assert_graph_near_eager(graph, migrated["original"], sets, 1e-5, f"dynamo={dynamo}")


def test_eager_mode_is_unchanged_bit_for_bit(migrated) -> None:
    _, shapes = VARIANTS[migrated["name"]]
    sets = resize_eager_sets(migrated["module"], shapes, 2)
    assert_eager_unchanged(migrated["original"], migrated["rewritten"], sets)


def test_dinov2s_attribute_defaulting_to_false_is_left_to_trt727_whose_helper_antialiases(tmp_path: Path) -> None:
    """From the code alone DINOv2's ``interpolate_antialias`` defaults to False (the hub passes True
    from another file): TRT725 leaves it; TRT727 takes the literal bicubic call, and the same helper
    exports the antialiased weights when the attribute is True at run time."""
    path = HERE / "dinov2_interpolate_antialias.py"
    assert rules_found(path.read_text(), select=("TRT725",)) == []
    variant = rewritten_variant(path, "TRT727", tmp_path)
    assert "patch_pos_embed = _trt_interpolate(\n" in variant["source"]
    assert variant["original"].interpolate_antialias is True
    shapes = [(1, 3, 20, 20), (3, 3, 40, 8), (1, 3, 4, 4)]
    for dynamo in (False, True):
        graph = exported_graph(variant["rewritten"], variant["module"], tmp_path / f"dinov2_{dynamo}.onnx", dynamo)
        assert "Resize" not in {n.op_type for n in graph.graph.node}, dynamo
        assert not [i for i in check_graph(graph) if i.severity == "error"], dynamo
        assert_graph_near_eager(graph, variant["original"], resize_input_sets(variant["module"], shapes, 1), 1e-5,
                                f"dynamo={dynamo}")
    sets = resize_eager_sets(variant["module"], shapes, 2)
    assert_eager_unchanged(variant["original"], variant["rewritten"], sets)
