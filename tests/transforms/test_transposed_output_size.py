"""TRT356: ``nn.ConvTranspose*d`` called with ``output_size=`` → the helper subclass that keeps the size in the graph.

The TorchScript exporter records the output padding worked out from ``output_size`` as the traced
example's number: at a size where it differs the original's graph gives another shape (or the
next Add fails). After the rewrite the graph follows the size (dynamic axes, both exporters) and
equals eager mode, and eager mode is torch's own forward (values, errors, state, repr, gradients,
``torch.jit.script``).
"""

from __future__ import annotations

import io
import tempfile
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch

from safety import import_source
from support import rewrite

from trtcodemod.engine import Options, check_source
from trtcodemod.helpers.transposed import _TrtConvTranspose1d, _TrtConvTranspose2d, _TrtConvTranspose3d

SOURCE = """import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.down = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(8, 3, 3, stride=2, padding=1)
        self.side = torch.nn.ConvTranspose2d(8, 3, 5, stride=2, padding=2)
        self.plain = nn.ConvTranspose2d(8, 3, 4, stride=2, padding=1)
        self.stack = nn.Sequential(nn.ConvTranspose2d(8, 8, 1))

    def forward(self, x):
        y = self.stack(self.down(x))
        a = self.up(y, output_size=x.size())
        b = self.side(y, x.shape[-2:])
        c = self.plain(y)
        return a + b + c[..., : x.shape[2], : x.shape[3]] + x
"""


def _folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="transposed_output_size_"))


def test_rewrite_text_and_what_is_left() -> None:
    after = rewrite(SOURCE, select=("TRT356",))
    body = after.split("class Decoder", 1)[1]
    assert "        self.up = _TrtConvTranspose2d(8, 3, 3, stride=2, padding=1)\n" in body
    assert "        self.side = _TrtConvTranspose2d(8, 3, 5, stride=2, padding=2)\n" in body
    # never called with a size, or not stored on self: torch's own module
    assert "        self.plain = nn.ConvTranspose2d(8, 3, 4, stride=2, padding=1)\n" in body
    assert "        self.stack = nn.Sequential(nn.ConvTranspose2d(8, 8, 1))\n" in body
    assert "class _TrtConvTranspose2d(torch.nn.ConvTranspose2d):" in after
    assert rewrite(after, select=("TRT356",)) == after  # a second apply changes nothing
    found = check_source(SOURCE.encode(), "snippet.py", Options(select=("TRT356",)))
    assert [f.line for f in found] == [9, 10]
    # a user's own `ConvTranspose2d` is not torch's
    own = ("class ConvTranspose2d:\n    pass\n\n\nclass M:\n    def __init__(self):\n"
           "        self.up = ConvTranspose2d()\n\n    def f(self, x, s):\n        return self.up(x, output_size=s)\n")
    assert rewrite("import torch\n" + own, select=("TRT356",)) == "import torch\n" + own


@pytest.fixture(scope="module")
def programs():
    folder = _folder()
    after = rewrite(SOURCE, select=("TRT356",))
    return import_source(SOURCE, folder)["Decoder"], import_source(after, folder)["Decoder"]


def _pair(programs) -> tuple[torch.nn.Module, torch.nn.Module]:
    before_type, after_type = programs
    torch.manual_seed(0)
    before = before_type().eval()
    after = after_type().eval()
    after.load_state_dict(before.state_dict())
    return before, after


def _image(batch: int, height: int, width: int, seed: int) -> torch.Tensor:
    """An image with zeros, signed zeros, negatives, infinities and NaN."""
    x = torch.randn(batch, 3, height, width, generator=torch.Generator().manual_seed(seed)) * 10
    if x.numel():
        flat = x.view(-1)
        flat[::9] = 0.0
        flat[1::10] = -0.0
        flat[2::31] = float("inf")
        flat[3::37] = float("nan")
        flat[4::41] = -float("inf")
    return x


