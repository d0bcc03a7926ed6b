"""The tensor-to-python recipe (TRT702) on real-code variants.

Each variant in ``tests/recipe_variants/trt702/`` is a small runnable model reduced from a public
library (cited in its docstring) that reads a number out of a tensor with ``.item()`` and uses it
where a 0-d tensor stands for the number: an arithmetic operand, a slice bound, the end of
``torch.arange``, a size of ``reshape`` or ``repeat`` (timm's NaFlexViT patch grid, Phi-4's
``int(mask.sum().item())`` crop, which becomes ``mask.sum().long()``). The TorchScript export keeps the example's number: its graph is right on the
example and wrong, or fails, on other values. The rule rewrites each file from the code alone
(``--unsafe``, as migrate tries a verified candidate): the ``.item()`` is dropped. The rewritten
graph equals eager mode on other values and sizes and on edge values, and eager mode is unchanged
bit for bit (outputs, input gradients, exceptions) on those, on inf/NaN values and on an empty input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import pytest
import torch
from safety import assert_same_run, run_once
from variant_models import (
    built,
    built_pair,
    export_variant,
    input_names,
    load_rewritten,
    load_variant,
    variant_inputs,
)

from trtcodemod.engine import Options, check_source, fix_source
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt702"


def _aliked_sets(example: tuple) -> dict[str, tuple]:
    scores, _ = example
    other = torch.rand(2, 1, 9, 16, generator=torch.Generator().manual_seed(1))
    return {
        "other-sizes": (scores, torch.tensor([[10.0, 8.0], [14.0, 12.0]])),
        "other-map": (other, torch.tensor([[16.0, 9.0], [5.0, 6.0]])),
        "tiny": (scores, torch.tensor([[1.0, 1.0], [0.0, 2.0]])),  # a bound below the radius: negative
        # (Sizes past the map's own are left out: the exported slice assignment of a start past
        # the end does not clear nothing as eager mode does; kornia's sizes are within the map.)
        "whole-map": (scores, torch.tensor([[14.0, 12.0], [14.0, 12.0]])),
        "zeros": (torch.zeros_like(scores), torch.tensor([[12.0, 10.0], [14.0, 12.0]])),
        "negatives": (-scores - 1.0, torch.tensor([[13.0, 11.0], [8.0, 9.0]])),
    }


def _qwen_sets(example: tuple) -> dict[str, tuple]:
    return {"other": (torch.tensor([3, 8, 2]),), "odd": (torch.tensor([1, 5, 7]),),
            "one-patch": (torch.tensor([1, 2, 2]),), "empty": (torch.tensor([0, 0, 4]),)}


def _omdet_sets(example: tuple) -> dict[str, tuple]:
    hidden, mask = example
    generator = torch.Generator().manual_seed(3)
    longer = torch.tensor([[1] * 9 + [0] * 2, [1] * 3 + [0] * 8, [1] * 11])
    return {"other": (torch.randn(3, 11, 6, generator=generator), longer),
            "all-padding": (hidden, torch.zeros_like(mask)), "no-padding": (hidden, torch.ones_like(mask)),
            "zeros": (torch.zeros_like(hidden), mask), "negatives": (-hidden.abs() - 1.0, mask)}


def _phi4_sets(example: tuple) -> dict[str, tuple]:
    generator = torch.Generator().manual_seed(4)
    mask_of = _PHI4_MASK
    return {"other-sizes": (torch.randn(1, 7, 6, 4, generator=generator), mask_of(7, 6, 5, 2)),
            "whole-grid": (example[0], mask_of(6, 5, 6, 5)), "one-row": (example[0], mask_of(6, 5, 1, 5)),
            "zeros": (torch.zeros_like(example[0]), mask_of(6, 5, 2, 4)),
            "negatives": (-example[0].abs() - 1.0, mask_of(6, 5, 3, 1))}


def _timm_sets(example: tuple) -> dict[str, tuple]:
    grid = _TIMM_GRID
    other, wide, full = (grid(3, 2, 1, torch.Generator().manual_seed(5)), grid(1, 4, 3, torch.Generator().manual_seed(6)),
                         grid(2, 2, 0, torch.Generator().manual_seed(7)))
    return {"other-grid": other, "one-row": wide, "no-padding": full,
            "zeros": (torch.zeros_like(example[0]), *example[1:]), "negatives": (-example[0].abs() - 1.0, *example[1:])}


def _dav3_sets(example: tuple) -> dict[str, tuple]:
    generator = torch.Generator().manual_seed(8)
    return {"larger": (torch.rand(2, 3, 20, 28, generator=generator),),
            "taller": (torch.rand(1, 3, 32, 8, generator=generator),),
            "one-patch": (torch.rand(1, 3, 4, 4, generator=generator),),
            "zeros": (torch.zeros(1, 3, 24, 24),), "negatives": (-example[0] - 1.0,)}


# name → (fragments of the rewritten code, whether the rule took it before, other input sets)
VARIANTS: dict[str, tuple[tuple[str, ...], bool, Callable[[tuple], dict[str, tuple]]]] = {
    "kornia_aliked_border": (("is_max[i, :, ih - self.radius :, :] = False",
                              "is_max[i, :, :, iw - self.radius :] = False"), True, _aliked_sets),
    "qwen2_vl_vision_positions": (("grid_thw[0] // self.temp_merge_size,", "grid_thw[2] // self.spatial_merge_size,"),
                                  True, _qwen_sets),
    # Not taken before: the name's only uses are slice bounds, not arithmetic.
    "omdet_turbo_task_truncate": (("max_len = (mask != 0).sum(1).max()\n",), False, _omdet_sets),
    # Not taken before: the number is a size of `repeat` (and a slice bound), read with `int(...item())`.
    "phi4_multimodal_useful_crop": (("useful_height = reshaped_image_attention_mask[0, :, 0].sum().long()\n",
                                     "temporary_extensor = self.sub_img_feature_extensor.repeat(1, useful_height, 1, 1)"),
                                    False, _phi4_sets),
    # Not taken before: the numbers are sizes of `reshape` (one through `h * p`).
    "timm_naflex_patch_grid": (("h = (patch_coord[0, :, 0].max() + 1)\n", "patch.reshape(h, w, p, p, 3)",
                                "patch.reshape(3, h * p, w * p)"), False, _timm_sets),
    # Not taken before: `int(t)`, not `.item()`, whose number goes to a method's parameter that is a cache's
    # key and the end of `torch.arange`; `int` is kept for eager mode, the trace gets the tensor.
    "depth_anything_v3_rope_table": (("max_position = _trt_int(positions.max()) + 1\n",), False, _dav3_sets),
}
_PHI4_MASK = load_variant(HERE / "phi4_multimodal_useful_crop.py", "trt702_phi4_masks").mask_of
_TIMM_GRID = load_variant(HERE / "timm_naflex_patch_grid.py", "trt702_timm_grid").grid


def _loaded(name: str, tmp_path: Path):
    return load_rewritten(HERE / f"{name}.py", ("TRT702",), tmp_path, "trt702")


def _models(name: str, tmp_path: Path) -> tuple:
    return built_pair(HERE / f"{name}.py", ("TRT702",), tmp_path, "trt702")


def _graph_matches(session, model: torch.nn.Module, inputs: tuple) -> bool:
    """Whether the graph gives eager mode's output (shape, values, NaN where NaN). Only the inputs the
    graph kept are fed: a trace that folded an input into constants has dropped it."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    kept = {i.name for i in session.get_inputs()}
    feeds = {n: t.numpy() for n, t in zip(input_names(model), inputs) if n in kept}
    try:
        [got] = session.run(None, feeds)
    except Exception:  # noqa: BLE001 - a graph that cannot run on these inputs does not match
        return False
    return got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)


