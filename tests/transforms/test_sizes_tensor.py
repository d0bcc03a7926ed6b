"""TRT716's tensor of sizes: ``_trt_sizes_tensor`` keeps the sizes in the TorchScript export.

The rewrite text (and what is left alone), the helper against ``torch.as_tensor`` on real
values, and a toy model (feature maps at three levels → spatial shapes → an offset
normaliser) exported at one size and run in ONNX Runtime at others: wrong before the
rewrite, right after.
"""

from __future__ import annotations

import io
import warnings

import onnxruntime as ort
import pytest
import torch
from support import load, rewrite, rules_found
from safety import import_source

from trtcodemod.helpers.sizes_tensor import _trt_sizes_tensor

LEVELS = """\
import torch
from torch import nn


class Levels(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(1, 2, 3, stride=s, padding=1) for s in (1, 2, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shapes = []
        for conv in self.convs:
            feature = torch.relu(conv(x))
            h, w = feature.shape[2:]
            shapes.append((h, w))
        b, c, hx, wx = x.shape
        spatial = torch.as_tensor(shapes, dtype=torch.long, device=x.device)
        whole = torch.tensor([(hx, wx)])
        normalizer = torch.stack([spatial[:, 1], spatial[:, 0]], -1)
        return torch.cat([normalizer, whole], 0).float() + x.mean()
"""


def _load(code: str, tmp_path, name: str) -> torch.nn.Module:
    path = tmp_path / f"{name}.py"
    path.write_text(code)
    namespace: dict = {"__name__": name, "__file__": str(path)}
    exec(compile(code, str(path), "exec"), namespace)
    torch.manual_seed(0)
    return namespace["Levels"]().eval()


def test_rewrite_text() -> None:
    assert rewrite(LEVELS) == LEVELS  # unsafe: only with --unsafe, or as migrate's verified candidate
    after = rewrite(LEVELS, unsafe=True)
    assert "spatial = _trt_sizes_tensor(shapes, dtype=torch.long, device=x.device)" in after
    assert "whole = _trt_sizes_tensor([(hx, wx)])" in after
    assert "def _trt_sizes_tensor(" in after and "def _trt_sizes_stacked(" in after


def test_sizes_of_an_object_not_shown_to_be_a_tensor_need_the_exports_warning() -> None:
    # `source` is a loop variable: its `.shape` is a "loose" size, counted only where the
    # observed export warned at the call (migrate; examples/guidance/spatial_shapes.py).
    code = LEVELS.replace("for conv in self.convs:", "for source in [c(x) for c in self.convs]:")
    code = code.replace("            feature = torch.relu(conv(x))\n", "")
    code = code.replace("h, w = feature.shape[2:]", "h, w = source.shape[2:]")
    after = rewrite(code, unsafe=True)
    assert "spatial = torch.as_tensor(shapes" in after and "whole = _trt_sizes_tensor(" in after


def test_a_list_appended_with_sizes_is_followed() -> None:
    code = """\
    import torch
    class M(torch.nn.Module):
        def forward(self, x, y):
            shapes = []
            h, w = x.shape[2:]
            shapes.append((h, w))
            shapes.append(y.shape[2:])
            shapes.append((y.size(2) // 2, -1))
            return torch.as_tensor(shapes, device=x.device)
    """
    assert "return _trt_sizes_tensor(shapes, device=x.device)" in rewrite(code, unsafe=True)
    assert rules_found(code, select=("TRT716",)) == ["TRT716"]


@pytest.mark.parametrize("lines", [
    "s = []\n        s.append((x.shape[2], x.mean()))\n        return torch.as_tensor(s)",  # a value
    "s = []\n        s.append((x.shape[2], 1))\n        s.extend(other)\n        return torch.as_tensor(s)",
    "s = []\n        s.append((x.shape[2], 1))\n        s = other\n        return torch.as_tensor(s)",
    "s = []\n        s.append((x.shape[2], 1))\n        s += other\n        return torch.as_tensor(s)",
    "return torch.as_tensor([x.shape[2] * x.mean()])",  # a size times a value
    "return torch.as_tensor([x.shape[2] / other])",  # divided by something not shown to be a number
    "return torch.as_tensor([[0.5, 1.0], [2.0, -3.5]])",  # number literals only
    "return torch.as_tensor([n / 2, 0.5])",  # an int parameter: the trace's constant anyway
    "return torch.as_tensor([1, 2])",  # no size
    "return torch.tensor([-1], dtype=int)",
    "return torch.tensor([n], device=x.device)",  # an int parameter: the trace's constant anyway
    "return torch.as_tensor([])",
    "return torch.as_tensor([x.shape[2]], requires_grad=False)",  # a keyword the helper lacks
    "return torch.as_tensor(other)",
    "return torch.as_tensor([*other, x.shape[2]])",
])
def test_what_is_not_a_list_of_sizes_is_left_alone(lines: str) -> None:
    code = f"import torch\nclass M(torch.nn.Module):\n    def forward(self, x, other, n: int):\n        {lines}\n"
    assert "_trt_sizes" not in rewrite(code, unsafe=True)


@pytest.mark.parametrize("data", [
    [(8, 6), (4, 3), (2, 2)], [(0, 5)], [0], (3,), [[1, 2], [3, 4]], [[[1], [2]]], 7, [], [[], []],
    [1.5, 2], [True, False], [-3, 4], [torch.tensor(2), torch.tensor(3)],
])
@pytest.mark.parametrize("kwargs", [{}, {"dtype": torch.long}, {"dtype": torch.int32},
                                    {"dtype": torch.float32, "device": "cpu"}])
