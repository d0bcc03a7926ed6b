"""TRT318: ``torch.searchsorted`` has no ONNX symbolic (either exporter); the helper keeps torch's own
function outside an export and counts the boundaries below each value while exporting, which is
torch's index on ascending boundaries (left and right side, int32 out, NaN values, rows of
boundaries per leading index, empty rows). Real forward uses rewritten and run: transformers'
Splinter and MusicFlamingo, kornia's histogram matching."""

from __future__ import annotations

from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from support import export_dynamo, export_torchscript, import_file, migrate_json, ort_session, rewrite, rules_found

from trtcodemod.helpers.searching import _trt_searchsorted

NAN, INF = float("nan"), float("inf")


def test_the_rewrite() -> None:
    code = ("import torch\n\n\ndef f(b, x, rows, perm):\n"
            "    a = torch.searchsorted(b, x, right=True) - 1\n"
            "    c = torch.searchsorted(rows, rows, side=\"left\")\n"
            "    d = torch.searchsorted(sorted_sequence=b, input=x, out_int32=True)\n"
            "    e = torch.searchsorted(b, 3.0)\n"
            "    g = torch.searchsorted(b, x, sorter=perm)\n"
            "    return a, c, d, e, g\n")
    assert rewrite(code) == code  # unsafe: only with --unsafe
    new = rewrite(code, unsafe=True)
    assert "    a = _trt_searchsorted(b, x, right=True) - 1\n" in new
    assert "    c = _trt_searchsorted(rows, rows, side=\"left\")\n" in new
    assert "    d = _trt_searchsorted(sorted_sequence=b, input=x, out_int32=True)\n" in new
    assert "    e = torch.searchsorted(b, 3.0)\n" in new  # the scalar form: reported only
    assert "    g = torch.searchsorted(b, x, sorter=perm)\n" in new  # sorter: reported only
    assert rules_found(code) == ["TRT318"] * 5  # TRT706 no longer reports it
    assert rewrite("def f(b, x):\n    return torch.searchsorted(b, x)\n", unsafe=True).endswith(
        "torch.searchsorted(b, x)\n")  # torch not imported


