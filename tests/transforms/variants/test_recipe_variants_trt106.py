"""The size-loop-script recipe (TRT106) on real-code variants: CRF forward-algorithm and gold-path loops.

Each variant in ``tests/recipe_variants/trt106/`` is a small runnable CRF reduced from a public repository (cited in
its docstring) and says how many loops TRT106 lifts (``LIFTED``). Where it lifts any, the rewritten model traced at
4 steps equals eager mode at 1, 2, 4 and 9 steps and its TorchScript export holds a ``Loop`` per lifted loop that
follows the length in ONNX Runtime; eager mode is unchanged.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import import_source
from support import TESTS, rewrite, rules_found

HERE = TESTS / "recipe_variants" / "trt106"
VARIANTS = sorted(p.name for p in HERE.glob("*.py"))
LENGTHS = (1, 2, 4, 9)


@pytest.mark.parametrize("name", VARIANTS)
def test_variant(name: str, tmp_path: Path) -> None:
    source = (HERE / name).read_text()
    before_ns = import_source(source, tmp_path)
    lifted = before_ns["LIFTED"]
    assert rules_found(source, select=("TRT106",)) == ["TRT106"] * lifted
    after_source = rewrite(source, unsafe=True, select=("TRT106",))
    if not lifted:
        assert after_source == source
        return
    after_ns = import_source(after_source, tmp_path)
    torch.manual_seed(0)
    before = before_ns["build"]()
    after = after_ns["build"]()
    after.load_state_dict(before.state_dict())
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for length in LENGTHS:  # eager mode unchanged
            torch.testing.assert_close(after(*before_ns["inputs"](length)), before(*before_ns["inputs"](length)),
                                       rtol=0, atol=0)
        traced = torch.jit.trace(after, before_ns["inputs"](4), check_trace=False)
        buffer = io.BytesIO()
        axes = {"emissions": {0: "T"}, "tags": {0: "T"}, "mask": {0: "T"}}
        torch.onnx.export(after, before_ns["inputs"](4), buffer, dynamo=False,
                          input_names=["emissions", "tags", "mask"], dynamic_axes=axes)
    graph = onnx.load_from_string(buffer.getvalue()).graph
    assert sum(n.op_type == "Loop" for n in graph.node) == lifted
    session = ort.InferenceSession(buffer.getvalue())
    used = {i.name for i in session.get_inputs()}
    with torch.no_grad():
        for length in LENGTHS:
            args = before_ns["inputs"](length)
            expected = before(*args)
            torch.testing.assert_close(traced(*args), expected, rtol=1e-6, atol=1e-5)
            feeds = {k: v.numpy() for k, v in zip(("emissions", "tags", "mask"), args) if k in used}
            got = torch.from_numpy(session.run(None, feeds)[0])
            torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