def test_helper_is_as_tensor_outside_a_trace(data, kwargs) -> None:
    want = torch.as_tensor(data, **kwargs)
    got = _trt_sizes_tensor(data, **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape and got.device == want.device
    assert torch.equal(got, want)


def test_helper_raises_as_as_tensor_on_a_ragged_list() -> None:
    with pytest.raises(ValueError):
        torch.as_tensor([(1, 2), (3,)])
    with pytest.raises(ValueError):
        _trt_sizes_tensor([(1, 2), (3,)])


def _export(model: torch.nn.Module, x: torch.Tensor) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TracerWarnings of the original are the point
        torch.onnx.export(model, (x,), buffer, dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {2: "h", 3: "w"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


SIZES = [(32, 32), (64, 48), (5, 7), (1, 1), (9, 16)]


def _errors(model: torch.nn.Module) -> list[tuple[int, int]]:
    session = _export(model, torch.randn(1, 1, 32, 32))
    wrong = []
    for h, w in SIZES:
        x = torch.randn(1, 1, h, w)
        (got,) = session.run(None, {"x": x.numpy()})
        if not torch.allclose(torch.from_numpy(got), model(x), atol=1e-5):
            wrong.append((h, w))
    return wrong


def test_the_original_bakes_the_sizes_and_the_rewrite_keeps_them(tmp_path) -> None:
    after = rewrite(LEVELS, unsafe=True)
    original, rewritten = _load(LEVELS, tmp_path, "original"), _load(after, tmp_path, "rewritten")
    assert _errors(original) == [s for s in SIZES if s != (32, 32)]
    assert _errors(rewritten) == []
    for h, w in SIZES:  # eager is unchanged
        x = torch.randn(2, 1, h, w)
        assert torch.equal(original(x), rewritten(x))


def test_the_helper_traces_without_a_constant_warning_of_its_own() -> None:
    """The tracer warns that `torch.as_tensor` results are constants even for a traced size: the
    helper builds its leaves without it, so migrate has no warning inside the helper to locate
    (vit-pytorch's NaViT showed one at a blank line of the user's file). The values and dtypes
    are as_tensor's, plain numbers and traced sizes mixed, with a dtype and without."""
    def sizes(x, dtype):
        h, w = x.shape[-2:]
        return _trt_sizes_tensor([(h, w), (h * 2, 3)], dtype=dtype)

    for dtype in (None, torch.int32, torch.float32):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            traced = torch.jit.trace(lambda x: sizes(x, dtype), (torch.rand(1, 4, 6),))
        assert not [w for w in caught if "registered as constants" in str(w.message)], dtype
        for h, w in [(4, 6), (7, 2), (1, 1)]:
            x = torch.rand(1, h, w)
            want = torch.as_tensor([(h, w), (h * 2, 3)], dtype=dtype)
            got = traced(x)
            assert got.dtype == want.dtype and torch.equal(got, want), (dtype, h, w)


def test_torch_export_sees_the_original(tmp_path) -> None:
    # Outside a trace the helper is torch.as_tensor: torch.export (and the dynamo exporter on
    # it) specializes the sizes of both alike, raising the same error for dynamic dims.
    after = rewrite(LEVELS, unsafe=True)
    dims = {"x": {2: torch.export.Dim("h", min=4, max=128), 3: torch.export.Dim("w", min=4, max=128)}}
    errors = []
    for name, code in (("original", LEVELS), ("rewritten", after)):
        model = _load(code, tmp_path, name)
        with pytest.raises(torch._dynamo.exc.UserError) as raised:
            torch.export.export(model, (torch.randn(1, 1, 32, 32),), dynamic_shapes=dims)
        errors.append(str(raised.value).split("\n")[0])
        x = torch.randn(1, 1, 32, 32)
        assert torch.equal(torch.export.export(model, (x,)).module()(x), model(x))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("data,expected", [
    ("[[s[1], s[0]] for s in [x.shape[2:], y.shape[2:]]]", True),  # items of a display of sizes
    ("[(s[0] // 2, s[1] + 1) for s in shapes]", True),  # items of a list appended with sizes
    ("[s for s in shapes]", True),
    ("[list(x.shape[2:]) for _ in range(2)]", True),
    ("[f.shape[-2:] for f in [x, y]]", False),  # an item of anything else: loose, needs the warning
    ("[(s[0] * 0.5, s[1] / 2) for s in shapes]", True),  # scaled and divided
    ("[(s[0] * x.mean(), s[1]) for s in shapes]", False),  # times a value
    ("[s[0] for s in shapes for t in shapes]", False),  # two loops
    ("[x.mean() for s in shapes]", False),  # not read from the item
    ("[n for n in range(3)]", False),
])
def test_comprehensions_of_sizes(data: str, expected: bool) -> None:
    code = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x, y):\n        shapes = []\n"
            f"        shapes.append(x.shape[2:])\n        return torch.tensor({data})\n")
    assert ("_trt_sizes_tensor(" in rewrite(code, unsafe=True)) is expected


def test_a_comprehension_target_shadows_a_local_of_its_name() -> None:
    # `s` is a size outside; inside the comprehension it is an item of a list of features.
    code = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x, y):\n        s = x.shape[2]\n"
            "        return torch.tensor([s for s in [x.mean(), y.mean()]])\n")
    assert "_trt_sizes_tensor" not in rewrite(code, unsafe=True)


def test_comprehension_helper_runs_as_the_original(tmp_path) -> None:
    code = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x, y):\n"
            "        shapes = [x.shape[2:], y.shape[2:]]\n"
            "        return torch.tensor([[s[1], s[0] - 1] for s in shapes]), torch.as_tensor([list(s) for s in shapes]), "
            "torch.tensor([[s[1] / 2.0, s[0] * 0.5, 1.0] for s in shapes])\n")
    new = rewrite(code, unsafe=True)
    assert new.count("_trt_sizes_tensor([") == 3
    before, after = load(code, "M")(), load(new, "M")()
    for hx, wx, hy, wy in [(1, 1, 0, 3), (4, 5, 2, 2), (0, 0, 7, 1)]:
        x, y = torch.zeros(1, 1, hx, wx), torch.zeros(1, 1, hy, wy)
        for want, got in zip(before(x, y), after(x, y)):
            assert torch.equal(want, got) and want.dtype == got.dtype


HANDED_DOWN = """\
import torch
class M(torch.nn.Module):
    def forward(self, x, shapes):
        return torch.tensor([[s[1], s[0]] for s in shapes], dtype=torch.long, device=x.device)
"""


def _with_warning(code: str, tmp_path) -> str:
    """``code`` rewritten (``--unsafe``) with the facts an export that warned at line 4 records."""
    from trtcodemod.engine import Options, fix_source
    from trtcodemod.evidence.facts import Facts

    path = tmp_path / "handed.py"
    path.write_text(code)
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, len(code.splitlines()) + 1))})
    facts.note_traced([(str(path.resolve()), 4, "torch.tensor results are registered as constants")])
    options = Options(select=("TRT716",), unsafe=True, facts=facts, scope="all")
    return fix_source(code.encode(), str(path.resolve()), options).source.decode()


def test_a_list_handed_down_counts_as_sizes_only_where_the_export_warned(tmp_path) -> None:
    # `shapes` is a parameter: its items are sizes only by the observed export's warning.
    assert "_trt_sizes_tensor" not in rewrite(HANDED_DOWN, unsafe=True)
    after = _with_warning(HANDED_DOWN, tmp_path)
    assert "return _trt_sizes_tensor([[s[1], s[0]] for s in shapes], dtype=torch.long, device=x.device)" in after
    # Rebound in the function (on the warned line), the name is no longer what the caller handed down.
    moved = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x, shapes):\n"
             "        shapes = [(x.mean(), x.sum())]; return torch.tensor([[s[1], s[0]] for s in shapes])\n")
    assert "_trt_sizes_tensor(" not in _with_warning(moved, tmp_path)
    looped = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x, shapes):\n"
              "        for shapes in [[x.mean()]]: return torch.tensor([[s[1], s[0]] for s in shapes])\n")
    assert "_trt_sizes_tensor(" not in _with_warning(looped, tmp_path)


def test_a_list_handed_down_runs_as_the_original(tmp_path) -> None:
    new = _with_warning(HANDED_DOWN, tmp_path)
    assert "_trt_sizes_tensor([[" in new
    before, after = load(HANDED_DOWN, "M")(), load(new, "M")()
    x = torch.zeros(1)
    for shapes in ([(4, 5), (2, 3)], [(0, 0)], [(-1, 7)], [torch.Size([3, 2]), torch.Size([0, 1])],
                   [(torch.tensor(6), torch.tensor(0))]):
        want, got = before(x, shapes), after(x, shapes)
        assert torch.equal(want, got) and want.dtype == got.dtype and want.shape == got.shape
    for bad in ([], [(1, 2), (3,)], [(1.5, 2)]):  # empty, ragged, float: the original's outcome
        try:
            want = before(x, bad)
        except (ValueError, TypeError, RuntimeError, IndexError) as error:
            with pytest.raises(type(error)):
                after(x, bad)
        else:
            got = after(x, bad)
            assert torch.equal(want, got) and want.dtype == got.dtype


# --- an index of the numbers in a range of a size ---------------------------------------------

RENDER = """\
import torch
from torch import nn


class Render(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("times", torch.linspace(0, 1, 5), persistent=False)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        times = self.times.to(dtype=latent.dtype).unsqueeze(0).repeat(latent.shape[0], 1) * latent.mean((1, 2, 3))[:, None]
        out = []
        for k in range(times.shape[1]):
            t = times[list(range(times.shape[0])), k][:, None, None, None].expand(-1, 1, latent.shape[2], latent.shape[3])
            out.append(torch.cat((t, latent), 1))
        tail = latent[range(latent.shape[0]), 0]
        return torch.stack(out, 1), tail
"""


def test_range_index_rewrite_text() -> None:
    assert rewrite(RENDER) == RENDER  # unsafe: only with --unsafe, or as migrate's verified candidate
    after = rewrite(RENDER, unsafe=True)
    assert "t = times[torch.arange(times.shape[0]), k][:, None, None, None]" in after
    assert "tail = latent[torch.arange(latent.shape[0]), 0]" in after
    assert rules_found(RENDER).count("TRT716") == 2


