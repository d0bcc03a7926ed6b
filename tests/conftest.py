"""The suite's shared setup: its own folder importable (``support``, ``safety``, ``variant_models``)
from the test files in its subfolders (docs/architecture.md, "Tests"), and the order in which
``-n 2 --dist loadfile`` hands files to the workers."""

import pathlib
import sys
from collections import Counter

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

#: Seconds the slowest files took (the sum of their tests, `pytest --durations=0 -n 2`, 2026-11-29,
#: 1813 s in all), keyed by file name: names are unique across the suite's folders.
#: test_safety_exporters.py scaled by its CPU time after the shared torchlib table (137 s -> 64 s). `--dist loadfile` gives a worker the next file in line when it is free: with the
#: longest first, no long file starts last while the other worker has nothing left (the
#: longest-processing-time-first order). Stale figures only change the order, never a result.
SLOW_FILES = {
    "test_safety_exporters.py": 66, "test_temporal_lift.py": 79,
    # The prefilter files: `-n 2` on 2026-12-07, beside another job (the sample over four files, 11m33s in all).
    "test_prefilter.py": 283, "test_prefilter_model_scope.py": 388, "test_prefilter_newest_target.py": 379,
    "test_prefilter_middle_target.py": 289,
    "test_recipe_variants_trt727.py": 72, "test_migrate.py": 55, "test_recipe_variants_trt725.py": 54,
    "test_recipe_variants_trt301.py": 49, "test_zoo.py": 48, "test_recipe_variants_trt306.py": 42,
    "test_recipe_variants_trt402.py": 39, "test_zoo_ray.py": 39, "test_batch.py": 38, "test_detection.py": 37,
    "test_bicubic_resize.py": 37, "test_safety.py": 33, "test_recipe_variants_trt601.py": 33,
    "test_recipe_variants_trt303.py": 30, "test_recipe_variants_trt308.py": 45, "test_recipe_variants_trt401.py": 28, "test_recipe_variants_trt102.py": 26,
    "test_recipe_variants_trt703.py": 25, "test_recipe_variants_trt201.py": 25, "test_size_recipe_variants.py": 25,
    "test_recipe_variants_trt709.py": 47, "test_recipe_variants_trt708.py": 42,
    "test_recipe_variants_trt602.py": 60, "test_recipe_variants_trt603.py": 41, "test_recipe_variants_trt733.py": 27,
    "test_recipe_variants_trt320.py": 24, "test_recipe_variants_trt321.py": 27,
    "test_recipe_variants_trt318.py": 30, "test_recipe_variants_trt319.py": 50,
    "test_recipe_variants_trt732.py": 51, "test_recipe_variants_trt336.py": 30,
    "test_recipe_variants_trt728.py": 47,
    "test_recipe_variants_trt334.py": 31,
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
