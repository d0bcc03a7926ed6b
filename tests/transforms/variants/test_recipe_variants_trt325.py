"""The unbatched-pool recipe (TRT325) on real-code variants.

Each variant in ``tests/recipe_variants/trt325/`` is a small runnable model reduced from public code
(cited in its docstring) that max-pools a score map with no channel axis, a 3-D ``(B, H, W)`` tensor
(``(1, H, W)`` for glue-factory's one buffer), for a non-maximum suppression: SuperGlue's
``simple_nms`` closure (Magic Leap), its ``nn.functional`` spelling in transformers, LightGlue's copy
called with a configuration attribute, DeDoDe's inline ``F.max_pool2d(scoremap, (3, 3), ...)`` before a
top-k, and glue-factory's ``max_pool2d(buffer.unsqueeze(0), ...).squeeze(0)``. The TorchScript exporter
writes each pooling as a MaxPool with 2-D attributes on a 3-D input: ONNX Runtime refuses the graph
at load and the graph check locates the node as TRT325's. The rule finds nothing from the code alone
(the rank is not written there); with the run's facts (the observer's, made as ``migrate`` makes them) it
finds the pooling call at its line and rewrites it; the rewritten model exports with 4-D MaxPools and no
Squeeze, its graph equals eager mode at other sizes and on zeros, negatives, inf/NaN and an empty batch
where those can occur, eager mode is unchanged bit for bit (outputs, gradients), and ``migrate`` applies
TRT325 and ends with exit 0, equivalent.

Not counted (the rule reports it without a fix, by design): kornia's DISK ``nms`` (kornia 0.9.0,
kornia/feature/disk/detector.py) pools a ``(B, H, W)`` heatmap with ``return_indices=True``, whose
Indices output TensorRT's MaxPool does not give.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from support import migrate_json, rules_found
from variant_models import (assert_eager_unchanged, assert_graph_within, axes_json, built_variant, export_variant,
                            input_names, line_of, load_variant, observed_facts, seeded)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.trt.check import check_graph
from trtcodemod.verify.export import export_model

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt325"
NAN, INF = float("nan"), float("inf")


def _images(shape: tuple[int, ...], seed: int, scale: float = 1.0) -> torch.Tensor:
    return torch.rand(shape, generator=seeded(seed)) * scale


def _buffer(h: int, w: int, seed: int) -> torch.Tensor:
    return torch.rand(h, w, generator=seeded(seed)) * (torch.rand(h, w, generator=seeded(seed + 1)) < 0.2)


def _specials(h: int, w: int) -> torch.Tensor:
    buffer = _buffer(h, w, 90)
    buffer[2, 3], buffer[5, 5], buffer[7, 1], buffer[0, 0] = INF, -INF, NAN, -0.0
    return buffer


class Variant(NamedTuple):
    fragment: str  # the pooling call's first line
    sets: dict[str, tuple[torch.Tensor, ...]]  # other sizes and edge values; "eager-": eager mode only


VARIANTS: dict[str, Variant] = {
    "magicleap_superglue_simple_nms": Variant("return torch.nn.functional.max_pool2d(", {
        "larger": (_images((2, 1, 64, 40), 1),),
        "zeros": (torch.zeros(1, 1, 32, 32),),
        "negatives": (-_images((3, 1, 24, 48), 2, 4.0),),
        # torch refuses to pool a (0, H, W) map (read as zero channels, unbatched): eager mode raises, both ways.
        "eager-empty-batch": (torch.zeros(0, 1, 16, 16),),
    }),
    "transformers_superpoint_pixel_scores": Variant("return nn.functional.max_pool2d(", {
        "larger": (_images((1, 1, 72, 32), 3),),
        "zeros": (torch.zeros(2, 1, 16, 24),),
        "negatives": (-_images((2, 1, 40, 40), 4, 3.0),),
        "eager-empty-batch": (torch.zeros(0, 1, 24, 24),),
    }),
    "lightglue_superpoint_extractor": Variant("return torch.nn.functional.max_pool2d(", {
        "larger": (_images((3, 1, 40, 80), 5),),
        "zeros": (torch.zeros(1, 1, 24, 16),),
        "negatives": (-_images((1, 1, 32, 32), 6, 2.0),),
        "eager-empty-batch": (torch.zeros(0, 1, 16, 32),),
    }),
    "dedode_sample_keypoints": Variant("scoremap = scoremap * (scoremap == F.max_pool2d(", {
        "larger": (torch.randn(3, 3, 40, 24, generator=seeded(7)),),
        # A flat map: every pixel is a maximum, and the top-k of equal scores picks indices ONNX Runtime and torch
        # order differently (the original's ties, not the pooling's): eager mode only.
        "eager-zeros": (torch.zeros(2, 3, 8, 8),),
        "negatives": (-_images((1, 3, 16, 20), 8, 5.0),),
        # An infinite logit makes the softmax NaN: NaN == NaN is False, so the NMS zeroes every pixel, and the top-k
        # of equal zeros is again a tie: eager mode only.
        "eager-inf-nan": (torch.full((1, 3, 8, 8), INF),),
        "eager-empty-batch": (torch.zeros(0, 3, 8, 8),),
    }),
    "gluefactory_sift_point_nms": Variant("local_max = torch.nn.functional.max_pool2d(", {
        "larger": (_buffer(48, 25, 9),),
        "zeros": (torch.zeros(10, 12),),
        "negatives": (-_buffer(20, 20, 11),),
        "inf-nan": (_specials(12, 9),),
        "one-row": (_buffer(1, 17, 13),),
    }),
}


@pytest.fixture(scope="module")
def facts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The observer's facts of every variant (one recorded run each, as ``migrate`` makes it)."""
    work = tmp_path_factory.mktemp("trt325_facts")
    return {name: observed_facts(HERE / f"{name}.py", load_variant(HERE / f"{name}.py", f"trt325_f_{name}"),
                                 work / name) for name in VARIANTS}