@pytest.mark.parametrize("lines", [
    "return x[list(range(3)), 0]",  # a constant range: the same at every size
    "return x[list(range(n)), 0]",  # an int parameter: the trace's constant anyway
    "return x[[i for i in range(x.shape[0])], 0]",  # a comprehension: TRT406's
    "o = self.cache; return x[list(range(o.shape[0]))]",  # the size of something not shown to be a tensor
    "return x[list(range(x.shape[0], step=2))]",  # a keyword range does not take
    "return x[list(range(1, x.shape[0]))]",  # torch.arange(1, 0) raises where the range is empty
    "return x[list(range(x.shape[0] - 2))]",  # torch.arange(-1) raises where the range is empty
    "return [x.shape[0]][list(range(x.shape[0]))[0]]",
])
def test_what_is_not_a_range_index_of_a_size_is_left_alone(lines: str) -> None:
    code = f"import torch\nclass M(torch.nn.Module):\n    def forward(self, x, other, n: int):\n        {lines}\n"
    code = code.replace("; ", "\n        ")
    assert "arange" not in rewrite(code, unsafe=True)


def test_a_range_shadowed_by_the_user_is_left_alone() -> None:
    code = ("import torch\nrange = lambda n: [0] * n\n"
            "class M(torch.nn.Module):\n    def forward(self, x):\n        return x[list(range(x.shape[0])), 0]\n")
    assert "arange" not in rewrite(code, unsafe=True)


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_an_arange_indexes_as_the_list_of_its_range(n) -> None:
    x = torch.randn(n, 3, n + 1)
    if n:
        x[0, 0, 0], x[-1, 1, -1], x[n // 2, 2, 0] = float("nan"), float("inf"), -0.0
    cases = ((list(range(n)), 1), (list(range(n)),), (slice(None), 0, list(range(n))), (range(n), 2))
    for index in cases:
        arange = tuple(torch.arange(n) if type(i) in (list, range) else i for i in index)
        want, got = x[index], x[arange]
        assert want.shape == got.shape and want.dtype == got.dtype
        assert torch.equal(want.nan_to_num(7.0, 8.0), got.nan_to_num(7.0, 8.0))
        assert torch.equal(want.signbit(), got.signbit())
        got[...] = 1.0  # both are copies: a write changes neither x nor the other
        assert torch.equal(want.nan_to_num(7.0, 8.0), x[index].nan_to_num(7.0, 8.0))


def _render_outputs(model: torch.nn.Module, batch: int, size: int) -> tuple[list, list]:
    session_input = torch.rand(2, 3, 4, 4)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (session_input,), buffer, dynamo=False, input_names=["latent"],
                          dynamic_axes={"latent": {0: "b", 2: "h", 3: "w"}})
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    x = torch.rand(batch, 3, size, size + 1)
    return [o for o in session.run(None, {"latent": x.numpy()})], [o.numpy() for o in model(x)]


def test_the_original_bakes_the_range_and_the_rewrite_follows_the_batch(tmp_path) -> None:
    after = rewrite(RENDER, unsafe=True)
    original, rewritten = (_load(code.replace("Render", "Levels"), tmp_path, name)
                           for code, name in ((RENDER, "render_original"), (after, "render_rewritten")))
    for batch, size in ((2, 4), (3, 6), (5, 3)):
        x = torch.rand(batch, 3, size, size + 2)
        for a, b in zip(original(x), rewritten(x)):  # eager is unchanged
            assert torch.equal(a, b)
        got, want = _render_outputs(rewritten, batch, size)
        assert all(g.shape == w.shape and abs(g - w).max() <= 1e-6 for g, w in zip(got, want))
    # The original's graph keeps the traced batch's positions: it matches at batch 2 only.
    got, want = _render_outputs(original, 2, 5)
    assert all(g.shape == w.shape and abs(g - w).max() <= 1e-6 for g, w in zip(got, want))
    with pytest.raises(Exception, match="Concat|Gather|dimension"):
        _render_outputs(original, 3, 5)


DECODER = """\
import torch
from torch import nn


class Decoder(nn.Module):
    # lafhterlearn 0.7.1's greedy decoder (models.py:215-232), in our own words: the batch's positions bound to a
    # name once, then a one-hot written at each step through them.
    def forward(self, encodings: torch.Tensor) -> torch.Tensor:
        batch_size = encodings.shape[0]
        batch_indices = range(batch_size)
        y = torch.zeros(batch_size, encodings.shape[1])
        outputs = []
        for t in range(3):
            top = (encodings * (t + 1) + y).argmax(dim=1)
            y = torch.zeros(batch_size, encodings.shape[1])
            y[batch_indices, top] = 1.0
            outputs.append(y)
        return torch.stack(outputs, 1)
"""


def test_a_range_bound_to_a_name_indexes_as_its_arange(tmp_path) -> None:
    after = rewrite(DECODER, unsafe=True, select=("TRT716",))
    assert "y[torch.arange(batch_size), top] = 1.0" in after
    assert "batch_indices = range(batch_size)" in after  # the name keeps its range for anything else
    original = _load(DECODER.replace("Decoder", "Levels"), tmp_path, "decoder_original")
    rewritten = _load(after.replace("Decoder", "Levels"), tmp_path, "decoder_rewritten")
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(rewritten, (torch.randn(2, 5),), buffer, dynamo=False, input_names=["e"],
                          dynamic_axes={"e": {0: "b"}})
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    for x in (torch.randn(4, 5), torch.zeros(1, 5), -torch.randn(3, 5), torch.randn(0, 5)):
        assert torch.equal(original(x), rewritten(x))
        if x.shape[0]:
            assert torch.equal(torch.from_numpy(session.run(None, {"e": x.numpy()})[0]), original(x))
    rebound = DECODER.replace("        outputs = []\n", "        outputs = []\n        batch_size = 2\n")
    assert "arange" not in rewrite(rebound, unsafe=True, select=("TRT716",))


def test_a_graph_refused_on_another_set_is_placed_and_matched_to_the_range_index() -> None:
    """A graph that runs on the traced set and that ONNX Runtime refuses on another, at a node it
    names, is a located problem (not only named at the end), and TRT716's finding in the same file
    is a fix for it: the bake is silent, and shows where the baked positions meet the batch."""
    from trtcodemod.migrate.locate import FAILS_TO_RUN, unfaithful_graphs
    from trtcodemod.migrate.plan import matches
    from trtcodemod.rules import Finding, Safety
    from trtcodemod.verify.results import VerifyReport

    refused = {"node": "/m/rendering/Concat_73", "op": "Concat", "source": "/m/defmo.py:364"}
    check = {"side": "before", "exporter": "torchscript", "faithful": False, "baked": True, "failing_sets": [3],
             "detail": "the graph matches eager on the traced input set but not on set(s) 3: the export baked "
                       "something in (set 3: Fail: ... running Concat node. Name:'/m/rendering/Concat_73')",
             "failed_node": refused}
    [problem] = unfaithful_graphs(VerifyReport.from_json({"export_checks": [check]}), "before")
    assert (problem.op, problem.path, problem.line) == (FAILS_TO_RUN, "/m/defmo.py", 364)
    assert "refuses the Concat node '/m/rendering/Concat_73' made at /m/defmo.py:364" in problem.message

    def finding(rule: str, path: str) -> Finding:
        return Finding(rule, "x", "m", path, 358, 23, 358, 50, Safety.UNSAFE)

    assert matches(problem, finding("TRT716", "/m/defmo.py"))
    assert not matches(problem, finding("TRT716", "/m/other.py"))
    assert not matches(problem, finding("TRT712", "/m/defmo.py"))  # another line, a rule of values, not indices
    # Without a node, a graph that differs only on other sets stays for the end, as before.
    del check["failed_node"]
    assert unfaithful_graphs(VerifyReport.from_json({"export_checks": [check]}), "before") == []


BATCHED = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("times", torch.linspace(0, 1, 3), persistent=False)
        self.conv = nn.Conv2d(3, 2, 1)

    def forward(self, x):
        latent = self.conv(x)
        times = self.times.unsqueeze(0).repeat(latent.shape[0], 1)
        t = times[list(range(times.shape[0])), 1][:, None, None, None].expand(-1, 1, latent.shape[2], latent.shape[3])
        return torch.cat((t, latent), 1)


def build():
    torch.manual_seed(0)
    return Net().eval()
