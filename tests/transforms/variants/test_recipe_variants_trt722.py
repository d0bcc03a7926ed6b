"""The deep-copy recipe (TRT722) on real-code variants.

Each variant is a small runnable model reduced from a public repository (cited in its
docstring) that calls ``copy.deepcopy`` in forward code: DETR-style criteria copying a list of
target dicts (Deformable DETR), BEVFormer copying a slice and an element of the CAN-bus signal
and its nested per-frame metas, SAM's prompt scaling copying the clicks or boxes (Meta's
``segment_anything``, shared with TRT203's variants, and Hugging Face's port), and DiffSim's
patched transformer block, a top-level function bound to the block as its forward
(``block.forward = fn.__get__(block, Block)``), copying the hidden states, and OpenPCDet's MPPNet
head copying the detached current-frame proposals out of its batch dict. The rule rewrites
the file from the code alone (a safe fix); the original's TorchScript export holds the copies as
constants (the graph gives other values than eager mode on other inputs, or does not load) and
the dynamo exporter refuses it; the rewritten one exports with both, and its graphs equal eager
mode on other inputs and sizes; eager mode is unchanged bit for bit (outputs, input gradients,
exceptions).
"""

from __future__ import annotations

from pathlib import Path

import onnxruntime as ort
import pytest
import torch
from variant_models import (
    assert_eager_unchanged,
    assert_graph_equals_eager,
    export_variant,
    export_variant_dynamo,
    graph_matches,
    input_names,
    load_variant,
    rewrite_variant,
    variant_inputs,
)

from trtcodemod.engine import Options
from trtcodemod.verify.export import export_model
from support import TESTS

HERE = TESTS / "recipe_variants"

# name → (file under recipe_variants/, the rewritten line)
VARIANTS: dict[str, tuple[str, str]] = {
    # a list of dicts of tensors, whose copies' entries are then replaced
    "deformable_detr_bin_targets": ("trt722", "bin_targets = _trt_deepcopy(copy.deepcopy, targets)"),
    # a slice and one element of a tensor the code then writes in place
    "bevformer_can_bus": ("trt722", "tmp_pos = _trt_deepcopy(copy.deepcopy, can_bus[:3])"),
    # lists of dicts keyed by ints, holding tensors and bools
    "bevformer_history_metas": ("trt722", "prev_img_metas = _trt_deepcopy(copy.deepcopy, img_metas)"),
    # `from copy import deepcopy`, the copy then converted and reshaped
    "transformers_sam_boxes": ("trt722", "coords = _trt_deepcopy(deepcopy, coords).float()"),
    "sam_apply_coords": ("trt203", "coords = _trt_deepcopy(deepcopy, coords).to(torch.float)"),
    # in a top-level function the forward binds to a block as its forward (`fn.__get__(block, Block)`)
    "diffsim_patched_block_forward": ("trt722", "hidden_states_residual = _trt_deepcopy(copy.deepcopy, hidden_states)"),
    # a detached entry of a dict of tensors, indexed after the copy, then written in place
    "openpcdet_mppnet_trajectory": ("trt722",
                                    "cur_batch_boxes = _trt_deepcopy(copy.deepcopy, batch_dict['rois'].detach())[:, :, 0]"),
}


#: Input sets run in eager mode only: the exported cross entropy reshapes zero rows with a -1,
#: which ONNX Reshape without allowzero cannot (another problem than the copy's; README's
#: guidance table puts that graph repair out of scope); the exported `repeat` of MPPNet's boxes
#: likewise reshapes zero proposals with a -1 (ONNX Runtime refuses the empty set there).
EAGER_ONLY = {"no-queries", "no-proposals"}


def _path(name: str) -> Path:
    return HERE / VARIANTS[name][0] / f"{name}.py"


def _built(module) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.build().eval()


def _sets(name: str, module) -> dict[str, tuple]:
    """Other values and sizes, zeros, negatives, no rows, inf/NaN where they can occur."""
    first, *rest = variant_inputs(module, None, 0)
    other = {f"seed{seed}": variant_inputs(module, None, seed) for seed in (1, 2)}
    if name == "deformable_detr_bin_targets":
        logits, boxes, labels, target_boxes = variant_inputs(module, None, 3)
        other.update({"more-queries": (torch.randn(2, 6, 2), torch.rand(2, 6, 4), torch.randint(0, 5, (2, 6)),
                                       torch.rand(2, 6, 4)),
                      "no-queries": (logits[:, :0], boxes[:, :0], labels[:, :0], target_boxes[:, :0]),
                      "zeros": (torch.zeros_like(logits), torch.zeros_like(boxes), labels, torch.zeros_like(boxes))})
    elif name == "bevformer_can_bus":
        odd = first.clone()
        odd[[0, 17]] = torch.tensor([float("inf"), float("nan")])
        other.update({"zeros": (torch.zeros_like(first), *rest), "inf-nan": (odd, *rest)})
    elif name == "bevformer_history_metas":
        other.update({"zeros": (torch.zeros_like(first), torch.zeros_like(rest[0])),
                      "negatives": (-first.abs(), -rest[0].abs())})
    elif name == "diffsim_patched_block_forward":
        odd = first.clone()
        odd.view(-1)[[0, 5]] = torch.tensor([float("inf"), float("nan")])
        other.update({"larger": (torch.randn(3, 4, 6, 2, generator=torch.Generator().manual_seed(4)),),
                      "one-pixel": (torch.randn(1, 4, 1, 1, generator=torch.Generator().manual_seed(5)),),
                      "zeros": (torch.zeros_like(first),), "negatives": (-first.abs() - 1,), "inf-nan": (odd,)})
    elif name == "openpcdet_mppnet_trajectory":
        odd = first.clone()
        odd.view(-1)[[0, 8]] = torch.tensor([float("inf"), float("nan")])
        other.update({"more": (torch.randn(3, 3, 6, 9, generator=torch.Generator().manual_seed(4)),),
                      "one": (torch.randn(1, 3, 1, 9, generator=torch.Generator().manual_seed(5)),),
                      "no-proposals": (first[:, :, :0],), "zeros": (torch.zeros_like(first),),
                      "negatives": (-first.abs() - 1,), "inf-nan": (odd,)})
    elif name == "transformers_sam_boxes":
        other.update({"more": (torch.randint(0, 50, (7, 4)),), "one": (torch.randint(0, 50, (1, 4)),),
                      "negatives": (-first,), "no-boxes": (first[:0],)})
    else:
        odd = first.clone()
        odd.view(-1)[[0, 3]] = torch.tensor([float("inf"), float("nan")])
        other.update({"more": (torch.rand(3, 4, 2) * 40,), "no-clicks": (first[:, :0],), "inf-nan": (odd,)})
    return other


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("trt722")
    options = Options(select=("TRT722",), scope="all")
    return {name: rewrite_variant(_path(name), options, folder, f"trt722_rewritten_{name}") for name in VARIANTS}


