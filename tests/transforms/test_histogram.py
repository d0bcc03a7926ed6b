"""TRT321: ``torch.histc`` has no TorchScript symbolic (torch 2.13); with a range given, the helper
keeps torch's own function outside an export and, while exporting, bins every element with torch's
arithmetic and counts (values on and beside every bin edge, outside the range, NaN and infinities,
empty input, one bin, float64). Real forward uses rewritten and run: transformers' MoE token
count, MONAI's VectorQuantizer perplexity, kornia's ``_torch_histc_cast``."""

from __future__ import annotations

import re
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from support import export_dynamo, export_torchscript, import_file, migrate_json, ort_session, rewrite, rules_found

from trtcodemod.helpers.histogram import _trt_histc

NAN, INF = float("nan"), float("inf")


def test_the_rewrite() -> None:
    code = ("import torch\n\n\ndef f(ids, num_experts, img, x, bins, lo, hi, buffer):\n"
            "    a = torch.histc(ids.float(), bins=num_experts, min=0, max=num_experts - 1)\n"
            "    b = img.to(torch.float32).histc(bins=256, min=0, max=255)\n"
            "    c = torch.histc(x, bins, lo, hi) + torch.histc(input=x, max=hi)\n"
            "    d = torch.histc(x, 10)\n"
            "    e = torch.histc(x, 10, 0, 1, out=buffer)\n"
            "    return a, b, c, d, e\n")
    new = rewrite(code)
    assert "    a = _trt_histc(ids.float(), bins=num_experts, min=0, max=num_experts - 1)\n" in new
    assert "    b = _trt_histc(img.to(torch.float32), bins=256, min=0, max=255)\n" in new
    assert "    c = _trt_histc(x, bins, lo, hi) + _trt_histc(x, max=hi)\n" in new
    assert "    d = torch.histc(x, 10)\n" in new  # the data's range: reported only
    assert "    e = torch.histc(x, 10, 0, 1, out=buffer)\n" in new
    assert rules_found(code) == ["TRT321"] * 6  # TRT706 no longer reports it
    assert rewrite("def f(x):\n    return torch.histc(x, 4, 0, 1)\n").endswith("torch.histc(x, 4, 0, 1)\n")


