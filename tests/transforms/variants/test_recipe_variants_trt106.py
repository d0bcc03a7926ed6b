"""The size-loop-script recipe (TRT106) on real-code variants: CRF forward-algorithm and gold-path loops.

Each variant in ``tests/recipe_variants/trt106/`` is a small runnable CRF reduced from a public repository (cited in
its docstring) and says how many loops TRT106 lifts (``LIFTED``). Where it lifts any, the rewritten model traced at
4 steps equals eager mode at 1, 2, 4 and 9 steps and its TorchScript export holds a ``Loop`` per lifted loop that
follows the length in ONNX Runtime; eager mode is unchanged.

The variants added later (TorchCRF's batch-first denominator, tex-ner's copy with a dead step-local) follow the
harness's form: ``inputs(generator, length)``, ``DYNAMIC`` (the sequence axis, the second one when batch first) and
``CALL`` (the ``for`` line TRT106 rewrites). For those, eager mode is also compared on zero, negative and one-step
inputs, with gradients, and ``migrate`` runs end to end on the file: the original's traced graph misses other lengths,
TRT106 is applied at every ``CALL`` line, and the result is equivalent with a faithful graph.
"""

from __future__ import annotations

import inspect
import io
import warnings
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import import_source
from support import TESTS, migrate_json, rewrite, rules_found
from variant_models import assert_eager_unchanged, axes_json, load_variant

HERE = TESTS / "recipe_variants" / "trt106"
VARIANTS = sorted(p.name for p in HERE.glob("*.py"))
LENGTHS = (1, 2, 4, 9)
#: The variants written in the harness's form (``inputs(generator, length)``, ``DYNAMIC``, ``CALL``).
HARNESS = sorted(p.name for p in HERE.glob("*.py") if "\nCALL = " in p.read_text())


def _inputs(ns: dict, length: int) -> tuple:
    """The variant's inputs at ``length`` steps: ``inputs(length)`` for the first variants, ``inputs(generator,
    length)`` (seeded with the length) for those in the harness's form."""
    made = ns["inputs"]
    if next(iter(inspect.signature(made).parameters)) == "length":
        return made(length)
    return made(torch.Generator().manual_seed(length), length)


def _names(ns: dict) -> list[str]:
    return list(inspect.signature(ns["build"]().forward).parameters)


def _axes(ns: dict) -> dict:
    return ns.get("DYNAMIC") or {name: {0: "T"} for name in _names(ns)}


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
            torch.testing.assert_close(after(*_inputs(before_ns, length)), before(*_inputs(before_ns, length)),
                                       rtol=0, atol=0)
        traced = torch.jit.trace(after, _inputs(before_ns, 4), check_trace=False)
        buffer = io.BytesIO()
        names = _names(before_ns)
        torch.onnx.export(after, _inputs(before_ns, 4), buffer, dynamo=False,
                          input_names=names, dynamic_axes=_axes(before_ns))
    graph = onnx.load_from_string(buffer.getvalue()).graph
    assert sum(n.op_type == "Loop" for n in graph.node) == lifted
    session = ort.InferenceSession(buffer.getvalue())
    used = {i.name for i in session.get_inputs()}
    with torch.no_grad():
        for length in LENGTHS:
            args = _inputs(before_ns, length)
            expected = before(*args)
            torch.testing.assert_close(traced(*args), expected, rtol=1e-6, atol=1e-5)
            feeds = {k: v.numpy() for k, v in zip(names, args) if k in used}
            got = torch.from_numpy(session.run(None, feeds)[0])
            torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", HARNESS)
def test_eager_unchanged_on_edge_values(name: str, tmp_path: Path) -> None:
    """Zeros, large negatives, one step, steps masked out, an empty batch and no step at all (an error, the same
    one): outputs, errors and input gradients alike."""
    source = (HERE / name).read_text()
    before_ns = import_source(source, tmp_path)
    after_ns = import_source(rewrite(source, unsafe=True, select=("TRT106",)), tmp_path)
    torch.manual_seed(0)
    before, after = before_ns["build"](), after_ns["build"]()
    after.load_state_dict(before.state_dict())
    emissions, tags, mask = _inputs(before_ns, 5)
    step_axis = next(iter(_axes(before_ns)[_names(before_ns)[0]]))  # the sequence axis (1: batch first)
    masked = mask.clone().transpose(0, step_axis)
    masked[1:] = False
    masked = masked.transpose(0, step_axis)
    sets = {"zeros": (torch.zeros_like(emissions), tags, mask),
            "negatives": (-emissions.abs() * 1e3 - 1, tags, mask),
            "one step": _inputs(before_ns, 1),
            "masked after the first step": (emissions, tags, masked),
            "no step": tuple(t.narrow(step_axis, 0, 0) for t in (emissions, tags, mask)),
            "no sentence": tuple(t.narrow(1 - step_axis, 0, 0) for t in (emissions, tags, mask))}
    assert_eager_unchanged(before, after, sets)


@pytest.mark.parametrize("name", HARNESS)
def test_migrate_lifts_the_loops(name: str) -> None:
    path = HERE / name
    module = load_variant(path, f"trt106_migrate_{path.stem}")
    lines = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == module.CALL]
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    applied = sorted(fix["line"] for fix in report["applied"] if fix["rule"] == "TRT106")
    assert applied == lines and len(lines) == module.LIFTED, (report["applied"], report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
