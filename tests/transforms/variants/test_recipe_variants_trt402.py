"""The unsqueeze recipe (TRT402, opt-in, unsafe, verified in migrate) on real-code variants.

Each variant in ``tests/recipe_variants/trt402/`` is a small runnable model reduced from a public
repository (cited in its docstring) that adds an axis with ``unsqueeze``: MOTDT's part attention in
ByteTrack (the function form on a subscript, inside a product), DETR's mask-head attention map
(chains on a weight and on a mask, as arguments), detectron2's point-to-box distances (the
``dim=`` keyword before ``unbind``), CenterFormer's pillar decorations (on a call's result, the
function form with a negative axis, and a computed axis), BEVFormer v2's BEV rotation (a chain
on a local grid) and Kornia's gamma correction (the function form with a negative ``dim=``
keyword, rebinding the parameter in a loop over the rank's difference).

- The rule (``--unsafe``, selected by ID) rewrites every literal axis from the code alone into
  ``None`` indexing and leaves the computed axis; without ``--unsafe`` nothing changes.
- The recipe changes nothing TensorRT sees: the rewritten graph holds the same operators as the
  original's, with both exporters, and equals eager mode at other sizes and on edge values. DETR's
  chains (``mask.unsqueeze(1).unsqueeze(1)``) were written as chained indexes, which the dynamo
  exporter keeps as two ``Unsqueeze`` where it folds the chain into one; a chain counted from one
  end is now one index (``mask[:, None, None]``), folded the same way.
- Eager mode is unchanged on every input set, bit for bit: outputs, strides, aliasing, input
  gradients and exceptions (every receiver is a dense tensor, the rule's assumption).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import onnx
import pytest
import torch
from variant_models import assert_graph_equals_eager, export_variant, export_variant_dynamo, load_variant
from variant_rewrites import assert_eager_unchanged, built_pair, rewrite_variant
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt402"
INF, NAN = float("inf"), float("nan")


def _seeded(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _boxes(count: int, seed: int) -> torch.Tensor:
    corners = 10 * torch.rand(count, 2, generator=torch.Generator().manual_seed(seed))
    return torch.cat([corners, corners + 3], dim=1)


def _pillars(pillars: int, points: int, seed: int, counts: torch.Tensor | None = None) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(seed)
    features = torch.randn(pillars, points, 4, generator=generator)
    if counts is None:
        counts = torch.randint(1, points + 1, (pillars,), generator=generator)
    grid = torch.randint(0, 512, (pillars, 2), generator=generator)
    return features, counts, torch.cat([torch.zeros(pillars, 2, dtype=torch.long), grid], 1)


def _rotation(angle: float) -> torch.Tensor:
    return load_variant(HERE / "bevformer_bev_rotation.py", "trt402_rotation").rotation(angle)


# name → (fragments of the rewritten code, unsqueezes left as written, other input sets by name)
VARIANTS: dict[str, tuple[tuple[str, ...], int, dict[str, tuple[torch.Tensor, ...]]]] = {
    "bytetrack_motdt_part_attention": (("masked_feature = feature * att_weights[:, i][:, None]",), 0, {
        "larger": (_seeded(3, 8, 9, 7, seed=1),),
        "one-pixel": (_seeded(1, 8, 1, 1, seed=2),),
        "zeros": (torch.zeros(2, 8, 3, 3),),
        "negatives": (-_seeded(2, 8, 4, 4, seed=3).abs(),),
        "inf-nan": (torch.tensor([INF, -INF, NAN, 0.0, -0.0, 1.0]).repeat(2 * 8 * 2).view(2, 8, 3, 4),),
        "empty-batch": (torch.zeros(0, 8, 3, 4),),
    }),
    "detr_mh_attention_map": (("k = F.conv2d(k, self.k_linear.weight[..., None, None], self.k_linear.bias)",
                               'weights.masked_fill_(mask[:, None, None], float("-inf"))'), 0, {
        "larger": (_seeded(3, 7, 8, seed=4), _seeded(3, 8, 5, 6, seed=5),
                   torch.rand(3, 5, 6, generator=torch.Generator().manual_seed(6)) > 0.5),
        "nothing-masked": (_seeded(1, 1, 8, seed=7), _seeded(1, 8, 2, 2, seed=8), torch.zeros(1, 2, 2, dtype=torch.bool)),
        "all-masked": (_seeded(2, 3, 8, seed=9), _seeded(2, 8, 2, 3, seed=10), torch.ones(2, 2, 3, dtype=torch.bool)),
        "inf-nan": (_seeded(2, 3, 8, seed=11), torch.tensor([INF, NAN, 0.0, -1.0]).repeat(2 * 8 * 3).view(2, 8, 3, 4),
                    torch.zeros(2, 3, 4, dtype=torch.bool)),
        # No empty queries: ONNX Runtime refuses the exported `view` of no elements, in the original's
        # graph too (the same operators).
    }),
    "detectron2_point_box_distance": (("x, y = points[:, :, None].unbind(dim=1)",
                                       "x0, y0, x1, y1 = boxes[None].unbind(dim=2)"), 0, {
        "larger": (10 * torch.rand(11, 2, generator=torch.Generator().manual_seed(13)), _boxes(7, seed=14)),
        "one-each": (torch.tensor([[1.0, 2.0]]), _boxes(1, seed=15)),
        "zeros-negatives": (torch.zeros(3, 2), -_boxes(2, seed=16)),
        "inf-nan": (torch.tensor([[INF, NAN], [-INF, 0.0]]), _boxes(3, seed=17)),
        "no-points": (torch.zeros(0, 2), _boxes(4, seed=18)),
        "no-boxes": (torch.ones(5, 2), torch.zeros(0, 4)),
    }),
    "centerformer_pillar_features": (("coors[:, 3].to(dtype)[:, None] * self.vx + self.x_offset",
                                      "coors[:, 2].to(dtype)[:, None] * self.vy + self.y_offset",
                                      "mask = mask[..., None].type_as(features)"), 1, {
        "larger": _pillars(9, 7, seed=19),
        "one-point": _pillars(1, 1, seed=20),
        "full-pillars": _pillars(4, 3, seed=21, counts=torch.tensor([3, 3, 3, 3])),
        "empty-pillar": _pillars(3, 4, seed=22, counts=torch.tensor([0, 2, 4])),  # 0 / 0: NaN means
        "inf-nan": (torch.tensor([INF, -INF, NAN, 0.0]).repeat(3 * 4).view(3, 4, 4), torch.tensor([4, 2, 1]),
                    _pillars(3, 4, seed=23)[2]),
        "no-pillars": _pillars(0, 4, seed=24, counts=torch.zeros(0, dtype=torch.long)),
    }),
    "bevformer_bev_rotation": (("grid_shift = grid_shift[None][..., None]",), 0, {
        "more-channels": (_seeded(1, 48, 7, seed=25), _rotation(-1.2)),
        "identity": (_seeded(1, 48, 4, seed=26), _rotation(0.0)),
        "zeros": (torch.zeros(1, 48, 4), _rotation(0.5)),
        "inf-nan": (torch.tensor([INF, -INF, NAN, 1.0]).repeat(48).view(1, 48, 4), _rotation(0.3)),
        "zero-matrix": (_seeded(1, 48, 2, seed=27), torch.zeros(3, 3)),
    }),
    "kornia_adjust_gamma": (("gamma = gamma[..., None]", "gain = gain[..., None]"), 0, {
        "larger": (torch.rand(3, 3, 7, 6, generator=torch.Generator().manual_seed(28)), torch.tensor([0.3, 1.0, 2.2]),
                   torch.tensor([1.0, 0.5, 2.0])),
        "zero-gamma-and-gain": (torch.tensor([0.0, 0.5, 1.0, 2.0]).repeat(2 * 3 * 2).view(2, 3, 2, 4),
                                torch.zeros(2), torch.tensor([0.0, 1.0])),
        "negatives": (-torch.rand(2, 3, 2, 2, generator=torch.Generator().manual_seed(29)),
                      torch.tensor([0.5, 2.0]), torch.tensor([1.0, 1.5])),  # NaN from a fractional power
        "inf-nan": (torch.tensor([INF, -INF, NAN, 0.0, -0.0, 1.0]).repeat(2 * 3 * 2).view(2, 3, 3, 4),
                    torch.tensor([INF, 1.0]), torch.tensor([2.0, INF])),
        "empty-batch": (torch.zeros(0, 3, 4, 5), torch.zeros(0), torch.zeros(0)),
    }),
}


#: (variant, exporter) → how many ``Unsqueeze`` the rewrite's graph has fewer: in Kornia's loop the
#: dynamo exporter folds consecutive ``[..., None]`` indexes into one node (three per parameter
#: become two), where it keeps one ``Unsqueeze`` per ``torch.unsqueeze`` call. Nothing else differs.
FOLDED = {("kornia_adjust_gamma", "dynamo"): 2}


def _ops(path: Path) -> Counter:
    return Counter(node.op_type for node in onnx.load(str(path)).graph.node)


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request, tmp_path_factory) -> dict:
    """One variant, its rewrite, and both models' graphs with both exporters."""
    name = request.param
    tmp = tmp_path_factory.mktemp(name)
    module, new_source, original, rewritten = built_pair(HERE / f"{name}.py", "TRT402", tmp, unsafe=True)
    example = module.inputs(torch.Generator().manual_seed(0))
    export_variant(original, example, module.DYNAMIC, tmp / "original.onnx", tmp)
    export_variant_dynamo(original, example, module.DYNAMIC, tmp / "original_dynamo.onnx")
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, tmp / "rewritten.onnx", tmp)
    dynamo = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp / "rewritten_dynamo.onnx")
    return {"name": name, "source": new_source, "original": original, "rewritten": rewritten, "tmp": tmp,
            "graphs": {"torchscript": torchscript, "dynamo": dynamo},
            "sets": {"example": example, **VARIANTS[name][2]}}


