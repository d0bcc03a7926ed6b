"""TRT337's nearest-exact resizing and grouped-query SDPA on real-code variants.

Each variant in ``tests/recipe_variants/trt337/`` is a small runnable model reduced from a public
repository or pinned wheel (cited in its docstring), in the form the original writes it. Nearest-exact
resizing: Wan 2.1's video VAE and Qwen-Image's VAE in diffusers, each an ``nn.Upsample`` subclass built
with ``mode="nearest-exact"`` whose forward calls ``super().forward``, and NAF's feature upsampler
(``F.interpolate(features, size=output_size, mode="nearest-exact")``, the size taken from the image).
Grouped-query attention: torchtitan's SDPA wrapper (``enable_gqa=enable_gqa``, a parameter),
nanochat's SDPA fallback (``enable_gqa = q.size(1) != k.size(1)``) and transformers' SDPA integration
(``**sdpa_kwargs`` holding ``enable_gqa=True``). The TorchScript exporter refuses every one
(``aten::_upsample_nearest_exact2d``; "conversion of scaled_dot_product_attention not implemented if
enable_gqa is True").

``migrate`` applies TRT337 at each of them (and its unsafe ``rms_norm`` at nanochat's QK norm), and
ends with exit 0, the rewritten model equivalent, for all six. Each is also rewritten from the code
alone (safe fixes only, but NAF's ``F.interpolate``, an unsafe one: ``torch.jit.script`` cannot
compile the helper's call) and exported directly: the graph equals eager mode at other batch, image
and sequence sizes (bit for bit for the resizes' own values where the model is a resize), and eager
mode is unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant, load_variant,
                            seeded)
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt337"

#: variant -> (the lines TRT337 reports, as written; the text migrate writes; the unsafe fixes the code-alone
#: rewrite needs; the error the original's export stops with).
VARIANTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], bool, str]] = {
    "wan21_vae_resample_upsample": (
        ("Upsample(scale_factor=(2., 2.), mode='nearest-exact'),",), ("class Upsample(_TrtUpsample):",), False,
        "_upsample_nearest_exact2d"),
    "diffusers_qwenimage_vae_upsample": (
        ('QwenImageUpsample(scale_factor=(2.0, 2.0), mode="nearest-exact"),',),
        ("class QwenImageUpsample(_TrtUpsample):",), False,
        "_upsample_nearest_exact2d"),
    "naf_nearest_feature_upsampler": (
        ('features = F.interpolate(features, size=output_size, mode="nearest-exact")',),
        ('features = _trt_interpolate(features, size=output_size, mode="nearest-exact")',), True,
        "_upsample_nearest_exact2d"),
    "torchtitan_gqa_sdpa_wrapper": (
        ("out_BNLH = F.scaled_dot_product_attention(",), ("out_BNLH = _trt_sdpa(",), False, "enable_gqa"),
    "nanochat_sdpa_gqa_fallback": (
        ("return F.scaled_dot_product_attention(q, k, v, is_causal=window < 0, enable_gqa=enable_gqa)",
         "return F.rms_norm(x, (x.size(-1),))"),
        ("return _trt_sdpa(q, k, v, is_causal=window < 0, enable_gqa=enable_gqa)",
         "return _trt_rms_norm(x, (x.size(-1),))"), True, "enable_gqa"),
    "transformers_sdpa_attention_gqa_kwargs": (
        ("attn_output = torch.nn.functional.scaled_dot_product_attention(",), ("attn_output = _trt_sdpa(",), False,
        "enable_gqa"),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_applies_the_rule_and_ends_equivalent(name: str) -> None:
    lines_written, written, _, _ = VARIANTS[name]
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt337_m_{name}")
    lines = sorted(_line_of(path, text) for text in lines_written)
    found = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT337",), scope="all"))
    assert sorted(f.line for f in found) == lines  # from the code alone
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert sorted(line for rule, line in applied if rule == "TRT337") == lines, applied
    assert {rule for rule, _ in applied} == {"TRT337"}, applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    added = [line for line in report["diff"].splitlines() if line.startswith("+")]
    for text in written:
        assert any(text in line for line in added), report["diff"]


def _sizes(name: str) -> dict[str, tuple[torch.Tensor, ...]]:
    """Other inputs than the example: other batch, image and sequence sizes, and edge values."""
    g = seeded(3)
    if name in ("wan21_vae_resample_upsample", "diffusers_qwenimage_vae_upsample"):
        channels = 8 if name.startswith("wan") else 6
        edges = torch.randn(2, channels, 1, 4, 9, generator=g)
        edges[0, 0, 0, 0, 0], edges[1, 1, 0, 2, 3], edges[0, 2, 0, 3, 8] = -0.0, 1e30, -1e-30
        return {"bigger": (torch.randn(3, channels, 2, 9, 4, generator=g),), "edges": (edges,),
                "one-pixel": (torch.randn(1, channels, 1, 1, 1, generator=g),)}
    if name == "naf_nearest_feature_upsampler":
        return {"bigger": (torch.randn(2, 3, 33, 17, generator=g),), "exact-multiple": (torch.randn(1, 3, 8, 12),),
                "zeros": (torch.zeros(1, 3, 20, 20),)}
    width = {"torchtitan_gqa_sdpa_wrapper": 32, "nanochat_sdpa_gqa_fallback": 48}.get(name, 32)
    return {"longer": (torch.randn(3, 17, width, generator=g),), "one-token": (torch.randn(1, 1, width, generator=g),),
            "zeros": (torch.zeros(2, 5, width),)}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    _, written, unsafe, error = VARIANTS[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt337_{name}")
    example = module.inputs(seeded(0))
    with pytest.raises(AssertionError, match=error):
        export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    options = Options(select=("TRT337",), scope="all", unsafe=unsafe)
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    for text in written:
        assert text in new_source, new_source
    if unsafe and name == "naf_nearest_feature_upsampler":  # the only fix there is the unsafe one
        assert fix_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT337",), scope="all")) \
            .source == path.read_bytes()
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt337_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    session = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)[0]
    others = _sizes(name)
    for label, inputs in {"example": example, **others}.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **others})


def test_the_resize_alone_is_bit_for_bit_in_the_graph(tmp_path: Path) -> None:
    """NAF's upsampler without the backbone convolution: ONNX Runtime copies torch's nearest-exact pick of
    features exactly, -0.0, NaN and infinities included, at image sizes the example did not have."""
    path = HERE / "naf_nearest_feature_upsampler.py"
    options = Options(select=("TRT337",), scope="all", unsafe=True)
    new_path = tmp_path / "naf_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()), options).source.decode())
    after = load_variant(new_path, "trt337_naf_resize")
    before = load_variant(path, "trt337_naf_resize_before")

    class Resize(torch.nn.Module):
        def __init__(self, upsampler) -> None:
            super().__init__()
            self.upsampler = upsampler

        def forward(self, image, features):
            return self.upsampler(image, features, image.shape[-2:])

    example = (torch.randn(1, 3, 18, 22, generator=seeded(1)), torch.randn(1, 4, 4, 5, generator=seeded(2)))
    dynamic = {"image": {0: "batch", 2: "height", 3: "width"}, "features": {0: "batch", 2: "fh", 3: "fw"}}
    session = export_variant(Resize(after.Nearest()), example, dynamic, tmp_path / "resize.onnx", tmp_path)[0]
    features = torch.randn(2, 4, 5, 3, generator=seeded(3))
    features[0, 0, 0, 0], features[1, 2, 4, 2], features[0, 3, 2, 1] = -0.0, float("nan"), float("-inf")
    image = torch.zeros(2, 3, 13, 10)
    names = [i.name for i in session.get_inputs()]
    got = torch.from_numpy(session.run(None, dict(zip(names, (image.numpy(), features.numpy()))))[0])
    want = Resize(before.Nearest())(image, features)
    assert got.shape == want.shape
    same = ((got == want) & (got.signbit() == want.signbit())) | (got.isnan() & want.isnan())
    assert bool(same.all())
