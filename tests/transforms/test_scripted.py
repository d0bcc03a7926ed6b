"""TRT105: scripted functions with control flow inside a traced export — findings and exports."""

from __future__ import annotations

import textwrap
import warnings

import pytest
import torch

from support import onnx_ops, rewrite, rules_found

from trtcodemod.engine import Options, check_source

HEADER = "import torch\nimport torch.nn as nn\nfrom typing import List\n"


def _found(code: str) -> list[str]:
    return [r for r in rules_found(HEADER + textwrap.dedent(code), select=("TRT105",))]


LOOP = """
@torch.jit.script
def decode(x, steps: int):
    for _ in range(steps):
        x = x * 0.5 + 1
    return x
"""

APPEND = """
def gather_rows(x):
    out: List[torch.Tensor] = []
    for i in range(x.shape[0]):
        if bool(x[i].sum() > 0):
            out.append(x[i])
    return torch.stack(out)

gather_rows_s = torch.jit.script(gather_rows)
"""

BRANCH = """
@torch.jit.script
def clamp_or_shift(x):
    if bool(x.sum() > 0):
        return x * 2
    return x - 1
"""

PLAIN = """
@torch.jit.script
def affine(x, a: float):
    return x * a + 1
"""

IF_TRACING = """
@torch.jit._script_if_tracing
def accumulate(x):
    for i in range(x.shape[0]):
        x = x + i
    return x
"""


@pytest.mark.parametrize("code", [LOOP, APPEND, BRANCH, IF_TRACING])
def test_reported(code: str) -> None:
    assert _found(code) == ["TRT105"]


def test_message_names_the_function_and_sequence_ops() -> None:
    from trtcodemod.engine import Options, check_source

    findings = check_source((HEADER + APPEND).encode(), "m.py", Options(select=("TRT105",)))
    assert len(findings) == 1
    assert "`gather_rows`" in findings[0].message and "Sequence" in findings[0].message
    findings = check_source((HEADER + IF_TRACING).encode(), "m.py", Options(select=("TRT105",)))
    assert "`accumulate`" in findings[0].message and "unrolls" in findings[0].message


@pytest.mark.parametrize("code", [
    PLAIN,  # no control flow: plain operators
    # a loop only in a nested function, compiled on its own terms
    "@torch.jit.script\ndef outer(x):\n    return x + 1\n\ndef helper(x):\n    for i in range(3):\n        x = x + i\n"
    "    return x\n",
    # scripting a whole module, or an imported function: nothing to judge here
    "model = torch.jit.script(nn.Linear(2, 2))\n",
    "from mylib import step\nstep_s = torch.jit.script(step)\n",
    # a user's own `script` decorator
    "def script(f):\n    return f\n\n@script\ndef loop(x):\n    for i in range(3):\n        x = x + i\n    return x\n",
    # an undecorated loop (TRT101's and the loop rules' business, not this one)
    "def loop(x):\n    for i in range(3):\n        x = x + i\n    return x\n",
    # torch.jit.trace is not scripting
    "def loop(x):\n    for i in range(3):\n        x = x + i\n    return x\n\nt = torch.jit.trace(loop, torch.ones(2))\n",
])
def test_not_reported(code: str) -> None:
    assert _found(code) == []


def test_the_decorator_is_removed_only_with_unsafe() -> None:
    source = HEADER + LOOP
    assert rewrite(source, select=("TRT105",)) == source
    assert rewrite(source, unsafe=True, select=("TRT105",)) == source.replace("@torch.jit.script\n", "")


@pytest.mark.parametrize("code", [
    APPEND,  # torch.jit.script(fn): the function stays as it is, the call compiles it
    "\n@torch.jit.script\n@staticmethod\ndef steps(x, n: int):\n    for _ in range(n):\n        x = x + 1\n    return x\n",
])
def test_no_fix_where_removing_one_decorator_is_not_the_whole_story(code: str) -> None:
    source = HEADER + textwrap.dedent(code)
    assert "TRT105" in rules_found(source, select=("TRT105",))
    assert rewrite(source, unsafe=True, select=("TRT105",)) == source


@pytest.mark.parametrize("decorator, imports", [
    ("@torch.jit._script_if_tracing", ""),
    ("@torch.jit.script_if_tracing", ""),
    # a library's own copy, imported relatively (asteroid-filterbanks) or defined beside it
    ("@script_if_tracing", "from .scripting import script_if_tracing\n"),
    ("@utils.script_if_tracing", "from . import utils\n"),
])
def test_script_if_tracing_is_dropped_with_unsafe(decorator: str, imports: str) -> None:
    """Eager mode never scripts such a function (the decorator calls it as Python unless a trace is
    running), so dropping the decorator changes only what a trace records."""
    body = f"\n{decorator}\ndef steps(x, n: int):\n    for _ in range(n):\n        x = x + 1\n    return x\n"
    source = HEADER + imports + body
    assert rules_found(source, select=("TRT105",)) == ["TRT105"]
    assert rewrite(source, select=("TRT105",)) == source
    assert rewrite(source, unsafe=True, select=("TRT105",)) == source.replace(decorator + "\n", "")


