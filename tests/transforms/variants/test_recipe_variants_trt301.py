"""The atan2 recipe (TRT301) on real-code variants.

Each variant in ``tests/recipe_variants/trt301/`` is a small runnable model reduced from a public
repository (cited in its docstring) that measures an angle with ``torch.atan2``: BEV box yaw and
point sectors (OpenPCDet), rotated boxes and optical-flow colours (torchvision), Euler angles and a
fisheye camera (kornia, the method form ``a.atan2(b)``). Both exporters turn the original's atan2
into ``Atan(y / x)`` plus a quadrant correction whose graph is wrong at the edges (y = 0 with
x < 0, signed zeros, 0/0, inf/inf, and NaN under the dynamo exporter): each original's graph
differs from eager mode on some edge input. The rule rewrites the file from the code alone (a safe
fix); the rewritten model's graphs, with both exporters, equal eager mode at other sizes and on
every edge set (values to an ulp, the sign of every zero, inf and NaN where eager has them, empty
tensors), and eager mode is unchanged bit for bit (outputs, gradients, exceptions).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from variant_rewrites import assert_eager_unchanged, assert_toolchains_agree, built_pair
from variant_models import export_variant, export_variant_dynamo, input_names, load_variant
from support import TESTS


HERE = TESTS / "recipe_variants" / "trt301"
INF, NAN = math.inf, math.nan

# The (y, x) pairs the exported Atan/Where chain gets wrong, and a few it gets right.
EDGE_Y = torch.tensor([0.0, -0.0, 1.0, 1.0, 0.0, -0.0, INF, -INF, INF, 2.0, NAN, 0.5, -3.0, 1e-30])
EDGE_X = torch.tensor([-1.0, -1.0, -0.0, 0.0, 0.0, -0.0, INF, -INF, 1.0, NAN, 1.0, -2.0, -4.0, 1e30])


def _boxes() -> torch.Tensor:
    """Corner boxes: first edges right to left (180 degrees), degenerate, straight up, inf and NaN."""
    box = torch.tensor([[4.0, 1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0],       # y1 == y2, x2 < x1
                        [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],       # a point: atan2(0, 0)
                        [0.0, 0.0, 0.0, 2.0, -1.0, 2.0, -1.0, 0.0],     # x2 == x1: -90 degrees
                        [0.0, -0.0, -0.0, 0.0, 1.0, 1.0, 0.0, 1.0],     # signed zeros
                        [INF, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0],
                        [NAN, 0.0, 1.0, 2.0, 1.0, 1.0, 0.0, 1.0]])
    return box


def _quaternions() -> torch.Tensor:
    # The poles (gimbal lock) with a norm exact in float32, so eager mode and the graph agree on the branch.
    return torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0],
                         [-1.0, 0.0, 0.0, 0.0], [0.5, -0.5, 0.5, 0.5], [0.5, 0.5, -0.5, 0.5], [2.0, 2.0, 2.0, -2.0],
                         [0.0, 0.0, 0.0, 0.0], [NAN, 0.0, 0.0, 1.0], [0.5, -0.5, 0.5, -0.5], [-0.0, -1.0, 0.0, 0.0]])


# name → (the rewritten fragment, other input sets: other sizes, edge values, empty tensors)
VARIANTS: dict[str, tuple[str, dict[str, tuple[torch.Tensor, ...]]]] = {
    "openpcdet_centerpoint_yaw": ("angle = _trt_atan2(batch_rot_sin, batch_rot_cos)", {
        "larger": (torch.randn(1, 2, 5, 6, generator=torch.Generator().manual_seed(1)),
                   torch.randn(1, 2, 5, 6, generator=torch.Generator().manual_seed(2))),
        "edges": (torch.zeros(1, 2, 2, 7), torch.stack((EDGE_X, EDGE_Y)).view(1, 2, 2, 7)),
        "backwards": (torch.ones(2, 2, 1, 3), torch.tensor([-1.0, 0.0]).view(1, 2, 1, 1).expand(2, 2, 1, 3).clone()),
        # No empty set: the original's `view(batch, -1, 2)` of no elements is ambiguous in ONNX Reshape.
    }),
    "openpcdet_point_sectors": ("point_angles = _trt_atan2(points[:, 1], points[:, 0]) + np.pi", {
        "more": (torch.randn(40, 3, generator=torch.Generator().manual_seed(3)),),
        "edges": (torch.stack((EDGE_X, EDGE_Y, torch.zeros(14)), dim=1),),
        "behind": (torch.tensor([[-1.0, 0.0, 0.0], [-5.0, -0.0, 1.0], [-0.5, 0.0, 2.0]]),),
        "empty": (torch.zeros(0, 3),),
    }),
    "torchvision_rotated_boxes": ("r_rad = _trt_atan2(y1 - y2, x2 - x1)", {
        "more": (torch.randn(11, 8, generator=torch.Generator().manual_seed(4)) * 100,),
        "edges": (_boxes(),),
        "empty": (torch.zeros(0, 8),),
    }),
    "torchvision_flow_colorwheel": ("a = _trt_atan2(-normalized_flow[:, 1, :, :], "
                                    "-normalized_flow[:, 0, :, :]) / torch.pi", {
        "larger": (torch.randn(2, 2, 4, 6, generator=torch.Generator().manual_seed(5)),),
        "still": (torch.zeros(1, 2, 2, 3),),
        "edges": (torch.stack((EDGE_X, EDGE_Y)).view(1, 2, 2, 7),),
        "empty": (torch.zeros(0, 2, 3, 5),),
    }),
    "kornia_euler_from_quaternion": ("roll = _trt_atan2(torch.where(gimbal, zero, sinr_cosp), "
                                     "torch.where(gimbal, one, cosr_cosp))", {
        "more": (torch.randn(17, 4, generator=torch.Generator().manual_seed(6)),),
        "edges": (_quaternions(),),
        "empty": (torch.zeros(0, 4),),
    }),
    "kornia_kannala_brandt": ("theta = _trt_atan2(radius, torch.ones_like(radius)) * nonlinear_mask", {
        "more": (torch.randn(9, 2, generator=torch.Generator().manual_seed(7)) * 3,
                 torch.rand(9, 8, generator=torch.Generator().manual_seed(8)) + 0.5),
        "edges": (torch.tensor([[0.0, 0.0], [-0.0, 0.0], [1e-5, 0.0], [-1.0, 0.0], [INF, 0.0], [NAN, 1.0]]),
                  torch.ones(6, 8)),
        "empty": (torch.zeros(0, 2), torch.zeros(0, 8)),
    }),
}


# The helper's finite values may differ from torch's by an ulp; the flow variant scales the angle by
# 54 / (2 pi) and keeps the fraction of the colour-wheel position, so an ulp there is about 4e-6.
ATOL = {"torchvision_flow_colorwheel": 1e-5}

# Where the original's graph is right on every input the model can build: kornia's fisheye angle is
# atan2(r, 1) with r >= 0, and a NaN radius is masked by the `torch.where` that follows.
ALREADY_RIGHT = {"kornia_kannala_brandt"}


def _matches(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple, atol: float = 1e-6) -> bool:
    """The graph gives eager mode's output: shape, values to an ulp, every zero's sign, inf and NaN."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    names = [i.name for i in session.get_inputs()]
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs) if n in names})
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-6, atol=atol, equal_nan=True):
        return False
    zeros = want == 0
    return bool(np.array_equal(np.signbit(got[zeros]), np.signbit(want[zeros])))


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request, tmp_path_factory) -> dict:
    """One variant, its rewrite, and the four graphs (original and rewritten, both exporters)."""
    name = request.param
    tmp = tmp_path_factory.mktemp(name)
    module, new_source, original, rewritten = built_pair(HERE / f"{name}.py", "TRT301", tmp)
    example = module.inputs(torch.Generator().manual_seed(0))
    graphs = {}
    for label, model in (("original", original), ("rewritten", rewritten)):
        graphs[label, "torchscript"], _ = export_variant(model, example, module.DYNAMIC, tmp / f"{label}.onnx", tmp)
        graphs[label, "dynamo"] = export_variant_dynamo(model, example, module.DYNAMIC, tmp / f"{label}_dynamo.onnx")
    sets = {"example": example, **VARIANTS[name][1]}
    return {"name": name, "source": new_source, "original": original, "rewritten": rewritten,
            "graphs": graphs, "sets": sets}


