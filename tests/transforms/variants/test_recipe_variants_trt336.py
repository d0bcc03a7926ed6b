"""The while-scan recipe (TRT336) on real-code variants.

Each variant in ``tests/recipe_variants/trt336/`` is a small runnable model reduced from a public
repository (cited in its docstring) that finds the fully sampled centre of an MRI k-space mask
by stepping two indices out from the middle while the mask is set, in the form the original
writes it: MONAI's ``CoilSensitivityModel.get_fully_sampled_region`` (a method; on 2-D k-space
with a bool mask, and on 3-D k-space with a uint8 mask of shape (1, 1, 1, 1, D, 1)), fastMRI's
``SensitivityModel.forward`` of late 2020 (the loops inline in ``forward``, a float mask) and the
first fastMRI VarNet's nested ``get_low_frequency_lines`` (``l``/``r`` in a function defined in
``forward``). The rule finds both loops of each from the code alone. The TorchScript exporter
unrolls each original's loops with the example's mask (the tracer's "Converting a tensor to a
Python boolean"), and its graph is wrong even for the example's mask: ``left = right =
mask.shape[-2] // 2`` binds both names to one traced size and ``right += 1`` adds to it in place,
so the downward loop starts where the upward one stopped (eager mode works on Python ints). ``migrate`` applies
TRT336 at both loops, verifies the unsafe rewrite on its input sets and ends with exit 0, the
model equivalent. Two variants are also rewritten and exported directly: the graph equals eager
mode for masks with other centres, at other widths, on zeros, negatives and infinities in the
k-space and an empty batch, and eager mode is unchanged bit for bit (a mask set to the end raises
the same ``IndexError``).

A fifth and a sixth, from other authors: PointRCNN's proposal target layer trims the zero rows that pad a scene's gt
boxes (``while cur_gt[k].sum() == 0: k -= 1``), a test that is a function of the row at the index, which the rule
maps over the rows with ``torch.vmap`` while tracing; OpenPCDet's writes it with a guard that stops the loop at the
first row (``while k >= 0 and cur_gt[k].sum() == 0``, passed as ``last=0``). Each is found and rewritten from the
code alone; the original's graph keeps the example's padding (boxes past it are never matched); the rewritten graph
follows scenes padded from other rows, with zeros, negatives, infinities and NaN among the boxes, eager mode
unchanged (a scene of padding alone: PointRCNN's ``IndexError``, OpenPCDet's single zero box); migrate applies the
rule, verified, and ends with exit 0.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, built_variant, export_variant, input_names, load_variant,
                            seeded)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt336"
INF = float("inf")


def _scan(counter: str, step: int) -> tuple[str, str]:
    """A loop's test line as written and the statement the rule writes for it."""
    return (f"while mask[..., {counter}, :]:",
            f"{counter} = _trt_scan_while(lambda {counter}: mask[..., {counter}, :], mask, -2, {counter}, {step})")


#: variant -> (each loop's test as written, the statement the rule writes for it)
VARIANTS: dict[str, tuple[tuple[str, str], ...]] = {
    "monai_coil_sensitivity_centre": (_scan("right", 1), _scan("left", -1)),
    "monai_coil_sensitivity_3d": (_scan("right", 1), _scan("left", -1)),
    "fastmri_sensitivity_inline": (_scan("right", 1), _scan("left", -1)),
    "fastmri_varnet_nested_lines": (_scan("r", 1), _scan("l", -1)),
}


def _lines(name: str) -> list[int]:
    return [_line_of(HERE / f"{name}.py", loop) for loop, _ in VARIANTS[name]]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_both_loops_from_the_code_and_rewrites_them(name: str) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT336",), scope="all"))
    assert [(f.rule, f.line) for f in findings] == [("TRT336", line) for line in _lines(name)], findings
    new_source = fix_source(path.read_bytes(), str(path.resolve()),
                            Options(select=("TRT336",), unsafe=True, scope="all")).source.decode()
    for _, rewritten in VARIANTS[name]:
        assert rewritten in new_source, new_source
    assert not [line for line in new_source.splitlines() if "while mask[" in line and "``" not in line]