def _non_finite(sets: dict[str, tuple]) -> dict[str, tuple]:
    """inf and NaN in the first input where it is a float (eager only). Not in ALIKED's image
    sizes: a NaN size is cast to the smallest int64, and minus the radius it wraps around as a
    tensor where a Python int does not (the rule's stated assumption: no overflow)."""
    made = {}
    for label, inputs in list(sets.items())[:2]:
        first, *rest = inputs
        if first.is_floating_point():
            first = first.clone()
            first.view(-1)[0], first.view(-1)[-1] = float("inf"), float("nan")
            made[f"{label}-inf-nan"] = (first, *rest)
    return made


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_rewrite(name: str, tmp_path: Path) -> None:
    fragments, _, _ = VARIANTS[name]
    _, text, _ = _loaded(name, tmp_path)
    for fragment in fragments:
        assert fragment in text, text
    assert ".item()" not in text.split('"""', 2)[2], text  # below the docstring (`int(t.item())` too)
    path = HERE / f"{name}.py"
    # Unsafe: never without --unsafe (migrate keeps it only verified).
    assert fix_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT702",), scope="all")).source \
        == path.read_bytes()


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_export_follows_the_values(name: str, tmp_path: Path) -> None:
    _, _, make_sets = VARIANTS[name]
    module, original, rewritten, example = _models(name, tmp_path)
    sets = make_sets(example)

    # Before: the example's number is a constant of the graph; right on the example only.
    before, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    assert any("Python" in message for _, _, message in traced), traced  # the TracerWarning at the .item()
    assert _graph_matches(before, original, example)
    assert not all(_graph_matches(before, original, inputs) for inputs in sets.values())

    # After: no number read out of a tensor, and the graph follows every input set.
    after, traced = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    assert not any("Python" in message for _, _, message in traced), traced
    for label, inputs in {"example": example, **sets}.items():
        assert _graph_matches(after, original, inputs), label


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_eager_unchanged(name: str, tmp_path: Path) -> None:
    _, _, make_sets = VARIANTS[name]
    module, original, rewritten, example = _models(name, tmp_path)
    sets = {"example": example, **make_sets(example)}
    sets.update(_non_finite(sets))
    sets["empty-batch"] = tuple(t[:0] for t in example) if name != "qwen2_vl_vision_positions" \
        else (torch.tensor([], dtype=torch.long),)  # an empty grid: indexing it raises in both
    for label, inputs in sets.items():
        graded = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
        for given in (list(inputs), graded):
            assert_same_run(run_once(original, given), run_once(rewritten, given), context=label)


