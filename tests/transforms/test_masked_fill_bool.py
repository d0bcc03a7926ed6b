"""TRT380: ``masked_fill`` with a Python bool value, which the TorchScript ONNX exporter has no schema for.

Of bool tensors shown in the code it becomes ``(t & ~m).contiguous()`` / ``(t | m).contiguous()`` (in place
``t.bitwise_and_(~m)`` / ``t.bitwise_or_(m)``), anywhere else the value becomes the integer ``0`` / ``1``. Checked as
text, then run: eager mode the same (values, dtype, shape, strides, aliasing, errors) on broadcasts both ways, empty
and 0-d tensors and every dtype for the integer form; ``torch.jit.script``, fx, compile and export alike; the
TorchScript export of the original stops (the exporter's alias analysis), the rewritten one exports and ONNX Runtime
equals eager mode at other sizes; the dynamo export too. With a recorded run that saw the call return bools the
bitwise form is applied where the code does not show the dtypes (egnn-pytorch's ``adj_mat``), and proved.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch

from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import export_dynamo, export_torchscript, ort_session, rewrite, rules_found

HEADER = "import torch\nfrom torch import nn\n\n"


def fixed(code: str, **kwargs) -> str:
    return rewrite(code, select=("TRT380",), **kwargs)


def body(line: str) -> str:
    return f"{HEADER}def f(u, v, w):\n    x = u.float()\n    t = x > 0\n    m = v.float() < 0\n    {line}\n"


@pytest.mark.parametrize("line,after", [
    ("return t.masked_fill(m, False)", "return (t & ~m).contiguous()"),
    ("return t.masked_fill(m, True)", "return (t | m).contiguous()"),
    ("return t.masked_fill(mask=m, value=False)", "return (t & ~m).contiguous()"),
    ("return torch.masked_fill(t, m, False)", "return (t & ~m).contiguous()"),
    ("return torch.masked_fill(t, m, value=True)", "return (t | m).contiguous()"),
    ("t.masked_fill_(m, False)", "t.bitwise_and_(~m)"),
    ("t.masked_fill_(m, True)", "t.bitwise_or_(m)"),
    ("return (x > 1).masked_fill(m | t, False)", "return ((x > 1) & ~(m | t)).contiguous()"),
    ("return (x > 1).masked_fill(~m, True)", "return ((x > 1) | ~m).contiguous()"),
    ("return t.masked_fill(m, False).float()", "return (t & ~m).contiguous().float()"),
    ("return torch.masked_fill(t | m, m, True)", "return ((t | m) | m).contiguous()"),
    # evidence of bools: a dtype=torch.bool creation, .to(torch.bool), .bool(), views of them
    ("return torch.eye(3, dtype=torch.bool).masked_fill(m, False)",
     "return (torch.eye(3, dtype=torch.bool) & ~m).contiguous()"),
    ("return t.masked_fill(torch.ones(3, dtype=torch.bool)[None], False)",
     "return (t & ~torch.ones(3, dtype=torch.bool)[None]).contiguous()"),
    ("return x.to(torch.bool).masked_fill(x.bool().t(), True)", "return (x.to(torch.bool) | x.bool().t()).contiguous()"),
    ("return torch.full((3,), False).masked_fill(m, True)",
     "return (torch.full((3,), 0, dtype=torch.bool) | m).contiguous()"),
    ("return torch.full((3,), False, dtype=torch.float).masked_fill(m, True)",
     "return torch.full((3,), 0, dtype=torch.float).masked_fill(m, 1)"),
    ("return torch.full((3,), 0).masked_fill(m, True)", "return torch.full((3,), 0).masked_fill(m, 1)"),
    # the integer Scalar anywhere else: a float or unknown receiver, or mask not shown bool
    ("return x.masked_fill(m, False)", "return x.masked_fill(m, 0)"),
    ("return w.masked_fill(m, True)", "return w.masked_fill(m, 1)"),
    ("return t.masked_fill(w, False)", "return t.masked_fill(w, 0)"),
    ("return torch.masked_fill(x, m, value=False)", "return torch.masked_fill(x, m, value=0)"),
    ("x.masked_fill_(m, True)", "x.masked_fill_(m, 1)"),
    # an expanded receiver: masked_fill_ writes into it (warning), bitwise_or_ raises
    ("t.expand(2, -1).masked_fill_(m, True)", "t.expand(2, -1).masked_fill_(m, 1)"),
])
def test_the_rewrite(line: str, after: str) -> None:
    out = fixed(body(line))
    assert out == body(after), out


def test_a_chain_is_taken_whole_on_a_second_apply() -> None:
    once = fixed(body("t.masked_fill(m, False).masked_fill_(m, True)"))
    assert once == body("(t & ~m).contiguous().bitwise_or_(m)")
    assert fixed(once) == once


@pytest.mark.parametrize("line", [
    "return t.masked_fill(m, 0)",
    "return t.masked_fill(m, w)",
    "return t.masked_fill(m, (False))",
    "return t.masked_fill(*w)",
    "return t.fill_(False)",
    "return t.masked_scatter(m, x)",
])
def test_not_a_bool_fill_value(line: str) -> None:
    assert rules_found(body(line), select=("TRT380",)) == []


# --- eager mode -------------------------------------------------------------------------------------------------

EAGER = HEADER + '''
def out_false(a, b):
    t = a.float() > 0
    m = b.float() < 0
    return t.masked_fill(m, False)


def out_true(a, b):
    t = a.float().t() > 0
    m = b.float() < 0
    return torch.masked_fill(t, m, True)


def in_false(a, b):
    t = a.float() > 0
    m = b.float() < 0
    r = t.masked_fill_(m, False)
    return t, r is t


def in_true(a, b):
    t = (a.float() > 0).permute(1, 0)
    m = b.float() < 0
    r = t.masked_fill_(m, True)
    return t, r is t, a


def unknown(t, m):
    return t.masked_fill(m, False), t.masked_fill(m, True), t.clone().masked_fill_(m, True)
'''

SHAPES = [
    ((3, 4), (3, 4)), ((3, 1), (1, 4)), ((1, 4), (3, 4)), ((3, 4), (4,)), ((3, 4), ()), ((), ()),
    ((0, 4), (1, 4)), ((3, 0), (3, 1)), ((2, 3), (4, 3)), ((4, 4), (4, 4)),
]


def _edges(shape: tuple[int, ...], seed: int) -> torch.Tensor:
    x = torch.randn(shape, generator=torch.Generator().manual_seed(seed))
    if x.numel():
        flat = x.view(-1)
        for i, edge in enumerate((0.0, -0.0, float("nan"), float("inf"), float("-inf"))):
            if i < flat.numel():
                flat[i] = edge
    return x


@pytest.mark.parametrize("name", ["out_false", "out_true", "in_false", "in_true"])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_eager_is_the_same(tmp_path: Path, name: str, shapes) -> None:
    out = fixed(EAGER)
    assert "masked_fill" not in out.split("def unknown")[0]
    before, after = import_source(EAGER, tmp_path)[name], import_source(out, tmp_path)[name]
    a, b = _edges(shapes[0], 1), _edges(shapes[1], 2)
    if name in ("out_true", "in_true") and a.dim() != 2:
        a = a.reshape(1, -1) if a.dim() < 2 else a
    ran = run_once(before, [a, b])
    assert_same_run(ran, run_once(after, [a, b]), context=f"{name} {shapes}")
    if name.startswith("in") and ran.error is None:
        assert ran.output[1] is True  # masked_fill_ returns its receiver; so does the rewrite (same run)


def test_the_out_of_place_result_is_contiguous_like_masked_fill(tmp_path: Path) -> None:
    """Without ``.contiguous()``, ``&`` of a transposed bool follows its layout: the strides would differ."""
    t, m = torch.randn(4, 3).t() > 0, torch.randn(1, 4) > 0
    assert t.masked_fill(m, True).stride() == (4, 1) and (t | m).stride() != (4, 1)
    after = import_source(fixed(EAGER), tmp_path)["out_true"]
    assert after(torch.randn(4, 3), torch.randn(1, 4)).stride() == (4, 1)


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int8, torch.int32, torch.int64, torch.float16,
                                   torch.bfloat16, torch.float32, torch.float64, torch.complex64])
def test_the_integer_value_is_the_same_scalar_for_every_dtype(tmp_path: Path, dtype: torch.dtype) -> None:
    out = fixed(EAGER)
    assert "t.masked_fill(m, 0), t.masked_fill(m, 1), t.clone().masked_fill_(m, 1)" in out
    before, after = import_source(EAGER, tmp_path)["unknown"], import_source(out, tmp_path)["unknown"]
    for shape, mask_shape in (((3, 4), (3, 4)), ((3, 4), (4,)), ((), ()), ((0, 2), (1, 2)), ((3,), (2, 3))):
        t = torch.arange(-5, -5 + max(1, torch.Size(shape).numel())).reshape(-1)[:torch.Size(shape).numel()]
        t = t.reshape(shape).to(dtype)
        m = torch.randn(mask_shape, generator=torch.Generator().manual_seed(3)) > 0
        assert_same_run(run_once(before, [t, m]), run_once(after, [t, m]), context=f"{dtype} {shape} {mask_shape}")
    t = torch.ones(3, dtype=dtype)
    for mask in (torch.ones(3, dtype=torch.uint8), torch.ones(3)):  # a mask not bool raises alike
        assert_same_run(run_once(before, [t, mask]), run_once(after, [t, mask]), context=f"{dtype} {mask.dtype}")


def test_the_gradient_through_the_integer_form_is_the_same(tmp_path: Path) -> None:
    out = fixed(EAGER)
    before, after = import_source(EAGER, tmp_path)["unknown"], import_source(out, tmp_path)["unknown"]
    x = torch.randn(3, 4, requires_grad=True)
    m = torch.randn(3, 4) > 0
    assert_same_run(run_once(before, [x, m]), run_once(after, [x, m]))


def test_the_errors_are_the_same(tmp_path: Path) -> None:
    out = fixed(EAGER)
    for name, a, b in (("in_false", torch.randn(3), torch.randn(2, 3)),  # in place: only the mask broadcasts
                       ("out_false", torch.randn(2, 3), torch.randn(4, 3)),
                       ("in_true", torch.randn(3, 1), torch.randn(2, 3))):
        before, after = import_source(EAGER, tmp_path)[name], import_source(out, tmp_path)[name]
        ran = run_once(before, [a, b])
        assert ran.error is RuntimeError, name
        assert_same_run(ran, run_once(after, [a, b]), context=name)


# --- toolchains -------------------------------------------------------------------------------------------------

MODULE = HEADER + '''
class Adjacency(nn.Module):
    def forward(self, dist, scores):
        adj = dist.float() < 0.5
        n = dist.shape[-1]
        self_mask = torch.eye(n, device=dist.device)[None] > 0.5  # a bool eye exports as EyeLike, not in ORT
        adj = adj.masked_fill(self_mask, False)
        near = dist.float().le(0.1)
        near.masked_fill_(self_mask, True)
        far = torch.masked_fill(dist.float() > 0.9, self_mask, True)
        return adj, near, far, scores.masked_fill(adj, False)
'''


def _pair(b: int, n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.rand(b, n, n, generator=g), torch.randn(b, n, n, generator=g)


def test_every_toolchain_gives_the_same(tmp_path: Path) -> None:
    out = fixed(MODULE)
    assert "masked_fill(adj, 0)" in out and out.count("masked_fill") == 1
    before = import_source(MODULE, tmp_path)["Adjacency"]
    after = import_source(out, tmp_path)["Adjacency"]
    assert_same_toolchain_outcomes(before, after, list(_pair(2, 5, 0)), tmp_path)
    for inputs in (_pair(2, 5, 1), _pair(1, 1, 2), _pair(0, 3, 3)):
        assert_same_run(run_once(before(), list(inputs)), run_once(after(), list(inputs)))


def _torchscript(model: torch.nn.Module) -> bytes:
    return export_torchscript(model, _pair(2, 5, 0), {"dist": {0: "b", 1: "n", 2: "m"}, "scores": {0: "b", 1: "n",
                                                                                                  2: "m"}})


def test_the_torchscript_export_fails_before_and_matches_eager_after(tmp_path: Path) -> None:
    before = import_source(MODULE, tmp_path)["Adjacency"]().eval()
    with pytest.raises(RuntimeError, match=r"We don't have an op for aten::masked_fill.*Tensor, Tensor, bool"):
        _torchscript(before)
    after = import_source(fixed(MODULE), tmp_path)["Adjacency"]().eval()
    session = ort_session(_torchscript(after))
    for b, n, seed in ((2, 5, 1), (3, 8, 2), (1, 1, 3)):
        dist, scores = _pair(b, n, seed)
        got = session.run(None, {"dist": dist.numpy(), "scores": scores.numpy()})
        with torch.no_grad():
            want = after(dist, scores)
        for g, w in zip(got, want):
            assert torch.equal(torch.from_numpy(g), w)


def test_the_dynamo_export_matches_eager(tmp_path: Path) -> None:
    after = import_source(fixed(MODULE), tmp_path)["Adjacency"]().eval()
    n = torch.export.Dim("n", min=2, max=64)
    session = ort_session(export_dynamo(after, _pair(2, 5, 0), ({1: n, 2: n}, {1: n, 2: n})))
    for b, size, seed in ((2, 5, 1), (2, 9, 2)):
        dist, scores = _pair(b, size, seed)
        got = session.run(None, {"dist": dist.numpy(), "scores": scores.numpy()})
        with torch.no_grad():
            want = after(dist, scores)
        for g, w in zip(got, want):
            assert torch.equal(torch.from_numpy(g), w)


def test_the_integer_form_on_a_bool_exports_a_where_of_bools_onnx_runtime_lacks(tmp_path: Path) -> None:
    """Why the bitwise form: ``masked_fill(m, 0)`` of a bool exports, but as ``Where`` on bools, which ONNX
    Runtime's CPU provider does not implement (TensorRT takes it)."""
    code = HEADER + "class M(nn.Module):\n    def forward(self, a, b):\n        return (a > 0).masked_fill(b > 0, 0)\n"
    model = import_source(code, tmp_path)["M"]().eval()
    data = export_torchscript(model, (torch.randn(3), torch.randn(3)), {"a": {0: "n"}, "b": {0: "n"}})
    with pytest.raises(Exception, match="Where"):
        ort_session(data)


