"""The where-to-blend recipe (TRT102) on real-code variants.

Each variant in ``tests/recipe_variants/trt102/`` is a small runnable model reduced from a public
library (cited in its docstring) that selects with ``torch.where(c, a, b)``. TRT102 matters for
TensorRT before 8.4 (``--target 8.0`` here; quiet for the default 8.6), whose parser has no ONNX
``Where``. TensorRT is not run here: what it rejects is shown on the graph.

- ``TAKEN``: the rule rewrites the file from the code alone, only with ``--unsafe`` (its
  assumption: the branch not selected is finite). The original's graph has ``Where`` nodes; the
  rewritten one exports with both exporters without any, and its graph equals eager mode at other
  sizes and on zeros, negatives and empty tensors. Eager mode is unchanged on inputs that meet the
  assumption (outputs, dtype, shape, gradients); on inputs that break it, the blend's documented
  cost shows: NaN where the original has a value, equal everywhere else.
- ``REPORTED``/left: a number with a computed tensor branch (reported: the number needs that
  branch's dtype) and the method form ``x.where(c, y)`` (not matched: its receiver is not known to
  be a tensor).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import onnx
import pytest
import torch
from safety import Run, assert_same_run, run_once
from variant_models import (
    assert_graph_equals_eager, built, export_variant, export_variant_dynamo, input_names, load_variant,
    rewritten_variant,
)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.rules import Safety
from trtcodemod.verify.export import export_model
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt102"


def _boxes(count: int, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    corner = torch.rand(count, 2, generator=generator) * 10
    return torch.cat([corner, corner + torch.rand(count, 2, generator=generator) * 4 + 0.5], dim=1)


def _roi_inputs(rois: int, height: int, width: int, seed: int) -> tuple:
    generator = torch.Generator().manual_seed(seed)
    feat = torch.randn(2, height, width, generator=generator)
    y = torch.rand(rois, 2, 2, generator=generator) * (height + 1)
    x = torch.rand(rois, 2, 2, generator=generator) * (width + 1)
    return feat, y, x, torch.rand(rois, 2, generator=generator) > 0.3, torch.rand(rois, 2, generator=generator) > 0.3


def _masks(prompts: int, size: int, seed: int) -> tuple:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(prompts, 2, size, size, generator=generator), torch.randn(prompts, 1, generator=generator)


def _stats(batch: int, h: int, w: int, seed: int) -> tuple:
    generator = torch.Generator().manual_seed(seed)
    return (torch.rand(batch, h, w, generator=generator), torch.rand(batch, h, w, generator=generator),
            torch.randint(0, 3, (batch, h, w), generator=generator))


def _zeros(inputs: tuple) -> tuple:
    return tuple(torch.zeros_like(t) if t.is_floating_point() else t for t in inputs)


def _negatives(inputs: tuple) -> tuple:
    return tuple(-t.abs() - 1 if t.is_floating_point() else t for t in inputs)


# name → (fragments of the rewritten code, input sets meeting the assumption,
#         inputs breaking it: an inf/NaN in a branch not selected)
TAKEN: dict[str, tuple[tuple[str, ...], Callable[[tuple], dict], Callable[[], tuple]]] = {
    "ultralytics_sam_no_object": (
        ("low_res_masks = low_res_masks * is_obj_appearing[:, None, None] + NO_OBJ_SCORE * "
         "torch.logical_not(is_obj_appearing[:, None, None])",),
        lambda ex: {"more-prompts": _masks(5, 6, 1), "zeros": _zeros(ex), "negatives": _negatives(ex),
                    "no-prompt": _masks(0, 4, 2), "all-absent": (ex[0], -ex[1].abs() - 1)},
        # a prompt without object whose logits hold inf/NaN: torch.where drops them, the blend keeps NaN
        lambda: (torch.tensor([float("inf"), float("nan")]).repeat(8).view(1, 2, 2, 4), torch.tensor([[-1.0]])),
    ),
    "torchvision_roi_align_bilinear": (
        ("y_high = (height - 1) * (y_low >= height - 1) + (y_low + 1) * torch.logical_not(y_low >= height - 1)",
         "yi = yi * ymask[:, None, :] + torch.logical_not(ymask[:, None, :]).to(yi.dtype) * 0"),
        lambda ex: {"other-size": _roi_inputs(4, 7, 3, 1), "one-pixel": _roi_inputs(2, 1, 1, 2),
                    "zeros": _zeros(ex), "negatives": _negatives(ex), "no-roi": _roi_inputs(0, 5, 6, 3)},
        None,  # the selects pick integer indices, or one of two copies of the same float coordinate
    ),
    "kornia_distance_clamp": (
        ("boundary = torch.ones_like(image) * (image > 1) + (torch.zeros_like(image) * (image < 0) + image * "
         "torch.logical_not(image < 0)) * torch.logical_not(image > 1)",
         "return cdt * positive + torch.zeros_like(cdt) * torch.logical_not(positive)"),
        lambda ex: {"other-size": (torch.randn(1, 1, 9, 4, generator=torch.Generator().manual_seed(1)) * 2,),
                    "zeros": _zeros(ex), "negatives": _negatives(ex), "ones": (torch.ones(1, 1, 3, 3),),
                    "empty": (torch.zeros(0, 1, 4, 4),)},
        # +inf is capped to 1 by the outer select; the blend's inner branch keeps inf, times 0
        lambda: (torch.tensor([[[[float("inf"), 0.5, -float("inf")], [0.2, 2.0, -1.0]]]]),),
    ),
    "effdet_iou": (
        ("return torch.zeros_like(intersections) * (intersections == 0.0) + (intersections / unions) * "
         "torch.logical_not(intersections == 0.0)",),
        lambda ex: {"other-size": (_boxes(7, 1), _boxes(2, 2)), "far-apart": (_boxes(3, 3), _boxes(3, 4) + 100),
                    "no-boxes": (_boxes(0, 5), _boxes(4, 6)),
                    "negatives": (-_boxes(3, 7).flip(1), -_boxes(2, 8).flip(1))},
        # two empty boxes: 0 / 0 in the division the guard does not select
        lambda: (torch.tensor([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 2.0, 2.0]]), torch.tensor([[1.0, 1.0, 1.0, 1.0]])),
    ),
    "smp_confusion_stats": (
        ("output = (output >= self.threshold) * 1 + torch.logical_not(output >= self.threshold) * 0",
         "output = output * torch.logical_not(ignore) + ignore.to(output.dtype) * (-1)"),
        lambda ex: {"other-size": _stats(3, 7, 2, 1), "zeros": _zeros(ex), "negatives": _negatives(ex),
                    "all-ignored": (ex[0], ex[1], torch.full_like(ex[2], 2)), "empty": _stats(0, 4, 5, 2)},
        None,  # integer selects: nothing can be inf or NaN
    ),
}


def _rewrite(path: Path, unsafe: bool = True, target: str = "8.0") -> str:
    options = Options(select=("TRT102",), unsafe=unsafe, target=target, scope="all")
    return fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()



def _op_types(path: Path) -> list[str]:
    return [node.op_type for node in onnx.load(str(path)).graph.node]


@pytest.fixture(scope="module", params=list(TAKEN))
def taken(request, tmp_path_factory) -> dict:
    """The variant, its rewrite (``--unsafe``, target 8.0), the original exported, the rewrite both ways."""
    name = request.param
    folder = tmp_path_factory.mktemp(name)
    variant = rewritten_variant(HERE / f"{name}.py", "TRT102", folder, target="8.0")
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    example = module.inputs(torch.Generator().manual_seed(0))
    export_variant(original, example, module.DYNAMIC, folder / "before.onnx", HERE)
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    sessions = {"torchscript": torchscript}
    dynamo_error = None
    if name in DYNAMO_SYMBOLIC_NUMBER:
        # Sizes static for the dynamo exporter; with dynamic ones it fails on the blend (below).
        dynamo_error = export_model(rewritten, example, folder / "failed_dynamo.onnx", exporter="dynamo",
                                    input_names=input_names(rewritten), output_names=["out"],
                                    dynamic_axes=module.DYNAMIC, opset=18).error
        export_variant_dynamo(rewritten, example, {}, folder / "after_dynamo.onnx")
    else:
        sessions["dynamo"] = export_variant_dynamo(rewritten, example, module.DYNAMIC, folder / "after_dynamo.onnx")
    return dict(variant, example=example, folder=folder, sessions=sessions, dynamo_error=dynamo_error)


def test_the_rule_rewrites_every_select_from_the_code_alone(taken) -> None:
    fragments, _, _ = TAKEN[taken["name"]]
    for fragment in fragments:
        assert fragment in taken["source"], taken["source"]
    assert "torch.where(" not in taken["source"].split('"""', 2)[2]  # the code below the docstring
    original = taken["path"].read_text()
    assert taken["safe_only"] == original  # unsafe: nothing without --unsafe
    assert _rewrite(taken["path"], target="8.4") == original  # quiet for TensorRT 8.4 and newer


