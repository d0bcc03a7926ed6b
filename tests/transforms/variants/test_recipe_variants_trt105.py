"""The scripted-island recipe (TRT105) on real-code variants.

Each variant in ``tests/recipe_variants/trt105/`` is a small runnable model reduced from a public
repository (cited in its docstring) that calls a module-level ``@torch.jit.script`` function with a
loop or a branch from traced forward code, in the form the original writes it: effdet's
``_batch_detection`` (a loop over the batch appending to a typed list, then a stack),
transformers' DeBERTa-v2 ``build_rpos`` (an ``if``/``else`` on two sizes returning from both
branches), DeBERTa's ``uneven_size_corrected`` next to its own ``build_rpos`` (two scripted
branches in one attention, one gathering), NeMo's ``_se_pool_step_script_infer`` (a branch on a
size against an ``int`` argument, both arms assigning one name) and YOLACT's ``decode`` (a branch on
a ``bool`` argument, one arm writing the boxes in place, called per image). The rule finds each function and
each call of it from the code alone and, with ``--unsafe``, removes the decorator. The original's
TorchScript export keeps the control flow (ONNX ``If``, or ``Loop`` with ``Sequence*`` ops for
effdet's appends, which no TensorRT version parses); the rewritten model's has none, and its graph
equals eager mode at other sizes of its dynamic axes (tokens, time, priors) and on edge values (zeros,
negatives, infinities and NaN, a zero scale, padded and empty lengths), because the branches the
trace takes are the ones every input takes (equal query and key lengths in self-attention; both of
NeMo's arms compute the same; YOLACT's flag is a constant default) and effdet's trip count is the
batch, which a detection bench fixes.
Eager mode is unchanged bit for bit. YOLACT's flag is never passed, so the TorchScript exporter
folds its ``If`` away (the original graph has none, and is right): there the finding and the fix are
harmless but not needed, which the rule cannot tell from the code (a caveat on that variant); and
its input gradients, which TorchScript's autodiff sums in another order, agree within float32
rounding rather than bit for bit (the rule's unsafe assumption: the same computation as Python).
``migrate`` applies TRT105 to effdet's (whose Sequence ops TensorRT cannot parse), verifies it and
ends equivalent (exit 0); NeMo's ``If`` it leaves alone, as its graph is faithful and TensorRT
builds it.

asteroid-filterbanks' ``multishape_conv1d`` carries the library's own copy of ``script_if_tracing``
(scripted only while a trace runs): its scripted ``If`` gives rank 3 in one arm and 4 in the other,
which TensorRT refuses; ``migrate`` drops the decorator, the trace takes the single-channel arm every
input of the model takes, and it ends equivalent (DPRNN-TasNet in zoo 60).

Not counted here: ``torch.jit.script(fn)`` calls (kornia 0.9's canny hysteresis,
``torch.jit.script(_hysteresis_loop)``, a ``while`` until no edge changes), which the rule reports
without a fix, and ``script_if_tracing`` functions whose loops' trip counts are data (torchvision's
``_onnx_paste_masks_in_image_loop`` and ``_batched_nms_vanilla``): there the fix is offered, and
``migrate`` keeps it only if the traced graph is equivalent at every observed input set, which a
trip count baked from the example is not.
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, axes_json, built_variant, export_variant,
                            input_names, line_of, load_variant, seeded)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.verify.export import export_model

HERE = TESTS / "recipe_variants" / "trt105"
NAN, INF = float("nan"), float("inf")

#: variant -> (each scripted function, as its def line starts), (each call of one, as written)
VARIANTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "effdet_batch_detection": (("def _batch_detection(",), ("return _batch_detection(",)),
    "transformers_deberta_v2_build_rpos": (("def build_rpos(",), ("r_pos = build_rpos(",)),
    "transformers_deberta_uneven_size": (("def build_rpos(", "def uneven_size_corrected("),
                                         ("r_pos = build_rpos(", "p2c_att = uneven_size_corrected(")),
    "nemo_se_pool_infer": (("def _se_pool_step_script_infer(",), ("y = _se_pool_step_script_infer(",)),
    "yolact_decode": (("def decode(",), ("decoded_boxes = decode(",)),
    "asteroid_multishape_conv1d": (("def multishape_conv1d(",), ("return torch.relu(multishape_conv1d(",)),
}


def _expected_lines(name: str) -> list[int]:
    path = HERE / f"{name}.py"
    defs, calls = VARIANTS[name]
    return sorted([line_of(path, d) for d in defs] + [line_of(path, c) for c in calls])


def _options(unsafe: bool) -> Options:
    return Options(select=("TRT105",), unsafe=unsafe, scope="all")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_each_scripted_function_and_call_and_drops_the_decorator(name: str) -> None:
    path = HERE / f"{name}.py"
    text = path.read_text()
    findings = check_source(path.read_bytes(), str(path.resolve()), _options(False))
    assert sorted((f.rule, f.line) for f in findings) == [("TRT105", line) for line in _expected_lines(name)]
    assert fix_source(path.read_bytes(), str(path.resolve()), _options(False)).source.decode() == text
    new = fix_source(path.read_bytes(), str(path.resolve()), _options(True)).source.decode()
    lines = text.splitlines(keepends=True)
    dropped = {line_of(path, d) - 2 for d in VARIANTS[name][0]}  # 0-based decorator lines
    # torch's decorator, or the library's own copy of script_if_tracing (asteroid's)
    assert all(lines[i] in ("@torch.jit.script\n", "@script_if_tracing\n") for i in dropped), dropped
    assert new == "".join(line for i, line in enumerate(lines) if i not in dropped), new


def _tokens(seed: int, batch: int, tokens: int) -> tuple:
    return (torch.randn(batch, tokens, 8, generator=seeded(seed)),)


def _audio(seed: int, batch: int, time: int, lengths: list[int]) -> tuple:
    return torch.randn(batch, 8, time, generator=seeded(seed)), torch.tensor(lengths)


def _yolact(seed: int, count: int) -> tuple:
    module = load_variant(HERE / "yolact_decode.py", "trt105_yolact_inputs")
    return torch.randn(2, count, 8, generator=seeded(seed)), module.priors(seeded(seed + 100), count)


def _waveform(seed: int, batch: int, time: int) -> tuple:
    return (torch.randn(batch, 1, time, generator=seeded(seed)),)


def _image(seed: int) -> torch.Tensor:
    return torch.randn(2, 3, 8, 8, generator=seeded(seed))


_SIZE = torch.tensor([[32.0, 32.0], [24.0, 28.0]])
SETS: dict[str, dict[str, tuple]] = {
    "effdet_batch_detection": {
        "other-image": (_image(1), torch.tensor([0.5, 3.0]), _SIZE),
        "zeros": (torch.zeros(2, 3, 8, 8), torch.ones(2), torch.zeros(2, 2)),
        "negatives": (-_image(2).abs(), torch.tensor([1.0, 2.0]), _SIZE),
        "zero-scale": (_image(3), torch.zeros(2), _SIZE),
        # Saturated scores tie at 1.0, and ONNX Runtime orders ties otherwise than torch's sort: eager mode only.
        "eager-saturated": (1e4 * _image(4), torch.ones(2), _SIZE),
    },
    "transformers_deberta_v2_build_rpos": {
        "longer": _tokens(5, 3, 11), "one-token": _tokens(6, 2, 1), "zeros": (torch.zeros(1, 4, 8),),
        "negatives": (-_tokens(7, 2, 5)[0].abs(),), "inf-nan": (torch.tensor([INF, NAN, 1.0, -INF]).repeat(1, 3, 2),),
        "beyond-the-span": _tokens(8, 1, 20),
    },
    "transformers_deberta_uneven_size": {
        "longer": _tokens(9, 3, 12), "one-token": _tokens(10, 2, 1), "zeros": (torch.zeros(1, 4, 8),),
        "negatives": (-_tokens(11, 2, 5)[0].abs(),), "inf-nan": (torch.tensor([INF, NAN, 1.0, -INF]).repeat(1, 3, 2),),
    },
    "nemo_se_pool_infer": {
        "shorter-than-the-window": _audio(12, 2, 4, [4, 2]),
        "longer": _audio(13, 3, 17, [17, 9, 1]),
        "zeros": (torch.zeros(2, 8, 9), torch.tensor([9, 9])),
        "negatives": (-_audio(14, 2, 7, [7, 3])[0].abs(), torch.tensor([7, 3])),
        "inf-in-padding": (torch.tensor([1.0, -2.0, INF, NAN]).repeat(1, 8, 2), torch.tensor([2])),
        "no-valid-frames": (_audio(15, 1, 5, [0])[0], torch.tensor([0])),
        "no-frames": (torch.zeros(2, 8, 0), torch.tensor([0, 0])),
    },
    "asteroid_multishape_conv1d": {
        "longer": _waveform(20, 3, 37), "one-frame": _waveform(21, 1, 4), "zeros": (torch.zeros(2, 1, 12),),
        "negatives": (-_waveform(22, 2, 15)[0].abs(),),
        "inf-nan": (torch.tensor([INF, NAN, -INF, 1.0, 0.0, -2.0]).repeat(2, 1, 2),),
    },
    "yolact_decode": {
        "more-priors": _yolact(16, 37),
        "one-prior": _yolact(17, 1),
        "no-priors": (torch.zeros(2, 0, 8), torch.zeros(0, 4)),
        "zeros": (torch.zeros(2, 6, 8), torch.zeros(6, 4)),
        "negatives": (-_yolact(18, 5)[0].abs(), -_yolact(18, 5)[1]),
        "inf-nan": (torch.tensor([INF, NAN, -INF, 1.0]).repeat(2, 3, 2), _yolact(19, 3)[1]),
    },
}


def _ops(path: Path) -> set[str]:
    return {node.op_type for node in onnx.load(str(path)).graph.node}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_export_keeps_the_control_flow_and_the_rewrite_unrolls_it_faithfully(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt105_o_{name}")
    example = module.inputs(seeded(0))
    exported = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                            input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                            opset=17)
    assert exported.error is None, exported.error
    before = _ops(tmp_path / "before.onnx")
    if name == "yolact_decode":  # the flag is a constant default: the exporter folds the If away
        assert not before & {"If", "Loop"}, before
    else:
        assert before & {"If", "Loop"}, before
    if name == "effdet_batch_detection":
        assert {"Loop", "ConcatFromSequence"} <= before, before

    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()), _options(True)).source.decode())
    _, rewritten = built_variant(new_path, f"trt105_r_{name}")
    rewritten.load_state_dict(original.state_dict())
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    after = _ops(tmp_path / "after.onnx")
    assert not after & {"If", "Loop", "SequenceInsert", "SequenceEmpty", "ConcatFromSequence"}, (name, after)
    sets = {"example": example, **SETS[name]}
    for label, inputs in sets.items():
        if not label.startswith("eager-"):
            assert_graph_within(session, original, inputs, 1e-5, label)
    if name != "yolact_decode":
        assert_eager_unchanged(original, rewritten, sets)
        return
    # TorchScript's autodiff sums the gradient of YOLACT's in-place arm in another order than eager
    # autograd: outputs bit for bit, input gradients within a few float32 ulps.
    for label, inputs in sets.items():
        with torch.no_grad():
            torch.testing.assert_close(rewritten(*inputs), original(*inputs), rtol=0, atol=0, equal_nan=True)
    grads = []
    for model in (original, rewritten):
        features, priors = (t.clone().requires_grad_() for t in example)
        model(features, priors).sum().backward()
        grads.append((features.grad, priors.grad))
    for got, want in zip(grads[1], grads[0]):
        torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)


def test_migrate_applies_trt105_where_the_sequence_ops_are_and_ends_equivalent() -> None:
    name = "effdet_batch_detection"
    path = HERE / f"{name}.py"
    report = migrate_json(path, axes_json(load_variant(path, f"trt105_m_{name}")))
    assert report["applied"] and {fix["rule"] for fix in report["applied"]} == {"TRT105"}, report["applied"]
    assert {fix["line"] for fix in report["applied"]} <= set(_expected_lines(name)), report["applied"]
    assert all("verified" in fix.get("proof", "") for fix in report["applied"]), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert "-@torch.jit.script" in report["diff"], report["diff"]


def test_migrate_traces_a_library_copy_of_script_if_tracing_and_ends_equivalent() -> None:
    """asteroid's encoder: the scripted ``If`` whose arms differ in rank is a TensorRT error at the
    function's line; ``migrate`` drops the library's own ``@script_if_tracing`` there, proves the traced
    graph equivalent at other batch and time sizes, and ends at exit 0 (DPRNN-TasNet, zoo 60)."""
    name = "asteroid_multishape_conv1d"
    path = HERE / f"{name}.py"
    report = migrate_json(path, axes_json(load_variant(path, f"trt105_m_{name}")))
    assert report["before"]["trt_errors"] >= 1, report["before"]
    assert [fix["rule"] for fix in report["applied"]] == ["TRT105"], report["applied"]
    assert all("verified" in fix.get("proof", "") for fix in report["applied"]), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert "-@script_if_tracing" in report["diff"], report["diff"]


def test_migrate_leaves_a_scripted_branch_that_tensorrt_builds() -> None:
    """NeMo's branch exports as an ``If`` whose arms have one rank: faithful and no TensorRT error, so
    ``migrate`` has nothing to fix there and applies nothing (the rule's fix stays an option)."""
    name = "nemo_se_pool_infer"
    path = HERE / f"{name}.py"
    report = migrate_json(path, axes_json(load_variant(path, f"trt105_m_{name}")))
    assert report["before"]["faithful"] is True and report["before"]["trt_errors"] == 0, report["before"]
    assert report["applied"] == [] and report["exit_code"] == 0, report