# --- with a recorded run ----------------------------------------------------------------------------------------

EGNN = HEADER + '''
class Layer(nn.Module):
    def forward(self, feats, adj_mat):
        n = feats.shape[1]
        self_mask = torch.eye(n)[None] > 0.5
        adj_mat = adj_mat.masked_fill(self_mask, False)
        return adj_mat
'''
CALL = "adj_mat.masked_fill(self_mask, False)"


def _facts(path: str, dtypes: list[str]):
    from trtcodemod.evidence.facts import RESULT, Facts

    lines = EGNN.splitlines()
    line = next(i for i, text in enumerate(lines, 1) if CALL in text)
    column = lines[line - 1].index(CALL) + 1
    events = [{"kind": "tensor", "path": path, "line": line, "column": column, "end_line": line,
               "end_column": column + len(CALL), "direct": True, "count": 2, "name": RESULT, "dtypes": dtypes,
               "shapes": [[2, 5, 5]], "runs": [0, 1]}]
    return Facts.from_json({"runs": 2, "lines": {path: list(range(1, len(lines) + 1))}, "events": events,
                            "stretched": []}), line, column


@pytest.mark.parametrize("dtypes,after", [
    (["bool"], "(adj_mat & ~self_mask).contiguous()"),
    (["uint8"], "adj_mat.masked_fill(self_mask, 0)"),
    (["bool", "float32"], "adj_mat.masked_fill(self_mask, 0)"),
    (None, "adj_mat.masked_fill(self_mask, 0)"),
])
def test_a_recorded_bool_result_takes_the_bitwise_form_and_proves_it(tmp_path: Path, dtypes, after) -> None:
    from trtcodemod.engine import Options, check_source, fix_source
    from trtcodemod.evidence.facts import Span
    from trtcodemod.evidence.proofs import Observation, prove_bool_fill

    path = str((tmp_path / "m.py").resolve())
    facts, line, column = _facts(path, dtypes) if dtypes is not None else (None, 0, 0)
    options = Options(select=("TRT380",), facts=facts, scope="all")
    assert f"adj_mat = {after}\n" in fix_source(EGNN.encode(), path, options).source.decode()
    [finding] = check_source(EGNN.encode(), path, options)
    assert finding.fix.value == ("unsafe" if dtypes == ["bool"] else "safe")
    if facts is not None:
        proof = prove_bool_fill(Observation(facts, Span(path, line, column, line, column + len(CALL))))
        assert (proof is not None) == (dtypes == ["bool"])
        assert proof is None or "bool tensor" in proof