#: Variants with a branch that is a number computed from a size (``height - 1``): the blend multiplies
#: the mask by it, and with dynamic axes the dynamo exporter's ``aten_mul_scalar`` cannot take a symbolic
#: number (``torch.where`` exports there). The TorchScript exporter, which migrate verifies with, takes it.
DYNAMO_SYMBOLIC_NUMBER = {"torchvision_roi_align_bilinear"}


def test_the_dynamo_exporter_fails_on_a_size_number_times_the_mask(taken) -> None:
    if taken["name"] not in DYNAMO_SYMBOLIC_NUMBER:
        assert taken["dynamo_error"] is None
        return
    # (the cause, in the exporter's traceback: `aten_mul_scalar` called with a SymbolicTensor)
    assert taken["dynamo_error"].startswith("ConversionError: Failed to convert"), taken["dynamo_error"]


def test_the_where_nodes_are_gone_from_both_graphs(taken) -> None:
    assert "Where" in _op_types(taken["folder"] / "before.onnx")
    for graph in ("after.onnx", "after_dynamo.onnx"):
        assert "Where" not in _op_types(taken["folder"] / graph), graph


def test_the_graphs_equal_eager_at_other_sizes_and_edge_values(taken) -> None:
    _, sets, _ = TAKEN[taken["name"]]
    cases = {"example": taken["example"], **sets(taken["example"])}
    for exporter, session in taken["sessions"].items():
        for label, inputs in cases.items():
            assert_graph_equals_eager(session, taken["original"], inputs, f"{exporter} {label}")


