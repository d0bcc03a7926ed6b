"""The squeeze-dim recipe (TRT401, opt-in, unsafe, proved in migrate) on real-code variants.

Each variant in ``tests/recipe_variants/trt401/`` is a small runnable model reduced from a public
repository (cited in its docstring) that squeezes an axis the export cannot size: FairMOT's frame
embeddings in ByteTrack (the batch axis), CenterTrack's class-specific sizes (a ``gather``'s
result), BEVFormer's camera projection (a permuted mask), DETR's panoptic masks (a resize's
result), detectron2's FCOS centerness (a ``cat``'s result, ``dim=`` keyword), ELECTRA's summary at
the classification token (``gather(...).squeeze(-2)``), docTR's VIP recogniser head (``x.squeeze(self.dim)``: an
axis held by the module, picked with ``select``) and RF-DETR's point sampled masks
(``torch.squeeze(x, (-1, 1))``, a tuple of axes).

- The original's TorchScript graph guards the squeeze with an ``If`` whose branches have different
  ranks (TensorRT refuses it); RF-DETR's tuple of axes does not export at all.
- The rule (``--unsafe``, selected by ID) rewrites every squeeze from the code alone into an index
  of 0; without ``--unsafe`` nothing changes. The rewritten graphs, with both exporters, hold no
  ``If`` and equal eager mode at other sizes and on edge values that meet the rule's assumption
  (the squeezed axis has size 1); eager mode is unchanged there (outputs, strides, gradients,
  exceptions).
- With what migrate's observer records, the engine proves the assumption at each squeeze and
  applies the fix without ``--unsafe``, except in two variants, where the observed sizes refuse the
  proof: RF-DETR's tuple names axis -1, which holds the sample points (``squeeze`` leaves it alone,
  the index would cut it to one point), and FairMOT's tracker squeezes the batch axis the export
  declares dynamic (one frame at a time in the tracker, five in the observer's stretched set).
"""

from __future__ import annotations

import re
from pathlib import Path

import onnx
import pytest
import torch
from variant_models import (assert_graph_equals_eager, export_variant, export_variant_dynamo, input_names,
                            load_variant, observed_facts)
from variant_rewrites import assert_eager_unchanged, built_pair, rewrite_variant

from trtcodemod.engine import Options, fix_source
from trtcodemod.verify.export import export_model
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt401"
INF, NAN = float("inf"), float("nan")


def _seeded(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _cameras(batch: int, cameras: int, seed: int) -> torch.Tensor:
    module = load_variant(HERE / "bevformer_point_sampling.py", "trt401_cameras")
    return module._cameras(batch, cameras, torch.Generator().manual_seed(seed))


def _points(*shape: int, seed: int) -> torch.Tensor:
    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed))


