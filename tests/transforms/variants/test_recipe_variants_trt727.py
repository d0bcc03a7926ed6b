"""The bicubic-weights recipe (TRT727) on real-code variants.

Each variant in ``tests/recipe_variants/trt727/`` is a small runnable model reduced from a public
library (cited in its docstring) that resizes bicubically: position embeddings resized to the
image's patch grid, a depth map or chroma channels resized to the image, coarse-to-fine logits.
Both exporters emit a cubic ``Resize``, which TensorRT's parser rejects (the graph check reports
TRT727). The rule rewrites the file from the code alone (``--unsafe``; migrate keeps it only
verified); the rewritten model exports with both exporters without any ``Resize`` of the cubic
kind, its graph equals eager mode up to float rounding at other sizes and on zeros and negatives
(finite inputs: the rule's stated assumption), and eager mode is unchanged bit for bit (outputs,
gradients, exceptions).
"""

from __future__ import annotations


import onnx
import pytest
import torch
from variant_models import (assert_eager_unchanged, assert_graph_near_eager, assert_unsafe_rewrite, exported_graph,
                            resize_eager_sets, resize_input_sets, rewritten_variant)

from trtcodemod.trt.check import check_graph
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt727"

# name → (fragments of the rewritten code, input shapes at other sizes)
VARIANTS: dict[str, tuple[tuple[str, ...], list[tuple[int, ...]]]] = {
    "kornia_small_sr": (("out_cb = _trt_interpolate(cb, scale_factor=self.upscale_factor, mode=\"bicubic\")",
                         "out_cr = _trt_interpolate(cr, scale_factor=self.upscale_factor, mode=\"bicubic\")"),
                        [(2, 3, 9, 5), (1, 3, 1, 3), (0, 3, 4, 4)]),
    "kornia_depth_resize": (("depth = _trt_interpolate(depth, size=tuple(images.shape[-2:]), mode=\"bicubic\", "
                             "align_corners=False)",),
                            [(1, 3, 7, 20), (3, 3, 3, 2), (0, 3, 6, 6)]),
    "kornia_dedode_detector": (("logits = _trt_interpolate(logits, size=size, mode=\"bicubic\", align_corners=False)",),
                               [(2, 1, 13, 21), (1, 1, 4, 5), (0, 1, 8, 8)]),
    # no empty batch: ONNX Runtime's Reshape cannot infer the -1 of the patch flatten on 0 elements
    "transformers_yolos_pos_embed": (("patch_pos_embed = _trt_interpolate(\n",),
                                     [(1, 3, 8, 36), (3, 3, 4, 4), (1, 3, 13, 7)]),
    "transformers_clap_spectrogram": (("normalized_input_features = _trt_interpolate(\n",),
                                      [(1, 1, 5, 13), (3, 1, 31, 2), (0, 1, 10, 8)]),
}


def _cubic(model: onnx.ModelProto) -> list[str]:
    """The graph check's TRT727 findings (a cubic Resize)."""
    return [i.op for i in check_graph(model) if i.rule == "TRT727"]


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request, tmp_path_factory) -> dict:
    """The variant, the rewritten model, and both models exported with both exporters."""
    folder = tmp_path_factory.mktemp(request.param)
    variant = rewritten_variant(HERE / f"{request.param}.py", "TRT727", folder)
    graphs = {(kind, dynamo): exported_graph(variant[kind], variant["module"], folder / f"{kind}_{dynamo}.onnx", dynamo)
              for kind in ("original", "rewritten") for dynamo in (False, True)}
    return dict(variant, graphs=graphs)


def test_the_original_exports_a_cubic_resize(migrated) -> None:
    for dynamo in (False, True):
        assert _cubic(migrated["graphs"][("original", dynamo)]), dynamo


def test_the_rule_rewrites_every_bicubic_call_from_the_code_alone(migrated) -> None:
    fragments, _ = VARIANTS[migrated["name"]]
    assert_unsafe_rewrite(migrated, fragments, "TRT727")  # no bicubic call left; nothing without --unsafe


def test_the_rewritten_graphs_have_no_cubic_resize_and_follow_other_sizes(migrated) -> None:
    _, shapes = VARIANTS[migrated["name"]]
    sets = resize_input_sets(migrated["module"], shapes, 1)
    for dynamo in (False, True):
        graph = migrated["graphs"][("rewritten", dynamo)]
        assert not any(n.op_type == "Resize" and any(a.s == b"cubic" for a in n.attribute) for n in graph.graph.node)
        assert not [i for i in check_graph(graph) if i.severity == "error"], dynamo
        assert_graph_near_eager(graph, migrated["original"], sets, 1e-5, f"dynamo={dynamo}")


def test_eager_mode_is_unchanged_bit_for_bit(migrated) -> None:
    _, shapes = VARIANTS[migrated["name"]]
    sets = resize_eager_sets(migrated["module"], shapes, 2)
    assert_eager_unchanged(migrated["original"], migrated["rewritten"], sets)
