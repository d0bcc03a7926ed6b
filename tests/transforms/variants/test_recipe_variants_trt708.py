"""The exp2 recipe (TRT708) on real-code variants.

Each variant in ``tests/recipe_variants/trt708/`` is a small runnable model reduced from a public
repository (cited in its docstring) that calls ``torch.exp2`` (or ``x.exp2()``) in the form the
original writes it: transformers' MXFP8 dequantization (``(scales.to(torch.float32) -
127.0).exp2()`` on byte scales), kornia's SIFT scale space (``torch.exp2((s.to(dog.dtype) + ss) /
3.0)``, a keypoint's sigma), attention-gym's ALiBi ``score_mod`` (``torch.exp2`` of the head index
inside a closure handed to ``flex_attention``), kornia's sub-pixel refinement
(``torch.exp2(exponent.abs())`` scaling a Cramer system) and novel-view-diffusion's NeRF encoding
(``torch.exp2(torch.arange(start=..., end=..., device=...))``). The rule finds every one from the
code alone and rewrites it (a safe fix). The TorchScript exporter has no symbolic for ``aten::exp2``:
``migrate`` rewrites transformers', kornia's SIFT, attention-gym's (with TRT315 for the
``flex_attention`` call) and kornia's refinement (with TRT733 for its ``torch.isfinite``, which
exports as a Cast to float64 before ``IsInf``) and ends with exit 0, equivalent. Two are also rewritten by the rule and
exported directly: the graph equals eager mode (to one float32 ulp, ``Pow(2, x)``) at other sizes,
on zeros, negatives, infinities and an empty batch, and eager mode is unchanged.

Not needed: novel-view-diffusion's ``exp2`` takes a constant range: the exporter folds it, the original exports
as it is, and migrate applies nothing (exit 0); the rule's finding from the code alone is harmless
there.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, export_variant, input_names, load_variant,
                            rewritten_variant, seeded)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source
from trtcodemod.verify.export import export_model

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt708"
INF = float("inf")


def _found(path: Path) -> list[tuple[str, int, str]]:
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT708",), scope="all"))
    return [(f.rule, f.line, f.fix.value) for f in findings]


#: variant -> (the text of the exp2 call's line, the text the rewrite puts there).
CALLS = {
    "transformers_mxfp8_dequantize_linear": ("s_fp32 = (scales.to(torch.float32) - 127.0).exp2()",
                                             "s_fp32 = _trt_exp2(scales.to(torch.float32) - 127.0)"),
    "kornia_sift_scale_space_sigma": ("sigma = 1.6 * torch.exp2((s.to(dog.dtype) + ss) / 3.0) * pixel",
                                      "sigma = 1.6 * _trt_exp2((s.to(dog.dtype) + ss) / 3.0) * pixel"),
    "attention_gym_alibi_slopes": ("scale = torch.exp2(-((h + 1) * 8.0 / num_heads))",
                                   "scale = _trt_exp2(-((h + 1) * 8.0 / num_heads))"),
    "kornia_quad_interp_unit_hessian": ("power = torch.exp2(exponent.abs())", "power = _trt_exp2(exponent.abs())"),
    "novel_view_diffusion_posenc_nerf": (
        "scales = torch.exp2(torch.arange(start=min_deg, end=max_deg, device=device))",
        "scales = _trt_exp2(torch.arange(start=min_deg, end=max_deg, device=device))"),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_the_rule_finds_each_call_and_rewrites_it(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    call, rewritten = CALLS[name]
    assert _found(path) == [("TRT708", _line_of(path, call), "safe")]
    variant = rewritten_variant(path, "TRT708", tmp_path)
    assert rewritten in variant["source"], variant["source"]
    assert variant["safe_only"] == variant["source"]  # a safe fix: the same without --unsafe
    assert check_source(variant["source"].encode(), "rewritten.py", Options(select=("TRT708",), scope="all")) == []


@pytest.mark.parametrize("name", ["transformers_mxfp8_dequantize_linear", "kornia_sift_scale_space_sigma",
                                  "attention_gym_alibi_slopes"])
def test_migrate_rewrites_the_call_and_the_model_exports_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt708_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    assert ("TRT708", _line_of(path, CALLS[name][0])) in applied
    if name == "attention_gym_alibi_slopes":  # the flex_attention call itself is TRT315's
        assert applied == [("TRT315", _line_of(path, "y = flex_attention(")),
                           ("TRT708", _line_of(path, CALLS[name][0]))]
    else:
        assert applied == [("TRT708", _line_of(path, CALLS[name][0]))]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert CALLS[name][1] in report["diff"], report["diff"]


def test_kornia_refinement_takes_the_exp2_and_its_isfinite_end_to_end() -> None:
    """TRT708 takes the ``exp2``; the rewritten model's ``torch.isfinite`` exports as a Cast to
    float64 before ``IsInf``, which TensorRT refuses, and TRT733 takes those lines too (it stopped
    there, exit 1, before TRT733 existed)."""
    name = "kornia_quad_interp_unit_hessian"
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt708_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    isfinite = {_line_of(path, "usable = torch.isfinite(magnitude)"),
                _line_of(path, "hessian = torch.where(torch.isfinite(hessian)")}
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert ("TRT708", _line_of(path, CALLS[name][0])) in applied
    assert {line for rule, line in applied if rule == "TRT733"} == isfinite, applied
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["after"]["trt_errors"] == 0
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]


def test_novel_view_diffusion_exp2_of_a_constant_range_exports_as_it_is(tmp_path: Path) -> None:
    """The scales depend on no input: the exporter folds ``exp2(arange(0, 6))`` into a constant, so
    the original exports and migrate applies nothing; the graph equals eager mode at other sizes."""
    name = "novel_view_diffusion_posenc_nerf"
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt708_m_{name}")
    torch.manual_seed(0)
    original = module.build().eval()
    session, _ = export_variant(original, module.inputs(seeded(0)), module.DYNAMIC, tmp_path / "o.onnx", tmp_path)
    for label, points in {"other size": torch.rand(3, 4, 3, generator=seeded(1)), "zeros": torch.zeros(1, 2, 3),
                          "negatives": -torch.rand(2, 5, 3, generator=seeded(2))}.items():
        assert_graph_within(session, original, (points,), 1e-6, label)
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["applied"] == []
    assert report["exit_code"] == 0, report["remaining"]


def _with_inf(tensor: torch.Tensor) -> torch.Tensor:
    flat = tensor.clone().flatten()
    flat[3] = INF
    flat[7] = -INF
    return flat.reshape(tensor.shape)


#: Direct export: input sets at other sizes and edge values (one input each).
DIRECT = {
    "transformers_mxfp8_dequantize_linear": {
        "other size": torch.randn(5, 2, 16, generator=seeded(1)),
        "one token": torch.randn(1, 1, 16, generator=seeded(2)),
        "zeros": torch.zeros(2, 3, 16),
        "negatives": -torch.rand(2, 4, 16, generator=seeded(3)) - 1,
        "large": torch.randn(2, 3, 16, generator=seeded(4)) * 1e6,
        "inf": _with_inf(torch.randn(2, 3, 16, generator=seeded(5))),
        "empty batch": torch.zeros(0, 3, 16),
    },
    "kornia_sift_scale_space_sigma": {
        "other size": torch.randn(3, 1, 6, 12, 7, generator=seeded(6)),
        "one pixel": torch.randn(1, 1, 6, 1, 1, generator=seeded(7)),
        "zeros": torch.zeros(2, 1, 6, 5, 5),
        "negatives": -torch.rand(2, 1, 6, 8, 9, generator=seeded(8)) - 1,
        "large": torch.randn(2, 1, 6, 9, 11, generator=seeded(9)) * 1e6,
        "inf": _with_inf(torch.randn(2, 1, 6, 9, 11, generator=seeded(10))),
        "empty batch": torch.zeros(0, 1, 6, 9, 11),
    },
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    variant = rewritten_variant(path, "TRT708", tmp_path)
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    example = module.inputs(seeded(0))
    failed = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert failed.error is not None and "exp2" in failed.error, failed.error
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = {"example": example[0], **DIRECT[name]}
    for label, x in sets.items():
        assert_graph_within(session, original, (x,), 1e-6, label)
    # The graph computes 2**x as Pow(2, x): no exp2 node, and no Cast to float64.
    import onnx

    graph = onnx.load(str(tmp_path / "after.onnx")).graph
    assert "Pow" in {n.op_type for n in graph.node}
    assert not [n for n in graph.node if n.op_type == "Cast" and any(a.i == 11 for a in n.attribute)]
    # Eager mode is the original: values bit for bit, and the same behaviour with gradients.
    for label, x in sets.items():
        with torch.no_grad():
            torch.testing.assert_close(rewritten(x), original(x), rtol=0, atol=0, equal_nan=True, msg=label)
    assert_eager_unchanged(original, rewritten, {"example": example, "inf": (sets["inf"],)})
