"""The size recipes on real-code variants: NumPy on sizes (TRT711), a tensor of sizes built by a
comprehension (TRT716), ``int``/``math.ceil``/``np.ceil``/``max`` of sizes handed down, ``round`` of sizes and
``min``/``max`` of a slice of them (piq's downsampling factor, which stopped the export: TRT712), a size rounded in
NumPy and cast (MiDaS's ``Resize``, whose ``astype`` stopped the export: TRT712, migrated end to end), a
window that shrinks to a smaller axis (TRT717's choice between numbers, with TRT712 after it).

Each variant is a small runnable model in ``tests/size_recipe_variants/`` reduced from a public
repository (cited in its docstring). For each one: the original is exported with the TorchScript
exporter and dynamic axes; its ``TracerWarning`` lines are the observed facts (what ``migrate``
records); the rule rewrites the file with those facts (``--unsafe``, as ``migrate`` tries a
verified candidate); then, at other sizes, the original's graph is wrong or fails while the
rewritten graph equals eager mode, and eager mode itself is unchanged, bit for bit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from support import TESTS, assert_same, migrate_json
from typer.testing import CliRunner
from variant_models import export_variant, graph_matches, load_variant, traced_facts, variant_inputs

from trtcodemod.cli import app
from trtcodemod.engine import Options, fix_source

HERE = TESTS / "size_recipe_variants"

# name → (rules, fragments of the rewritten code, input shapes of the other input sets)
VARIANTS: dict[str, tuple[str, str | tuple[str, ...], list[list[tuple[int, ...]]]]] = {
    # NumPy on sizes (TRT711)
    # One row and one column too: a head's 1x1 map (zoo 32's yolov4-sam-mish at 32x32, stride 32), where the
    # exporter's own `linspace(0, w - 1, w)` divides 0 by 0; the rewrite calls TRT368's helper there.
    "yolov4_grid": ("TRT711", (".repeat_interleave(output.size(2), 0)", "_trt_linspace(0, output.size(3) - 1"),
                    [[(1, 3, 4, 9)], [(1, 3, 8, 3)], [(1, 3, 1, 1)], [(1, 3, 5, 1)]]),
    "rpn_shifts": ("TRT711", "torch.meshgrid(shift_x, shift_y, indexing=\"xy\")", [[(1, 1, 3, 4)], [(1, 1, 6, 2)]]),
    "efficientdet_anchors": ("TRT711", "torch.arange(stride / 2, image_shape[1], stride, dtype=torch.float64)",
                             [[(1, 3, 8, 12)], [(1, 3, 20, 4)]]),
    "centerformer_batch_id": ("TRT711", "torch.stack(torch.meshgrid(torch.arange(batch), torch.arange(obj_num)",
                              [[(3, 1, 4, 5), (3, 5)], [(1, 1, 4, 5), (1, 2)]]),
    "retinanet_shift": ("TRT711", "(torch.arange(0, shape[1]).to(torch.float64) + 0.5) * self.stride",
                        [[(1, 3, 5, 2)], [(1, 3, 2, 6)]]),
    # ... in a helper that returns the array to a caller converting it: the helper and the conversion
    # rewritten together (online-face-detection's cached RetinaFace priors: tests/transforms/test_numpy_helper.py).
    "helper_yolox_grids": ("TRT711", ('xv, yv = torch.meshgrid(torch.arange(cols), torch.arange(rows), indexing="xy")',
                                      "grid = _grids(x.shape[2], x.shape[3]).float()"),
                           [[(1, 3, 32, 40)], [(1, 3, 20, 70)], [(1, 3, 100, 36)]]),
    # At size 1 too: `linspace(0, w - 1, w)` is TRT368's helper, whose graph divides by at least 1.
    "helper_yolov4_cells": ("TRT711", (".unsqueeze(0).repeat_interleave(h, 0)", "_trt_linspace(0, w - 1, w",
                                       "_columns(p.size(2), p.size(3)).to(device=p.device, dtype=torch.float32, "
                                       "copy=True)"),
                            [[(1, 2, 4, 9)], [(1, 2, 8, 3)], [(1, 2, 2, 2)], [(1, 2, 1, 1)]]),
    "helper_retinanet_shifts": ("TRT711", "_shifts(image.shape[2], image.shape[3], 8).to(torch.float32)",
                                [[(1, 3, 5, 2)], [(1, 3, 2, 6)], [(1, 3, 1, 1)]]),
    # Sizes above half a stride: `arange(stride / 2, h, stride)` is empty in NumPy below it, torch raises
    # (TRT711's assumption (1)).
    "helper_efficientdet_levels": ("TRT711", ("level = torch.cat(level, 1)", "    return torch.cat(levels, 0)"),
                                   [[(1, 3, 8, 12)], [(1, 3, 24, 8)], [(1, 3, 5, 9)]]),
    # A tensor of sizes from a comprehension (TRT716)
    "shapes_pairs_swapped": ("TRT716", "_trt_sizes_tensor([[s[1], s[0]] for s in shapes_list])",
                             [[(1, 3, 6, 4)], [(1, 3, 10, 16)]]),
    "bev_flatten_features": ("TRT716", "_trt_sizes_tensor([feat.shape[-2:] for feat in feats]",
                             [[(1, 3, 6, 4)], [(1, 3, 10, 16)]]),
    "srcs_pairs": ("TRT716", "_trt_sizes_tensor([[src.shape[2], src.shape[3]] for src in feats]",
                   [[(1, 3, 6, 4)], [(1, 3, 10, 16)]]),
    "tracker_list_shapes": ("TRT716", "_trt_sizes_tensor([list(src.shape[-2:]) for src in feats]",
                            [[(1, 3, 6, 4)], [(1, 3, 10, 16)]]),
    "encoder_size_pairs": ("TRT716", "_trt_sizes_tensor([(f.size(2), f.size(3)) for f in feats]",
                           [[(1, 3, 6, 4)], [(1, 3, 10, 16)]]),
    # ... over a list of sizes handed down by the caller (a parameter): sizes by the export's warning
    "offsets_handed_down": ("TRT716", "_trt_sizes_tensor(\n            [[shape[1], shape[0]] for shape in spatial_shapes_list]",
                            [[(1, 3, 6, 4)], [(1, 3, 10, 16)]]),
    "level_sizes_argument": ("TRT716", "_trt_sizes_tensor([(size[1] - 1, size[0] - 1) for size in level_sizes]",
                             [[(1, 3, 6, 4)], [(1, 3, 10, 16)]]),
    # int / ceil / floor / max of sizes (TRT712)
    "depth_anything_head": ("TRT712", "(_trt_size_int(patch_h * 2), _trt_size_int(patch_w * 2))",
                            [[(1, 3, 6, 12)], [(1, 3, 12, 4)]]),
    "swin_padded_mask": ("TRT712", "Hp = _trt_size_ceil(H / self.window_size) * self.window_size",
                         [[(1, 2, 9, 4)], [(1, 2, 4, 13)]]),
    "swin_window_reverse": ("TRT712", "B = _trt_size_int(windows.shape[0] / (H * W / window_size / window_size))",
                            [[(6, 2, 2, 3)], [(18, 2, 2, 3)]]),
    "adaptive_padding": ("TRT712", "output_h = _trt_size_ceil(input_h / stride_h)", [[(1, 2, 9, 4)], [(1, 2, 4, 10)]]),
    "interpolate_output_size": ("TRT712", "_trt_size_floor(input.size(i + 2) * scale_factors[i])",
                                [[(1, 2, 6, 3)], [(1, 2, 2, 10)]]),
    # The letterbox gain, a minimum of two float quotients of sizes (TRT712's float helpers): the
    # other sizes make the other quotient the smaller.
    "yolov5_scale_boxes": ("TRT712", "gain = _trt_size_min_float(img1_shape[0] / img0_shape[0], "
                                     "img1_shape[1] / img0_shape[1])", [[(1, 3, 32, 96)], [(1, 3, 96, 40)]]),
    # A window that shrinks to an axis no larger than it (TRT717's choice between numbers), then
    # `int(np.ceil(h / window_size[0])) * window_size[0]` of that window (TRT712). The other sizes
    # put an axis below the window, at a multiple of it, and one above one.
    "video_swin_window": ("TRT712,TRT717", ("use_window_size[i] = _trt_size_where(_trt_size_choice, x_size[i], "
                                            "use_window_size[i])", "Dp = _trt_size_ceil(D / window_size[0])"),
                          [[(1, 2, 2, 6, 3)], [(1, 2, 1, 3, 2)], [(1, 2, 3, 4, 10)]]),
    "monai_swin_layer": ("TRT712,TRT717", ("use_shift_size[i] = _trt_size_where(_trt_size_choice, 0, "
                                           "use_shift_size[i])", "hp = _trt_size_ceil(h / window_size[0])"),
                         [[(1, 3, 4, 8)], [(1, 3, 2, 3)], [(1, 3, 5, 12)]]),
    "towhee_video_swin": ("TRT712,TRT717", ("_trt_size_choice = x_size[i] <= window_size[i]",
                                            "wp = _trt_size_ceil(w / window_size[2])"),
                          [[(1, 2, 1, 3, 6)], [(1, 2, 3, 2, 2)], [(1, 2, 2, 4, 9)]]),
    "swift_4d_window": ("TRT712,TRT717", ("_trt_size_choice = x_size[i] <= window_size[i]",
                                          "tp = _trt_size_ceil(t / window_size[3])"),
                        [[(1, 2, 2, 2, 6, 2)], [(1, 2, 1, 1, 2, 1)], [(1, 2, 3, 5, 4, 3)]]),
    # `max` over a slice of the sizes: the sequence goes to the helper whole (no rank assumed).
    "pad_to_square": ("TRT712", "side = _trt_size_max_of(img.shape[-2:])", [[(1, 2, 9, 4)], [(1, 2, 6, 6)], [(1, 2, 3, 11)]]),
    "bevt_block_pad": ("TRT717", ("use_window_size[i] = _trt_size_where(_trt_size_choice, x_size[i], "
                                  "use_window_size[i])", "\n        x = x[:, :D, :H, :W, :].contiguous()"),
                       [[(1, 2, 6, 3, 2)], [(1, 1, 2, 2, 2)], [(1, 3, 4, 10, 2)]]),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    rule, fragment, others = VARIANTS[name]
    path = HERE / f"{name}.py"
    original_module = load_variant(path, f"variant_{name}")
    torch.manual_seed(0)
    original = original_module.build().eval()
    example = variant_inputs(original_module, None, 0)

    # Before: the export keeps the example's sizes (a TracerWarning says where) and is wrong elsewhere.
    before, traced = export_variant(original, example, original_module.DYNAMIC, tmp_path / "before.onnx", HERE)
    assert traced, "the export raised no TracerWarning: nothing is baked"
    assert graph_matches(before, original, example)
    sets = [variant_inputs(original_module, shapes, seed) for seed, shapes in enumerate(others, 1)]
    assert not all(graph_matches(before, original, inputs) for inputs in sets)

    # The rule with the observed facts (unsafe: migrate keeps it only verified).
    options = Options(select=tuple(rule.split(",")), unsafe=True, facts=traced_facts(path, traced), scope="all")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    for part in (fragment,) if isinstance(fragment, str) else fragment:
        assert part in new_source, new_source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    rewritten_module = load_variant(new_path, f"rewritten_{name}")
    torch.manual_seed(0)
    rewritten = rewritten_module.build().eval()
    rewritten.load_state_dict(original.state_dict())

    # Eager mode is unchanged, bit for bit; the rewritten graph follows every size.
    after, _ = export_variant(rewritten, example, original_module.DYNAMIC, tmp_path / "after.onnx", HERE)
    for inputs in [example, *sets]:
        with torch.no_grad():
            assert_same(original(*inputs), rewritten(*inputs))
        assert graph_matches(after, rewritten, inputs), (name, [t.shape for t in inputs])


#: Variants whose original the TorchScript exporter cannot export at all: `round` of a traced size
#: raises (a Tensor defines no `__round__`). name -> (rule, rewritten code, other input shapes).
EXPORT_FAILS: dict[str, tuple[str, str, list[list[tuple[int, ...]]]]] = {
    # piq's downsampling factor: 200 / 256 rounds to 1 at the example; 1.5 and 2.5 round to 2, 3.5 to 4.
    "piq_downsample": ("TRT712", "f = _trt_size_max(1, _trt_size_round(_trt_size_min_of(x.size()[-2:]) / 256))",
                       [[(1, 1, 384, 700)], [(1, 1, 900, 640)], [(1, 1, 896, 1000)], [(1, 1, 1, 5)]]),
    "rank_from_quality": ("TRT712", "rank = _trt_size_max(_trt_size_round(_trt_size_min_of(x.shape[-2:]) "
                                    "* self.quality / 100), 1)",
                          [[(1, 2, 5, 12)], [(1, 2, 20, 15)], [(1, 2, 1, 3)], [(1, 2, 30, 40)]]),
}


@pytest.mark.parametrize("name", list(EXPORT_FAILS))
def test_variant_that_did_not_export_exports(name: str, tmp_path: Path) -> None:
    """The original stops the export with a TypeError; the rule (no facts needed: the sizes are a
    tensor parameter's) rewrites the line; eager mode is unchanged bit for bit and the rewritten graph,
    traced at the example, equals eager mode at every other size."""
    rule, fragment, others = EXPORT_FAILS[name]
    path = HERE / f"{name}.py"
    original_module = load_variant(path, f"variant_{name}")
    original = original_module.build().eval()
    example = variant_inputs(original_module, None, 0)
    with pytest.raises(AssertionError, match="TypeError: type Tensor doesn't define __round__"):
        export_variant(original, example, original_module.DYNAMIC, tmp_path / "before.onnx", HERE)

    new_source = fix_source(path.read_bytes(), str(path.resolve()), Options(select=(rule,), unsafe=True, scope="all")).source.decode()
    assert fragment in new_source, new_source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    rewritten = load_variant(new_path, f"rewritten_{name}").build().eval()
    after, _ = export_variant(rewritten, example, original_module.DYNAMIC, tmp_path / "after.onnx", HERE)
    for inputs in [example, *(variant_inputs(original_module, shapes, seed) for seed, shapes in enumerate(others, 1))]:
        with torch.no_grad():
            assert_same(original(*inputs), rewritten(*inputs))
        assert graph_matches(after, rewritten, inputs), (name, [t.shape for t in inputs])


#: The variants whose NumPy code computes in float64 (NumPy's default) before a cast down: the
#: translation keeps float64, so its own code casts to float64, which TensorRT lacks.
FLOAT64_VARIANTS = ["efficientdet_anchors", "retinanet_shift"]


@pytest.mark.parametrize("name", FLOAT64_VARIANTS)
def test_float64_the_translation_keeps_is_fixed_as_a_follow_up(name: str, tmp_path: Path) -> None:
    """``migrate`` end to end: the graph check tags the float64 Cast in the code TRT711 wrote
    with TRT701, which is planned at that line as a follow-up and kept only verified."""
    path = tmp_path / f"{name}.py"
    path.write_bytes((HERE / f"{name}.py").read_bytes())
    module = load_variant(path, f"float64_{name}")
    dynamic = {name: {str(axis): label for axis, label in axes.items()} for name, axes in module.DYNAMIC.items()}
    result = CliRunner().invoke(app, ["migrate", str(path), "--model", "build", "--inputs", "inputs",
                                      "--dynamic-axes", json.dumps(dynamic), "--format", "json",
                                      "--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu"])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    [report] = json.loads(result.stdout)["models"]
    applied = {entry["rule"]: entry for entry in report["applied"]}
    assert set(applied) == {"TRT711", "TRT701"}, report["applied"]
    assert applied["TRT701"]["line"] == applied["TRT711"]["line"]
    assert "verified" in applied["TRT701"]["proof"]
    assert report["remaining"] == [] and result.exit_code == 0, report["remaining"]


def _migrate_hw(path: Path) -> tuple[dict, int]:
    """``migrate``'s JSON report of the model ``build`` in ``path``, input ``x`` dynamic in height and width (one
    timed run, the CPU backends), and its exit code."""
    report = migrate_json(path, json.dumps({"x": {"2": "h", "3": "w"}}))
    return report, report["exit_code"]


def test_a_bake_a_fix_uncovers_is_fixed_in_the_next_round(tmp_path: Path) -> None:
    """A tracker's letterbox gain (``tracker_scale_coords``): ``float(img_size[0])`` of a size warns and is
    rewritten first; only then is ``min(gain_w, gain_h)`` a comparison of traced values, which warns in the
    rewritten model's export. ``migrate`` takes that warning as a fact, analyses the file again and fixes
    the minimum in a later round. The example sits near the frame's aspect ratio, so that the verifier's third
    set (each axis one larger) flips the example's choice."""
    path = tmp_path / "tracker_scale_coords.py"
    path.write_bytes((HERE / "tracker_scale_coords.py").read_bytes())
    report, exit_code = _migrate_hw(path)
    source = path.read_text().splitlines()
    lines = [source.index("    gain_w = float(img_size[0]) / img0_shape[1]") + 1,
             source.index("    gain_h = float(img_size[1]) / img0_shape[0]") + 1,
             source.index("    gain = min(gain_w, gain_h)") + 1]
    assert sorted(entry["line"] for entry in report["applied"]) == lines, report["applied"]
    assert {entry["rule"] for entry in report["applied"]} == {"TRT712"}
    assert report["remaining"] == [] and exit_code == 0, report["remaining"]
    assert "_trt_size_min_float(gain_w, gain_h)" in report["diff"]