def _assert_same_up_to_zero_sign(before: Run, after: Run, context: str) -> None:
    """The same error, output (dtype, shape, values) and input gradients; a zero may change its sign:
    the blend writes ``+0.0`` for a selected ``-0.0``, and sends ``g * 0`` (``-0.0`` where the upstream
    gradient ``g`` is negative) to the branch not selected where ``torch.where`` sends ``+0.0``."""
    assert before.error == after.error and before.backward_error == after.backward_error, context
    if before.error is not None:
        return
    assert before.output.dtype == after.output.dtype and before.output.shape == after.output.shape, context
    assert torch.equal(before.output, after.output), context  # -0.0 == 0.0; no NaN on these inputs
    assert (before.grads is None) == (after.grads is None), context
    for grad_before, grad_after in zip(before.grads or (), after.grads or ()):
        assert (grad_before is None) == (grad_after is None), context
        assert grad_before is None or torch.equal(grad_before, grad_after), context


def test_eager_mode_is_unchanged_where_the_assumption_holds(taken) -> None:
    _, sets, _ = TAKEN[taken["name"]]
    cases = {"example": taken["example"], **sets(taken["example"])}
    for label, inputs in cases.items():
        graded = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
        for given in (list(inputs), graded):
            _assert_same_up_to_zero_sign(run_once(taken["original"], given), run_once(taken["rewritten"], given),
                                         context=f"{taken['name']} {label}")


