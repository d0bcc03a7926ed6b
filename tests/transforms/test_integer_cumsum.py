"""TRT334: ``torch.cumsum`` of an integer or bool tensor exports a CumSum TensorRT refuses (it takes
FP32/FP16/BF16 only); the helper is ``torch.cumsum`` outside an export and sums in float32, cast
back to torch's dtype, while exporting. The rule reports what the code shows to be an integer sum
and, with facts, what the graph check located; ``migrate`` takes RoBERTa's position ids end to end."""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from support import migrate_json, rewrite, rules_found

from trtcodemod.engine import Options, check_source
from trtcodemod.evidence.facts import Facts
from trtcodemod.helpers.cumulative import _trt_cumsum
from trtcodemod.trt.check import check_graph

SOURCE = """\
import torch


def position_ids(input_ids, padding_idx, past=0):
    mask = input_ids.ne(padding_idx).int()
    incremental = (torch.cumsum(mask, dim=1).type_as(mask) + past) * mask
    return incremental.long() + padding_idx


def counts(attention_mask, scores, tied, n):
    first = attention_mask.long().cumsum(-1) - 1
    second = torch.cumsum(scores > 0, 0, dtype=torch.int32)
    third = (tied & (scores < 1)).cumsum(dim=0) <= n
    fourth = torch.cumsum(~tied, 1)
    return first, second, third, fourth


def floats(scores, attention_mask, energy):
    a = torch.cumsum(scores, dim=1)
    b = attention_mask.cumsum(-1)
    c = torch.cumsum(energy.float(), 0)
    d = torch.cumsum(scores > 0, 0, dtype=torch.float32)
    return a, b, c, d
"""


def test_the_rewrite() -> None:
    assert rewrite(SOURCE) == SOURCE  # an unsafe fix: nothing without --unsafe
    new = rewrite(SOURCE, unsafe=True, select=("TRT334",))
    assert "incremental = (_trt_cumsum(mask, 1).type_as(mask) + past) * mask" in new
    assert "first = _trt_cumsum(attention_mask.long(), -1) - 1" in new
    assert "second = _trt_cumsum(scores > 0, 0, torch.int32)" in new
    assert "third = _trt_cumsum((tied & (scores < 1)), 0) <= n" in new
    assert "fourth = _trt_cumsum(~tied, 1)" in new
    # float sums, and a receiver whose dtype the code does not show, are left alone
    for line in ("a = torch.cumsum(scores, dim=1)", "b = attention_mask.cumsum(-1)",
                 "c = torch.cumsum(energy.float(), 0)", "d = torch.cumsum(scores > 0, 0, dtype=torch.float32)"):
        assert line in new, line
    assert new.count("_trt_cumsum(") == 5 + 1  # five calls and the helper's definition
    assert rewrite(new, unsafe=True, select=("TRT334",)) == new  # idempotent


@pytest.mark.parametrize("code", [
    "running = torch.cumsum(mask.bool(), dim=0, out=buffer)\n",
    "running = torch.cumsum(*args, dtype=torch.long)\n",
    "running = (x > 0).cumsum(0, dtype=torch.uint8)\n",
])
def test_calls_it_cannot_rewrite_are_reported_without_a_fix(code: str) -> None:
    source = "import torch\n" + code
    assert rules_found(source, select=("TRT334",)) == ["TRT334"]
    assert rewrite(source, unsafe=True, select=("TRT334",)) == source


@pytest.mark.parametrize("code", [
    "import numpy as np\nrunning = np.cumsum(mask > 0, 0)\n",
    "import torch\nrunning = torch.cumsum(torch.ones(3), 0)\n",
    "running = torch.cumsum(mask.int(), 0)\n",  # torch is not imported: someone else's `torch`
    "import torch\nmask = mask.int()\nmask = mask.float()\nrunning = torch.cumsum(mask, 0)\n",  # two bindings
])
def test_what_it_leaves_alone(code: str) -> None:
    assert rules_found(code, select=("TRT334",)) == []


def test_a_located_cumsum_is_reported_where_the_code_shows_no_dtype(tmp_path: Path) -> None:
    """With facts, a call at whose line migrate's graph check located an integer CumSum is reported:
    ``attention_mask.cumsum(-1)`` of an input mask; a located node of another rule is not evidence."""
    path = tmp_path / "m.py"
    path.write_text("import torch\n\n\ndef f(attention_mask, scores):\n    a = attention_mask.cumsum(-1)\n"
                    "    b = torch.cumsum(scores, 1)\n    return a, b\n")
    plain = check_source(path.read_bytes(), str(path), Options(select=("TRT334",), scope="all"))
    assert plain == []
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, 8))})
    facts.note_located([(str(path), 5, "TRT334"), (str(path), 6, "TRT401")])
    found = check_source(path.read_bytes(), str(path), Options(select=("TRT334",), scope="all", facts=facts))
    assert [(f.rule, f.line, f.fix.value) for f in found] == [("TRT334", 5, "unsafe")]
    assert Facts.from_json(json.loads(json.dumps(facts.to_json()))).events == facts.events  # saved and read back


# --- the helper --------------------------------------------------------------------------------
def _inputs() -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    ints = torch.randint(-5, 6, (3, 7), generator=g)
    return [ints, ints.int(), ints > 0, ints.to(torch.uint8).abs(), ints.to(torch.int8), ints.float(),
            torch.randn(3, 7, dtype=torch.float64, generator=g), torch.empty(0, 4, dtype=torch.int64)]


