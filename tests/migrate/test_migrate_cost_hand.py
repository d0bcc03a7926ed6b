"""The by-hand pipeline of benchmarks/migrate_cost.py: a graph that is wrong is its finding, and
the timed runs still follow, so the ratio exists (one real export and ONNX Runtime run each)."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path
from typing import Any

import pytest
from support import REPO

BENCHMARKS = REPO / "benchmarks"

#: Each forward but "equal" bakes the traced height into the graph (NumPy reads it as a number),
#: so the graph differs from eager mode at the third input set (the resized one).
_MODELS = {
    "shape": "return x.mean() + torch.from_numpy(np.zeros(x.shape[2], dtype=np.float32))",
    "values": "return x * float(np.int64(x.shape[2]))",
    "equal": "return x * 2.0",
}


@pytest.fixture(scope="module")
def migrate_cost() -> Any:
    """The benchmark script, loaded from its path (it is no package's module)."""
    spec = importlib.util.spec_from_file_location("migrate_cost", BENCHMARKS / "migrate_cost.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _config(folder: Path, body: str) -> Path:
    (folder / "baked.py").write_text(textwrap.dedent(f'''
        import numpy as np
        import torch


        class Baked(torch.nn.Module):
            def forward(self, x):
                {body}


        def build():
            return Baked()


        def inputs(generator):
            return (torch.rand(1, 3, 8, 8, generator=generator),)
        '''))
    config = folder / "models.toml"
    config.write_text('[models.baked]\nmodel_file = "baked.py"\nmodel = "build"\ninputs = "inputs"\n'
                      'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }\n')
    return config


@pytest.mark.parametrize("kind", sorted(_MODELS))
def test_hand_pipeline_records_what_it_found_and_times_on(kind: str, tmp_path: Path, migrate_cost: Any) -> None:
    spec = migrate_cost._spec(f"{_config(tmp_path, _MODELS[kind])}:baked")
    seconds, hand = migrate_cost.by_hand(spec)
    assert "error" not in hand, hand
    found = hand["found"]
    if kind == "equal":
        assert found == "equal" and hand["same"] is True
    else:
        assert found.startswith("set 3 output 0: ") and hand["same"] is False
        assert ("shape [" in found) if kind == "shape" else found.endswith("values differ")
    assert {"eager x20", "onnxruntime x20"} <= set(hand["steps"])
    row = {"model": "baked", "hand_s": seconds, "hand": hand, "migrate_s": 2 * seconds, "migrate": {"exit_code": 0}}
    table = migrate_cost.render([row]).splitlines()
    assert "by hand found" in table[0]
    assert table[2].startswith(f"| baked | {seconds:.1f} | {found} | ") and "| 2.0x |" in table[2]


def test_a_stopped_pipeline_has_no_ratio(migrate_cost: Any) -> None:
    row = {"model": "m", "hand_s": 3.0, "hand": {"error": "Traceback\nImportError: no module x\n"},
           "migrate_s": 6.0, "migrate": {"exit_code": 0}}
    line = migrate_cost.render([row]).splitlines()[2]
    assert "| stopped: ImportError: no module x |" in line and "| - |" in line