"""


def test_migrate_fixes_a_range_index_refused_at_another_batch(tmp_path) -> None:
    import json

    from support import invoke

    path = tmp_path / "batched.py"
    path.write_text(BATCHED)
    result = invoke("migrate", str(path), "--model", "build", "--input-shape", "x:1x3x5x5", "--dynamic-axes",
                    '{"x": {"0": "batch"}}', "--format", "json", "--runs", "1", "--warmup", "0",
                    "--backends", "torch-cpu,onnxruntime-cpu")
    [report] = json.loads(result.stdout)["models"]
    assert report["before"]["faithful"] is False, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT716"], report
    assert "fails to run at line 15" in report["applied"][0]["proof"]
    assert report["after"]["faithful"] is True and result.exit_code == 0, report["remaining"]
    assert "times[torch.arange(times.shape[0]), 1]" in report["diff"]


# --- sizes unpacked by a loop over a list of sizes (D-FINE / RT-DETR anchors) -------------------

ANCHORS = """\
import torch
from torch import nn


class Anchors(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(1, 2, 3, stride=s, padding=1) for s in (2, 4))
        self.eps = 1e-2

    def _shapes(self, x):
        shapes = []
        for conv in self.convs:
            _, _, h, w = conv(x).shape
            shapes.append([h, w])
        return shapes

    def _generate_anchors(self, spatial_shapes=None, grid_size=0.05, dtype=torch.float32):
        if spatial_shapes is None:
            spatial_shapes = []
            for s in (8, 16):
                spatial_shapes.append([int(64 / s), int(64 / s)])
        anchors = []
        for lvl, (h, w) in enumerate(spatial_shapes):
            grid_y, grid_x = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
            grid_xy = torch.stack([grid_x, grid_y], dim=-1)
            grid_xy = (grid_xy.unsqueeze(0) + 0.5) / torch.tensor([w, h], dtype=dtype)
            wh = torch.ones_like(grid_xy) * grid_size * (2.0**lvl)
            anchors.append(torch.concat([grid_xy, wh], dim=-1).reshape(-1, h * w, 4))
        anchors = torch.concat(anchors, dim=1)
        valid_mask = ((anchors > self.eps) * (anchors < 1 - self.eps)).all(-1, keepdim=True)
        anchors = torch.log(anchors / (1 - anchors))
        return torch.where(valid_mask, anchors, torch.inf), valid_mask

    def forward(self, x):
        return self._generate_anchors(self._shapes(x))
"""


def _warned_at(code: str, tmp_path, marker: str, name: str = "anchors") -> str:
    """``code`` rewritten (``--unsafe``, TRT716) with the facts of an export that warned at the
    line holding ``marker`` (a TracerWarning there), as migrate records them."""
    from trtcodemod.engine import Options, fix_source
    from trtcodemod.evidence.facts import Facts

    path = tmp_path / f"{name}.py"
    path.write_text(code)
    line = next(i for i, text in enumerate(code.splitlines(), 1) if marker in text)
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, len(code.splitlines()) + 1))})
    facts.note_traced([(str(path.resolve()), line, "torch.tensor results are registered as constants")])
    options = Options(select=("TRT716",), unsafe=True, facts=facts, scope="all")
    result = fix_source(code.encode(), str(path.resolve()), options)
    assert not result.internal_errors, result.internal_errors
    return result.source.decode()


def test_sizes_a_loop_unpacks_from_a_list_handed_down(tmp_path) -> None:
    # D-FINE's (and easydetect's, DEIM's) `_generate_anchors`: `spatial_shapes` is the caller's list,
    # or the default built when it is None; `h, w` are sizes only by the export's warning at the call.
    assert "_trt_sizes_tensor" not in rewrite(ANCHORS, unsafe=True)
    after = _warned_at(ANCHORS, tmp_path, "torch.tensor([w, h]")
    assert "/ _trt_sizes_tensor([w, h], dtype=dtype)" in after
    assert after.count("_trt_sizes_tensor(") == 2  # the helper's definition and the call


@pytest.mark.parametrize("loop,call", [
    # RT-DETR (lyuwenyu/RT-DETR rtdetr_decoder.py): the dtype given afterwards.
    ("for lvl, (h, w) in enumerate(spatial_shapes):", "torch.tensor([w, h]).to(dtype)"),
    # transformers' OmDet-Turbo (modeling_omdet_turbo.py:1215): dtype and device, other names.
    ("for level, (height, width) in enumerate(spatial_shapes):",
     "torch.tensor([width, height], dtype=dtype, device=x.device)"),
    ("for i, (h, w) in enumerate(spatial_shapes, start=1):", "torch.tensor([w, h * 2])"),
    ("for (h, w) in spatial_shapes:", "torch.as_tensor([w, h], dtype=dtype)"),
    ("for shape in spatial_shapes:", "torch.tensor(shape)"),
    ("for (h, w) in spatial_shapes:", "torch.tensor([w / 2.0, (h - 1) * 0.5])"),  # divided and scaled
])
def test_loop_forms_over_a_list_handed_down(tmp_path, loop: str, call: str) -> None:
    code = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x, spatial_shapes, dtype=torch.float32):\n"
            f"        out = []\n        {loop}\n            out.append({call})\n        return out\n")
    after = _warned_at(code, tmp_path, "out.append(")
    assert "out.append(_trt_sizes_tensor(" in after
    assert "_trt_sizes_tensor" not in rewrite(code, unsafe=True)  # no warning: a list of anything


def test_a_loop_over_a_local_list_of_sizes_needs_no_warning() -> None:
    code = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x, y):\n        shapes = []\n"
            "        shapes.append(x.shape[2:])\n        shapes.append(y.shape[2:])\n        out = []\n"
            "        for lvl, (h, w) in enumerate(shapes):\n            out.append(torch.tensor([w, h - 1]))\n"
            "        return out\n")
    assert "out.append(_trt_sizes_tensor([w, h - 1]))" in rewrite(code, unsafe=True)


@pytest.mark.parametrize("lines", [
    # the names rebound in the body: no longer the item's sizes
    "for lvl, (h, w) in enumerate(spatial_shapes):\n            w = x.mean()\n"
    "            out.append(torch.tensor([w, h]))",
    # the parameter rebound for good (not a default where it is None)
    "spatial_shapes = [(x.mean(), x.sum())]\n        for (h, w) in spatial_shapes:\n"
    "            out.append(torch.tensor([w, h]))",
    # a default under another test than `is None`
    "if dtype:\n            spatial_shapes = [(x.mean(), x.sum())]\n        for (h, w) in spatial_shapes:\n"
    "            out.append(torch.tensor([w, h]))",
    # a starred or nested target: its depth is not followed
    "for lvl, (h, *w) in enumerate(spatial_shapes):\n            out.append(torch.tensor([h]))",
    "for lvl, ((h, w), s) in enumerate(spatial_shapes):\n            out.append(torch.tensor([w, h]))",
    # a size times a value, beside a literal
    "for (h, w) in spatial_shapes:\n            out.append(torch.tensor([w * x.mean(), 0.5]))",
    # the index of enumerate is not a size
    "for lvl, (h, w) in enumerate(spatial_shapes):\n            out.append(torch.tensor([lvl, lvl]))",
    # a loop over a local list of values
    "pairs = [(x.mean(), x.sum())]\n        for (h, w) in pairs:\n            out.append(torch.tensor([w, h]))",
    # a user's own enumerate
    "enumerate = zip\n        for lvl, (h, w) in enumerate(spatial_shapes, spatial_shapes):\n"
    "            out.append(torch.tensor([w, h]))",
])
def test_what_a_loop_does_not_show_to_be_sizes_is_left_alone(tmp_path, lines: str) -> None:
    code = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x, spatial_shapes, dtype=None):\n"
            f"        out = []\n        {lines}\n        return out\n")
    compile(code, "m.py", "exec")
    assert "_trt_sizes_tensor(" not in _warned_at(code, tmp_path, "out.append(")


def _anchor_models(tmp_path) -> tuple[torch.nn.Module, torch.nn.Module]:
    after = _warned_at(ANCHORS, tmp_path, "torch.tensor([w, h]")
    assert "_trt_sizes_tensor([w, h]" in after
    return _load_as(ANCHORS, tmp_path, "original"), _load_as(after, tmp_path, "rewritten")


def _load_as(code: str, tmp_path, name: str) -> torch.nn.Module:
    path = tmp_path / f"{name}.py"
    path.write_text(code)
    namespace: dict = {"__name__": name, "__file__": str(path)}
    exec(compile(code, str(path), "exec"), namespace)
    torch.manual_seed(0)
    return namespace["Anchors"]().eval()


def test_anchor_helper_runs_as_the_original(tmp_path) -> None:
    # Eager: the same anchors and mask, bit for bit (inf where invalid), at sizes down to a 1x1
    # level, odd sizes, the default list (None), float64 and an empty level.
    original, rewritten = _anchor_models(tmp_path)
    for h, w in [(32, 32), (64, 48), (1, 1), (3, 17), (5, 2), (128, 8)]:
        x = torch.rand(2, 1, h, w)
        for want, got in zip(original(x), rewritten(x)):
            assert torch.equal(want, got) and want.dtype == got.dtype and want.shape == got.shape
    for shapes, dtype in ((None, torch.float32), ([[4, 5], [2, 3]], torch.float64), ([[0, 3]], torch.float32),
                          ([[torch.tensor(6), torch.tensor(2)]], torch.float32)):
        try:
            want = original._generate_anchors(shapes, dtype=dtype)
        except RuntimeError as error:  # an empty level: the reshape raises, in both alike
            with pytest.raises(type(error), match="cannot reshape"):
                rewritten._generate_anchors(shapes, dtype=dtype)
            continue
        got = rewritten._generate_anchors(shapes, dtype=dtype)
        for a, b in zip(want, got):
            assert torch.equal(a, b) and a.dtype == b.dtype and a.shape == b.shape
    assert torch.isinf(original(torch.rand(1, 1, 128, 8))[0]).any()  # the edge values (inf) are compared


def _export_anchors(model: torch.nn.Module, size: tuple[int, int]) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.rand(1, 1, *size),), buffer, dynamo=False, input_names=["x"],
                          output_names=["anchors", "valid"], dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def test_the_original_bakes_the_anchor_sizes_and_the_rewrite_follows_them(tmp_path) -> None:
    # Exported at 32x32 and at 64x48, run at the other size and more: the original divides by
    # the traced example's sizes (wrong values, right shapes), the rewrite by the input's.
    original, rewritten = _anchor_models(tmp_path)
    for traced, others in (((32, 32), [(64, 48), (96, 160)]), ((64, 48), [(32, 32), (40, 8)])):
        wrong = []
        for model, name in ((original, "original"), (rewritten, "rewritten")):
            session = _export_anchors(model, traced)
            for h, w in [traced, *others]:
                x = torch.rand(1, 1, h, w)
                got = [torch.from_numpy(a) for a in session.run(None, {"x": x.numpy()})]
                want = model(x)
                if not all(g.shape == e.shape and torch.allclose(g, e.to(g.dtype), atol=1e-6)
                           for g, e in zip(got, want)):
                    wrong.append((name, h, w))
        assert wrong == [("original", h, w) for h, w in others], (traced, wrong)


CAMERA = """\
import torch
from torch import nn