@pytest.fixture(scope="module")
def rewritten(facts, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    """Each variant's source as the rule rewrites it with the run's facts, its findings, and the rewritten model
    imported (same weights as the original)."""
    folder = tmp_path_factory.mktemp("trt325_rewritten")
    out = {}
    for name in VARIANTS:
        path = HERE / f"{name}.py"
        options = Options(select=("TRT325",), scope="all", facts=facts[name])
        findings = check_source(path.read_bytes(), str(path.resolve()), options)
        text = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
        new_path = folder / f"{name}_rewritten.py"
        new_path.write_text(text)
        module, original = built_variant(path, f"trt325_o_{name}")
        _, after = built_variant(new_path, f"trt325_r_{name}")
        after.load_state_dict(original.state_dict())
        out[name] = (findings, text, module, original, after)
    return out


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_needs_the_runs_facts_and_finds_the_pooling_with_them(name: str, rewritten) -> None:
    path = HERE / f"{name}.py"
    assert rules_found(path.read_text(), select=("TRT325",)) == []  # the code alone does not say the rank
    findings, text, *_ = rewritten[name]
    assert [(f.rule, f.line, f.fix.value) for f in findings] == \
        [("TRT325", line_of(path, VARIANTS[name].fragment), "safe")], findings
    assert "_trt_unbatched_max_pool2d(" in text and "def _trt_unbatched_max_pool2d(" in text
    assert not [line for line in text.splitlines() if "functional.max_pool2d(" in line and "def " not in line
                and "torch.nn.functional.max_pool2d(input" not in line and "``" not in line], text


@pytest.mark.parametrize("name", list(VARIANTS))
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_original_graph_is_refused_and_the_rewritten_one_equals_eager(name: str, rewritten,
                                                                           tmp_path: Path) -> None:
    _, _, module, original, after = rewritten[name]
    example = module.inputs(seeded(0))
    result = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17, user_roots=(str(HERE),))
    assert result.error is None, result.error
    before = onnx.load(str(tmp_path / "before.onnx"))
    issues = {(issue.op, issue.rule) for issue in check_graph(before)}
    # glue-factory's `.squeeze(0)` after the pooling is an If of TRT401's besides (migrate applies both rules)
    assert issues - {("If", "TRT401")} == {("MaxPool", "TRT325")}, issues
    with pytest.raises(Exception, match="dilations"):
        ort.InferenceSession(str(tmp_path / "before.onnx"), providers=["CPUExecutionProvider"])
    session, _ = export_variant(after, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    graph = onnx.load(str(tmp_path / "after.onnx"))
    assert {(issue.op, issue.rule) for issue in check_graph(graph)} <= {("If", "TRT401")}
    pools = [n for n in graph.graph.node if n.op_type == "MaxPool"]
    if name != "gluefactory_sift_point_nms":  # whose own `.squeeze(0)` is TRT401's
        assert not [n for n in graph.graph.node if n.op_type == "Squeeze"]
    assert pools and all(len(next(a.ints for a in n.attribute if a.name == "kernel_shape")) == 2 for n in pools)
    sets = {"example": example, **VARIANTS[name].sets}
    for label, inputs in sets.items():
        if not label.startswith("eager-"):
            assert_graph_within(session, original, inputs, 1e-6, label)
    assert_eager_unchanged(original, after, sets)


@pytest.fixture(scope="module")
def migrated() -> dict[str, dict]:
    return {name: migrate_json(HERE / f"{name}.py", axes_json(load_variant(HERE / f"{name}.py", f"trt325_m_{name}")))
            for name in VARIANTS}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_applies_trt325_and_ends_equivalent(name: str, migrated) -> None:
    report = migrated[name]
    path = HERE / f"{name}.py"
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"] if fix["rule"] == "TRT325"]
    assert applied == [("TRT325", line_of(path, VARIANTS[name].fragment))], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, json.dumps(report["remaining"])[:2000]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert "_trt_unbatched_max_pool2d(" in report["diff"]
