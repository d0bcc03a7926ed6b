"""The diag recipe (TRT320) on real-code variants.

Each variant in ``tests/recipe_variants/trt320/`` is a small runnable model reduced from a public
repository (cited in its docstring) that calls ``torch.diag`` in its forward in the form the
original writes it: kornia's guided filter regularises a per-pixel covariance with
``guidance.new_full((C,), eps).diag()`` (the tensor method, a vector to a matrix);
rosinality/glow-pytorch's LU 1x1 convolution rebuilds its weight with
``torch.diag(self.s_sign * torch.exp(self.w_s))``; BorealisAI/SLAPS-GNN's graph generator scales
features by ``input @ torch.diag(self.W)``; Spijkervet/SimCLR's NT-Xent reads the positive pairs
from two off-diagonals, ``torch.diag(sim, self.batch_size * self.world_size)`` and its negative
(a matrix to a vector, the offsets attribute arithmetic); MONAI's MMD drops a Gram matrix's
diagonal with ``torch.diag(torch.diagonal(y_y))`` (a matrix of a diagonal). The TorchScript
exporter refuses each original (``aten::diag``). The rule finds every call from the code alone;
``migrate`` applies TRT320 at those lines and ends with exit 0, the rewritten model equivalent.
Four variants (kornia, SLAPS: a vector to a matrix; SimCLR: a matrix to its off-diagonals; MONAI,
its diagonals gathered too) are also rewritten and exported directly, with no EyeLike: the graph
equals eager mode at other sizes and on edge values (zeros, negatives, infinities, an empty batch
or graph), and eager mode is unchanged bit for bit. (SimCLR's similarity matrix is symmetric: its
two off-diagonals hold the same values, so the sign of an offset is the rule's own tests' to check.)

MONAI's MMD ended at exit 1 before TRT320 took ``torch.diagonal`` too: its inner
``torch.diagonal`` exports as an EyeLike of a run-time shape (an error for the graph check, now
named TRT320's), which the rule gathers while exporting (unsafe: a copy where torch returns a
view), a candidate ``migrate`` verifies and keeps; migrate applies both fixes on each line. Glow's
``torch.diagonal(upper)`` in ``__init__`` is found too, and left alone by migrate (nothing is
wrong in the graph there).
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant, input_names,
                            load_variant, seeded)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.verify.export import export_model

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt320"
INF = float("inf")

#: variant -> (the calls as written, each with the text the rule writes for it)
VARIANTS: dict[str, tuple[tuple[str, str], ...]] = {
    "kornia_guided_blur_eps_diag": (
        ("_eps = guidance.new_full((C,), self.eps).diag().view(1, 1, 1, C, C)",
         "_eps = _trt_diag(guidance.new_full((C,), self.eps)).view(1, 1, 1, C, C)"),),
    "glow_invconv2d_lu_weight": (
        ("@ ((self.w_u * self.u_mask) + torch.diag(self.s_sign * torch.exp(self.w_s))))",
         "@ ((self.w_u * self.u_mask) + _trt_diag(self.s_sign * torch.exp(self.w_s))))"),),
    "slaps_mlp_diag_graph_learner": (
        ("hidden = features @ torch.diag(self.W)", "hidden = features @ _trt_diag(self.W)"),),
    "simclr_nt_xent_positive_pairs": (
        ("sim_i_j = torch.diag(sim, self.batch_size * self.world_size)",
         "sim_i_j = _trt_diag(sim, self.batch_size * self.world_size)"),
        ("sim_j_i = torch.diag(sim, -self.batch_size * self.world_size)",
         "sim_j_i = _trt_diag(sim, -self.batch_size * self.world_size)")),
    "monai_mmd_feature_drift": (
        ("a = torch.sum(y_y - torch.diag(torch.diagonal(y_y)))", "a = torch.sum(y_y - _trt_diag(torch.diagonal(y_y)))"),
        ("b = torch.sum(y_pred_y_pred - torch.diag(torch.diagonal(y_pred_y_pred)))",
         "b = torch.sum(y_pred_y_pred - _trt_diag(torch.diagonal(y_pred_y_pred)))")),
}
END_TO_END = list(VARIANTS)
#: variant -> the ``torch.diagonal`` calls as written, each with the text the rule writes for it (an
#: unsafe fix: only with ``--unsafe``, or as ``migrate``'s verified candidate)
DIAGONALS: dict[str, tuple[tuple[str, str], ...]] = {
    "glow_invconv2d_lu_weight": (("s = torch.diagonal(upper)", "s = _trt_diagonal(upper)"),),
    "monai_mmd_feature_drift": (
        ("a = torch.sum(y_y - torch.diag(torch.diagonal(y_y)))", "a = torch.sum(y_y - _trt_diag(_trt_diagonal(y_y)))"),
        ("b = torch.sum(y_pred_y_pred - torch.diag(torch.diagonal(y_pred_y_pred)))",
         "b = torch.sum(y_pred_y_pred - _trt_diag(_trt_diagonal(y_pred_y_pred)))")),
}
#: variant -> the lines migrate applies TRT320 at, beside its diags: its diagonals in forward
MIGRATED_DIAGONALS = {"monai_mmd_feature_drift": DIAGONALS["monai_mmd_feature_drift"]}


def _lines(name: str) -> list[int]:
    return sorted(_line_of(HERE / f"{name}.py", call) for call, _ in VARIANTS[name])


def _diagonal_lines(name: str, table: dict = DIAGONALS) -> list[int]:
    return sorted(_line_of(HERE / f"{name}.py", call) for call, _ in table.get(name, ()))


def _rewritten_source(path: Path, unsafe: bool = False) -> str:
    return fix_source(path.read_bytes(), str(path.resolve()),
                      Options(select=("TRT320",), scope="all", unsafe=unsafe)).source.decode()


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_each_call_from_the_code_and_rewrites_it(name: str) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT320",), scope="all"))
    expected = sorted(_lines(name) + _diagonal_lines(name))
    assert [(f.rule, f.line) for f in findings] == [("TRT320", line) for line in expected], findings
    safe, unsafe = _rewritten_source(path), _rewritten_source(path, unsafe=True)
    for call, rewritten in VARIANTS[name]:
        assert rewritten in safe, safe
        assert not [line for line in safe.splitlines() if call in line and "``" not in line], safe
    for call, rewritten in DIAGONALS.get(name, ()):
        assert rewritten in unsafe and rewritten not in safe, unsafe
    for new_source, names in ((safe, ("torch.diag(", ".diag()")), (unsafe, ("torch.diag", ".diag"))):
        code = [line for line in new_source.splitlines()
                if any(n in line for n in names) and "``" not in line
                and not line.lstrip().startswith(("return torch.diag", "return input.diagonal(", "#"))]
        assert not code, code  # only the inserted helpers still call torch.diag (and torch.diagonal)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_original_does_not_export(name: str, tmp_path: Path) -> None:
    module, original = built_variant(HERE / f"{name}.py", f"trt320_o_{name}")
    result = export_model(original, module.inputs(seeded(0)), tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=None, dynamic_axes=module.DYNAMIC, opset=17)
    assert result.error is not None and "aten::diag" in result.error, result.error


@pytest.mark.parametrize("name", END_TO_END)
def test_migrate_applies_trt320_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt320_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False, report["before"]
    expected = sorted(_lines(name) + _diagonal_lines(name, MIGRATED_DIAGONALS))
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT320", line) for line in expected], \
        report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["exported"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert "_trt_diag(" in report["diff"], report["diff"]
    for _, rewritten in MIGRATED_DIAGONALS.get(name, ()):
        assert f"+{' ' * 8}{rewritten}" in report["diff"], report["diff"]
    # The torch.diagonal fix is unsafe: a candidate migrate kept because the verification held.
    kept = [fix for fix in report["applied"] if fix["message"].startswith("`torch.diagonal`")]
    assert len(kept) == len(MIGRATED_DIAGONALS.get(name, ())), report["applied"]
    assert all(fix["proof"].startswith("verified") for fix in kept), report["applied"]
    if name not in MIGRATED_DIAGONALS:
        assert "_trt_diagonal" not in report["diff"], report["diff"]  # Glow's in __init__: nothing to fix there


def test_mmd_before_the_diagonal_fix_keeps_an_eye_like_named_for_trt320(tmp_path: Path) -> None:
    """With the diags rewritten alone (the safe fixes), MONAI's MMD exports, and each
    ``torch.diagonal`` leaves an EyeLike of a run-time shape that the graph check names TRT320's."""
    from trtcodemod.trt.check import check_graph

    name = "monai_mmd_feature_drift"
    path = HERE / f"{name}.py"
    new_path = tmp_path / f"{name}_diags.py"
    new_path.write_text(_rewritten_source(path))
    module, rewritten = built_variant(new_path, f"trt320_e_{name}")
    result = export_model(rewritten, module.inputs(seeded(0)), tmp_path / "diags.onnx", exporter="torchscript",
                          input_names=input_names(rewritten), output_names=None, dynamic_axes=module.DYNAMIC, opset=17)
    assert result.error is None, result.error
    issues = [i for i in check_graph(onnx.load(str(tmp_path / "diags.onnx")), "10.0") if i.op == "EyeLike"]
    assert [(i.rule, i.severity) for i in issues] == [("TRT320", "error")] * 2, issues


