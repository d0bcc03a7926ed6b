"""The grid-sample-3d recipe (TRT313) on real-code variants.

Each variant in ``tests/recipe_variants/trt313/`` is a small runnable model reduced from a public
repository (cited in its docstring) that calls ``F.grid_sample`` on a volume in the form the
original writes it: MONAI's scaling and squaring (a reference grid plus the field, a permutation
built from a list, the modes held on the module), XMorpher's inverse warp (the grid built in
``forward``, the alias ``nnf``, two calls through one line), learnsim's registration module (a
grid given in normalized coordinates, permuted on a line of its own, two calls chosen by the
tensor's type), VoxelMorph's half-resolution integration (a buffer grid, the alias ``nnf``),
torchreg's scaling and squaring (``padding_mode='reflection'``, its grid from ``F.affine_grid``) and
Convolutional Occupancy Networks' decoder (a feature volume read at 3-D query points next to a
4-D plane read, the call chained with two squeezes). The volume's rank is a run-time fact: none
is found from the code alone, and the TorchScript exporter refuses each original ("GridSample
with 5D volumetric input"). ``migrate`` records the run, applies TRT313 at the 5-D call only
and ends with exit 0, the rewritten model equivalent. Three variants are also rewritten by the
rule with the observer's facts and exported directly (with the dynamo exporter too for one): the
graph equals eager mode at other sizes and on edge values (points outside the volume, infinities
in it; an empty batch in eager mode only, see below), and eager mode is unchanged bit for bit.

ConvONet is taken by the rule with facts, but not by ``migrate``: TRT401's fix of the squeezes
chained onto the call covers the call, the engine applies it first, and the next pass has no
observation at the changed line; the test below pins what migrate does today.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, built_variant, export_variant, export_variant_dynamo,
                            input_names, load_variant, observed_facts)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt313"
INF = float("inf")
FIVE_D = "Unsupported: ONNX export of operator GridSample with 5D volumetric input"


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


#: variant -> the text of the 5-D call migrate rewrites (other grid_sample calls stay).
MIGRATED = {
    "monai_dvf2ddf_warp": "return F.grid_sample(",
    "xmorpher_re_spatial_transformer": "return nnf.grid_sample(src, new_locs, mode=mode)",
    "learnsim_registration_module": 'return F.grid_sample(im_or_seg_moving, grid, mode="bilinear"',
    "voxelmorph_vecint_half_resolution": "return nnf.grid_sample(src, new_locs, mode=self.mode)",
    "torchreg_syn_scaling_squaring": "return F.grid_sample(x, self._grid + v.permute(0, 2, 3, 4, 1)",
}


@pytest.mark.parametrize("name", list(MIGRATED))
def test_migrate_finds_the_volume_from_the_observed_run_and_fixes_it(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt313_m_{name}")
    assert check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT313",), scope="all")) == []
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    before_failures = [r["message"] for r in report["remaining"]] + [str(report["before"])]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"] if fix["rule"] == "TRT313"] == \
        [("TRT313", _line_of(path, MIGRATED[name]))], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], before_failures)
    assert "+" in report["diff"] and "_trt_grid_sample(" in report["diff"], report["diff"]


class Direct(NamedTuple):
    calls: tuple[str, ...]  # the 5-D calls' text, as written
    kept: tuple[str, ...]  # grid_sample calls left as they are (not 5-D in the run, or not run)
    sets: dict[str, tuple[torch.Tensor, ...]]  # other sizes and edge values
    dynamo: bool = False


def _with_inf(tensor: torch.Tensor) -> torch.Tensor:
    flat = tensor.clone().flatten()
    flat[:: max(1, flat.numel() // 4)] = INF
    flat[1] = -INF
    return flat.reshape(tensor.shape)


DIRECT = {
    "xmorpher_re_spatial_transformer": Direct(
        ("return nnf.grid_sample(src, new_locs, mode=mode)",), (), {
            "other-sizes": (torch.randn(1, 2, 3, 6, 4, generator=_g(1)), torch.randn(1, 3, 3, 6, 4, generator=_g(2))),
            "larger-batch": (torch.randn(3, 2, 5, 5, 5, generator=_g(3)), torch.randn(3, 3, 5, 5, 5, generator=_g(4))),
            "points-outside": (torch.randn(2, 2, 4, 5, 6, generator=_g(5)),
                               torch.randn(2, 3, 4, 5, 6, generator=_g(6)) * 8),
            "inf-in-the-volume": (_with_inf(torch.randn(2, 2, 4, 5, 6, generator=_g(7))),
                                  torch.randn(2, 3, 4, 5, 6, generator=_g(8))),
            # The TorchScript exporter writes the flattened volume's size as -1, which ONNX Runtime
            # cannot infer for no elements: eager mode only.
            "eager-no-batch": (torch.zeros(0, 2, 4, 5, 6), torch.zeros(0, 3, 4, 5, 6)),
        }, dynamo=True),
    "learnsim_registration_module": Direct(
        ('return F.grid_sample(im_or_seg_moving, grid, mode="bilinear"',),
        ('warped = F.grid_sample(as_float, grid, mode="nearest"',), {
            "other-sizes": (torch.randn(3, 1, 2, 7, 3, generator=_g(9)),
                            torch.rand(3, 3, 2, 7, 3, generator=_g(10)) * 2 - 1),
            "points-outside": (torch.randn(2, 1, 5, 4, 6, generator=_g(11)),
                               torch.rand(2, 3, 5, 4, 6, generator=_g(12)) * 6 - 3),
            "inf-in-the-volume": (_with_inf(torch.randn(1, 1, 4, 4, 4, generator=_g(13))),
                                  torch.rand(1, 3, 4, 4, 4, generator=_g(14)) * 2.4 - 1.2),
            "on-voxel-centres": (torch.randn(1, 1, 3, 3, 3, generator=_g(15)),
                                 torch.stack(torch.meshgrid(*[torch.linspace(-1, 1, 3)] * 3, indexing="ij"))[None]),
            "eager-no-batch": (torch.zeros(0, 1, 5, 4, 6), torch.zeros(0, 3, 5, 4, 6)),
        }),
    "convonet_local_decoder_grid_feature": Direct(
        ('c = F.grid_sample(c, vgrid, padding_mode="border"',),
        ('return F.grid_sample(c, vgrid, padding_mode="border"',), {
            "other-sizes": (torch.rand(3, 11, 3, generator=_g(16)) * 1.4 - 0.7,
                            torch.randn(3, 4, 5, 2, 6, generator=_g(17)), torch.randn(3, 4, 3, 7, generator=_g(18))),
            "points-far-outside": (torch.randn(2, 9, 3, generator=_g(19)) * 3,
                                   torch.randn(2, 4, 3, 4, 5, generator=_g(20)),
                                   torch.randn(2, 4, 5, 6, generator=_g(21))),
            "inf-in-the-volume": (torch.rand(1, 6, 3, generator=_g(22)) - 0.5,
                                  _with_inf(torch.randn(1, 4, 3, 3, 3, generator=_g(23))),
                                  torch.randn(1, 4, 4, 4, generator=_g(24))),
            "one-point": (torch.rand(2, 1, 3, generator=_g(25)) - 0.5, torch.randn(2, 4, 3, 4, 5, generator=_g(26)),
                          torch.randn(2, 4, 5, 6, generator=_g(27))),
        }),
}


def _graph_equals_eager(session, model: torch.nn.Module, inputs: tuple, label: str) -> None:
    """Shape and dtype; values to 1e-5 of the largest finite magnitude; NaN and infinities where eager has them."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape)
    finite = np.abs(want[np.isfinite(want)])
    scale = max(1.0, float(finite.max()) if finite.size else 1.0)
    assert np.allclose(got, want, rtol=0, atol=1e-5 * scale, equal_nan=True), (label, got, want)


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_with_the_observed_facts_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    calls, kept, others, with_dynamo = DIRECT[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt313_{name}")
    example = module.inputs(_g(0))
    assert original(*example).shape  # the example runs in eager mode

    options = Options(select=("TRT313",), facts=observed_facts(path, module, tmp_path), scope="all")
    findings = check_source(path.read_bytes(), str(path.resolve()), options)
    assert [(f.rule, f.line) for f in findings] == [("TRT313", _line_of(path, call)) for call in calls]
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    for call in calls:
        assert call.replace("nnf.grid_sample(", "_trt_grid_sample(").replace("F.grid_sample(", "_trt_grid_sample(") \
            in new_source, new_source
    for fragment in kept:
        assert fragment in new_source, new_source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt313_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())

    sessions = {"torchscript": export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx",
                                              tmp_path)[0]}
    if with_dynamo:
        sessions["dynamo"] = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "dynamo.onnx")
    sets = {"example": example, **others}
    for label, inputs in sets.items():
        if label.startswith("eager-"):  # compared below, in eager mode only
            continue
        for exporter, session in sessions.items():
            _graph_equals_eager(session, original, inputs, f"{exporter} {label}")
    assert_eager_unchanged(original, rewritten, sets)


