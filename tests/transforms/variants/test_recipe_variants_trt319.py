"""The sorted-median recipe (TRT319) on real-code variants.

Each variant in ``tests/recipe_variants/trt319/`` is a small runnable model reduced from a public
repository (cited in its docstring) that takes a median or a ``k``-th value in its forward pass in
the form the original writes it: timm's ``MedianPool2d`` (``.median(dim=-1)[0]`` chained on a
``view`` of two unfolds), MONAI's ``median_filter`` (``torch.median(features, dim=1)[0]`` over the
channels of a binary-kernel convolution), dino-tk's ``MedianPool1d`` (``x.median(dim=-1)[0]`` on a
1-D unfold), SpeckleNoisePytorch's ``median_pool_2d`` (``med_unf_input, med_unf_indexes =
th.median(row_unf_input, dim=2, keepdim=True)``, the indices never read, ``torch`` as ``th``) and
kornia DISK's ``n`` strongest keypoints (``minus_threshold, _indices =
torch.kthvalue(-detection_logp, n)``). The rule finds every one from the code alone and rewrites it
(a safe fix); the TorchScript exporter has no symbolic for ``aten::median`` or ``aten::kthvalue``
and each original's export stops there (timm's and dino-tk's first at their unfold after a
reflection pad, TRT311's, and at the median once that is rewritten). ``migrate`` applies TRT319
(with TRT311 for the unfolds on a dynamic axis, TRT712 for SpeckleNoisePytorch's ``math.floor`` of a
size) and ends with exit 0, equivalent, for timm, MONAI, dino-tk and SpeckleNoisePytorch. MONAI's
and dino-tk's rewrites are also exported directly: the graph equals eager mode at other sizes and on
zeros, negatives, infinities, NaN and ties, and eager mode is unchanged bit for bit (an empty batch
too, in eager mode only for dino-tk: TRT311's gather reshapes with ``-1``, which ONNX Runtime cannot
size for no elements).

Two of the variants found faults, fixed here: the rule took ``values, _indices = ...`` only with an
underscored second name, so SpeckleNoisePytorch's unread ``med_unf_indexes`` kept the call (now any
name bound once and never read in the function; the rule's test file pins it), and ``migrate``
read the module scopes the exporter prints with its error as operator names: timm's filter held
as ``self.median`` made an ``Unfold`` failure TRT319's, so TRT311 was never tried (exit 1; the
scopes are now ignored, tests/migrate/test_migrate.py pins it).

kornia DISK is taken end to end too since TRT334: ``torch.cumsum(tied, 0)`` on a bool mask exported
an ONNX ``CumSum`` of bool, which ONNX Runtime refuses to load (exit 1 before TRT334); now
``migrate`` applies TRT319, TRT334 for the cumsum and TRT201 for the mask indexing, and ends with
exit 0, equivalent, the guard ``detection_logp.numel() > n`` left as a warning (TRT713, a count the
trace keeps, no automatic fix), pinned below.

``torch.quantile`` (TRT319 widened; the TorchScript exporter has no symbolic for ``aten::quantile``):
two diffusion samplers' dynamic thresholds, CogVideo's (the method form with a 1-D tensor ``q`` of two
quantiles, unpacked, ``dim=-1, keepdim=True`` over every frame and pixel) and Color-diffusion's
(``torch.quantile(...abs(), percentile, dim=-1)`` over each image, clamped in place after). The rule
finds each from the code alone; ``migrate`` applies TRT319 and ends with exit 0, equivalent, and the
rewritten graph equals eager mode at other sizes and on zeros, negatives, infinities and NaN. Their
reduced axis is a whole latent or image: TensorRT's TopK takes it only up to 3840 elements (a
64x64 image's 4096 values would build no engine; TRT319's doc says so).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built, export_variant, input_names,
                            load_rewritten, load_variant, rewritten_variant, seeded, with_specials)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source
from trtcodemod.verify.export import export_model

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt319"
INF, NAN = float("inf"), float("nan")

#: variant -> (the call as written, the text the rule writes for it, the operator torch cannot export).
CALLS: dict[str, tuple[str, str, str]] = {
    "timm_median_pool2d": ("x = x.contiguous().view(x.size()[:4] + (-1,)).median(dim=-1)[0]",
                           "x = _trt_median(x.contiguous().view(x.size()[:4] + (-1,)), dim=-1)", "aten::median"),
    "monai_median_filter": ("median: torch.Tensor = torch.median(features, dim=1)[0]",
                            "median: torch.Tensor = _trt_median(features, dim=1)", "aten::median"),
    "dinotk_median_pool1d": ("return x.median(dim=-1)[0]", "return _trt_median(x, dim=-1)", "aten::median"),
    "specklenoise_median_pool_2d": (
        "med_unf_input, med_unf_indexes = th.median(row_unf_input, dim=2, keepdim=True)",
        "med_unf_input = _trt_median(row_unf_input, dim=2, keepdim=True)", "aten::median"),
    "kornia_disk_top_n_keypoints": ("minus_threshold, _indices = torch.kthvalue(-detection_logp, n)",
                                    "minus_threshold = _trt_kthvalue(-detection_logp, n)", "aten::kthvalue"),
    "cogvideo_dynamic_threshold": (
        "l, r = x.quantile(q=torch.tensor([1 - p, p], device=x.device), dim=-1, keepdim=True)",
        "l, r = _trt_quantile(x, q=torch.tensor([1 - p, p], device=x.device), dim=-1, keepdim=True)",
        "aten::quantile"),
    "colordiffusion_dynamic_threshold": (
        "s = torch.quantile(img.reshape(img.shape[0], -1).abs(), percentile, dim=-1)",
        "s = _trt_quantile(img.reshape(img.shape[0], -1).abs(), percentile, dim=-1)", "aten::quantile"),
}

#: variants migrate takes end to end -> the other fixes it applies with TRT319 (rule, text of the line).
END_TO_END: dict[str, tuple[tuple[str, str], ...]] = {
    # the unfolds on a dynamic height and width, which the exporter stops at first
    "timm_median_pool2d": (("TRT311", "x = x.unfold(2, self.k[0], self.stride[0]).unfold(3"),),
    "monai_median_filter": (),
    "dinotk_median_pool1d": (("TRT311", "x = x.unfold(2, self.kernel, self.stride)"),),
    # `math.floor` of the traced width and height: TRT712 keeps them in the graph
    "specklenoise_median_pool_2d": (("TRT712", "out_w = math.floor("), ("TRT712", "out_h = math.floor(")),
    "cogvideo_dynamic_threshold": (),
    "colordiffusion_dynamic_threshold": (),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_the_rule_finds_each_call_from_the_code_and_rewrites_it(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    call, rewritten, _ = CALLS[name]
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT319",), scope="all"))
    assert [(f.rule, f.line, f.fix.value) for f in findings] == [("TRT319", _line_of(path, call), "safe")]
    variant = rewritten_variant(path, "TRT319", tmp_path)
    assert rewritten in variant["source"], variant["source"]
    assert variant["safe_only"] == variant["source"]  # a safe fix: the same without --unsafe
    assert check_source(variant["source"].encode(), "rewritten.py", Options(select=("TRT319",), scope="all")) == []


#: variants whose original export stops first at an unfold after a reflection pad (TRT311's, at
#: any axes: the pad's output sizes are not known to the exporter); with it rewritten, at the median.
UNFOLD_FIRST = {"timm_median_pool2d", "dinotk_median_pool1d"}


@pytest.mark.parametrize("name", list(CALLS))
def test_the_original_export_stops_at_the_median(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt319_o_{name}")
    models = {"original": built(module)}
    if name in UNFOLD_FIRST:
        models["unfold rewritten"] = built(load_rewritten(path, ("TRT311",), tmp_path, f"trt319_u_{name}")[2])
    for label, model in models.items():
        result = export_model(model, module.inputs(seeded(0)), tmp_path / "before.onnx", exporter="torchscript",
                              input_names=input_names(model), output_names=["out"], dynamic_axes=module.DYNAMIC,
                              opset=17, user_roots=(str(HERE), str(tmp_path)))
        assert result.error is not None, label
        if label == "original" and name in UNFOLD_FIRST:
            assert "ONNX export of operator Unfold" in result.error, result.error
        else:
            assert CALLS[name][2] in result.error, (label, result.error)


@pytest.mark.parametrize("name", list(END_TO_END))
def test_migrate_applies_trt319_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt319_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False
    # CogVideo's `torch.tensor([1 - p, p])` is baked in the first trace (a constant, rightly): TRT716
    # is proposed at that line and does not land, TRT319's rewrite of the call holding it does.
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"] if fix.get("landed", True))
    want = [("TRT319", _line_of(path, CALLS[name][0]))]
    want += [(rule, _line_of(path, text)) for rule, text in END_TO_END[name]]
    assert applied == sorted(want), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["after"]["trt_errors"] == 0, report["after"]
    assert CALLS[name][1] in report["diff"], report["diff"]


def test_kornia_disk_is_taken_end_to_end_with_trt334() -> None:
    """TRT319 is applied, and TRT334 for the bool ``CumSum`` ONNX Runtime did not load (exit 1 before
    it); the count guard stays a traced constant (TRT713, no automatic fix), a warning: exit 0."""
    path = HERE / "kornia_disk_top_n_keypoints.py"
    module = load_variant(path, "trt319_m_disk")
    report = migrate_json(path, _axes_json(module))
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert ("TRT319", _line_of(path, CALLS["kornia_disk_top_n_keypoints"][0])) in applied
    assert ("TRT334", _line_of(path, "torch.cumsum(tied, 0)")) in applied
    assert [(r["rule"], int(r["source"].rsplit(":", 1)[1]), r["severity"]) for r in report["remaining"]] == \
        [("TRT713", _line_of(path, "if detection_logp.numel() > n:"), "warning")]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["after"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]


def _images(shape: tuple[int, ...], seed: int) -> tuple[torch.Tensor]:
    return (torch.randn(shape, generator=seeded(seed)) * 2,)


#: variant -> (rules rewritten with TRT319, input sets at other sizes and edge values).
DIRECT = {
    "monai_median_filter": (("TRT319",), {
        "other-sizes": _images((3, 2, 5, 11), 1),
        "one-pixel": _images((2, 2, 1, 1), 2),
        "zeros": (torch.zeros(2, 2, 4, 4),),
        "negatives": (-_images((1, 2, 6, 5), 3)[0].abs() - 1,),
        "infinities-and-nan": (with_specials((2, 2, 4, 7), 4),),
        "ties": (torch.randint(-2, 3, (2, 2, 6, 6), generator=seeded(5)).float(),),
    }),
    "dinotk_median_pool1d": (("TRT311", "TRT319"), {
        "other-sizes": _images((3, 4, 23), 6),
        "shortest": _images((1, 4, 2), 7),
        "zeros": (torch.zeros(2, 4, 9),),
        "negatives": (-_images((2, 4, 8), 8)[0].abs() - 1,),
        "infinities-and-nan": (with_specials((2, 4, 13), 9),),
        "ties": (torch.randint(-1, 2, (2, 4, 10), generator=seeded(10)).float(),),
        # TRT311's gather reshapes with -1, which ONNX Runtime cannot size for no elements: eager only
        "eager-empty-batch": (torch.zeros(0, 4, 9),),
    }),
    "cogvideo_dynamic_threshold": (("TRT319",), {
        "other-sizes": _images((2, 5, 4, 7, 3), 11),
        "one-pixel-one-frame": _images((1, 1, 4, 1, 1), 12),
        "zeros": (torch.zeros(2, 2, 4, 3, 3),),
        "negatives": (-_images((1, 3, 4, 4, 5), 13)[0].abs() - 1,),
        "infinities-and-nan": (with_specials((2, 3, 4, 5, 6), 14),),
        "ties": (torch.randint(-2, 3, (1, 2, 4, 5, 5), generator=seeded(15)).float(),),
    }),
    "colordiffusion_dynamic_threshold": (("TRT319",), {
        "other-sizes": _images((3, 3, 9, 4), 16),
        "one-pixel": _images((2, 3, 1, 1), 17),
        "zeros": (torch.zeros(2, 3, 4, 4),),
        "negatives": (-_images((1, 3, 6, 5), 18)[0].abs() - 1,),
        "infinities-and-nan": (with_specials((2, 3, 4, 7), 19),),
        "ties": (torch.randint(-2, 3, (2, 3, 6, 6), generator=seeded(20)).float(),),
    }),
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_and_equals_eager_at_other_sizes_and_edges(name: str, tmp_path: Path) -> None:
    rules, others = DIRECT[name]
    path = HERE / f"{name}.py"
    module, text, rewritten_module = load_rewritten(path, rules, tmp_path, f"trt319_d_{name}")
    assert CALLS[name][1] in text, text
    torch.manual_seed(0)
    original = module.build().eval()
    torch.manual_seed(0)
    rewritten = rewritten_module.build().eval()
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = {"example": example, **others}
    for label, inputs in sets.items():
        if not label.startswith("eager-"):
            assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, sets)
