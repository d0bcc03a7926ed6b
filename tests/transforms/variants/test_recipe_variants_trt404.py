"""The repeat-to-expand recipe (TRT404, opt-in, unsafe) on real-code variants.

Each variant in ``tests/recipe_variants/trt404/`` is a small runnable model reduced from a public
repository (cited in its docstring) that repeats a tensor along an axis it has just added: DETR's
object queries and learned positions, Grounding DINO's per-head text mask, Mask2Former's per-head
attention mask, SAM 3's padded-sequence join. The original's graph copies with ONNX ``Tile``; the
rule (``--unsafe``, selected by ID) rewrites each such ``repeat`` from the code alone into
``expand`` (ONNX ``Expand``), the new axis at the front, in the middle (``unsqueeze(1)``,
``[:, None]``) or two new axes at once (``[:, None, None, :]``). The rewritten graphs, with both
exporters, hold no ``Tile`` for those lines and equal eager mode at other sizes and on edge values;
eager mode is unchanged (outputs, gradients, exceptions) on inputs that meet the rule's
assumption (nothing writes in place to the expanded result; one axis per count), which every
variant meets: the expanded tensor is only read, or flattened (a copy) first.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from variant_rewrites import assert_eager_unchanged, built_pair, rewrite_variant
from variant_models import export_variant, export_variant_dynamo, input_names, load_variant
from support import TESTS


HERE = TESTS / "recipe_variants" / "trt404"
INF, NAN = float("inf"), float("nan")

# name → (fragments of the rewritten code, repeats left as they are, other input sets by name)
VARIANTS: dict[str, tuple[tuple[str, ...], int, dict[str, tuple[torch.Tensor, ...]]]] = {
    "detr_query_embed": (("query_embed = self.query_embed.weight.unsqueeze(1).expand(-1, bs, -1)",), 0, {
        "larger": (torch.randn(3, 8, 5, 2, generator=torch.Generator().manual_seed(1)),
                   torch.randn(3, 8, 5, 2, generator=torch.Generator().manual_seed(2))),
        "one-image": (torch.randn(1, 8, 1, 1), torch.zeros(1, 8, 1, 1)),
        "zeros": (torch.zeros(2, 8, 2, 2), torch.zeros(2, 8, 2, 2)),
        "inf-nan": (torch.tensor([INF, NAN, 0.0, -0.0]).repeat(2 * 8 * 3).view(2, 8, 3, 4), torch.zeros(2, 8, 3, 4)),
        # No empty batch: ONNX Runtime stops the process (a floating-point exception) on the original's graph too.
    }),
    "hf_detr_learned_position": (("pos = torch.cat([x_emb.unsqueeze(0).expand(height, -1, -1), "
                                  "y_emb.unsqueeze(1).expand(-1, width, -1)], dim=-1)",), 1, {
        "larger": (torch.randn(3, 8, 7, 2, generator=torch.Generator().manual_seed(3)),),
        "one-pixel": (torch.randn(1, 8, 1, 1),),
        "inf-nan": (torch.tensor([INF, -INF, NAN, 0.0, -0.0, 1.0]).repeat(8).view(1, 8, 2, 3),),
        "empty-map": (torch.zeros(2, 8, 0, 3),),
    }),
    "grounding_dino_text_mask": (("text_attention_mask = text_attention_mask[:, None, None, :]"
                                  ".expand(-1, self.num_heads, -1, -1).flatten(0, 1)",), 0, {
        "longer": (torch.randn(3, 9, 8, generator=torch.Generator().manual_seed(4)),
                   torch.randn(3, 7, 8, generator=torch.Generator().manual_seed(5)),
                   torch.rand(3, 7, generator=torch.Generator().manual_seed(6)) > 0.6),
        "unmasked": (torch.randn(1, 2, 8), torch.randn(1, 3, 8), torch.zeros(1, 3, dtype=torch.bool)),
        "all-masked": (torch.randn(2, 2, 8), torch.randn(2, 3, 8), torch.ones(2, 3, dtype=torch.bool)),
        # No empty batch: the original's `view(batch, -1, heads, dim)` of no elements raises in eager mode.
    }),
    "mask2former_attention_mask": (("attention_mask = attention_mask.sigmoid().flatten(2).unsqueeze(1)"
                                    ".expand(-1, self.num_heads, -1, -1)",), 0, {
        "larger": (torch.randn(7, 3, 8, generator=torch.Generator().manual_seed(7)),
                   torch.randn(3, 8, 10, 4, generator=torch.Generator().manual_seed(8))),
        "one-query": (torch.randn(1, 1, 8), torch.randn(1, 8, 2, 2)),
        "inf-nan": (torch.randn(2, 2, 8), torch.tensor([INF, -INF, NAN, 0.0]).repeat(2 * 8 * 6).view(2, 8, 4, 6)),
        # No empty batch: ONNX Runtime stops the process (a floating-point exception) on the original's graph too.
    }),
    "ultralytics_sam3_concat": (("torch.arange(max_length, device=seq2.device)[None].expand(batch_size, -1)",
                                 "index = torch.arange(seq2_length, device=seq2.device)[:, None]"
                                 ".expand(-1, batch_size)"),
                                0, {
        "longer": (torch.randn(5, 3, 4, generator=torch.Generator().manual_seed(9)),
                   torch.tensor([[False] * 5, [False, False, True, True, True], [False, True, True, True, True]]),
                   torch.randn(4, 3, 4, generator=torch.Generator().manual_seed(10)),
                   torch.tensor([[False, False, False, True], [False] * 4, [False, True, True, True]])),
        "no-padding": (torch.randn(2, 1, 4), torch.zeros(1, 2, dtype=torch.bool),
                       torch.randn(3, 1, 4), torch.zeros(1, 3, dtype=torch.bool)),
        "inf-nan": (torch.tensor([INF, -INF, NAN, -0.0]).repeat(2, 2, 1), torch.tensor([[False, True], [False, False]]),
                    torch.tensor([NAN, 0.0, -INF, 1.0]).repeat(1, 2, 1), torch.zeros(2, 1, dtype=torch.bool)),
        "empty-batch": (torch.zeros(3, 0, 4), torch.zeros(0, 3, dtype=torch.bool),
                        torch.zeros(2, 0, 4), torch.zeros(0, 2, dtype=torch.bool)),
    }),
}


def _tiles(path: Path) -> int:
    return sum(node.op_type == "Tile" for node in onnx.load(str(path)).graph.node)


def _graph_equals_eager(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple, label: str) -> None:
    """The graph's output is eager mode's (shape, dtype; floats to 1e-6 with NaN where NaN, else exactly)."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape)
    if want.dtype.kind == "f":
        assert np.allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True), label
    else:
        assert np.array_equal(got, want), label


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request, tmp_path_factory) -> dict:
    """One variant, its rewrite, and the original's and rewritten model's graphs."""
    name = request.param
    tmp = tmp_path_factory.mktemp(name)
    module, new_source, original, rewritten = built_pair(HERE / f"{name}.py", "TRT404", tmp, unsafe=True)
    example = module.inputs(torch.Generator().manual_seed(0))
    export_variant(original, example, module.DYNAMIC, tmp / "original.onnx", tmp)
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, tmp / "rewritten.onnx", tmp)
    dynamo = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp / "rewritten_dynamo.onnx")
    return {"name": name, "source": new_source, "original": original, "rewritten": rewritten, "tmp": tmp,
            "graphs": {"torchscript": torchscript, "dynamo": dynamo}, "sets": {"example": example, **VARIANTS[name][2]}}


