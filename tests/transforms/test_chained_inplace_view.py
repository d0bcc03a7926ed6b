"""TRT387: two or more in-place calls chained on a subscripted view export (TorchScript) as other values.

The rewrite is checked as text (what is taken: two and three calls, assignments and returns, a registered buffer,
a loop body, comments and layout kept; what is left alone: one call, a chain on a whole tensor, ``narrow`` and
``select`` receivers, an index with a call or the base's name, a metadata method, an object that is not shown to
be a tensor), then run: the chain and the split form are the same calls on real tensors (float, int, bool, empty,
inf/NaN, broadcast; a view taken before sees the writes; a refused call raises the same), the rewritten program is
the original in eager mode (values, inputs afterwards, gradients) and under scripting, fx, ``torch.compile`` and
``torch.export``. Exported once per exporter: the original's TorchScript graph differs from eager mode, the
rewrite's equals it at two batch sizes; the dynamo exporter gives eager mode's values for both.
``migrate`` (TRT387 named where the graph differs on its traced inputs) is checked in
``tests/migrate/test_chained_inplace_migrate.py`` and on the real-code variants in
``tests/transforms/variants/test_recipe_variants_trt387.py``.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import rewrite, rules_found

from trtcodemod.migrate.plan import WRONG_VALUE_RULES
from trtcodemod.transforms.chained_inplace_view import INPLACE_METHODS

SELECT = ("TRT387",)


@pytest.mark.parametrize(("code", "want"), [
    # two calls, a comment and a multi-line argument kept; the leading comment stays above the first line
    ("import torch\ndef f(x: torch.Tensor, n: int, a: int, b: int):\n    idx = torch.full((n, 6), 1, dtype=torch.long)\n"
     "    # lanes\n    idx[:, a:b].copy_(x).add_(\n        5\n    )  # TL state\n    return idx\n",
     "    # lanes\n    idx[:, a:b].copy_(x)\n    idx[:, a:b].add_(\n        5\n    )  # TL state\n"),
    # three calls (torchvision's box flip), an argument reading the base
    ("import torch\ndef f(boxes: torch.Tensor, w: int):\n    b = boxes.clone()\n"
     "    b[:, 0].add_(b[:, 2]).sub_(w).neg_()\n    return b\n",
     "    b[:, 0].add_(b[:, 2])\n    b[:, 0].sub_(w)\n    b[:, 0].neg_()\n"),
    # an assignment keeps the rest of the chain
    ("import torch\ndef f(x: torch.Tensor):\n    y = x * 1\n    p = y[0].mul_(2).add_(1).mul(255)\n    return y, p\n",
     "    y[0].mul_(2)\n    p = y[0].add_(1).mul(255)\n"),
    # a return
    ("import torch\ndef f(x: torch.Tensor):\n    y = x.clone()\n    return y[..., 1:].sub_(0.5).div_(0.2)\n",
     "    y[..., 1:].sub_(0.5)\n    return y[..., 1:].div_(0.2)\n"),
    # a loop body (de-normalisation), a clamp after
    ("import torch\ndef f(x: torch.Tensor, mean, std):\n    y = x.clone()\n    for c in range(3):\n"
     "        y[:, c].mul_(std[c]).add_(mean[c]).clamp_(0.0, 1.0)\n    return y\n",
     "        y[:, c].mul_(std[c])\n        y[:, c].add_(mean[c])\n        y[:, c].clamp_(0.0, 1.0)\n"),
    # a registered buffer (`self.<attribute>`), a negative index, an arithmetic slice bound
    ("import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        self.register_buffer('acc', torch.zeros(4, 3))\n    def forward(self, x):\n"
     "        self.acc[:, -1:].mul_(0.9).add_(x)\n        self.acc[1, self.k + 1:].zero_().add_(x)\n"
     "        return self.acc\n",
     "        self.acc[:, -1:].mul_(0.9)\n        self.acc[:, -1:].add_(x)\n"
     "        self.acc[1, self.k + 1:].zero_()\n        self.acc[1, self.k + 1:].add_(x)\n"),
    # a forward input (a tensor by the code), a chain inside parentheses across lines
    ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        x = x.clone()\n"
     "        (x[:, 0]\n            .sub_(1)\n            .div_(2))\n        return x\n",
     "        x[:, 0].sub_(1)\n        (x[:, 0].div_(2))\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    after = rewrite(code, select=SELECT)
    assert want in after, after
    assert rules_found(after, select=SELECT) == []
    assert rewrite(after, select=SELECT) == after
    compile(after, "<rewritten>", "exec")


@pytest.mark.parametrize("code", [
    # one in-place call on a subscript, a chain on a whole tensor: both export right
    "import torch\ndef f(x: torch.Tensor):\n    y = x.clone()\n    y[:, 0].mul_(2)\n    y.add_(1).mul_(2)\n    return y\n",
    # narrow / select views, a view bound to a name (splitting does not fix those)
    "import torch\ndef f(x: torch.Tensor):\n    y = x.clone()\n    y.narrow(1, 0, 2).add_(1).mul_(2)\n"
    "    y.select(1, 0).add_(1).mul_(2)\n    v = y[:, 0]\n    v.mul_(2).add_(1)\n    return y\n",
    # an index with a call, with the base's name, with a list (a copy), with a subscript
    "import torch\ndef f(x: torch.Tensor, i: int):\n    y = x.clone()\n    y[:, len(x) - 1].add_(1).mul_(2)\n"
    "    y[:, y.shape[1] - 1].add_(1).mul_(2)\n    y[[0, 1]].add_(1).mul_(2)\n    y[:, x[0]].add_(1).mul_(2)\n"
    "    return y\n",
    # a metadata method in the chain
    "import torch\ndef f(x: torch.Tensor):\n    y = x.clone()\n    y[:, 0].add_(1).unsqueeze_(0)\n"
    "    y[0].t_().mul_(2)\n    y[1:].add_(1).resize_(2, 2)\n    return y\n",
    # a base the code does not show to be a tensor (its `add_` may not return itself)
    "def f(acc, x):\n    acc[0].add_(x).mul_(2)\n    return acc\n",
    "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        self.acc[0].add_(x).mul_(2)\n"
    "        return x\n",
    # a property: its getter would run once per statement
    "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.register_buffer('acc', torch.zeros(3))\n    @property\n    def buf(self):\n"
    "        return self.acc.clone()\n    def forward(self, x):\n        self.buf[1:].add_(x).mul_(2)\n"
    "        return self.buf\n",
    # an argument before the last call that may change what the index reads
    "import torch\ndef f(x: torch.Tensor, step):\n    y = x.clone()\n    i = 0\n    y[:, i].add_(step()).mul_(2)\n"
    "    y[:, i].add_(i := 1).mul_(2)\n    return y\n",
    # an assignment whose index may be a tensor (then the subscript is a copy)
    "import torch\ndef f(x: torch.Tensor, i):\n    y = x.clone()\n    p = y[:, i].add_(1).mul_(2)\n    return p\n",
    # a statement with `;` siblings, a chain on a subscript of a subscript
    "import torch\ndef f(x: torch.Tensor):\n    y = x.clone(); y[0].add_(1).mul_(2)\n    y[0][1:].add_(1).mul_(2)\n"
    "    return y\n",
])
def test_other_code_is_left_alone(code: str) -> None:
    assert rules_found(code, select=SELECT) == []


def test_the_methods_are_torch_s_value_writing_in_place_methods() -> None:
    public = {n for n in dir(torch.Tensor) if n.endswith("_") and not n.startswith("_")}
    assert INPLACE_METHODS <= public
    metadata = {"resize_", "resize_as_", "set_", "squeeze_", "unsqueeze_", "transpose_", "t_", "swapdims_",
                "swapaxes_", "as_strided_", "requires_grad_", "share_memory_", "detach_"}
    assert not INPLACE_METHODS & metadata
    assert public - INPLACE_METHODS <= metadata | {"apply_", "map_", "map2_", "resize_as_sparse_", "sparse_resize_",
                                                   "sparse_resize_and_clear_", "rename_"}


def test_migrate_names_the_rule_where_the_graph_differs() -> None:
    assert "TRT387" in WRONG_VALUE_RULES


# --- the operation: a chain on a subscript is the split form ---------------------------------------------------------

def _chain(t, a, b):
    before = t[:, 1:]  # a view taken before
    t[:, 1:3].add_(a).mul_(b).clamp_(min=-5)
    return t, before


def _split(t, a, b):
    before = t[:, 1:]
    t[:, 1:3].add_(a)
    t[:, 1:3].mul_(b)
    t[:, 1:3].clamp_(min=-5)
    return t, before


NAN, INF = float("nan"), float("inf")
OPERANDS = {
    "float": (torch.randn(4, 4), torch.randn(4, 2), 3.0),
    "zeros": (torch.zeros(3, 4), torch.zeros(3, 2), 0.0),
    "negatives": (-torch.rand(3, 4) * 9, -torch.rand(3, 1), -2.0),
    "inf-nan": (torch.tensor([[NAN, INF, -INF, 1.0]] * 2), torch.tensor([[INF, NAN]]), NAN),
    "int64": (torch.randint(-9, 9, (3, 4)), torch.randint(-9, 9, (3, 2)), 2),
    "empty": (torch.zeros(0, 4), torch.zeros(0, 2), 2.0),
    "broadcast row": (torch.randn(5, 4), torch.randn(2), torch.randn(5, 1)),
    # the same exceptions: an int receiver refuses a float factor, an operand that does not broadcast, bool add
    "int with float": (torch.randint(0, 9, (3, 4)), torch.randint(0, 9, (3, 2)), 0.5),
    "no broadcast": (torch.randn(3, 4), torch.randn(3, 3), 1.0),
    "bool": (torch.rand(3, 4) > 0.5, torch.rand(3, 2) > 0.5, True),
}


@pytest.mark.parametrize("label", sorted(OPERANDS))
def test_the_chain_is_the_split_form(label: str) -> None:
    target, a, b = OPERANDS[label]
    outcomes = []
    for fn in (_chain, _split):
        t = target.clone()
        try:
            result, before = fn(t, a, b)
        except Exception as error:  # noqa: BLE001 - the exception is part of the contract
            outcomes.append((type(error), t.clone()))  # and what was written before it
            continue
        assert result is t
        assert torch.equal(before.nan_to_num(), t[:, 1:].nan_to_num())  # the view taken before sees the writes
        outcomes.append((t.dtype, t.shape, t.stride(), t.clone()))
    first, second = outcomes
    if len(first) == 2:
        assert first[0] is second[0] and torch.equal(first[1].nan_to_num(), second[1].nan_to_num()), label
    else:
        assert first[:3] == second[:3], label
        assert torch.equal(first[3].nan_to_num(), second[3].nan_to_num()), label
        assert torch.equal(first[3].isnan(), second[3].isnan()), label


def test_gradients_through_views_of_a_leaf_s_clone() -> None:
    grads = []
    values, factors = torch.randn(4, 4, dtype=torch.float64), torch.randn(4, 1, dtype=torch.float64)
    for fn in (_chain, _split):
        leaf, factor = values.clone().requires_grad_(True), factors.clone().requires_grad_(True)
        t, _ = fn(leaf.clone(), torch.ones(4, 2, dtype=torch.float64), factor)
        (t * torch.arange(16, dtype=torch.float64).reshape(4, 4)).sum().backward()
        grads.append((leaf.grad, factor.grad))
    assert torch.equal(grads[0][0], grads[1][0]) and torch.equal(grads[0][1], grads[1][1])


def test_a_view_of_a_leaf_refuses_the_same() -> None:
    errors = []
    for fn in (_chain, _split):
        with pytest.raises(RuntimeError) as caught:
            fn(torch.randn(3, 4, requires_grad=True), 1.0, 2.0)
        errors.append(str(caught.value).split("\n")[0])
    assert errors[0] == errors[1]


# --- the rewritten program: eager mode and the other toolchains ------------------------------------------------------

PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor, s: torch.Tensor):
        y = x.clone()
        idx = torch.full((x.shape[0], 6), 1, dtype=torch.long)
        idx[:, 2:4].copy_(x[:, :2].long()).add_(5)  # lane types
        y[:, 1:3].add_(s).clamp_(min=0.5)
        for c in range(2):
            y[:, c].mul_(0.25).add_(0.5)
        y[:, 0].add_(y[:, 1]).sub_(10).neg_()
        p = y[-1:].mul_(2).add_(1)
        return y, idx, p * 3
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt387")
    after = rewrite(PROGRAM, select=SELECT)
    assert "        idx[:, 2:4].copy_(x[:, :2].long())\n        idx[:, 2:4].add_(5)  # lane types\n" in after, after
    assert "        y[-1:].mul_(2)\n        p = y[-1:].add_(1)\n" in after, after
    assert rules_found(after, select=SELECT) == []
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


EAGER_CASES = {
    "float": [torch.randn(4, 4), torch.randn(4, 2)],
    "float with grad": [torch.randn(3, 4, dtype=torch.float64, requires_grad=True), torch.randn(3, 1).double()],
    "zeros": [torch.zeros(2, 4), torch.zeros(2, 2)],
    "negatives": [-torch.rand(3, 4) * 20, -torch.rand(1, 2)],
    "inf-nan": [torch.tensor([[NAN, INF, -INF, 1.0], [2.0, NAN, 0.0, -INF]]), torch.tensor([[INF, NAN]])],
    "empty": [torch.zeros(0, 4), torch.zeros(0, 2)],
    "broadcast": [torch.randn(5, 4), torch.randn(2)],
    "int (refused: a float factor)": [torch.randint(-5, 5, (3, 4)), torch.randint(-5, 5, (3, 2))],
    "s does not broadcast": [torch.randn(3, 4), torch.randn(3, 3)],
}


@pytest.mark.parametrize("label", sorted(EAGER_CASES))
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    before, after = program[0](), program[1]()
    assert_same_run(run_once(before, EAGER_CASES[label]), run_once(after, EAGER_CASES[label]), context=label)


def test_the_other_toolchains_are_unchanged(program: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(program[0], program[1], [torch.randn(4, 4), torch.randn(4, 2)], tmp_path)


# --- the export -------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def exports(program: tuple[type, type]) -> dict:
    """Both programs through both exporters with a dynamic batch, once for the file."""
    found: dict = {}
    example = (torch.randn(3, 4), torch.randn(3, 2))
    for side, model_type in zip(("before", "after"), program):
        model = model_type().eval()
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, example, buffer, dynamo=False, opset_version=17, input_names=["x", "s"],
                              output_names=["y", "idx", "p"], dynamic_axes={"x": {0: "b"}, "s": {0: "b"}})
            found[f"torchscript {side}"] = buffer.getvalue()
            batch = torch.export.Dim("b", min=2)
            exported = torch.onnx.export(model, example, dynamo=True, opset_version=18, verbose=False,
                                         dynamic_shapes={"x": {0: batch}, "s": {0: batch}})
            found[f"dynamo {side}"] = exported.model_proto.SerializeToString()
    return found


def _graph_matches(graph: bytes, model_type: type, batch: int) -> bool:
    session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    generator = torch.Generator().manual_seed(batch)
    x, s = torch.randn(batch, 4, generator=generator) * 4, torch.randn(batch, 2, generator=generator)
    got = session.run(None, dict(zip(names, (x.numpy(), s.numpy()))))
    want = model_type().eval()(x, s)
    return len(got) == len(want) and all(
        g.shape == w.shape and np.allclose(g, w.numpy(), atol=1e-5) for g, w in zip(got, want))


@pytest.mark.parametrize("batch", [3, 6])
def test_the_torchscript_graph_differs_before_and_matches_after(exports: dict, program: tuple[type, type],
                                                                batch: int) -> None:
    assert not _graph_matches(exports["torchscript before"], program[0], batch)
    assert _graph_matches(exports["torchscript after"], program[1], batch)
    assert _graph_matches(exports["torchscript after"], program[0], batch)  # the original's eager values


@pytest.mark.parametrize("batch", [3, 6])
def test_the_dynamo_exporter_gives_eager_values_for_both(exports: dict, program: tuple[type, type],
                                                         batch: int) -> None:
    for side, model_type in zip(("before", "after"), program):
        assert _graph_matches(exports[f"dynamo {side}"], model_type, batch), side