def test_the_observed_form_exports_and_matches(tmp_path: Path) -> None:
    from trtcodemod.engine import Options, fix_source

    path = str((tmp_path / "m.py").resolve())
    out = fix_source(EGNN.encode(), path, Options(select=("TRT380",), facts=_facts(path, ["bool"])[0],
                                                  scope="all")).source.decode()
    before, after = import_source(EGNN, tmp_path)["Layer"]().eval(), import_source(out, tmp_path)["Layer"]().eval()
    example = (torch.randn(2, 5, 3), torch.rand(2, 5, 5) > 0.3)
    axes = {"feats": {0: "b", 1: "n"}, "adj_mat": {0: "b", 1: "n", 2: "m"}}
    with pytest.raises(RuntimeError, match="We don't have an op for aten::masked_fill"):
        export_torchscript(before, example, axes)
    session = ort_session(export_torchscript(after, example, axes))
    for b, n in ((1, 7), (3, 2)):
        feats, adj = torch.randn(b, n, 3), torch.rand(b, n, n) > 0.3
        [got] = session.run(None, {"feats": feats.numpy(), "adj_mat": adj.numpy()})
        assert torch.equal(torch.from_numpy(got), before(feats, adj))


def test_an_expanded_receiver_is_why_the_in_place_form_needs_a_fresh_one() -> None:
    mask = torch.tensor([[True, False, False], [False, False, True]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (torch.zeros(1, 3, dtype=torch.bool).expand(2, 3)).masked_fill_(mask, True)  # deprecated, still writes
    with pytest.raises(RuntimeError, match="more than one element"):
        (torch.zeros(1, 3, dtype=torch.bool).expand(2, 3)).bitwise_or_(mask)
    assert fixed(body("t.expand(2, 3).masked_fill_(m, True)")) == body("t.expand(2, 3).masked_fill_(m, 1)")


# --- torch.full / torch.full_like with a bool fill value ---------------------------------------------------------

@pytest.mark.parametrize("line,after", [
    ("return torch.full((3, 3), False, device=x.device)",
     "return torch.full((3, 3), 0, device=x.device, dtype=torch.bool)"),
    ("return torch.full((3,), True)", "return torch.full((3,), 1, dtype=torch.bool)"),
    ("return torch.full(size=(3,), fill_value=True,)", "return torch.full(size=(3,), fill_value=1, dtype=torch.bool,)"),
    ("return torch.full((3,), False, dtype=torch.float)", "return torch.full((3,), 0, dtype=torch.float)"),
    ("return torch.full_like(x, True)", "return torch.full_like(x, 1)"),
    ("return torch.full_like(x, False, dtype=torch.bool)", "return torch.full_like(x, 0, dtype=torch.bool)"),
])
def test_a_bool_full(line: str, after: str) -> None:
    assert fixed(body(line)) == body(after)


@pytest.mark.parametrize("line", [
    "return torch.full((3,), 0.5)",
    "return torch.full((3,), w)",
    "return torch.full((3,), False, out=w)",
    "return torch.full(*w)",
])
def test_not_a_bool_full(line: str) -> None:
    assert rules_found(body(line), select=("TRT380",)) == []


def test_a_full_imported_by_name_is_reported_without_a_fix() -> None:
    code = "from torch import full\n\ndef f(n):\n    return full((n,), False)\n"
    assert rules_found(code, select=("TRT380",)) == ["TRT380"]
    assert fixed(code) == code


FULL = HEADER + '''
class Full(nn.Module):
    def forward(self, x):
        n = x.shape[0]
        a = torch.full((n, n), False, device=x.device)
        b = torch.full((n,), True)
        c = torch.full_like(x, True)
        d = torch.full_like(x.long(), False)
        return a, b, c, d, a.masked_fill(torch.eye(n, device=x.device) > 0, True)
'''


def test_the_bool_full_is_the_same_in_eager_and_exports(tmp_path: Path) -> None:
    out = fixed(FULL)
    assert "False" not in out.split("class Full")[1] and "True" not in out.split("class Full")[1]
    before, after = import_source(FULL, tmp_path)["Full"], import_source(out, tmp_path)["Full"]
    for n in (3, 1, 0):
        x = _edges((n,), n)
        assert_same_run(run_once(before(), [x]), run_once(after(), [x]), context=str(n))
    for bad in ({"requires_grad": True},):  # a bool tensor cannot require grad: both raise alike
        with pytest.raises(RuntimeError):
            torch.full((2,), False, **bad)
        with pytest.raises(RuntimeError):
            torch.full((2,), 0, dtype=torch.bool, **bad)
    assert_same_toolchain_outcomes(before, after, [torch.randn(4)], tmp_path)
    with pytest.raises(RuntimeError, match="We don't have an op for aten::full"):
        export_torchscript(before(), (torch.randn(4),), {"x": {0: "n"}})
    session = ort_session(export_torchscript(after(), (torch.randn(4),), {"x": {0: "n"}}))
    for n in (2, 7):
        x = torch.randn(n)
        for got, want in zip(session.run(None, {"x": x.numpy()}), after()(x)):
            assert torch.equal(torch.from_numpy(got), want)
