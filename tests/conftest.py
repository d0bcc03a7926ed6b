"""The suite's shared setup: its own folder importable (``support``, ``safety``, ``variant_models``)
from the test files in its subfolders (docs/architecture.md, "Tests"), and the order in which
``-n 2 --dist loadfile`` hands files to the workers."""

import pathlib
import sys
from collections import Counter

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

#: Seconds the slowest files took (the sum of their tests' setup, call and teardown, `pytest --durations=0 -n 2
#: --dist loadfile` on 2026-12-07: 11,533 tests, 6,246 s in all, 53m24s wall, helper sessions running beside it for
#: most of it), keyed by file name: names are unique across the suite's folders; every file of 30 s or more, and the
#: variant files added after that run at their own measured time. `--dist loadfile` gives a worker the next file in
#: line when it is free: with the longest first, no long file starts last while the other worker has nothing left
#: (the longest-processing-time-first order). Stale figures only change the order, never a result.
SLOW_FILES = {
    "test_spectral.py": 271, "test_recipe_variants_trt361.py": 162, "test_recipe_variants_trt360.py": 156,
    "test_per_image_nms.py": 138, "test_prefilter.py": 122, "test_prefilter_middle_target.py": 118,
    "test_prefilter_model_scope.py": 101, "test_prefilter_newest_target.py": 100, "test_shape_cache.py": 99,
    "test_recipe_variants_trt315.py": 94, "test_zoo_ray.py": 81, "test_recipe_variants_trt344.py": 78,
    "test_baked_shapes.py": 71, "test_zoo.py": 70, "test_safety_exporters.py": 69,
    "test_recipe_variants_trt362.py": 64, "test_temporal_lift.py": 64, "test_recipe_variants_trt301.py": 63,
    "test_recipe_variants_trt727.py": 63, "test_layers.py": 59, "test_recipe_variants_trt709.py": 59,
    "test_traversal.py": 58, "test_insertion.py": 56, "test_safety.py": 55, "test_recipe_variants_trt402.py": 55,
    "test_assignment.py": 54, "test_missing_symbolic.py": 52, "test_detection.py": 52, "test_batch.py": 51,
    "test_recipe_variants_trt703.py": 51, "test_recipe_variants_trt313.py": 49, "test_pooling.py": 48,
    "test_migrate.py": 48, "test_size_recipe_variants.py": 47, "test_recipe_variants_trt366.py": 46,
    "test_recipe_variants_trt360_lists.py": 45, "test_recipe_variants_trt316.py": 44, "test_grid_sample_3d.py": 43,
    "test_flex_attention.py": 43, "test_recipe_variants_trt353.py": 41, "test_traced_branch_migrate.py": 41,
    "test_slice_bound_fill.py": 41, "test_recipe_variants_trt381.py": 40, "test_per_image_rows.py": 38,
    "test_guidance_migrate.py": 38, "test_robustness.py": 37, "test_recipe_variants_trt385.py": 36,
    "test_einsum.py": 34, "test_recipe_variants_trt401.py": 34, "test_recipe_variants_trt331.py": 33,
    "test_pool_1d.py": 33, "test_recipe_variants_trt340.py": 33, "test_recipe_variants_trt725.py": 32,
    "test_full_dtype.py": 32, "test_recipe_variants_trt369.py": 32, "test_recipe_variants_trt603.py": 31,
    "test_diagonal.py": 30, "test_recipe_variants_trt306.py": 30,
    "test_recipe_variants_trt738.py": 35, "test_recipe_variants_trt737.py": 37, "test_recipe_variants_trt396.py": 20,
}


@pytest.fixture(autouse=True, scope="session")
def torchlib_table_built_once():
    """Every dynamo export builds the table of torchlib's ONNX functions anew (1.5-1.8 s on this
    machine: most of a small model's export, and the suite exports hundreds). Built once per
    opset here, each export gets its own copy of it: the same table the exporter builds, so the
    graphs are the ones users get (``tests/verify/test_export_table.py``). Exports in worker
    processes build their own, as before. Yields the exporter's own builder."""
    try:
        from torch.onnx._internal.exporter import _constants, _registration
    except ImportError:  # a torch without the table: nothing to share
        yield None
        return
    build = _registration.ONNXRegistry.from_torchlib
    built: dict[int, object] = {}

    def from_torchlib(cls, opset_version=_constants.TORCHLIB_OPSET):
        if opset_version not in built:
            built[opset_version] = build(opset_version)
        table, copy = built[opset_version], cls()
        copy._opset_version = table._opset_version
        # A copy per export: registering a custom function changes its lists, never the table's.
        copy.functions = {name: list(metas) for name, metas in table.functions.items()}
        return copy

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_registration.ONNXRegistry, "from_torchlib", classmethod(from_torchlib))
        yield build


def pytest_configure(config):
    # xdist would sort the files by their number of tests; the order below is the one wanted.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config, items):
    """The slow files first, longest first; then the rest by their number of tests, as xdist does."""
    counts = Counter(item.path.name for item in items)
    items.sort(key=lambda item: (-SLOW_FILES.get(item.path.name, 0), -counts[item.path.name], str(item.path)))
