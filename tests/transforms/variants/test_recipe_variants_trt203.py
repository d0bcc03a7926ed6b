"""The slice-assignment recipe (TRT203) on real-code variants.

Each variant in ``tests/recipe_variants/trt203/`` is a small runnable model reduced from a public
repository (cited in its docstring) that writes into part of a tensor through slices and
indices: SAM's click rescaling and the SAM-style ``x[..., k] = x[..., k] * s`` that reads the
column it writes, box and patch clipping with ``.clamp`` / ``torch.clamp``, kornia's box
corners restored by min / max over index-list columns, and Hugging Face's ``shift_tokens_right``. The rules rewrite the file from the code alone (TRT203 with ``--unsafe``,
TRT722 where the tensor is deep-copied first); the original's TorchScript export holds ScatterND,
the rewritten one has none with either exporter and equals eager mode at other sizes and on edge
values (zeros, negatives, no rows, values past the clamp bounds, inf/NaN where they can occur);
eager mode is unchanged on those (values, dtype, shape, input gradients, exceptions), except the
result's strides (TRT203's stated assumption: ``torch.cat`` lays the result out contiguously).
One variant writes into its caller's tensor: TRT203 leaves it.
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
import torch
from safety import assert_same_run, run_once
from variant_models import (
    assert_graph_equals_eager,
    axes_json,
    export_variant,
    export_variant_dynamo,
    input_names,
    load_variant,
    rewrite_variant,
    variant_inputs,
)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.verify.export import export_model
from support import TESTS, migrate_json

HERE = TESTS / "recipe_variants" / "trt203"
RULES = ("TRT203", "TRT722")

# name → (fragments of the rewritten code, input shapes of two other input sets)
VARIANTS: dict[str, tuple[tuple[str, ...], list[list[tuple[int, ...]]]]] = {
    # A parameter rebound to its deep copy, then `x[..., k] = x[..., k] * s` (reads the column it writes).
    "sam_apply_coords": (("coords = _trt_deepcopy(deepcopy, coords).to(torch.float)",
                          "coords = torch.cat([torch.as_tensor(coords[..., 0] * (new_w / old_w), dtype=coords.dtype, "
                          "device=coords.device).expand_as(coords[..., 0]).unsqueeze(-1), coords[..., 1:]], dim=-1)"),
                         [[(1, 5, 2)], [(4, 1, 2)]]),
    # `(points - k).long()` then `.clamp(min=, max=)` of each column written back.
    "kornia_aliked_patches": (("corner = torch.cat([corner[:, :1], torch.as_tensor(corner[:, 1].clamp(min=0, "
                               "max=h - 1 - ps), dtype=corner.dtype, device=corner.device).expand_as(corner[:, 1])"
                               ".unsqueeze(1), corner[:, 2:]], dim=1)",),
                              [[(4, 9, 15), (7, 2)], [(4, 20, 6), (1, 2)]]),
    # Arithmetic on tensors (`a.unsqueeze(1) + b[None]`), then `torch.clamp(x[..., k], min=, max=)`.
    "kornia_sold2_candidates": (("line_segment_candidates = torch.cat([torch.as_tensor(torch.clamp("
                                 "line_segment_candidates[..., 0], min=0, max=H - 1), dtype=line_segment_candidates."
                                 "dtype, device=line_segment_candidates.device).expand_as(line_segment_candidates"
                                 "[..., 0]).unsqueeze(-1), line_segment_candidates[..., 1:]], dim=-1)",),
                                [[(9, 20), (5, 2, 2)], [(30, 7), (1, 2, 2)]]),
    # A clone, each column written with a min / max over columns picked by an index list.
    "kornia_bbox_restore": (("restored_boxes = torch.cat([restored_boxes[..., :3], torch.as_tensor(torch.max("
                             "transformed_boxes[..., [1, 3]], dim=-1)[0], dtype=restored_boxes.dtype, device="
                             "restored_boxes.device).expand_as(restored_boxes[..., 3]).unsqueeze(-1), "
                             "restored_boxes[..., 4:]], dim=-1)",),
                            [[(1, 3, 3), (1, 5, 4)], [(4, 3, 3), (4, 1, 4)]]),
    # `new_zeros`, a shifted slice, a column written with a number, then `masked_fill_`.
    "transformers_shift_tokens": (("shifted_input_ids = torch.cat([shifted_input_ids[:, :1], torch.as_tensor("
                                   "input_ids[:, :-1].clone(), dtype=shifted_input_ids.dtype, device="
                                   "shifted_input_ids.device).expand_as(shifted_input_ids[:, 1:])], dim=1)",
                                   "shifted_input_ids = torch.cat([torch.as_tensor(self.decoder_start_token_id, "
                                   "dtype=shifted_input_ids.dtype, device=shifted_input_ids.device).expand_as("
                                   "shifted_input_ids[:, 0]).unsqueeze(1), shifted_input_ids[:, 1:]], dim=1)"),
                                  [[(1, 9)], [(5, 2)]]),
    # A grid from a function of the file whose one return is a new tensor, its columns scaled in place by the map's
    # sizes before an `einsum` (DaD's sub-pixel offsets).
    "dad_subpixel_offsets": (("offsets = torch.cat([torch.as_tensor(offsets[..., 0] * nms_size / W, dtype=offsets."
                              "dtype, device=offsets.device).expand_as(offsets[..., 0]).unsqueeze(-1), "
                              "offsets[..., 1:]], dim=-1)",
                              "offsets = torch.cat([offsets[..., :1], torch.as_tensor(offsets[..., 1] * nms_size / H, "
                              "dtype=offsets.dtype, device=offsets.device).expand_as(offsets[..., 1]).unsqueeze(-1), "
                              "offsets[..., 2:]], dim=-1)"),
                             [[(1, 9, 14)], [(3, 16, 8)]]),
}

#: Variants whose original autograd refuses when the input requires grad, and at which stage:
#: SAM deep-copies a leaf that requires grad (a leaf again, written in place); SOLD2's clamp
#: needs the column its write then changes.
AUTOGRAD_REFUSES = {"sam_apply_coords": "forward", "kornia_sold2_candidates": "backward"}

#: Input sets run in eager mode only: the exported reshape of an empty batch (ONNX Reshape
#: without allowzero cannot; README's guidance table puts that graph repair out of scope).
EAGER_ONLY = {"kornia_bbox_restore": {"no-batch"},
              # DaD's grid divides by the batch size as a Python number: eager mode raises ZeroDivisionError
              "dad_subpixel_offsets": {"no-batch"}}

#: Variants TRT203 leaves as they are (the tensor written into is the caller's).
LEFT = ("ultralytics_clip_boxes",)


def _built(module) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.build().eval()




def _edge_sets(name: str, module) -> dict[str, tuple]:
    """Zeros, negatives, no rows, values past the clamp bounds, inf/NaN where the code can meet
    them (the patch corners go through `.long()`, which has no value for inf/NaN)."""
    first, *rest = variant_inputs(module, None, 0)
    if name == "sam_apply_coords":
        odd = first.clone()
        odd.view(-1)[[0, 3, 4]] = torch.tensor([float("inf"), float("nan"), -float("inf")])
        return {"zeros": (torch.zeros_like(first),), "negatives": (-first,), "no-clicks": (first[:, :0],),
                "no-batch": (first[:0],), "inf-nan": (odd,)}
    if name == "kornia_aliked_patches":
        points = rest[0]
        return {"zeros": (first, torch.zeros_like(points)), "negatives": (first, -points.abs() - 3),
                "past-the-end": (first, points + 40), "no-points": (first, points[:0])}
    if name == "kornia_sold2_candidates":
        segments = rest[0]
        odd = segments.clone()
        odd.view(-1)[[0, 5]] = torch.tensor([float("inf"), -float("inf")])
        return {"zeros": (first, torch.zeros_like(segments)), "negatives": (first, -segments.abs() - 1),
                "past-the-end": (first, segments + 30), "no-segments": (first, segments[:0]), "inf": (first, odd)}
    if name == "kornia_bbox_restore":
        boxes = rest[0]
        # no inf/NaN: the matrix product turns an inf into NaN, and a min over a pair holding NaN is
        # NaN in torch, not in the exported min (the original's graph too: not the write's problem)
        return {"zeros": (first, torch.zeros_like(boxes)), "negatives": (first, -boxes),
                "large": (first, boxes * 1e6), "no-boxes": (first, boxes[:, :0]), "no-batch": (first[:0], boxes[:0])}
    if name == "dad_subpixel_offsets":
        # no zeros, no inf/NaN, no scale that underflows the softmax: a tie in the top-k picks by the backend's own order
        peaked = first.clone()
        peaked[:, 3, 4] = 50.0
        # (a map of one row is left out: the graph's one-step linspace is NaN there, TRT368's problem, not the write's)
        return {"negatives": (-first.abs(),), "scaled": (first * 5,), "peaked": (peaked,), "no-batch": (first[:0],)}
    assert name == "transformers_shift_tokens"
    return {"all-ignored": (torch.full_like(first, -100),), "one-token": (first[:, :1],),
            "no-batch": (first[:0],), "negatives": (-first,)}


def _scatters(path: Path) -> int:
    return sum(node.op_type in ("ScatterND", "ScatterElements") for node in onnx.load(path).graph.node)


def _original_scatters(model: torch.nn.Module, example: tuple, dynamic: dict, path: Path) -> int:
    """The scatters of the original's TorchScript export (not loaded: SAM's deep copy makes a
    graph ONNX Runtime refuses to load, TRT722's problem)."""
    result = export_model(model, example, path, exporter="torchscript", input_names=input_names(model),
                          output_names=["out"], dynamic_axes=dynamic, opset=17)
    assert result.error is None, result.error
    return _scatters(path)


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("trt203")
    options = Options(select=RULES, unsafe=True, scope="all")
    return {name: rewrite_variant(HERE / f"{name}.py", options, folder, f"trt203_rewritten_{name}")
            for name in VARIANTS}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_rewrite_and_export(name: str, rewritten: dict, tmp_path: Path) -> None:
    fragments, others = VARIANTS[name]
    module = load_variant(HERE / f"{name}.py", f"trt203_{name}")
    text, rewritten_module = rewritten[name]
    for fragment in fragments:
        assert fragment in text, text
    original, after = _built(module), _built(rewritten_module)
    example = variant_inputs(module, None, 0)

    assert _original_scatters(original, example, module.DYNAMIC, tmp_path / "before.onnx"), name

    session, _ = export_variant(after, example, module.DYNAMIC, tmp_path / "after.onnx", HERE)
    assert not _scatters(tmp_path / "after.onnx")
    sets = {f"size{seed}": variant_inputs(module, shapes, seed) for seed, shapes in enumerate(others, 1)}
    sets.update(_edge_sets(name, module))
    for label, inputs in sets.items():
        if label not in EAGER_ONLY.get(name, ()):
            assert_graph_equals_eager(session, original, inputs, label)