class Hist(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        return (_trt_histc(x, bins=7, min=0, max=6), _trt_histc(x, 256, -1.5, 3.25), _trt_histc(x, 1, 0.0, 1.0),
                _trt_histc(x, 3, max=1e-3))


def _expected(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return (torch.histc(x, bins=7, min=0, max=6), torch.histc(x, 256, -1.5, 3.25), torch.histc(x, 1, 0.0, 1.0),
            torch.histc(x, 3, max=1e-3))


def _edges(low: float, high: float, bins: int) -> torch.Tensor:
    """Every bin edge of the range and the floats either side of it."""
    edges = torch.linspace(low, high, bins + 1)
    return torch.cat([edges, torch.nextafter(edges, edges + 1), torch.nextafter(edges, edges - 1)]).reshape(3, -1)


GENERATOR = torch.Generator().manual_seed(0)
CASES = {
    "random": torch.randn(5, 40, generator=GENERATOR) * 3,
    "integers": torch.randint(-1, 8, (100, 2), generator=GENERATOR).float(),
    "edges-256": _edges(-1.5, 3.25, 256),
    "edges-7": _edges(0.0, 6.0, 7),
    "nan-inf-zeros": torch.tensor([[NAN, INF, -INF, 6.0, 0.0, -0.0, 1.0, 1e-3]]),
    "empty": torch.empty(0, 3),
    "one": torch.tensor([[0.5]]),
    "negatives": -torch.rand(4, 9, generator=GENERATOR) * 2,
}


@pytest.fixture(scope="module", params=["torchscript", "dynamo"])
def graph(request: pytest.FixtureRequest) -> ort.InferenceSession:
    example = (torch.randn(3, 4),)
    if request.param == "torchscript":
        return ort_session(export_torchscript(Hist(), example, {"x": {0: "a", 1: "b"}}))
    return ort_session(export_dynamo(Hist(), example, ({0: torch.export.Dim("a"), 1: torch.export.Dim("b")},)))


@pytest.mark.parametrize("case", CASES)
def test_the_graph_gives_torchs_counts(graph: ort.InferenceSession, case: str) -> None:
    x = CASES[case]
    for got, want in zip(graph.run(None, {graph.get_inputs()[0].name: x.numpy()}), _expected(x)):
        got = torch.from_numpy(got)
        assert got.dtype == want.dtype and torch.equal(got, want), (case, got, want)


def test_random_ranges_and_float64() -> None:
    """Ranges and bin numbers drawn at random, values spread past the range and on every edge:
    the same counts in float32 and float64."""
    class Ranged(torch.nn.Module):
        def __init__(self, bins: int, low: float, high: float) -> None:
            super().__init__()
            self.bins, self.low, self.high = bins, low, high

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return _trt_histc(x, self.bins, self.low, self.high)

    generator = torch.Generator().manual_seed(1)
    for trial in range(6):
        low = float(torch.randn(1, generator=generator)) * 10
        high = low + float(torch.rand(1, generator=generator)) * 20 + 1e-3
        bins = int(torch.randint(1, 200, (1,), generator=generator))
        dtype = torch.float64 if trial % 2 else torch.float32
        spread = torch.rand(3000, generator=generator, dtype=torch.float64) * (high - low) * 1.2 + low - 0.1 * (
            high - low)
        x = torch.cat([spread.to(dtype), _edges(low, high, bins).reshape(-1).to(dtype)])
        session = ort_session(export_torchscript(Ranged(bins, low, high), (x[:5],), {"x": {0: "n"}}))
        got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
        want = torch.histc(x, bins, low, high)
        assert got.dtype == want.dtype and torch.equal(got, want), (trial, (got - want).nonzero())


def test_the_graph_holds_only_ops_tensorrt_parses() -> None:
    ops = {node.op_type for node in onnx.load_from_string(export_torchscript(Hist(), (torch.randn(8),), {"x": {0: "n"}}))
           .graph.node}
    assert ops <= {"And", "Cast", "Constant", "Div", "Equal", "GreaterOrEqual", "LessOrEqual", "Min", "Mul",
                   "ReduceSum", "Reshape", "Sub", "Unsqueeze"}, ops


def test_eager_scripted_traced_compiled_exported_is_torchs_function() -> None:
    x = torch.tensor([0.0, 1.0, 6.0, NAN, 2.5, -1.0, 5.99])
    want = _expected(x)
    scripted = torch.jit.script(Hist())
    traced = torch.fx.symbolic_trace(Hist())
    compiled = torch.compile(Hist(), fullgraph=True, backend="eager")
    exported = torch.export.export(Hist(), (x,)).module()
    for model in (Hist(), scripted, traced, compiled, exported):
        for got, expected in zip(model(x), want):
            assert got.dtype == expected.dtype and torch.equal(got, expected)
    y = torch.tensor([1.0, 2.0, 2.0, 9.0])
    assert torch.equal(_trt_histc(y, 4), torch.histc(y, 4))  # the data's range, in eager mode: torch's own


def test_what_it_does_not_take_keeps_torchs_function_while_exporting() -> None:
    """A range from the data (min == max) keeps torch.histc (whose export fails), and what torch
    refuses keeps torch's error."""
    class Bad(torch.nn.Module):
        def __init__(self, *args) -> None:
            super().__init__()
            self.args = args

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return _trt_histc(x, *self.args)

    with pytest.raises(Exception, match="histc"):
        export_torchscript(Bad(4), (torch.randn(5),), {"x": {}})
    for args, x in (((3, 2.0, 1.0), torch.randn(5)), ((3, 0.0, 1.0), torch.tensor([1, 2]))):
        with pytest.raises(RuntimeError) as theirs:
            torch.histc(x, *args)
        with pytest.raises(RuntimeError, match=re.escape(str(theirs.value))):
            export_torchscript(Bad(*args), (x,), {"x": {}})


# Real forward code (the library lines cited), rewritten and run before and after.
MOE = """\
import torch


def tokens_per_expert(expert_ids, num_experts):
    # transformers/integrations/moe.py:440-449 (the CPU branch)
    expert_ids_g, perm = torch.sort(expert_ids)
    histc_input = expert_ids_g.float()
    tokens_per_expert = torch.histc(histc_input, bins=num_experts, min=0, max=num_experts - 1)
    offsets = torch.cumsum(tokens_per_expert, dim=0, dtype=torch.int32)
    return tokens_per_expert, offsets
"""

MONAI = """\
import torch


def perplexity(encoding_indices, num_embeddings):
    # monai/networks/layers/vector_quantizer.py:216-220
    avg_probs = (
        torch.histc(encoding_indices.float(), bins=num_embeddings, max=num_embeddings)
        .float()
        .div(encoding_indices.numel())
    )
    return torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-10)))
"""

KORNIA = """\
import torch


def _torch_histc_cast(input, bins, min, max):
    # kornia/core/utils.py:444-446 (the dtype normalisation written out)
    dtype = input.dtype if input.dtype in (torch.float32, torch.float64) else torch.float32
    return torch.histc(input.to(dtype), bins, min, max)


def histogram(x):
    return _torch_histc_cast(x, 16, 0.0, 1.0)
"""


def _load(tmp_path: Path, name: str, code: str, rewritten: bool):
    path = tmp_path / f"{name}_{int(rewritten)}.py"
    path.write_text(rewrite(code) if rewritten else code)
    return import_file(path, f"{name}_{int(rewritten)}")


@pytest.mark.parametrize("name,code,function,make,others", [
    ("moe", MOE, "tokens_per_expert", lambda g: torch.randint(0, 8, (64, 2), generator=g).reshape(-1), (8,)),
    ("monai", MONAI, "perplexity", lambda g: torch.randint(0, 16, (2, 5, 5), generator=g), (16,)),
    ("kornia", KORNIA, "histogram", lambda g: torch.rand(3, 20, 20, generator=g, dtype=torch.float64), ()),
])
def test_real_uses_rewrite_run_and_export(tmp_path: Path, name: str, code: str, function: str, make,
                                          others: tuple) -> None:
    """Each real use is rewritten to the helper; before and after give the same values in eager mode,
    the original does not export, and the rewritten one exports (TorchScript, dynamic sizes) and
    gives torch's values in ONNX Runtime on other inputs."""
    new = rewrite(code)
    assert "torch.histc(" not in "".join(part for part in new.split("\n\n\n") if not part.startswith("def _trt_"))
    before, after = _load(tmp_path, name, code, False), _load(tmp_path, name, code, True)
    generator = torch.Generator().manual_seed(3)
    x = make(generator)
    for want, got in zip(torch.utils._pytree.tree_leaves(getattr(before, function)(x, *others)),
                         torch.utils._pytree.tree_leaves(getattr(after, function)(x, *others))):
        assert torch.equal(want, got)

    class Original(torch.nn.Module):
        def forward(self, t):
            return getattr(before, function)(t, *others)

    class Wrapped(torch.nn.Module):
        def forward(self, t):
            return getattr(after, function)(t, *others)

    axes = {"x": {0: "n"}}
    with pytest.raises(Exception, match="histc"):
        export_torchscript(Original(), (x,), axes)
    session = ort_session(export_torchscript(Wrapped(), (x,), axes))
    for t in (x, make(generator), torch.cat([make(generator), make(generator)])):
        got = session.run(None, {"x": t.numpy()})
        want = torch.utils._pytree.tree_leaves(getattr(before, function)(t, *others))
        for g, w in zip(got, want):
            # MONAI's perplexity goes on through log and exp, whose last bit ONNX Runtime rounds its own way.
            same = torch.allclose if name == "monai" else torch.equal
            assert same(torch.from_numpy(g), w), (name, g, w)


MODEL = """\
import torch
from torch import nn


class Routed(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(8, 4)

    def forward(self, x):
        expert = self.gate(x).argmax(-1)
        load = torch.histc(expert.float(), bins=4, min=0, max=3) / expert.numel()
        return x * load.max() + load.sum()


def build():
    return Routed().eval()


def inputs(generator):
    return (torch.randn(2, 16, 8, generator=generator),)
"""


def test_migrate_fixes_the_export_failure(tmp_path: Path) -> None:
    model = tmp_path / "routed.py"
    model.write_text(MODEL)
    report = migrate_json(model, '{"x": {"0": "batch", "1": "tokens"}}')
    assert [a["rule"] for a in report["applied"]] == ["TRT321"], report["applied"]
    assert report["exit_code"] == 0 and report["after"]["exported"] and report["equivalent"] is True
    rewritten = import_file(model, "routed_rewritten")
    original = {}
    exec(compile(MODEL, "routed.py", "exec"), original)
    x = torch.randn(3, 10, 8)
    torch.manual_seed(0)
    ours = rewritten.build()
    torch.manual_seed(0)
    theirs = original["build"]()
    assert torch.equal(ours(x), theirs(x))
