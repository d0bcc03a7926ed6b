"""The scripted-submodule rule (TRT386) on real-code variants: ``torch.jit.script(Module(...))`` built in ``__init__``.

Each variant in ``tests/recipe_variants/trt386/`` is a small runnable model reduced from real code of a different
author (cited in its docstring): rl-games' observation and value ``RunningMeanStd`` normalisers (float64 statistics a
training-mode call updates, the value denormalised out of training), puffer-phc's ``RunningNorm`` observation and AMP
normalisers (an ``@torch.jit.ignore``d update), torchinfo's ``PartialJITModel`` (two scripted ``nn.Linear``s), Bandit's
convolutional time-frequency module in ZFTurbo's separation toolkit (a scripted ``nn.Sequential`` of the file's own
residual blocks, from a comprehension) and kraken's reading-order model (a scripted ``MLP`` as the module's network).
Each original fails the TorchScript exporter where forward calls the scripted module ("not part of the active
trace") and the dynamo exporter in ``torch.export``. Rewritten from the code alone (``--unsafe``; nothing without it),
eager outputs are the scripted module's bit for bit; input gradients agree within float32 rounding only (TorchScript's
autodiff sums Bandit's blocks in another order than eager autograd: part of the rule's unsafe assumption); the graph,
exported with dynamic axes, equals eager mode in ONNX Runtime at other sizes. ``migrate`` applies TRT386 at the construction of the module the failing line calls, verifies
the candidate and ends at exit 0 with a faithful graph.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from variant_models import (assert_cited_by_distinct_owners, assert_graph_within, assert_migrate_applies,
                            assert_unsafe_rewrite, export_variant, input_names, rewritten_variant, seeded)

from trtcodemod.verify.export import export_model

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt386"
VARIANTS = sorted(p.stem for p in HERE.glob("*.py"))

#: variant -> the constructions its scripted modules become from the code alone.
CODE_ALONE: dict[str, tuple[str, ...]] = {
    "rl_games_running_mean_std": ("self.value_mean_std = RunningMeanStd((value_size,))",
                                  "self.running_mean_std = RunningMeanStd(obs_shape)"),
    "puffer_phc_discriminator_norm": ("self.obs_norm = RunningNorm(self.input_size)",
                                      "self.amp_obs_norm = RunningNorm(amp_obs_size)"),
    "torchinfo_partial_jit": ("self.fc1 = nn.Linear(320, 50)", "self.fc2 = nn.Linear(50, 10)"),
    "bandit_conv_tf_module": ("self.seqband = nn.Sequential(\n",),
    "kraken_reading_order": ("self.ro_net = MLP(feature_dim, 16)",),
}
#: variant -> sizes (as its ``inputs`` takes them) other than the example's.
SIZES: dict[str, list[tuple[int, ...]]] = {
    "rl_games_running_mean_std": [(1,), (2,), (17,)],
    "puffer_phc_discriminator_norm": [(1,), (9,)],
    "torchinfo_partial_jit": [(1,), (5,)],
    "bandit_conv_tf_module": [(2, 3, 4), (1, 8, 11)],
    "kraken_reading_order": [(1,), (30,)],
}


def test_the_variants_are_the_five_cited() -> None:
    assert VARIANTS == sorted(CODE_ALONE) == sorted(SIZES)
    assert_cited_by_distinct_owners(HERE, VARIANTS)


def _assert_eager_close(original, rewritten, sets: dict) -> None:
    """Outputs bit for bit on every set; input gradients within float32 rounding: TorchScript's autodiff of the
    scripted module sums in another order than eager autograd (the rule's unsafe assumption, measured here)."""
    for label, inputs in sets.items():
        with torch.no_grad():
            want, got = original(*inputs), rewritten(*inputs)
        want, got = (want,) if torch.is_tensor(want) else want, (got,) if torch.is_tensor(got) else got
        for w, g in zip(want, got):
            assert w.dtype == g.dtype and w.shape == g.shape and torch.equal(w, g), label
        grads = []
        for model in (original, rewritten):
            leaves = [t.clone().requires_grad_() for t in inputs]
            out = model(*leaves)
            sum(o.float().sum() for o in ((out,) if torch.is_tensor(out) else out) if o.requires_grad).backward()
            grads.append([t.grad for t in leaves])
        for w, g in zip(*grads):
            if w is None or g is None:
                assert w is None and g is None, label
                continue
            torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-6, msg=label)


@pytest.mark.parametrize("name", VARIANTS)
def test_rewritten_from_the_code_alone_exports_and_keeps_eager(name: str, tmp_path: Path) -> None:
    variant = rewritten_variant(HERE / f"{name}.py", "TRT386", tmp_path)
    assert_unsafe_rewrite(variant, CODE_ALONE[name], "TRT386")
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    sets = {"example": module.inputs(seeded(0)),
            **{f"sizes {size}": module.inputs(seeded(sum(size) + 1), *size) for size in SIZES[name]}}
    _assert_eager_close(original, rewritten, sets)
    example = sets["example"]
    for exporter, opset in (("torchscript", 17), ("dynamo", 18)):
        before = export_model(original, example, tmp_path / f"before_{exporter}.onnx", exporter=exporter,
                              input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                              opset=opset)
        assert before.error is not None, exporter
        if exporter == "torchscript":
            assert "not part of the active trace" in before.error, before.error
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, 1e-5, label)


@pytest.mark.parametrize("name", VARIANTS)
def test_migrate_applies_the_rule_end_to_end(name: str) -> None:
    assert_migrate_applies(HERE / f"{name}.py", "TRT386", f"trt386_migrate_{name}")