#: Variants that torch.export refuses as written and as rewritten alike (DaD's grid: `1 / n` of a traced size made a
#: Python float for `torch.linspace` specializes every size): the dynamo exporter stops before the writes matter.
DYNAMO_REFUSES = ("dad_subpixel_offsets",)


@pytest.mark.parametrize("name", [n for n in VARIANTS if n not in DYNAMO_REFUSES])
def test_variant_dynamo_export(name: str, rewritten: dict, tmp_path: Path) -> None:
    module = load_variant(HERE / f"{name}.py", f"trt203_dynamo_{name}")
    _, rewritten_module = rewritten[name]
    path = tmp_path / "dynamo.onnx"
    session = export_variant_dynamo(_built(rewritten_module), variant_inputs(module, None, 0), module.DYNAMIC, path)
    assert not _scatters(path)
    original = _built(module)
    for seed, shapes in enumerate(VARIANTS[name][1], 1):
        assert_graph_equals_eager(session, original, variant_inputs(module, shapes, seed), str(shapes))


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_eager_unchanged(name: str, rewritten: dict) -> None:
    module = load_variant(HERE / f"{name}.py", f"trt203_eager_{name}")
    _, rewritten_module = rewritten[name]
    # TRT203's assumption: the result is laid out as torch.cat lays it out (contiguous).
    original, after = _contiguous(_built(module)), _contiguous(_built(rewritten_module))
    sets = {"random": variant_inputs(module, None, 0), **_edge_sets(name, module)}
    if name == "transformers_shift_tokens":
        sets["no-tokens"] = (sets["random"][0][:, :0],)  # both raise IndexError at column 0
    for label, inputs in sets.items():
        assert_same_run(run_once(original, list(inputs)), run_once(after, list(inputs)), context=label)
        graded = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
        before_run, after_run = run_once(original, graded), run_once(after, graded)
        if name in AUTOGRAD_REFUSES:
            # TRT203's stated assumption: autograd does not refuse the original's in-place write.
            stage = AUTOGRAD_REFUSES[name]
            assert (before_run.error if stage == "forward" else before_run.backward_error) is RuntimeError, label
            assert after_run.error is None and after_run.backward_error is None, label
            continue
        assert_same_run(before_run, after_run, context=label)


