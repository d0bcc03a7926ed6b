"""TRT713's blend (a decision on a size whose branches only assign values of one shape) on real-code variants.

Each variant in ``tests/recipe_variants/trt713/`` is a small runnable model reduced from a public repository
(cited in its docstring): the parity of a size picks the odd or the even centring of a grid (piq's and
IQA-PyTorch's ``get_meshgrid``), or moves an even window's samples half a step (kornia's ``gaussian`` and
diffusers' copy of it). For each one: the TorchScript export with dynamic axes warns at the ``if`` (the
observed fact) and its graph keeps the example's parity, wrong at a size of the other parity; the rule rewrites
the file with those facts (``--unsafe``, as migrate tries a verified candidate); the rewritten model's graph
equals eager mode at sizes of both parities, traced at either, with no TracerWarning left; and eager mode is
unchanged, bit for bit (outputs, gradients, exceptions), on sizes of both parities, an empty batch and
non-finite values. GroupViT's ``if height > width:`` is the refusal: a branch reads what it set.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from safety import assert_same_run, run_once
from support import TESTS
from variant_models import built, built_variant, export_variant, graph_matches, load_variant, traced_facts, variant_inputs

from trtcodemod.engine import Options, check_source, fix_source

HERE = TESTS / "recipe_variants" / "trt713"

# name -> (a fragment of the rewritten code, the shapes of inputs at the example's other parity)
VARIANTS: dict[str, tuple[str, list[list[tuple[int, ...]]]]] = {
    "piq_fsim_grid": ("rows = _trt_traced_where(_trt_cond, torch.arange(-(size[0] - 1) / 2",
                      [[(1, 2, 9, 10)], [(1, 2, 8, 7)], [(1, 2, 5, 13)]]),
    "pyiqa_fsim_grid": ("ys = _trt_traced_where(_trt_cond, torch.arange(-(size[0] - 1) / 2",
                        [[(2, 3, 10, 8)], [(1, 3, 12, 14)], [(3, 3, 11, 7)]]),
    "kornia_gaussian_window": ("_trt_cond = _trt_size_truth(window_size % 2 == 0)\n"
                               "        offsets = _trt_traced_where(_trt_cond, offsets + 0.5, offsets)",
                               [[(1, 2, 5, 7)], [(1, 2, 3, 11)], [(1, 2, 4, 6)]]),
    "diffusers_svd_gaussian": ("steps = _trt_traced_where(_trt_cond, steps + 0.5, steps)",
                               [[(2, 3, 7, 5)], [(1, 3, 9, 4)], [(3, 3, 4, 4)]]),
}


def _rewritten(path: Path, traced: list, tmp_path: Path, unsafe: bool = True) -> str:
    options = Options(select=("TRT713",), unsafe=unsafe, facts=traced_facts(path, traced), scope="all")
    return fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_blends_both_cases(name: str, tmp_path: Path) -> None:
    fragment, others = VARIANTS[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt713_{name}")
    example, sets = variant_inputs(module, None, 0), [variant_inputs(module, shapes, seed)
                                                      for seed, shapes in enumerate(others, 1)]

    # Before: the export warns at the `if` and keeps the example's parity.
    before, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    assert graph_matches(before, original, example)
    assert not all(graph_matches(before, original, inputs) for inputs in sets)
    assert traced, "the export warned nowhere"

    new_source = _rewritten(path, traced, tmp_path)
    assert fragment in new_source, new_source
    assert _rewritten(path, traced, tmp_path, unsafe=False) == path.read_text()
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    rewritten = built(load_variant(new_path, f"trt713_rewritten_{name}"))
    rewritten.load_state_dict(original.state_dict())

    # After: the graph follows the parity, traced at the example and at a size of the other parity.
    for trace_at in (example, sets[0]):
        after, warned = export_variant(rewritten, trace_at, module.DYNAMIC, tmp_path / "after.onnx", HERE)
        assert not [w for w in warned if Path(w[0]).resolve() == new_path.resolve()], warned
        for inputs in [example, *sets]:
            assert graph_matches(after, rewritten, inputs), (name, [t.shape for t in inputs])

    # Eager mode is unchanged, bit for bit: both parities, an empty batch, inf/NaN/-0.0, gradients.
    original, rewritten = built(module), built(load_variant(new_path, f"trt713_eager_{name}"))
    rewritten.load_state_dict(original.state_dict())
    odd = sets[0][0].clone()
    odd[..., 0, 0] = float("inf")
    odd[..., 1, 1] = float("nan")
    odd[..., 0, 1] = -0.0
    empty = (torch.zeros((0, *example[0].shape[1:])),)
    for index, inputs in enumerate([example, *sets, (odd,), empty]):
        assert_same_run(run_once(original, list(inputs)), run_once(rewritten, list(inputs)), context=str(index))


def test_groupvit_sides_that_read_each_other_are_left_with_the_reason(tmp_path: Path) -> None:
    path = HERE / "groupvit_attention_grid.py"
    module, model = built_variant(path, "trt713_groupvit")
    example = variant_inputs(module, None, 0)
    _, traced = export_variant(model, example, module.DYNAMIC, tmp_path / "g.onnx", HERE)
    source = path.read_text()
    line = source.splitlines().index("    if height > width:") + 1
    assert any(Path(f).resolve() == path.resolve() and at == line for f, at, _ in traced), traced
    options = Options(select=("TRT713",), unsafe=True, facts=traced_facts(path, traced), scope="all")
    [finding] = [f for f in check_source(path.read_bytes(), str(path.resolve()), options) if f.line == line]
    assert "(not rewritten: a branch reads a name another assignment of this `if` sets)" in finding.message
    assert _rewritten(path, traced, tmp_path) == source
