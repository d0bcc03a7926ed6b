"""TRT381: einx's element-wise operations, which read every size into Python, written as torch broadcasts.

Checked as text (the forms x-transformers writes, the patterns the rule refuses), then run: eager mode the same as
einx (values, dtype, shape, strides, gradients) on empty axes, negatives, inf and NaN, integers and bools; the
rewritten code under ``torch.jit.script``, fx, compile and export equals einx in eager mode; a trace of the original
bakes the sizes (wrong or failing at another length) where the rewritten one follows them, and its TorchScript ONNX
export equals eager mode in ONNX Runtime at other sizes. The assumption the rule states (einx checks ranks and shared
sizes, a broadcast does not) is shown too.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import einx
import pytest
import torch

from safety import assert_same_run, import_source, run_once
from support import export_torchscript, ort_session, rewrite, rules_found

from trtcodemod.transforms.einx_elementwise import Pattern, operand_index, parse_pattern

HEADER = "import einx\nimport torch\n\n\n"


def fixed(code: str) -> str:
    return rewrite(code, select=("TRT381",), unsafe=True)


def program(arguments: str, call: str) -> str:
    """A function ``f`` making the call, and a module ``M`` whose forward calls it (for fx and export)."""
    return (f"{HEADER}def f({arguments}):\n    return {call}\n\n\n"
            f"class M(torch.nn.Module):\n    def forward(self, {arguments}):\n        return f({arguments})\n")


# --- the pattern ----------------------------------------------------------------------------------------------------

def test_patterns_are_read_with_einxs_implicit_output() -> None:
    assert parse_pattern("j, i -> i j", 2) == Pattern((("j",), ("i",)), ("i", "j"))
    assert parse_pattern("b n, b n d, -> b n d", 3) == Pattern((("b", "n"), ("b", "n", "d"), None), ("b", "n", "d"))
    assert parse_pattern("b fb n, n fb", 2) == Pattern((("b", "fb", "n"), ("n", "fb")), ("b", "fb", "n"))
    assert parse_pattern("i j, j,", 3) == Pattern((("i", "j"), ("j",), None), ("i", "j"))
    assert parse_pattern("... j, ... i -> ... i j", 2).output == ("...", "i", "j")


@pytest.mark.parametrize("pattern,operands", [
    ("b n [l], b n -> b n", 2),          # brackets: an indexing, not an element-wise operation
    ("b n d, s d -> (b s) n d", 2),      # a composition
    ("b n, b -> b", 2),                  # the output drops an axis (a reduction)
    ("i -> i j", 1),                     # an output axis no operand has
    ("j, i -> i j", 3),                  # another number of operands
    ("j j, i -> i j", 2),                # a repeated name
    ("j ..., i -> i j", 2),              # an ellipsis not first
    ("b n, n -> ... b n", 2),            # an output ellipsis no operand has
    ("2 j, i -> i j", 2),                # a number in an operand
    ("b n, c", 2),                       # no arrow and no operand holds every axis
])
def test_patterns_the_rule_does_not_take(pattern: str, operands: int) -> None:
    assert parse_pattern(pattern, operands) is None


def test_each_operand_is_indexed_into_the_output_layout() -> None:
    assert operand_index(("j",), ("i", "j")) == (None, "None, :")
    assert operand_index(("i",), ("i", "j")) == (None, ":, None")
    assert operand_index(("b", "n", "h"), ("b", "h", "n", "d")) == ((0, 2, 1), ":, :, :, None")
    assert operand_index(("...", "j"), ("...", "i", "j")) == (None, "..., None, :")
    assert operand_index(("b", "n"), ("b", "n")) == (None, None)


# --- the rewrite as text --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call,after", [
    ("einx.subtract('j, i -> i j', k, q)", "torch.subtract(k[None, :], q[:, None])"),
    ("einx.where('b n, b n d, -> b n d', m, t, 0.)", "torch.where(m[:, :, None], t, 0.)"),
    ("einx.multiply('b fb n, n fb', t, w)", "torch.multiply(t, w.permute(1, 0)[None, :, :])"),
    ("-einx.subtract('... j, ... i -> ... i j', k, q).abs()", "-torch.subtract(k[..., None, :], q[..., :, None]).abs()"),
    ("einx.subtract('j, i -> 1 i j', k, q)", "torch.subtract(k[None, None, :], q[None, :, None])"),
    ("einx.multiply('b n h, b h n d ->b h n d', t.sigmoid(), w)",
     "torch.multiply(t.sigmoid().permute(0, 2, 1)[:, :, :, None], w)"),
    ("einx.equal('j, b i -> b j i', k, q)", "torch.eq(k[None, :, None], q[:, None, :])"),
    ("einx.less('n, b -> b n', k, q + 1)", "torch.less(k[None, :], (q + 1)[:, None])"),
    ("einx.add('b n, ', t, 1.5)", "torch.add(t, 1.5)"),
    ("einx.subtract('... i, j -> ... i j', k, q)", "torch.subtract(k[..., :, None], q[None, :])"),
])
def test_the_rewrite(call: str, after: str) -> None:
    assert f"return {after}\n" in fixed(program("k, q, m, t, w", call))


def test_from_einx_import_and_the_torch_import_it_needs() -> None:
    source = "from einx import subtract\n\n\ndef f(k, q):\n    return subtract('j, i -> i j', k, q)\n"
    new = fixed(source)
    assert "return torch.subtract(k[None, :], q[:, None])" in new and "import torch" in new


@pytest.mark.parametrize("call", [
    "einx.add('b n d, s d -> (b s) n d', t, w)",
    "einx.subtract('j, i -> i j', k, q, backend='torch')",
    "einx.subtract(pattern, k, q)",
    "einx.subtract(f'j, i -> i j', k, q)",
    "einx.maximum('b n, ', t, 0.)",           # torch.maximum takes no number
    "einx.less(', b -> b', 1.5, t)",          # a leading number: einx makes a tensor of it, torch.less raises
    "einx.where(', b, b -> b', True, t, w)",
    "einx.subtract('... i j, ... j -> ... j i', k, q)",  # a permutation behind an ellipsis
    "einx.sum('b n -> b', t)",
    "einx.subtract('j, i -> i j', *pair)",
    "other.subtract('j, i -> i j', k, q)",
])
def test_calls_left_alone(call: str) -> None:
    assert rules_found(f"{HEADER}def f(k, q, t, w, pattern, pair, other):\n    return {call}\n",
                       select=("TRT381",)) == []


# --- run: eager mode the same ----------------------------------------------------------------------------------------

def _floats(*shape: int) -> torch.Tensor:
    values = torch.tensor([0.0, -0.0, -2.5, 3.0, float("inf"), float("-inf"), float("nan"), 1e-30, -7.0])
    count = 1
    for size in shape:
        count *= size
    return values.repeat(count // len(values) + 1)[:count].reshape(shape).requires_grad_()


CASES = {
    # name: (arguments, the einx call, the input sets)
    "relative_positions": ("k, q", "einx.subtract('j, i -> i j', k, q)",
                           [(torch.arange(5), torch.arange(2, 5)), (torch.arange(-3, 4), torch.arange(1)),
                            (_floats(7), _floats(3))]),
    "alibi": ("k, q", "-einx.subtract('j, i -> 1 i j', k, q).abs()",
              [(torch.arange(6.0), torch.arange(4.0, 6.0)), (_floats(9), _floats(4))]),
    "batched_positions": ("k, q", "einx.subtract('... j, ... i -> ... i j', k, q)",
                          [(_floats(2, 5), _floats(2, 3)), (_floats(3, 2, 4), _floats(3, 2, 1))]),
    "length_mask": ("seq, lens", "einx.less('j, i -> i j', seq, lens)",
                    [(torch.arange(6), torch.tensor([0, 3, 6, -1])), (torch.arange(3), torch.tensor([2]))]),
    "token_match": ("seq, ids", "einx.equal('j, b i -> b j i', seq, ids)",
                    [(torch.tensor([1, 2, 3]), torch.tensor([[3, 1], [2, 2]])), (torch.arange(2), torch.ones(2, 3))]),
    "masked_zero": ("m, t", "einx.where('b n, b n d, -> b n d', m, t, 0.)",
                    [(torch.tensor([[True, False, True]]), _floats(1, 3, 4)),
                     (torch.tensor([[True, False]]), torch.arange(6).reshape(1, 2, 3))]),
    "loss_weights": ("loss, w", "einx.multiply('b fb n, n fb', loss, w)",
                     [(_floats(2, 3, 4), _floats(4, 3)), (torch.arange(24).reshape(2, 3, 4), torch.arange(12).reshape(4, 3))]),
    "head_gates": ("g, o", "einx.multiply('b n h, b h n d ->b h n d', g.sigmoid(), o)",
                   [(_floats(2, 3, 4), _floats(2, 4, 3, 5))]),
    "binning": ("x, bins", "einx.subtract('... i, j -> ... i j', x, bins)",
                [(_floats(2, 3, 4), _floats(5)), (_floats(3), torch.arange(4.0))]),
    "forget_gates": ("f", "einx.subtract('b h i, b h j -> b h i j', f, f)",
                     [(_floats(2, 1, 5),), (-_floats(1, 2, 3),)]),
    "scalar_offset": ("t", "einx.add('b n, ', t, 1.5)",
                      [(_floats(2, 3),), (torch.arange(6).reshape(2, 3),), (torch.ones(1, 4, dtype=torch.int32),)]),
    "clamped": ("x, floor", "einx.maximum('b n d, d -> b n d', x, floor)",
                [(_floats(2, 3, 4), _floats(4)), (torch.arange(6).reshape(1, 2, 3), torch.tensor([1, -1, 4]))]),
    "both_masks": ("a, b", "einx.logical_and('i, j -> i j', a, b)",
                   [(torch.tensor([True, False, True]), torch.tensor([False, True])),
                    (torch.zeros(1, dtype=torch.bool), torch.ones(3, dtype=torch.bool))]),
}


def _pair(name: str, tmp_path: Path):
    arguments, call = CASES[name][:2]
    source = program(arguments, call)
    new = fixed(source)
    assert "einx." not in new.split("def f", 1)[1], new
    return import_source(source, tmp_path)["f"], import_source(new, tmp_path)["f"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_mode_is_unchanged(name: str, tmp_path: Path) -> None:
    original, rewritten = _pair(name, tmp_path)
    for index, inputs in enumerate(CASES[name][2]):
        before, after = run_once(original, list(inputs)), run_once(rewritten, list(inputs))
        assert before.error is None, f"einx itself failed on input set {index}: {before.error}"
        assert_same_run(before, after, context=f"{name} input set {index}")


@pytest.mark.parametrize("name", ["relative_positions", "masked_zero", "loss_weights", "head_gates", "length_mask"])
def test_the_rewritten_code_under_each_toolchain_equals_einx(name: str, tmp_path: Path) -> None:
    original, rewritten = _pair(name, tmp_path)
    inputs = [value.detach() if isinstance(value, torch.Tensor) else value for value in CASES[name][2][0]]
    want = original(*inputs)

    module = import_source(fixed(program(*CASES[name][:2])), tmp_path)["M"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scripted = torch.jit.script(rewritten)
        results = {
            "script": scripted(*inputs),
            "fx": torch.fx.symbolic_trace(module())(*inputs),
            "compile": torch.compile(rewritten, fullgraph=True, backend="eager")(*inputs),
            "export": torch.export.export(module(), tuple(inputs)).module()(*inputs),
        }
    for tool, got in results.items():
        assert got.dtype == want.dtype and got.shape == want.shape, tool
        assert torch.equal(got.nan_to_num(), want.nan_to_num()) and torch.equal(got.isnan(), want.isnan()), tool


# --- run: the trace and the export ----------------------------------------------------------------------------------

BIAS = """import einx
import torch
from torch import nn


