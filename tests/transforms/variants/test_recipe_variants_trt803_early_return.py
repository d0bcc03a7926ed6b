"""TRT803's early-return form (SuperPoint's keypoint cap), on real-code variants.

Each variant in ``tests/recipe_variants/trt803_early_return/`` is a small runnable model reduced from public
code (cited in its docstring): Magic Leap's SuperGlue release (``top_k_keypoints(keypoints, scores, k: int)``,
also in the ``superpoint_superglue`` package and early cvg/LightGlue; integer keypoints from ``nonzero``, the
cap read from a config dict), cvg/glue-factory's open SuperPoint (``select_top_k_keypoints`` with
``sorted=True``, the cap an attribute of a ``SimpleNamespace``) and Hugging Face transformers' SuperPoint
(annotated, with a docstring, the cap ``self.max_keypoints``). All write ``if k >= len(keypoints): return
keypoints, scores`` before ``scores, indices = torch.topk(scores, k, dim=0)`` and ``return keypoints[indices],
scores``: the TorchScript export keeps the branch the example took.

For each: the rule finds it from the code at the guard's line and rewrites the test and the top-k; eager mode
is unchanged (outputs and gradients) at 0, 1, 20, 32 (the cap), 33 and 60 keypoints with zeros, negatives and
inf scores; the rewritten model exported at 60 keypoints equals eager mode at 0, 1, 20, 32, 33 and 60 in ONNX
Runtime (distinct scores: the same rows; equal scores: the same values, rows in ONNX's index order, the rule's
stated assumption); and ``migrate`` takes the fix (verified equivalent) and ends with exit 0.

nunif's copy (the cap a constructor keyword over a ``None`` default, integer rows flipped and cast before it) is
taken the same way. LightGlue-ONNX decorates the function ``@torch.jit.script_if_tracing``: a trace compiles it
with TorchScript and the exporter keeps the ``if`` as an ONNX ``If``, so its original export already equals eager
mode at every size; TRT803 leaves it alone, and ``migrate`` finds nothing to fix there.
"""

from __future__ import annotations

import io
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from support import TESTS, migrate_json
from variant_models import assert_eager_unchanged, axes_json, built, line_of, load_variant, rewrite_variant

from trtcodemod.engine import Options, check_source, fix_source

HERE = TESTS / "recipe_variants" / "trt803_early_return"
OPTIONS = dict(select=("TRT803",), scope="all")

#: variant -> (the guard as written, the lines as rewritten).
VARIANTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "magicleap_superpoint_top_k": ("if k >= len(keypoints):", (
        "if not _trt_topk_guard(k, len(keypoints)):", "scores, indices = _trt_topk_guarded(scores, k, dim=0)")),
    "gluefactory_select_top_k": ("if k >= len(keypoints):", (
        "if not _trt_topk_guard(k, len(keypoints)):",
        "scores, indices = _trt_topk_guarded(scores, k, dim=0, sorted=True)")),
    "transformers_superpoint_top_k": ("if k >= len(keypoints):", (
        "if not _trt_topk_guard(k, len(keypoints)):", "scores, indices = _trt_topk_guarded(scores, k, dim=0)")),
    "nunif_superpoint_select": ("if k >= len(keypoints):", (
        "if not _trt_topk_guard(k, len(keypoints)):",
        "scores, indices = _trt_topk_guarded(scores, k, dim=0, sorted=True)")),
}
#: Variants TRT803 leaves alone: LightGlue-ONNX's ``@torch.jit.script_if_tracing`` cap, which a trace compiles with
#: TorchScript (the export keeps its ``if``: nothing to fix).
LEFT_ALONE = ("lightglue_onnx_script_if_tracing",)
SIZES = (0, 1, 20, 32, 33, 60)