# name → (fragments of the rewritten code, other input sets that meet the assumption (the squeezed
#         axis has size 1), by name)
VARIANTS: dict[str, tuple[tuple[str, ...], dict[str, tuple[torch.Tensor, ...]]]] = {
    "bytetrack_fairmot_id_feature": (("id_feature = id_feature[0]",), {
        # One frame at a time: the batch axis is 1 on every call.
        "larger": (_seeded(1, 1, 7, 9, seed=1), _seeded(1, 8, 7, 9, seed=2)),
        "four-pixels": (_seeded(1, 1, 2, 2, seed=3), _seeded(1, 8, 2, 2, seed=4)),
        "zero-embeddings": (_seeded(1, 1, 5, 6, seed=5), torch.zeros(1, 8, 5, 6)),
        "negative-embeddings": (_seeded(1, 1, 3, 4, seed=6), -_seeded(1, 8, 3, 4, seed=39).abs()),
        # No inf/NaN embeddings: the exported `F.normalize` (ReduceL2) gives inf where eager mode
        # gives NaN, in the original's graph as in the rewritten one.
    }),
    "centertrack_decode_wh": (("wh = wh.gather(2, cats.long())[:, :, 0]",), {
        # The gather's index has size 1 on axis 2 by construction: every input meets the assumption.
        "larger": (_seeded(3, 3, 6, 7, seed=7), 3 * _seeded(3, 6, 6, 7, seed=8)),
        "one-image": (_seeded(1, 3, 2, 3, seed=9), _seeded(1, 6, 2, 3, seed=10)),
        "zero-negative-sizes": (_seeded(2, 3, 4, 5, seed=11), -torch.ones(2, 6, 4, 5).index_fill(1, torch.tensor([0]), 0.0)),
        "huge-sizes": (_seeded(2, 3, 4, 5, seed=12), torch.tensor([1e30, 1.0, -1e30, 2.0]).repeat(60).view(2, 6, 4, 5)),
        # No inf sizes: the TorchScript export clamps with the float32 maximum as upper bound, so an
        # inf size is 3.4e38 in the original's graph as in the rewritten one.
    }),
    "bevformer_point_sampling": (("reference_points.to(torch.float32))[..., 0]",
                                  "bev_mask = bev_mask.permute(2, 1, 3, 0, 4)[..., 0]"), {
        "larger": (_points(3, 5, 9, 3, seed=13), _cameras(3, 4, seed=14)),
        "one-camera": (_points(1, 2, 1, 3, seed=15), _cameras(1, 1, seed=16)),
        "behind-every-camera": (_points(2, 4, 6, 3, seed=17), -_cameras(2, 3, seed=18)),
        "zero-points": (torch.zeros(2, 4, 6, 3), _cameras(2, 3, seed=19)),
        "inf-nan-points": (torch.tensor([INF, NAN, 0.5]).repeat(2 * 4 * 6).view(2, 4, 6, 3), _cameras(2, 3, seed=20)),
        "no-queries": (torch.zeros(2, 4, 0, 3), _cameras(2, 3, seed=44)),
    }),
    "detr_panoptic_masks": (('cur_masks = interpolate(pred_masks[:, None], size, mode="bilinear")[:, 0]',), {
        "larger": (_seeded(9, 8, 5, seed=21), _seeded(3, 17, 11, seed=22)),
        "one-query": (_seeded(1, 6, 7, seed=23), _seeded(3, 6, 7, seed=24)),
        "zeros": (torch.zeros(4, 3, 3), torch.zeros(3, 6, 6)),
        "negatives": (-_seeded(5, 6, 7, seed=25).abs(), _seeded(3, 9, 10, seed=26)),
    }),
    "detectron2_fcos_centerness": (("pred_centerness = torch.cat(pred_centerness, dim=1)[:, :, 0]",), {
        "larger": (_seeded(3, 4, 10, 12, seed=27), _seeded(3, 4, 5, 6, seed=28)),
        "one-image-one-pixel": (_seeded(1, 4, 1, 1, seed=29), _seeded(1, 4, 1, 1, seed=30)),
        "zeros": (torch.zeros(2, 4, 6, 8), torch.zeros(2, 4, 3, 4)),
        "inf-nan": (torch.tensor([INF, -INF, NAN, 0.0]).repeat(2 * 4 * 6 * 2).view(2, 4, 6, 8),
                    _seeded(2, 4, 3, 4, seed=31)),
        # No empty batch: `view(0, -1, 1, h, w)` raises in eager mode.
    }),
    "transformers_electra_cls_summary": (("output = hidden_states.gather(-2, cls_index)[..., 0, :]",), {
        "larger": (_seeded(3, 4, 9, 8, seed=40), torch.randint(0, 9, (3, 4), generator=torch.Generator().manual_seed(41))),
        "one-choice-two-tokens": (_seeded(1, 1, 2, 8, seed=42), torch.ones(1, 1, dtype=torch.long)),
        "first-and-last": (_seeded(2, 3, 6, 8, seed=43), torch.tensor([[0, 5, 0], [5, 0, 5]])),
        "inf-nan": (torch.tensor([INF, -INF, NAN, -0.0]).repeat(2 * 3 * 6 * 2).view(2, 3, 6, 8),
                    torch.tensor([[0, 1, 2], [3, 4, 5]])),
        # No empty batch: the classifier's `view(-1, num_choices)` of no elements raises in eager mode.
    }),
    "doctr_vip_squeeze_layer": (("return x.select(self.dim, 0)",), {
        # The pooled axis is 1 by construction: every input meets the assumption.
        "wider-batch-of-three": (_points(3, 3, 8, 20, seed=45),),
        "one-column": (_points(1, 3, 8, 2, seed=46),),
        "zeros": (torch.zeros(2, 3, 8, 12),),
        "negatives": (-_points(2, 3, 8, 12, seed=47),),
        "inf-nan": (torch.tensor([INF, -INF, NAN, 0.5]).repeat(2 * 3 * 8 * 3).view(2, 3, 8, 12),),
        "empty-batch": (torch.zeros(0, 3, 8, 12),),
    }),
}

#: RF-DETR's matcher: a tuple of axes, one of which is not of size 1 (outside ``VARIANTS``, whose
#: input sets meet the assumption: no input of this one does).
TUPLE_OF_AXES = HERE / "transformers_rf_detr_point_masks.py"
#: The variant whose squeeze migrate's observer does not prove: it squeezes the batch axis, which
#: the export declares dynamic, and the observer's stretched input set has a batch of 5.
BATCH_SQUEEZE = "bytetrack_fairmot_id_feature"


def _example(module) -> tuple[torch.Tensor, ...]:
    return module.inputs(torch.Generator().manual_seed(0))


def _ops(path: Path) -> list[str]:
    return [node.op_type for node in onnx.load(str(path)).graph.node]


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request, tmp_path_factory) -> dict:
    """One variant, its rewrite, and the original's and rewritten model's graphs."""
    name = request.param
    tmp = tmp_path_factory.mktemp(name)
    module, new_source, original, rewritten = built_pair(HERE / f"{name}.py", "TRT401", tmp, unsafe=True)
    example = _example(module)
    before, _ = export_variant(original, example, module.DYNAMIC, tmp / "original.onnx", tmp)
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, tmp / "rewritten.onnx", tmp)
    dynamo = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp / "rewritten_dynamo.onnx")
    return {"name": name, "module": module, "source": new_source, "original": original, "rewritten": rewritten,
            "tmp": tmp, "graphs": {"torchscript": torchscript, "dynamo": dynamo},
            "sets": VARIANTS[name][1]}


