"""The inf-test recipe (TRT733) on real-code variants.

Each variant in ``tests/recipe_variants/trt733/`` is a small runnable model reduced from a public
repository (cited in its docstring) that guards its numbers with ``isfinite`` or ``nan_to_num`` in
the form the original writes it: LightGlue's cross attention clears the NaN rows of keypoints
masked with ``-inf`` (``m0, m1 = m0.nan_to_num(), m1.nan_to_num()``), ESMFold2's atom attention
does the same with a bare ``torch.nan_to_num(attn_output)``, CHMv2's depth head guards a
denominator (``torch.nan_to_num(denom, nan=1.0, posinf=1.0, neginf=1.0).clamp_min(eps)``),
VISTA3D replaces the NaN of unpredicted voxels with an attribute (``nan=self.NINF_VALUE``, the call
chained with ``.sigmoid()``), kornia sanitizes local affine frames with three tensor-method
``isfinite`` tests, and IEDGNN's dynamic graph zeroes the reciprocal of an isolated node's degree
with ``torch.where(torch.isinf(tensor), ...)``. The TorchScript exporter writes each with a Cast to float64, which the graph
check names TRT733 (TensorRT has no float64). The rule finds every call from the code alone;
``migrate`` applies TRT733 at those lines and ends with exit 0, the rewritten model equivalent.
Two variants are also rewritten and exported directly (LightGlue with the dynamo exporter too):
the graph equals eager mode at other sizes and on edge values (zeros, negatives, infinities and
NaN in the input, every key masked, an empty batch), and eager mode is unchanged bit for bit.

The LightGlue variant found a fault in the helper: ``nan_to_num``'s replacements were
``full_like`` tensors, a ConstantOfShape the exporter folded to the example's size after the head
split, so the graph refused another size (fixed; the rule's test file pins it).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, built_variant, export_variant, export_variant_dynamo,
                            exported_graph, input_names, load_variant, seeded)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.trt.check import check_graph

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt733"
INF, NAN = float("inf"), float("nan")

#: variant -> (the calls as written, each with the text the rule writes for it)
VARIANTS: dict[str, tuple[tuple[str, str], ...]] = {
    "lightglue_cross_block": (
        ("m0, m1 = m0.nan_to_num(), m1.nan_to_num()", "m0, m1 = _trt_nan_to_num(m0), _trt_nan_to_num(m1)"),),
    "transformers_esmfold2_atom_attention": (
        ("attn_output = torch.nan_to_num(attn_output)", "attn_output = _trt_nan_to_num(attn_output)"),),
    "transformers_chmv2_mixlog_depth": (
        ("denom = torch.nan_to_num(denom, nan=1.0, posinf=1.0, neginf=1.0).clamp_min(self.eps)",
         "denom = _trt_nan_to_num(denom, nan=1.0, posinf=1.0, neginf=1.0).clamp_min(self.eps)"),),
    "monai_vista3d_point_combine": (
        ("probs = torch.nan_to_num(logits, nan=self.NINF_VALUE).sigmoid()",
         "probs = _trt_nan_to_num(logits, nan=self.NINF_VALUE).sigmoid()"),),
    "kornia_affine_shape_sanitize_laf": (
        ("return laf.isfinite().all(dim=-1).all(dim=-1) & det.isfinite() & (det != 0)",
         "return _trt_isfinite(laf).all(dim=-1).all(dim=-1) & _trt_isfinite(det) & (det != 0)"),
        ("center = torch.where(laf[..., 2:3].isfinite(), laf[..., 2:3], torch.zeros_like(laf[..., 2:3]))",
         "center = torch.where(_trt_isfinite(laf[..., 2:3]), laf[..., 2:3], torch.zeros_like(laf[..., 2:3]))")),
    "iedgnn_dynamic_graph_normalizer": (
        ("tensor = torch.where(torch.isinf(tensor), torch.zeros_like(tensor), tensor)",
         "tensor = torch.where(_trt_isinf(tensor), torch.zeros_like(tensor), tensor)"),),
}


def _lines(name: str) -> list[int]:
    path = HERE / f"{name}.py"
    return sorted(_line_of(path, call) for call, _ in VARIANTS[name])


def _float64_casts(graph: onnx.ModelProto) -> int:
    return sum(1 for n in graph.graph.node if n.op_type == "Cast"
               and any(a.name == "to" and a.i == onnx.TensorProto.DOUBLE for a in n.attribute))


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_each_call_from_the_code_and_rewrites_it(name: str) -> None:
    path = HERE / f"{name}.py"
    options = Options(select=("TRT733",), scope="all")
    findings = check_source(path.read_bytes(), str(path.resolve()), options)
    assert sorted({f.line for f in findings}) == _lines(name), findings
    assert {f.rule for f in findings} == {"TRT733"}
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    for call, rewritten in VARIANTS[name]:
        assert not [line for line in new_source.splitlines() if call in line and "``" not in line], new_source
        assert rewritten in new_source, new_source
    for spelled in ("torch.isfinite(", ".isfinite()", "torch.nan_to_num(", ".nan_to_num(", "torch.isinf("):
        code = [line for line in new_source.splitlines() if spelled in line and "``" not in line
                and not line.lstrip().startswith(("return torch.", "#", "\"\"\""))]
        assert not code, code  # only the inserted helpers still call the torch function


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_original_exports_a_float64_cast_the_graph_check_names(name: str, tmp_path: Path) -> None:
    module, original = built_variant(HERE / f"{name}.py", f"trt733_o_{name}")
    graph = exported_graph(original, module, tmp_path / "before.onnx", dynamo=False)
    assert _float64_casts(graph) >= len(VARIANTS[name])
    named = [i for i in check_graph(graph) if i.rule == "TRT733" and i.severity == "error"]
    assert named and {i.op for i in named} == {"Cast"}, check_graph(graph)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_applies_trt733_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt733_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["trt_errors_by_op"].get("Cast", 0) >= 1, \
        report["before"]
    assert sorted({fix["line"] for fix in report["applied"]}) == _lines(name), report["applied"]
    assert {fix["rule"] for fix in report["applied"]} == {"TRT733"}, report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["trt_errors"] == 0 and report["after"]["faithful"] is True, report["after"]
    assert "_trt_" in report["diff"], report["diff"]


def _keypoints(batch: int, n0: int, n1: int, seed: int, valid0=None, valid1=None) -> tuple[torch.Tensor, ...]:
    g = seeded(seed)
    desc0, desc1 = torch.randn(batch, n0, 8, generator=g), torch.randn(batch, n1, 8, generator=g)
    valid0 = torch.rand(batch, n0, generator=g) > 0.3 if valid0 is None else valid0
    valid1 = torch.rand(batch, n1, generator=g) > 0.3 if valid1 is None else valid1
    return desc0, desc1, valid0, valid1


def _features(shape: tuple[int, ...], seed: int, fill=None) -> tuple[torch.Tensor]:
    x = torch.randn(shape, generator=seeded(seed)) * 3
    if fill is not None:
        x.flatten()[:: max(1, x.numel() // 5)] = fill
    return (x,)


#: variant -> (input sets at other sizes and edge values, exporters); "eager-" sets run in eager mode only
DIRECT = {
    "lightglue_cross_block": ({
        "other-sizes": _keypoints(3, 7, 4, 1),
        "every-key-masked": _keypoints(2, 5, 9, 2, valid1=torch.zeros(2, 9, dtype=torch.bool)),
        "nothing-masked": _keypoints(1, 3, 3, 3, torch.ones(1, 3, dtype=torch.bool),
                                     torch.ones(1, 3, dtype=torch.bool)),
        "one-keypoint": _keypoints(2, 1, 6, 4),
        "zeros": tuple(t.zero_() if t.is_floating_point() else t for t in _keypoints(2, 4, 5, 5)),
        "eager-no-batch": _keypoints(0, 4, 5, 6),
    }, ("torchscript", "dynamo")),
    "transformers_chmv2_mixlog_depth": ({
        "other-sizes": _features((3, 3, 5, 11), 7),
        "zeros": (torch.zeros(2, 3, 4, 4),),
        "negatives": (-_features((1, 3, 7, 2), 8)[0].abs(),),
        "inf": _features((2, 3, 6, 5), 9, INF),
        "-inf": _features((2, 3, 6, 5), 10, -INF),
        "nan": _features((1, 3, 4, 9), 11, NAN),
        "no-batch": (torch.zeros(0, 3, 5, 6),),
    }, ("torchscript", "clip")),
}


def _outputs(values) -> list[torch.Tensor]:
    return list(values) if isinstance(values, (tuple, list)) else [values]


def _graph_equals_eager(session, model: torch.nn.Module, inputs: tuple, label: str, clip: bool = False) -> None:
    """Every output: shape and dtype; bool exactly; floats to 1e-5 of the largest finite magnitude,
    NaN and infinities where eager mode has them. ``clip``: ONNX Runtime's ``Clip`` without a
    maximum (``clamp_min``) clips to the dtype's largest finite value, so eager mode's infinities are
    compared as those (the original graph does the same; the test checks it)."""
    with torch.no_grad():
        wants = [w.numpy() for w in _outputs(model(*inputs))]
    if clip:
        wants = [np.nan_to_num(w, nan=np.nan, posinf=np.finfo(w.dtype).max, neginf=np.finfo(w.dtype).min)
                 if w.dtype.kind == "f" else w for w in wants]
    gots = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    assert len(gots) == len(wants), label
    for got, want in zip(gots, wants):
        assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape)
        if want.dtype.kind != "f":
            assert np.array_equal(got, want), label
            continue
        finite = np.abs(want[np.isfinite(want)])
        scale = max(1.0, float(finite.max()) if finite.size else 1.0)
        assert np.allclose(got, want, rtol=0, atol=1e-5 * scale, equal_nan=True), (label, got, want)


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_without_float64_and_equals_eager(name: str, tmp_path: Path) -> None:
    sets, exporters = DIRECT[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt733_d_{name}")
    new_path = tmp_path / f"{name}_rewritten.py"
    options = Options(select=("TRT733",), scope="all")
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()), options).source.decode())
    _, rewritten = built_variant(new_path, f"trt733_r_{name}")
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))

    sessions = {"torchscript": export_variant(rewritten, example, module.DYNAMIC, tmp_path / "ts.onnx", tmp_path)[0]}
    assert _float64_casts(onnx.load(str(tmp_path / "ts.onnx"))) == 0
    assert not [i for i in check_graph(onnx.load(str(tmp_path / "ts.onnx"))) if i.severity == "error"]
    if "dynamo" in exporters:
        sessions["dynamo"] = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "dynamo.onnx")
    before = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)[0]
    for label, inputs in {"example": example, **sets}.items():
        if label.startswith("eager-"):
            continue
        for exporter, session in sessions.items():
            _graph_equals_eager(session, original, inputs, f"{exporter} {label}", clip="clip" in exporters)
        feed = {n: t.numpy() for n, t in zip(input_names(original), inputs)}
        for got, want in zip(sessions["torchscript"].run(None, feed), before.run(None, feed)):
            assert np.array_equal(got, want, equal_nan=True), (label, got, want)  # the original graph's values
    assert_eager_unchanged(original, rewritten, {"example": example, **sets})