# name → what the number feeds, which a 0-d tensor would not stand in for
REPORTED = {
    # Rewritten before into code that raises TypeError on every input: `torch.full` takes a number.
    "gemma4_assistant_logits": "fill_value=mask_value",
    # The number is compared, and the comparisons are handed to a checker that reads them as bools.
    "reformer_axial_positions": "_check(max_position_id >= 0",
}


@pytest.mark.parametrize("name", list(REPORTED))
def test_variant_reported_not_rewritten(name: str) -> None:
    path = HERE / f"{name}.py"
    source = path.read_bytes()
    assert REPORTED[name].encode() in source
    options = Options(select=("TRT702",), unsafe=True, scope="all")
    [finding] = check_source(source, str(path.resolve()), options)
    assert finding.fix.value == "none" and "`.item()`" in finding.message, finding
    assert fix_source(source, str(path.resolve()), options).source == source


def test_gemma4_without_the_item_raises() -> None:
    """Why the Gemma 4 head is left: with the ``.item()`` dropped (the old rewrite), ``torch.full``
    gets a 0-d tensor as its fill value and raises in eager mode on every input."""
    module = load_variant(HERE / "gemma4_assistant_logits.py", "trt702_gemma4_check")
    model = built(module)
    example = variant_inputs(module, None, 0)
    model(*example)  # the original runs
    text = (HERE / "gemma4_assistant_logits.py").read_text().replace("min().item() - 1.0", "min() - 1.0")
    namespace: dict = {}
    exec(compile(text, "gemma4_without_item", "exec"), namespace)
    torch.manual_seed(0)
    with pytest.raises(TypeError, match="fill_value"):
        namespace["build"]().eval()(*example)