def test_eager_mode_is_torchs_forward(programs) -> None:
    before, after = _pair(programs)
    assert repr(after) == repr(before) and isinstance(after.up, torch.nn.ConvTranspose2d)
    assert list(after.state_dict()) == list(before.state_dict())
    for shape in ((1, 8, 8), (2, 9, 11), (0, 6, 6), (1, 1, 1), (3, 16, 7)):
        x = _image(*shape, seed=sum(shape))
        want, got = before(x), after(x)
        assert got.shape == want.shape and got.stride() == want.stride()
        assert torch.equal(got.isnan(), want.isnan()) and torch.equal(got.nan_to_num(), want.nan_to_num())
    # a size out of range raises the same ValueError on both sides
    y = torch.randn(1, 8, 4, 4)
    errors = []
    for model in (before, after):
        with pytest.raises(ValueError) as caught:
            model.up(y, output_size=[20, 20])
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    # gradients reach the input and the weights alike
    grads = []
    start = torch.randn(2, 3, 9, 10)
    for model in (before, after):
        x = start.clone().requires_grad_()
        model.zero_grad()
        (model(x) * torch.arange(180.0).reshape(1, 1, 9, 20)[..., :10]).sum().backward()
        grads.append((x.grad, model.up.weight.grad, model.side.bias.grad))
    for got, want in zip(grads[1], grads[0]):
        assert torch.equal(got, want)


@pytest.mark.parametrize("kind,count", [(_TrtConvTranspose1d, 1), (_TrtConvTranspose2d, 2), (_TrtConvTranspose3d, 3)])
def test_every_rank_scripts_and_keeps_torchs_values(kind, count: int) -> None:
    torch_kind = getattr(torch.nn, f"ConvTranspose{count}d")
    torch.manual_seed(count)
    ref = torch_kind(4, 2, 3, stride=2, padding=1, dilation=1)
    ours = kind(4, 2, 3, stride=2, padding=1)
    ours.load_state_dict(ref.state_dict())
    scripted = torch.jit.script(ours)
    x = torch.randn(1, 4, *([5] * count))
    for size in ([9] * count, [10] * count):
        want = ref(x, output_size=size)
        assert torch.equal(ours(x, output_size=size), want) and torch.equal(scripted(x, output_size=size), want)
    assert torch.equal(ours(x), ref(x))
    # torch.fx keeps it one call, as it keeps torch's module
    traced = torch.fx.symbolic_trace(_Up(ours))
    assert [n.op for n in traced.graph.nodes].count("call_module") == 1


class _Up(torch.nn.Module):
    def __init__(self, conv: torch.nn.Module) -> None:
        super().__init__()
        self.conv = conv

    def forward(self, x, skip):
        return self.conv(x, output_size=skip.size()) + skip


def _session(model: torch.nn.Module, dynamo: bool) -> ort.InferenceSession:
    example = (torch.randn(1, 4, 5, 6), torch.randn(1, 2, 10, 12))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            h, w = torch.export.Dim("h", min=2, max=64), torch.export.Dim("w", min=2, max=64)
            proto = torch.onnx.export(model, example, dynamo=True, verbose=False, input_names=["x", "skip"],
                                      dynamic_shapes=({2: h, 3: w}, {2: torch.export.Dim.AUTO,
                                                                     3: torch.export.Dim.AUTO})).model_proto
            data = proto.SerializeToString()
        else:
            buffer = io.BytesIO()
            torch.onnx.export(model, example, buffer, dynamo=False, opset_version=17, input_names=["x", "skip"],
                              dynamic_axes={"x": {2: "h", 3: "w"}, "skip": {2: "h2", 3: "w2"}})
            data = buffer.getvalue()
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"])


def _run(session: ort.InferenceSession, x: torch.Tensor, skip: torch.Tensor):
    names = {i.name for i in session.get_inputs()}
    feed = {k: v.numpy() for k, v in (("x", x), ("skip", skip)) if k in names}
    return session.run(None, feed)[0]


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_graph_keeps_the_size(dynamo: bool) -> None:
    torch.manual_seed(0)
    ref = torch.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)
    ours = _TrtConvTranspose2d(4, 2, 3, stride=2, padding=1)
    ours.load_state_dict(ref.state_dict())
    rewritten = _session(_Up(ours).eval(), dynamo)
    cases = [((5, 6), (10, 12)), ((5, 6), (9, 11)), ((7, 4), (13, 8)), ((3, 3), (6, 5))]
    for (h, w), (sh, sw) in cases:
        x = _image(1, h, w, seed=h * w)[:, :1].expand(1, 4, h, w).contiguous()
        skip = torch.randn(1, 2, sh, sw)
        want = _Up(ref)(x, skip).detach().numpy()
        got = _run(rewritten, x, skip)
        assert got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)
    if dynamo:
        # the original does not export with dynamic sizes (its padding is a symbolic value the ConvTranspose
        # attribute cannot take)
        with pytest.raises(Exception):
            _session(_Up(ref).eval(), dynamo)
    else:
        # the original's graph keeps the traced example's padding: one row and column more at odd sizes
        original = _session(_Up(ref).eval(), dynamo)
        with pytest.raises(Exception):
            _run(original, torch.randn(1, 4, 5, 6), torch.randn(1, 2, 9, 11))