@pytest.mark.parametrize("name", [name for name, (_, _, breaking) in TAKEN.items() if breaking is not None])
def test_an_inf_or_nan_in_the_branch_not_selected_leaks_as_nan(name: str, tmp_path: Path) -> None:
    """The assumption the rule states, on the variant's own code: where it breaks, the blend gives
    NaN where ``torch.where`` gave a value, and the same everywhere else."""
    path = HERE / f"{name}.py"
    (tmp_path / "blend.py").write_text(_rewrite(path))
    original = built(load_variant(path, f"trt102_breaking_{name}"))
    rewritten = built(load_variant(tmp_path / "blend.py", f"trt102_breaking_blend_{name}"))
    rewritten.load_state_dict(original.state_dict())
    inputs = TAKEN[name][2]()
    with torch.no_grad():
        before, after = original(*inputs), rewritten(*inputs)
    leaked = after.isnan() & ~before.isnan()
    assert leaked.any() and after.dtype == before.dtype
    assert torch.allclose(after[~leaked], before[~leaked], rtol=0, atol=0, equal_nan=True)


def test_a_number_with_a_computed_branch_is_reported_without_a_fix(tmp_path: Path) -> None:
    path = HERE / "ultralytics_sam_stability.py"
    findings = check_source(path.read_bytes(), str(path), Options(select=("TRT102",), target="8.0", scope="all"))
    assert len(findings) == 1 and findings[0].fix is Safety.NONE
    assert "a number branch needs the other branch's dtype: assign that branch to a name first" in findings[0].message
    assert _rewrite(path) == path.read_text()
    # What the message asks for: with the division held in a name, the rule writes the blend, and it
    # equals torch.where where the guard's division is finite (masks with an area).
    named = path.read_text().replace(
        "        return torch.where(area_u > 0, area_i / area_u, 1.0)",
        "        ratio = area_i / area_u\n        return torch.where(area_u > 0, ratio, 1.0)")
    named_path = tmp_path / "named.py"
    named_path.write_text(named)
    source = _rewrite(named_path)
    assert "return ratio * (area_u > 0) + torch.logical_not(area_u > 0).to(ratio.dtype) * 1.0" in source, source
    (tmp_path / "blend.py").write_text(source)
    module = load_variant(path, "trt102_stability")
    original, blend = built(module), built(load_variant(tmp_path / "blend.py", "trt102_stability_blend"))
    logits = torch.randn(3, 2, 5, 5, generator=torch.Generator().manual_seed(1))
    assert_same_run(run_once(original, [logits]), run_once(blend, [logits]))
    empty = module.inputs(torch.Generator().manual_seed(0))[0]  # a mask with no area: 0 / 0 where not selected
    assert original(empty)[1, 2] == 1.0 and blend(empty)[1, 2].isnan()


def test_the_method_form_is_left_as_it_is(tmp_path: Path) -> None:
    """``x.where(c, y)``: not matched (the receiver is not known to be a tensor), so not reported, and
    its export keeps the Where."""
    path = HERE / "transformers_longformer_mask.py"
    assert check_source(path.read_bytes(), str(path), Options(select=("TRT102",), target="8.0", scope="all")) == []
    assert _rewrite(path) == path.read_text()
    module = load_variant(path, "trt102_longformer")
    model = built(module)
    example = module.inputs(torch.Generator().manual_seed(0))
    session, _ = export_variant(model, example, module.DYNAMIC, tmp_path / "model.onnx", HERE)
    assert "Where" in _op_types(tmp_path / "model.onnx")
    assert_graph_equals_eager(session, model, (torch.randn(3, 9, 3, 5),), "other size")
