"""The cumulative-extreme recipe (TRT307) on real-code variants.

Each variant in ``tests/recipe_variants/trt307/`` is a small runnable model reduced from a public
repository (cited in its docstring) that takes a running maximum or minimum along an axis with
``torch.cummax``/``torch.cummin`` or their methods: positions of delimiters (int64), a count reset
at each run, the ends of tied groups along the first of two axes, a bool mask (PygHO) and float
scores (kornia). Neither ONNX exporter converts ``aten::cummax``/``aten::cummin``: the original
does not export. The rule rewrites the file from the code alone (a safe fix); the rewritten model
exports with both exporters, TensorRT's static check finds nothing in the lines of the inserted
helper, the graph equals eager mode exactly at other sizes and on edge values (ties, negatives,
no delimiter, empty axes, NaN, infinities and signed zeros for the float scores), and eager mode
is unchanged bit for bit (outputs, gradients, exceptions).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from variant_models import (assert_eager_unchanged, built_variant, export_variant, export_variant_dynamo,
                            input_names)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.trt.check import check_graph
from trtcodemod.verify.export import export_model
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt307"
NAN, INF = float("nan"), float("inf")


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _ids(rows: list[list[int]]) -> tuple[torch.Tensor]:
    return (torch.tensor(rows),)


# name → (rewritten fragments, other input sets by name: sizes and edge values; "raises-": eager mode raises)
VARIANTS: dict[str, tuple[tuple[str, ...], dict[str, tuple[torch.Tensor, ...]]]] = {
    "transformers_grounding_dino_phrase_blocks": ((
        "prev_special = _trt_cummax(prev_special, 1)[0]",
        "next_special = torch.flip(_trt_cummin(torch.flip(next_special, dims=[1]), 1)[0], dims=[1])"), {
        "longer": _ids([[101, 1012, 5, 1029, 1029, 102, 7, 1012, 8, 9, 102, 0, 102]] * 3),
        "no-delimiter": _ids([[5, 6, -7, 0]]),
        "all-delimiters": _ids([[102, 101, 102, 1012, 1029]] * 2),
        "one-token": _ids([[101], [7]]),
        "raises-no-tokens": (torch.zeros(2, 0, dtype=torch.long),),  # the original's cat of [2, 1] and [2, 0]
        "no-prompts": (torch.zeros(0, 5, dtype=torch.long),),
    }),
    "transformers_qwen3_omni_user_turns": (("previous_im_start = _trt_cummax(im_start_positions, -1).values.clamp_min(0)",), {
        "longer": (torch.tensor([[7, 3, 1, 2, 7, 5, 4, 7, 3, 9, 9, 7, 3, 0, 1, 7]] * 2),
                   torch.tensor([[1] * 13 + [0] * 3, [1] * 16])),
        "no-im-start": (torch.tensor([[3, 3, 1, -2]]), torch.ones(1, 4, dtype=torch.long)),
        "im-start-last": (torch.tensor([[3, 4, 7], [7, 7, 7]]), torch.ones(2, 3, dtype=torch.long)),
        "masked": (torch.tensor([[7, 3, 3, 3]]), torch.zeros(1, 4, dtype=torch.long)),
        "no-chats": (torch.zeros(0, 6, dtype=torch.long), torch.zeros(0, 6, dtype=torch.long)),
    }),
    "transformers_esmfold2_atom_index": (("group_start = _trt_cummax(group_start, -1).values",), {
        "longer": (torch.randint(0, 2, (3, 23), generator=_g(1)).cumsum(-1) - 4,),
        "one-token": (torch.zeros(2, 7, dtype=torch.long),),
        "one-atom-each": (torch.arange(9).unsqueeze(0),),
        "one-atom": (torch.tensor([[5], [-1]]),),
        "no-structures": (torch.zeros(0, 4, dtype=torch.long),),
    }),
    "timm_average_precision_ties": (("group_end = _trt_cummin(torch.where(ends, index, torch.full_like(index, "
                                     "num_examples)).flip(0), 0).values.flip(0)",), {
        "more": (torch.randint(-3, 3, (31, 5), generator=_g(2)).float(), torch.randint(0, 2, (31, 5), generator=_g(3))),
        "all-tied": (torch.zeros(6, 2), torch.tensor([[1, 0], [0, 0], [1, 0], [0, 0], [1, 0], [0, 0]])),
        "no-ties": (torch.randn(8, 3, generator=_g(4)), torch.randint(0, 2, (8, 3), generator=_g(5))),
        "one-example": (torch.tensor([[-1.0, 2.0, 0.0]]), torch.tensor([[1, 0, 1]])),
        "no-classes": (torch.zeros(5, 0), torch.zeros(5, 0, dtype=torch.long)),
    }),
    "pygho_dense_node_mask": (("mask = _trt_cummin(mask, -1)[0][:, :-1]",), {
        "more": (torch.randn(5, 9, 4, generator=_g(6)), torch.tensor([9, 0, 4, 1, 8])),
        "full": (torch.randn(2, 3, 4, generator=_g(7)), torch.tensor([3, 3])),
        "inf-nan": (torch.tensor([NAN, INF, -INF, -0.0, 0.0, -2.0] * 4).reshape(2, 3, 4), torch.tensor([1, 2])),
        "no-nodes": (torch.zeros(2, 0, 4), torch.tensor([0, 0])),
        "no-graphs": (torch.zeros(0, 5, 4), torch.zeros(0, dtype=torch.long)),
    }),
    "kornia_ransac_record_setters": (("earlier = torch.cat([scores.new_full((1,), self.prior), "
                                      "_trt_cummax(scores, 0).values[:-1]])",), {
        "more": (torch.rand(40, generator=_g(8)) * 4,),
        "ties": (torch.tensor([1.0, 1.0, 2.0, 2.0, 0.5, 2.0, 3.0]),),
        "negatives": (-torch.rand(6, generator=_g(9)),),
        "nan": (torch.tensor([0.7, NAN, 2.0, 3.0, NAN, 4.0]),),
        "nan-first": (torch.tensor([NAN, 1.0, 9.0]),),
        # No +inf: ONNX Runtime's Clip for the original's clamp_min turns it into the float maximum.
        "zeros-and-minus-inf": (torch.tensor([-0.0, 0.0, -INF, 3.0, -INF, 5.0, 3.0]),),
        "one-draw": (torch.tensor([2.0]),),
    }),
}


def _graph_equals_eager(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple, label: str) -> None:
    """The graph's output is eager mode's (shape, dtype; integers and bools exactly, floats to 1e-12
    where a sum's order may differ, NaN where NaN)."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    assert got.shape == want.shape and got.dtype == want.dtype, label
    if want.dtype.kind == "f":
        assert np.allclose(got, want, rtol=0, atol=1e-12, equal_nan=True), label
    else:
        assert np.array_equal(got, want), label


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    fragments, others = VARIANTS[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt307_{name}")
    example = module.inputs(_g(0))

    # Before: the TorchScript exporter has no symbolic for aten::cummax / aten::cummin.
    failed = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert failed.error is not None and re.search("cumm(ax|in)", failed.error), failed.error

    # The rule from the code alone, without --unsafe: every running extreme of the model.
    options = Options(select=("TRT307",), scope="all")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    for fragment in fragments:
        assert fragment in new_source, new_source
    body = new_source.split("\n\n\nclass ", 1)[1]  # below the inserted helpers
    assert not re.search(r"(?<!_trt_)cumm(ax|in)\(", body), body
    findings = check_source(path.read_bytes(), str(path.resolve()), options)
    assert [f.rule for f in findings] == ["TRT307"] * len(fragments)
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt307_rewritten_{name}")

    # After: both exporters; the graphs follow other sizes and values, exactly.
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    dynamo = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "after_dynamo.onnx")
    helpers_end = new_source[:new_source.index("\n\n\nclass ")].count("\n") + 1
    in_helpers = [issue for issue in check_graph(onnx.load(str(tmp_path / "after.onnx")), "10.0")
                  if issue.source and issue.source.startswith(str(new_path))
                  and int(issue.source.rsplit(":", 1)[1]) <= helpers_end]
    assert in_helpers == [], in_helpers
    sets = {"example": example, **others}
    for label, inputs in sets.items():
        if label.startswith("raises-"):  # eager mode raises: compared below, in eager mode only
            continue
        _graph_equals_eager(torchscript, original, inputs, f"torchscript {label}")
        _graph_equals_eager(dynamo, original, inputs, f"dynamo {label}")

    # Eager mode is unchanged, bit for bit: outputs, input gradients, exceptions.
    assert_eager_unchanged(original, rewritten, sets)
