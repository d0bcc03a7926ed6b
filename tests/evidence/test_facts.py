"""``check``/``apply --facts``: facts saved by ``migrate --save-facts`` make the static pass
check the way the recorded run showed (TRT101 by observed value reads; unsafe fixes whose
assumption was observed are applied without ``--unsafe``, with the proof in the message)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.evidence.facts import Facts, FactsError

from support import REPO, invoke

MODEL = '''\
import torch
from torch import nn


def gain(x):
    return x.mean()


class Gate(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        g = gain(x)
        if g > 0:
            x = x * 2.0
        first = x.tolist()
        if first[0][0] > 100:
            x = x + 1.0
        logits = self.head(x)
        return logits.squeeze(1)


def build() -> nn.Module:
    return Gate()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 4, generator=generator),)
'''

HIDDEN_IF = "if g > 0:"  # a value read the syntax cannot show (gain() is opaque)
PYTHON_IF = "if first[0][0] > 100:"  # syntax says tensor data; the run read none on this line
SQUEEZE = "return logits.squeeze(1)"


def _line(text: str) -> int:
    return next(n for n, line in enumerate(MODEL.splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The model and the facts ``migrate --save-facts`` wrote for it (one observed migrate run)."""
    folder = tmp_path_factory.mktemp("facts")
    model = folder / "model.py"
    model.write_text(MODEL)
    facts = folder / "facts.json"
    result = invoke("migrate", str(model), "--model", "build", "--inputs", "inputs", "--save-facts", str(facts),
                    "--format", "json", "--runs", "1", "--warmup", "0", "--backends", "torch-cpu")
    assert facts.exists(), result.stdout
    return model, facts


def _check_json(*args: str) -> list[dict]:
    result = invoke("check", "--format", "json", "--select", "TRT101,TRT401", *args)
    assert result.exit_code in (0, 1), result.stdout + result.stderr
    return json.loads(result.stdout)["findings"]


def test_without_facts_only_syntax_decides(saved: tuple[Path, Path]) -> None:
    model, _ = saved
    found = {(f["rule"], f["line"]) for f in _check_json(str(model))}
    assert found == {("TRT101", _line(PYTHON_IF)), ("TRT401", _line(SQUEEZE))}


def test_check_with_facts_follows_the_observed_reads_and_shows_the_proof(saved: tuple[Path, Path]) -> None:
    model, facts = saved
    findings = _check_json(str(model), "--facts", str(facts))
    by_rule = {(f["rule"], f["line"]): f for f in findings}
    assert set(by_rule) == {("TRT101", _line(HIDDEN_IF)), ("TRT401", _line(SQUEEZE))}
    assert "observed: the recorded run read a tensor value" in by_rule["TRT101", _line(HIDDEN_IF)]["message"]
    squeeze = by_rule["TRT401", _line(SQUEEZE)]
    assert "assumption proved by facts: observed: the squeezed axis had size 1 in all 3 call(s)" in squeeze["message"]
    assert squeeze["fix"] == "unsafe"


def test_apply_with_facts_applies_the_proved_fix_without_unsafe(saved: tuple[Path, Path]) -> None:
    model, facts = saved
    plain = invoke("apply", "--dry-run", "--select", "TRT401", str(model))
    assert plain.exit_code == 0 and plain.stdout == ""  # without facts: unsafe, nothing proves it
    result = invoke("apply", "--select", "TRT101,TRT401", "--facts", str(facts), str(model))
    assert result.exit_code == 0, result.stderr
    after = model.read_text()
    try:
        assert "logits[:, 0]" in after and "squeeze(1)" not in after
        assert HIDDEN_IF in after  # TRT101's fix stays unsafe: no fact proves its assumption
        assert "Fixed 1 finding" in result.stderr
    finally:
        model.write_text(MODEL)