class Camera(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, h, w = x.shape[0], x.shape[2], x.shape[3]
        k = torch.tensor([[w * 0.8, 0.0, w / 2.0], [0.0, h * 0.8, (h - 1) / 2], [0.0, 0.0, 1.0]])
        k = k[None].expand(b, -1, -1)
        ys, xs = torch.meshgrid(torch.arange(h, dtype=x.dtype), torch.arange(w, dtype=x.dtype), indexing="ij")
        fx, fy, cx, cy = (k[:, i, j, None, None] for i, j in ((0, 0), (1, 1), (0, 2), (1, 2)))
        rays = torch.stack([(xs - cx) / fx, (ys - cy) / fy, k[:, 2, 2, None, None].expand(b, h, w)], -1)
        return x.mean(1)[..., None] * rays
"""


def test_a_camera_matrix_of_scaled_sizes_is_a_nest_of_sizes() -> None:
    # A camera's intrinsics from the image size (kornia's depth warp and undistortion take one):
    # sizes divided or scaled by float literals, rows of literals beside them.
    after = rewrite(CAMERA, unsafe=True, select=("TRT716",))
    assert ("k = _trt_sizes_tensor([[w * 0.8, 0.0, w / 2.0], [0.0, h * 0.8, (h - 1) / 2], [0.0, 0.0, 1.0]])"
            in after)
    assert rewrite(CAMERA, select=("TRT716",)) == CAMERA  # unsafe: with --unsafe, or as migrate verifies it


@pytest.mark.parametrize("shape", [(1, 1, 32, 32), (2, 3, 1, 1), (1, 2, 5, 7), (3, 1, 1919, 2), (1, 1, 2, 1081)])
def test_camera_helper_runs_as_the_original(tmp_path, shape) -> None:
    # Eager: the helper is torch.tensor itself, bit for bit, at 1x1 and odd sizes.
    text = rewrite(CAMERA, unsafe=True, select=("TRT716",))
    assert "_trt_sizes_tensor([[w * 0.8" in text
    original, rewritten = load(CAMERA, "Camera")(), load(text, "Camera")()
    x = torch.rand(*shape)
    want, got = original(x), rewritten(x)
    assert want.dtype == got.dtype == torch.float32 and want.shape == got.shape
    assert torch.equal(want, got)


@pytest.mark.parametrize("dtype", [None, torch.float32, torch.float64, torch.long])
def test_the_helper_traces_scaled_sizes_with_as_tensors_dtype(dtype) -> None:
    # While tracing, `w / 2.0` and `h * 0.8` are 0-d float32 tensors: the stack infers as_tensor's
    # dtype (the default float dtype where any number is a float) and follows the input's size.
    # The traced products are rounded from float32 operands, eager Python's from doubles: at most
    # a float32 rounding or two apart (exact for halves).
    def matrix(x):
        h, w = x.shape[-2:]
        return _trt_sizes_tensor([[w * 0.8, 0.0, w / 2.0], [0.0, h * 0.8, (h - 1) / 2], [0, 0, 1]], dtype=dtype)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = torch.jit.trace(matrix, (torch.rand(1, 64, 64),))
    assert not [w for w in caught if "registered as constants" in str(w.message)], dtype
    for h, w in [(64, 64), (1, 1), (7, 2), (1081, 1919)]:
        want = torch.as_tensor([[w * 0.8, 0.0, w / 2.0], [0.0, h * 0.8, (h - 1) / 2], [0, 0, 1]], dtype=dtype)
        got = traced(torch.rand(1, h, w))
        assert got.dtype == want.dtype and got.shape == want.shape, (dtype, h, w)
        if want.is_floating_point():
            torch.testing.assert_close(got, want, rtol=3e-7, atol=0)
            assert torch.equal(got[:, 2], want[:, 2])  # halves and literals: exact
        else:
            assert torch.equal(got, want)


def _export_camera(model: torch.nn.Module, size: tuple[int, int]) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.rand(1, 2, *size),), buffer, dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def test_the_original_bakes_the_camera_matrix_and_the_rewrite_follows_it(tmp_path) -> None:
    # Exported at 32x32 and at 48x64, run at the other size and more: the original back-projects
    # with the example's intrinsics (right shapes, wrong rays), the rewrite with the input's.
    original = load(CAMERA, "Camera")()
    rewritten = load(rewrite(CAMERA, unsafe=True, select=("TRT716",)), "Camera")()
    for traced, others in (((32, 32), [(48, 64), (1, 1), (17, 5)]), ((48, 64), [(32, 32), (9, 128)])):
        wrong = []
        for model, name in ((original, "original"), (rewritten, "rewritten")):
            session = _export_camera(model, traced)
            for batch, (h, w) in [(1, traced), *((2, size) for size in others)]:
                x = torch.rand(batch, 2, h, w)
                (got,) = session.run(None, {"x": x.numpy()})
                want = model(x)
                if got.shape != tuple(want.shape) or not torch.allclose(torch.from_numpy(got), want, rtol=1e-5,
                                                                           atol=1e-5):
                    wrong.append((name, h, w))
        assert wrong == [("original", h, w) for h, w in others], (traced, wrong)


# --- numbers computed from sizes with a true division, and the legacy `torch.Tensor(list)` constructor ---

#: GMFlow's `normalize_coords` (haofeixu/gmflow, gmflow/geometry.py: the sizes a caller hands down, a legacy
#: constructor) and SuperPoint's descriptor sampling (magicleap/SuperGluePretrainedNetwork,
#: models/superpoint.py: the sizes of a tensor that is not forward's, an `int` parameter).
FRACTIONS = """\
import torch
from torch import nn


def normalize_coords(coords, h, w):
    c = torch.Tensor([(w - 1) / 2., (h - 1) / 2.]).float().to(coords.device)
    return (coords - c) / c


def descriptor_scale(d, s: int = 8):
    b, c, h, w = d.shape
    return torch.tensor([(w * s - s / 2 - 0.5), (h * s - s / 2 - 0.5)],).to(d)


class Net(nn.Module):
    def forward(self, x):
        b, c, h, w = x.shape
        ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        grid = torch.stack([xs, ys], -1).float()[None].expand(b, -1, -1, -1)
        return normalize_coords(grid, h, w) * descriptor_scale(x) + x.mean()
"""


def _fractions_rewritten(tmp_path, warned: tuple[int, ...]) -> str:
    from trtcodemod.engine import Options, fix_source
    from trtcodemod.evidence.facts import Facts

    path = tmp_path / "fractions.py"
    path.write_text(FRACTIONS)
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, len(FRACTIONS.splitlines()) + 1))})
    facts.note_traced([(str(path.resolve()), line, "Converting a tensor to a Python float") for line in warned])
    options = Options(select=("TRT716",), unsafe=True, facts=facts, scope="all")
    return fix_source(FRACTIONS.encode(), str(path.resolve()), options).source.decode()


def test_numbers_from_sizes_with_a_division_are_taken_where_the_export_warned(tmp_path) -> None:
    assert "_trt_sizes" not in rewrite(FRACTIONS, unsafe=True)  # sizes handed down or of a non-forward tensor
    assert "_trt_sizes" not in _fractions_rewritten(tmp_path, ())
    after = _fractions_rewritten(tmp_path, (6, 12))
    assert "c = _trt_sizes_legacy_tensor([(w - 1) / 2., (h - 1) / 2.]).float().to(coords.device)" in after
    assert "return _trt_sizes_tensor([(w * s - s / 2 - 0.5), (h * s - s / 2 - 0.5)],).to(d)" in after
    # a size of forward's tensor times a float (left alone before floats were taken): no warning needed
    scaled = "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return torch.as_tensor([x.shape[2] * 0.5])\n"
    assert "return _trt_sizes_tensor([x.shape[2] * 0.5])" in rewrite(scaled, unsafe=True, select=("TRT716",))
    # literals alone, and names that are not sizes, are no list of sizes
    left = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x, scale: float):\n"
            "        return torch.tensor([1 / 2, 0.5]) + torch.Tensor([scale / 2, 1.0]) + torch.Tensor(3, 4).sum()\n")
    assert "_trt_sizes" not in rewrite(left, unsafe=True, select=("TRT716",))


def _nets(tmp_path, codes: dict[str, str]) -> list[torch.nn.Module]:
    """Each code's ``Net``, built from a file of its own (the helpers' source is read from it)."""
    models = []
    for name, code in codes.items():
        path = tmp_path / f"{name}.py"
        path.write_text(code)
        namespace: dict = {"__name__": name, "__file__": str(path)}
        exec(compile(code, str(path), "exec"), namespace)
        models.append(namespace["Net"]().eval())
    return models


def _fraction_models(tmp_path) -> tuple[torch.nn.Module, torch.nn.Module]:
    original, rewritten = _nets(tmp_path, {"fractions_original": FRACTIONS,
                                           "fractions_rewritten": _fractions_rewritten(tmp_path, (6, 12))})
    return original, rewritten


def test_the_original_bakes_the_fractions_and_the_rewrite_follows_the_size(tmp_path) -> None:
    original, rewritten = _fraction_models(tmp_path)

    def session(model):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(1, 2, 8, 12),), buffer, dynamo=False, opset_version=17,
                              input_names=["x"], dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
        return ort.InferenceSession(buffer.getvalue())

    before, after = session(original), session(rewritten)
    for shape in [(2, 2, 5, 9), (1, 2, 16, 4), (1, 2, 8, 12), (1, 2, 1, 3)]:  # height 1: a zero normaliser
        x = torch.randn(shape)
        want = original(x)
        (got,) = after.run(None, {"x": x.numpy()})
        assert torch.allclose(torch.from_numpy(got), want, atol=1e-5, equal_nan=True), shape
        if shape != (1, 2, 8, 12):
            (baked,) = before.run(None, {"x": x.numpy()})
            assert not torch.allclose(torch.from_numpy(baked), want, atol=1e-5, equal_nan=True), shape
        assert torch.equal(rewritten(x).nan_to_num(), want.nan_to_num())  # eager is unchanged


@pytest.mark.parametrize("data", [[1.5, 2], [(3, 0.25), (1, -2.0)], [0, -7], [float("inf"), float("nan")]])
def test_the_legacy_helper_is_torch_tensor_outside_a_trace(data) -> None:
    from trtcodemod.helpers.sizes_tensor import _trt_sizes_legacy_tensor

    want = torch.Tensor(data)
    got = _trt_sizes_legacy_tensor(data)
    assert got.dtype == want.dtype and torch.equal(got.nan_to_num(), want.nan_to_num())
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        assert _trt_sizes_legacy_tensor(data).dtype == torch.Tensor(data).dtype == torch.float64
    finally:
        torch.set_default_dtype(default)


def test_traced_fractions_stack_as_the_default_float_dtype() -> None:
    def scale(x):
        h, w = x.shape[-2:]
        return _trt_sizes_tensor([(w - 1) / 2.0, h * 3, 0.5])

    traced = torch.jit.trace(scale, (torch.rand(1, 4, 6),), check_trace=False)
    for h, w in [(4, 6), (7, 2), (1, 1)]:
        want = torch.as_tensor([(w - 1) / 2.0, h * 3, 0.5])
        got = traced(torch.rand(1, h, w))
        assert got.dtype == want.dtype == torch.float32 and torch.equal(got, want), (h, w)


# --- integer arithmetic of sizes a caller hands down ---

#: XFeat's sparse sampler (verlab/accelerated_features@e92685f57f8318b18725c5c8c0bd28c7fe188d9a,
#: modules/interpolator.py:19): the image's height and width handed down as plain parameters, `W - 1` and
#: `H - 1` with no division or float literal.
HANDED = """\
import torch
from torch import nn


