"""The size-guarded pad, crop and resize (TRT717) on real-code variants.

Each variant in ``tests/recipe_variants/trt717/`` is a small runnable model reduced from a public
library or repository (cited in its docstring): a window or patch model that pads, crops or resizes
only when a size asks for it. The example's sizes are whole windows, so the TorchScript export with
dynamic axes keeps the "nothing to do" branch (a ``TracerWarning`` at the ``if``, the observed fact)
and is wrong or fails at other sizes. The rule (with TRT712 where the sizes come from ``math.ceil``
or ``max``) rewrites the file with those facts (``--unsafe``, as migrate tries a verified
candidate); the rewritten graph equals eager mode at every size, and eager mode is unchanged, bit for
bit, on random, zero, negative and inf/NaN inputs at sizes that take each branch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from support import TESTS, assert_same, migrate_json
from variant_models import export_variant, graph_matches, load_variant, traced_facts, variant_inputs

from trtcodemod.engine import Options, fix_source

HERE = TESTS / "recipe_variants" / "trt717"

# name → (rules, a fragment of the rewritten code, input shapes of the other input sets)
VARIANTS: dict[str, tuple[tuple[str, ...], str, list[list[tuple[int, ...]]]]] = {
    "monai_patch_embed": (
        ("TRT717",),
        "x = F.pad(x, (0, (self.patch_size[1] - w % self.patch_size[1]) * (w % self.patch_size[1] != 0)))",
        [[(1, 3, 10, 13)], [(1, 3, 12, 7)]]),
    "monai_swin_crop": (("TRT717",), "        x = x[:, :h, :w, :].contiguous()\n        return x",
                        [[(1, 10, 7, 6)], [(1, 5, 12, 6)]]),
    "timm_twins_crop": (("TRT717",), "        x = x[:, :H, :W, :].contiguous()\n        x = x.reshape(B, N, C)",
                        [[(1, 6, 10, 7)], [(1, 6, 5, 12)]]),
    "timm_mobilevit_resize": (
        ("TRT712", "TRT717"),
        '        x = F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=True)\n        x = self.conv(x)',
        [[(1, 4, 9, 6)], [(1, 4, 6, 11)]]),
    "kornia_window_partition": (("TRT717",), "x = F.pad(x, (0, 0, 0, (pad_w) * ((pad_h > 0) | (pad_w > 0)), 0, "
                                             "(pad_h) * ((pad_h > 0) | (pad_w > 0))))",
                                [[(1, 10, 6, 5)], [(1, 8, 13, 5)]]),
    "mmcv_adaptive_padding": (("TRT712", "TRT717"), "(pad_w // 2) * ((pad_h > 0) | (pad_w > 0))",
                              [[(1, 2, 9, 7)], [(1, 2, 6, 11)]]),
    # The amounts in a local bound just before the pad, the sizes handed down by the caller.
    "hf_swin_maybe_pad": (("TRT717",), "        pad_values = (0, (self.patch_size[1] - width % self.patch_size[1])"
                                       " * (width % self.patch_size[1] != 0))\n"
                                       "        pixel_values = nn.functional.pad(pixel_values, pad_values)",
                          [[(1, 3, 10, 13)], [(1, 3, 12, 7)]]),
    # The test held in a flag bound on the line before, read only by the `if`: the flag goes too.
    "hf_swinv2_was_padded": (("TRT717",), "        windows = self.mix(windows) + windows.mean(dim=(2, 4), keepdim=True)\n"
                                          "        attention_windows = windows.view(batch_size, height_pad, width_pad, "
                                          "channels)\n\n"
                                          "        attention_windows = attention_windows[:, :height, :width, :]"
                                          ".contiguous()\n\n",
                             [[(1, 10, 7, 6)], [(1, 5, 12, 6)]]),
    # A flag beside the resize records that it was done; the caller resizes back when it is set.
    "hf_mobilevit_unfolding": (("TRT717",), "        features = F.interpolate(features, size=(new_height, "
                                            "new_width), mode=\"bilinear\", align_corners=False)\n"
                                            "        interpolate = True\n",
                               [[(1, 4, 9, 6)], [(1, 4, 6, 11)]]),
    # A shortcut that returns the embedding as it is when the grid already matches, skipped while
    # tracing; with timm's antialiased resize behind it (TRT725).
    "timm_pos_embed_early_out": (("TRT717", "TRT725"),
                                 "    if not _trt_tracing() and (not is_exporting() and num_new_tokens == "
                                 "num_pos_tokens):\n",
                                 [[(1, 3, 20, 12)], [(1, 3, 8, 24)]]),
    "dinov2_pos_encoding_shortcut": (("TRT717",), "        if not _trt_tracing() and (npatch == N and w == h):\n"
                                                  "            return self.pos_embed\n",
                                     [[(1, 3, 16, 8)], [(1, 3, 20, 20)]]),
    # Super-resolution's crop back to the upscaled size after a pad to a multiple (Real-CUGAN's three
    # forms): under `if tile_mode == 0:`, a mode the caller passes as an int; written on the `if`'s own
    # line before a residual add of the upscaled input; in one class for every `self.scale`.
    "realcugan_tiled_x3_crop": (("TRT717",), "            x = self.run(x)\n            x = x[:, :, : h0 * 3, : w0 * 3]\n"
                                             "            if pro:\n", [[(1, 3, 9, 7)], [(2, 3, 10, 13)]]),
    "realcugan_tiled_x4_residual": (("TRT717",), "            x = x[:, :, :h0 * 4, :w0 * 4]\n"
                                                 "            x += F.interpolate(x00, scale_factor=4, mode=\"nearest\")\n",
                                    [[(1, 3, 9, 7)], [(2, 3, 10, 13)]]),
    "realcugan_unified_scale_crop": (("TRT717",), "        x = x[:, :, : h0 * self.scale, : w0 * self.scale]\n"
                                                  "        if self.scale == 4:\n", [[(1, 3, 9, 7)], [(2, 3, 10, 13)]]),
    # A size stepped up by a `while` until a scaled size divides by 16: the closed form while tracing.
    "ccvfi_resize_loop": (("TRT712", "TRT717"), "    rows = _trt_size_stepped(rows, 1, 16, flow_scale, 0)\n"
                                                "    cols = _trt_size_stepped(cols, 1, 16, flow_scale, 0)\n",
                          [[(1, 6, 40, 50)], [(1, 6, 33, 17)]]),
    # The same round up written `while True:` with the test that ends it and a `return`.
    "gradtts_fix_len": (("TRT717",), "    return _trt_size_stepped(length, 1, 2**halvings, 1.0, 0)\n",
                        [[(1, 4, 19)], [(1, 4, 13)]]),
    # A pad to a multiple written as filled tensors with the inputs in their top-left corner: the `if` is
    # taken every time while tracing, each padded size chosen by the test (the input's own where it is
    # false). Other sizes: a multiple (the test false where the example's was true, or the other way
    # round), one side only a multiple, and a batch of 2.
    "cascadepsp_safe_forward": (("TRT717",), "    _trt_size_choice = (rows % 8 != 0) | (cols % 8 != 0)\n"
                                             "    if _trt_size_taken(_trt_size_choice):\n"
                                             "        rows8 = _trt_size_where(_trt_size_choice, (rows // 8 + 1) * 8, "
                                             "rows)\n"
                                             "        cols8 = _trt_size_where(_trt_size_choice, (cols // 8 + 1) * 8, "
                                             "cols)\n"
                                             "        big_im = torch.zeros(n, 3, rows8, cols8, device=im.device)\n",
                                [[(1, 4, 32, 24)], [(2, 4, 16, 13)], [(1, 4, 9, 40)]]),
    "vitmatte_preprocess_pad": (("TRT717",), "        _trt_size_choice = (images.shape[-1] % 32 != 0) | "
                                             "(images.shape[-2] % 32 != 0)\n"
                                             "        if _trt_size_taken(_trt_size_choice):\n"
                                             "            new_H = _trt_size_where(_trt_size_choice, (32 - "
                                             "images.shape[-2] % 32) + H, H)\n",
                                [[(1, 4, 40, 50)], [(2, 4, 64, 70)], [(1, 4, 32, 32)]]),
    "diffmatte_two_inputs_pad": (("TRT717",), "            wide = _trt_size_where(_trt_size_choice, (32 - "
                                              "images.shape[-1] % 32) + W, W)\n"
                                              "            padded = torch.zeros((images.shape[0], "
                                              "images.shape[1], tall, wide)).to(self.device)\n",
                                 [[(1, 6, 64, 96)], [(2, 6, 33, 64)], [(1, 6, 32, 20)]]),
    # Two images padded by the same amounts under one test (a stereo pair): each pad done every time.
    "s2m2_stereo_pair_pad": (("TRT717",), '        left = F.pad(left, [0, (pad_w) * ((pad_h > 0) | (pad_w > 0)), '
                                          '0, (pad_h) * ((pad_h > 0) | (pad_w > 0))], mode="replicate")\n'
                                          '        right = F.pad(right, [0, (pad_w) * ((pad_h > 0) | (pad_w > 0)), '
                                          '0, (pad_h) * ((pad_h > 0) | (pad_w > 0))], mode="replicate")\n',
                             [[(1, 6, 13, 21)], [(1, 6, 16, 9)]]),
    # A pad to a fixed count with an early return where the rows already reach it (lucid_yolo's
    # `pad_detections` and `pad_anchor_indices`): the `if` goes, the amount is 0 where it returned early.
    # Other sizes: fewer candidates than the count pass, and more.
    "lucid_yolo_pad_to_max_det": (("TRT717",), "    pad_shape = list(rows.shape)\n"
                                               "    pad_shape[-2] = _trt_size_where(kept < max_det, max_det - kept, 0)\n",
                                  [[(5, 6)], [(30, 6)]]),
}

#: The super-resolution variants, run through ``migrate`` whole (its verdict, not only the rewrite).
UPSCALERS = ("realcugan_tiled_x3_crop", "realcugan_tiled_x4_residual", "realcugan_unified_scale_crop")


#: Where the original skips the crop, its tensor keeps the strides a zero pad of a transposed view
#: left, and the ``Linear`` after it sums in another order than on the rewrite's contiguous copy:
#: the same values up to float rounding, not bit for bit (the rule's documented cost).
ROUNDING = {"timm_twins_crop": 1e-6}


def _built(module) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.build().eval()


def _edge_sets(example: tuple, sets: list[tuple]) -> list[tuple]:
    """Zeros, negatives and inf/NaN at the example's size and at a size that takes the other branch."""
    out = []
    for base in (example[0], sets[0][0]):
        out += [(torch.zeros_like(base),), (-base.abs() - 1,),
                (torch.where(base > 1, torch.full_like(base, float("inf")),
                             torch.where(base < -1, torch.full_like(base, float("nan")), base)),)]
    return out


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    rules, fragment, others = VARIANTS[name]
    path = HERE / f"{name}.py"
    original_module = load_variant(path, f"trt717_{name}")
    original = _built(original_module)
    example = variant_inputs(original_module, None, 0)
    sets = [variant_inputs(original_module, shapes, seed) for seed, shapes in enumerate(others, 1)]

    # Before: the export keeps the example's branch (a TracerWarning at the `if`) and is wrong elsewhere.
    before, traced = export_variant(original, example, original_module.DYNAMIC, tmp_path / "before.onnx", HERE)
    assert traced, "the export raised no TracerWarning: nothing is baked"
    assert graph_matches(before, original, example)
    assert not all(graph_matches(before, original, inputs) for inputs in sets)

    # The rules with the observed facts (unsafe: migrate keeps them only verified).
    options = Options(select=rules, unsafe=True, facts=traced_facts(path, traced), scope="all")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    assert fragment in new_source, new_source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    rewritten_module = load_variant(new_path, f"trt717_rewritten_{name}")
    rewritten = _built(rewritten_module)
    rewritten.load_state_dict(original.state_dict())

    # Eager mode is unchanged, bit for bit; the rewritten graph follows every size.
    after, _ = export_variant(rewritten, example, original_module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    tolerance = ROUNDING.get(name, 0.0)
    for inputs in [example, *sets]:
        with torch.no_grad():
            assert_same(original(*inputs), rewritten(*inputs), atol=tolerance, rtol=tolerance)
        assert graph_matches(after, rewritten, inputs), (name, [t.shape for t in inputs])
    for inputs in _edge_sets(example, sets):
        with torch.no_grad():
            assert_same(original(*inputs), rewritten(*inputs), atol=tolerance, rtol=tolerance)


@pytest.mark.parametrize("name", UPSCALERS)
def test_upscaler_crop_back_migrates_to_exit_0(name: str) -> None:
    """``migrate`` crops every time and ends with exit 0. Where the crop sits under `if tile_mode == 0:`
    (a chain on a number the caller passes: configuration), the original's second trace differs first at
    the crop; the rewritten model's own second trace is the same graph (first contact: exit 1, "value
    baked in at line 34", an error, under a TRT101 finding on the chain). The one-line crop (bilibili's form) was TRT713's finding without a fix (exit 1)."""
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt717_m_{name}")
    axes = json.dumps({k: {str(a): label for a, label in v.items()} for k, v in module.DYNAMIC.items()})
    report = migrate_json(path, axes)
    guard = next(n for n, line in enumerate(path.read_text().splitlines(), 1)
                 if line.strip().startswith(("if w0 != pw", "if (w0 != pw")))
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT717", guard)]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True
    if name != "realcugan_unified_scale_crop":
        # `tile_mode` is a number at every recorded call: the chain on it is configuration, not a TRT101
        # finding (it was one, a warning, before TRT101 read the recorded parameters), and nothing is left.
        assert report["remaining"] == [], report["remaining"]