def test_a_grid_decoded_at_one_cell_migrates(tmp_path: Path) -> None:
    """``migrate`` end to end on the YOLOv4 grid (``yolov4_grid``) traced at a 2x2 map: the verifier's smaller
    set halves it to one row and one column, as zoo 32's yolov4-sam-mish stride-32 head is at 32x32. NumPy
    gives ``linspace(0, 0, 1) == [0.]``; a rewrite to ``torch.linspace`` exported a 0/0 there (NaN boxes), so
    the candidate went back unproved and the model exited 1. TRT368's helper in the rewrite keeps the graph
    right at one step: TRT711 is applied, verified, and nothing remains (TRT701 takes the float64 it keeps)."""
    path = tmp_path / "yolov4_grid.py"
    source = (HERE / "yolov4_grid.py").read_text()
    traced_at = "torch.randn(1, 3, 5, 7, generator=generator)"
    assert traced_at in source
    path.write_text(source.replace(traced_at, "torch.randn(1, 3, 2, 2, generator=generator)"))
    report, exit_code = _migrate_hw(path)
    # TRT701 follows up on the float64 the translation keeps (test_float64_the_translation_keeps_is_fixed_...).
    assert {entry["rule"] for entry in report["applied"]} == {"TRT711", "TRT701"}, (report["applied"],
                                                                                    report["reverted"])
    assert report["reverted"] == [] and report["remaining"] == [] and exit_code == 0, report["remaining"]
    assert "_trt_linspace(0, output.size(3) - 1, output.size(3)" in report["diff"]


def test_a_size_rounded_in_numpy_migrates(tmp_path: Path) -> None:
    """MiDaS's `Resize` (upper bound, multiples of 32): `(np.round(x / m) * m).astype(int)` of a size the caller
    scaled stops the export (a traced size is a tensor, which has no `astype`); `migrate` takes TRT712's NumPy form
    at that line from the run's facts and ends at exit 0, the graph following batch and size."""
    path = tmp_path / "midas_upper_bound_resize.py"
    path.write_bytes((HERE / "midas_upper_bound_resize.py").read_bytes())
    report = migrate_json(path, json.dumps({"x": {"0": "batch", "2": "height", "3": "width"}}))
    assert report["before"]["exported"] is False, report["before"]
    line = path.read_text().splitlines().index("        y = (np.round(x / self.multiple) * self.multiple).astype(int)")
    assert ("TRT712", line + 1) in [(fix["rule"], fix["line"]) for fix in report["applied"]], report["remaining"]
    assert report["exit_code"] == 0 and report["after"]["faithful"] is True, report["remaining"]
    assert "_trt_size_astype(_trt_size_np(np.round, x / self.multiple) * self.multiple, int)" in report["diff"]