def to_unit(pts, H, W, n: int = 3):
    return 2. * (pts / torch.tensor([W - 1, H - 1], device=pts.device, dtype=pts.dtype)) - 1. + torch.tensor([n + 1, 2])


class Net(nn.Module):
    def forward(self, x, pts):
        B, C, H, W = x.shape
        return to_unit(pts, H, W) + x.mean()
"""


def _handed_rewritten(tmp_path, warned: tuple[int, ...]) -> str:
    from trtcodemod.engine import Options, fix_source
    from trtcodemod.evidence.facts import Facts

    path = tmp_path / "handed.py"
    path.write_text(HANDED)
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, len(HANDED.splitlines()) + 1))})
    facts.note_traced([(str(path.resolve()), line, "torch.tensor results are registered as constants")
                       for line in warned])
    options = Options(select=("TRT716",), unsafe=True, facts=facts, scope="all")
    return fix_source(HANDED.encode(), str(path.resolve()), options).source.decode()


def test_integer_numbers_of_sizes_handed_down_are_taken_where_the_export_warned(tmp_path) -> None:
    assert "_trt_sizes" not in rewrite(HANDED, unsafe=True)  # parameters: what they hold is not known here
    assert "_trt_sizes" not in _handed_rewritten(tmp_path, ())
    after = _handed_rewritten(tmp_path, (6,))
    assert ("2. * (pts / _trt_sizes_tensor([W - 1, H - 1], device=pts.device, dtype=pts.dtype)) - 1. + "
            "torch.tensor([n + 1, 2])") in after  # an `int` parameter with literals is a constant of the trace
    original, rewritten = _nets(tmp_path, {"handed_original": HANDED, "handed_rewritten": after})

    def session(model):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(1, 2, 8, 12), torch.rand(1, 5, 2) * 7), buffer, dynamo=False,
                              opset_version=17, input_names=["x", "pts"],
                              dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}, "pts": {0: "b", 1: "n"}})
        return ort.InferenceSession(buffer.getvalue())

    before, after_graph = session(original), session(rewritten)
    cases = [((2, 2, 5, 9), torch.rand(2, 3, 2) * 8), ((1, 2, 16, 4), -torch.rand(1, 4, 2) * 9),
             ((1, 2, 8, 12), torch.zeros(1, 0, 2)), ((1, 2, 1, 1), torch.zeros(1, 2, 2)),  # width 1: 0 / 0
             ((1, 2, 3, 7), torch.tensor([[[float("inf"), float("nan")]]]))]
    for shape, pts in cases:
        x = torch.randn(shape)
        want = original(x, pts)
        (got,) = after_graph.run(None, {"x": x.numpy(), "pts": pts.numpy()})
        torch.testing.assert_close(torch.from_numpy(got), want, atol=1e-5, rtol=1e-5, equal_nan=True)
        if shape in ((2, 2, 5, 9), (1, 2, 16, 4)):  # finite positions at another size: the original bakes
            (baked,) = before.run(None, {"x": x.numpy(), "pts": pts.numpy()})
            assert not torch.allclose(torch.from_numpy(baked), want, atol=1e-5, equal_nan=True), shape
        torch.testing.assert_close(rewritten(x, pts), want, rtol=0, atol=0, equal_nan=True)  # eager unchanged


# pyniftireg 0.1.1 (C. T. Lo), `pyniftireg/grid.py:43` (`to_grid_sample`): one factor per axis from the sizes a caller
# hands down, each through the built-in `max` (a one-voxel axis keeps 2). Reduced in our own words.
FLAT_SIZES = """\
import torch
class M(torch.nn.Module):
    def forward(self, coords, shape):
        return torch.tensor([2.0 / max(n - 1, 1) for n in shape], dtype=coords.dtype, device=coords.device)