@pytest.mark.parametrize("dtype", [None, torch.int64, torch.int32, torch.float32, torch.float16])
def test_eager_is_torch_cumsum(dtype: torch.dtype | None) -> None:
    for x in _inputs():
        for dim in (0, 1, -1):
            got, want = _trt_cumsum(x, dim, dtype), torch.cumsum(x, dim, dtype=dtype)
            assert got.dtype == want.dtype and torch.equal(got, want), (x.dtype, dim, dtype)
    x = torch.randn(2, 5, requires_grad=True)
    (_trt_cumsum(x, 1) * torch.arange(5.0)).sum().backward()
    grad, x.grad = x.grad.clone(), None
    (torch.cumsum(x, 1) * torch.arange(5.0)).sum().backward()
    assert torch.equal(grad, x.grad)
    with pytest.raises(IndexError):
        _trt_cumsum(torch.ones(3, dtype=torch.int64), 1)
    assert np.array_equal(_trt_cumsum(np.arange(5) > 2, 0), np.cumsum(np.arange(5) > 2, 0))  # a NumPy receiver


class Sums(torch.nn.Module):
    def forward(self, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        mask = ids.ne(1).int()
        return (_trt_cumsum(mask, 1), _trt_cumsum(ids > 2, -1), _trt_cumsum(ids, 0, torch.int32),
                _trt_cumsum(ids.float(), 1))


def test_scripted_fx_and_exported_programs_run_torch_cumsum() -> None:
    model, x = Sums(), torch.randint(0, 5, (3, 6))
    want = model(x)
    runs = {"script": torch.jit.script(model)(x), "fx": torch.fx.symbolic_trace(model)(x),
            "export": torch.export.export(model, (x,)).module()(x)}
    for label, got in runs.items():
        assert all(a.dtype == b.dtype and torch.equal(a, b) for a, b in zip(got, want)), label


@pytest.fixture(scope="module")
def exported() -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Sums(), (torch.randint(0, 5, (2, 5)),), buffer, dynamo=False, input_names=["ids"],
                          dynamic_axes={"ids": {0: "batch", 1: "n"}}, opset_version=17)
    return buffer.getvalue()


def test_the_graph_sums_floats_and_equals_eager_at_other_sizes(exported: bytes) -> None:
    model = onnx.shape_inference.infer_shapes(onnx.load_from_string(exported))
    types = {v.name: v.type.tensor_type.elem_type for v in (*model.graph.value_info, *model.graph.input)}
    sums = [n for n in model.graph.node if n.op_type == "CumSum"]
    assert len(sums) == 4 and all(types[n.input[0]] == onnx.TensorProto.FLOAT for n in sums)
    assert check_graph(model, "10.x") == [] and check_graph(model, "8.6") == []
    session = ort.InferenceSession(exported, providers=["CPUExecutionProvider"])  # bool inputs load now
    g = torch.Generator().manual_seed(1)
    for ids in (torch.randint(0, 5, (4, 9), generator=g), torch.randint(-50, 50, (1, 300), generator=g),
                torch.ones(2, 3, dtype=torch.int64)):
        for got, want in zip(session.run(None, {"ids": ids.numpy()}), Sums()(ids)):
            got = torch.from_numpy(got)
            assert got.dtype == want.dtype and torch.equal(got, want), (ids.shape, got, want)


# --- migrate -----------------------------------------------------------------------------------
MODEL = '''\
import torch
from torch import nn


def create_position_ids_from_input_ids(input_ids, padding_idx, past_key_values_length=0):
    mask = input_ids.ne(padding_idx).int()
    incremental_indices = (torch.cumsum(mask, dim=1).type_as(mask) + past_key_values_length) * mask
    return incremental_indices.long() + padding_idx


class Embeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.padding_idx = 1
        self.words = nn.Embedding(20, 8, padding_idx=1)
        self.positions = nn.Embedding(40, 8, padding_idx=1)

    def forward(self, input_ids, attention_mask):
        position_ids = create_position_ids_from_input_ids(input_ids, self.padding_idx)
        token_type = attention_mask.cumsum(-1) - 1
        return self.words(input_ids) + self.positions(position_ids), token_type


def build():
    return Embeddings()


def inputs(generator):
    ids = torch.randint(2, 20, (2, 9), generator=generator)
    ids[0, 6:] = 1
    return ids, (ids != 1).long()
'''


def test_migrate_takes_roberta_position_ids_end_to_end(tmp_path: Path) -> None:
    path = tmp_path / "roberta_positions.py"
    path.write_text(MODEL)
    lines = MODEL.splitlines()
    at = {n + 1 for n, text in enumerate(lines) if "cumsum(" in text}
    axes = json.dumps({name: {"0": "batch", "1": "length"} for name in ("input_ids", "attention_mask")})
    report = migrate_json(path, axes)
    assert report["before"]["trt_errors_by_op"] == {"CumSum": 2}, report["before"]
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == [("TRT334", line) for line in sorted(at)]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["exported"] and report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0
    # the input mask's cumsum shows no dtype in the code: only the located node reports it
    assert "token_type = _trt_cumsum(attention_mask, -1) - 1" in report["diff"], report["diff"]
