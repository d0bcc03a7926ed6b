"""The small-inverse recipe (TRT338) on real-code variants.

Each variant in ``tests/recipe_variants/trt338/`` is a small runnable model reduced from a public
repository (cited in its docstring) that inverts or solves with small matrices in forward code, in
the form the original writes it: MVSNet's plane sweep (``torch.inverse`` of a 4x4 projection inside
``torch.matmul``), SfMLearner's view synthesis (the method ``intrinsics.inverse()`` of 3x3
intrinsics as a call's argument), kornia's LoFTR keypoint warp (``K0.inverse() @ ...``), kornia's
colour guided filter (``torch.linalg.solve`` of a 3x3 system per pixel against a matrix of C_in
columns, its operands cast) and SpeechBrain's linear prediction (``torch.linalg.solve`` of an 8x8
Toeplitz system per frame against a vector: the unrolled elimination). None exports as written
(no symbolic for ``aten::linalg_inv``/``aten::linalg_solve``). The rule finds each call from the code
alone and rewrites it with ``--unsafe``; the rewritten model exports, its graph equals eager mode
within float rounding at other sizes and on edge values (zeros and negatives where the matrices stay
invertible, infinities and NaN in the data the matrices act on, empty batches), and eager mode is
unchanged bit for bit (outputs, gradients, and the same ``LinAlgError`` on a singular matrix).
SpeechBrain's Toeplitz ``unfold`` after a ``view(..., -1)`` does not export either: TRT311 and TRT330
take it, and the export test applies them with TRT338. ``migrate`` applies TRT338 to two of them
(with TRT311 and TRT330 on SpeechBrain's), verifies the unsafe fix and ends equivalent (exit 0).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, axes_json, built_variant, export_variant,
                            input_names, line_of, load_variant, seeded)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.verify.export import export_model

HERE = TESTS / "recipe_variants" / "trt338"
NAN, INF = float("nan"), float("inf")


def _module(name: str):
    return load_variant(HERE / f"{name}.py", f"trt338_inputs_{name}")


class Variant(NamedTuple):
    calls: tuple[tuple[str, str], ...]  # (the line as written, the rewritten fragment)
    missing: str  # what the original's export stops at (a regular expression)
    sets: dict  # other sizes and edge values; "raises-"/"eager-": eager mode only
    tolerance: float = 1e-5  # relative to the output's largest finite magnitude (1 at least)
    also: tuple[str, ...] = ()  # the other rules the original needs to export


def _mvs(seed: int, batch: int, height: int, width: int, depths: int) -> tuple:
    return _module("mvsnet_homo_warping").example(seeded(seed), batch, height, width, depths)


def _sfm(seed: int, batch: int, height: int, width: int) -> tuple:
    return _module("sfmlearner_inverse_warp").example(seeded(seed), batch, height, width)


def _loftr(seed: int, points: int) -> tuple:
    return _module("kornia_loftr_warp_kpts").example(seeded(seed), 2, points)


def _frames(seed: int, batch: int, count: int) -> tuple:
    return (_module("speechbrain_lpc_inverse_filter").voiced(seeded(seed), batch, count),)


def _with(inputs: tuple, index: int, value: torch.Tensor) -> tuple:
    return inputs[:index] + (value,) + inputs[index + 1:]


def _specials(shape: tuple[int, ...], seed: int) -> torch.Tensor:
    x = torch.randn(shape, generator=seeded(seed)).flatten()
    x[:3] = torch.tensor([INF, NAN, -INF])
    return x.reshape(shape)


_MVS = _mvs(1, 2, 6, 8, 3)
_SFM = _sfm(2, 2, 5, 7)
_LOFTR = _loftr(3, 9)
VARIANTS: dict[str, Variant] = {
    "mvsnet_homo_warping": Variant(
        (("proj = torch.matmul(src_proj, torch.inverse(ref_proj))",
          "proj = torch.matmul(src_proj, _trt_inverse(ref_proj))"),),
        "aten::linalg_inv", {
            "larger": _mvs(4, 3, 9, 11, 5),
            "one-depth": _mvs(5, 1, 4, 4, 1),
            "zero-features": _with(_MVS, 0, torch.zeros(2, 3, 6, 8)),
            "negative-features": _with(_MVS, 0, -torch.rand(2, 3, 6, 8, generator=seeded(6))),
            # inf/NaN features: GridSample's zero weights times inf are NaN in eager mode; compared there only
            "eager-inf-nan-features": _with(_MVS, 0, _specials((2, 3, 6, 8), 7)),
            "raises-singular-reference": _with(_MVS, 2, torch.zeros(2, 4, 4)),
        }),
    "sfmlearner_inverse_warp": Variant(
        (("cam_coords = pixel2cam(depth, intrinsics.inverse())",
          "cam_coords = pixel2cam(depth, _trt_inverse(intrinsics))"),),
        "aten::linalg_inv", {
            "larger": _sfm(8, 4, 9, 13),
            "one-image": _sfm(9, 1, 3, 4),
            "zero-image-and-pose": _with(_with(_SFM, 0, torch.zeros(2, 3, 5, 7)), 2, torch.zeros(2, 6)),
            "negative-pose": _with(_SFM, 2, -0.05 * torch.rand(2, 6, generator=seeded(10))),
            "eager-inf-nan-image": _with(_SFM, 0, _specials((2, 3, 5, 7), 11)),
            "raises-singular-intrinsics": _with(_SFM, 3, torch.zeros(2, 3, 3)),
        }),
    "kornia_loftr_warp_kpts": Variant(
        (("kpts0_cam = K0.inverse() @ kpts0_h.transpose(2, 1)",
          "kpts0_cam = _trt_inverse(K0) @ kpts0_h.transpose(2, 1)"),),
        "aten::linalg_inv", {
            "more-points": _loftr(12, 30),
            "one-point": _loftr(13, 1),
            "no-points": _loftr(14, 0),
            "zero-depth": _with(_LOFTR, 1, torch.zeros(2, 12, 16)),
            "negative-translation": _with(_LOFTR, 3, torch.cat([torch.eye(3).expand(2, 3, 3),
                                                                 -0.3 * torch.ones(2, 3, 1)], -1)),
            "raises-singular-camera": _with(_LOFTR, 4, torch.zeros(2, 3, 3)),
        }),
    "kornia_guided_blur_color": Variant(
        (("a = torch.linalg.solve(A.to(solve_dtype), cov_Ip.to(solve_dtype)).to(cov_Ip.dtype)",
          "a = _trt_solve(A.to(solve_dtype), cov_Ip.to(solve_dtype)).to(cov_Ip.dtype)"),),
        "aten::linalg_solve", {
            "larger": (torch.rand(3, 3, 11, 9, generator=seeded(15)), torch.rand(3, 2, 11, 9, generator=seeded(16))),
            "flat-guidance": (torch.full((1, 3, 5, 5), 0.5), torch.rand(1, 2, 5, 5, generator=seeded(17))),
            "zero-input-negative-guidance": (-torch.rand(2, 3, 6, 7, generator=seeded(18)), torch.zeros(2, 2, 6, 7)),
            "inf-nan-input": (torch.rand(1, 3, 4, 4, generator=seeded(19)), _specials((1, 2, 4, 4), 20)),
            # ``flatten`` exports as a Reshape to -1, which ONNX Runtime cannot infer with no elements (in the
            # original's graph too, kornia's comment at its line 130 says as much): eager mode only.
            "eager-no-images": (torch.zeros(0, 3, 6, 7), torch.zeros(0, 2, 6, 7)),
        }),
    "speechbrain_lpc_inverse_filter": Variant(
        (("lpc = torch.linalg.solve(R, r)", "lpc = _trt_solve(R, r)"),),
        "operator Unfold, input size not accessible", {  # first; the solve after TRT311 and TRT330
            "more-frames": _frames(21, 3, 11),
            "one-frame": _frames(22, 1, 1),
            "negated": (-_frames(23, 2, 4)[0],),
            # A silent frame: the zero-lag term is set to 1, the others are 0: the identity, solvable.
            "silent-frame": (torch.cat([torch.zeros(1, 1, 40), _frames(24, 1, 2)[0]], 1),),
            "raises-no-frames": (torch.zeros(2, 0, 40),),  # view(0, -1): eager mode raises, before and after
        }, 1e-4, ("TRT311", "TRT330")),
}


def _source(name: str, unsafe: bool, also: tuple[str, ...] = ()) -> str:
    path = HERE / f"{name}.py"
    return fix_source(path.read_bytes(), str(path.resolve()),
                      Options(select=("TRT338", *also), unsafe=unsafe, scope="all")).source.decode()


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_each_call_from_the_code_and_rewrites_it_with_unsafe(name: str) -> None:
    path = HERE / f"{name}.py"
    calls = VARIANTS[name].calls
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT338",), scope="all"))
    assert [(f.rule, f.line) for f in findings] == [("TRT338", line_of(path, written)) for written, _ in calls]
    assert _source(name, unsafe=False) == path.read_text()  # unsafe: nothing without --unsafe
    new_source = _source(name, unsafe=True)
    for _, rewritten in calls:
        assert rewritten in new_source, new_source
    body = new_source[new_source.index("\n\n\n", new_source.rindex("\ndef _trt_")):]
    assert not re.search(r"torch\.(inverse|linalg\.inv|linalg\.solve)\(|\.inverse\(\)", body), body


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_original_does_not_export_and_the_rewrite_follows_eager_mode(name: str, tmp_path: Path) -> None:
    variant = VARIANTS[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt338_o_{name}")
    example = module.inputs(seeded(0))
    before = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert before.error is not None and re.search(variant.missing, before.error), before.error

    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(_source(name, unsafe=True, also=variant.also))
    _, rewritten = built_variant(new_path, f"trt338_r_{name}")
    rewritten.load_state_dict(original.state_dict())
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = {"example": example, **variant.sets}
    for label, inputs in sets.items():
        if label.startswith(("raises-", "eager-")):
            continue
        assert_graph_within(session, original, inputs, variant.tolerance, label)
    assert_eager_unchanged(original, rewritten, sets)


def test_a_singular_matrix_raises_in_eager_mode_before_and_after() -> None:
    """What the sets marked ``raises-`` compare: torch's own LinAlgError, in the original and the rewrite."""
    module, original = built_variant(HERE / "sfmlearner_inverse_warp.py", "trt338_singular")
    with pytest.raises(torch.linalg.LinAlgError):
        original(*VARIANTS["sfmlearner_inverse_warp"].sets["raises-singular-intrinsics"])


MIGRATED = ("mvsnet_homo_warping", "speechbrain_lpc_inverse_filter")


@pytest.mark.parametrize("name", MIGRATED)
def test_migrate_applies_trt338_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt338_m_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is False, report["before"]
    [written, _] = VARIANTS[name].calls[0]
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    unfold = line_of(path, ".unfold(-1, lpc_order, 1)") if VARIANTS[name].also else None
    assert applied == sorted([("TRT338", line_of(path, written))] + [(rule, unfold) for rule in VARIANTS[name].also]), \
        report["applied"]
    assert all("verified" in fix.get("proof", "") for fix in report["applied"] if fix["rule"] == "TRT338"), \
        report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["faithful"] is True, report["after"]
