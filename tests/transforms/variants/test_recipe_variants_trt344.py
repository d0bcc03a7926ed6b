"""The ellipsis-index-write recipe (TRT344) on real-code variants.

Each variant in ``tests/recipe_variants/trt344/`` is a small runnable model reduced from real
detection code (cited in its docstring) that writes box coordinates through an Ellipsis and a list
of positions: YOLOv5's ``scale_boxes`` (``boxes[..., [0, 2]] -= pad[0]``, then the per-column
clamps of its ``clip_boxes``), ultralytics' RT-DETR predictor (``pred[..., [0, 2]] *= ow``, the image
size a tensor input) and ultralytics' ``Boxes.xyxyn`` / ``xywhn`` (``xyxy[..., [0, 2]] /=
self.orig_shape[1]``) and its SAM 3 semantic predictor (``boxes[..., [0, 2]] *= orig_img.shape[1]``,
the scale read from a dynamic image's shape), and outside detection TEMOS's rotation-invariant motion
features (``poses[..., [0, 2]] -= trajectory[..., None, :]``, a tensor broadcast over the joints, and
``+=`` in the inverse). The TorchScript exporter exports every one, and ONNX Runtime refuses every
graph ("input 0 is marked single but has an empty string").

Five more write through a name or an attribute bound to a list or a tuple (the named form, rewritten
to ``_trt_ellipsis_list_write``): YOLOv5-Face's ``Detect`` (``class_range = list(range(5)) +
list(range(15, 15 + self.nc))``, a sum of lists), LeRobot's X-VLA action space (``gripper_idx =
(9, 19)`` in the class body, read as ``self.gripper_idx``: a number and a tensor written), FLUX3's
normalizer and unnormalizer in LeRobot (``self.absolute_dims = list(...)`` made in ``__init__``; a
local list comprehension of the other channels) and CausalAbstraction's featurized site
(``ids = list(self.feature_ids)`` in a branch). LeRobot counts twice: a tuple in a class body and
a list made in ``__init__`` are different forms (the comprehension, the same author's, is a third).
FLUX3's single-action branch, an augmented write (``commands[..., dims] += anchor[..., dims]``), is
reported without a fix and left out of its variant.

``migrate`` places the refused node at its line, applies TRT344 there and ends with exit 0, the
rewritten model equivalent, for all ten. Rewritten from the code alone and exported directly with
both exporters, each graph equals eager mode at other sizes and on edge values (zeros, negatives,
infinities and NaN, one box, no box), and eager mode is unchanged (outputs, inputs afterwards,
gradients).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant,
                            export_variant_dynamo, load_variant, seeded, with_specials)
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt344"
CODE_ALONE = Options(select=("TRT344",), scope="all")
INF = float("inf")

#: variant -> the writes, as written (each line TRT344 takes).
WRITES: dict[str, tuple[str, ...]] = {
    "yolov5_scale_boxes": ("boxes[..., [0, 2]] -= pad[0]", "boxes[..., [1, 3]] -= pad[1]"),
    "ultralytics_rtdetr_scale_to_image": ("pred[..., [0, 2]] *= ow", "pred[..., [1, 3]] *= oh"),
    "ultralytics_boxes_xyxyn": ("xyxy[..., [0, 2]] /= self.orig_shape[1]", "xyxy[..., [1, 3]] /= self.orig_shape[0]",
                                "xywh[..., [0, 2]] /= self.orig_shape[1]", "xywh[..., [1, 3]] /= self.orig_shape[0]"),
    "ultralytics_sam3_boxes_to_image": ("boxes[..., [0, 2]] *= orig_img.shape[2]",
                                        "boxes[..., [1, 3]] *= orig_img.shape[1]"),
    "temos_rifke_trajectory": ("poses[..., [0, 2]] -= trajectory[..., None, :]",
                               "poses[..., [0, 2]] += trajectory[..., None, :]"),
    "yolov5_face_detect_class_range": ("y[..., class_range] = out[..., class_range].sigmoid()",),
    "lerobot_xvla_gripper_channels": ("proprio_m[..., self.gripper_idx] = 0.0",
                                      "action[..., self.gripper_idx] = torch.sigmoid(action[..., self.gripper_idx])"),
    "lerobot_flux3_absolute_dims": ("values[..., self.absolute_dims] = commands[:, 1:, self.absolute_dims]",),
    "lerobot_flux3_delta_dims": ("commands[..., dims] = values[..., dims].cumsum(1) + anchor[:, None, dims]",),
    "causalab_featurized_site_edit": ("f_out[..., ids] = self._coerce(self.g(f[..., ids]), f)",),
}

#: the writes through a name or an attribute bound to lists or tuples (positions no slice names, or read through
#: ``self``) -> the call that replaces each statement; every other write's list becomes ``_trt_index_list([...])``.
NAMED: dict[str, str] = {
    "y[..., class_range] = out[..., class_range].sigmoid()":
        "_trt_ellipsis_list_write(y, class_range, out[..., class_range].sigmoid())",
    "proprio_m[..., self.gripper_idx] = 0.0": "_trt_ellipsis_list_write(proprio_m, self.gripper_idx, 0.0)",
    "action[..., self.gripper_idx] = torch.sigmoid(action[..., self.gripper_idx])":
        "_trt_ellipsis_list_write(action, self.gripper_idx, torch.sigmoid(action[..., self.gripper_idx]))",
    "values[..., self.absolute_dims] = commands[:, 1:, self.absolute_dims]":
        "_trt_ellipsis_list_write(values, self.absolute_dims, commands[:, 1:, self.absolute_dims])",
    "commands[..., dims] = values[..., dims].cumsum(1) + anchor[:, None, dims]":
        "_trt_ellipsis_list_write(commands, dims, values[..., dims].cumsum(1) + anchor[:, None, dims])",
    "f_out[..., ids] = self._coerce(self.g(f[..., ids]), f)":
        "_trt_ellipsis_list_write(f_out, ids, self._coerce(self.g(f[..., ids]), f))",
}


def _expected(write: str) -> str:
    """The text that replaces ``write`` in the rewritten source."""
    if write in NAMED:
        return NAMED[write]
    start, rest = write.split("[..., ", 1)
    positions, tail = rest.split("]]", 1)
    return f"{start}[..., _trt_index_list({positions}])]{tail}"

#: variant -> the other rules migrate applies to it (TEMOS's ``torch.einsum`` rotations: TRT303 for TensorRT).
OTHER_RULES: dict[str, set[str]] = {"temos_rifke_trajectory": {"TRT303"}}
#: variant -> the graph's tolerance, relative to the output's scale, where 1e-6 is too tight for float32: TEMOS's
#: angles go through atan2, cos/sin and cumulative sums over the frames, and the original's own dynamo graph
#: differs from eager mode by about 1e-5 of the scale at 40 frames.
TOLERANCE: dict[str, float] = {"temos_rifke_trajectory": 1e-4}


@pytest.mark.parametrize("name", list(WRITES))
def test_migrate_applies_the_rule_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt344_m_{name}")
    lines = sorted(_line_of(path, write) for write in WRITES[name])
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert sorted(f.line for f in found) == lines  # from the code alone
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert [fix for fix in applied if fix[0] == "TRT344"] == [("TRT344", line) for line in lines], applied
    assert {rule for rule, _ in applied} - {"TRT344"} == OTHER_RULES.get(name, set()), applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    added = [line for line in report["diff"].splitlines() if line.startswith("+")]
    for write in WRITES[name]:
        expected = _expected(write)
        assert any(line.strip() == "+" + expected or expected in line for line in added), (expected, report["diff"])


def _features(seed: int, shape: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    return (torch.randn(shape, generator=seeded(seed)) * 2,)


def _queries(seed: int, batch: int, count: int, image_hw: list[list[float]]) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, count, 16, generator=seeded(seed)), torch.tensor(image_hw))


def _sam(seed: int, queries: int, height: int, width: int) -> tuple[torch.Tensor, ...]:
    g = seeded(seed)
    return (torch.randn(queries, 4, generator=g), torch.randn(queries, 1, generator=g),
            torch.randn(queries, 8, 8, generator=g), torch.rand(3, height, width, generator=g))


def _motion(seed: int, batch: int, frames: int) -> tuple[torch.Tensor]:
    """Joints; not all zeros: there ``atan2(0, 0)`` of the facing direction is 0 in eager mode, NaN in the graph."""
    return (torch.randn(batch, frames, 7, 3, generator=seeded(seed)) * 3,)


def _rows(seed: int, count: int) -> tuple[torch.Tensor]:
    data = torch.rand(count, 6, generator=seeded(seed)) * 700 - 30
    if count >= 4:
        data[0] = torch.tensor([0.0, -0.0, 0.0, -0.0, 0.0, 0.0])
        data[1, :4] = torch.tensor([INF, -INF, float("nan"), 5.0])
        data[2, :4] = torch.tensor([-12.5, -3.0, -1.0, -0.5])
    return (data,)


def _arms(seed: int, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Proprioception and features; from four rows on, edge values in the gripper channels (9, 19) too."""
    g = seeded(seed)
    proprio, features = torch.randn(batch, 20, generator=g) * 3, torch.randn(batch, 12, generator=g)
    if batch >= 4:
        proprio[0] = 0.0
        proprio[1, [0, 9, 19]] = torch.tensor([INF, float("nan"), -INF])
        proprio[2] = -proprio[2].abs() - 1
        features[3] = torch.tensor([INF, -INF, float("nan")] + [0.0] * 9)
    return proprio, features


