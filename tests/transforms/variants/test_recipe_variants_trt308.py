"""The angle-conversion (TRT308), affine-grid (TRT309) and eye (TRT310) recipes on real-code variants.

Each variant in ``tests/recipe_variants/trt308/``, ``trt309/`` and ``trt310/`` is a small runnable
model reduced from a public repository (cited in its docstring). ``torch.rad2deg``/``deg2rad``
(``torch.torch.deg2rad`` included) and ``F.affine_grid`` have no symbolic in the TorchScript
exporter at opset 17: the original does not export. ``torch.eye`` of a size read from an input
exports as an EyeLike whose input shape is computed at run time, which TensorRT does not build (and
ONNX Runtime has no boolean EyeLike): the original's graph check names it. Each rule rewrites the
file from the code alone (safe fixes); the rewritten model exports (with the dynamo exporter too
for one or two variants of each rule, to keep the file fast) with nothing hostile in the inserted
helper's lines (no EyeLike at all for TRT310), its graph equals eager mode at other sizes (a grid's
dynamic height and width under the dynamo exporter included) and on edge values (zeros,
negatives, empty tensors, inf/NaN where they can occur), and eager mode is
unchanged bit for bit (outputs, gradients, exceptions).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import NamedTuple

import onnx
import pytest
import torch
from support import TESTS
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant,
                            export_variant_dynamo, input_names, load_variant, seeded)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.trt.check import check_graph
from trtcodemod.verify.export import export_model

HERE = TESTS / "recipe_variants"
NAN, INF = float("nan"), float("inf")




def _rotations(n: int, seed: int) -> torch.Tensor:
    return torch.linalg.qr(torch.randn(n, 3, 3, generator=seeded(seed)))[0]


def _theta(n: int, seed: int, rows: int = 3) -> torch.Tensor:
    return torch.eye(3)[:rows].repeat(n, 1, 1) + 0.2 * torch.randn(n, rows, 3, generator=seeded(seed))


def _theta3d(n: int, seed: int, rows: int = 3) -> torch.Tensor:
    return torch.eye(4)[:rows].repeat(n, 1, 1) + 0.2 * torch.randn(n, rows, 4, generator=seeded(seed))


def _masks(rows: list[list[int]]) -> torch.Tensor:
    return torch.tensor(rows)


class Variant(NamedTuple):
    rule: str
    fragments: tuple[str, ...]
    sets: dict[str, tuple[torch.Tensor, ...]]  # other sizes and edge values; "raises-"/"eager-": eager mode only
    tolerance: float = 1e-6  # relative to the output's largest magnitude (1 at least)
    dynamo: bool = False  # the dynamo export too (slow: a few per rule, the dynamic grids among them)


def _boxes(batch: int, count: int, seed: int) -> torch.Tensor:
    module = load_variant(HERE / "trt309" / "openpcdet_second_roi_grid_pool.py", "trt309_openpcdet_boxes")
    return module.boxes(seeded(seed), batch, count)


_FLIP = torch.diag(torch.tensor([-1.0, -1.0, 1.0]))
VARIANTS: dict[str, Variant] = {
    "kornia_rotation_angle_error": Variant("TRT308", ("theta = _trt_rad2deg(-torch.atan2(-sin_theta, cos_theta))",), {
        "more": (_rotations(9, 1), _rotations(9, 2)),
        "identical": (_rotations(3, 3), _rotations(3, 3)),
        "opposite": (_rotations(2, 4), _rotations(2, 4) @ _FLIP),
        "zeros-and-negatives": (torch.zeros(2, 3, 3), -_rotations(2, 5)),
        "nan": (torch.full((1, 3, 3), NAN), _rotations(1, 6)),
        "no-pairs": (torch.zeros(0, 3, 3), torch.zeros(0, 3, 3)),
    }),
    "kornia_projective_rotation": Variant("TRT308", ("axis_angle_rad: torch.Tensor = _trt_deg2rad(angles)",), {
        "more": ((torch.rand(11, 3, generator=seeded(7)) - 0.5) * 720, torch.rand(11, 3, generator=seeded(8)) + 0.5),
        "zeros": (torch.zeros(3, 3), torch.ones(3, 3)),
        "negatives": (-torch.rand(2, 3, generator=seeded(9)) * 180, -torch.ones(2, 3)),
        # No inf: the rotation's own sin and cos of inf differ between ONNX Runtime and eager mode.
        "nan-and-signed-zeros": (torch.tensor([[NAN, 1.0, 2.0], [-0.0, -0.0, 90.0]]), torch.ones(2, 3)),
        "empty": (torch.zeros(0, 3), torch.zeros(0, 3)),
    }),
    "kornia_lightglue_orientations": Variant("TRT308", (
        "return _trt_rad2deg(angle_rad).unsqueeze(-1)",
        "oris = _trt_deg2rad(get_laf_orientation(lafs).reshape(1, -1))"), {
        "more": (torch.randn(1, 13, 2, 3, generator=seeded(10)),),
        "negatives": (-torch.rand(1, 4, 2, 3, generator=seeded(11)) - 0.1,),
        "axes": (torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[-1.0, 1e-30, 0.0], [0.0, 1.0, 0.0]],
                               [[0.0, -2.0, 0.0], [1.0, 0.0, 0.0]]]).unsqueeze(0),),
        "no-frames": (torch.zeros(1, 0, 2, 3),),
    }),
    "transformers_depth_pro_focal": Variant("TRT308", (
        "focal_length = 0.5 * self.width / torch.tan(0.5 * _trt_deg2rad(field_of_view))",), {
        "larger": (torch.rand(3, 10, 4, generator=seeded(12)) * 80, torch.rand(3, generator=seeded(13)) * 120 + 10),
        "zero-and-negative-fov": (torch.rand(2, 2, 3, generator=seeded(14)), torch.tensor([0.0, -45.0])),
        "inf-nan": (torch.tensor([[[INF, -1.0], [0.0, NAN]]]).expand(3, 2, 2).clone(), torch.tensor([60.0, NAN, INF])),
        "empty": (torch.zeros(0, 4, 5), torch.zeros(0)),
    }, dynamo=True),
    "apple_depth_pro_infer": Variant("TRT308", (
        "f_px = 0.5 * W / torch.tan(0.5 * _trt_deg2rad(fov_deg.to(torch.float)))",), {
        "larger": (torch.randn(3, 3, 17, 31, generator=seeded(66)),),
        "one-pixel": (torch.randn(1, 3, 1, 1, generator=seeded(67)),),
        "zeros": (torch.zeros(2, 3, 5, 4),),
        "negatives": (-torch.rand(2, 3, 6, 9, generator=seeded(68)) * 50,),
        "inf-nan": (torch.tensor([INF, -1.0, NAN, 0.0, -INF]).repeat(3, 3, 2, 1),),
        "no-images": (torch.zeros(0, 3, 4, 4),),
    }, dynamo=True),
    "monai_affine_transform": Variant("TRT309", (
        "grid = _trt_affine_grid(theta=theta[:, :sr], size=list(dst_size), align_corners=self.align_corners)",), {
        "larger": (torch.randn(3, 2, 11, 5, generator=seeded(15)), _theta(3, 16)),
        "one-theta": (torch.randn(4, 3, 4, 9, generator=seeded(17)), _theta(1, 18)),
        "one-row-and-one-column": (torch.randn(2, 3, 1, 1, generator=seeded(41)), _theta(2, 42)),
        "one-row": (torch.randn(2, 3, 1, 6, generator=seeded(43)), _theta(2, 44)),
        "zeros": (torch.zeros(2, 1, 5, 5), torch.zeros(2, 3, 3)),
        "negatives": (-torch.rand(1, 2, 8, 3, generator=seeded(19)), -_theta(1, 20)),
        "raises-no-images": (torch.zeros(0, 3, 6, 7), torch.zeros(0, 3, 3)),
    }, 1e-5, dynamo=True),
    "torchreg_affine_transform": Variant("TRT309", (
        "return _trt_affine_grid(affine, [len(x), len(shape), *shape], align_corners)",
        "return _trt_affine_grid(torch.eye(4, device=device)[None, :3], [1, 3, *shape], align_corners=True)"), {
        "larger": (torch.randn(2, 1, 9, 3, 11, generator=seeded(70)),),
        "one-voxel": (torch.randn(2, 1, 1, 1, 1, generator=seeded(71)),),
        "one-slice": (torch.randn(2, 1, 1, 6, 5, generator=seeded(72)),),
        "zeros": (torch.zeros(2, 1, 3, 3, 3),),
        "raises-no-voxels": (torch.zeros(2, 1, 0, 4, 4),),
        "raises-an-image": (torch.randn(2, 1, 4, 4, generator=seeded(73)),),  # a 2x3 grid of a 3x4 affine
    }, 1e-5),
    "kornia_warp_affine3d": Variant("TRT309", (
        "grid = _trt_affine_grid(P_norm, dsize_out, align_corners=align_corners)",), {
        "more": (torch.randn(5, 2, 3, 9, 4, generator=seeded(74)), _theta3d(5, 75)),
        "one-volume": (torch.randn(1, 1, 2, 2, 2, generator=seeded(76)), _theta3d(1, 77)),
        "zeros-and-negatives": (torch.zeros(2, 1, 4, 4, 4), -_theta3d(2, 78)),
        "inf-nan": (torch.zeros(1, 1, 2, 2, 2), torch.tensor([[[INF, 0.0, 0.0, 1.0], [0.0, NAN, 0.0, 0.0],
                                                                [0.0, 0.0, -INF, 0.0]]])),
        "raises-a-2x3-theta": (torch.zeros(2, 1, 4, 4, 4), torch.eye(2, 3).repeat(2, 1, 1)),
    }, 1e-5, dynamo=True),
    "monai_affine_transform_3d": Variant("TRT309", (
        "return _trt_affine_grid(theta=theta[:, :sr], size=list(dst_size), align_corners=self.align_corners)",), {
        "more": (torch.randn(5, 1, 9, 2, 8, generator=seeded(79)), _theta3d(5, 80)),
        "one-voxel-input": (torch.randn(1, 2, 1, 1, 1, generator=seeded(81)), _theta3d(1, 82)),
        "zeros": (torch.zeros(2, 1, 4, 4, 4), torch.zeros(2, 3, 4)),
        "negatives": (-torch.rand(3, 2, 3, 3, 3, generator=seeded(83)), -_theta3d(3, 84)),
        "inf-nan": (torch.zeros(1, 1, 2, 2, 2), torch.tensor([[[INF, 0.0, 0.0, 1.0], [0.0, NAN, 0.0, 0.0],
                                                                [0.0, 0.0, 1.0, -INF]]])),
        "raises-an-image": (torch.randn(2, 3, 6, 7, generator=seeded(85)), _theta3d(2, 86)),  # sr = 2, 3-D size
        "raises-no-volumes": (torch.zeros(0, 1, 3, 3, 3), torch.zeros(0, 3, 4)),
    }, 1e-5, dynamo=True),
    "timm_naflexvit_interp1d": Variant("TRT309", (
        "grid = _trt_affine_grid(theta, (B, C, 1, out_length), align_corners=False)",), {
        "wider": (torch.randn(2, 3, 17, generator=seeded(21)), torch.tensor([17.0, 5.0])),
        "same-width": (torch.randn(4, 1, 8, generator=seeded(22)), torch.full((4,), 8.0)),
        "negatives": (-torch.rand(1, 2, 3, generator=seeded(23)), torch.tensor([-3.0])),
        "no-tokens": (torch.zeros(2, 0, 6), torch.tensor([6.0, 2.0])),
    }, 1e-5, dynamo=True),
    "kornia_warp_affine": Variant("TRT309", (
        "grid = _trt_affine_grid(src_norm_trans_dst_norm[:, :2, :], [B_M, C, dsize[0], dsize[1]],",), {
        "more": (torch.randn(5, 3, 7, 9, generator=seeded(24)),
                 torch.tensor([[1.2, -0.3, 2.0], [0.4, 0.8, -1.0]]).repeat(5, 1, 1)),
        "identity": (torch.randn(1, 3, 7, 9, generator=seeded(25)), torch.eye(2, 3)[None]),
        "zeros-and-negatives": (-torch.rand(2, 3, 7, 9, generator=seeded(26)),
                                torch.tensor([[-1.0, 0.0, 0.0], [0.0, -2.0, 0.0]]).expand(2, 2, 3).clone()),
        "raises-no-channels": (torch.zeros(2, 0, 7, 9), torch.eye(2, 3).expand(2, 2, 3).clone()),
    }, 1e-5),
    "pytorch_tutorials_stn": Variant("TRT309", ("grid = _trt_affine_grid(theta, x.size())",), {
        "more": (torch.randn(6, 1, 12, 12, generator=seeded(27)),),
        "zeros": (torch.zeros(2, 1, 12, 12),),
        "negatives": (-torch.rand(1, 1, 12, 12, generator=seeded(28)) * 5,),
        "raises-no-images": (torch.zeros(0, 1, 12, 12),),
    }, 1e-5),
    "sketchcyclegan_stn_fixed_size": Variant("TRT309", (
        "grid = _trt_affine_grid(theta, [B, x.size(1), self.out_h, self.out_w], align_corners=False)",), {
        "larger": (torch.randn(4, 3, 23, 31, generator=seeded(52)),),
        "smallest": (torch.randn(1, 3, 7, 7, generator=seeded(53)),),
        "zeros": (torch.zeros(2, 3, 9, 8),),
        "negatives": (-torch.rand(3, 3, 10, 12, generator=seeded(54)) * 4,),
        # The localization turns inf into a NaN matrix, so every grid point is NaN (in the graph too), where
        # ONNX Runtime's GridSample samples otherwise than eager mode: compared in eager mode only.
        "eager-inf-nan": (torch.tensor([INF, NAN, -INF, 0.0, 1.0, -2.0, 0.5]).repeat(1, 3, 8, 1),),
        "raises-too-small": (torch.randn(1, 3, 6, 9, generator=seeded(55)),),
        "raises-no-images": (torch.zeros(0, 3, 9, 9),),
    }, 1e-5, dynamo=True),
    "openpcdet_second_roi_grid_pool": Variant("TRT309", (
        "self.affine_grid = partial(_trt_affine_grid, align_corners=True)", "self.affine_grid = _trt_affine_grid"), {
        "more-boxes": (_boxes(2, 9, 56), torch.randn(2, 3, 12, 16, generator=seeded(57))),
        "larger-map": (_boxes(2, 3, 58), torch.randn(2, 3, 21, 9, generator=seeded(59))),
        "one-box": (_boxes(2, 1, 60), torch.randn(2, 3, 12, 16, generator=seeded(61))),
        "zeros": (torch.zeros(2, 4, 7), torch.zeros(2, 3, 5, 6)),
        "negatives": (-_boxes(2, 4, 62).abs(), -torch.rand(2, 3, 8, 8, generator=seeded(63))),
        # A NaN box gives a NaN grid (in the graph too), which GridSample samples as its own: eager mode only.
        "eager-inf-nan": (torch.tensor([[[INF, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0], [0.0, NAN, 0.0, 1.0, 1.0, 1.0, 0.0]]])
                          .expand(2, 2, 7).clone(), torch.randn(2, 3, 6, 6, generator=seeded(64))),
        "eager-no-boxes": (torch.zeros(2, 0, 7), torch.randn(2, 3, 6, 6, generator=seeded(65))),
    }, 1e-5),
    "transformers_xlnet_non_target": Variant("TRT310", (
        "non_tgt_mask = -_trt_eye(qlen, device=attn_mask.device, dtype=attn_mask.dtype)",), {
        "longer": (_masks([[1] * 9, [1] * 4 + [0] * 5, [0] * 9]),),
        "no-padding": (torch.ones(1, 3, dtype=torch.long),),
        "one-token": (_masks([[1], [0]]),),
        "no-tokens": (torch.zeros(2, 0, dtype=torch.long),),
    }, dynamo=True),
    "transformers_bros_self_token": Variant("TRT310", (
        "self_token_mask = _trt_eye(max_seq_length, max_seq_length + 1, device=device, dtype=torch.bool)",), {
        "longer": (torch.randn(3, 9, 10, generator=seeded(29)), _masks([[1] * 9, [1] * 2 + [0] * 7, [1] * 8 + [0]])),
        "inf-nan": (torch.tensor([[[NAN, INF, 1.0], [-INF, -0.0, 0.0]]]), _masks([[1, 0]])),
        "one-token": (torch.randn(2, 1, 2, generator=seeded(30)), _masks([[1], [0]])),
        "no-tokens": (torch.zeros(2, 0, 1), torch.zeros(2, 0, dtype=torch.long)),
    }),
    "transformers_siglip_loss": Variant("TRT310", (
        "eye = _trt_eye(logits_per_text.size(0), device=logits_per_text.device)",), {
        "larger": (torch.randn(9, 6, generator=seeded(31)), torch.randn(9, 6, generator=seeded(32))),
        "one-pair": (torch.randn(1, 6, generator=seeded(33)), torch.randn(1, 6, generator=seeded(34))),
        "negatives": (-torch.rand(3, 6, generator=seeded(35)), torch.rand(3, 6, generator=seeded(36))),
        "zeros-inf-nan": (torch.tensor([[0.0] * 6, [INF] + [0.0] * 5]), torch.tensor([[NAN] * 6, [1.0] * 6])),
        # ONNX Runtime's ReduceMean of nothing is 0 (the original's graph's too), eager mode's mean NaN.
        "eager-no-pairs": (torch.zeros(0, 6), torch.zeros(0, 6)),
    }),
    "simclr_info_nce_mask": Variant("TRT310", ("mask = _trt_eye(labels.shape[0], dtype=torch.bool)",), {
        "more": (torch.randn(10, 5, generator=seeded(37)),),
        "one-pair": (torch.randn(2, 5, generator=seeded(38)),),
        "zeros-and-negatives": (torch.cat([torch.zeros(2, 5), -torch.rand(2, 5, generator=seeded(39))]),),
        # No inf: F.normalize of an infinite row is NaN in eager mode, not in ONNX Runtime.
        "nan": (torch.tensor([[NAN, 1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 2.0, 3.0, -1.0], [1.0, -1.0, 0.5, 0.0, 0.0],
                              [0.0, 0.0, 0.0, 0.0, 7.0]]),),
        "raises-no-views": (torch.zeros(0, 5),),  # view(0, -1) of the masked labels
    }),
    "mtgnn_mixprop_self_loops": Variant("TRT310", ("adj = adj + _trt_eye(adj.size(0)).to(x.device)",), {
        "more-nodes": (torch.randn(3, 3, 11, 4, generator=seeded(45)), torch.rand(11, 11, generator=seeded(46))),
        "one-node": (torch.randn(1, 3, 1, 7, generator=seeded(47)), torch.rand(1, 1, generator=seeded(48))),
        "no-edges": (torch.randn(2, 3, 4, 2, generator=seeded(49)), torch.zeros(4, 4)),
        "zeros-and-negatives": (torch.zeros(1, 3, 3, 3), -torch.rand(3, 3, generator=seeded(50)) * 0.1),
        "a-lone-node-cancelled": (torch.randn(1, 3, 2, 2, generator=seeded(51)),
                                  torch.tensor([[-1.0, 0.0], [0.5, 0.5]])),
        "inf-nan": (torch.tensor([INF, -1.0, NAN, 0.0]).repeat(1, 3, 3, 1),
                    torch.tensor([[0.0, INF, 0.0], [NAN, 1.0, 0.0], [0.0, 0.0, 0.0]])),
        "raises-no-nodes": (torch.zeros(1, 3, 0, 4), torch.zeros(0, 0)),
    }, dynamo=True),
}
# ``self.affine_grid(`` calls the attribute the rewrite binds to the helper (OpenPCDet's partial).
_UNREWRITTEN = {"TRT308": r"(?<!_trt_)(rad2deg|deg2rad)\(", "TRT309": r"(?<!_trt_)(?<!self\.)affine_grid\(",
                "TRT310": r"(?<!_trt_)\beye\((?!\d)"}
_MISSING = {"TRT308": r"aten::(rad2deg|deg2rad)", "TRT309": r"aten::affine_grid_generator"}




@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    rule, fragments, others, tolerance, with_dynamo = VARIANTS[name]
    path = HERE / rule.lower() / f"{name}.py"
    module, original = built_variant(path, f"{rule.lower()}_{name}")
    example = module.inputs(seeded(0))

    # Before: no symbolic for the operator (TRT308, TRT309), or an EyeLike TensorRT cannot build (TRT310).
    before = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    if rule == "TRT310":
        assert before.error is None, before.error
        issues = check_graph(onnx.load(str(tmp_path / "before.onnx")), "10.0")
        assert [(i.rule, i.severity) for i in issues if i.op == "EyeLike"] == [("TRT310", "error")], issues
    else:
        assert before.error is not None and re.search(_MISSING[rule], before.error), before.error

    # The rule from the code alone, without --unsafe: every call of the model, nothing else.
    options = Options(select=(rule,), scope="all")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    for fragment in fragments:
        assert fragment in new_source, new_source
    helpers_end = new_source.index("\n\n\n", new_source.rindex("\ndef _trt_")) + 3  # after the inserted helpers
    body = new_source[helpers_end:]
    assert not re.search(_UNREWRITTEN[rule], body), body
    findings = check_source(path.read_bytes(), str(path.resolve()), options)
    assert [f.rule for f in findings] == [rule] * len(fragments)
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"{rule.lower()}_rewritten_{name}")

    # After: the TorchScript exporter (and dynamo's for some); nothing hostile from the helper; the
    # graphs follow other sizes and values.
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sessions = {"torchscript": torchscript}
    if with_dynamo:
        sessions["dynamo"] = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "after_dynamo.onnx")
    graph = onnx.load(str(tmp_path / "after.onnx"))
    assert not {"EyeLike", "AffineGrid"} & {n.op_type for n in graph.graph.node if rule != "TRT308"}
    helper_lines = new_source[:helpers_end].count("\n")
    hostile = [i for i in check_graph(graph, "10.0") if i.severity == "error" and i.source
               and i.source.startswith(str(new_path)) and int(i.source.rsplit(":", 1)[1]) <= helper_lines]
    assert hostile == [], hostile
    sets = {"example": example, **others}
    for label, inputs in sets.items():
        if label.startswith(("raises-", "eager-")):  # compared below, in eager mode only
            continue
        for exporter, session in sessions.items():
            assert_graph_within(session, original, inputs, tolerance, f"{exporter} {label}")

    # Eager mode is unchanged, bit for bit: outputs, input gradients, exceptions.
    assert_eager_unchanged(original, rewritten, sets)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_grid_points_of_a_symbolic_size_are_torch_linspace_within_half_an_epsilon(dtype) -> None:
    """The dynamo exporter's sizes are symbolic, and ``torch.linspace`` fixes them to the example's:
    there the helper takes its points from a range, within half a float epsilon of linspace's."""
    from trtcodemod.helpers.affine import _trt_two_sided_range

    theta = torch.zeros(1, 2, 3, dtype=dtype)
    for steps in [2, 3, 7, 8, 13, 64, 255, 1000]:
        got, want = _trt_two_sided_range(theta, steps), torch.linspace(-1, 1, steps, dtype=dtype)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert (got - want).abs().max().item() <= torch.finfo(dtype).eps / 2
        assert got[0].item() == -1.0 and got[-1].item() == 1.0
    assert math.isclose(_trt_two_sided_range(theta, 5)[1].item(), -0.5)
    assert _trt_two_sided_range(theta, 1).tolist() == [0.0]  # PyTorch's single point, chosen in the graph