def _original_export_is_wrong(name: str, original, module, example, path: Path) -> bool:
    """The original's TorchScript graph does not load, or gives other values than eager mode
    on some other input (the copies were recorded as constants of the traced values)."""
    result = export_model(original, example, path, exporter="torchscript", input_names=input_names(original),
                          output_names=["out"], dynamic_axes=module.DYNAMIC, opset=17)
    if result.error is not None:
        return True
    try:
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - a graph that does not load is the problem shown
        return True
    return any(not graph_matches(session, original, inputs, equal_nan=True)
               for label, inputs in _sets(name, module).items() if label.startswith("seed"))


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_rewrite_and_export(name: str, rewritten: dict, tmp_path: Path) -> None:
    module = load_variant(_path(name), f"trt722_{name}")
    text, rewritten_module = rewritten[name]
    assert VARIANTS[name][1] in text, text
    original, after = _built(module), _built(rewritten_module)
    example = variant_inputs(module, None, 0)

    assert _original_export_is_wrong(name, original, module, example, tmp_path / "before.onnx"), name
    refused = export_model(original, example, tmp_path / "before_dynamo.onnx", exporter="dynamo",
                           input_names=input_names(original), output_names=["out"],
                           dynamic_axes=module.DYNAMIC, opset=18)
    assert refused.error is not None, name

    session, _ = export_variant(after, example, module.DYNAMIC, tmp_path / "after.onnx", HERE)
    dynamo = export_variant_dynamo(after, example, module.DYNAMIC, tmp_path / "after_dynamo.onnx")
    for label, inputs in _sets(name, module).items():
        if label in EAGER_ONLY:
            continue
        assert_graph_equals_eager(session, original, inputs, label)
        assert_graph_equals_eager(dynamo, original, inputs, f"dynamo {label}")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_eager_unchanged(name: str, rewritten: dict) -> None:
    module = load_variant(_path(name), f"trt722_eager_{name}")
    _, rewritten_module = rewritten[name]
    original, after = _built(module), _built(rewritten_module)
    assert_eager_unchanged(original, after, {"random": variant_inputs(module, None, 0), **_sets(name, module)})


def test_mppnet_head_with_its_base_in_another_file(tmp_path: Path) -> None:
    """OpenPCDet's layout: ``MPPNetHead(RoIHeadTemplate)`` with the base imported from roi_head_template.py,
    which derives from ``nn.Module`` there: the code alone now shows the head to be a module (the base is
    followed into its file, ``module_files.is_module_subclass``), so TRT722 finds the deepcopy without facts;
    a base whose file is not beside it finds nothing; migrate ends with exit 0, faithful and equivalent."""
    from support import migrate_json

    from trtcodemod.engine import check_source

    source = _path("openpcdet_mppnet_trajectory").read_text()
    package = tmp_path / "heads"
    package.mkdir()
    (package / "__init__.py").write_text("")
    template = source[source.index("class RoIHeadTemplate"):source.index("class TrajectoryHead")]
    (package / "roi_head_template.py").write_text("from torch import nn\n\n\n" + template.rstrip() + "\n")
    head = source[source.index("import copy"):source.index("class RoIHeadTemplate")] \
        + "from .roi_head_template import RoIHeadTemplate\n\n\n" + source[source.index("class TrajectoryHead"):]
    head_path = package / "mppnet_head.py"
    head_path.write_text(head)
    model = tmp_path / "model.py"
    model.write_text("from heads.mppnet_head import DYNAMIC, build, inputs  # noqa: F401\n")
    options = Options(select=("TRT722",), scope="all")
    line = head.splitlines().index("        cur_batch_boxes = copy.deepcopy(batch_dict['rois'].detach())[:, :, 0]") + 1
    assert [(f.rule, f.line) for f in check_source(head.encode(), str(head_path), options)] == [("TRT722", line)]
    alone = tmp_path / "alone"
    alone.mkdir()
    assert check_source(head.encode(), str(alone / "mppnet_head.py"), options) == []

    report = migrate_json(model, '{"proposals_list": {"0": "batch", "2": "proposals"}}')
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT722", line)], report["applied"]
    assert report["before"]["faithful"] is not True, report["before"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True, report["after"]