def _commands(seed: int, batch: int, window: int, scale: float = 2.0) -> tuple[torch.Tensor]:
    """A window of 14-channel commands; from two rows and four steps on, zeros, negatives and inf/NaN too."""
    x = torch.randn(batch, window, 14, generator=seeded(seed)) * scale
    if batch >= 2 and window >= 4:
        x[0, 0] = 0.0
        x[0, 1, [0, 6, 13]] = torch.tensor([INF, float("nan"), -INF])
        x[1] = -x[1].abs() - 0.5
    return (x,)


def _chunk(seed: int, batch: int, chunk: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = seeded(seed)
    action, anchor = torch.randn(batch, chunk, 14, generator=g), torch.randn(batch, 14, generator=g) * 3
    if batch >= 2 and chunk >= 3:
        action[0, 0, [1, 6, 13]] = torch.tensor([INF, float("nan"), -INF])
        action[1] = 0.0
        anchor[1] = -anchor[1].abs()
    return action, anchor


#: variant -> the sets the graphs are compared on (the example's shapes, other sizes, edge values).
SETS = {
    "causalab_featurized_site_edit": {
        "one-position": (torch.randn(1, 1, 12, generator=seeded(1)),), "longer": _features(2, (4, 33, 12)),
        "specials": (with_specials((2, 3, 12), 3),), "zeros": (torch.zeros(2, 4, 12),),
        "negatives": (-torch.rand(3, 2, 12, generator=seeded(4)) * 50,), "no-position": (torch.zeros(2, 0, 12),)},
    "lerobot_flux3_absolute_dims": {
        "one-step": _commands(1, 1, 2), "longer": _commands(2, 5, 33), "edges": _commands(3, 3, 6),
        "no-sample": (torch.zeros(0, 6, 14),), "clipped": _commands(4, 2, 7, scale=300.0)},
    "lerobot_flux3_delta_dims": {
        "one-action": _chunk(1, 1, 1), "longer": _chunk(2, 4, 50), "edges": _chunk(3, 3, 5),
        "zeros": (torch.zeros(2, 3, 14), torch.zeros(2, 14))},
    "yolov5_face_detect_class_range": {
        "one-cell": _features(1, (1, 8, 1, 1)), "larger": _features(2, (3, 8, 7, 9)),
        "specials": (with_specials((2, 8, 3, 4), 3),), "zeros": (torch.zeros(1, 8, 2, 2),),
        "negatives": (-torch.rand(2, 8, 5, 3, generator=seeded(4)) * 40,)},
    "lerobot_xvla_gripper_channels": {
        "one-sample": _arms(1, 1), "more": _arms(2, 17), "edges": _arms(3, 6), "no-sample": _arms(4, 0),
        "zeros": (torch.zeros(2, 20), torch.zeros(2, 12))},
    "yolov5_scale_boxes": {
        "one-cell": _features(1, (1, 8, 1, 1)), "larger": _features(2, (3, 8, 7, 9)),
        "specials": (with_specials((2, 8, 3, 4), 3),), "zeros": (torch.zeros(1, 8, 2, 2),)},
    "ultralytics_rtdetr_scale_to_image": {
        "one-query": _queries(1, 1, 1, [[1.0, 1.0]]),
        "more": _queries(2, 3, 50, [[1080.0, 1920.0], [0.0, 0.0], [-4.0, 2.5]]),
        "specials": (with_specials((2, 7, 16), 4), torch.tensor([[INF, 640.0], [480.0, float("nan")]]))},
    "ultralytics_boxes_xyxyn": {"one-box": _rows(1, 1), "many": _rows(2, 40), "no-box": _rows(3, 0),
                                "edges": _rows(4, 6)},
    "ultralytics_sam3_boxes_to_image": {
        "one-query-small-image": _sam(1, 1, 5, 3), "more-queries-other-image": _sam(2, 12, 48, 64),
        "specials": (with_specials((4, 4), 5), with_specials((4, 1), 6), _sam(7, 4, 9, 9)[2], torch.rand(3, 9, 9))},
    "temos_rifke_trajectory": {
        "one-sequence": _motion(1, 1, 9), "longer": _motion(2, 3, 40), "two-frames": _motion(3, 2, 2),
        "standing-still": (_motion(5, 2, 1)[0].expand(2, 6, 7, 3).contiguous(),), "negatives": (-torch.rand(2, 6, 7, 3, generator=seeded(4)) - 1,),
        "specials": (with_specials((2, 6, 7, 3), 5),)},
}


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("name", list(WRITES))
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, dynamo: bool, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt344_{name}")
    example = module.inputs(seeded(0))
    if not dynamo:  # the original's graph: exported, and refused by ONNX Runtime at load
        with pytest.raises(Exception, match="marked single but has an empty string"):
            export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
        assert (tmp_path / "before.onnx").exists()
    new_source = fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode()
    listed = [write for write in WRITES[name] if write not in NAMED]
    assert new_source.count("[..., _trt_index_list([") == len(listed), new_source
    code = [line for line in new_source.splitlines() if "``" not in line]  # docstrings quote the writes in ``
    for write in WRITES[name]:
        assert sum(_expected(write) in line for line in code) == 1, (write, new_source)
        assert not any(write in line for line in code), (write, new_source)
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt344_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    if dynamo:
        session = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx")
    else:
        session = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)[0]
    for label, inputs in {"example": example, **SETS[name]}.items():
        assert_graph_within(session, original, inputs, TOLERANCE.get(name, 1e-6), label)
    if not dynamo:
        assert_eager_unchanged(original, rewritten, {"example": example, **SETS[name]})
