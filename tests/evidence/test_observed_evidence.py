"""Observed facts as rule evidence (issue 21): the names a recorded run saw holding tensors.

The observer's ``TensorSites`` mode records, at each torch call of the user's code, which
names hold its tensors; :class:`~trtcodemod.providers.ObservedFacts` answers ``is_tensor`` /
``axis_varies`` from that, and the rules that need "this is a tensor" (TRT711, TRT712 through
the size facts, TRT704, TRT702, TRT201) take it as evidence, only when there are facts.
The facts here come from real observed runs (``migrate --save-facts``); the export's
``TracerWarning``s are taken out where a test shows that the observer's records alone suffice.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import libcst as cst
import pytest
import torch

from trtcodemod.astutil import walk
from trtcodemod.context import FileContext
from trtcodemod.evidence.facts import Facts
from trtcodemod.migrate.tensor_sites import varying_axes
from trtcodemod.providers import ObservedFacts
from trtcodemod.registry import rule_by_id
from trtcodemod.versions import parse_target

from support import REPO, TESTS, invoke

EVIDENCE = REPO / "examples" / "evidence"
YOLO = EVIDENCE / "yolo_decode.py"
DYNAMIC = json.dumps({"x": {"0": "batch", "2": "height", "3": "width"}})
FAST = ["--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu"]
SIZE_RULES = "TRT702,TRT704,TRT711,TRT712"

SELECT = '''\
import numpy as np
import torch
from torch import nn

SCALE = np.float32(2.0)


def pick(boxes, keep):
    return boxes[keep]


def positive(boxes, scores):
    return boxes[scores > 0]


def bump(boxes, scores):
    boxes[scores < 0] += 1.0
    return boxes


class Select(nn.Module):
    def count(self, mask):
        return int(mask.sum())

    def forward(self, boxes, scores):
        scale = SCALE.item()
        keep = scores > 0
        n = self.count(keep)
        return pick(boxes, keep) * scale, positive(boxes, scores), bump(boxes.clone(), scores), boxes[:n]


def never_called(scores, boxes):
    kept = scores > 0.5
    m = int(kept.sum())
    return boxes[kept][:m], len(boxes)


class Unused:
    table: dict = {"k": torch.zeros(2)[0]}


LIMITS = [torch.ones(3)[1], min(4, 5)]


def build() -> nn.Module:
    return Select()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(6, 4, generator=generator), torch.randn(6, generator=generator)
'''


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if line.startswith("    ") and text in line)


def observed_only(facts: Path, folder: Path) -> Path:
    """The facts without the export's TracerWarnings: what the observer alone recorded."""
    data = json.loads(facts.read_text())
    data["events"] = [e for e in data["events"] if e["kind"] != "traced"]
    out = folder / "observed.json"
    out.write_text(json.dumps(data))
    return out


def check(*args: str) -> set[tuple[str, int]]:
    result = invoke("check", "--format", "json", *args)
    assert result.exit_code in (0, 1), result.stdout + result.stderr
    return {(f["rule"], f["line"]) for f in json.loads(result.stdout)["findings"]}


