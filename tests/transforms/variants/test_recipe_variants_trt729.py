"""The module-level shape cache recipe (TRT729) on real-code variants.

Each variant in ``tests/recipe_variants/trt729/`` is a small runnable model reduced from a public
repository (cited in its docstring): SfmLearner's pixel grid in a global (and SC-SfMLearner's copy),
the backward-warp grid tables of RIFE, SPyNet and SIBRNet. For each one: an eager call fills the
cache (as the run migrate observes does) at a size at least the traced one; the TorchScript export
with dynamic axes then takes the hit and keeps the cached grid, and the graph fails or differs at a
larger size. The rule rewrites the file (``--unsafe``, as migrate tries a verified candidate); the
rewritten model, exported after the same eager call, equals eager mode at every size, and eager mode
(outputs and the module's cache) is unchanged, bit for bit, over sizes that miss and hit the cache.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from safety import assert_same_run, run_once
from support import TESTS, assert_same
from variant_models import export_variant, graph_matches, load_variant, variant_inputs

from trtcodemod.engine import Options, fix_source

HERE = TESTS / "recipe_variants" / "trt729"

# name → (a fragment of the rewritten code, the module-level cache)
VARIANTS: dict[str, tuple[str, str]] = {
    "sfmlearner_pixel2cam": ("if _trt_tracing() or (grid is None) or grid.size(2) < h:", "grid"),
    "sc_sfmlearner_pixel2cam": ("if _trt_tracing() or (pixel_coords is None) or pixel_coords.size(2) < h:",
                                "pixel_coords"),
    "rife_warp": ("if _trt_tracing() or key not in grids:", "grids"),
    "spynet_backwarp": ("if _trt_tracing() or str(flow.size()) not in backwarp_grid:", "backwarp_grid"),
    "sibrnet_backwarp": ("if _trt_tracing() or str(tenFlow.size()) not in backwarp_tenGrid:", "backwarp_tenGrid"),
}

#: The traced example is (1, 3, 6, 8); a larger and a smaller set, batch and both sides changed.
LARGER, SMALLER = (2, 3, 9, 11), (1, 3, 4, 5)


def _sets(module, shape: tuple[int, ...], seed: int) -> tuple[torch.Tensor, ...]:
    example = module.inputs(torch.Generator().manual_seed(0))
    return variant_inputs(module, [shape] * len(example), seed)


def _built(module) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.build().eval()


def _run(model: torch.nn.Module, inputs: tuple) -> torch.Tensor:
    with torch.no_grad():
        return model(*inputs)


def _cache(module, name: str):
    """The module's cache: a global's tensor, or a table's keys and tensors in key order."""
    value = getattr(module, name)
    if isinstance(value, dict):
        return [(key, value[key]) for key in sorted(value)]
    return value


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    fragment, cache = VARIANTS[name]
    path = HERE / f"{name}.py"
    original_module = load_variant(path, f"trt729_{name}")
    original = _built(original_module)
    example = original_module.inputs(torch.Generator().manual_seed(0))
    larger, smaller = _sets(original_module, LARGER, 1), _sets(original_module, SMALLER, 2)

    # Before: the eager call fills the cache; the export takes the hit and keeps the example's grid.
    _run(original, example)
    before, _ = export_variant(original, example, original_module.DYNAMIC, tmp_path / "before.onnx", HERE)
    assert graph_matches(before, original, example)
    assert not graph_matches(before, original, larger)

    # The rule (unsafe: migrate keeps it only verified) at the cache's `if`.
    options = Options(select=("TRT729",), unsafe=True, scope="all")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    assert fragment in new_source, new_source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    rewritten_module = load_variant(new_path, f"trt729_rewritten_{name}")
    rewritten = _built(rewritten_module)
    rewritten.load_state_dict(original.state_dict())

    # The rewritten graph follows every size, exported after the same eager call.
    _run(rewritten, example)
    after, _ = export_variant(rewritten, example, original_module.DYNAMIC, tmp_path / "after.onnx", HERE)
    for inputs in (example, larger, smaller):
        assert graph_matches(after, rewritten, inputs), (name, [t.shape for t in inputs])

    # Eager mode is unchanged, bit for bit: fresh modules over misses, hits, smaller and larger maps,
    # non-finite values and an empty batch; outputs, gradients, exceptions and the cache alike.
    plain = load_variant(path, f"trt729_eager_{name}")
    changed = load_variant(new_path, f"trt729_eager_rewritten_{name}")
    a, b = _built(plain), _built(changed)
    b.load_state_dict(a.state_dict())
    odd = tuple(t.clone() for t in example)
    odd[0][..., 0, 0] = float("inf")
    odd[0][..., 1, 1] = float("nan")
    odd[0][..., 2, 2] = -0.0
    empty = tuple(torch.zeros((0, *t.shape[1:])) for t in example)
    for index, inputs in enumerate([example, example, larger, smaller, odd, larger, empty, example]):
        assert_same_run(run_once(a, list(inputs)), run_once(b, list(inputs)), context=str(index))
        assert_same(_cache(plain, cache), _cache(changed, cache))
