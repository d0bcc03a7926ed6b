"""The len-of-tensor recipe (TRT704) on real-code variants.

Each variant in ``tests/recipe_variants/trt704/`` is a small runnable model reduced from a public
library or repository (cited in its docstring) that sizes a view, a buffer or a repeat with
``len()`` of a tensor. The TorchScript export with dynamic axes records that ``len`` as the
example's number and is wrong, or fails, at other sizes. The rule rewrites the file as migrate
does: from the code alone where a ``Tensor`` annotation proves the argument (safe), otherwise from
the run migrate's observer records (a tensor at every call; ``x.shape[0]`` in ``forward`` or a
private function only the run called). The rewritten graph equals eager mode at other sizes and
on zero and negative values, and eager mode is unchanged, bit for bit (outputs, gradients,
exceptions), on those, on inf/NaN values and on an empty batch.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from safety import assert_same_run, run_once
from variant_models import export_variant, graph_matches, load_variant, observed_facts, variant_inputs

from trtcodemod.engine import Options, fix_source
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt704"

# name → (rewritten from the code alone?, the rewritten line, input shapes of two other input sets)
VARIANTS: dict[str, tuple[bool, str, list[list[tuple[int, ...]]]]] = {
    # Not taken before: `x` is rebound (`x = self.act(self.conv1(x))`) after the `len`, which
    # cannot reach it; the rule refused any rebinding but `x = x.<method>(...)`.
    "ultralytics_patch_merging": (True, "B = x.shape[0]", [[(3, 16, 6)], [(1, 16, 6)]]),
    "kornia_keypoints_grid": (True, "n_points = keypoints.shape[0]", [[(1, 3, 8, 8), (11, 2)], [(1, 3, 8, 8), (1, 2)]]),
    "detectron2_roi_pooler": (False, "num_boxes = pooler_fmt_boxes.shape[0]",
                              [[(1, 5, 8, 8), (1, 5, 4, 4), (12, 4)], [(1, 5, 8, 8), (1, 5, 4, 4), (3, 4)]]),
    "rtdetr_query_select": (False, "batch_size = source_flatten.shape[0]",
                            [[(3, 3, 4, 4), (3, 5, 2, 2)], [(1, 3, 4, 4), (1, 5, 2, 2)]]),
    "sparse_rcnn_dynamic_head": (False, "bs = features[0].shape[0]",
                                 [[(3, 6, 8, 8), (3, 6, 4, 4)], [(1, 6, 8, 8), (1, 6, 4, 4)]]),
}


def _built(module) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.build().eval()


def _rewrite(path: Path, facts) -> str:
    options = Options(select=("TRT704",), scope="all", facts=facts)
    return fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()


def _value_sets(module, others) -> dict[str, tuple]:
    """The example and the other sizes, each also as zeros and as negatives."""
    example = variant_inputs(module, None, 0)
    sets = {f"size{seed}": variant_inputs(module, shapes, seed) for seed, shapes in enumerate(others, 1)}
    for label, base in (("example", example), *list(sets.items())):
        sets[label] = base
        sets[f"{label}-zeros"] = tuple(torch.zeros_like(t) for t in base)
        sets[f"{label}-negatives"] = tuple(-t.abs() - 0.5 for t in base)
    return sets


def _non_finite(sets: dict[str, tuple]) -> dict[str, tuple]:
    """inf and NaN in every input (eager only: onnxruntime's grid_sample and topk order NaN otherwise)."""
    made = {}
    for label in ("example", "size1"):
        odd = []
        for t in sets[label]:
            t = t.clone()
            flat = t.view(-1)
            flat[0], flat[-1] = float("inf"), float("nan")
            odd.append(t)
        made[f"{label}-inf-nan"] = tuple(odd)
    return made


def _empty(module) -> tuple:
    """The example with every dynamic axis emptied."""
    made = []
    for t, axes in zip(variant_inputs(module, None, 0), module.DYNAMIC.values()):
        shape = list(t.shape)
        for axis in axes:
            shape[axis] = 0
        made.append(torch.zeros(shape))
    return tuple(made)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    from_code, fragment, others = VARIANTS[name]
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt704_{name}")
    original = _built(module)
    example = variant_inputs(module, None, 0)
    sets = _value_sets(module, others)

    # Before: the export keeps the example's count; it is wrong, or fails, at the other sizes.
    before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    assert graph_matches(before, original, example)
    assert not any(graph_matches(before, original, variant_inputs(module, shapes, seed))
                   for seed, shapes in enumerate(others, 1))

    # The rule from the code alone, then with what migrate's observer records.
    alone = _rewrite(path, None)
    assert (fragment in alone) is from_code, alone
    new_source = alone if from_code else _rewrite(path, observed_facts(path, module, tmp_path))
    assert fragment in new_source, new_source
    assert "len(" not in new_source.split('"""', 2)[2], new_source  # below the docstring
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    rewritten = _built(load_variant(new_path, f"trt704_rewritten_{name}"))

    # The rewritten graph follows every size and value (finite: see _non_finite).
    after, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in sets.items():
        assert graph_matches(after, original, inputs, equal_nan=True), label

    # Eager mode is unchanged, bit for bit: outputs, input gradients, exceptions (the empty batch).
    for label, inputs in [*sets.items(), *_non_finite(sets).items(), ("empty", _empty(module))]:
        graded = [t.clone().requires_grad_() for t in inputs]
        for given in (list(inputs), graded):
            assert_same_run(run_once(original, given), run_once(rewritten, given), context=label)
