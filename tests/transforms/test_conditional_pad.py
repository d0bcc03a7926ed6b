"""TRT331: an extra pad done, with its amount, only under a test becomes a pad every time by the amount
times the test (transformers' EnCodec ``_pad1d``).

The rewrite text and what is left alone; EnCodec's ``_pad1d`` before and after on real tensors (every
length from 0 to past the pad, paddings as ``int`` and as the 0-d buffers EnCodec keeps, reflect and
zero modes, zeros, negatives, inf/NaN, an empty batch: values, shapes, gradients, errors); the other
toolchains; the TorchScript export at a long input, run at a short one: the original's graph keeps
the example's branch (the reflection fails or differs), the rewritten one equals eager mode; and
migrate on a small model ending at exit 0 with TRT331 applied.
"""

from __future__ import annotations

import io
import math
import warnings
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import rewrite, rules_found

HEADER = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n\n\n"

PAD1D = '''
def pad1d(hidden_states, paddings, mode: str = "reflect", value: float = 0.0):
    length = hidden_states.shape[-1]
    padding_left, padding_right = paddings
    if mode != "reflect":
        return nn.functional.pad(hidden_states, paddings, mode, value)

    max_pad = max(padding_left, padding_right)
    extra_pad = 0
    if length <= max_pad:
        extra_pad = max_pad - length + 1
        hidden_states = nn.functional.pad(hidden_states, (0, extra_pad))
    padded = nn.functional.pad(hidden_states, paddings, mode, value)
    end = padded.shape[-1] - extra_pad
    return padded[..., :end]
'''


def test_rewrite_text() -> None:
    source = HEADER + PAD1D.lstrip("\n")
    assert rules_found(source, select=("TRT331",)) == ["TRT331"]
    assert rewrite(source, select=("TRT331",)) == source  # unsafe: only with --unsafe
    after = rewrite(source, select=("TRT331",), unsafe=True)
    assert ("    extra_pad = 0\n"
            "    extra_pad = (max_pad - length + 1) * (length <= max_pad)\n"
            "    hidden_states = nn.functional.pad(hidden_states, (0, extra_pad))\n"
            "    padded = nn.functional.pad(hidden_states, paddings, mode, value)\n") in after
    assert "if length <= max_pad" not in after
    assert rewrite(after, select=("TRT331",), unsafe=True) == after


LEFT_ALONE = {
    "no zero before": '''
def f(x, n: int):
    if n < 4:
        extra = 4 - n
        x = F.pad(x, (0, extra))
    return x
''',
    "bound again between": '''
def f(x, n: int):
    extra = 0
    extra = 1
    if n < 4:
        extra = 4 - n
        x = F.pad(x, (0, extra))
    return x, extra
''',
    "an else": '''
def f(x, n: int):
    extra = 0
    if n < 4:
        extra = 4 - n
        x = F.pad(x, (0, extra))
    else:
        x = x * 2
    return x
''',
    "more work in the branch": '''
def f(x, n: int):
    extra = 0
    if n < 4:
        extra = 4 - n
        x = F.pad(x, (0, extra))
        x = x * 2
    return x
''',
    "a test of two comparisons": '''
def f(x, n: int):
    extra = 0
    if n < 4 and n > 0:
        extra = 4 - n
        x = F.pad(x, (0, extra))
    return x
''',
    "the test reads the tensor": '''
def f(x):
    extra = 0
    if x.sum() < 4:
        extra = 2
        x = F.pad(x, (0, extra))
    return x
''',
    "the pad does not read the amount": '''
def f(x, n: int):
    extra = 0
    if n < 4:
        extra = 4 - n
        x = F.pad(x, (0, 1))
    return x, extra
''',
    "another tensor padded": '''
def f(x, y, n: int):
    extra = 0
    if n < 4:
        extra = 4 - n
        x = F.pad(y, (0, extra))
    return x
''',
    "not torch's pad": '''
def pad(x, amounts):
    return x

def f(x, n: int):
    extra = 0
    if n < 4:
        extra = 4 - n
        x = pad(x, (0, extra))
    return x
''',
}


@pytest.mark.parametrize("name", list(LEFT_ALONE))
def test_left_alone(name: str) -> None:
    source = HEADER + LEFT_ALONE[name].lstrip("\n")
    assert rules_found(source, select=("TRT331",)) == []


@pytest.fixture(scope="module")
def functions(tmp_path_factory):
    source = HEADER + PAD1D.lstrip("\n")
    before = import_source(source, tmp_path_factory.mktemp("before"))["pad1d"]
    after = import_source(rewrite(source, select=("TRT331",), unsafe=True), tmp_path_factory.mktemp("after"))["pad1d"]
    return before, after


