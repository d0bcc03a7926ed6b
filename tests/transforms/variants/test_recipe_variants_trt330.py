"""The unfold-negative-axis recipe (TRT330) on real-code variants.

Each variant in ``tests/recipe_variants/trt330/`` is a small runnable model reduced from a public
repository (cited in its docstring) that calls ``x.unfold`` with a negative dimension written as a
literal, in the form the original writes it: transformers' PatchTST patchify (keywords, dimension
-2, a ``(batch, length, channels)`` tensor), Time-Series-Library's WPMixer (keywords, dimension -1
after a ``cat`` of the repeated last step), matching-pursuit's short-time transform (positional, -1,
the window size read from the bank) and pytorch-forecasting's TimeXer embedding (keywords, -1, the
stride equal to the patch length, reshapes built from the shape). The TorchScript export of each
original puts the windows on the wrong axis: ONNX Runtime refuses three graphs where the windows
meet a weight or a position table, and TimeXer's graph runs with the eager shape but wrong values
(its patch count equals its patch length). The rule finds each call from the code alone;
``migrate`` applies TRT330 there only and ends with exit 0, the rewritten model equivalent. Two
variants are also rewritten and exported directly: the graph equals eager mode at other batch
sizes and on edge values (zeros, negatives, infinities; an empty batch in eager mode only), and
eager mode is unchanged.

A call whose input comes out of a pad (pytorch-forecasting's PatchTST embedding after
``nn.ReplicationPad1d``, Whisper's median filter after a reflection pad) needs more than TRT330: the
rule finds and rewrites it, but the TorchScript exporter refuses ``unfold`` on a padded axis before
and after ("input size not accessible": its ``unfold`` needs the axis' size, which it does not know
after the pad, dynamic axes or not); the test below pins that. ``migrate`` then meets the export
failure at the call (not inside the inserted helper) and verifies TRT311's gathered windows there,
which take ``_trt_unfold_axis`` as they take ``unfold``: both end with exit 0, equivalent.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from support import migrate_json
from variant_models import assert_eager_unchanged, built_variant, export_variant, input_names, load_variant
from variant_models import line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt330"
INF = float("inf")
OPTIONS = Options(select=("TRT330",), scope="all")

#: variant -> (the unfold call as written, its rewrite)
CALLS = {
    "transformers_patchtst_patchify": (
        "output.unfold(dimension=-2, size=self.patch_length, step=self.patch_stride)",
        "_trt_unfold_axis(output, -2, self.patch_length, self.patch_stride)"),
    "tslib_wpmixer_do_patching": (
        "x_new.unfold(dimension=-1, size=self.patch_len, step=self.patch_stride)",
        "_trt_unfold_axis(x_new, -1, self.patch_len, self.patch_stride)"),
    "matching_pursuit_short_time_transform": ("x.unfold(-1, ws, ss)", "_trt_unfold_axis(x, -1, ws, ss)"),
    "pytorch_forecasting_timexer_en_embedding": (
        "x.unfold(dimension=-1, size=self.patch_len, step=self.patch_len)",
        "_trt_unfold_axis(x, -1, self.patch_len, self.patch_len)"),
    # Not taken (the input comes out of a pad): found and rewritten, the export fails either way.
    "pytorch_forecasting_patch_embedding": (
        "x.unfold(dimension=-1, size=self.patch_len, step=self.stride)",
        "_trt_unfold_axis(x, -1, self.patch_len, self.stride)"),
    "transformers_whisper_median_filter": (
        "inputs.unfold(-1, filter_width, 1)", "_trt_unfold_axis(inputs, -1, filter_width, 1)"),
}
TAKEN = list(CALLS)[:4]
AFTER_A_PAD = list(CALLS)[4:]
NOT_ACCESSIBLE = "Unfold, input size not accessible"


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _rewritten(name: str, folder: Path):
    path = HERE / f"{name}.py"
    source = fix_source(path.read_bytes(), str(path.resolve()), OPTIONS).source.decode()
    new_path = folder / f"{name}_rewritten.py"
    new_path.write_text(source)
    return source, built_variant(new_path, f"trt330_rewritten_{name}")[1]


def _run(session, model: torch.nn.Module, inputs: tuple) -> np.ndarray:
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    return got


@pytest.mark.parametrize("name", list(CALLS))
def test_the_rule_finds_the_call_from_the_code_and_rewrites_it(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    call, fixed = CALLS[name]
    findings = check_source(path.read_bytes(), str(path.resolve()), OPTIONS)
    assert [(f.rule, f.line) for f in findings] == [("TRT330", _line_of(path, call))]
    source, _ = _rewritten(name, tmp_path)
    code = [text for text in source.splitlines() if "``" not in text]  # the docstrings quote the call
    assert sum(fixed in text for text in code) == 1 and not any(call in text for text in code), source


@pytest.mark.parametrize("name", TAKEN)
def test_the_torchscript_export_of_the_original_is_wrong(name: str, tmp_path: Path) -> None:
    """ONNX Runtime refuses the graph, or it runs and differs from eager mode (TimeXer: same shape,
    the windows' values transposed)."""
    module, model = built_variant(HERE / f"{name}.py", f"trt330_o_{name}")
    example = module.inputs(_g(0))
    with torch.no_grad():
        want = model(*example).numpy()
    try:
        session, _ = export_variant(model, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    except Exception as error:  # noqa: BLE001 - ONNX Runtime's refusal, checked below
        assert "Incompatible dimensions" in str(error) or "ShapeInferenceError" in str(error), error
        assert name != "pytorch_forecasting_timexer_en_embedding"
        return
    got = _run(session, model, example)
    assert name == "pytorch_forecasting_timexer_en_embedding"
    assert got.shape == want.shape and not np.allclose(got, want, atol=1e-3)


@pytest.mark.parametrize("name", TAKEN)
def test_migrate_applies_trt330_at_the_call_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt330_m_{name}")
    axes = {input_name: {str(axis): label for axis, label in dims.items()} for input_name, dims in module.DYNAMIC.items()}
    report = migrate_json(path, json.dumps(axes))
    assert not (report["before"]["exported"] and report["before"]["faithful"]), report["before"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == \
        [("TRT330", _line_of(path, CALLS[name][0]))], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert f"+        {CALLS[name][1]}" in report["diff"] or CALLS[name][1] in report["diff"], report["diff"]


#: variant after a pad -> TRT311's rewrite of TRT330's call, which migrate verifies.
GATHERED = {
    "pytorch_forecasting_patch_embedding": "_trt_unfold(x, -1, self.patch_len, self.stride)",
    "transformers_whisper_median_filter": "_trt_unfold(inputs, -1, filter_width, 1)",
}


@pytest.mark.parametrize("name", AFTER_A_PAD)
def test_migrate_takes_an_unfold_after_a_pad_with_trt311_after_trt330(name: str) -> None:
    """The export failure is met at the call, where TRT311's candidate replaces TRT330's helper."""
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt330_g_{name}")
    axes = {input_name: {str(axis): label for axis, label in dims.items()} for input_name, dims in module.DYNAMIC.items()}
    report = migrate_json(path, json.dumps(axes))
    assert report["before"]["exported"] is False, report["before"]
    line = _line_of(path, CALLS[name][0])
    assert {(fix["rule"], fix["line"]) for fix in report["applied"]} >= {("TRT330", line), ("TRT311", line)}, \
        report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert any(GATHERED[name] in text for text in report["diff"].splitlines() if text.startswith("+ ")), report["diff"]
    assert not any(CALLS[name][1] in text for text in report["diff"].splitlines() if text.startswith("+")), \
        report["diff"]


def _with_inf(tensor: torch.Tensor) -> torch.Tensor:
    flat = tensor.clone().flatten()
    flat[:: max(1, flat.numel() // 5)] = INF
    flat[1] = -INF
    return flat.reshape(tensor.shape)


DIRECT = {
    "transformers_patchtst_patchify": {
        "one-series": (torch.randn(1, 20, 3, generator=_g(1)),),
        "larger-batch": (torch.randn(5, 20, 3, generator=_g(2)),),
        "zeros": (torch.zeros(2, 20, 3),),
        "negatives": (-torch.rand(3, 20, 3, generator=_g(3)) * 50,),
        "infinities": (_with_inf(torch.randn(2, 20, 3, generator=_g(4))),),
        "eager-empty-batch": (torch.zeros(0, 20, 3),),
    },
    "pytorch_forecasting_timexer_en_embedding": {
        "one-series": (torch.randn(1, 16, 3, generator=_g(5)),),
        "larger-batch": (torch.randn(4, 16, 3, generator=_g(6)),),
        "zeros": (torch.zeros(2, 16, 3),),
        "negatives": (-torch.rand(2, 16, 3, generator=_g(7)) * 50,),
        "infinities": (_with_inf(torch.randn(2, 16, 3, generator=_g(8))),),
        "eager-empty-batch": (torch.zeros(0, 16, 3),),
    },
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_and_equals_eager_at_other_sizes_and_edge_values(name: str, tmp_path: Path) -> None:
    module, original = built_variant(HERE / f"{name}.py", f"trt330_d_{name}")
    _, rewritten = _rewritten(name, tmp_path)
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(_g(0))
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = {"example": example, **DIRECT[name]}
    for label, inputs in sets.items():
        if label.startswith("eager-"):  # ONNX Runtime is not asked for an empty batch
            continue
        with torch.no_grad():
            want = original(*inputs).numpy()
        got = _run(session, rewritten, inputs)
        assert got.shape == want.shape, (label, got.shape, want.shape)
        finite = np.abs(want[np.isfinite(want)])
        scale = max(1.0, float(finite.max()) if finite.size else 1.0)
        assert np.allclose(got, want, rtol=0, atol=1e-5 * scale, equal_nan=True), (label, got, want)
    assert_eager_unchanged(original, rewritten, sets)


@pytest.mark.parametrize("name", AFTER_A_PAD)
def test_not_taken_unfold_after_a_pad_is_refused_by_the_exporter_before_and_after(name: str, tmp_path: Path) -> None:
    """The exporter's ``unfold`` needs the axis' size; after a pad it does not know it, whichever way
    the axis is counted: TRT330's rewrite is right here but not enough (the graph fails either way)."""
    module, original = built_variant(HERE / f"{name}.py", f"trt330_p_{name}")
    _, rewritten = _rewritten(name, tmp_path)
    example = module.inputs(_g(0))
    for label, model in (("before", original), ("after", rewritten)):
        with pytest.raises(Exception, match=NOT_ACCESSIBLE):
            export_variant(model, example, module.DYNAMIC, tmp_path / f"{label}.onnx", tmp_path)
    with torch.no_grad():
        torch.testing.assert_close(rewritten(*example), original(*example), rtol=0, atol=0)