def test_rule_rewrites_every_squeeze(migrated: dict) -> None:
    for fragment in VARIANTS[migrated["name"]][0]:
        assert fragment in migrated["source"], migrated["source"]
    code = migrated["source"].split('"""', 2)[2]  # below the docstring
    assert not re.search(r"(?<!un)squeeze\(", code), code
    path = HERE / f"{migrated['name']}.py"
    assert rewrite_variant(path, "TRT401") == path.read_text(), "an unsafe fix applied without --unsafe"


def test_original_export_guards_the_squeeze_rewrite_does_not(migrated: dict) -> None:
    tmp = migrated["tmp"]
    assert "If" in _ops(tmp / "original.onnx")
    assert "If" not in _ops(tmp / "rewritten.onnx")
    assert "If" not in _ops(tmp / "rewritten_dynamo.onnx")


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_rewritten_graph_equals_eager(migrated: dict, exporter: str) -> None:
    for label, inputs in migrated["sets"].items():
        assert_graph_equals_eager(migrated["graphs"][exporter], migrated["original"], inputs, f"{exporter} {label}")


def test_eager_unchanged_within_the_assumption(migrated: dict) -> None:
    assert_eager_unchanged(migrated["original"], migrated["rewritten"],
                           {"example": _example(migrated["module"]), **migrated["sets"]})


def test_observed_run_proves_the_assumption(migrated: dict) -> None:
    """migrate's facts: the squeezed axes seen at size 1 prove the fix, applied without --unsafe;
    FairMOT's batch axis, seen at 5 in the stretched input set, stays as written."""
    path = HERE / f"{migrated['name']}.py"
    source = _rewritten_with_facts(path, migrated["module"], migrated["tmp"])
    if migrated["name"] == BATCH_SQUEEZE:
        assert source == path.read_text()
    else:
        assert source == migrated["source"]


def _rewritten_with_facts(path: Path, module, work: Path) -> str:
    """The file as TRT401 rewrites it with what migrate's observer records (no --unsafe)."""
    options = Options(select=("TRT401",), facts=observed_facts(path, module, work), scope="all")
    return fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()


def test_tuple_of_axes_taken_from_the_code(tmp_path: Path) -> None:
    """RF-DETR's ``torch.squeeze(x, (-1, 1))``: the rule reads the tuple as two axes to index, and the
    TorchScript exporter cannot export the original (the dynamo exporter can)."""
    source = rewrite_variant(TUPLE_OF_AXES, "TRT401", unsafe=True)
    assert "pred_masks_logits = pred_masks_logits[:, 0, ..., 0]" in source
    assert "target_masks = target_masks[:, 0, ..., 0]" in source
    assert rewrite_variant(TUPLE_OF_AXES, "TRT401") == TUPLE_OF_AXES.read_text()
    module = load_variant(TUPLE_OF_AXES, "trt401_rf_detr_export")
    model = module.build()
    names = input_names(model)
    example = _example(module)
    failed = export_model(model, example, tmp_path / "ts.onnx", exporter="torchscript", input_names=names,
                          output_names=["out"], dynamic_axes=module.DYNAMIC, opset=17)
    assert failed.error is not None
    dynamo = export_variant_dynamo(model, example, module.DYNAMIC, tmp_path / "dynamo.onnx")
    assert_graph_equals_eager(dynamo, model, example, "dynamo original")


def test_tuple_of_axes_not_all_of_size_one_is_not_proved(tmp_path: Path) -> None:
    """Why the fix needs its proof: RF-DETR's axis -1 holds the points, which ``squeeze`` keeps and the
    index cuts to one (the dice cost's ``flatten(1)`` then fails). The observed sizes refuse the
    proof there; ``sample_point``'s own ``squeeze(3)``, of an axis of 1, is proved and fixed."""
    module = load_variant(TUPLE_OF_AXES, "trt401_rf_detr_check")
    written = tmp_path / TUPLE_OF_AXES.name
    written.write_text(rewrite_variant(TUPLE_OF_AXES, "TRT401", unsafe=True))
    masks, targets, points = _example(module)
    assert points.shape[1] > 1
    assert module.build()(masks, targets, points).shape == (masks.shape[0], targets.shape[0])
    with pytest.raises(IndexError):
        load_variant(written, "trt401_rf_detr_check_rewritten").build()(masks, targets, points)
    code = _rewritten_with_facts(TUPLE_OF_AXES, module, tmp_path).split('"""', 2)[2]
    assert code.count("torch.squeeze(") == 2 and "align_corners=False)[:, :, :, 0]" in code, code