def _sets(module: Any, n: int) -> dict[str, tuple[torch.Tensor, ...]]:
    keypoints, _ = module.inputs(torch.Generator().manual_seed(0))
    generator = torch.Generator().manual_seed(n)
    if keypoints.is_floating_point():
        points = torch.rand(n, 2, generator=generator) * 64
    else:
        points = torch.randint(0, 64, (n, 2), generator=generator)
    distinct = torch.randperm(n, generator=generator).float() - n / 2
    if n >= 3:
        distinct[0], distinct[1] = float("inf"), -float("inf")
    return {"distinct": (points, distinct), "zeros": (points, torch.zeros(n)),
            "negative-ties": (points, -(torch.arange(n) % 3).float())}


@pytest.fixture(scope="module")
def pairs(tmp_path_factory) -> dict[str, tuple[Any, torch.nn.Module, torch.nn.Module, str]]:
    out = {}
    for name in VARIANTS:
        path = HERE / f"{name}.py"
        module = load_variant(path, f"trt803e_{name}")
        text, rewritten = rewrite_variant(path, Options(unsafe=True, **OPTIONS), tmp_path_factory.mktemp(name),
                                          f"trt803e_rewritten_{name}")
        out[name] = (module, built(module), built(rewritten), text)
    return out


@pytest.mark.parametrize("name", list(VARIANTS))
def test_found_at_the_guard_and_rewritten(name: str, pairs) -> None:
    path = HERE / f"{name}.py"
    found = check_source(path.read_bytes(), str(path.resolve()), Options(**OPTIONS))
    assert [(f.rule, f.line) for f in found] == [("TRT803", line_of(path, VARIANTS[name][0]))], found
    text = pairs[name][3]
    for fragment in VARIANTS[name][1]:
        assert fragment in text, text
    assert "return keypoints[indices], scores" in text
    # an unsafe fix: without --unsafe the file stays as written
    assert fix_source(path.read_bytes(), str(path.resolve()), Options(**OPTIONS)).source == path.read_bytes()


@pytest.mark.parametrize("name", list(VARIANTS))
def test_eager_unchanged(name: str, pairs) -> None:
    module, original, rewritten, _ = pairs[name]
    for n in SIZES:
        assert_eager_unchanged(original, rewritten, {f"{label}-{n}": sets
                                                     for label, sets in _sets(module, n).items()})


def _export(model: torch.nn.Module, example: tuple) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, buffer, dynamo=False, opset_version=17,
                          input_names=["keypoints", "scores"],
                          dynamic_axes={"keypoints": {0: "n"}, "scores": {0: "n"}})
    graph = onnx.load_from_string(buffer.getvalue())
    return ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("name", list(VARIANTS))
def test_rewritten_export_equals_eager_at_every_size(name: str, pairs) -> None:
    module, original, rewritten, _ = pairs[name]
    session = _export(rewritten, _sets(module, 60)["distinct"])
    for n in SIZES:
        for label, (points, scores) in _sets(module, n).items():
            expected = [t.detach().numpy() for t in original(points, scores)]
            got = session.run(None, {"keypoints": points.numpy(), "scores": scores.numpy()})
            for e, g in zip(expected, got):
                assert g.shape == e.shape and g.dtype == e.dtype, (label, n)
            assert np.array_equal(got[1], expected[1]), (label, n)
            if label == "distinct" or n <= module.CAP:
                assert np.array_equal(got[0], expected[0]), (label, n)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_original_export_keeps_the_example_branch(name: str, pairs) -> None:
    """What the fix is for: the original exported at 20 keypoints returns all 60 of a larger input."""
    module, original, _, _ = pairs[name]
    session = _export(original, _sets(module, 20)["distinct"])
    points, scores = _sets(module, 60)["distinct"]
    got = session.run(None, {"keypoints": points.numpy(), "scores": scores.numpy()})
    assert got[1].shape == (60,) and original(points, scores)[1].shape == (module.CAP,)