def test_rule_rewrites_each_repeat_on_a_new_axis(migrated: dict) -> None:
    fragments, left, _ = VARIANTS[migrated["name"]]
    for fragment in fragments:
        assert fragment in migrated["source"], migrated["source"]
    code = migrated["source"].split('"""', 2)[2]  # below the docstring
    assert code.count(".repeat(") == left, code
    path = HERE / f"{migrated['name']}.py"
    assert rewrite_variant(path, "TRT404") == path.read_text(), "an unsafe fix applied without --unsafe"


def test_tile_becomes_expand(migrated: dict) -> None:
    tmp = migrated["tmp"]
    left = VARIANTS[migrated["name"]][1]
    assert _tiles(tmp / "original.onnx") > left
    assert _tiles(tmp / "rewritten.onnx") == left
    assert _tiles(tmp / "rewritten_dynamo.onnx") == left


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_rewritten_graph_equals_eager(migrated: dict, exporter: str) -> None:
    for label, inputs in migrated["sets"].items():
        _graph_equals_eager(migrated["graphs"][exporter], migrated["original"], inputs, f"{exporter} {label}")


def test_eager_unchanged_within_the_assumption(migrated: dict) -> None:
    assert_eager_unchanged(migrated["original"], migrated["rewritten"], migrated["sets"])
