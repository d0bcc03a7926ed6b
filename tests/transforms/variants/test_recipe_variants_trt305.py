"""The isin recipe (TRT305) on real-code variants.

Each variant in ``tests/recipe_variants/trt305/`` is a small runnable model reduced from a public
library (cited in its docstring) that tests elements against a list of ids or labels with
``torch.isin``. The TorchScript exporter has no symbolic for ``aten::isin``: the original does not
export. The rule rewrites the file from the code alone (a safe fix); the rewritten model exports
with both exporters, its graph equals eager mode at other sizes and on other values (duplicates,
negatives, ids absent from the list, empty tensors), and eager mode is unchanged bit for bit
(outputs, gradients, exceptions) on those.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, run_once
from variant_models import export_variant, export_variant_dynamo, input_names, load_variant

from trtcodemod.engine import Options, fix_source
from trtcodemod.verify.export import export_model
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt305"

# name → (the rewritten line, other input sets by name: other sizes, edge values, empty tensors)
VARIANTS: dict[str, tuple[str, dict[str, tuple[torch.Tensor, ...]]]] = {
    "grounding_dino_special_tokens": ("special_mask = _trt_isin(input_ids, self.special_tokens)", {
        "longer": (torch.tensor([[101, 1012, 5, 1029, 1029, 102, 7, 102, 0]] * 3),),
        "none-special": (torch.tensor([[-101, 0, 1011, 1013, 103]]),),
        "all-special": (torch.tensor([[102, 101, 102, 1012]] * 2),),
        "empty": (torch.zeros(0, 4, dtype=torch.long),),
        "no-tokens": (torch.zeros(2, 0, dtype=torch.long),),
    }),
    "sam3_video_nms_keep": ("keep = _trt_isin(valid_inds, kept_inds)", {
        "more": (torch.tensor([0.5, -1.0, 2.0, 0.0, 3.0, -0.5, 1.5, 4.0, -2.0, 0.1, 0.2, 9.0]),
                 torch.tensor([5, 1, 1, 0, 7, -1])),
        "duplicates": (torch.tensor([1.0, 2.0, 3.0]), torch.tensor([2, 2, 2, 0, 0])),
        "negative-kept": (torch.tensor([-1.0, 1.0, -2.0, 2.0]), torch.tensor([-1, 1])),
        "nothing-kept": (torch.tensor([1.0, 2.0, 3.0]), torch.zeros(0, dtype=torch.long)),
        "no-detections": (torch.zeros(0), torch.tensor([0, 1])),
    }),
    "monai_label_filter": ("torch.where(_trt_isin(img_, appl_lbls), img_, torch.tensor(0.0).to(img_))", {
        "larger": (torch.randn(2, 4, 9, 3, generator=torch.Generator().manual_seed(1)),),
        "negatives": (-torch.rand(1, 4, 3, 3, generator=torch.Generator().manual_seed(2)) - 0.5,),
        "ties": (torch.zeros(1, 4, 2, 5),),
        "empty": (torch.zeros(0, 4, 3, 3),),
        "empty-map": (torch.zeros(1, 4, 0, 3),),
    }),
    "whisper_suppress_tokens": ("suppress_token_mask = _trt_isin(vocab_tensor, self.suppress_tokens.to(scores.device))", {
        "larger-vocab": (torch.randn(3, 20, generator=torch.Generator().manual_seed(3)),),
        "small-vocab": (torch.randn(1, 3),),
        "inf-nan": (torch.tensor([[float("nan"), float("inf"), -1.0, 0.0, -0.0, 2.0]]),),
        "empty": (torch.zeros(0, 12),),
        "no-vocab": (torch.zeros(2, 0),),
    }),
    "pocket_tts_text_tokens": ("is_text = ~_trt_isin(input_ids, placeholder_ids)", {
        "longer": (torch.tensor([[0, 0, 7, 7, 3, -7, 8, 0, 1, 2]] * 3), torch.ones(3, 10, dtype=torch.long)),
        "longer-mask": (torch.tensor([[1, 2, 3, 4]]), torch.tensor([[1, 1, 0, 0, 1, 1]])),
        "all-placeholders": (torch.tensor([[0, 7, 0], [7, 7, 7]]), torch.ones(2, 3, dtype=torch.long)),
        "empty": (torch.zeros(0, 5, dtype=torch.long), torch.zeros(0, 5, dtype=torch.long)),
        "no-tokens": (torch.zeros(2, 0, dtype=torch.long), torch.zeros(2, 0, dtype=torch.long)),
    }),
}


def _built(path: Path, name: str) -> tuple[object, torch.nn.Module]:
    module = load_variant(path, name)
    torch.manual_seed(0)
    return module, module.build().eval()


def _rewrite(path: Path) -> str:
    options = Options(select=("TRT305",), scope="all")
    return fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()


def _graph_equals_eager(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple, label: str) -> None:
    """The graph's output is eager mode's, exactly (shape and values; NaN where NaN)."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    names = [i.name for i in session.get_inputs()]
    feeds = {n: t.numpy() for n, t in zip(input_names(model), inputs) if n in names}
    [got] = session.run(None, feeds)
    assert got.shape == want.shape and np.array_equal(got, want, equal_nan=want.dtype.kind == "f"), label


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    fragment, others = VARIANTS[name]
    path = HERE / f"{name}.py"
    module, original = _built(path, f"trt305_{name}")
    example = module.inputs(torch.Generator().manual_seed(0))

    # Before: the TorchScript exporter stops at aten::isin.
    failed = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"],
                          dynamic_axes=module.DYNAMIC, opset=17)
    assert failed.error is not None and "isin" in failed.error, failed.error

    # The rule from the code alone: every isin of the model, nothing else changed.
    new_source = _rewrite(path)
    assert fragment in new_source, new_source
    assert "torch.isin(" not in new_source.split("\n\n\nclass ", 1)[1], new_source  # below the helpers
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = _built(new_path, f"trt305_rewritten_{name}")

    # After: both exporters; the graphs follow other sizes and values, empty tensors included.
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    dynamo = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "after_dynamo.onnx")
    sets = {"example": example, **others}
    for label, inputs in sets.items():
        _graph_equals_eager(torchscript, original, inputs, f"torchscript {label}")
        _graph_equals_eager(dynamo, original, inputs, f"dynamo {label}")

    # Eager mode is unchanged, bit for bit: outputs, input gradients, exceptions.
    for label, inputs in sets.items():
        given = list(inputs)
        graded = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
        for run in (given, graded):
            assert_same_run(run_once(original, run), run_once(rewritten, run), context=label)
