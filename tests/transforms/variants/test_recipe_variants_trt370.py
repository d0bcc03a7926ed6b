"""The promoted-operands recipe (TRT370) on real-code variants.

Each variant in ``tests/recipe_variants/trt370/`` is a small runnable model reduced from public code (cited in
its docstring) that multiplies an int64 range of positions by float32 frequencies with ``einsum`` in
``forward``, in the form the original writes it: timesformer-pytorch's frame rotary (``seq`` from
``torch.arange``, ``from torch import einsum``; migrated in ``tests/transforms/test_promoted_operands.py``),
x-transformers' scaled sinusoidal embedding (``arange`` itself imported from torch, plus an offset) and
stable-audio-tools' copy of it (positions under ``if pos is None``, starts subtracted under another test).

For each: the rule finds the call from the code alone and rewrites it; eager mode is unchanged (outputs,
gradients, exceptions) on the example, one token, many tokens, zeros, negatives, inf/NaN and an empty batch;
the original's TorchScript graph is refused by ONNX Runtime at load (an ``Einsum`` of int64 and float); the
rewritten graph equals eager mode (values, dtype, shape) on every set. ``migrate`` applies TRT370 at the
x-transformers line, verifies it and ends with exit 0.

Not counted: Meta's llama (``llama/model.py:101-102``), gpt-fast (``model.py:274-275``) and their ports write
``torch.outer(torch.arange(end), freqs)`` of an int64 range too (the form TRT370 takes for ``outer``), but
call it in ``__init__`` or a cache setup, so the export sees a constant of eager mode's values: no case where
the fix shows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from support import migrate_json, rules_found
from variant_models import (assert_eager_unchanged, axes_json, built_variant, export_variant, input_names, line_of,
                            load_variant, seeded, seeded_rand, seeded_specials)

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt370"


#: variant -> the line of the einsum the rule finds
VARIANTS = {
    "timesformer_frame_rotary": "freqs = einsum('i, j -> i j', seq, self.inv_freqs)",
    "x_transformers_scaled_sinusoidal": "emb = einsum('i, j -> i j', pos, self.inv_freq)",
    "stable_audio_scaled_sinusoidal": "emb = einsum('i, j -> i j', pos, self.inv_freq)",
}
SETS = {
    "one-token": (seeded_rand(2, 1, 8, seed=2),),
    "many-tokens": (seeded_rand(1, 257, 8, seed=3),),
    "zeros": (torch.zeros(3, 4, 8),),
    "negatives": (-seeded_rand(2, 5, 8, seed=5, scale=7),),
    "inf-nan": (seeded_specials(2, 6, 8, seed=6),),
    "no-batch": (torch.zeros(0, 5, 8),),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_the_call_from_the_code_and_rewrites_it(name: str) -> None:
    path = HERE / f"{name}.py"
    options = Options(select=("TRT370",), scope="all")
    findings = check_source(path.read_bytes(), str(path.resolve()), options)
    assert [(f.rule, f.line) for f in findings] == [("TRT370", line_of(path, VARIANTS[name]))], findings
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    assert "_trt_promoted_einsum('i, j -> i j', [" in new_source
    assert rules_found(new_source, select=("TRT370",)) == []


@pytest.fixture(scope="module", params=list(VARIANTS))
def graphs(request, tmp_path_factory) -> dict:
    name = request.param
    folder = tmp_path_factory.mktemp(name)
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt370_o_{name}")
    new_path = folder / f"{name}_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()),
                                   Options(select=("TRT370",), scope="all")).source.decode())
    _, rewritten = built_variant(new_path, f"trt370_r_{name}")
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    after, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    return {"name": name, "module": module, "path": path, "folder": folder, "original": original,
            "rewritten": rewritten, "after": after, "sets": {"example": example, **SETS}}


def test_eager_mode_is_unchanged(graphs) -> None:
    assert_eager_unchanged(graphs["original"], graphs["rewritten"], graphs["sets"])


def test_the_originals_graph_is_refused_at_load(graphs) -> None:
    example = graphs["sets"]["example"]
    with pytest.raises(Exception, match=r"Optype \(Einsum\) bound to different types \(tensor\(int64\)"):
        export_variant(graphs["original"], example, graphs["module"].DYNAMIC, graphs["folder"] / "before.onnx",
                       graphs["path"].parent)


def test_the_rewritten_graph_equals_eager_mode(graphs) -> None:
    session: ort.InferenceSession = graphs["after"]
    for label, inputs in graphs["sets"].items():
        if label == "no-batch" and graphs["name"] == "timesformer_frame_rotary":
            # The pairs' reshape exports as a Reshape to (0, n, -1, 2), which ONNX Runtime refuses for an empty
            # tensor before and after (not this recipe's: TRT367's).
            continue
        with torch.no_grad():
            want = graphs["original"](*inputs).numpy()
        [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(graphs["original"]), inputs)})
        assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape)
        assert np.allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True), label


def test_migrate_applies_trt370_where_the_einsum_is_refused() -> None:
    path = HERE / "x_transformers_scaled_sinusoidal.py"
    module = load_variant(path, "trt370_m_xtransformers")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["faithful"] is False, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert applied == [("TRT370", line_of(path, VARIANTS["x_transformers_scaled_sinusoidal"]))], applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