def test_convonet_is_taken_by_migrate_beside_trt401() -> None:
    """TRT401's fix of ``.squeeze(-1).squeeze(-1)`` wraps the grid_sample call it is chained on: the
    engine applies it first, and the next pass finds the call's observation through the span map (its
    text stands once on the line before and after), so TRT313 rewrites the 5-D call too and the model
    exports, equivalent (until stop 61 the 5-D call stayed and the export failed). The normalization's
    value-dependent branches remain, TRT101 without an automatic fix: exit 1 still. With TRT401 left
    out, migrate takes the call alone."""
    path = HERE / "convonet_local_decoder_grid_feature.py"
    module = load_variant(path, "trt313_m_convonet")
    report = migrate_json(path, _axes_json(module))
    line = _line_of(path, 'c = F.grid_sample(c, vgrid, padding_mode="border"')
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == [("TRT313", line), ("TRT401", line)]
    assert "_trt_grid_sample(" in report["diff"], report["diff"]
    assert report["after"]["exported"] is True and report["equivalent"] is True
    assert not any(FIVE_D in r["message"] for r in report["remaining"]), report["remaining"]
    assert {r["rule"] for r in report["remaining"] if r["severity"] == "error"} == {"TRT101"}, report["remaining"]
    assert report["exit_code"] == 1
    alone = migrate_json(path, _axes_json(module), "--ignore", "TRT401")
    assert [(fix["rule"], fix["line"]) for fix in alone["applied"]] == [("TRT313", line)], alone["applied"]
    assert alone["after"]["exported"] is True and alone["equivalent"] is True
    assert not any(FIVE_D in r["message"] for r in alone["remaining"]), alone["remaining"]
