"""TRT101 where `if`s on tensor values and `if`s on configuration nest, on real-code variants.

UniMatch's layers (``test_recipe_variants_trt101.py``: autonomousvision/unimatch and the
stereo_matching port) hold the tensor test outside and the configuration tests inside. These hold
it the other way round, each from another library (cited in its file in
``tests/recipe_variants/trt101/``): configuration outside (a dtype test, a flag), tensor tests inside,
which the rule rewrites where they stand, the configuration `if` kept:

- diffusers' Cosmos3 conditioning image: an ``elif`` chain on the image's range (two nested
  ``torch.where``s, the first true test wins) under ``if not is_integer_input:``;
- MONAI's ``SobelGradients``: two tests (``grad_min != grad.max()``, ``grad_max > 0``) whose branches
  update ``grad`` in place, under ``if self.normalize_gradients:``, in a loop over the axes;
- torchmetrics' binary stat scores: ``if not torch.all((preds >= 0) * (preds <= 1)):`` (logits or
  probabilities) under ``if preds.is_floating_point():``.

For each: the rule finds the tensor tests from what migrate records (its observer's run and the
export's TracerWarnings), at their lines; the TorchScript export of the original keeps the example's
branch and is wrong on inputs that take another one; the rewrite's export follows every branch, at
other sizes too; eager mode gives the same outputs on every input set (zeros, negatives, inf/NaN,
empty), and ``migrate`` applies the rewrite, verified, and ends equivalent.

MONAI's form was refused before: `grad` is assigned in one branch only and changed in place after
the `if` (`grad /= grad_max`), which the rule took for a change an alias of the old tensor might
see; the tensor is now recognised as `grad`'s own (a computed value read only as an operand since),
so both tests are rewritten.

Searched and not reduced here (not counted): tensor tests outside from other authors whose branches
do more than assign: k-diffusion's ``sample_dpmpp_2m_sde`` (``if sigmas[i + 1] == 0:``, whose other
branch unpacks a tuple, assigns ``x`` three times and draws noise under ``if eta:``), diffusers'
EasyAnimate inpainting (``if (mask_video == 255).all():``, whose other branch encodes with the VAE and
noise augmentation) and MONAI's VISTA3D (``if mapping_index.any():``, which selects rows by the mask
and fills it in place).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from safety import assert_same_run, run_once
from support import TESTS, assert_same, migrate_json
from variant_models import (axes_json, built, export_variant, graph_matches, line_of, load_variant, observed_facts,
                            variant_inputs)

from trtcodemod.engine import Options, check_source, fix_source

HERE = TESTS / "recipe_variants" / "trt101"
INF, NAN = float("inf"), float("nan")


def _image_sets(example: tuple) -> dict[str, tuple]:
    (image,) = example
    g = torch.Generator().manual_seed(3)
    return {
        "[0, 1]": (torch.rand(1, 3, 6, 10, generator=g),),
        "[0, 255]": (torch.rand(1, 3, 6, 10, generator=g) * 255,),
        "other-size": (torch.rand(2, 3, 9, 5, generator=g) * 2 - 1,),
        "other-size-[0, 1]": (torch.rand(2, 3, 9, 5, generator=g),),
        "zeros": (torch.zeros_like(image),),
        "negatives": (-image.abs() - 0.5,),
    }


def _sobel_sets(example: tuple) -> dict[str, tuple]:
    (image,) = example
    g = torch.Generator().manual_seed(3)
    return {
        "zeros": (torch.zeros_like(image),),
        "constant": (torch.full_like(image, 2.5),),
        "other-size": (torch.randn(2, 2, 9, 5, generator=g),),
        "other-size-constant": (torch.full((2, 2, 9, 5), -1.0),),
        "negatives": (-image.abs() - 1.0,),
    }


def _stat_sets(example: tuple) -> dict[str, tuple]:
    preds, target = example
    g = torch.Generator().manual_seed(3)
    return {
        "probabilities": (torch.rand(2, 5, generator=g), target),
        "other-size": (torch.randn(3, 7, generator=g) * 3, torch.randint(0, 2, (3, 7), generator=g)),
        "other-size-probabilities": (torch.rand(3, 7, generator=g), torch.randint(0, 2, (3, 7), generator=g)),
        "zeros": (torch.zeros_like(preds), target),
        "negatives": (-preds.abs() - 0.1, target),
        "ones": (torch.ones_like(preds), target),
    }


def _non_finite(t: torch.Tensor) -> torch.Tensor:
    t = t.clone()
    flat = t.view(-1)
    flat[0], flat[-1] = INF, NAN
    return t


# name → (the tensor `if` lines (fragments), a fragment of the rewrite, the input sets besides the example that take
#         another branch or size (the first is one the original's graph gets wrong), the edge sets)
VARIANTS = {
    "diffusers_cosmos_image_range": (
        ["        if image.min() < 0:"],
        "        _trt_cond = torch.as_tensor(image.min() < 0)\n"
        "        _trt_cond_2 = torch.as_tensor(image.max() <= 1.0)\n"
        "        image = torch.where(_trt_cond, (image + 1.0) * 127.5, "
        "torch.where(_trt_cond_2, image * 255.0, image))\n",
        _image_sets),
    "monai_sobel_normalize": (
        ["if grad_min != grad.max():", "if grad_max > 0:"],
        "                _trt_cond = torch.as_tensor(grad_min != grad.max())\n"
        "                grad = torch.where(_trt_cond, grad - grad_min, grad)\n"
        "                grad_max = grad.max()\n"
        "                _trt_cond = torch.as_tensor(grad_max > 0)\n"
        "                grad = torch.where(_trt_cond, grad / grad_max, grad)\n",
        _sobel_sets),
    "torchmetrics_binary_logits": (
        ["if not torch.all((preds >= 0) * (preds <= 1)):"],
        "        _trt_cond = torch.logical_not(torch.as_tensor(torch.all((preds >= 0) * (preds <= 1))))\n"
        "        preds = torch.where(_trt_cond, preds.sigmoid(), preds)\n"
        "        preds = preds > threshold\n",
        _stat_sets),
}


@pytest.fixture(scope="module", params=list(VARIANTS))
def rewritten(request, tmp_path_factory):
    """The variant, the TorchScript export of its original with its TracerWarnings, the facts migrate records,
    and the rewrite those facts give (``--unsafe``, as migrate tries a verified candidate)."""
    name = request.param
    work = tmp_path_factory.mktemp(name)
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt101n_{name}")
    original = built(module)
    example = variant_inputs(module, None, 0)
    before, traced = export_variant(original, example, module.DYNAMIC, work / "before.onnx", HERE)
    facts = observed_facts(path, module, work, traced)
    options = Options(select=("TRT101",), unsafe=True, facts=facts, scope="all")
    findings = check_source(path.read_bytes(), str(path.resolve()), options)
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    new_path = work / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    after_module = load_variant(new_path, f"trt101n_rewritten_{name}")
    after_model = built(after_module)
    after_model.load_state_dict(original.state_dict())
    after, _ = export_variant(after_model, example, module.DYNAMIC, work / "after.onnx", work)
    return {"name": name, "path": path, "module": module, "original": original, "example": example,
            "before": before, "traced": traced, "findings": findings, "source": new_source,
            "rewritten": after_model, "after": after}


def test_found_at_the_tensor_tests(rewritten) -> None:
    """The tensor tests are found (the configuration `if` around them is not), each at its line, with its
    TracerWarning there: the export baked the example's branch in."""
    path = rewritten["path"]
    lines = sorted(line_of(path, fragment) for fragment in VARIANTS[rewritten["name"]][0])
    assert sorted(f.line for f in rewritten["findings"] if f.rule == "TRT101") == lines, rewritten["findings"]
    warned = {line for f, line, _ in rewritten["traced"] if Path(f).resolve() == path.resolve()}
    assert set(lines) <= warned, rewritten["traced"]


