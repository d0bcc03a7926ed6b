"""A proof by observation holds for every caller (issue 27): TRT704's ``len`` fix.

The observed run sees the calls ``forward`` makes. A function another method calls with a
list, which the run never reaches, is not proved by it: the static call graph decides whether
only observed code calls the function (then ``x.shape[0]``, proved), and otherwise the fix is
``_trt_len(x)``, ``len`` for anything but a tensor (safe for every type). The report says which.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import libcst as cst
import pytest
import torch

from safety import assert_same_run, import_source, run_once
from support import invoke
from trtcodemod.helpers.sizes import _trt_len
from trtcodemod.model_code import unobserved_caller

MODEL = '''\
import torch
from torch import nn


def count(items):
    return len(items)


def _count(items):
    return len(items)


def _rows(items):
    return len(items)


class Counter(nn.Module):
    def forward(self, x):
        a = x.reshape(count(x), -1)
        b = x.reshape(_count(x), -1)
        c = x.reshape(_rows(x), -1)
        return a + b * 2 + c * 3

    def names(self, labels):
        return count(labels) + _count(labels)


def build() -> nn.Module:
    return Counter()


def inputs(generator: torch.Generator):
    return (torch.randn(3, 4, 5, generator=generator),)
'''


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(MODEL.splitlines(), 1) if line.strip() == text)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    folder = tmp_path_factory.mktemp("counter")
    model = folder / "counter.py"
    model.write_text(MODEL)
    result = invoke("migrate", str(model), "--model", "build", "--inputs", "inputs", "--dynamic-axes",
                    json.dumps({"x": {"0": "batch"}}), "--write", "--format", "json", "--runs", "1",
                    "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu")
    report = json.loads(result.stdout)
    return (report["models"][0] if "models" in report else report), model


def test_the_report_says_which_callers_the_proof_covers(migrated) -> None:
    report, _ = migrated
    proofs = {a["line"]: a["proof"] for a in report["applied"] if a["rule"] == "TRT704"}
    assert set(proofs) == {line_of("return len(items)") + 4 * k for k in range(3)}
    public, other, only_forward = (proofs[line] for line in sorted(proofs))
    assert public.startswith("safe fix") and "`count` is public" in public
    assert other.startswith("safe fix") and \
        f"`_count` is also called at line {line_of('return count(labels) + _count(labels)')}" in other
    assert only_forward.startswith("observed: the argument of len() was a tensor") and \
        "the static call graph: only observed code calls `_rows`" in only_forward
    assert report["exit_code"] == 0


def test_the_rewritten_model_keeps_every_callers_behaviour(migrated, tmp_path: Path) -> None:
    _, model = migrated
    after = model.read_text()
    assert after.count("return _trt_len(items)") == 2 and after.count("return items.shape[0]") == 1
    before, rewritten = import_source(MODEL, tmp_path)["Counter"], import_source(after, tmp_path)["Counter"]
    # The caller the observer never saw: a list of labels (the unproved `items.shape[0]` raised AttributeError).
    assert rewritten().names(["car", "person"]) == before().names(["car", "person"]) == 4
    assert rewritten().names("abc") == 6 and rewritten().names(()) == 0
    for x in (torch.randn(3, 4, 5), torch.zeros(1, 2, 2), -torch.rand(7, 1, 3), torch.zeros(0, 4, 5),
              torch.full((2, 3, 1), float("nan"))):
        assert_same_run(run_once(before(), [x]), run_once(rewritten(), [x]))


def test_trt_len_is_len_for_every_type() -> None:
    class Boxes:
        def __len__(self) -> int:
            return 5

    class Listy(torch.Tensor):
        def __len__(self) -> int:
            return 42

    for value in ([1, 2], (), "abc", {"a": 1}, Boxes(), torch.zeros(3, 2), torch.zeros(0, 4),
                  torch.zeros(2, 3).as_subclass(Listy)):
        assert _trt_len(value) == len(value)
    for value in (torch.tensor(1.0), 3, None):
        with pytest.raises(TypeError):
            len(value)
        with pytest.raises(TypeError):
            _trt_len(value)
    assert torch.jit.script(_trt_len)(torch.zeros(4, 1)) == 4


CALLS = textwrap.dedent('''\
    def _a(items):
        return len(items)

    def _b(items):
        return _a(items)

    def _c(items):
        return len(items)

    class M(nn.Module):
        def forward(self, x):
            return _b(x), self._own(x), _c(x), self._m(x)

        def _own(self, x):
            return len(x)

        def _m(self, x):
            return len(x)

        def other(self, y):
            keep = _c
            return self._m(y)
''')


#: The lines of CALLS the "observed run" reached: not `other`'s (20-22).
RAN = set(range(1, 20))


@pytest.mark.parametrize("function, unseen, why", [
    ("_a", set(), None),  # through _b, whose only caller is forward
    ("_a", {12}, "`_b` is also called at line 12, which the observed run never reached"),
    ("_own", set(), None),
    ("_c", set(), "`_c` is used as a value at line 21"),
    ("_m", set(), "`_m` is also called at line 22, which the observed run never reached"),
    ("forward", set(), None),
])
def test_the_call_graph_follows_every_caller(function: str, unseen: set[int], why: str | None) -> None:
    module = cst.parse_module(CALLS)
    definitions = {node.name.value: node for node in _functions(module)}
    lines = {id(node): number for number, node in _lines(module)}

    def line(node: cst.CSTNode) -> int:
        return lines[id(node)]

    answer = unobserved_caller(module, definitions[function], lambda node: line(node) in RAN - unseen, line)
    assert answer == why if why is None else why in answer


def _functions(module: cst.Module):
    for statement in module.body:
        if type(statement) is cst.FunctionDef:
            yield statement
        elif type(statement) is cst.ClassDef:
            yield from (item for item in statement.body.body if type(item) is cst.FunctionDef)


def _lines(module: cst.Module):
    from libcst.metadata import MetadataWrapper, PositionProvider

    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    for node, where in wrapper.resolve(PositionProvider).items():
        yield where.start.line, node