def test_rule_rewrites_every_literal_axis(migrated: dict) -> None:
    fragments, left, _ = VARIANTS[migrated["name"]]
    for fragment in fragments:
        assert fragment in migrated["source"], migrated["source"]
    code = migrated["source"].split('"""', 2)[2]  # below the docstring
    assert len(re.findall(r"unsqueeze\(", code)) == left, code
    path = HERE / f"{migrated['name']}.py"
    assert rewrite_variant(path, "TRT402") == path.read_text(), "an unsafe fix applied without --unsafe"


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_same_operators_after_the_rewrite(migrated: dict, exporter: str) -> None:
    """The recipe is a style: the exported graph TensorRT reads holds the same operators."""
    suffix = "_dynamo" if exporter == "dynamo" else ""
    tmp = migrated["tmp"]
    expected = _ops(tmp / f"original{suffix}.onnx")
    expected["Unsqueeze"] -= FOLDED.get((migrated["name"], exporter), 0)
    assert _ops(tmp / f"rewritten{suffix}.onnx") == expected


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_rewritten_graph_equals_eager(migrated: dict, exporter: str) -> None:
    for label, inputs in migrated["sets"].items():
        assert_graph_equals_eager(migrated["graphs"][exporter], migrated["original"], inputs, f"{exporter} {label}")


def test_eager_unchanged(migrated: dict) -> None:
    assert_eager_unchanged(migrated["original"], migrated["rewritten"], migrated["sets"])
