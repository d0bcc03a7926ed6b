"""The tile-static-rank recipe (TRT407) on real-code variants.

Each variant in ``tests/recipe_variants/trt407/`` is a small runnable model reduced from a public
repository (cited in its docstring) that calls ``tile`` in the form the original writes it:
DINOv3's rotary angles (``angles.tile(2)``: the method, one int for a 2-D tensor), timm's SAM 2
Hiera (``window_embed.tile((tile_h, tile_w))``: a tuple of two counts for a 4-D tensor),
ultralytics' SAM 2 Hiera (``window_embed.tile([x // y for x, y in zip(...)])``: a list
comprehension), PolyGen's stopping tokens (``torch.tile(param, [vertices.shape[0], 1, 1])``: the
function, a count from a size) and SAM 3's tiled position embeddings
(``pos_embed.tile([1, 1, repeat_h, repeat_w])[...]``: a count per axis, then cropped). The rule
finds each from the code alone; the TorchScript export of each original writes the two ``If``
nodes on the rank; ``migrate`` applies TRT407 at the tile line (other rules where the variant
asks for them: TRT727 at the bicubic resizes, TRT712 at SAM 3's ``int(...)``), ends with exit 0,
and the rewritten model is equivalent. Three variants are also rewritten by the rule alone and
exported directly (with the dynamo exporter too for one): no ``If``, the graph equals eager mode at
other sizes and on edge values, and eager mode is unchanged (outputs, gradients, exceptions).

ultralytics' list comprehension was reported without a fix before this set (the counts were not a
display); the rule now passes a list comprehension as written (tests/transforms/test_tile.py).
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant,
                            export_variant_dynamo, load_variant, seeded, with_specials)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source, fix_source

HERE = TESTS / "recipe_variants" / "trt407"
INF = float("inf")

#: variant -> (the tile call as written, its rewrite, the other rules migrate applies there)
VARIANTS = {
    "dinov3_rope_angles": ("angles = angles.tile(2)", "angles = _trt_tile(angles, [2])", set()),
    "timm_hieradet_window_embed": ("pos_embed = pos_embed + window_embed.tile((tile_h, tile_w))",
                                   "pos_embed = pos_embed + _trt_tile(window_embed, [tile_h, tile_w])", {"TRT727"}),
    "ultralytics_sam2_hiera_pos_embed": (
        "window_embed.tile([x // y for x, y in zip(pos_embed.shape, window_embed.shape)])",
        "_trt_tile(window_embed, [x // y for x, y in zip(pos_embed.shape, window_embed.shape)])", {"TRT727"}),
    "polygen_stopping_embeddings": (
        "stopping_embeddings = torch.tile(self.stopping_embeddings, [vertices.shape[0], 1, 1])",
        "stopping_embeddings = _trt_tile(self.stopping_embeddings, [vertices.shape[0], 1, 1])", set()),
    "sam3_tiled_position_embeddings": (
        "pos_embed = pos_embed.tile([1, 1, repeat_h, repeat_w])[:, :, :height, :width]",
        "pos_embed = _trt_tile(pos_embed, [1, 1, repeat_h, repeat_w])[:, :, :height, :width]", {"TRT712"}),
}


def _rewritten_source(path: Path) -> str:
    return fix_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT407",), scope="all")).source.decode()


def _ifs(path: Path) -> int:
    return sum(node.op_type == "If" for node in onnx.load(str(path)).graph.node)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_the_tile_from_the_code_and_rewrites_it(name: str) -> None:
    call, rewritten, _ = VARIANTS[name]
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT407",), scope="all"))
    assert [(f.rule, f.line, f.fix is not None) for f in findings] == [("TRT407", _line_of(path, call), True)]
    source = _rewritten_source(path)
    code = source.split('"""', 2)[2]  # below the docstring, which quotes the call
    assert rewritten in code and call not in code and "def _trt_tile(" in code, source


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_originals_export_writes_if_nodes_on_the_rank(name: str, tmp_path: Path) -> None:
    """The TorchScript export (as migrate's verifier runs it) has tile's two ``If`` nodes, whose
    outputs lose the static shape: the tile's output has no known rank after them."""
    path = HERE / f"{name}.py"
    module, model = built_variant(path, f"trt407_if_{name}")
    export_variant(model, module.inputs(seeded(0)), module.DYNAMIC, tmp_path / "original.onnx", tmp_path)
    graph = onnx.load(str(tmp_path / "original.onnx"))
    assert _ifs(tmp_path / "original.onnx") == 2
    tiles = [node for node in graph.graph.node if node.op_type == "Tile"]
    assert tiles and all(any("/If" in i for i in node.input) for node in tiles), tiles


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_applies_trt407_at_the_tile_and_ends_with_exit_0(name: str) -> None:
    call, _, others = VARIANTS[name]
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt407_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True  # it exports, with the If nodes (test above)
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert ("TRT407", _line_of(path, call)) in applied, applied
    assert {rule for rule, _ in applied} == {"TRT407"} | others, applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True and "_trt_tile(" in report["diff"], report["diff"]