#: Transposed convolutions kept in containers and given a size through them: by index
#: (zhshi0816/Video-Frame-Interpolation-Transformer@2b1dc91 model/VFIT_B.py:35-42), by a loop over the
#: list (with ``zip`` or ``enumerate``), and by an ``nn.Sequential`` subclass that passes its items the
#: size (model/VFIT_B.py:137-143).
CONTAINERS = """import torch
from torch import nn


class Sized(nn.Sequential):
    def forward(self, x, size):
        for layer in self:
            x = layer(x, size) if isinstance(layer, nn.ConvTranspose2d) else layer(x)
        return x


class Decoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.down = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.indexed = nn.ModuleList([nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1)])
        self.zipped = nn.ModuleList(nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1) for _ in range(2))
        self.counted = nn.ModuleList([nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1)])
        self.head = Sized(nn.ReLU(), nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1))
        self.unsized = nn.ModuleList([nn.ConvTranspose2d(4, 4, 2, stride=2)])
        self.plain = nn.Sequential(nn.ConvTranspose2d(4, 3, 2, stride=2))

    def forward(self, x):
        y = self.down(x)
        a = self.indexed[0](y, output_size=x.size())
        for size, up in zip([x.size()] * 2, self.zipped):
            a = a + up(y, output_size=size)
        for i, up in enumerate(self.counted):
            a = a + up(y, x.shape[-2:])
        for up in self.unsized:
            a = a + up(y)[..., : x.shape[2], : x.shape[3]]
        return self.head(y, x.shape[-2:]) + a[:, :3] + self.plain(y)[..., : x.shape[2], : x.shape[3]]
"""


def test_containers_given_a_size_are_rewritten() -> None:
    body = rewrite(CONTAINERS, select=("TRT356",)).split("class Decoder", 1)[1]
    rewritten = {"indexed": "nn.ModuleList([_TrtConvTranspose2d(4, 4, 3, stride=2, padding=1)])",
                 "zipped": "nn.ModuleList(_TrtConvTranspose2d(4, 4, 3, stride=2, padding=1) for _ in range(2))",
                 "counted": "nn.ModuleList([_TrtConvTranspose2d(4, 4, 3, stride=2, padding=1)])",
                 "head": "Sized(nn.ReLU(), _TrtConvTranspose2d(4, 3, 3, stride=2, padding=1))",
                 # never given a size: torch's own modules
                 "unsized": "nn.ModuleList([nn.ConvTranspose2d(4, 4, 2, stride=2)])",
                 "plain": "nn.Sequential(nn.ConvTranspose2d(4, 3, 2, stride=2))"}
    assert [f"self.{name} = {value}" in body for name, value in rewritten.items()] == [True] * len(rewritten)


def _before_and_after(source: str, name: str) -> tuple[torch.nn.Module, torch.nn.Module]:
    """Class ``name`` of ``source`` built before and after TRT356's rewrite, with the same weights."""
    folder = _folder()
    before_ns = import_source(source, folder)
    after_ns = import_source(rewrite(source, select=("TRT356",)), folder)
    torch.manual_seed(0)
    before = before_ns[name]().eval()
    after = after_ns[name]().eval()
    after.load_state_dict(before.state_dict())
    return before, after