def _contiguous(model: torch.nn.Module):
    def run(*inputs):
        out = model(*inputs)
        return out.clone(memory_format=torch.contiguous_format)
    return run


@pytest.mark.parametrize("name", LEFT)
def test_callers_tensor_left_as_is(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    source = path.read_bytes()
    options = Options(select=("TRT203",), unsafe=True, scope="all")
    assert not check_source(source, str(path.resolve()), options)
    assert fix_source(source, str(path.resolve()), options).source == source
    # the problem stays where the author must decide: the export holds the scatters
    module = load_variant(path, f"trt203_left_{name}")
    assert _original_scatters(_built(module), variant_inputs(module, None, 0), module.DYNAMIC, tmp_path / "b.onnx")


def _float64_casts(path: Path) -> int:
    return sum(node.op_type == "Cast" and any(a.name == "to" and a.i == onnx.TensorProto.DOUBLE for a in node.attribute)
               for node in onnx.load(path).graph.node)


def test_dads_offsets_stay_float32_once_built_anew(rewritten: dict, tmp_path: Path) -> None:
    # The original's TorchScript graph computes the written columns in float64 (the exporter lost the tensor's type
    # over the in-place write); rebuilt by TRT203 they stay float32 and ONNX Runtime loads the graph's Einsum.
    module = load_variant(HERE / "dad_subpixel_offsets.py", "trt203_dad_casts")
    example = variant_inputs(module, None, 0)
    _original_scatters(_built(module), example, module.DYNAMIC, tmp_path / "before.onnx")
    assert _float64_casts(tmp_path / "before.onnx") == 2
    export_variant(_built(rewritten["dad_subpixel_offsets"][1]), example, module.DYNAMIC, tmp_path / "after.onnx", HERE)
    assert _float64_casts(tmp_path / "after.onnx") == 0


def test_dads_offsets_migrate_to_exit_0(tmp_path: Path) -> None:
    # migrate matches the float64 Cast at the write to TRT203 (a fix that builds the tensor anew), proves it and keeps it
    path = tmp_path / "dad_subpixel_offsets.py"
    path.write_bytes((HERE / "dad_subpixel_offsets.py").read_bytes())
    report = migrate_json(path, axes_json(load_variant(path, "trt203_dad_migrate")))
    assert report["exit_code"] == 0, report["remaining"]
    assert [d["rule"] for d in report["applied"]].count("TRT203") == 2, report["applied"]


@pytest.mark.parametrize("name", DYNAMO_REFUSES)
def test_variant_dynamo_refuses_the_original_as_well(name: str, rewritten: dict) -> None:
    module = load_variant(HERE / f"{name}.py", f"trt203_dynamo_refused_{name}")
    example = variant_inputs(module, None, 0)
    shapes = [{axis: torch.export.Dim.DYNAMIC for axis in axes} for axes in module.DYNAMIC.values()]
    refusals = []
    for model in (_built(module), _built(rewritten[name][1])):
        with pytest.raises(Exception) as refused:
            torch.export.export(model, example, dynamic_shapes=shapes)
        refusals.append((type(refused.value).__name__, str(refused.value).splitlines()[0]))
    # the same refusal, before any write: the grid specializes every size (`1 / n` made a Python float)
    assert refusals[0] == refusals[1], refusals