def _mask_like(example_mask: torch.Tensor, width: int, low: int, high: int, seed: int) -> torch.Tensor:
    """A mask of the example's kind and rank, ``width`` long on its scanned axis: set on
    ``[low, high)`` (the centre), clear just outside it, random elsewhere."""
    columns = torch.rand(width, generator=seeded(seed)) < 0.5
    columns[low:high] = True
    columns[low - 1] = False
    if high < width:
        columns[high] = False
    shape = [1] * example_mask.dim()
    shape[-2] = width
    return columns.to(example_mask.dtype).reshape(shape)


def _with_width(example: tuple[torch.Tensor, torch.Tensor], width: int, seed: int, batch: int | None = None,
                fill: float | None = None, scale: float = 1.0) -> torch.Tensor:
    """A k-space of the example's kind with ``width`` columns on the scanned axis (and ``batch``)."""
    shape = list(example[0].shape)
    shape[example[0].dim() - 3 if example[0].dim() == 6 else 3] = width
    if batch is not None:
        shape[0] = batch
    kspace = torch.randn(shape, generator=seeded(seed)) * scale
    if fill is not None:
        kspace.flatten()[:: 5] = fill
    return kspace


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_originals_graph_keeps_the_examples_centre(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt336_o_{name}")
    example = module.inputs(seeded(0))
    session, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", path.parent)
    warned = {line for file, line, message in traced if "Python boolean" in message}
    assert set(_lines(name)) <= warned, traced
    width = example[1].shape[-2]
    centre = width // 2
    other = (example[0], _mask_like(example[1], width, centre - 1, centre + 1, 3))  # a narrower centre
    for inputs in (example, other):
        with torch.no_grad():
            want = original(*inputs).numpy()
        [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(original), inputs)})
        assert got.shape == want.shape and not np.allclose(got, want, rtol=1e-3, atol=1e-3)


def test_the_traced_centre_is_wrong_even_for_the_examples_mask() -> None:
    """Why the original graph misses even the example: ``left = right = mask.shape[-2] // 2`` binds
    both names to one traced tensor, ``right += 1`` adds to it in place, so the downward loop starts
    where the upward one stopped. Eager mode (Python ints) and the rewrite (which rebinds) do not."""
    mask = torch.zeros(1, 1, 12, 1, dtype=torch.bool)
    mask[..., 4:9, :] = True

    def centre(mask):
        left = right = mask.shape[-2] // 2
        while mask[..., right, :]:
            right += 1
        while mask[..., left, :]:
            left -= 1
        return torch.stack([torch.as_tensor(left + 1), torch.as_tensor(right)])

    assert centre(mask).tolist() == [4, 9]
    with pytest.warns(torch.jit.TracerWarning), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # torch.jit.trace's own notice
        traced = torch.jit.trace(centre, (mask,))
    assert traced(mask).tolist() == [10, 9]


MIGRATED = ("monai_coil_sensitivity_centre", "fastmri_sensitivity_inline", "fastmri_varnet_nested_lines")


@pytest.mark.parametrize("name", MIGRATED)
def test_migrate_applies_trt336_at_both_loops_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt336_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == \
        [("TRT336", line) for line in sorted(_lines(name))], report["applied"]
    assert all("verified" in fix.get("proof", "") for fix in report["applied"]), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert "_trt_scan_while(" in report["diff"], report["diff"]