class Bias(nn.Module):
    def forward(self, x):
        j = x.shape[1]
        i = x.shape[0]
        q_pos = torch.arange(j - i, j)
        k_pos = torch.arange(j)
        rel = einx.subtract('j, i -> i j', k_pos, q_pos)
        return x + rel
"""


def test_a_trace_of_einx_bakes_the_sizes_and_the_rewrite_follows_them(tmp_path: Path) -> None:
    original = import_source(BIAS, tmp_path)["Bias"]()
    rewritten = import_source(fixed(BIAS), tmp_path)["Bias"]()
    small, large = torch.zeros(3, 5), torch.randn(4, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced_original = torch.jit.trace(original, small)
        traced_rewritten = torch.jit.trace(rewritten, small)
    with pytest.raises(RuntimeError, match="invalid for input of size"):
        traced_original(large)
    assert torch.equal(traced_rewritten(large), original(large))


def test_the_rewritten_export_follows_the_sizes_in_onnx_runtime(tmp_path: Path) -> None:
    rewritten = import_source(fixed(BIAS), tmp_path)["Bias"]()
    original = import_source(BIAS, tmp_path)["Bias"]()
    graph = export_torchscript(rewritten, (torch.zeros(3, 5),), {"x": {0: "i", 1: "j"}})
    session = ort_session(graph)
    for shape in [(3, 5), (1, 9), (6, 6)]:
        x = torch.randn(shape)
        (got,) = session.run(None, {"x": x.numpy()})
        assert torch.equal(torch.from_numpy(got), original(x)), shape
    (empty,) = session.run(None, {"x": torch.zeros(2, 0).numpy()})  # einx itself raises there
    assert empty.shape == (2, 0)


# --- the assumption -------------------------------------------------------------------------------------------------

def test_what_the_assumption_covers(tmp_path: Path) -> None:
    """einx checks ranks and shared sizes; the broadcast does not: why the fix is unsafe and migrate verifies it."""
    original, rewritten = _pair("clamped", tmp_path)
    x, floor = torch.randn(2, 3, 4), torch.randn(1)
    with pytest.raises(Exception, match="."):
        original(x, floor)
    assert rewritten(x, floor).shape == (2, 3, 4)
    original, rewritten = _pair("relative_positions", tmp_path)
    with pytest.raises(Exception, match="."):
        original(torch.arange(6).reshape(2, 3), torch.arange(2))
    assert rewritten(torch.arange(6).reshape(2, 3), torch.arange(2)).shape == (1, 2, 3)


@pytest.mark.parametrize("name,inputs,shape", [
    ("relative_positions", (torch.arange(0), torch.arange(0)), (0, 0)),
    ("length_mask", (torch.arange(4), torch.zeros(0, dtype=torch.long)), (0, 4)),
    ("masked_zero", (torch.zeros(2, 0, dtype=torch.bool), torch.ones(2, 0, 5)), (2, 0, 5)),
    ("loss_weights", (torch.ones(0, 2, 3), torch.ones(3, 2)), (0, 2, 3)),
])
def test_an_empty_axis_einx_cannot_solve_is_an_empty_result(name: str, inputs: tuple, shape: tuple,
                                                              tmp_path: Path) -> None:
    """einx 0.4 raises on an axis of size 0 (its solver finds no size); the broadcast gives the empty result, as
    torch's own operation on the operands would: one more difference the fix's assumption names."""
    original, rewritten = _pair(name, tmp_path)
    with pytest.raises(einx.errors.AxisSizeError):
        original(*inputs)
    assert rewritten(*inputs).shape == shape