def _signals(length: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(length)
    base = torch.randn(2, 3, length, generator=g, dtype=torch.float64)
    special = base.clone()
    if length:
        special[0, 0, :3] = torch.tensor([math.inf, -math.inf, math.nan])[: min(3, length)]
    return [base, torch.zeros(2, 3, length), -base.abs(), special, torch.zeros(0, 3, length)]


@pytest.mark.parametrize("length", list(range(0, 12)))
def test_pad1d_is_the_original_on_every_length(functions, length: int) -> None:
    before, after = functions
    buffers = (torch.tensor(3), torch.tensor(4))  # EnCodec's paddings: 0-d int64 buffers
    for paddings in ((3, 4), (0, 0), (6, 1), buffers, (torch.tensor(0), torch.tensor(5))):
        for mode in ("reflect", "constant"):
            for x in _signals(length):
                inputs = [x.clone().requires_grad_(x.numel() > 0), paddings, mode]
                assert_same_run(run_once(before, inputs), run_once(after, inputs),
                                context=f"length={length} paddings={paddings} mode={mode}")


MODULE = HEADER + '''
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.padding_total = nn.Buffer(torch.tensor(6), persistent=False)

    def forward(self, x):
        length = x.shape[-1]
        right = self.padding_total // 2
        left = self.padding_total - right
        max_pad = max(left, right)
        extra_pad = 0
        if length <= max_pad:
            extra_pad = max_pad - length + 1
            x = F.pad(x, (0, extra_pad))
        padded = F.pad(x, (left, right), "reflect")
        end = padded.shape[-1] - extra_pad
        return padded[..., :end] * 2.0


def build():
    return M().eval()


def inputs(g):
    return (torch.randn(1, 2, 40, generator=g),)
'''


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    before = import_source(MODULE, tmp_path_factory.mktemp("mbefore"))["M"]
    after = import_source(rewrite(MODULE, select=("TRT331",), unsafe=True), tmp_path_factory.mktemp("mafter"))["M"]
    return before, after


def test_other_toolchains_run_as_the_original_or_trace_where_it_stopped(modules, tmp_path) -> None:
    before, after = modules
    for inputs in ([torch.randn(1, 2, 40)], [torch.randn(1, 2, 2)]):
        eager = before()(*inputs)
        want = toolchain_outcomes(before, inputs, tmp_path)
        got = toolchain_outcomes(after, inputs, tmp_path)
        assert set(want) == set(got)
        assert isinstance(want["fx"], Exception)  # torch.fx stops at the original's `if` on a proxy
        for name in want:
            if isinstance(got[name], Exception):
                assert isinstance(want[name], Exception), (name, got[name])
                continue
            # Where the original stopped (fx), the rewrite traces and computes eager mode's values.
            torch.testing.assert_close(got[name], eager, equal_nan=True, msg=name)
            if not isinstance(want[name], Exception):
                torch.testing.assert_close(got[name], want[name], equal_nan=True, msg=name)


def _export(model: torch.nn.Module, x: torch.Tensor) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 2: "length"}})
        return onnx.load_from_string(buffer.getvalue())


def _run(graph: onnx.ModelProto, x: torch.Tensor) -> torch.Tensor:
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    return torch.from_numpy(session.run(None, {"x": x.numpy()})[0])


def test_the_traced_graph_pads_short_inputs_only_after_the_rewrite(modules) -> None:
    before, after = modules
    example = torch.randn(1, 2, 40)
    short = torch.randn(3, 2, 2)  # shorter than the reflection's pad of 3
    original = _export(before(), example)
    with pytest.raises(Exception):
        _run(original, short)  # the graph kept "no extra pad": the reflection cannot take 2 samples
    graph = _export(after(), example)
    for x in (short, torch.randn(1, 2, 1), torch.randn(2, 2, 3), torch.randn(2, 2, 4), example,
              torch.tensor([[[math.inf, -1.0, 0.0, math.nan, 2.0]]]).expand(1, 2, 5).contiguous(),
              -torch.rand(1, 2, 17)):
        torch.testing.assert_close(_run(graph, x), before()(x), equal_nan=True, rtol=1e-6, atol=1e-6)


def test_migrate_applies_it_and_ends_at_exit_0(tmp_path: Path) -> None:
    from support import migrate_json

    path = tmp_path / "model.py"
    path.write_text(MODULE)
    report = migrate_json(path, '{"x": {"0": "batch", "2": "length"}}')
    assert report["exit_code"] == 0, report["remaining"]
    assert "TRT331" in [a["rule"] for a in report["applied"]]
    assert "+        extra_pad = (max_pad - length + 1) * (length <= max_pad)" in report["diff"]
