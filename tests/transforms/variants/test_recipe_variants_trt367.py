"""The zero-size-reshape recipe (TRT367) on real-code variants.

Each variant in ``tests/recipe_variants/trt367/`` is a small runnable model reduced from public code
(cited in its docstring) that views or reshapes a tensor to sizes read at run time, one of which is 0 at
some input sizes, in the form the original writes it: IGEV++'s group-wise volume (``view`` with the sizes
one by one; migrated in ``tests/transforms/test_zero_size_reshape.py``), GwcNet's (``view`` of one list),
FoundationStereo's cosine volume (``reshape`` of each input on its own; both are called on shifted
slices that are empty where the disparity passes the width), kornia's illumination ramps
(``.view(1, 1, height, 1)`` of a ramp over an image of no rows) and BART's cross-attention (the weights
viewed per head and back, over a memory of no tokens).

For each: the rule finds every call from the code alone and rewrites it; eager mode is unchanged bit for
bit (outputs, gradients, exceptions) on the example, other sizes, empty axes, zeros, negatives and
inf/NaN; the original's TorchScript export is refused by ONNX Runtime at a ``Reshape`` given a run-time 0
(and right where nothing is empty); the rewritten export equals eager mode (values, shape, dtype) on every
set. The stereo volumes are exported as their correlations at every disparity, returned one by one: the
volume's own write into ``volume[:, :, i, :, i:]``, empty where ``i`` passes the width, is the exporter's
``Reshape`` with no fix (TRT203 takes one indexed axis), which ``migrate`` names at its line after applying
TRT367 to GwcNet's view (as for IGEV++).
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from torch import nn
from support import migrate_json, rules_found
from variant_models import (assert_eager_unchanged, axes_json, built_variant, input_names, line_of, load_variant,
                            seeded, seeded_rand, seeded_specials)

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt367"
INF, NAN = float("inf"), float("nan")


class Shifted(nn.Module):
    """A stereo variant's correlation at each disparity below ``maxdisp``, returned one by one (no volume)."""

    def __init__(self, model: nn.Module, correlation, maxdisp: int) -> None:
        super().__init__()
        self.model, self.correlation, self.maxdisp = model, correlation, maxdisp

    def forward(self, x):
        left, right = self.model.features(x[:, :3]), self.model.features(x[:, 3:])
        outs = [self.correlation(left, right, self.model.groups)]
        for i in range(1, self.maxdisp):
            outs.append(self.correlation(left[:, :, :, i:], right[:, :, :, :-i], self.model.groups))
        return tuple(outs)


_STEREO_SETS = {
    "wider-than-the-range": (seeded_rand(1, 6, 3, 14),),
    "narrower": (seeded_rand(1, 6, 4, 5, seed=2),),
    "one-column": (seeded_rand(1, 6, 6, 1, seed=3),),
    "zeros": (torch.zeros(1, 6, 2, 9),),
    "negatives": (-seeded_rand(1, 6, 5, 11, seed=4, scale=3),),
    "inf-nan": (seeded_specials(1, 6, 5, 9, seed=5),),
}
#: variant -> (the calls the rule finds, one line each; the correlation to export one by one (stereo) or None;
#: input sets; the sets where some size is 0 at the reshape)
VARIANTS: dict[str, tuple[tuple[str, ...], str | None, dict[str, tuple[torch.Tensor, ...]], tuple[str, ...]]] = {
    "gwcnet_groupwise_list_view": (
        ("return (fea1 * fea2).view([B, num_groups, channels_per_group, H, W])",), "groupwise_correlation",
        _STEREO_SETS, ("example", "narrower", "one-column", "zeros", "negatives", "inf-nan")),
    "foundation_stereo_normalized_groups": (
        ("fea1 = fea1.reshape(B, num_groups, per_group, H, W)", "fea2 = fea2.reshape(B, num_groups, per_group, H, W)"),
        "groupwise_cosine", _STEREO_SETS, ("example", "narrower", "one-column", "zeros", "inf-nan")),  # 10 disparities
    "kornia_illumination_ramp_view": (
        ("ramp_h = torch.linspace(0, 1, height,", "ramp_h_rev = torch.linspace(1, 0, height,",
         "ramp_w = torch.linspace(0, 1, width,", "ramp_w_rev = torch.linspace(1, 0, width,"), None, {
            "larger": (seeded_rand(2, 3, 17, 9),),
            "no-rows": (torch.zeros(2, 3, 0, 6),),
            "no-columns": (seeded_rand(2, 3, 4, 0, seed=2),),
            "empty": (torch.zeros(2, 3, 0, 0),),
            "zeros": (torch.zeros(2, 3, 3, 3),),
            "negatives": (-seeded_rand(2, 3, 4, 7, seed=3),),
            "inf": (torch.tensor([INF, -INF, 0.5]).repeat(2, 3, 3, 2),),
        }, ("no-rows", "no-columns", "empty")),
    "bart_cross_attention_empty_memory": (
        ("return tensor.view(bsz, seq_len, self.num_heads, self.head_dim)",
         "attn_weights = attn_weights.view(bsz, self.num_heads, tgt_len, src_len)",
         "attn_weights = attn_weights.view(bsz * self.num_heads, tgt_len, src_len)",
         "attn_output = attn_output.view(bsz, self.num_heads, tgt_len, self.head_dim)",
         "return self.out_proj(attn_output.reshape(bsz, tgt_len, self.embed_dim))"), None, {
            "longer": (seeded_rand(1, 6, 8), seeded_rand(1, 9, 8, seed=2)),
            "empty-memory": (seeded_rand(1, 3, 8, seed=3), torch.zeros(1, 0, 8)),
            "one-target-empty-memory": (seeded_rand(1, 1, 8, seed=4), torch.zeros(1, 0, 8)),
            "no-targets": (torch.zeros(1, 0, 8), seeded_rand(1, 4, 8, seed=5)),
            "zeros": (torch.zeros(1, 2, 8), torch.zeros(1, 5, 8)),
            "negatives": (-seeded_rand(1, 4, 8, seed=6, scale=5), -seeded_rand(1, 3, 8, seed=7)),
            "inf-nan": (seeded_specials(1, 3, 8, seed=8), seeded_rand(1, 4, 8, seed=9)),
        }, ("empty-memory", "one-target-empty-memory", "no-targets")),
}