def test_rule_rewrites_every_atan2(migrated: dict) -> None:
    fragment = VARIANTS[migrated["name"]][0]
    body = migrated["source"].split("\n\n\nclass ", 1)[1]  # below the inserted helper
    assert fragment in migrated["source"], migrated["source"]
    assert "torch.atan2(" not in body and ".atan2(" not in body, body


def test_original_graph_is_wrong_at_the_edges(migrated: dict) -> None:
    atol = ATOL.get(migrated["name"], 1e-6)
    wrong = [(exporter, label) for exporter in ("torchscript", "dynamo") for label, inputs in migrated["sets"].items()
             if not _matches(migrated["graphs"]["original", exporter], migrated["original"], inputs, atol)]
    if migrated["name"] in ALREADY_RIGHT:
        assert not wrong, wrong
    else:
        assert wrong, "the original's exported atan2 matched eager mode everywhere"


@pytest.mark.parametrize("exporter", ["torchscript", "dynamo"])
def test_rewritten_graph_equals_eager(migrated: dict, exporter: str) -> None:
    session = migrated["graphs"]["rewritten", exporter]
    for label, inputs in migrated["sets"].items():
        assert _matches(session, migrated["original"], inputs, ATOL.get(migrated["name"], 1e-6)), f"{exporter} {label}"


def test_eager_unchanged(migrated: dict) -> None:
    assert_eager_unchanged(migrated["original"], migrated["rewritten"], migrated["sets"])


def test_toolchains_unchanged(migrated: dict, tmp_path: Path) -> None:
    sets = migrated["sets"]
    for label in ("example", 'edges'):
        assert_toolchains_agree(migrated["original"], migrated["rewritten"], list(sets[label]), tmp_path, label)