class Search(torch.nn.Module):
    def forward(self, b: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        return (_trt_searchsorted(b, x), _trt_searchsorted(b, x, right=True),
                _trt_searchsorted(b, x, side="right", out_int32=True), _trt_searchsorted(b, x, False, False, "left"))


def _expected(b: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    return (torch.searchsorted(b, x), torch.searchsorted(b, x, right=True),
            torch.searchsorted(b, x, side="right", out_int32=True), torch.searchsorted(b, x, side="left"))


CASES = {
    "random": (torch.tensor([-2.0, -0.5, 0.0, 0.0, 1.5, 3.0]), torch.randn(3, 7) * 3),
    "ties-and-bounds": (torch.tensor([0.0, 1.0, 1.0, 1.0, 5.0]), torch.tensor([[1.0, 0.0, 5.0, -1.0, 6.0, 1.0]])),
    "nan-and-inf-values": (torch.tensor([-1.0, 0.0, 2.0]), torch.tensor([[NAN, INF, -INF, -0.0, 0.0, 2.0]])),
    "infinite-boundaries": (torch.tensor([-INF, 0.0, INF]), torch.tensor([[-INF, INF, 1.0, NAN]])),
    "one-boundary": (torch.tensor([0.5]), torch.tensor([[0.0, 0.5, 1.0]])),
    "no-boundaries": (torch.empty(0), torch.tensor([[0.0, 1.0]])),
    "empty-batch": (torch.tensor([0.0, 1.0]), torch.empty(0, 3)),
}


@pytest.fixture(scope="module", params=["torchscript", "dynamo"])
def graph(request: pytest.FixtureRequest) -> ort.InferenceSession:
    example = (torch.tensor([-1.0, 0.0, 2.0, 4.0]), torch.randn(2, 5))
    if request.param == "torchscript":
        return ort_session(export_torchscript(Search(), example, {"b": {0: "n"}, "x": {0: "batch", 1: "m"}}))
    n, batch, m = torch.export.Dim("n"), torch.export.Dim("batch"), torch.export.Dim("m")
    return ort_session(export_dynamo(Search(), example, ({0: n}, {0: batch, 1: m})))


@pytest.mark.parametrize("case", CASES)
def test_the_graph_gives_torchs_indices(graph: ort.InferenceSession, case: str) -> None:
    b, x = CASES[case]
    outputs = graph.run(None, {i.name: v.numpy() for i, v in zip(graph.get_inputs(), (b, x))})
    for got, want in zip(outputs, _expected(b, x)):
        got = torch.from_numpy(got)
        assert got.dtype == want.dtype and torch.equal(got, want), (case, got, want)


def test_the_graph_holds_no_searchsorted_and_only_ops_tensorrt_parses() -> None:
    model = export_torchscript(Search(), (torch.tensor([0.0, 1.0]), torch.randn(2, 3)), {"b": {0: "n"}, "x": {0: "k"}})
    ops = {node.op_type for node in onnx.load_from_string(model).graph.node}
    assert ops <= {"GreaterOrEqual", "Greater", "Not", "ReduceSum", "Cast", "Unsqueeze", "Constant"}, ops


def test_rows_of_boundaries_and_integers() -> None:
    """N-D boundaries (one row per leading index of the values), integer tensors and mixed dtypes
    (compared in the promoted dtype, as torch does): the graph gives torch's indices for rows and
    sizes other than the example's."""
    class Rows(torch.nn.Module):
        def forward(self, b: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return _trt_searchsorted(b, x), _trt_searchsorted(b, x, right=True)

    for dtype, value_dtype in ((torch.int64, torch.int64), (torch.int32, torch.int32), (torch.float64, torch.float64),
                               (torch.float16, torch.float16), (torch.float32, torch.int64), (torch.int32, torch.float16)):
        b = torch.randint(-4, 4, (2, 3, 6)).sort(-1).values.to(dtype)
        x = torch.randint(-5, 5, (2, 3, 4)).to(value_dtype)
        session = ort_session(export_torchscript(Rows(), (b, x), {"b": {0: "a", 2: "n"}, "x": {0: "a", 2: "m"}}))
        for b, x in ((b, x), (torch.randint(-9, 9, (4, 3, 9)).sort(-1).values.to(dtype),
                              torch.randint(-9, 9, (4, 3, 1)).to(value_dtype))):
            got = session.run(None, {"b": b.numpy(), "x": x.numpy()})
            for g, w in zip(got, (torch.searchsorted(b, x), torch.searchsorted(b, x, right=True))):
                assert torch.equal(torch.from_numpy(g), w), (dtype, g, w)


def test_eager_scripted_traced_compiled_exported_is_torchs_function() -> None:
    b, x = torch.tensor([0.0, 1.0, 1.0, 3.0]), torch.tensor([[1.0, NAN, -2.0], [3.0, 0.5, 9.0]])
    want = _expected(b, x)
    scripted = torch.jit.script(Search())
    traced = torch.fx.symbolic_trace(Search())
    compiled = torch.compile(Search(), fullgraph=True, backend="eager")
    exported = torch.export.export(Search(), (b, x)).module()
    for model in (Search(), scripted, traced, compiled, exported):
        for got, expected in zip(model(b, x), want):
            assert got.dtype == expected.dtype and torch.equal(got, expected)
    # Unsorted boundaries: outside an export this is torch's own answer, whatever it is.
    unsorted = torch.tensor([3.0, -1.0, 2.0, 0.0])
    assert torch.equal(_trt_searchsorted(unsorted, x), torch.searchsorted(unsorted, x))


def test_what_torch_refuses_keeps_its_error_while_exporting() -> None:
    class Bad(torch.nn.Module):
        def __init__(self, **kwargs) -> None:
            super().__init__()
            self.kwargs = kwargs

        def forward(self, b: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
            return _trt_searchsorted(b, x, **self.kwargs)

    for kwargs, b, x in (({}, torch.tensor([True, False]), torch.tensor([True])),  # bool: not implemented
                         ({"right": True, "side": "left"}, torch.tensor([0.0, 1.0]), torch.tensor([0.5])),
                         ({}, torch.zeros(2, 3), torch.zeros(3, 3))):  # rows do not match
        with pytest.raises(RuntimeError) as theirs:
            torch.searchsorted(b, x, **kwargs)
        with pytest.raises(Exception, match=str(theirs.value).splitlines()[0][:40].replace("(", r"\(")
                           .replace(")", r"\)")):
            export_torchscript(Bad(**kwargs), (b, x), {"b": {}, "x": {}})


# Real forward code (the library lines cited), rewritten and run before and after.
SPLINTER = """\
import torch


def question_columns(input_ids, question_token_id):
    # transformers/models/splinter/modeling_splinter.py:721-729 (torch.bincount check left out)
    rows, flat_positions = torch.where(input_ids == question_token_id)
    first_idx = torch.searchsorted(rows, rows, side="left")
    cols = torch.arange(rows.size(0), device=rows.device) - first_idx
    return cols
"""

MUSICFLAMINGO = """\
import torch


def windows(post_lengths, sample_lengths):
    # transformers/models/musicflamingo/modeling_musicflamingo.py:355-364
    cumsum_post = torch.cat([torch.zeros(1, device=post_lengths.device), torch.cumsum(post_lengths, dim=0)[:-1]])
    cumsum_samples = torch.cumsum(sample_lengths, dim=0)
    sample_indices = torch.searchsorted(cumsum_samples, cumsum_post, right=True)
    sample_start_rows = torch.searchsorted(
        sample_indices, torch.arange(sample_lengths.shape[0], device=post_lengths.device)
    )
    window_indices = (
        torch.arange(post_lengths.shape[0], device=post_lengths.device) - sample_start_rows[sample_indices]
    )
    return sample_indices, window_indices
"""

KORNIA = """\
import torch


def interpolate(x, xp, fp):
    # kornia/contrib/histogram_matching.py:147-152
    i = torch.clip(torch.searchsorted(xp, x, right=True), 1, len(xp) - 1)
    x0, x1, f0, f1 = xp[i - 1], xp[i], fp[i - 1], fp[i]
    return f0 + (f1 - f0) * (x - x0) / (x1 - x0)
"""


def _load(tmp_path: Path, name: str, code: str, rewritten: bool):
    path = tmp_path / f"{name}_{int(rewritten)}.py"
    path.write_text(rewrite(code, unsafe=True) if rewritten else code)
    return import_file(path, f"{name}_{int(rewritten)}")


@pytest.mark.parametrize("name,code,function,make", [
    ("splinter", SPLINTER, "question_columns",
     lambda: (torch.tensor([[5, 9, 5, 5, 0], [9, 1, 1, 9, 9], [9, 2, 3, 4, 5]]), 9)),
    ("musicflamingo", MUSICFLAMINGO, "windows",
     lambda: (torch.tensor([3.0, 4.0, 2.0, 5.0, 1.0]), torch.tensor([7.0, 2.0, 6.0]))),
    ("kornia", KORNIA, "interpolate",
     lambda: (torch.tensor([-1.0, 0.0, 0.25, 0.5, 1.0, 2.0]), torch.tensor([0.0, 0.5, 1.0]),
              torch.tensor([0.0, 10.0, 30.0]))),
])
def test_real_uses_rewrite_run_and_export(tmp_path: Path, name: str, code: str, function: str, make) -> None:
    """Each real use is rewritten to the helper; before and after give the same values in eager mode,
    and the rewritten one exports (TorchScript) and runs in ONNX Runtime as torch does."""
    new = rewrite(code, unsafe=True)
    assert "torch.searchsorted(" not in new.split("# Inserted by trtcodemod")[0] + new.split("\n\n\ndef ")[-1]
    before, after = _load(tmp_path, name, code, False), _load(tmp_path, name, code, True)
    args = make()
    for want, got in zip(torch.utils._pytree.tree_leaves(getattr(before, function)(*args)),
                         torch.utils._pytree.tree_leaves(getattr(after, function)(*args))):
        assert torch.equal(want, got)
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    others = [a for a in args if not isinstance(a, torch.Tensor)]

    class Wrapped(torch.nn.Module):
        def forward(self, *xs):
            return getattr(after, function)(*xs, *others)

    with pytest.raises(Exception):  # the original does not export
        class Original(torch.nn.Module):
            def forward(self, *xs):
                return getattr(before, function)(*xs, *others)
        export_torchscript(Original(), tuple(tensors), {f"t{i}": {} for i in range(len(tensors))})
    session = ort_session(export_torchscript(Wrapped(), tuple(tensors), {f"t{i}": {} for i in range(len(tensors))}))
    got = session.run(None, {i.name: t.numpy() for i, t in zip(session.get_inputs(), tensors)})
    want = torch.utils._pytree.tree_leaves(getattr(before, function)(*args))
    for g, w in zip(got, want):
        assert torch.equal(torch.from_numpy(g), w), (name, g, w)


MODEL = """\
import torch
from torch import nn


class Bucketed(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("edges", torch.tensor([-1.0, -0.25, 0.0, 0.5, 2.0]))
        self.embed = nn.Embedding(6, 4)

    def forward(self, x):
        index = torch.searchsorted(self.edges, x.contiguous(), right=True)
        return self.embed(index).sum(-2) + x.mean(-1, keepdim=True)


def build():
    return Bucketed().eval()


def inputs(generator):
    return (torch.randn(2, 7, generator=generator),)
"""


def test_migrate_fixes_the_export_failure(tmp_path: Path) -> None:
    model = tmp_path / "bucketed.py"
    model.write_text(MODEL)
    report = migrate_json(model, '{"x": {"0": "batch", "1": "n"}}')
    assert [a["rule"] for a in report["applied"]] == ["TRT318"], report["applied"]
    assert report["exit_code"] == 0 and report["after"]["exported"] and report["equivalent"] is True
    rewritten = import_file(model, "bucketed_rewritten")
    original = {}
    exec(compile(MODEL, "bucketed.py", "exec"), original)
    x = torch.randn(3, 11)
    torch.manual_seed(0)
    ours = rewritten.build()
    torch.manual_seed(0)
    theirs = original["build"]()
    assert torch.equal(ours(x), theirs(x))


def test_mixed_dtypes_compare_as_torch_promotes_them() -> None:
    """An int64 value against float32 boundaries is rounded to float32 by torch (2**24 + 1 is
    2**24 there): the graph compares in the same dtype."""
    b, x = torch.tensor([16777216.0, 16777218.0]), torch.tensor([16777215, 16777216, 16777217, 16777218])
    session = ort_session(export_torchscript(Search(), (b, x), {"b": {}, "x": {0: "m"}}))
    outputs = session.run(None, {"b": b.numpy(), "x": x.numpy()})
    for got, want in zip(outputs, _expected(b, x)):
        assert torch.equal(torch.from_numpy(got), want), (got, want)