def _lines(name: str) -> list[int]:
    return [line_of(HERE / f"{name}.py", fragment) for fragment in VARIANTS[name][0]]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_every_call_from_the_code_and_rewrites_it(name: str) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT367",), scope="all"))
    assert sorted((f.rule, f.line) for f in findings) == [("TRT367", line) for line in sorted(_lines(name))], findings
    new_source = fix_source(path.read_bytes(), str(path.resolve()),
                            Options(select=("TRT367",), scope="all")).source.decode()
    assert new_source.count("_trt_reshape_sizes(") == len(_lines(name)) + 1, new_source
    assert rules_found(new_source, select=("TRT367",)) == []


def _export(model: nn.Module, example: tuple, dynamic: dict) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, buffer, dynamo=False, opset_version=17, input_names=list(dynamic),
                          dynamic_axes=dynamic)
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


@pytest.fixture(scope="module", params=list(VARIANTS))
def graphs(request, tmp_path_factory) -> dict:
    """A variant, its original and rewritten models, and the exports of both (shared by the tests)."""
    name = request.param
    folder = tmp_path_factory.mktemp(name)
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt367_o_{name}")
    new_path = folder / f"{name}_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()),
                                   Options(select=("TRT367",), scope="all")).source.decode())
    rewritten_module, rewritten = built_variant(new_path, f"trt367_r_{name}")
    rewritten.load_state_dict(original.state_dict())
    correlation = VARIANTS[name][1]
    if correlation is None:
        exported = (original, rewritten)
    else:
        exported = (Shifted(original, getattr(module, correlation), original.maxdisp),
                    Shifted(rewritten, getattr(rewritten_module, correlation), original.maxdisp))
    example = module.inputs(seeded(0))
    return {"name": name, "original": original, "rewritten": rewritten, "exported": exported,
            "before": _export(exported[0], example, module.DYNAMIC),
            "after": _export(exported[1], example, module.DYNAMIC),
            "sets": {"example": example, **VARIANTS[name][2]}, "names": list(module.DYNAMIC)}


def _outputs(model: nn.Module, inputs: tuple) -> list[np.ndarray]:
    with torch.no_grad():
        out = model(*inputs)
    return [t.numpy() for t in (out if isinstance(out, tuple) else (out,))]


def test_eager_mode_is_unchanged(graphs) -> None:
    assert_eager_unchanged(graphs["original"], graphs["rewritten"], graphs["sets"])


def test_the_originals_graph_is_refused_where_a_size_is_zero(graphs) -> None:
    empty = VARIANTS[graphs["name"]][3]
    for label, inputs in graphs["sets"].items():
        feed = dict(zip(graphs["names"], (t.numpy() for t in inputs)))
        if label in empty:
            with pytest.raises(Exception, match="Reshape"):
                graphs["before"].run(None, feed)
            continue
        for got, want in zip(graphs["before"].run(None, feed), _outputs(graphs["exported"][0], inputs)):
            assert got.shape == want.shape and np.allclose(got, want, atol=1e-5, equal_nan=True), label


def test_the_rewritten_graph_equals_eager_mode(graphs) -> None:
    for label, inputs in graphs["sets"].items():
        feed = dict(zip(graphs["names"], (t.numpy() for t in inputs)))
        got_all, want_all = graphs["after"].run(None, feed), _outputs(graphs["exported"][0], inputs)
        assert len(got_all) == len(want_all)
        for got, want in zip(got_all, want_all):
            assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape)
            assert np.allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True), label


def test_migrate_applies_the_rule_at_gwcnets_view_and_names_the_volume_write() -> None:
    path = HERE / "gwcnet_groupwise_list_view.py"
    module = load_variant(path, "trt367_m_gwcnet")
    report = migrate_json(path, axes_json(module))
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert applied == [("TRT367", line) for line in _lines("gwcnet_groupwise_list_view")], (applied,
                                                                                             report["remaining"])
    assert report["exit_code"] == 1
    write = line_of(path, "volume[:, :, i, :, i:] = ")
    failing = [(r["source"].rsplit(":", 1)[-1], r["rule"]) for r in report["remaining"]
               if r["kind"] == "unfaithful" and r["severity"] == "error"]
    assert failing == [(str(write), "TRT203")], report["remaining"]
