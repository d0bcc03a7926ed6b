"""The conditional-pad-amount recipe (TRT331) on real-code variants.

Each variant in ``tests/recipe_variants/trt331/`` is a small runnable model reduced from a public
repository (cited in its docstring) whose reflection padding adds an extra zero pad, with its amount,
only under a length test: EnCodec's ``pad1d`` with its ``SConv1d`` (facebookresearch/encodec, plain
ints, ``math.ceil``), transformers' ``EncodecConv1d._pad1d`` (a ``staticmethod``, the sizes held as
0-d buffers, so the test compares with a tensor), AudioCraft's ``StreamableConv1d`` (causal: all
the padding on the left, a dilated second layer), SpeechTokenizer's SEANet residual block (a dilated
kernel-3 layer and a kernel-1 shortcut, ZhangXInFD/SpeechTokenizer) and WavTokenizer's ``SConv1d``
with a time GroupNorm and a stride-4 layer (jishengpeng/WavTokenizer). Traced at an example long enough to reflect, the
TorchScript graph keeps the branch without the extra pad: at a length the reflection cannot take,
ONNX Runtime fails where eager mode pads. The rule finds the ``if`` from the code alone; ``migrate``
applies TRT331 there (with TRT712's traced ``math.ceil``/``max`` where the sizes are Python ints) and
ends with exit 0, the rewritten model equivalent. Two variants are rewritten (``--unsafe``) and
exported directly: the graph equals eager mode at every short length and at others, on zeros,
negatives and infinities (an empty batch in eager mode only), and eager mode is unchanged. Not
reached: a 1-sample input, where the stride-2 layer's ``max`` of the paddings is baked too (pinned).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from support import migrate_json
from variant_models import assert_eager_unchanged, built_variant, export_variant, input_names, load_variant
from variant_models import line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt331"
INF = float("inf")
TEST = "if length <= max_pad:"
PRODUCT = "extra_pad = (max_pad - length + 1) * (length <= max_pad)"
VARIANTS = ["encodec_sconv1d_pad1d", "transformers_encodec_conv1d_pad1d", "audiocraft_streamable_conv1d_causal",
            "speechtokenizer_seanet_resnet_block", "wavtokenizer_sconv1d_group_norm"]


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _session(model, module, tmp_path: Path, name: str):
    example = module.inputs(_g(0))
    return export_variant(model, example, module.DYNAMIC, tmp_path / f"{name}.onnx", tmp_path)[0]


def _run(session, model, inputs: tuple) -> np.ndarray:
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    return got


def _short(module, length: int, seed: int) -> tuple[torch.Tensor, ...]:
    [example] = module.inputs(_g(seed))
    return (torch.randn(example.shape[0], example.shape[1], length, generator=_g(seed)),)


@pytest.mark.parametrize("name", VARIANTS)
def test_the_rule_finds_the_test_from_the_code_and_rewrites_it_with_unsafe(name: str) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT331",), scope="all"))
    assert [(f.rule, f.line) for f in findings] == [("TRT331", _line_of(path, TEST))]
    safe = fix_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT331",), scope="all"))
    assert PRODUCT not in safe.source.decode()  # an unsafe fix: not applied without --unsafe
    source = fix_source(path.read_bytes(), str(path.resolve()),
                        Options(select=("TRT331",), scope="all", unsafe=True)).source.decode()
    assert PRODUCT in source and TEST not in source, source


@pytest.mark.parametrize("name", VARIANTS)
def test_the_original_graph_keeps_the_examples_branch(name: str, tmp_path: Path) -> None:
    """Exported at the long example, the graph has no extra pad: a length the reflection cannot take
    fails in ONNX Runtime, where eager mode pads and runs."""
    module, model = built_variant(HERE / f"{name}.py", f"trt331_o_{name}")
    session = _session(model, module, tmp_path, "before")
    short = _short(module, 2, 1)
    assert model(*short).shape[-1] >= 1  # eager mode takes it
    with pytest.raises(Exception, match="Pad|pad"):
        _run(session, model, short)


@pytest.mark.parametrize("name", VARIANTS)
def test_migrate_applies_trt331_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt331_m_{name}")
    axes = {n: {str(a): label for a, label in dims.items()} for n, dims in module.DYNAMIC.items()}
    report = migrate_json(path, json.dumps(axes))
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert ("TRT331", _line_of(path, TEST)) in applied, applied
    assert {rule for rule, _ in applied} <= {"TRT331", "TRT712"}, applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    # the added line at the `if`'s own indentation (WavTokenizer's helper returns early, one level up)
    assert re.search(rf"^\+ +{re.escape(PRODUCT)}$", report["diff"], re.M), report["diff"]


def _with_inf(tensor: torch.Tensor) -> torch.Tensor:
    flat = tensor.clone().flatten()
    flat[:: max(1, flat.numel() // 4)] = INF
    flat[1] = -INF
    return flat.reshape(tensor.shape)


@pytest.mark.parametrize("name", VARIANTS[:2])
def test_rewritten_exports_and_equals_eager_at_short_and_other_lengths(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt331_d_{name}")
    source = fix_source(path.read_bytes(), str(path.resolve()),
                        Options(select=("TRT331", "TRT712"), scope="all", unsafe=True)).source.decode()
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(source)
    _, rewritten = built_variant(new_path, f"trt331_r_{name}")
    rewritten.load_state_dict(original.state_dict())
    session = _session(rewritten, module, tmp_path, "after")
    [example] = module.inputs(_g(0))
    sets = {f"length-{n}": _short(module, n, n) for n in (2, 3, 4, 5, 9, 57)}
    sets.update({
        "example": (example,),
        "larger-batch": (torch.randn(5, example.shape[1], 12, generator=_g(20)),),
        "zeros-short": (torch.zeros(1, example.shape[1], 2),),
        "negatives": (-torch.rand(2, example.shape[1], 3, generator=_g(21)) * 30,),
        "infinities": (_with_inf(torch.randn(1, example.shape[1], 11, generator=_g(22))),),
        "eager-empty-batch": (torch.zeros(0, example.shape[1], 3),),
    })
    for label, inputs in sets.items():
        if label.startswith("eager-"):
            continue
        with torch.no_grad():
            want = original(*inputs).numpy()
        got = _run(session, rewritten, inputs)
        assert got.shape == want.shape, (label, got.shape, want.shape)
        finite = np.abs(want[np.isfinite(want)])
        scale = max(1.0, float(finite.max()) if finite.size else 1.0)
        assert np.allclose(got, want, rtol=0, atol=1e-5 * scale, equal_nan=True), (label, got, want)
    assert_eager_unchanged(original, rewritten, sets)
    # Length 1 is not reached: at the stride-2 layer ``max(padding_left, padding_right)`` compares a
    # right padding that grows for a 1-sample input; the trace keeps the example's choice (TRT712's
    # case, fixed from an observed run, not from the code), so the reflection there still fails.
    with pytest.raises(Exception, match="Pad reflect"):
        _run(session, rewritten, _short(module, 1, 1))
    assert rewritten(*_short(module, 1, 1)).shape == original(*_short(module, 1, 1)).shape