def _sets(module) -> dict[str, tuple[torch.Tensor, ...]]:
    """Masks with other centres and widths, and edge values in the k-space."""
    example = module.inputs(seeded(0))
    mask, width = example[1], example[1].shape[-2]
    c = width // 2
    return {
        "narrow-centre": (example[0], _mask_like(mask, width, c - 1, c + 1, 1)),
        "wide-centre": (example[0], _mask_like(mask, width, 2, width - 1, 2)),
        "one-column": (example[0], _mask_like(mask, width, c, c + 1, 3)),
        "off-centre": (example[0], _mask_like(mask, width, c - 4, c + 1, 4)),
        "other-width": (_with_width(example, 31, 5, batch=2), _mask_like(mask, 31, 12, 20, 6)),
        "small-width": (_with_width(example, 6, 7), _mask_like(mask, 6, 2, 5, 8)),
        "zeros": (torch.zeros_like(example[0]), _mask_like(mask, width, c - 2, c + 3, 9)),
        "negatives": (-_with_width(example, width, 10).abs(), _mask_like(mask, width, c - 3, c + 2, 11)),
        "inf": (_with_width(example, width, 12, fill=INF), _mask_like(mask, width, c - 2, c + 2, 13)),
        "no-batch": (_with_width(example, width, 14, batch=0), _mask_like(mask, width, c - 2, c + 2, 15)),
        # set from the middle to the end: eager mode raises IndexError (the rewrite too, in eager mode)
        "eager-set-to-the-end": (example[0], _mask_like(mask, width, c - 2, width, 16)),
    }


DIRECT = ("monai_coil_sensitivity_3d", "fastmri_sensitivity_inline")


@pytest.mark.parametrize("name", DIRECT)
def test_rewritten_exports_and_follows_the_mask(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt336_d_{name}")
    new_path = tmp_path / f"{name}_rewritten.py"
    options = Options(select=("TRT336",), unsafe=True, scope="all")
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()), options).source.decode())
    _, rewritten = built_variant(new_path, f"trt336_r_{name}")
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    session, traced = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    assert not [w for w in traced if "Python boolean" in w[2]], traced
    sets = {"example": example, **_sets(module)}
    for label, inputs in sets.items():
        if label.startswith("eager-"):
            continue
        with torch.no_grad():
            want = original(*inputs).numpy()
        [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(original), inputs)})
        assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape)
        assert np.allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True), label
    assert_eager_unchanged(original, rewritten, sets)


# PointRCNN's trim of the zero rows that pad a scene's gt boxes: a scan whose test is a function of the row at the
# index (``cur_gt[k].sum() == 0``), taken since the rule maps such a test over the rows while tracing; OpenPCDet's,
# with a guard that stops it at the first row (``k >= 0 and ...``).
TRIMS: dict[str, tuple[str, str]] = {
    "pointrcnn_gt_padding_trim": (
        "while cur_gt[k].sum() == 0:",
        "k = _trt_scan_while(lambda k: cur_gt[k].sum() == 0, cur_gt, 0, k, -1, lambda _trt_row: _trt_row.sum() == 0)"),
    "openpcdet_proposal_target_guard": (
        "while k >= 0 and cur_gt[k].sum() == 0:",
        "k = _trt_scan_while(lambda k: k >= 0 and cur_gt[k].sum() == 0, cur_gt, 0, k, -1, "
        "lambda _trt_row: _trt_row.sum() == 0, last=0)"),
}


@pytest.mark.parametrize("name", list(TRIMS))
def test_the_rule_finds_the_gt_trim_from_the_code_and_rewrites_it(name: str) -> None:
    path = HERE / f"{name}.py"
    loop, rewritten = TRIMS[name]
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT336",), scope="all"))
    assert [(f.rule, f.line) for f in findings] == [("TRT336", _line_of(path, loop))], findings
    new_source = fix_source(path.read_bytes(), str(path.resolve()),
                            Options(select=("TRT336",), unsafe=True, scope="all")).source.decode()
    assert rewritten in new_source and loop not in new_source.split('"""', 2)[2], new_source