def test_rewrite_keeps_the_configuration_if(rewritten) -> None:
    fragment = VARIANTS[rewritten["name"]][1]
    source = rewritten["source"]
    assert fragment in source, source
    original = rewritten["path"].read_text()
    outer = {"diffusers_cosmos_image_range": "    if not is_integer_input:\n",
             "monai_sobel_normalize": "            if self.normalize_gradients:\n",
             "torchmetrics_binary_logits": "    if preds.is_floating_point():\n"}[rewritten["name"]]
    assert outer in original and outer in source
    for tensor_if in VARIANTS[rewritten["name"]][0]:
        assert tensor_if.strip() not in [line.strip() for line in source.splitlines()]


def test_graph_follows_every_branch(rewritten) -> None:
    """Before: the graph is right on the example and wrong on inputs that take another branch. After: right on all
    of them, at other sizes too."""
    original, example = rewritten["original"], rewritten["example"]
    sets = {"example": example, **VARIANTS[rewritten["name"]][2](example)}
    first_other = list(sets.values())[1]
    assert graph_matches(rewritten["before"], original, example)
    assert not graph_matches(rewritten["before"], original, first_other)
    for label, inputs in sets.items():
        assert graph_matches(rewritten["after"], original, inputs, equal_nan=True), label


def test_eager_mode_unchanged(rewritten) -> None:
    """The same outputs, bit for bit, on every set (edge values included: zeros, inf/NaN, an empty batch, which
    raises alike where a reduction meets no values); gradients as the variant's note says."""
    name, original, after, example = (rewritten["name"], rewritten["original"], rewritten["rewritten"],
                                      rewritten["example"])
    sets = {"example": example, **VARIANTS[name][2](example),
            "inf-nan": tuple(_non_finite(t) if t.is_floating_point() else t for t in example),
            "empty": tuple(t[:0] for t in example)}
    for label, inputs in sets.items():
        assert_same_run(run_once(original, list(inputs)), run_once(after, list(inputs)), context=label)
        if name == "torchmetrics_binary_logits":
            continue  # counts of a threshold: no gradient reaches the inputs
        graded = [t.clone().requires_grad_() for t in inputs]
        before_run, after_run = run_once(original, graded), run_once(after, graded)
        if name == "monai_sobel_normalize" and before_run.error is None:
            # MONAI's `grad /= grad_max` overwrites what `grad.max()` needs for its gradient: the original's backward
            # fails wherever the division runs; the rewrite divides out of place and has a gradient there. Where
            # the division is not taken (a constant gradient of 0), it still computes `grad / 0` and torch.where
            # sends 0 * inf = NaN back (the rule's stated cost).
            divided = torch.is_tensor(before_run.output) and bool((before_run.output != 0).any())
            if divided:
                assert before_run.backward_error is RuntimeError and after_run.backward_error is None, label
            elif label != "empty":
                assert before_run.backward_error is None and after_run.grads[0].isnan().any(), label
            continue
        assert_same_run(before_run, after_run, context=label)


