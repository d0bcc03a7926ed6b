"""The data-dependent-if recipe (TRT101) on real-code variants.

Each variant in ``tests/recipe_variants/trt101/`` is a small runnable model reduced from a public
library (cited in its docstring) with an ``if`` on tensor values.

- Two are taken with an export to show for it (``TAKEN``): the TorchScript export keeps the branch
  of the example (a ``TracerWarning`` at the ``if``, the observed fact) and is wrong on values that
  take the other one. The rules rewrite the file with those facts (``--unsafe``, as migrate tries a
  verified candidate); the rewritten graph equals eager mode on both branches' values and at
  other sizes, and eager mode is unchanged, bit for bit (outputs, gradients), on random, zero,
  negative, positive and inf/NaN inputs.
- The overflow clamp of the DETR-family encoder layers is taken since its temporary
  (``clamp_value``) is computed before the select; it runs only in training, so a train-mode trace
  shows the difference: a baked branch before, a ``where`` after.
- UniMatch's transformer layer (autonomousvision/unimatch, and the stereo_matching port zoo 33 runs):
  `if is_self_attn:` (a tensor test) whose branches pick their attention by `if attn_num_splits > 1:`
  on a Python int. The inner `if`s are kept, writing fresh locals, and `message` is selected; the
  swin-1d form, whose cross branch asserts a mask the self-attention call does not pass, is reported.
- Two were rewritten into code that always fails, and are now reported with the reason instead:
  a name that is None before the ``if`` (``torch.where`` cannot select None), and a condition
  that is a Python bool (``torch.allclose``), whose branch also changes the shape.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch
from safety import assert_same_run, run_once
from support import TESTS, assert_same
from variant_models import export_variant, graph_matches, load_variant, observed_facts, variant_inputs

from trtcodemod.engine import Options, check_source, fix_source

HERE = TESTS / "recipe_variants" / "trt101"


def _positive(t: torch.Tensor) -> torch.Tensor:
    return t.abs() + 0.5


def _negative(t: torch.Tensor) -> torch.Tensor:
    return -t.abs() - 1.0


# name → (rules, a fragment of the rewritten code, input shapes at another size,
#         how to make inputs that take the example's other branch, what changes in the backward pass)
TAKEN = {
    # The example has negative weights (the shift runs); positive ones skip it.
    # The backward pass of the original fails where the shift runs in place (`v -= v.min()`
    # overwrites what `min` needs); the rewrite's out-of-place select has a gradient there.
    "monai_weight_shift": (("TRT101",), "v = torch.where(_trt_cond, v - v.min(), v)", [(3, 7)], _positive,
                           "in-place"),
    # The example's heatmap holds values above the threshold (refined); a negative image's does not.
    # TRT712 makes the refinement's own `math.ceil` of a count follow the input.
    "kornia_sold2_refine": (
        ("TRT101", "TRT712"),
        "subheatmap = torch.where(_trt_cond, self.refine_heatmap(subheatmap, 0.2, valid_thresh=valid_thresh), "
        "subheatmap)", [(1, 3, 8, 5)], _negative, "nan-gradient"),
}


def _built(module) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.build().eval()


def _rewritten(name: str, source: str, tmp_path: Path):
    path = tmp_path / f"{name}_rewritten.py"
    path.write_text(source)
    return load_variant(path, f"trt101_rewritten_{name}")


def _non_finite(t: torch.Tensor) -> torch.Tensor:
    t = t.clone()
    flat = t.view(-1)
    flat[0], flat[-1] = float("inf"), float("nan")
    return t


@pytest.mark.parametrize("name", list(TAKEN))
def test_taken_variant_migrates(name: str, tmp_path: Path) -> None:
    rules, fragment, other_shapes, other_branch, backward = TAKEN[name]
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt101_{name}")
    original = _built(module)
    example = variant_inputs(module, None, 0)
    flipped = tuple(other_branch(t) for t in example)
    resized = variant_inputs(module, other_shapes, 1)
    sets = {"example": example, "other-branch": flipped, "other-size": resized,
            "other-size-other-branch": tuple(other_branch(t) for t in resized),
            "zeros": tuple(torch.zeros_like(t) for t in example)}

    # Before: the export keeps the example's branch (a TracerWarning at the `if`) and is wrong on
    # values that take the other one.
    before, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    source = path.read_text()
    if_line = source[:source.index("        if ", source.index("def forward"))].count("\n") + 1
    assert any(Path(f).resolve() == path.resolve() and line == if_line for f, line, _ in traced), traced
    assert graph_matches(before, original, example)
    assert not graph_matches(before, original, flipped)

    # The rules with what migrate records: the observer's run (the `__bool__` read at the `if`)
    # and the export's TracerWarnings (unsafe: migrate keeps the rewrite only verified).
    options = Options(select=rules, unsafe=True, facts=observed_facts(path, module, tmp_path, traced), scope="all")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    assert fragment in new_source, new_source
    rewritten = _built(_rewritten(name, new_source, tmp_path))
    rewritten.load_state_dict(original.state_dict())

    # The rewritten graph follows both branches and other sizes.
    after, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in sets.items():
        assert graph_matches(after, original, inputs, equal_nan=True), label

    # Eager mode is unchanged, bit for bit: outputs and input gradients, inf/NaN included.
    sets.update({"negatives": tuple(_negative(t) for t in example), "positives": tuple(_positive(t) for t in example),
                 "inf-nan": tuple(_non_finite(t) for t in example)})
    for label, inputs in sets.items():
        graded = [t.clone().requires_grad_() for t in inputs]
        assert_same_run(run_once(original, list(inputs)), run_once(rewritten, list(inputs)), context=label)
        before_run, after_run = run_once(original, graded), run_once(rewritten, graded)
        if backward == "in-place" and before_run.backward_error is not None:
            assert before_run.backward_error is RuntimeError and after_run.backward_error is None, label
            continue
        if backward == "nan-gradient" and not torch.equal(after_run.grads[0].isnan(), before_run.grads[0].isnan()):
            # The rule's stated cost: the refinement not taken divides by the mean of no values
            # (NaN), and torch.where sends 0 * NaN = NaN back through it. Only where it is not
            # taken (a NaN maximum is not above the threshold either).
            assert label in {"other-branch", "other-size-other-branch", "negatives", "zeros", "inf-nan"}, label
            nan_before, nan_after = before_run.grads[0].isnan(), after_run.grads[0].isnan()
            assert nan_after[nan_before].all() and nan_after.sum() > nan_before.sum(), label
            continue
        assert_same_run(before_run, after_run, context=label)


def _trace_warns_at_if(model: torch.nn.Module, example: tuple) -> tuple[torch.jit.ScriptModule, bool]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = torch.jit.trace(model, example, check_trace=False)
    return traced, any(issubclass(w.category, torch.jit.TracerWarning) and "boolean" in str(w.message)
                       for w in caught)


def test_detr_clamp_temporary_is_taken(tmp_path: Path) -> None:
    """Not taken before: `clamp_value` is assigned and read in the branch ("a branch reads a name
    another assignment of this `if` sets"). The export (eval mode) never runs the branch, so
    migrate has nothing to fix there; `apply --unsafe` rewrites it, and a train-mode trace keeps
    the decision in the graph."""
    path = HERE / "hf_detr_encoder_clamp.py"
    module = load_variant(path, "trt101_detr_clamp")
    new_source = fix_source(path.read_bytes(), str(path.resolve()),
                            Options(select=("TRT101",), unsafe=True, scope="all")).source.decode()
    assert ("            _trt_cond = torch.logical_not(torch.as_tensor(torch.isfinite(hidden_states).all()))\n"
            "            clamp_value = torch.finfo(hidden_states.dtype).max - 1000\n"
            "            hidden_states = torch.where(_trt_cond, torch.clamp(hidden_states, min=-clamp_value, "
            "max=clamp_value), hidden_states)\n") in new_source, new_source
    original, rewritten = _built(module), _built(_rewritten("detr_clamp", new_source, tmp_path))
    rewritten.load_state_dict(original.state_dict())
    example = variant_inputs(module, None, 0)

    # Train mode: the original's trace bakes the branch in; the rewrite's reads no Python bool.
    for model in (original, rewritten):
        model.train()
    _, warned = _trace_warns_at_if(original, example)
    assert warned
    traced, warned = _trace_warns_at_if(rewritten, example)
    assert not warned and "aten::where" in str(traced.graph)

    # Eager mode, train and eval: outputs and gradients, on finite, huge and inf/NaN values.
    big = torch.finfo(torch.float32).max
    cases = [example, (torch.zeros(1, 3, 8),), (_non_finite(example[0]),),
             (torch.full((1, 2, 8), big),), (torch.zeros(0, 4, 8),)]
    for train in (True, False):
        original.train(train)
        rewritten.train(train)
        for inputs in cases:
            graded = [t.clone().requires_grad_() for t in inputs]
            assert_same_run(run_once(original, graded), run_once(rewritten, graded), context=f"train={train}")
            with torch.no_grad():
                assert_same(original(*inputs), rewritten(*inputs))


# name → (what the rule wrote before, the reason it now gives, the error that old rewrite raised)
REPORTED = {
    "timm_gemma4_patch_valid": (
        ("            if sentinel.any():\n                patch_valid = ~sentinel\n",
         "            _trt_cond = torch.as_tensor(sentinel.any())\n"
         "            patch_valid = torch.where(_trt_cond, ~sentinel, patch_valid)\n"),
        "`patch_valid` is assigned in only some branches and may be None before the `if`", TypeError),
    "kornia_polygon_close": (
        ("        if not torch.allclose(polygon[..., -1, :], polygon[..., 0, :]):\n"
         "            polygon = torch.cat((polygon, polygon[..., :1, :]), dim=-2)\n",
         "        _trt_cond = torch.logical_not(torch.as_tensor(torch.allclose(polygon[..., -1, :], "
         "polygon[..., 0, :])))\n"
         "        polygon = torch.where(_trt_cond, torch.cat((polygon, polygon[..., :1, :]), dim=-2), polygon)\n"),
        "the condition is a Python value", RuntimeError),
}


@pytest.mark.parametrize("name", list(REPORTED))
def test_variant_reported_not_broken(name: str, tmp_path: Path) -> None:
    """Not right before: the rule rewrote these into code that raises on every input."""
    (old_if, old_rewrite), reason, error = REPORTED[name]
    path = HERE / f"{name}.py"
    source = path.read_text()
    options = Options(select=("TRT101",), unsafe=True, scope="all")
    assert fix_source(path.read_bytes(), str(path.resolve()), options).source.decode() == source
    [finding] = check_source(path.read_bytes(), str(path), options)
    assert reason in finding.message, finding.message

    # What the rule wrote before fails in eager mode, where the original runs.
    module = load_variant(path, f"trt101_{name}")
    assert old_if in source
    broken = _built(_rewritten(name, "import torch\n" + source.replace(old_if, old_rewrite), tmp_path))
    original = _built(module)
    broken.load_state_dict(original.state_dict())
    example = variant_inputs(module, None, 0)
    assert original(*example) is not None
    with pytest.raises(error):
        broken(*example)


# UniMatch's transformer layers (cited in each file): `is_self_attn` is a tensor test, and the branches hold
# `if attn_num_splits > 1:` on a Python int. name → (a fragment of the rewrite, the inputs' shape at another size)
NESTED = {
    # a mode chain around the tensor `if`; only its self branch holds the split test
    "unimatch_self_cross_attention": (
        "                message = torch.where(_trt_cond, _trt_then_message, row_attention(query, key, value, "
        "height, width))\n", (2, 8, 4, 10)),
    # both branches hold one (zoo 33's sm_unimatch); `attn_num_splits` without annotation, configuration
    # because the run passed a Python int at every call
    "stereo_matching_unimatch_layer": (
        "        if attn_num_splits > 1:\n"
        "            _trt_else_message = row_windows(query, key, value, width, attn_num_splits)\n"
        "        else:\n"
        "            _trt_else_message = rows(query, key, value, width)\n"
        "        message = torch.where(_trt_cond, _trt_then_message, _trt_else_message)\n", (2, 8, 6, 6)),
}


@pytest.mark.parametrize("name", list(NESTED))
def test_nested_variant_migrates(name: str, tmp_path: Path) -> None:
    """Not taken before ("a branch holds a compound statement"): the inner `if`s are kept, writing fresh
    locals, and `message` is selected. The cross-attention call takes the other branch where both features
    are one image (identical inputs), which the original's graph gets wrong."""
    fragment, other_shape = NESTED[name]
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt101_{name}")
    original = _built(module)
    example = variant_inputs(module, None, 0)
    resized = variant_inputs(module, [other_shape, other_shape], 1)
    sets = {"example": example, "identical": (example[0], example[0].clone()), "other-size": resized,
            "other-size-identical": (resized[0], resized[0].clone()),
            "zeros": tuple(torch.zeros_like(t) for t in example), "near": (example[0], example[0] + 1e-7)}

    before, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    source = path.read_text()
    if_line = source[:source.index(" if is_self_attn:\n")].count("\n") + 1
    assert any(Path(f).resolve() == path.resolve() and line == if_line for f, line, _ in traced), traced
    assert graph_matches(before, original, example)
    assert not graph_matches(before, original, sets["identical"])

    options = Options(select=("TRT101",), unsafe=True, facts=observed_facts(path, module, tmp_path, traced), scope="all")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    assert fragment in new_source, new_source
    assert " if is_self_attn:\n" not in new_source
    rewritten = _built(_rewritten(name, new_source, tmp_path))
    rewritten.load_state_dict(original.state_dict())

    after, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in sets.items():
        assert graph_matches(after, original, inputs, equal_nan=True), label

    # Eager mode: the same outputs and gradients, bit for bit (both inputs reach `message` either way).
    sets.update({"negatives": tuple(_negative(t) for t in example), "positives": tuple(_positive(t) for t in example)})
    for label, inputs in sets.items():
        assert_same_run(run_once(original, list(inputs)), run_once(rewritten, list(inputs)), context=label)
        graded = [t.clone().requires_grad_() for t in inputs]
        assert_same_run(run_once(original, graded), run_once(rewritten, graded), context=label)
    # inf/NaN: the same values; the branch not taken can send NaN back through torch.where (the stated cost).
    broken = tuple(_non_finite(t) for t in example)
    assert_same(original(*broken), rewritten(*broken))


def test_nested_branch_that_asserts_is_reported(tmp_path: Path) -> None:
    """UniMatch's swin-1d cross branch asserts its mask was passed, and the self-attention call passes None:
    running that branch there raises, so the rule names the check instead of rewriting."""
    path = HERE / "unimatch_swin1d_mask_assert.py"
    source = path.read_text()
    options = Options(select=("TRT101",), unsafe=True, scope="all")
    findings = [f for f in check_source(path.read_bytes(), str(path), options) if "is_self_attn" in f.message]
    assert len(findings) == 1
    assert ("not rewritten: a nested branch checks or raises (`assert shifted_window_attn_mask_1d is not None`)"
            in findings[0].message), findings[0].message
    assert "if is_self_attn:" in fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()

    # What computing both branches would do: the self-attention call fails the cross branch's check.
    old_if = source[source.index("        if is_self_attn:\n"):source.index("        return source + message\n")]
    both = ("        if attn_num_splits > 1:\n            _self = windows_2d(query, key, value, attn_num_splits)\n"
            "        else:\n            _self = attend(query, key, value)\n"
            "        if attn_num_splits > 1:\n            assert shifted_window_attn_mask_1d is not None\n"
            "            _cross = row_windows(query, key, value, width, attn_num_splits, shifted_window_attn_mask_1d)\n"
            "        else:\n            _cross = attend(query, key, value)\n"
            "        message = torch.where(torch.as_tensor(is_self_attn), _self, _cross)\n")
    module = load_variant(path, "trt101_unimatch_swin1d")
    broken = _built(_rewritten("unimatch_swin1d", source.replace(old_if, both), tmp_path))
    original = _built(module)
    broken.load_state_dict(original.state_dict())
    example = variant_inputs(module, None, 0)
    assert original(*example).shape == example[0].shape
    with pytest.raises(AssertionError):
        broken(*example)


def test_nested_variant_migrate_end_to_end(tmp_path: Path) -> None:
    """`migrate` (no --unsafe) on zoo 33's form: the `if is_self_attn:` bake is located, the nested rewrite is a
    candidate the verification keeps (both branches ran on the input sets: self and cross calls), exit 0."""
    import json

    from typer.testing import CliRunner

    from trtcodemod.cli import app

    path = tmp_path / "unimatch_layer.py"
    path.write_text((HERE / "stereo_matching_unimatch_layer.py").read_text()
                    + "\n\ndef example():\n    return inputs(torch.Generator().manual_seed(0))\n")
    dynamic = {"feature0": {"0": "batch", "2": "height"}, "feature1": {"0": "batch", "2": "height"}}
    result = CliRunner().invoke(app, ["migrate", str(path), "--model", "build", "--inputs", "example",
                                      "--dynamic-axes", json.dumps(dynamic), "--format", "json",
                                      "--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu"])
    [report] = json.loads(result.stdout)["models"]
    line = path.read_text().splitlines().index("        if is_self_attn:") + 1
    assert [(a["rule"], a["line"]) for a in report["applied"]] == [("TRT101", line)], report["applied"]
    assert report["applied"][0]["proof"].startswith("verified: the rewritten model is equivalent")
    assert "_trt_else_message = row_windows(" in report["diff"]
    assert report["remaining"] == [] and report["reverted"] == [] and result.exit_code == 0
