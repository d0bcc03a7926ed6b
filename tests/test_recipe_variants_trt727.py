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

from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from safety import assert_same_run, run_once
from support import rules_found
from variant_models import export_variant, export_variant_dynamo, input_names, rewritten_variant

from trtcodemod.trt.check import check_graph

HERE = Path(__file__).parent / "recipe_variants" / "trt727"

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


def _export(model: torch.nn.Module, module, path: Path, dynamo: bool) -> onnx.ModelProto:
    example = module.inputs(torch.Generator().manual_seed(0))
    if dynamo:
        export_variant_dynamo(model, example, module.DYNAMIC, path)
    else:
        export_variant(model, example, module.DYNAMIC, path, path.parent)
    return onnx.load(str(path))


def _cubic(model: onnx.ModelProto) -> list[str]:
    """The graph check's TRT727 findings (a cubic Resize)."""
    return [i.op for i in check_graph(model) if i.rule == "TRT727"]


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request, tmp_path_factory) -> dict:
    """The variant, the rewritten model, and both models exported with both exporters."""
    folder = tmp_path_factory.mktemp(request.param)
    variant = rewritten_variant(HERE / f"{request.param}.py", "TRT727", folder)
    graphs = {(kind, dynamo): _export(variant[kind], variant["module"], folder / f"{kind}_{dynamo}.onnx", dynamo)
              for kind in ("original", "rewritten") for dynamo in (False, True)}
    return dict(variant, graphs=graphs)


def test_the_original_exports_a_cubic_resize(migrated) -> None:
    for dynamo in (False, True):
        assert _cubic(migrated["graphs"][("original", dynamo)]), dynamo


def test_the_rule_rewrites_every_bicubic_call_from_the_code_alone(migrated) -> None:
    fragments, _ = VARIANTS[migrated["name"]]
    for fragment in fragments:
        assert fragment in migrated["source"], migrated["source"]
    assert rules_found(migrated["source"], select=("TRT727",)) == []  # no bicubic call left
    assert migrated["safe_only"] == migrated["path"].read_text()  # unsafe: not without --unsafe


def test_the_rewritten_graphs_have_no_cubic_resize_and_follow_other_sizes(migrated) -> None:
    import onnxruntime as ort

    _, shapes = VARIANTS[migrated["name"]]
    generator = torch.Generator().manual_seed(1)
    example = migrated["module"].inputs(torch.Generator().manual_seed(0))[0]
    sets = {"example": example, **{f"size {s}": torch.randn(s, generator=generator) for s in shapes},
            "zeros": torch.zeros_like(example), "negatives": -example.abs() - 1}
    for dynamo in (False, True):
        graph = migrated["graphs"][("rewritten", dynamo)]
        assert not any(n.op_type == "Resize" and any(a.s == b"cubic" for a in n.attribute) for n in graph.graph.node)
        assert not [i for i in check_graph(graph) if i.severity == "error"], dynamo
        session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
        for label, x in sets.items():
            with torch.no_grad():
                want = migrated["original"](x).numpy()
            [got] = session.run(None, {input_names(migrated["original"])[0]: x.numpy()})
            scale = max(float(np.abs(want).max(initial=0.0)), 1.0)
            assert got.shape == want.shape, (dynamo, label, got.shape, want.shape)
            assert np.allclose(got, want, rtol=0, atol=1e-5 * scale), (dynamo, label, np.abs(got - want).max())


def test_eager_mode_is_unchanged_bit_for_bit(migrated) -> None:
    _, shapes = VARIANTS[migrated["name"]]
    generator = torch.Generator().manual_seed(2)
    example = migrated["module"].inputs(torch.Generator().manual_seed(0))[0]
    special = example.clone().flatten()
    special[:3] = torch.tensor([float("inf"), float("nan"), -float("inf")])
    sets = [example, *(torch.randn(s, generator=generator) for s in shapes), torch.zeros_like(example),
            special.reshape(example.shape), torch.randn(2, 3)]  # a wrong rank raises alike
    for x in sets:
        for given in (x, x.clone().requires_grad_()):
            assert_same_run(run_once(migrated["original"], [given]), run_once(migrated["rewritten"], [given]),
                            context=f"{migrated['name']} {tuple(x.shape)}")