@pytest.mark.parametrize("size", [(16, 20), (17, 23), (5, 4)])
def test_containers_rewritten_run_the_same_and_export_faithfully(size: tuple[int, int]) -> None:
    before, after = _before_and_after(CONTAINERS, "Decoder")
    g = torch.Generator().manual_seed(sum(size))
    x = torch.randn(2, 3, *size, generator=g)
    x.view(-1)[:3] = torch.tensor([0.0, -0.0, -1e4])
    with torch.no_grad():
        assert torch.equal(before(x), after(x))
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(after, (torch.randn(1, 3, 16, 20),), buffer, dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}})
        session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
        (got,) = session.run(None, {"x": x.numpy()})
        np.testing.assert_allclose(got, before(x).numpy(), rtol=1e-5, atol=1e-5)


#: A container filled after it is built, from what a method returns, its items given a size in a loop
#: under an `isinstance` test: pixseg's ENet bottlenecks (`convs = self._make_convs(...)`, `for i, conv in
#: enumerate(convs): self.main_modules.append(conv)`, the upsampling subclass's `_make_convs` returning a
#: `nn.ConvTranspose2d`, `forward` calling `main(main_out, output_size=output_size)`; pixseg/models/enet.py
#: as installed in zoo 29), and one added directly with `+=`.
FILLED = """import torch
from torch import nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.steps = nn.ModuleList()
        layers = self._layers(4)
        for i, layer in enumerate(layers):
            self.steps.append(layer)
        self.more = nn.ModuleList()
        self.more += [nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1)]
        self.plain = nn.ModuleList()
        self.plain.append(nn.ConvTranspose2d(4, 4, 2, stride=2))

    def _layers(self, n):
        return [nn.Conv2d(3, n, 3, stride=2, padding=1), nn.ReLU()]

    def forward(self, x):
        y = x
        for step in self.steps:
            y = step(y, output_size=x.shape[-2:]) if isinstance(step, nn.ConvTranspose2d) else step(y)
        for up in self.more:
            y = up(y, output_size=x.shape[-2:])
        return y + self.plain[0](y[..., ::2, ::2])[..., : x.shape[2], : x.shape[3]].sum()


class Up(Block):
    def _layers(self, n):
        return [nn.Conv2d(3, n, 3, stride=2, padding=1), nn.ConvTranspose2d(n, n, 3, stride=2, padding=1),
                nn.Conv2d(n, n, 3, stride=2, padding=1)]
"""


def test_containers_filled_from_a_method_are_rewritten() -> None:
    after = rewrite(FILLED, select=("TRT356",))
    assert "nn.ModuleList()\n        self.more += [_TrtConvTranspose2d(4, 4, 3, stride=2, padding=1)]" in after
    assert "self.plain.append(nn.ConvTranspose2d(4, 4, 2, stride=2))" in after  # never given a size
    assert "nn.Conv2d(3, n, 3, stride=2, padding=1), _TrtConvTranspose2d(n, n, 3, stride=2, padding=1)," in after
    assert after.count("_TrtConvTranspose2d(") == 3  # the class, `more`'s and `Up._layers`'s


@pytest.mark.parametrize("size", [(16, 20), (17, 23), (5, 4)])
def test_containers_filled_from_a_method_export_faithfully(size: tuple[int, int]) -> None:
    before, after = _before_and_after(FILLED, "Up")
    x = torch.randn(2, 3, *size, generator=torch.Generator().manual_seed(sum(size)))
    x.view(-1)[:3] = torch.tensor([0.0, -0.0, -1e3])
    with torch.no_grad():
        assert torch.equal(before(x), after(x))
        graphs = {}
        for side, model in (("before", before), ("after", after)):
            buffer = io.BytesIO()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.onnx.export(model, (torch.randn(1, 3, 16, 20),), buffer, dynamo=False, input_names=["x"],
                                  dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}})
            graphs[side] = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
        (got,) = graphs["after"].run(None, {"x": x.numpy()})
        np.testing.assert_allclose(got, before(x).numpy(), rtol=1e-4, atol=1e-3)  # sums of large values
        if size == (17, 23):  # the traced 16x20's output padding is wrong here
            try:
                (old,) = graphs["before"].run(None, {"x": x.numpy()})
                assert old.shape != tuple(before(x).shape)
            except Exception:  # noqa: BLE001 - ONNX Runtime refuses the original graph: also wrong
                pass