def test_empty_and_non_finite_values_reach_the_same_result(rewritten) -> None:
    """inf/NaN: the tests read NaN as false (or true for `!=`) alike in both, so the same values come out."""
    original, after, example = rewritten["original"], rewritten["rewritten"], rewritten["example"]
    broken = tuple(_non_finite(t) if t.is_floating_point() else t for t in example)
    with torch.no_grad():
        assert_same(original(*broken), after(*broken))


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request) -> tuple[str, dict]:
    name = request.param
    path = HERE / f"{name}.py"
    return name, migrate_json(path, axes_json(load_variant(path, f"trt101n_m_{name}")))


def test_migrate_applies_the_rewrite_verified(migrated) -> None:
    """`migrate` (no --unsafe) on the file: the bake is located at the tensor tests, the rewrite is a candidate the
    verification keeps, and the migrated model is equivalent (exit 0)."""
    name, report = migrated
    path = HERE / f"{name}.py"
    lines = sorted(line_of(path, fragment) for fragment in VARIANTS[name][0])
    assert sorted((a["rule"], a["line"]) for a in report["applied"]) == [("TRT101", line) for line in lines], \
        report["applied"]
    assert all(a["proof"].startswith("verified") for a in report["applied"]), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert "torch.where(_trt_cond" in report["diff"], report["diff"]