# --- three variants rewritten by the rule alone and exported directly ------------------------------

def _dinov3_sets() -> dict[str, tuple[torch.Tensor, ...]]:
    return {
        "other-size": (torch.randn(3, 3, 24, 8, generator=seeded(1)),),
        "square": (torch.randn(1, 3, 12, 12, generator=seeded(2)),),
        "one-patch": (torch.randn(2, 3, 4, 4, generator=seeded(3)),),
        "zeros": (torch.zeros(2, 3, 8, 20),),
        "negatives": (-torch.rand(2, 3, 16, 8, generator=seeded(4)) - 1,),
        "inf-nan": (with_specials((1, 3, 8, 12), 5),),
        # The patch tokens' flatten exports as a Reshape to -1, which ONNX Runtime cannot infer for
        # no elements (the original's graph the same): eager mode only.
        "eager-empty-batch": (torch.zeros(0, 3, 8, 12),),
    }


def _ultralytics_sets() -> dict[str, tuple[torch.Tensor, ...]]:
    return {
        "other-size": (torch.randn(3, 3, 40, 8, generator=seeded(6)),),
        "one-window": (torch.randn(1, 3, 8, 8, generator=seeded(7)),),
        "zeros": (torch.zeros(2, 3, 16, 24),),
        "negatives": (-torch.rand(2, 3, 24, 16, generator=seeded(8)) - 1,),
        "inf-nan": (with_specials((1, 3, 16, 16), 9),),
        "empty-batch": (torch.zeros(0, 3, 16, 24),),
    }


def _polygen_sets() -> dict[str, tuple[torch.Tensor, ...]]:
    mask = torch.ones(4, 11)
    mask[0, 3:] = 0
    mask[2, :] = 0
    return {
        "other-size": (torch.rand(4, 11, 3, generator=seeded(10)) - 0.5, mask),
        "one-vertex": (torch.rand(1, 1, 3, generator=seeded(11)) - 0.5, torch.ones(1, 1)),
        "no-vertices": (torch.zeros(3, 0, 3), torch.zeros(3, 0)),
        "zeros": (torch.zeros(2, 5, 3), torch.zeros(2, 5)),
        "negatives-outside": (-torch.rand(2, 6, 3, generator=seeded(12)) - 1, torch.ones(2, 6)),
        "inf": (torch.tensor([[[INF, -INF, 0.0], [0.5, -0.5, 0.25]]]), torch.tensor([[1.0, INF]])),
        "empty-batch": (torch.zeros(0, 5, 3), torch.zeros(0, 5)),
    }


DIRECT = {
    "dinov3_rope_angles": (_dinov3_sets, True),
    "ultralytics_sam2_hiera_pos_embed": (_ultralytics_sets, False),
    "polygen_stopping_embeddings": (_polygen_sets, False),
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_the_rewrite_exports_without_if_and_equals_eager(name: str, tmp_path: Path) -> None:
    make_sets, with_dynamo = DIRECT[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt407_d_{name}")
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(_rewritten_source(path))
    _, rewritten = built_variant(new_path, f"trt407_d_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))

    sessions = {"torchscript": export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx",
                                              tmp_path)[0]}
    assert _ifs(tmp_path / "after.onnx") == 0
    assert "Tile" in {node.op_type for node in onnx.load(str(tmp_path / "after.onnx")).graph.node}
    if with_dynamo:
        sessions["dynamo"] = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "dynamo.onnx")
        assert _ifs(tmp_path / "dynamo.onnx") == 0
    sets = {"example": example, **make_sets()}
    for label, inputs in sets.items():
        if label.startswith("eager-"):  # compared below, in eager mode only
            continue
        for exporter, session in sessions.items():
            assert_graph_within(session, original, inputs, 1e-5, f"{exporter} {label}")
    assert_eager_unchanged(original, rewritten, sets)
