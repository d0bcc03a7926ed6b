"""The stacked-row-gather recipe (TRT358) on real-code variants.

Each variant in ``tests/recipe_variants/trt358/`` is a small runnable model reduced from a public
repository (cited in its docstring) whose FCOS detection head takes each image's top-k candidates in a
loop over the batch, ``_boxes.append(boxes[batch][topk_ind[batch]])``, and stacks the lists:
zhenghao977's (square root of score times centerness, a ``min``-capped k) and VectXmy's original (the
product, the sigmoid in place, a fixed k); and RoboOrchardSim's IK selection, whose ``batch_gather`` names
the batch size first (``B = data.shape[0]``, ``for b in range(B)``) and gathers solutions, success flags
and errors by a sorted index; SpERT's relation classifier and ODIN's segment mask head write the loop as a
comprehension stacked at once (``batch_index``: ``torch.stack([tensor[i][index[i]] for i in
range(index.shape[0])])``; ``voxel_map_to_source``: ``bs, n, c = voxel_map.shape``, the rows read as
``voxel_map[i, poin2voxel[i]]``). Exported with a dynamic batch, the loop is unrolled with the example's batch
size. ``migrate`` applies TRT358 at the loop (or the stacked comprehension) and ends with exit 0: equivalent,
the graph faithful at other batch sizes, no TensorRT error. In SpERT's the symptom lies elsewhere: the pairs
are viewed by the batch read from ``relations``, and that ``Reshape`` fails at another batch; migrate ties it
to the stack as it does for a size-erasing rule. What is left there is a warning, not a fix: the check of
``batch_index`` (``tensor.shape[0] != index.shape[0]``, raising) that the graph drops (TRT713).
"""

from __future__ import annotations

import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, axes_json, built, export_variant,
                            line_of, load_variant, rewrite_variant, seeded)

from trtcodemod.engine import Options, check_source

HERE = TESTS / "recipe_variants" / "trt358"
LOOP = "for batch in range(cls_scores.shape[0]):"


#: variant -> the loop, and what the rewrite writes at one of its stacks.
LOOPS = {
    "fcos_detect_head_topk": (LOOP, "_trt_stacked_rows(_boxes, boxes, topk_ind, cls_scores.shape[0])"),
    "vectxmy_detect_head_topk": (LOOP, "_trt_stacked_rows(_boxes, boxes, topk_ind, cls_scores.shape[0])"),
    "roboorchard_ik_batch_gather": ("for b in range(B):", "return _trt_stacked_rows(out, data, idx, B)"),
    "spert_relation_pairs": ("return torch.stack([tensor[i][index[i]]",
                             "_trt_stacked_rows([tensor[i][index[i]] for i in range(index.shape[0])], tensor, index, "
                             "index.shape[0])"),
    "odin_segment_masks": ("src_new = torch.stack([voxel_map[i, poin2voxel[i]]",
                           "_trt_stacked_rows([voxel_map[i, poin2voxel[i]] for i in range(bs)], voxel_map, poin2voxel, "
                           "bs)"),
}


@pytest.mark.parametrize("name", list(LOOPS))
def test_the_rule_finds_the_loop(name: str) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT358",), scope="all"))
    assert [(f.rule, f.line) for f in findings] == [("TRT358", line_of(path, LOOPS[name][0]))]


