"""TRT203's slice fill (``_trt_slice_fill``) on real-code variants of Swin's shifted-window mask.

Each ``swin*``/``video_swin*`` variant in ``tests/recipe_variants/trt203/`` is a small runnable model reduced
from a public repository (cited in its docstring) that writes a region number into ``img_mask[:, h, w, :]``
(Video Swin: ``[:, d, h, w, :]``) for each pair of slices, one of them empty at the variant's size. Where
the sizes are constants (``np.ceil`` bakes them), the original's TorchScript export stops in shape inference
("minus_one_pos != -1 INTERNAL ASSERT FAILED"); the rewrite (safe: no ``--unsafe``) keeps each statement's
text with its base wrapped, exports with both exporters and equals eager mode at the crashing size and at
other batch sizes (SwinIR, whose sizes the trace follows, also at other spatial sizes); eager mode is
unchanged (values, input gradients). ``migrate`` ends at exit 0 on the detection backbone's variant.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safety import assert_same_run, run_once
from typer.testing import CliRunner
import variant_models as vm

from trtcodemod.cli import app
from trtcodemod.engine import Options
from trtcodemod.verify.export import export_model
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt203"

# name → (the rewritten statement, whether the original's TorchScript export stops, other input shapes)
VARIANTS: dict[str, tuple[str, bool, list[tuple[int, ...]]]] = {
    "swin_det_window_mask": ("_trt_slice_fill(img_mask)[:, h, w, :] = cnt", True, [(1, 6, 4, 4), (5, 6, 4, 4)]),
    "swin_seg_window_mask": ("_trt_slice_fill(img_mask)[:, h, w, :] = cnt", True, [(3, 3, 7, 4), (2, 3, 7, 4)]),
    "video_swin_window_mask": ("_trt_slice_fill(img_mask)[:, d, h, w, :] = cnt", True,
                               [(2, 3, 4, 4, 8), (4, 3, 4, 4, 8)]),
    "swinir_calculate_mask": ("_trt_slice_fill(img_mask)[:, h, w, :] = cnt", False,
                              [(1, 3, 8, 4), (3, 3, 8, 12), (1, 3, 12, 16)]),
}


def _built(module) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.build().eval()


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("trt203_fill")
    options = Options(select=("TRT203",), scope="all")  # a safe fix: no --unsafe
    return {name: vm.rewrite_variant(HERE / f"{name}.py", options, folder, f"trt203_fill_rewritten_{name}")
            for name in VARIANTS}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_rewrite_and_torchscript_export(name: str, rewritten: dict, tmp_path: Path) -> None:
    statement, stops, others = VARIANTS[name]
    module = vm.load_variant(HERE / f"{name}.py", f"trt203_fill_{name}")
    text, rewritten_module = rewritten[name]
    assert statement in text and text.count("_trt_slice_fill(img_mask)") == 1
    original, after = _built(module), _built(rewritten_module)
    example = vm.variant_inputs(module, None, 0)
    before = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=vm.input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert (before.error is not None and "minus_one_pos != -1" in before.error) == stops, before.error
    session, _ = vm.export_variant(after, example, module.DYNAMIC, tmp_path / "after.onnx", HERE)
    for shape in [tuple(example[0].shape), *others]:
        x = torch.randn(shape, generator=torch.Generator().manual_seed(len(shape)))
        for label, inputs in (("random", x), ("zeros", torch.zeros_like(x)), ("negatives", -x.abs())):
            vm.assert_graph_equals_eager(session, original, (inputs,), f"{name} {shape} {label}")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_dynamo_export(name: str, rewritten: dict, tmp_path: Path) -> None:
    module = vm.load_variant(HERE / f"{name}.py", f"trt203_fill_dynamo_{name}")
    _, rewritten_module = rewritten[name]
    example = vm.variant_inputs(module, None, 0)
    session = vm.export_variant_dynamo(_built(rewritten_module), example, module.DYNAMIC, tmp_path / "dynamo.onnx")
    original = _built(module)
    for shape in [tuple(example[0].shape), *VARIANTS[name][2]]:
        vm.assert_graph_equals_eager(session, original, (torch.randn(shape),), f"{name} {shape}")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_eager_unchanged(name: str, rewritten: dict) -> None:
    module = vm.load_variant(HERE / f"{name}.py", f"trt203_fill_eager_{name}")
    _, rewritten_module = rewritten[name]
    original, after = _built(module), _built(rewritten_module)
    (x,) = vm.variant_inputs(module, None, 0)
    odd = x.clone()
    odd.view(-1)[:3] = torch.tensor([float("inf"), -float("inf"), float("nan")])
    for label, inputs in (("random", x), ("zeros", torch.zeros_like(x)), ("negatives", -x.abs()), ("inf-nan", odd),
                          ("no-batch", x[:0])):
        assert_same_run(run_once(original, [inputs]), run_once(after, [inputs]), context=f"{name} {label}")
        graded = inputs.clone().requires_grad_()
        assert_same_run(run_once(original, [graded]), run_once(after, [graded]), context=f"{name} {label} grad")


#: The stage at a resolution fixed by its configuration (a 20-line reproduction of upstream issue #227):
#: nothing but the write stops the export, so only TRT203 can make it export.
STATIC = """\
import torch
from torch import nn


class FixedStage(nn.Module):
    def __init__(self, resolution: int = 4, window: int = 4) -> None:
        super().__init__()
        self.resolution, self.window, self.shift = resolution, window, window // 2
        self.mix = nn.Linear(3, 3)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        img_mask = torch.zeros((1, self.resolution, self.resolution, 1))
        parts = (slice(0, -self.window), slice(-self.window, -self.shift), slice(-self.shift, None))
        pairs = [(h, w) for h in parts for w in parts]
        for cnt, (h, w) in enumerate(pairs):
            img_mask[:, h, w, :] = cnt
        return self.mix(tokens) + img_mask.view(1, -1, 1)


def build():
    return FixedStage()


def inputs(generator):
    return (torch.randn(2, 16, 3, generator=generator),)
"""


@pytest.mark.parametrize("name", ["swin_det_window_mask", "static"])
def test_migrate_makes_the_window_mask_export(name: str, tmp_path: Path) -> None:
    """End to end: batch-only dynamic axes, the padded size equal to the window; before, the model does not
    export; migrate applies the slice fill (safe) and ends at exit 0 (the detection backbone's sizes are read from
    the input, and TRT712 makes the trace follow them as well; the fixed resolution has only TRT203's fix)."""
    path = HERE / f"{name}.py"
    if name == "static":
        path = tmp_path / "fixed_stage.py"
        path.write_text(STATIC)
    axes = '{"feats": {"0": "batch"}}' if name != "static" else '{"tokens": {"0": "batch"}}'
    result = CliRunner().invoke(app, ["migrate", str(path), "--model", "build", "--inputs", "inputs",
                                      "--dynamic-axes", axes, "--format", "json",
                                      "--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu"])
    [report] = json.loads(result.stdout)["models"]
    assert report["before"]["exported"] is False
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "img_mask[:, h, w, :] = cnt" in text)
    assert ("TRT203", line) in [(a["rule"], a["line"]) for a in report["applied"]]
    assert "safe fix" in next(a["proof"] for a in report["applied"] if a["rule"] == "TRT203")
    if name == "static":
        assert [a["rule"] for a in report["applied"]] == ["TRT203"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["equivalent"] is True and report["remaining"] == [] and result.exit_code == 0
    assert "img_mask[:, h, w, :] = cnt" in path.read_text()  # a dry run writes nothing