@pytest.fixture(scope="module")
def yolo(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """One migrate run of the example (dry run), its JSON report and the facts it saved."""
    folder = tmp_path_factory.mktemp("yolo")
    facts = folder / "facts.json"
    result = invoke("migrate", str(YOLO), "--model", "build", "--inputs", "inputs", "--dynamic-axes", DYNAMIC,
                    "--save-facts", str(facts), "--format", "json", *FAST)
    report = json.loads(result.stdout)
    report = report["models"][0] if "models" in report else report
    return report, observed_only(facts, folder)


@pytest.fixture(scope="module")
def select(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("select")
    model = folder / "select.py"
    model.write_text(SELECT)
    facts = folder / "facts.json"
    invoke("migrate", str(model), "--model", "build", "--inputs", "inputs", "--save-facts", str(facts),
           "--format", "json", *FAST)
    assert facts.exists()
    return model, facts


# --- the observer -------------------------------------------------------------------------------


def test_the_observer_records_the_names_holding_tensors_at_torch_calls(yolo) -> None:
    facts = Facts.read(yolo[1])
    grid = line_of(YOLO, "ny, nx = output.size(2)")
    seen = [e for e in facts.events if e["kind"] == "tensor" and e["line"] == grid]
    assert {e["name"] for e in seen} == {"output"}  # `ny`, `nx` hold ints: never recorded
    assert len(seen) == 2  # one per `output.size(i)` call, each at its own columns
    [first, _] = sorted(seen, key=lambda e: e["column"])
    assert first["dtypes"] == ["float32"] and all(len(shape) == 4 for shape in first["shapes"])
    # x's batch, height and width are dynamic; the conv keeps them and fixes the channels.
    assert first["varying"] == [0, 2, 3] and {shape[1] for shape in first["shapes"]} == {3}
    assert first["count"] == facts.runs  # once per input set: the site ran once each time
    head = line_of(YOLO, "k = min(scores.size(1), 10)")
    assert {e["name"] for e in facts.events if e["kind"] == "tensor" and e["line"] == head} == {"scores"}


def test_varying_axes() -> None:
    assert varying_axes([[1, 3, 8], [2, 3, 9]]) == [0, 2]
    assert varying_axes([[1, 3]]) == []
    assert varying_axes([[1, 3], [1, 3, 1]]) == []  # the rank changed: nothing to say


def test_observing_changes_nothing_the_model_computes() -> None:
    """The mode hands every call on: same values, dtypes, shapes and errors with and without it.

    Run in a child process, as ``migrate`` runs the observer. A Python ``Tensor.__getitem__`` gives
    CPython's type a sequence slot, so a 0-d tensor looks like a sequence to torch: face-alignment's
    ``torch.FloatTensor([hm[y, x + 1] - hm[y, x - 1], ...])`` raised "len() of a 0-d tensor" under
    observation only, and no input set was observed. Indexing is recorded by the mode instead, and
    what the wrappers patch is deleted again, not set back, so the type is as it was after them."""
    script = ("import sys; sys.path[:0] = sys.argv[1:3]; import test_observed_evidence as t; "
              "t.observe_and_compare()")
    done = subprocess.run([sys.executable, "-c", script, str(Path(__file__).parent), str(TESTS)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]


def observe_and_compare() -> None:
    """The body of the test above (in its own process)."""
    from trtcodemod.migrate.observe import Recorder, Wrappers
    from trtcodemod.migrate.tensor_sites import TensorSites
    from trtcodemod.usercode import UserFiles

    def model(x: torch.Tensor) -> torch.Tensor:
        n = len(x)
        return torch.where(x > 0, x / x.sum(), x.new_zeros(())).reshape(n, -1)

    def outcome(x: torch.Tensor) -> Any:
        try:
            return model(x)
        except Exception as exc:  # noqa: BLE001 - the error is part of what must not change
            return type(exc), str(exc)

    def neighbours(hm: torch.Tensor) -> torch.Tensor:
        """face-alignment's quarter-pixel shift (1adrianb/face-alignment, face_alignment/utils.py:166)."""
        diff = torch.FloatTensor([hm[1, 2] - hm[1, 0], hm[2, 1] - hm[0, 1]])
        return torch.as_tensor([hm[1, 1], diff.sign()[0]]) + hm[hm > 0].sum()

    cases = [torch.tensor([[0.0, -1.0], [float("inf"), float("nan")], [0.0, 0.0]]), torch.randn(4, 3),
             torch.zeros(0, 2), torch.tensor(1.0), torch.arange(6).reshape(2, 3)]
    grids = [torch.randn(3, 3), torch.zeros(3, 3), torch.full((3, 3), -2.0)]
    inherited = set(vars(torch.Tensor))
    rec = Recorder(UserFiles([str(Path(__file__).parent)]))
    sites = TensorSites(rec)
    with Wrappers(rec), sites:
        rec.recording = True
        observed = [outcome(x) for x in cases]
        shifted = [neighbours(hm) for hm in grids]
        rec.recording = False
    assert set(vars(torch.Tensor)) == inherited  # nothing patched is left on the class
    plain = [outcome(x) for x in cases]
    for got, hm in zip(shifted, grids):
        assert torch.equal(got, neighbours(hm))
    # Indexing is still recorded at the user's line: the bool mask of `hm[hm > 0]`.
    import inspect

    lines, first = inspect.getsourcelines(neighbours)
    masked = first + next(i for i, text in enumerate(lines) if "hm[hm > 0]" in text)
    assert any(e["kind"] == "index" and e["line"] == masked and e["index"] == "bool:2" for e in rec.events.values())
    assert observed[2] == plain[2] and observed[2][0] is RuntimeError  # reshape of 0 elements to (0, -1)
    assert observed[3] == plain[3] and observed[3][0] is TypeError  # len() of a 0-d tensor
    for a, b in zip(observed[:2] + observed[4:], plain[:2] + plain[4:]):
        assert a.dtype == b.dtype and a.shape == b.shape
        torch.testing.assert_close(a, b, equal_nan=True, rtol=0, atol=0)
    names = {e["name"] for e in sites.events()}
    assert "x" in names  # recorded from this (user) file


# --- the provider ----------------------------------------------------------------------------------


def _context(path: Path, facts: Facts | None) -> FileContext:
    source = path.read_text()
    module = cst.parse_module(source)
    file_facts = facts.for_file(str(path), source=source.encode()) if facts is not None else None
    context = FileContext(path=str(path), module=module, target=parse_target("8.6"), unsafe=False,
                          source=source.encode(), facts=file_facts)
    context.imports.add_imports_from(module.body)
    return context


def _names(module: cst.Module, value: str) -> list[cst.Name]:
    found: list[cst.Name] = []

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value == value:
                found.append(node)

    module.visit(Names())
    return found


@pytest.mark.parametrize("with_facts", [False, True], ids=["no-facts", "facts"])
def test_observed_facts_answer_is_tensor_and_axis_varies(yolo, with_facts: bool) -> None:
    context = _context(YOLO, Facts.read(yolo[1]) if with_facts else None)
    observed = context.provider(ObservedFacts)
    output = [n for n in _names(context.module, "output") if context.position(n).start.line ==
              line_of(YOLO, "ny, nx = output.size(2)")]
    param = _names(context.module, "output")[0]  # `def _grid(output):`
    [ny] = [n for n in _names(context.module, "ny") if context.position(n).start.line ==
            line_of(YOLO, "np.meshgrid(np.arange(ny)")]
    assert len(output) == 2
    assert observed.is_tensor(output[0]) is with_facts
    assert observed.is_tensor(ny) is False  # an int
    assert observed.is_tensor(param) is False  # the `def` line calls no torch function
    assert observed.axis_varies(output[0], 2) is (True if with_facts else None)
    assert observed.axis_varies(output[0], 1) is (False if with_facts else None)  # the conv's channels
    assert observed.axis_varies(output[0], -1) is (True if with_facts else None)
    assert observed.axis_varies(output[0], 4) is None  # no such axis
    assert observed.axis_varies(ny, 0) is None


def _every_node_in_its_scopes(module: cst.Module):
    """(node, its enclosing classes and functions): the traversal's view when a rule asks."""
    def visit(node: cst.CSTNode, scopes: tuple[cst.CSTNode, ...]):
        yield node, scopes
        inner = (*scopes, node) if type(node) in (cst.ClassDef, cst.FunctionDef) else scopes
        for child in node.children:
            yield from visit(child, inner)

    for statement in module.body:
        yield from visit(statement, ())


def test_a_function_nothing_was_observed_in_is_answered_without_positions(select) -> None:
    """A function body where the run recorded nothing gets every answer of "never ran" without the
    position pass; each answer equals the exact one, node by node, in every function (the header
    of one that never ran included: its `def` line ran at import)."""
    model, facts_file = select
    facts = Facts.read(facts_file)
    fast, exact = _context(model, facts), _context(model, facts)
    exact_observed = exact.provider(ObservedFacts)
    exact_observed._silent = lambda node: False  # the reference: every answer from positions
    fast_observed = fast.provider(ObservedFacts)
    mask = rule_by_id("TRT201")
    never = next(s for s in fast.module.body if type(s) is cst.FunctionDef and s.name.value == "never_called")
    fast.scopes[:] = [never]
    for node in walk(never.body):  # what rules ask about: no whitespace or punctuation
        assert fast_observed._silent(node)
        assert (fast_observed.ran(node), fast_observed.reads_values(node), fast_observed.is_tensor(node)) == \
            (False, None, False)
    assert never not in fast._scoped_positions()._by_scope  # its body cost no position pass
    unused = next(s for s in fast.module.body if type(s) is cst.ClassDef and s.name.value == "Unused")
    fast.scopes[:] = [unused]
    attribute = [fast_observed.is_tensor(n) for n in walk(unused.body)]
    fast.scopes[:] = []
    limits = next(s for s in fast.module.body if "LIMITS" in cst.Module([]).code_for_node(s))
    table = [fast_observed.ran(n) for n in walk(limits)]
    assert not any(attribute) and not any(table)  # the observer records no line of the import
    assert fast._scoped_positions()._whole is None and unused not in fast._scoped_positions()._by_scope
    def answers(observed: ObservedFacts, node: cst.CSTNode) -> tuple[Any, ...]:
        return (observed.ran(node), observed.reads_values(node), observed.traced(node), observed.is_tensor(node),
                observed.shapes(node), observed.proof(mask, node))

    asked = 0
    for (node, scopes), (twin, _) in zip(_every_node_in_its_scopes(fast.module), _every_node_in_its_scopes(exact.module)):
        exact.scopes[:] = scopes
        expected = answers(exact_observed, twin)
        # Asked from its own scopes, and from inside the silent function (a rule looking elsewhere).
        for where in (scopes, (never,)):
            fast.scopes[:] = where
            assert answers(fast_observed, node) == expected, cst.Module([]).code_for_node(node)[:60]
            assert fast_observed._silent(node) == (where[-1:] == (never,) and fast._scoped_positions().in_body(node, never))
        asked += any(expected)
    assert asked > 20  # the run observed many of the nodes asked about


# --- the rules ---------------------------------------------------------------------------------------


def test_without_facts_the_helpers_are_silent(yolo) -> None:
    assert check("--select", SIZE_RULES, str(YOLO)) == set()


def test_the_observed_tensors_alone_make_the_size_rules_fire(yolo) -> None:
    """No TracerWarning in these facts: the names seen holding tensors are the evidence."""
    found = check("--select", SIZE_RULES, "--facts", str(yolo[1]), str(YOLO))
    assert found == {
        ("TRT711", line_of(YOLO, "np.meshgrid(np.arange(ny)")),  # `output.size(2)` is a size
        ("TRT712", line_of(YOLO, "k = min(scores.size(1), 10)")),  # `scores.size(1)` is a size
        ("TRT704", line_of(YOLO, "n = len(feats)")),  # what len() saw
    }


def test_facts_about_other_contents_say_nothing(yolo, tmp_path: Path) -> None:
    changed = tmp_path / "yolo_decode.py"
    changed.write_text(YOLO.read_text() + "\n")
    data = json.loads(yolo[1].read_text())
    old = str(YOLO.resolve())
    for event in data["events"]:
        event["path"] = str(changed.resolve()) if event["path"] == old else event["path"]
    data["lines"] = {str(changed.resolve()) if p == old else p: v for p, v in data["lines"].items()}
    data["hashes"] = {str(changed.resolve()) if p == old else p: v for p, v in data["hashes"].items()}
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps(data))
    assert check("--select", SIZE_RULES, "--facts", str(facts), str(changed)) == set()


def test_observed_tensors_and_masks_make_the_indexing_rules_fire_and_a_numpy_item_quiet(select) -> None:
    model, facts = select
    text = model.read_text().splitlines()

    def at(code: str) -> int:
        return next(n for n, line in enumerate(text, 1) if code in line)

    # Without facts: the helpers' parameters could be NumPy arrays (`a[a > 0]` looks the same),
    # `keep` is named like an index (never a mask by its name), and any `.item()` might be a tensor's.
    assert check("--select", "TRT201,TRT202,TRT702", str(model)) == {("TRT702", at("SCALE.item()"))}
    result = invoke("check", "--format", "json", "--select", "TRT201,TRT202,TRT702", "--facts", str(facts),
                    str(model))
    findings = {(f["rule"], f["line"]): f for f in json.loads(result.stdout)["findings"]}
    assert set(findings) == {
        ("TRT201", at("return boxes[keep]")),  # the index was seen to be a 1-D bool tensor
        ("TRT201", at("return boxes[scores > 0]")),  # a comparison of `scores`, seen as a tensor
        ("TRT202", at("boxes[scores < 0] += 1.0")),
        ("TRT702", at("return int(mask.sum())")),  # `mask` seen as a tensor; a value was read
    }  # and `SCALE.item()` ran without reading a tensor value: a NumPy scalar's
    mask = findings["TRT201", at("return boxes[keep]")]
    assert "was a 1-D bool tensor in the recorded run" in mask["message"] and mask["fix"] == "unsafe"
    assert "assumption proved by facts: observed: the index was a 1-D bool tensor" in mask["message"]
    assert findings["TRT201", at("return boxes[scores > 0]")]["fix"] == "safe"


def test_the_proved_mask_fix_applies_and_computes_the_same(select) -> None:
    model, facts = select
    plain = invoke("apply", "--dry-run", "--unsafe", "--select", "TRT201", str(model))
    assert plain.exit_code == 0 and plain.stdout == ""  # without facts: not even a finding
    result = invoke("apply", "--select", "TRT201", "--facts", str(facts), str(model))
    try:
        assert result.exit_code == 0, result.stderr
        after = model.read_text()
    finally:
        model.write_text(SELECT)
    assert "_trt_mask_index(boxes, keep)" in after and "_trt_mask_index(boxes, scores > 0)" in after
    assert "boxes[keep]" not in after.split("def pick")[1]
    namespace_before: dict[str, Any] = {}
    namespace_after: dict[str, Any] = {}
    exec(compile(SELECT, "before.py", "exec"), namespace_before)
    exec(compile(after, "after.py", "exec"), namespace_after)
    cases = [(torch.randn(6, 4), torch.randn(6)), (torch.zeros(0, 4), torch.zeros(0)),
             (torch.tensor([[1.0, float("nan"), -1.0, float("inf")]]), torch.tensor([-0.0]))]
    for boxes, scores in cases:
        for a, b in zip(namespace_before["build"]()(boxes, scores), namespace_after["build"]()(boxes, scores)):
            assert a.dtype == b.dtype and a.shape == b.shape
            torch.testing.assert_close(a, b, equal_nan=True, rtol=0, atol=0)


def _load(path: Path, name: str) -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_the_fixes_the_evidence_allows_compute_the_same(yolo, tmp_path: Path, monkeypatch) -> None:
    """``apply --facts`` on a checkout elsewhere (the facts match it by its relative path): the
    rewritten decode gives the same values, dtypes and shapes, edge inputs included."""
    copy = tmp_path / "examples" / "evidence" / "yolo_decode.py"
    copy.parent.mkdir(parents=True)
    copy.write_text(YOLO.read_text())
    monkeypatch.chdir(tmp_path)
    result = invoke("apply", "--unsafe", "--select", SIZE_RULES, "--facts", str(yolo[1]),
                    "examples/evidence/yolo_decode.py")
    assert result.exit_code == 0, result.stderr
    after = copy.read_text()
    assert "np.meshgrid" not in after and "feats.shape[0]" in after and "_trt_size_min(scores.size(1), 10)" in after
    old, new = _load(YOLO, "yolo_before"), _load(copy, "yolo_after")
    torch.manual_seed(0)
    model = old.build()
    rewritten = new.build()
    rewritten.load_state_dict(model.state_dict())
    cases = [torch.randn(2, 3, 8, 8), torch.zeros(1, 3, 1, 1), -torch.rand(3, 3, 5, 12),
             torch.full((1, 3, 2, 3), float("inf")), torch.full((1, 3, 4, 2), float("nan")), torch.randn(2, 3, 0, 4)]
    for x in cases:
        try:
            expected = model(x)
        except RuntimeError as exc:  # the empty height: the conv refuses it, before and after alike
            with pytest.raises(RuntimeError, match=re.escape(str(exc))):
                rewritten(x)
            continue
        for a, b in zip(expected, rewritten(x)):
            assert a.dtype == b.dtype and a.shape == b.shape
            torch.testing.assert_close(a, b, equal_nan=True, rtol=0, atol=0)


# --- migrate end to end --------------------------------------------------------------------------------


def test_migrate_ends_fixed_faithful_and_equivalent(yolo) -> None:
    report = yolo[0]
    applied = {(a["rule"], a["line"]) for a in report["applied"]}
    assert applied == {
        ("TRT711", line_of(YOLO, "np.meshgrid(np.arange(ny)")),
        ("TRT704", line_of(YOLO, "n = len(feats)")),
        ("TRT712", line_of(YOLO, "k = min(scores.size(1), 10)")),
    }
    assert all(a["landed"] for a in report["applied"])
    assert report["before"]["faithful"] is False
    assert report["after"]["exported"] and report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0
    assert report["equivalent"] is True and report["remaining"] == [] and report["exit_code"] == 0


# --- the documentation ----------------------------------------------------------------------------


def test_the_architecture_table_names_what_each_rule_reads() -> None:
    """docs/architecture.md's table of providers per rule is the registry's declarations."""
    from trtcodemod.registry import rule_classes

    text = (REPO / "docs" / "architecture.md").read_text()
    section = text.split("Which rules read which providers")[1].split("\n\n")[1]
    documented: dict[str, frozenset[str]] = {}
    for row in section.splitlines()[2:]:
        providers, rules = row.split("|")[1:3]
        kinds = frozenset(p.strip(" `") for p in providers.split(",")) - {"none"}
        documented.update({rule.strip(): kinds for rule in rules.split(",")})
    actual = {cls.info.id: frozenset(kind.__name__ for kind in cls.required()) for cls in rule_classes()}
    assert documented == actual
