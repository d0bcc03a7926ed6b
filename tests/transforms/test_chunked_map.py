"""TRT396: a function applied chunk by chunk and the results concatenated, taken whole while tracing."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from support import bits_equal, import_file, rewrite, rules_found

FORMS = """
import torch
from torch import nn


def batchify(fn, chunk):
    def ret(inputs):
        return torch.cat([fn(inputs[i:i+chunk]) for i in range(0, inputs.shape[0], chunk)], 0)
    return ret


def two(fn, a, b, chunk: int):
    return torch.cat([fn(a[i:i + chunk], b[i:i + chunk]) for i in range(0, a.shape[0], chunk)])


def columns(g, a):
    return torch.cat([g(p) for p in a.chunk(3, dim=1)], dim=1)


def sections(model, x):
    return torch.cat([model(piece) for piece in torch.tensor_split(x, x.shape[0] // 60 + 1)], dim=0)


class Parsing(nn.Module):
    def forward(self, x):
        outs = [self.model((sub - self.mean) / self.std) for sub in torch.split(x, self.model.batch_size)]
        return torch.cat(outs).softmax(1)


def looped(model, x, k: int):
    outs = []
    for sub in x.split(k):
        y = model(sub)
        outs.append(y.relu())
    return torch.cat(outs)
"""

NOT_MAPS = """
import torch


def f(x, k, g):
    a = torch.cat([g(c) for c in x.split(k)], 1)                # the split is on axis 0, the cat on 1
    b = torch.cat([g(x[i:i + k] + i) for i in range(0, len(x), k)])  # the index read as a number
    c = torch.cat([g(x[i:i + k]) for i in range(1, len(x), k)])  # not from the first row
    parts = [g(p) for p in x.split(k)]
    n = len(parts)
    d = torch.cat(parts)                                        # the list read twice
    twice = []
    for p in x.split(k):
        twice.append(g(p))
        twice.append(p)                                         # two appends an iteration
    t = torch.cat(twice)
    kept = []
    for p in x.split(k):
        kept.append(g(p))
    u = torch.cat(kept)
    v = len(kept)                                               # the list read after the concatenation
    left = []
    for p in x.split(k):
        y = g(p)
        left.append(y)
    z = torch.cat(left) + y                                     # the loop's last `y` read after it
    e = torch.cat([g(p) for p in x.split([1, 2])])              # fixed sections
    w = torch.cat([g(p) for p in x.tensor_split([1, 3])])       # fixed split points
    h = torch.cat([g(q.sub) for q2 in x.split(k) for q in q2])  # two loops
    m = torch.cat([g(p) for p in x.split(k) if p.numel()])      # a condition
    s = torch.stack([g(p) for p in x.split(k)])                 # stacked, not concatenated
    return a, b, c, d, e, h, m, s, w
"""


def test_each_form_is_rewritten_once_and_only_with_unsafe() -> None:
    new = rewrite(FORMS, unsafe=True, select=("TRT396",))
    assert "        return (fn(inputs) if _trt_tracing() else torch.cat([fn(inputs[i:i+chunk]) for i in " in new
    assert "    return (fn(a, b) if _trt_tracing() else torch.cat([fn(a[i:i + chunk], b[i:i + chunk]) " in new
    assert "    return (g(a) if _trt_tracing() else torch.cat([g(p) for p in a.chunk(3, dim=1)], dim=1))" in new
    assert "        outs = ([self.model((x - self.mean) / self.std)] if _trt_tracing() else [self.model((sub - " in new
    assert "        return torch.cat(outs).softmax(1)\n" in new  # the concatenation of the bound list stays
    assert "    for sub in ([x] if _trt_tracing() else x.split(k)):\n        y = model(sub)\n" in new
    assert rules_found(new, select=("TRT396",)) == []  # nothing left: a second run changes nothing
    assert rewrite(FORMS, select=("TRT396",)) == FORMS  # unsafe: not without --unsafe
    assert "    return (model(x) if _trt_tracing() else torch.cat([model(piece) for piece in torch.tensor_split(" in new
    assert len(rules_found(FORMS, select=("TRT396",))) == 6
    assert rules_found(NOT_MAPS, select=("TRT396",)) == []


MODEL = """
import torch
from torch import nn


class Chunked(nn.Module):
    def __init__(self, chunk: int = 3):
        super().__init__()
        self.chunk = chunk
        self.net = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
        self.norm = nn.BatchNorm1d(4).eval()

    def forward(self, x, y):
        parts = [self.net(self.norm(p)) for p in torch.split(x, self.chunk)]
        rows = torch.cat([self.net(x[i:i + self.chunk]) * y[i:i + self.chunk] for i in range(0, x.shape[0], self.chunk)], 0)
        looped = []
        for p in torch.tensor_split(x, 2):
            h = self.net(p)
            looped.append(h * 2)
        return torch.cat(parts), rows, torch.cat(looped)
"""


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> tuple[torch.nn.Module, torch.nn.Module]:
    folder = tmp_path_factory.mktemp("trt396")
    (folder / "before.py").write_text(MODEL)
    (folder / "after.py").write_text(rewrite(MODEL, unsafe=True, select=("TRT396",)))
    torch.manual_seed(0)
    original = import_file(folder / "before.py", "trt396_before").Chunked().eval()
    rewritten = import_file(folder / "after.py", "trt396_after").Chunked().eval()
    original.norm.running_mean.uniform_(-1, 1)
    original.norm.running_var.uniform_(0.5, 2)
    rewritten.load_state_dict(original.state_dict())
    return original, rewritten


def _inputs(batch: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(batch, 4, generator=generator), torch.randn(batch, 2, generator=generator)


def _same(a, b) -> None:
    for left, right in zip(a, b):
        assert left.dtype == right.dtype and left.shape == right.shape and left.stride() == right.stride()
        torch.testing.assert_close(left, right, rtol=0, atol=0, equal_nan=True)


def test_eager_scripted_and_compiled_runs_are_unchanged(pair) -> None:
    original, rewritten = pair
    scripted = torch.jit.script(rewritten)
    compiled = torch.compile(rewritten, backend="eager")
    empty = _inputs(0, 0)
    for pair_of_runs in ((original, rewritten), (torch.jit.script(original), scripted),
                         (torch.compile(original, backend="eager"), compiled)):
        raised = []
        for model in pair_of_runs:  # no pieces to concatenate: the same error before as after
            with pytest.raises(Exception) as caught:  # noqa: B017 - compared below
                model(*empty)
            raised.append((type(caught.value), str(caught.value).split("\n")[0]))
        assert raised[0] == raised[1]
    for batch in (1, 3, 7):
        x, y = _inputs(batch, batch)
        specials = x.clone()
        if batch:
            specials[0, 0], specials[-1, 1] = float("inf"), float("nan")
        for inputs in ((x, y), (torch.zeros_like(x), -y.abs()), (specials, y)):
            with torch.no_grad():
                want = original(*inputs)
                _same(want, rewritten(*inputs))
                _same(want, scripted(*inputs))
                _same(want, compiled(*inputs))
    x, y = _inputs(5, 1)
    x.requires_grad_(True)
    grads = []
    for model in pair:
        first, second, third = model(x, y)
        grads.append(torch.autograd.grad((first.sum() + second.sum() + third.sum()), x)[0])
    _same(*[[g] for g in grads])


def test_fx_fails_before_as_after(pair) -> None:
    """Symbolic tracing cannot iterate the pieces of a traced split: the same error before and after
    (`_trt_tracing()` is False under fx, so the chunks run as written)."""
    errors = []
    for model in pair:
        with pytest.raises(Exception) as caught:  # noqa: B017 - whatever fx raises, the same for both
            torch.fx.symbolic_trace(model)
        errors.append((type(caught.value), str(caught.value).split("\n")[0]))
    assert errors[0] == errors[1]


def test_the_traced_graph_follows_the_batch(pair, tmp_path: Path) -> None:
    from variant_models import assert_graph_within, export_variant

    original, rewritten = pair
    example = _inputs(4, 0)  # two chunks of 3 and 1
    axes = {"x": {0: "batch"}, "y": {0: "batch"}}
    before, _ = export_variant(original, example, axes, tmp_path / "before.onnx", tmp_path)
    with pytest.raises(Exception):  # noqa: B017 - the unrolled chunks: other rows, or ONNX Runtime refuses the split
        assert_graph_within(before, original, _inputs(7, 2), 1e-5, "batch 7")
    after, _ = export_variant(rewritten, example, axes, tmp_path / "after.onnx", tmp_path)
    for batch in (1, 4, 7, 12):
        assert_graph_within(after, original, _inputs(batch, batch + 10), 1e-5, f"batch {batch}")


def test_the_dynamo_export_follows_the_batch(pair, tmp_path: Path) -> None:
    from variant_models import assert_graph_within, export_variant_dynamo

    original, rewritten = pair
    session = export_variant_dynamo(rewritten, _inputs(4, 0), {"x": {0: "batch"}, "y": {0: "batch"}},
                                    tmp_path / "dynamo.onnx")
    for batch in (2, 9):
        assert_graph_within(session, original, _inputs(batch, batch), 1e-5, f"batch {batch}")


def test_a_batch_statistic_breaks_the_assumption_and_verification_would_see_it(tmp_path: Path) -> None:
    """The assumption, shown failing: a function that normalises over the chunk's rows gives other values whole."""
    source = FORMS + """

def centred(x, k: int):
    return torch.cat([p - p.mean(0) for p in x.split(k)])
"""
    path = tmp_path / "centred.py"
    path.write_text(rewrite(source, unsafe=True, select=("TRT396",)))
    module = import_file(path, "trt396_centred")
    x = torch.arange(6.0).reshape(6, 1)
    eager = module.centred(x, 2)
    traced = torch.jit.trace(lambda t: module.centred(t, 2), (x,))(x)
    assert not torch.equal(eager, traced)


# The real-code variants (tests/recipe_variants/trt396/, five owners): tests/transforms/variants/
# test_recipe_variants_trt396.py.

# One row at a time: per-sample calls of a network over `range(n)` (chunks of one), in a comprehension or a loop
# appending each sample's output.
ONE_ROW = """
import torch
from torch import nn


class PerSample(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 2, 1))

    def forward(self, x, scale):
        a = torch.cat([self.net(x[i:i + 1]) * scale[i][None] for i in range(x.shape[0])], 0)
        outs = []
        for i in range(0, x.shape[0]):
            y = self.net(x[i].unsqueeze(0))
            outs.append(y.sigmoid())
        return a, torch.cat(outs)


def kept(net, x):
    b = torch.cat([net(x[i:i + 1]) + i for i in range(x.shape[0])])       # the index read as a number
    c = torch.cat([net(x[i - 1:i]) for i in range(x.shape[0])])         # another row than the index's
    d = torch.cat([net(x[i:i + 1]) for i in range(1, x.shape[0])])      # not from the first row
    e = torch.cat([net(x[i:i + 1]) for i in range(x.shape[0])], 1)      # concatenated on another axis
    return b, c, d, e
"""


def test_one_row_forms_rewritten_once() -> None:
    new = rewrite(ONE_ROW, unsafe=True, select=("TRT396",))
    assert ("        a = (self.net(x) * scale if _trt_tracing() else torch.cat([self.net(x[i:i + 1]) * "
            "scale[i][None] for i in range(x.shape[0])], 0))\n") in new
    assert ("        for i in range(0, 1 if _trt_tracing() else x.shape[0]):\n"
            "            y = self.net((x if _trt_tracing() else x[i].unsqueeze(0)))\n") in new
    assert new.split("def kept")[1] == ONE_ROW.split("def kept")[1]
    assert rewrite(new, unsafe=True, select=("TRT396",)) == new


def test_one_row_forms_run_as_before_and_their_traces_follow_the_batch(tmp_path: Path) -> None:
    (tmp_path / "before.py").write_text(ONE_ROW)
    (tmp_path / "after.py").write_text(rewrite(ONE_ROW, unsafe=True, select=("TRT396",)))
    torch.manual_seed(0)
    original = import_file(tmp_path / "before.py", "trt396_one_before").PerSample().eval()
    rewritten = import_file(tmp_path / "after.py", "trt396_one_after").PerSample().eval()
    rewritten.load_state_dict(original.state_dict())
    generator = torch.Generator().manual_seed(4)

    def sample(batch: int) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.randn(batch, 3, 5, 6, generator=generator)
        if batch:
            x[0, 0, 0, 0], x[-1, 1, 2, 3] = float("inf"), float("nan")
        return x, torch.randn(batch, 2, 5, 6, generator=generator)

    scripted = torch.jit.script(rewritten)
    with torch.no_grad():
        for batch in (1, 3):
            for x, scale in (sample(batch), (torch.zeros(batch, 3, 5, 6), -torch.ones(batch, 2, 5, 6))):
                _same(original(x, scale), rewritten(x, scale))
                _same(original(x, scale), scripted(x, scale))
        with pytest.raises(ValueError, match="non-empty"):  # no rows: nothing to concatenate, before as after
            original(*sample(0))
        with pytest.raises(ValueError, match="non-empty"):
            rewritten(*sample(0))
        traced_before = torch.jit.trace(original, sample(2), check_trace=False)
        traced_after = torch.jit.trace(rewritten, sample(2), check_trace=False)
        for batch in (1, 4):
            x, scale = sample(batch)
            for got, want in zip(traced_after(x, scale), original(x, scale)):
                torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
        assert traced_before(*sample(4))[1].shape[0] == 2  # the example's two samples, unrolled
        with pytest.raises(RuntimeError):  # and a batch of one has no second sample to read
            traced_before(*sample(1))


# Each row made a batch of one for a network, stacked back (`net(img[None])[0] for img in x`): the network on the
# whole batch while tracing. TRT366 leaves these to this rule (test_per_element_map.py: vmap would fold the batch
# into the network's reshapes with the traced size, or fail on its parameters).
UNIT = """
import torch
from torch import nn


class Rows(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.Tanh())

    def forward(self, x: torch.Tensor):
        a = torch.stack([self.net(img[None])[0] for img in x])
        b = torch.stack([self.net(x[i].unsqueeze(0)).squeeze(0) for i in range(x.shape[0])], dim=0)
        c = torch.cat([self.net(img.unsqueeze(0)) * 2 for img in x])
        return a + b, c


def kept(net, imgs, x: torch.Tensor, k: int):
    d = torch.cat([net(img[None]) for img in imgs])              # `imgs` not known to be a tensor
    e = torch.stack([net(img[None])[0] + img for img in x])      # the row read whole too
    f = torch.stack([net(c)[0] for c in x.split(k)])              # chunks' first rows: no concatenation
    g = torch.stack([net(img[None])[0] for img in x], dim=1)      # stacked on another axis
    return d, e, f, g
"""


def test_rows_made_batches_of_one(tmp_path: Path) -> None:
    new = rewrite(UNIT, unsafe=True, select=("TRT396",))
    assert "        a = (self.net(x) if _trt_tracing() else torch.stack([self.net(img[None])[0] for img in x]))\n" in new
    assert "        b = (self.net(x) if _trt_tracing() else torch.stack([self.net(x[i].unsqueeze(0)).squeeze(0) " in new
    assert "        c = (self.net(x) * 2 if _trt_tracing() else torch.cat([self.net(img.unsqueeze(0)) * 2 " in new
    assert new.split("def kept")[1] == UNIT.split("def kept")[1]
    (tmp_path / "before.py").write_text(UNIT)
    (tmp_path / "after.py").write_text(new)
    torch.manual_seed(0)
    original = import_file(tmp_path / "before.py", "trt396_unit_before").Rows().eval()
    rewritten = import_file(tmp_path / "after.py", "trt396_unit_after").Rows().eval()
    rewritten.load_state_dict(original.state_dict())
    generator = torch.Generator().manual_seed(9)
    scripted = torch.jit.script(rewritten)
    with torch.no_grad():
        for batch in (1, 3):
            x = torch.randn(batch, 3, 5, 4, generator=generator)
            x[0, 0, 0, 0], x[-1, 2, 1, 1] = float("-inf"), float("nan")
            for sample in (x, torch.zeros(batch, 3, 5, 4), -x.abs()):
                _same(original(sample), rewritten(sample))
                _same(original(sample), scripted(sample))
        traced = torch.jit.trace(rewritten, (torch.randn(2, 3, 5, 4),), check_trace=False)
        for batch in (1, 4):
            x = torch.randn(batch, 3, 5, 4, generator=generator)
            for got, want in zip(traced(x), original(x)):
                torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


# The loop over a name bound to the pieces earlier in the block (Occupancy Networks' `eval_points`): `p_split =
# torch.split(p, k)`, `occ_hats = []`, `for pi in p_split:` appending, then the concatenation.
BOUND = """
import torch
from torch import nn


class Points(nn.Module):
    def __init__(self, k: int = 3):
        super().__init__()
        self.k = k
        self.net = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))

    def forward(self, p, z):
        p_split = torch.split(p, self.k)
        occ_hats = []

        for pi in p_split:
            pi = pi.unsqueeze(0)
            with torch.no_grad():
                occ_hat = self.net(pi) + z

            occ_hats.append(occ_hat.squeeze(0).detach())

        occ_hat = torch.cat(occ_hats, dim=0)

        return occ_hat


def kept(p, k: int, f):
    parts = p.split(k)
    n = len(parts)                                  # the pieces' name read besides the loop
    outs = []
    for q in parts:
        outs.append(f(q))
    a = torch.cat(outs)
    parts2 = p.split(k)
    p = p * 2                                       # the split tensor bound again before the loop
    outs2 = []
    for q in parts2:
        outs2.append(f(q))
    b = torch.cat(outs2)
    parts3 = p.split(k)
    outs3 = []
    for q in parts3:
        y = f(q)
        outs3.append(y)
    c = torch.cat(outs3) + y                        # the loop's last `y` read after it
    parts4 = p.split(k)
    outs4 = []
    for q in parts4:
        outs4.append(f(q) * len(parts4))            # the pieces' name read in the loop
    d = torch.cat(outs4)
    parts5 = p.split([1, 2])                        # fixed sections
    outs5 = []
    for q in parts5:
        outs5.append(f(q))
    e = torch.cat(outs5)
    return a, b, c, d, e, n
"""


def test_a_loop_over_pieces_bound_to_a_name_runs_once_on_the_whole_tensor_while_tracing(tmp_path: Path) -> None:
    assert rules_found(BOUND, select=("TRT396",)) == ["TRT396"]
    new = rewrite(BOUND, unsafe=True, select=("TRT396",))
    assert "        p_split = torch.split(p, self.k)\n" in new  # the binding stays, for eager mode
    assert "        for pi in ([p] if _trt_tracing() else p_split):\n" in new
    assert new.split("def kept")[1] == BOUND.split("def kept")[1]  # every refusal left as written
    assert rules_found(new, select=("TRT396",)) == []
    assert rewrite(BOUND, select=("TRT396",)) == BOUND
    (tmp_path / "before.py").write_text(BOUND)
    (tmp_path / "after.py").write_text(new)
    torch.manual_seed(0)
    original = import_file(tmp_path / "before.py", "trt396_bound_before").Points().eval()
    rewritten = import_file(tmp_path / "after.py", "trt396_bound_after").Points().eval()
    rewritten.load_state_dict(original.state_dict())
    z = torch.tensor([[0.5, -1.0]])
    generator = torch.Generator().manual_seed(3)
    sets = {f"{n} points": torch.randn(n, 3, generator=generator) for n in (6, 7, 2, 1, 10)}
    specials = torch.randn(6, 3, generator=generator)
    specials[0, 0], specials[4, 2], specials[5, 1] = float("inf"), float("nan"), -float("inf")
    sets.update({"zeros": torch.zeros(5, 3), "negatives": -torch.rand(8, 3, generator=generator) - 1,
                 "specials": specials, "empty": torch.zeros(0, 3)})
    for label, p in sets.items():
        want = original(p, z)
        assert want.shape == (p.shape[0], 2), label
        assert bits_equal(want, rewritten(p, z)), label
    example = sets["6 points"]
    traced_before = torch.jit.trace(original, (example, z), check_trace=False)
    traced_after = torch.jit.trace(rewritten, (example, z), check_trace=False)
    for label, p in sets.items():
        if label in ("empty", "specials"):
            continue
        assert torch.allclose(traced_after(p, z), original(p, z), atol=1e-6), label
    with pytest.raises(RuntimeError, match="Expected 2 elements in a list but found 4"):
        traced_before(sets["10 points"], z)  # the original's trace unpacks the example's two pieces
