"""The masked-number recipe (TRT204) on real-code variants.

Each variant in ``tests/recipe_variants/trt204/`` is a small runnable model reduced from a public
repository (cited in its docstring) that writes a number through a boolean mask: padded frames
zeroed through a negated full-shape mask (wav2vec 2.0), ``x[x < 0] = 0`` (MONAI VISTA3D), a
(C,) mask over a (C, D) table (YOLOE), a mask over rows then over columns (SOLD2), and a
write through an indexed view (wav2vec 2.0's ``logits[1:][m] = -inf``). SAM-style ``= 0.0``
through a label mask is covered in ``test_recipe_variants_trt202.py``.

For the rewritten ones the rule rewrites the file from the code alone; the original's dynamo
export holds NonZero (and, for a mask over fewer axes than the tensor, its TorchScript export
is a Where that ONNX Runtime refuses to run); the rewritten one has no NonZero with the dynamo
exporter, and both exporters' graphs equal eager mode at other sizes and on edge values
(all-true and all-false masks, no rows, inf/NaN); eager mode is unchanged bit for bit
(outputs, input gradients, exceptions). The two left forms are reported, and left as they are.
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
import torch
from variant_models import (
    assert_eager_unchanged,
    assert_graph_equals_eager,
    export_variant,
    export_variant_dynamo,
    input_names,
    load_variant,
    rewrite_variant,
    variant_inputs,
)

from trtcodemod.engine import Options, check_source, fix_source
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt204"

# name → (the rewritten line, whether the original's TorchScript graph runs in ONNX Runtime)
VARIANTS: dict[str, tuple[str, bool]] = {
    # A negated full-shape mask, an int literal into float states (the mask's dtype is the
    # input's: evidence by the name only, --unsafe).
    "transformers_wav2vec2_padding": ("_trt_mask_fill_int(hidden_states, ~expand_attention_mask, 0)", True),
    # `x[x < 0] = 0` over a (B, 1, H, W, D) map.
    "monai_vista3d_weight": ("_trt_mask_fill_int(weight, weight < 0, 0)", True),
    # a (C,) mask over a (C, D) table.
    "ultralytics_yoloe_visual_pe": ("_trt_mask_fill_int(visual_pe, cls_visual_num == 0, 0)", False),
}

#: Reported and left: (line, words of the message, the line as it stays).
LEFT = {
    "kornia_sold2_scores": (23, "over inner axes", "scores[:, ~valid_points2.flatten()] = -1"),
    "transformers_wav2vec2_neg_is_pos": (26, "is an indexed view", 'logits[1:][neg_is_pos] = float("-inf")'),
}


def _built(module) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.build().eval()


def _options() -> Options:
    return Options(select=("TRT204",), unsafe=True, scope="all")




def _padding_mask(lengths: list[int], frames: int) -> torch.Tensor:
    return torch.arange(frames)[None, :] < torch.tensor(lengths, dtype=torch.long)[:, None]


def _sets(name: str, module) -> dict[str, tuple]:
    """Other sizes, all-true and all-false masks, no rows, inf/NaN."""
    example = variant_inputs(module, None, 0)
    g = torch.Generator().manual_seed(5)
    if name == "transformers_wav2vec2_padding":
        states, mask = example
        odd = states.clone()
        odd.view(-1)[[0, 13, 40]] = torch.tensor([float("inf"), float("nan"), -float("inf")])
        return {"longer": (torch.randn(3, 11, 6, generator=g), _padding_mask([11, 2, 6], 11)),
                "single": (torch.randn(1, 1, 6, generator=g), _padding_mask([1], 1)),
                "no-padding": (states, torch.ones_like(mask)), "all-padding": (states, torch.zeros_like(mask)),
                "no-batch": (states[:0], mask[:0]), "inf-nan": (odd, mask)}
    if name == "monai_vista3d_weight":
        logits, points, coords = example
        odd = logits.clone()
        odd.view(-1)[[0, 7]] = torch.tensor([float("inf"), float("nan")])
        return {"more": (torch.randn(3, 1, 6, 6, 6, generator=g), torch.randn(3, 1, 6, 6, 6, generator=g),
                         torch.rand(3, 5, 3, generator=g) * 5),
                "far-clicks": (logits, points, coords + 100.0),  # weight 1 everywhere: an all-false mask
                "one-spot": (logits, points, torch.full_like(coords, 2.0)),  # many negative weights
                "no-clicks": (logits, points, coords[:, :0]), "no-batch": (logits[:0], points[:0], coords[:0]),
                "inf-nan": (odd, points, coords)}
    assert name == "ultralytics_yoloe_visual_pe"
    sums, counts = example
    odd = sums.clone()
    odd[1] = torch.tensor([float("inf"), float("nan"), 1.0, -float("inf")])  # a class no prompt showed
    return {"more": (torch.randn(9, 4, generator=g), torch.randint(0, 3, (9,), generator=g)),
            "none-shown": (sums, torch.zeros_like(counts)), "all-shown": (sums, counts + 1),
            "no-classes": (sums[:0], counts[:0]), "inf-nan": (odd, counts)}


def _nonzero(path: Path) -> int:
    return sum(node.op_type == "NonZero" for node in onnx.load(path).graph.node)


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("trt204")
    return {name: rewrite_variant(HERE / f"{name}.py", _options(), folder, f"trt204_rewritten_{name}")
            for name in VARIANTS}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_rewrite_and_dynamo_export(name: str, rewritten: dict, tmp_path: Path) -> None:
    fragment, _ = VARIANTS[name]
    module = load_variant(HERE / f"{name}.py", f"trt204_{name}")
    text, rewritten_module = rewritten[name]
    assert fragment in text, text
    original, after = _built(module), _built(rewritten_module)
    example = variant_inputs(module, None, 0)

    before = tmp_path / "before.onnx"
    export_variant_dynamo(original, example, module.DYNAMIC, before)
    assert _nonzero(before), name

    session = export_variant_dynamo(after, example, module.DYNAMIC, tmp_path / "after.onnx")
    assert not _nonzero(tmp_path / "after.onnx")
    for label, inputs in _sets(name, module).items():
        assert_graph_equals_eager(session, original, inputs, label)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_torchscript_export(name: str, rewritten: dict, tmp_path: Path) -> None:
    module = load_variant(HERE / f"{name}.py", f"trt204_ts_{name}")
    _, rewritten_module = rewritten[name]
    original, after = _built(module), _built(rewritten_module)
    example = variant_inputs(module, None, 0)
    if not VARIANTS[name][1]:
        # A mask over fewer axes than the tensor: the original's Where broadcasts it from the
        # trailing axes, which ONNX Runtime refuses.
        session, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
        with pytest.raises(Exception, match="Where"):
            session.run(None, {n: t.numpy() for n, t in zip(input_names(original), example)})
    session, _ = export_variant(after, example, module.DYNAMIC, tmp_path / "after.onnx", HERE)
    assert not _nonzero(tmp_path / "after.onnx")
    for label, inputs in _sets(name, module).items():
        assert_graph_equals_eager(session, original, inputs, label)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_eager_unchanged(name: str, rewritten: dict) -> None:
    module = load_variant(HERE / f"{name}.py", f"trt204_eager_{name}")
    _, rewritten_module = rewritten[name]
    original, after = _built(module), _built(rewritten_module)
    assert_eager_unchanged(original, after, {"random": variant_inputs(module, None, 0), **_sets(name, module)})


@pytest.mark.parametrize("name", list(LEFT))
def test_reported_and_left(name: str) -> None:
    line, words, code = LEFT[name]
    path = HERE / f"{name}.py"
    source = path.read_bytes()
    findings = [f for f in check_source(source, str(path.resolve()), _options()) if f.line == line]
    assert findings and findings[0].fix.value == "none" and words in findings[0].message, findings
    assert code in fix_source(source, str(path.resolve()), _options()).source.decode()