@pytest.fixture(scope="module")
def migrated() -> dict[str, dict[str, Any]]:
    return {name: migrate_json(HERE / f"{name}.py", axes_json(load_variant(HERE / f"{name}.py", f"trt803e_m_{name}")))
            for name in VARIANTS}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate(name: str, migrated) -> None:
    report = migrated[name]
    path = HERE / f"{name}.py"
    assert report["before"]["faithful"] is not True, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"] if fix["rule"] == "TRT803"]
    assert applied == [("TRT803", line_of(path, VARIANTS[name][0]))], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]


def test_the_added_variants_cite_owners_of_their_own() -> None:
    """nunif and LightGlue-ONNX, each at a full commit, apart from each other and from the first three's sources
    (Magic Leap's SuperGlue release, cvg's glue-factory, the transformers package)."""
    from variant_models import assert_cited_by_distinct_owners

    added = ["nunif_superpoint_select", *LEFT_ALONE]
    assert_cited_by_distinct_owners(HERE, added, count=len(added))
    for name in added:
        [cited] = re.findall(r"\b([\w.-]+)/[\w.-]+ @ [0-9a-f]{40}", (HERE / f"{name}.py").read_text())
        assert cited not in ("magicleap", "cvg", "huggingface"), (name, cited)


@pytest.mark.parametrize("name", LEFT_ALONE)
def test_a_function_torchscript_compiles_is_left_alone(name: str) -> None:
    path = HERE / f"{name}.py"
    assert check_source(path.read_bytes(), str(path.resolve()), Options(**OPTIONS)) == []
    assert fix_source(path.read_bytes(), str(path.resolve()), Options(unsafe=True, **OPTIONS)).source \
        == path.read_bytes()
    # Why: its original export, traced at 20 or at 60 keypoints, already gives eager mode's rows at every size.
    module = load_variant(path, f"trt803e_left_{name}")
    model = built(module)
    for traced_at in (20, 60):
        session = _export(model, _sets(module, traced_at)["distinct"])
        for n in SIZES:
            for label, (points, scores) in _sets(module, n).items():
                expected = [t.detach().numpy() for t in model(points, scores)]
                got = session.run(None, {"keypoints": points.numpy(), "scores": scores.numpy()})
                assert [g.shape for g in got] == [e.shape for e in expected], (traced_at, label, n)
                assert np.array_equal(got[1], expected[1]), (traced_at, label, n)
                if label == "distinct" or n <= module.CAP:
                    assert np.array_equal(got[0], expected[0]), (traced_at, label, n)


@pytest.mark.parametrize("name", LEFT_ALONE)
def test_migrate_finds_nothing_to_fix_in_the_left_alone_variant(name: str) -> None:
    path = HERE / f"{name}.py"
    report = migrate_json(path, axes_json(load_variant(path, f"trt803e_m_left_{name}")))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is True, report["before"]
    assert [fix for fix in report["applied"] if fix["rule"] == "TRT803"] == [], report["applied"]
    assert report["exit_code"] == 0, report["remaining"]


@pytest.mark.parametrize("decorator", ["@torch.jit.script_if_tracing", "@torch.jit.script", "@jit.script_if_tracing",
                                       "@torch.jit.script()"])
def test_every_spelling_of_a_scripted_function_is_left_alone(decorator: str) -> None:
    code = ("import torch\nfrom torch import jit\n\n\n" + decorator + "\n"
            "def cap(keypoints: torch.Tensor, scores: torch.Tensor, k: int):\n"
            "    if k >= keypoints.shape[0]:\n        return keypoints, scores\n"
            "    scores, indices = torch.topk(scores, k, dim=0)\n    return keypoints[indices], scores\n")
    assert check_source(code.encode(), "cap.py", Options(**OPTIONS)) == []
    # The same function undecorated is taken.
    plain = code.replace(decorator + "\n", "")
    assert [f.rule for f in check_source(plain.encode(), "cap.py", Options(**OPTIONS))] == ["TRT803"]
