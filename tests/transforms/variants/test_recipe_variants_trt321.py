"""The histc recipe (TRT321) on real-code variants.

Each variant in ``tests/recipe_variants/trt321/`` is a small runnable model reduced from a public
repository (cited in its docstring) that calls ``torch.histc`` with a range in its forward, in the
form the original writes it: transformers' grouped-GEMM experts count the sorted expert ids
(``torch.histc(histc_input, bins=self.num_experts, min=0, max=self.num_experts - 1)``, then
offsets by a cumulative sum), Megatron-LM's all-gather dispatcher counts the tokens per local
expert with the range read from a list attribute (``min=self.local_expert_indices[0]``), torchvision's
``equalize`` counts each uint8 channel into 256 levels (``bins=256, min=0, max=255``) for its lookup
table, MONAI's vector quantizer counts the codes with ``max`` alone (``min`` left at 0) for the
perplexity, and segmentation_models_pytorch's multiclass statistics count matched, predicted and
target classes with three calls in a per-image loop. The TorchScript exporter refuses each original
(``aten::histc``). The rule finds every call from the code alone; ``migrate`` applies TRT321 at
those lines (torchvision's also TRT201 at its boolean mask) and ends with exit 0, the rewritten
model equivalent. Two variants are also rewritten and exported directly: the graph gives eager
mode's counts and outputs at other sizes and on edge values (zeros, negatives, a constant image,
every level used, an empty input), and eager mode is unchanged bit for bit.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant, input_names,
                            load_variant, seeded)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.verify.export import export_model

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt321"

#: variant -> (the calls as written, each with the text the rule writes for it)
VARIANTS: dict[str, tuple[tuple[str, str], ...]] = {
    "transformers_moe_grouped_tokens_per_expert": (
        ("tokens_per_expert = torch.histc(histc_input, bins=self.num_experts, min=0, max=self.num_experts - 1)",
         "tokens_per_expert = _trt_histc(histc_input, bins=self.num_experts, min=0, max=self.num_experts - 1)"),),
    "megatron_allgather_dispatch_tokens_per_expert": (
        ("tokens_per_expert = torch.histc(", "tokens_per_expert = _trt_histc("),),
    "torchvision_equalize_scale_channel": (
        ("hist = torch.histc(img_chan.to(torch.float32), bins=256, min=0, max=255)",
         "hist = _trt_histc(img_chan.to(torch.float32), bins=256, min=0, max=255)"),),
    "monai_vector_quantizer_perplexity": (
        ("torch.histc(encoding_indices.float(), bins=self.quantizer.num_embeddings, max=self.quantizer.num_embeddings)",
         "_trt_histc(encoding_indices.float(), bins=self.quantizer.num_embeddings, "
         "max=self.quantizer.num_embeddings)"),),
    "smp_multiclass_stats_histc": (
        ("tp = torch.histc(matched.float(), bins=num_classes, min=0, max=num_classes - 1)",
         "tp = _trt_histc(matched.float(), bins=num_classes, min=0, max=num_classes - 1)"),
        ("fp = torch.histc(output_i.float(), bins=num_classes, min=0, max=num_classes - 1) - tp",
         "fp = _trt_histc(output_i.float(), bins=num_classes, min=0, max=num_classes - 1) - tp"),
        ("fn = torch.histc(target_i.float(), bins=num_classes, min=0, max=num_classes - 1) - tp",
         "fn = _trt_histc(target_i.float(), bins=num_classes, min=0, max=num_classes - 1) - tp")),
}
#: variant -> the other fixes migrate applies (rule, text of the line)
ALSO = {"torchvision_equalize_scale_channel": (("TRT201", "nonzero_hist = hist[hist != 0]"),),
        # the expert offsets are summed as int32, which TensorRT's CumSum cannot take (TRT334's)
        "transformers_moe_grouped_tokens_per_expert": (("TRT334", "offsets = torch.cumsum(tokens_per_expert"),)}


def _lines(name: str) -> list[int]:
    return sorted(_line_of(HERE / f"{name}.py", call) for call, _ in VARIANTS[name])


def _rewritten_source(path: Path) -> str:
    return fix_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT321",), scope="all")).source.decode()


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_each_call_from_the_code_and_rewrites_it(name: str) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT321",), scope="all"))
    assert [(f.rule, f.line) for f in findings] == [("TRT321", line) for line in _lines(name)], findings
    new_source = _rewritten_source(path)
    for call, rewritten in VARIANTS[name]:
        assert rewritten in new_source, new_source
        assert not [line for line in new_source.splitlines() if call in line and "``" not in line], new_source
    code = [line for line in new_source.splitlines() if "histc(" in line and "``" not in line
            and "_trt_histc(" not in line and "def _trt_" not in line
            and not line.lstrip().startswith(("return torch.histc(", "#"))]
    assert not code, code  # only the inserted helper still calls torch.histc


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_original_does_not_export(name: str, tmp_path: Path) -> None:
    module, original = built_variant(HERE / f"{name}.py", f"trt321_o_{name}")
    result = export_model(original, module.inputs(seeded(0)), tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=None, dynamic_axes=module.DYNAMIC, opset=17)
    assert result.error is not None and "aten::histc" in result.error, result.error


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_applies_trt321_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt321_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False, report["before"]
    want = [("TRT321", line) for line in _lines(name)]
    want += [(rule, _line_of(path, text)) for rule, text in ALSO.get(name, ())]
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == sorted(want), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["exported"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert "_trt_histc(" in report["diff"], report["diff"]


def _image(shape: tuple[int, ...], seed: int, low: int = 0, high: int = 256) -> torch.Tensor:
    return torch.randint(low, high, shape, generator=seeded(seed), dtype=torch.uint8)


#: variant -> input sets at other sizes and edge values
DIRECT = {
    "transformers_moe_grouped_tokens_per_expert": {
        "more-tokens": (torch.randn(17, 6, generator=seeded(1)),),
        "one-token": (torch.randn(1, 6, generator=seeded(2)),),
        "zeros": (torch.zeros(4, 6),),
        "negatives": (-torch.rand(6, 6, generator=seeded(3)) * 5,),
        "large": (torch.randn(9, 6, generator=seeded(4)) * 1e3,),
        "no-tokens": (torch.zeros(0, 6),),
    },
    "torchvision_equalize_scale_channel": {
        "other-size": (_image((3, 5, 13), 5),),
        "every-level": (torch.arange(256, dtype=torch.uint8).repeat(3, 2, 1).reshape(3, 16, 32),),
        "zeros": (torch.zeros(3, 4, 4, dtype=torch.uint8),),  # one level: the step is 0, the image is kept
        "two-levels": (torch.where(torch.rand(3, 6, 6, generator=seeded(6)) > 0.5, 255, 3).to(torch.uint8),),
        "dark-and-bright": (torch.cat([_image((3, 4, 7), 7, 0, 8), _image((3, 4, 7), 8, 248, 256)], 1),),
        "no-rows": (torch.zeros(3, 0, 5, dtype=torch.uint8),),
    },
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt321_d_{name}")
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(_rewritten_source(path))
    _, rewritten = built_variant(new_path, f"trt321_r_{name}")
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = {"example": example, **DIRECT[name]}
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, sets)