def _trim_sets(module) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """Scenes padded from other rows than the example's, and edge values in the proposals and the boxes."""
    rois, gts = module.inputs(seeded(0))

    def scenes(*valid: int, seed: int) -> torch.Tensor:
        generator = seeded(seed)
        return torch.stack([module.scene(generator, gts.shape[1], v) for v in valid])

    specials = scenes(5, 6, seed=5)
    specials[0, 1, 6] = INF  # a box's heading (row sums that are not zero: boxes, not padding)
    specials[1, 2, 6] = float("nan")
    specials[1, 0, 6] = -INF
    best_last = scenes(6, 6, seed=8)
    best_last[:, 4:, :7] = rois[:, :2]  # the proposals' own boxes, past the example's padding: overlaps of 1
    return {
        "best-boxes-last": (rois, best_last),
        "one-box": (rois, scenes(1, 2, seed=1)),
        "no-padding": (rois, scenes(6, 6, seed=2)),
        "other-counts": (rois, scenes(5, 2, seed=3)),
        "zeros": (torch.zeros_like(rois), scenes(3, 4, seed=4)),
        "negatives": (-rois, -scenes(2, 5, seed=6)),
        "inf-nan-headings": (rois, specials),
        # every row padding: PointRCNN runs off the scene (IndexError, the rewrite too in eager mode); OpenPCDet's
        # guard stops and `len(cur_gt) == 0` makes one zero box, a branch the trace keeps as the example's (another
        # bake, not the scan's): eager mode only
        "eager-all-padding": (rois, scenes(0, 3, seed=7)),
    }


@pytest.fixture(scope="module", params=list(TRIMS))
def trim_graphs(request, tmp_path_factory) -> dict:
    """A trim variant, its original and rewritten models, and both TorchScript exports (shared by the tests)."""
    name = request.param
    folder = tmp_path_factory.mktemp(name)
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt336_t_{name}")
    new_path = folder / f"{name}_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()),
                                   Options(select=("TRT336",), unsafe=True, scope="all")).source.decode())
    _, rewritten = built_variant(new_path, f"trt336_tr_{name}")
    example = module.inputs(seeded(0))
    before, traced_before = export_variant(original, example, module.DYNAMIC, folder / "before.onnx", path.parent)
    after, traced_after = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    return {"name": name, "module": module, "original": original, "rewritten": rewritten, "before": before,
            "after": after, "traced_before": traced_before, "traced_after": traced_after, "path": path}


def _graph_run(session, model, inputs) -> list[np.ndarray]:
    return session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})


def test_the_originals_graph_keeps_the_examples_padding(trim_graphs) -> None:
    g = trim_graphs
    loop = _line_of(g["path"], TRIMS[g["name"]][0])
    assert loop in {line for _, line, m in g["traced_before"] if "Python boolean" in m}
    sets = _trim_sets(g["module"])
    with torch.no_grad():
        want = g["original"](*sets["best-boxes-last"])
    got = _graph_run(g["before"], g["original"], sets["best-boxes-last"])
    assert not all(np.allclose(a, w.numpy()) for a, w in zip(got, want))


def test_the_rewritten_gt_trim_follows_the_padding(trim_graphs) -> None:
    g = trim_graphs
    assert not [w for w in g["traced_after"] if "Python boolean" in w[2]], g["traced_after"]
    sets = {"example": g["module"].inputs(seeded(0)), **_trim_sets(g["module"])}
    for label, inputs in sets.items():
        if label.startswith("eager-"):
            continue
        with torch.no_grad():
            want = g["original"](*inputs)
        got = _graph_run(g["after"], g["original"], inputs)
        for a, w in zip(got, want):
            assert a.shape == tuple(w.shape) and a.dtype == w.numpy().dtype, (label, a.shape, w.shape)
            assert np.allclose(a, w.numpy(), rtol=1e-5, atol=1e-6, equal_nan=True), label
    assert_eager_unchanged(g["original"], g["rewritten"], sets)


@pytest.mark.parametrize("name", list(TRIMS))
def test_migrate_applies_trt336_at_the_gt_trim(name: str) -> None:
    """The observer's input sets are the example's (boxes padded as there): the original's graph looks faithful on
    them, but its export warned at the loop; migrate applies the rule there, verified, and ends with exit 0."""
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt336_tm_{name}")
    report = migrate_json(path, _axes_json(module))
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"] if fix["rule"] == "TRT336"]
    assert applied == [("TRT336", _line_of(path, TRIMS[name][0]))], report["applied"]
    assert all("verified" in fix.get("proof", "") for fix in report["applied"] if fix["rule"] == "TRT336")
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