def _with(shape: tuple[int, ...], seed: int, fill=None, scale: float = 1.0) -> torch.Tensor:
    x = torch.rand(shape, generator=seeded(seed)) * scale
    if fill is not None:
        x.view(-1)[:: max(1, x.numel() // 5)] = fill
    return x


#: variant -> input sets at other sizes and edge values
DIRECT = {
    "kornia_guided_blur_eps_diag": {
        "other-sizes": (_with((3, 2, 5, 9), 1), _with((3, 3, 5, 9), 2)),
        "zeros": (torch.zeros(1, 2, 6, 6), torch.zeros(1, 3, 6, 6)),
        "negatives": (-_with((2, 2, 4, 7), 3), -_with((2, 3, 4, 7), 4, scale=5.0)),
        "inf-in-the-image": (_with((1, 2, 6, 5), 5), _with((1, 3, 6, 5), 6, fill=INF)),
        # ``flatten(1, 2)`` exports as a Reshape to -1, which ONNX Runtime cannot infer for no
        # elements (the original's code, not the rewrite): eager mode only.
        "eager-no-batch": (torch.zeros(0, 2, 4, 4), torch.zeros(0, 3, 4, 4)),
    },
    "slaps_mlp_diag_graph_learner": {
        "other-sizes": (torch.randn(12, 6, generator=seeded(7)),),
        "one-node": (torch.randn(1, 6, generator=seeded(8)),),
        "zeros": (torch.zeros(5, 6),),
        "negatives": (-_with((4, 6), 9, scale=3.0),),
        "inf": (torch.randn(6, 6, generator=seeded(10)).index_fill_(1, torch.tensor([2]), INF),),
        "no-nodes": (torch.zeros(0, 6),),
    },
    # The two off-diagonals of the 8x8 similarity matrix (offsets +4 and -4).
    "simclr_nt_xent_positive_pairs": {
        "other-width": (torch.randn(4, 3, generator=seeded(11)), torch.randn(4, 3, generator=seeded(12))),
        "views-equal": (torch.randn(4, 5, generator=seeded(13)),) * 2,
        "zeros": (torch.zeros(4, 8), torch.zeros(4, 8)),
        "negatives": (-_with((4, 6), 14, scale=4.0), -_with((4, 6), 15)),
        "inf": (_with((4, 8), 16, fill=INF), _with((4, 8), 17)),
    },
    # Both fixes (the diagonal's with --unsafe): the batch sizes are baked (the weights are Python
    # numbers of them), the images' height and width are dynamic.
    "monai_mmd_feature_drift": {
        "other-sizes": (torch.randn(4, 3, 9, 2, generator=seeded(18)), torch.randn(4, 3, 9, 2, generator=seeded(19))),
        "same-batches": (torch.randn(4, 3, 5, 5, generator=seeded(20)),) * 2,
        "zeros": (torch.zeros(4, 3, 6, 5), torch.zeros(4, 3, 6, 5)),
        "negatives": (-_with((4, 3, 6, 5), 21, scale=50.0), -_with((4, 3, 6, 5), 22)),
        "one-pixel": (torch.randn(4, 3, 1, 1, generator=seeded(23)), torch.randn(4, 3, 1, 1, generator=seeded(24))),
        "inf": (_with((4, 3, 6, 5), 25, fill=INF), _with((4, 3, 6, 5), 26)),
    },
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt320_d_{name}")
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(_rewritten_source(path, unsafe=name in DIAGONALS))
    _, rewritten = built_variant(new_path, f"trt320_r_{name}")
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    assert "EyeLike" not in {n.op_type for n in onnx.load(str(tmp_path / "after.onnx")).graph.node}
    sets = {"example": example, **DIRECT[name]}
    for label, inputs in sets.items():
        if not label.startswith("eager-"):
            assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, sets)