@pytest.mark.parametrize("name", list(LOOPS))
def test_migrate_applies_trt358_and_ends_with_exit_0(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt358_m_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is not True, report["before"]
    assert ("TRT358", line_of(path, LOOPS[name][0])) in [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert LOOPS[name][1] in report["diff"]


def _ik_sets() -> dict[str, tuple[torch.Tensor, ...]]:
    def made(goals: int, seed: int) -> tuple[torch.Tensor, ...]:
        g = seeded(seed)
        return (torch.randn(goals, 6, 7, generator=g) * 3, torch.rand(goals, 6, generator=g).round(),
                torch.rand(goals, 6, generator=g), torch.randn(goals, 7, generator=g))
    solution, success, error, start = made(3, 4)
    solution[0, 1] = float("inf")  # a diverged solution: its distance is inf, sorted last among its kind
    solution[1, 2, 0] = -1e30
    return {"one goal": made(1, 1), "five goals": made(5, 2), "example size": made(2, 3),
            "zeros": tuple(torch.zeros_like(t) for t in made(3, 5)),
            "negatives and inf": (solution, success, -error, -start.abs())}





def _spert_sets() -> dict[str, tuple[torch.Tensor, ...]]:
    module = load_variant(HERE / "spert_relation_pairs.py", "trt358_sets_spert")

    def made(batch: int, pairs: int, seed: int) -> tuple[torch.Tensor, ...]:
        g = seeded(seed)
        h = torch.randn(batch, 7, 8, generator=g) * 10
        entity_masks = torch.rand(batch, 5, 7, generator=g) < 0.4
        entity_sizes = torch.randint(1, 12, (batch, 5), generator=g)
        relations = torch.randint(-5, 5, (batch, pairs, 2), generator=g)  # negative positions count from the end
        return h, entity_masks, entity_sizes, relations, torch.rand(batch, pairs, 7, generator=g) < 0.5
    h, masks, sizes, relations, rel_masks = made(3, 4, 4)
    h[0, 0, :3] = torch.tensor([float("inf"), -float("inf"), float("nan")])
    return {"example size": module.inputs(seeded(0)), "one sentence": made(1, 3, 1), "five sentences": made(5, 6, 2),
            "no entity tokens": (torch.zeros(2, 7, 8), torch.zeros(2, 5, 7, dtype=torch.bool),
                                 torch.ones(2, 5, dtype=torch.int64), torch.zeros(2, 3, 2, dtype=torch.int64),
                                 torch.zeros(2, 3, 7, dtype=torch.bool)),
            "inf and nan": (h, masks, sizes, relations, rel_masks)}


def _odin_sets() -> dict[str, tuple[torch.Tensor, ...]]:
    def made(batch: int, segments: int, points: int, seed: int) -> tuple[torch.Tensor, ...]:
        g = seeded(seed)
        return (torch.randn(batch, 6, 8, generator=g) * 5, torch.randn(batch, 8, segments, generator=g),
                torch.randint(-segments, segments, (batch, points), generator=g))
    queries, features, segments = made(3, 4, 9, 4)
    features[1, :, 2] = torch.tensor([float("inf"), -float("inf"), float("nan"), 0.0, -0.0, 1e30, -1e30, 1.0])
    return {"example size": made(2, 5, 11, 0), "one scene": made(1, 3, 7, 1), "six scenes": made(6, 7, 20, 2),
            "zeros": (torch.zeros(2, 6, 8), torch.zeros(2, 8, 4), torch.zeros(2, 5, dtype=torch.int64)),
            "no points": made(2, 5, 0, 3), "inf and nan": (queries, features, segments)}


#: variant -> its input sets (other batch sizes, edge values), the larger batch the original's graph fails at and
#: the graph's tolerance (the gathers copy; SpERT's and ODIN's classifier and einsum sum in another order).
SETS = {"roboorchard_ik_batch_gather": (_ik_sets, "five goals", 1e-6),
        "spert_relation_pairs": (_spert_sets, "five sentences", 1e-5), "odin_segment_masks": (_odin_sets, "six scenes", 1e-5)}


@pytest.mark.parametrize("name", list(SETS))
def test_rewritten_graph_equals_eager_at_every_batch(name: str, tmp_path) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt358_d_{name}")
    original = built(module)
    text, after = rewrite_variant(path, Options(select=("TRT358",), scope="all"), tmp_path, f"trt358_r_{name}")
    assert LOOPS[name][1] in text
    rewritten = built(after)
    example = module.inputs(seeded(0))
    made, larger, tolerance = SETS[name]
    sets = made()
    baked, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    with pytest.raises(AssertionError):  # the original's graph unrolled two elements: it fails or returns two
        try:
            assert_graph_within(baked, original, sets[larger], tolerance, "before")
        except Exception as error:  # noqa: BLE001 - ONNX Runtime refusing the unrolled gathers or a Reshape fails too
            raise AssertionError(error) from error
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, tolerance, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **sets})