"""


def test_an_item_of_a_flat_list_handed_down_used_as_a_number_is_a_size(tmp_path) -> None:
    assert "_trt_sizes_tensor" not in rewrite(FLAT_SIZES, unsafe=True)  # loose: only where the export warned
    after = _with_warning(FLAT_SIZES, tmp_path)
    # The built-in max of sizes becomes TRT712's helper in the same fix: the choice stays in the graph.
    assert ("return _trt_sizes_tensor([2.0 / _trt_size_max(n - 1, 1) for n in shape], dtype=coords.dtype, "
            "device=coords.device)") in after
    assert "def _trt_size_max(" in after
    for code in (FLAT_SIZES.replace("max(n - 1, 1)", "min(1, n // 2)"), FLAT_SIZES.replace("max(n - 1, 1)", "(n - 1)")):
        assert "_trt_sizes_tensor(" in _with_warning(code, tmp_path), code
    # An item that is not shown to be a number (`s * 2` repeats a tuple, `+` joins two), or a max of one argument
    # (the largest item of a tuple) or of a rebound `max`, is left alone.
    for elt in ("s * 2", "s + s", "max(s)", "max(s, key=abs)"):
        code = FLAT_SIZES.replace("2.0 / max(n - 1, 1) for n in shape", f"{elt} for s in shape")
        assert "_trt_sizes_tensor(" not in _with_warning(code, tmp_path), code
    rebound = FLAT_SIZES.replace("import torch\n", "import torch\nfrom numpy import maximum as max\n")
    assert "_trt_sizes_tensor(" not in _with_warning(rebound.replace("    def forward", "    def forward", 1), tmp_path)


def test_the_flat_list_of_sizes_runs_as_the_original(tmp_path) -> None:
    new = _with_warning(FLAT_SIZES, tmp_path)
    assert "_trt_sizes_tensor([2.0 / _trt_size_max(" in new
    before, after = load(FLAT_SIZES, "M")(), load(new, "M")()
    for dtype in (torch.float32, torch.float64, torch.float16):
        coords = torch.zeros(1, dtype=dtype)
        for shape in ([4, 5], [1, 1], [0, 2], [-3, 7], torch.Size([64, 80]), (2**31, 3), [torch.tensor(6), 1]):
            want, got = before(coords, shape), after(coords, shape)
            assert torch.equal(want, got) and want.dtype == got.dtype, (shape, dtype)
    for bad in ([], [1.5, 2], [(1, 2)], None):
        try:
            want = before(torch.zeros(1), bad)
        except (ValueError, TypeError, RuntimeError, ZeroDivisionError) as error:
            with pytest.raises(type(error)):
                after(torch.zeros(1), bad)
        else:
            assert torch.equal(want, after(torch.zeros(1), bad))


REPEATED = """\
import torch
from torch import nn