def test_torch_torch_is_the_torch_module() -> None:
    """``torch.torch`` is torch itself (kornia's ``torch.torch.deg2rad``), under any alias and
    repeated; a name that only starts with ``torch`` after ``torch.`` is not."""
    source = ("import torch\nimport torch as th\n\n\ndef f(x):\n"
              "    return torch.torch.rad2deg(x) + th.torch.torch.deg2rad(x) + torch.torchaudio.deg2rad(x)\n")
    new = fix_source(source.encode(), "f.py", Options(select=("TRT308",), scope="all")).source.decode()
    assert "return _trt_rad2deg(x) + _trt_deg2rad(x) + torch.torchaudio.deg2rad(x)\n" in new, new


def _graph(nodes: int, seed: int, density: float = 0.5) -> tuple[torch.Tensor, torch.Tensor]:
    g = seeded(seed)
    return (torch.rand(nodes, nodes, generator=g) < density).float(), torch.randn(nodes, 3, generator=g)


def test_dgl_dense_cheb_conv_with_the_diagonal_rule(tmp_path: Path) -> None:
    """DGL's DenseChebConv (``th.eye(num_nodes).to(A)`` twice, torch imported as ``th``, the size a name bound
    from ``A.shape[0]``) builds its degree matrix with ``th.diag``, which does not export either: the original
    stops there, not at an EyeLike. ``migrate`` applies TRT310 at both identities and TRT320 at the diagonal and
    ends equivalent (exit 0). From the code alone, the two rules give a graph with no EyeLike that equals eager
    mode at other node counts and on edge values, and eager mode is unchanged."""
    from support import migrate_json
    from variant_models import axes_json, line_of

    path = HERE / "trt310" / "dgl_dense_cheb_conv.py"
    module, original = built_variant(path, "trt310_dgl")
    identities = sorted([line_of(path, "I = th.eye(num_nodes).to(A)"),
                         line_of(path, "Z = [th.eye(num_nodes).to(A)]")])
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is False
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    assert applied == [("TRT310", identities[0]), ("TRT310", identities[1]),
                       ("TRT320", line_of(path, "D_invsqrt = th.diag(in_degree)"))], applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]

    options = Options(select=("TRT310", "TRT320"), scope="all")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    assert "        I = _trt_eye(num_nodes).to(A)\n" in new_source
    assert "        Z = [_trt_eye(num_nodes).to(A)]\n" in new_source
    new_path = tmp_path / "dgl_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, "trt310_dgl_rewritten")
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    assert "EyeLike" not in {n.op_type for n in onnx.load(str(tmp_path / "after.onnx")).graph.node}
    sets = {"example": example, "more-nodes": _graph(13, 1), "one-node": _graph(1, 2, 1.0),
            "no-edges": _graph(5, 3, 0.0),
            "weighted-and-negative": (torch.randn(7, 7, generator=seeded(4)), torch.randn(7, 3, generator=seeded(5))),
            "inf-nan-features": (_graph(4, 6)[0], torch.tensor([[INF, 0.0, 1.0], [NAN, 2.0, -1.0], [0.0, -INF, 3.0],
                                                               [1.0, 1.0, 1.0]]))}
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {**sets, "no-nodes": (torch.zeros(0, 0), torch.zeros(0, 3))})