def test_a_decorator_merely_ending_in_tracing_is_not_script_if_tracing() -> None:
    source = HEADER + "\n@log_if_tracing\ndef steps(x, n: int):\n    for _ in range(n):\n        x = x + 1\n    return x\n"
    assert rules_found(source, select=("TRT105",)) == []


CALLED = """
@torch.jit.script
def per_image(scores: torch.Tensor, k: int) -> torch.Tensor:
    out: List[torch.Tensor] = []
    for i in range(scores.shape[0]):
        out.append(scores[i].topk(k).values)
    return torch.stack(out)


class Head(nn.Module):
    def forward(self, x):
        return per_image(x.flatten(1), 3)


def build():
    return Head()


def inputs(generator):
    return [torch.randn(2, 3, 4, 4, generator=generator)]
"""


def test_a_call_in_forward_is_a_finding_with_the_same_fix() -> None:
    source = HEADER + CALLED
    findings = check_source(source.encode(), "snippet.py", Options(select=("TRT105",)))
    assert [(f.line, "called here" in f.message) for f in findings] == [(6, False), (15, True)]
    assert rewrite(source, unsafe=True, select=("TRT105",)) == source.replace("@torch.jit.script\n", "")


@pytest.mark.parametrize("x", [torch.randn(3, 7), torch.zeros(0, 5), torch.full((2, 4), float("inf")),
                               -torch.arange(10.0).reshape(2, 5)])
def test_the_function_unscripted_computes_what_it_did_scripted(tmp_path, x: torch.Tensor) -> None:
    scripted = _load(tmp_path, CALLED, "per_image")
    plain = _load(tmp_path, rewrite(HEADER + CALLED, unsafe=True, select=("TRT105",))[len(HEADER):], "per_image")
    assert isinstance(scripted, torch.jit.ScriptFunction) and not isinstance(plain, torch.jit.ScriptFunction)
    k = min(3, x.shape[1])
    if x.shape[0] == 0:
        for fn in (scripted, plain):  # stacking no tensor raises, scripted or not
            with pytest.raises(RuntimeError):
                fn(x, k)
        return
    torch.testing.assert_close(plain(x, k), scripted(x, k), rtol=0, atol=0, equal_nan=True)


def test_migrate_removes_the_decorator_where_the_sequence_ops_are_and_proves_it(tmp_path) -> None:
    from support import migrate_json

    model = tmp_path / "head.py"
    model.write_text(HEADER + CALLED)
    report = migrate_json(model, "{}")
    assert report["before"]["trt_errors"] > 0  # SequenceEmpty / SequenceInsert / ConcatFromSequence
    [fix] = report["applied"]
    assert fix["rule"] == "TRT105" and fix["proof"].startswith("verified:")
    assert report["exit_code"] == 0 and report["after"]["trt_errors"] == 0


# --- what the rule claims about the exports (torch 2.13) ------------------------------------


def _load(tmp_path, code: str, name: str):
    """Import ``code`` from a real file: TorchScript compiles from the source file."""
    import importlib.util

    path = tmp_path / f"scripted_{tmp_path.name.replace('-', '_')}_{abs(hash(code))}.py"
    path.write_text(HEADER + code)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def _wrap(fn, *extra):
    class M(torch.nn.Module):
        def forward(self, x):
            return fn(x, *extra)
    return M()


def test_traced_export_keeps_the_loop_and_branch(tmp_path) -> None:
    decode = _load(tmp_path, LOOP, "decode")
    ops = onnx_ops(_wrap(decode, 3), (torch.randn(4, 3),))
    assert "Loop" in ops
    branch = _load(tmp_path, BRANCH, "clamp_or_shift")
    assert "If" in onnx_ops(_wrap(branch), (torch.randn(4, 3),))
    gather = _load(tmp_path, APPEND, "gather_rows_s")
    ops = onnx_ops(_wrap(gather), (torch.rand(4, 3) + 0.1,))  # positive rows: the list is never empty
    assert {"Loop", "SequenceEmpty", "SequenceInsert", "ConcatFromSequence"} <= set(ops)


def test_plain_scripted_function_exports_plain_ops(tmp_path) -> None:
    affine = _load(tmp_path, PLAIN, "affine")
    ops = onnx_ops(_wrap(affine, 2.0), (torch.randn(4, 3),))
    assert not {"Loop", "If"} & set(ops)


def test_support_table_has_no_sequence_ops() -> None:
    from trtcodemod.trt import support

    for op in ("SequenceEmpty", "SequenceInsert", "ConcatFromSequence"):
        for target in ("8.4", "8.6", "10.x"):
            assert support.is_supported(op, target) is False, (op, target)
    assert support.is_supported("Loop", "8.4") and support.is_supported("If", "8.4")


def test_dynamo_exporter_refuses_a_scripted_branch(tmp_path) -> None:
    branch = _load(tmp_path, BRANCH, "clamp_or_shift")
    x = torch.randn(4, 3)
    assert torch.equal(_wrap(branch)(x), branch(x))  # the model itself runs
    with warnings.catch_warnings(), pytest.raises(Exception):
        warnings.simplefilter("ignore")
        torch.onnx.export(_wrap(branch), (torch.randn(4, 3),), dynamo=True)