class Lengths(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(1, 2, 4, stride=2)

    def forward(self, x: torch.Tensor):
        y = self.conv(x[:, None])
        lengths = torch.tensor([(x.shape[1] - 4) // 2 + 1] * x.shape[0], device=y.device, dtype=torch.int32)
        pairs = torch.as_tensor(x.shape[0] * [(2, x.shape[1])])
        return y.sum(1), lengths, pairs
"""


def test_a_list_of_sizes_repeated_by_a_size(tmp_path) -> None:
    """NanoCodec's encoder: `torch.tensor([x.shape[2]] * x.shape[0], dtype=torch.int32)`, each sample's encoded
    length. Python's repetition reads the traced batch as the example's count and the tensor copies the sizes:
    the graph keeps both. `_trt_sizes_repeated` stacks the sizes and repeats them by the traced count."""
    assert rules_found(REPEATED, select=("TRT716",)) == ["TRT716"] * 2
    after = rewrite(REPEATED, unsafe=True, select=("TRT716",))
    assert ("lengths = _trt_sizes_repeated([(x.shape[1] - 4) // 2 + 1], x.shape[0], device=y.device, "
            "dtype=torch.int32)\n" in after)
    assert "pairs = _trt_sizes_repeated([(2, x.shape[1])], x.shape[0])\n" in after
    names = {}
    for label, code in (("original", REPEATED), ("rewritten", after)):
        path = tmp_path / f"{label}.py"
        path.write_text(code)
        namespace: dict = {"__name__": label, "__file__": str(path)}
        exec(compile(code, str(path), "exec"), namespace)
        torch.manual_seed(0)
        names[label] = namespace["Lengths"]().eval()
    original, rewritten = names["original"], names["rewritten"]
    rewritten.load_state_dict(original.state_dict())
    for shape in [(1, 9), (3, 20), (0, 12)]:  # eager unchanged, an empty batch included
        x = torch.randn(*shape)
        for got, want in zip(rewritten(x), original(x)):
            assert got.dtype == want.dtype and torch.equal(got, want), shape
    sessions = {}
    for label, model in names.items():
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(2, 20),), buffer, dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {0: "b", 1: "t"}}, opset_version=17)
        sessions[label] = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    baked = False
    for shape in [(2, 20), (5, 33), (1, 8)]:
        x = torch.randn(*shape)
        want = original(x)
        got = sessions["rewritten"].run(None, {"x": x.numpy()})
        for g, w in zip(got, want):
            assert torch.allclose(torch.from_numpy(g), w, atol=1e-5), shape
        kept = sessions["original"].run(None, {"x": x.numpy()})
        baked = baked or kept[1].tolist() != want[1].tolist()
    assert baked  # the original's graph keeps the example's two lengths of 9


@pytest.mark.parametrize("count", [0, 1, 3])
def test_the_repeating_helper_is_as_tensor_outside_a_trace(count: int) -> None:
    from trtcodemod.helpers.sizes_tensor import _trt_sizes_repeated

    for data, kwargs in (([5], {}), ([(2, 3)], {"dtype": torch.int32}), ((7, 1.5), {}), ([], {})):
        want = torch.as_tensor(data * count, **kwargs)
        got = _trt_sizes_repeated(data, count, **kwargs)
        assert got.dtype == want.dtype and torch.equal(got, want)


CLASS_COLUMN = """\
import torch


def rows(classification, boxes):
    labels = torch.tensor([]).long()
    for i in range(classification.shape[1]):
        keep = torch.nonzero(classification[:, i] > 0.5)[:, 0]
        labels = torch.cat((labels, torch.tensor([i] * keep.shape[0])))
        labels = torch.cat((labels, torch.tensor((7, -1) * keep.shape[0])))
        boxes = boxes + 0 * keep.shape[0]
    return labels, boxes
"""


def test_a_loop_index_or_literals_repeated_by_a_size(tmp_path) -> None:
    """pytorch-retinanet's per-class rows (yhenon's, copied by distinanet 1.0.1, ``distinanet/model/model.py:204``,
    zoo 88): `torch.tensor([i] * anchors_nms_idx.shape[0])`, the class index once for each kept box. The numbers are
    the same in every graph; Python's repetition reads the example's count, which the graph keeps."""
    assert rules_found(CLASS_COLUMN, select=("TRT716",)) == ["TRT716"] * 2
    after = rewrite(CLASS_COLUMN, unsafe=True, select=("TRT716",))
    assert "labels = torch.cat((labels, _trt_sizes_repeated([i], keep.shape[0])))\n" in after
    assert "labels = torch.cat((labels, _trt_sizes_repeated((7, -1), keep.shape[0])))\n" in after
    original, rewritten = import_source(CLASS_COLUMN, tmp_path)["rows"], import_source(after, tmp_path)["rows"]
    scores = torch.tensor([[0.9, 0.1, 0.7], [0.6, 0.2, 0.8], [-1.0, 0.0, 0.51]])
    boxes = torch.zeros(3, 4)
    for data in (scores, torch.zeros(3, 3), -scores, scores[:0]):  # eager unchanged, nothing kept included
        for got, want in zip(rewritten(data, boxes[: data.shape[0]]), original(data, boxes[: data.shape[0]])):
            assert got.dtype == want.dtype and torch.equal(got, want)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = {label: torch.jit.trace(f, (scores, boxes), check_trace=False)
                  for label, f in (("original", original), ("rewritten", rewritten))}
    other = torch.tensor([[0.9, 0.8, 0.7], [0.6, 0.9, 0.8], [0.7, 0.6, 0.51], [1.0, 1.0, 1.0]])
    want = original(other, torch.zeros(4, 4))[0]
    assert torch.equal(traced["rewritten"](other, torch.zeros(4, 4))[0], want)
    assert not torch.equal(traced["original"](other, torch.zeros(4, 4))[0], want)  # the example's counts


@pytest.mark.parametrize("display", ["[j]", "[i + 1]", "[float(i)]", "[*picked]"])
def test_other_repeated_displays_are_left_alone(display: str) -> None:
    # a name of no `range` loop, arithmetic on the index, a call, a starred element: not plain numbers here
    code = CLASS_COLUMN.replace("torch.tensor([i] * keep.shape[0])", f"torch.tensor({display} * keep.shape[0])")
    code = code.replace("    for i in range", "    j, picked = 2, [1]\n    for i in range")
    assert code != CLASS_COLUMN
    assert rules_found(code, select=("TRT716",)) == ["TRT716"]  # the tuple of literals only


# --- a whole parameter of sizes handed to `new_tensor` ---

#: dsntnn 0.5.3 (Aiden Nibali, github.com/anibali/dsntnn, Apache-2.0), `dsntnn/__init__.py:311`
#: (`normalized_to_pixel_coordinates`): the size a caller hands down (`images.shape[-2:]`) copied by
#: `coords.new_tensor(size)` and flipped to (width, height); zoo 101's DSNT model bakes it. Reduced in our words.
NEW_TENSOR = """\
import torch
from torch import nn


def to_pixels(coords, size):
    if torch.is_tensor(coords):
        size = coords.new_tensor(size).flip(-1)
    return 0.5 * ((coords + 1) * size - 1)


def scaled(coords, shape):
    return coords * torch.tensor(shape, dtype=coords.dtype)


class Net(nn.Module):
    def forward(self, x, coords):
        return to_pixels(coords, x.shape[-2:]), scaled(coords, x.shape[-2:])
"""


def _new_tensor_rewritten(tmp_path, warned: tuple[int, ...],
                          message: str = "Converting a tensor to a Python float might cause the trace to be "
                                         "incorrect") -> str:
    from trtcodemod.engine import Options, fix_source
    from trtcodemod.evidence.facts import Facts

    path = tmp_path / "new_tensor.py"
    path.write_text(NEW_TENSOR)
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, len(NEW_TENSOR.splitlines()) + 1))})
    facts.note_traced([(str(path.resolve()), line, message) for line in warned])
    options = Options(select=("TRT716",), unsafe=True, facts=facts, scope="all")
    return fix_source(NEW_TENSOR.encode(), str(path.resolve()), options).source.decode()


def test_a_whole_parameter_of_sizes_copied_by_new_tensor_or_tensor_follows_the_input(tmp_path) -> None:
    assert "_trt_sizes" not in rewrite(NEW_TENSOR, unsafe=True)  # a parameter: only where the export warned
    assert "_trt_sizes" not in _new_tensor_rewritten(tmp_path, ())
    # the warning every `torch.tensor` result gives while tracing says nothing of what the parameter holds
    assert "_trt_sizes" not in _new_tensor_rewritten(tmp_path, (7, 12), "torch.tensor results are registered as "
                                                     "constants in the trace")
    after = _new_tensor_rewritten(tmp_path, (7, 12))
    assert "size = _trt_sizes_tensor(size, dtype=coords.dtype, device=coords.device).flip(-1)" in after
    assert "return coords * _trt_sizes_tensor(shape, dtype=coords.dtype)" in after
    original, rewritten = _nets(tmp_path, {"new_tensor_original": NEW_TENSOR, "new_tensor_rewritten": after})

    def session(model):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(1, 2, 8, 12), torch.rand(1, 5, 2)), buffer, dynamo=False,
                              opset_version=17, input_names=["x", "coords"],
                              dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}, "coords": {0: "b", 1: "n"}})
        return ort.InferenceSession(buffer.getvalue())

    def run(graph, x, coords):  # a graph that baked every size has dropped `x`
        feed = {"x": x.numpy(), "coords": coords.numpy()}
        return graph.run(None, {i.name: feed[i.name] for i in graph.get_inputs()})

    before, after_graph = session(original), session(rewritten)
    assert [i.name for i in after_graph.get_inputs()] == ["x", "coords"]
    cases = [((2, 2, 5, 9), torch.rand(2, 3, 2) * 2 - 1), ((1, 2, 16, 4), -torch.rand(1, 4, 2)),
             ((1, 2, 8, 12), torch.zeros(1, 0, 2)), ((1, 2, 1, 1), torch.zeros(1, 2, 2)),
             ((1, 2, 3, 7), torch.tensor([[[float("inf"), float("nan")]]]))]
    for shape, coords in cases:
        x = torch.randn(shape)
        want = original(x, coords)
        got = run(after_graph, x, coords)
        for g, w in zip(got, want):
            torch.testing.assert_close(torch.from_numpy(g), w, atol=1e-5, rtol=1e-5, equal_nan=True)
        if shape in ((2, 2, 5, 9), (1, 2, 16, 4)):  # finite coordinates at another size: the original bakes
            baked = run(before, x, coords)
            assert not torch.allclose(torch.from_numpy(baked[0]), want[0], atol=1e-5, equal_nan=True), shape
        for g, w in zip(rewritten(x, coords), want):  # eager unchanged, dtype included
            assert g.dtype == w.dtype
            torch.testing.assert_close(g, w, rtol=0, atol=0, equal_nan=True)
    # float64 coordinates: `new_tensor` keeps the receiver's dtype, which the rewrite passes on
    x, coords = torch.randn(1, 2, 5, 6), torch.rand(1, 3, 2, dtype=torch.float64)
    for g, w in zip(rewritten(x, coords), original(x, coords)):
        assert g.dtype == w.dtype == torch.float64 and torch.equal(g, w)