def test_config_key_and_a_moved_checkout(saved: tuple[Path, Path], tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """CI checks out elsewhere: a relative path matches the one facts file that ends with it."""
    model, facts = saved
    (tmp_path / "src").mkdir()
    shutil.copy(model, tmp_path / "src" / "model.py")
    shutil.copy(facts, tmp_path / "facts.json")
    data = json.loads(facts.read_text())
    # Make the facts' file live under a folder that ends like the checkout's: .../src/model.py.
    old = str(model.resolve())
    new = str(Path("/elsewhere/ci/src/model.py"))
    for event in data["events"]:
        event["path"] = new if event["path"] == old else event["path"]
    data["lines"] = {new if p == old else p: v for p, v in data["lines"].items()}
    (tmp_path / "facts.json").write_text(json.dumps(data))
    (tmp_path / "pyproject.toml").write_text('[tool.trtcodemod]\nfacts = "facts.json"\n')
    monkeypatch.chdir(tmp_path)
    found = {(f["rule"], f["line"]) for f in _check_json("src/model.py")}
    assert found == {("TRT101", _line(HIDDEN_IF)), ("TRT401", _line(SQUEEZE))}


def test_engine_facts_in_later_passes_meet_only_unchanged_lines(saved: tuple[Path, Path]) -> None:
    """After a fix moved lines, the rest of the file still meets its facts by the original lines."""
    model, facts = saved
    loaded = Facts.read(facts)
    result = fix_source(MODEL.encode(), str(model), Options(select=("TRT401", "TRT101"), facts=loaded))
    assert "logits[:, 0]" in result.source.decode()
    remaining = check_source(result.source, str(model), Options(select=("TRT101",), facts=loaded),
                             original=MODEL.encode())
    assert [f.line for f in remaining] == [_line(HIDDEN_IF)]


@pytest.mark.parametrize("content,why", [
    (None, "no such file"),
    ("{not json", "invalid JSON"),
    ('{"version": 1, "events": [{"kind": "value_read"}]}', "event 0 lacks"),
    ('{"version": 7}', "facts version 7"),
    ("[1, 2]", "not a JSON object"),
])
@pytest.mark.parametrize("command", ["check", "apply"])
def test_missing_or_malformed_facts_exit_2(tmp_path: Path, command: str, content: str | None, why: str) -> None:
    (tmp_path / "m.py").write_text(MODEL)
    facts = tmp_path / "facts.json"
    if content is not None:
        facts.write_text(content)
    result = invoke(command, "--facts", str(facts), str(tmp_path / "m.py"))
    assert result.exit_code == 2
    assert result.stderr.startswith("trtcodemod: error: --facts: ") and why in result.stderr
    assert "Traceback" not in result.stderr
    assert (tmp_path / "m.py").read_text() == MODEL


def test_malformed_facts_in_config_exit_2(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(MODEL)
    (tmp_path / "pyproject.toml").write_text('[tool.trtcodemod]\nfacts = "missing.json"\n')
    result = invoke("check", str(tmp_path / "m.py"))
    assert result.exit_code == 2 and "missing.json: no such file" in result.stderr


def test_facts_read_error_is_one_message(tmp_path: Path) -> None:
    with pytest.raises(FactsError, match="no such file"):
        Facts.read(tmp_path / "none.json")


def test_facts_about_a_changed_file_prove_nothing_and_say_so(saved: tuple[Path, Path]) -> None:
    """Facts observed before a configuration change must not prove a fix on the new code."""
    model, facts = saved
    assert json.loads(facts.read_text())["hashes"] == {str(model.resolve()): hashlib.sha256(MODEL.encode()).hexdigest()}
    changed = MODEL.replace("nn.Linear(4, 1)", "nn.Linear(4, 3)")  # the squeezed axis is no longer 1
    model.write_text(changed)
    try:
        result = invoke("check", "--format", "json", "--select", "TRT101,TRT401", "--facts", str(facts), str(model))
        findings = {(f["rule"], f["line"]): f for f in json.loads(result.stdout)["findings"]}
        assert "proved" not in findings["TRT401", _line(SQUEEZE)]["message"]
        assert ("TRT101", _line(HIDDEN_IF)) not in findings  # the observed read is not evidence either
        assert "facts were observed on other contents of this file; they prove nothing here" in result.stderr
        applied = invoke("apply", "--select", "TRT401", "--facts", str(facts), str(model))
        assert applied.exit_code == 0 and model.read_text() == changed
    finally:
        model.write_text(MODEL)


KERNEL = '''\
import torch

_LIB = torch.library.Library("trtcodemod_test", "DEF")
_LIB.define("keep_positive(Tensor x) -> Tensor")


def _keep_positive(x):
    flags = (x > 0).tolist()  # a Python kernel reads values: the operator's business, not the model's
    return x.new_tensor([v if f else 0.0 for v, f in zip(x.tolist(), flags)])


_LIB.impl("keep_positive", _keep_positive, "CompositeExplicitAutograd")
'''
CALLS_A_KERNEL = '''\
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "site-packages"))
import kernel  # noqa: E402,F401  (defines torch.ops.trtcodemod_test.keep_positive)
import torch  # noqa: E402
from torch import nn  # noqa: E402


class Net(nn.Module):
    def forward(self, x):
        y = torch.ops.trtcodemod_test.keep_positive(x)
        n = int(x.sum() > 0)
        return y * n


def build():
    return Net()


def inputs(generator):
    return (torch.randn(5, generator=generator),)
'''


def test_value_reads_inside_an_operators_python_kernel_are_not_the_models(tmp_path: Path) -> None:
    """A torch.library op's Python kernel (installed code) may read values; the export records the
    op as one node, so its reads are no baked value at the user's call line. The user's own read is."""
    from trtcodemod.migrate.run import observe
    from trtcodemod.verify.spec import build_spec

    (tmp_path / "site-packages").mkdir()  # installed code, outside the model's folder
    (tmp_path / "site-packages" / "kernel.py").write_text(KERNEL)
    (tmp_path / "project").mkdir()
    model = tmp_path / "project" / "net.py"
    model.write_text(CALLS_A_KERNEL)
    facts, why = observe(build_spec({"model_file": str(model), "model": "build", "inputs": "inputs"}), tmp_path)
    assert facts is not None, why
    reads = {(e["line"], e["method"]) for e in facts.events if e["kind"] == "value_read"}
    lines = CALLS_A_KERNEL.splitlines()
    call_line = next(i for i, text in enumerate(lines, 1) if "keep_positive(x)" in text)
    own_line = next(i for i, text in enumerate(lines, 1) if "int(x.sum() > 0)" in text)
    assert not any(line == call_line for line, _ in reads)
    assert (own_line, "__bool__") in reads or (own_line, "__int__") in reads


def test_a_function_the_run_executed_is_model_code_whatever_its_name(tmp_path: Path) -> None:
    """`make_grid` is also torchvision's image-grid helper, so `--scope model` skips a function of
    that name; the recorded run saw the model run it (its TracerWarnings), which settles it."""
    model = tmp_path / "numpy_grid.py"
    shutil.copy(REPO / "examples" / "guidance" / "numpy_grid.py", model)
    facts = tmp_path / "facts.json"
    invoke("migrate", str(model), "--model", "build", "--inputs", "inputs", "--save-facts", str(facts),
           "--dynamic-axes", '{"x": {"2": "h", "3": "w"}}', "--format", "json", "--runs", "1", "--warmup", "0",
           "--backends", "torch-cpu")
    result = invoke("check", "--format", "json", "--select", "TRT711", "--facts", str(facts), str(model))
    grid_line = next(i for i, text in enumerate(model.read_text().splitlines(), 1) if "np.meshgrid" in text)
    assert grid_line in {f["line"] for f in json.loads(result.stdout)["findings"]}, result.stdout
    # Without the recorded run the name decides (and nothing proves `output` is a tensor anyway).
    plain = invoke("check", "--format", "json", "--select", "TRT711", str(model))
    assert json.loads(plain.stdout)["findings"] == []


def test_a_module_built_at_a_line_is_no_forward_code_and_is_found_by_its_call_span() -> None:
    """A factory's call that built a pool ran while the model was built: its record marks no forward line (which
    `--scope model` takes as model code), and answers for exactly the call's span."""
    event = {"kind": "module_built", "path": "/p/f.py", "line": 4, "column": 12, "end_line": 4, "end_column": 30,
             "direct": True, "count": 1, "cls": "torch.nn.MaxPool1d"}
    read = {"kind": "value_read", "path": "/p/f.py", "line": 9, "column": 5, "end_line": 9, "end_column": 20,
            "direct": True, "count": 1, "method": "item"}
    call = {"kind": "module_call", "path": "/p/f.py", "line": 8, "column": 9, "end_line": 8, "end_column": 20,
            "direct": True, "count": 3, "cls": "torch.nn.MaxPool1d", "built": ["/p/f.py", 4, 12, 4, 30]}
    facts = Facts.from_json({"events": [event, read, call], "lines": {"/p/f.py": [4, 8, 9]}})
    one = facts.for_file("/p/f.py")
    assert one is not None and one.forward_lines() == {8, 9}
    assert one.built(4, 12, 4, 30) == ["torch.nn.MaxPool1d"] and one.built(4, 13, 4, 30) == []
    assert one.built_classes() == ["torch.nn.MaxPool1d"]
    assert [(s.line, s.column, s.end_column) for s in facts.builds_called_at("/p/f.py", 8)] == [(4, 12, 30)]
    assert facts.builds_called_at("/p/f.py", 9) == []
