"""TRT104's unsafe rewrite: `@torch.jit.script` on the module-level function holding a loop whose
trip count comes from tensor values (the guidance's recipe for dependent iterations).

The rewrite text and where it never applies; eager before/after on trip counts 0, 1 and more
with edge values; the TorchScript export, whose ONNX `Loop` now follows the count where the
trace had unrolled the example's; and the assumption (the function must compile) shown.
"""

from __future__ import annotations

import io
import textwrap
import warnings
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest
import torch

from safety import import_source
from support import load, onnx_ops, rewrite, rules_found
from trtcodemod.engine import Options, check_source
from trtcodemod.evidence.facts import Facts
from trtcodemod.rules import Safety


CODE = '''\
import torch


def refine(x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
    for _ in range(int(steps)):
        x = torch.tanh(x) * 0.5 + x
    return x


def settle(x: torch.Tensor) -> torch.Tensor:
    while x.abs().max() > 1.0:
        x = x * 0.5
    return x


class Refiner(torch.nn.Module):
    def forward(self, x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
        return settle(refine(x, steps))
'''

NEVER = [
    # a method: scripting it would script the module's other code too
    "class M(torch.nn.Module):\n    def forward(self, x, n: torch.Tensor):\n"
    "        for _ in range(int(n)):\n            x = x + 1\n        return x\n",
    # already decorated: another decorator's meaning is not ours to change
    "import functools\n\n@functools.lru_cache\ndef f(x: torch.Tensor, n: torch.Tensor):\n"
    "    for _ in range(int(n)):\n        x = x + 1\n    return x\n",
    # a nested function: its closure is not TorchScript's
    "def outer(x: torch.Tensor, n: torch.Tensor):\n    def inner(y):\n"
    "        for _ in range(int(n)):\n            y = y + 1\n        return y\n    return inner(x)\n",
    # keyword-only parameters with defaults, which TorchScript refuses (owndet's `nms(..., *, max_detections=None)`)
    "def f(x: torch.Tensor, n: torch.Tensor, *, step: float = 1.0):\n"
    "    for _ in range(int(n)):\n        x = x + step\n    return x\n",
    # a list started empty that gets Python numbers appended (pyfacer's `keep.append(order[0].item())`)
    "def f(x: torch.Tensor):\n    keep = []\n    while x.numel() > 0:\n        i = x[0].item()\n"
    "        keep.append(i)\n        x = x[1:][x[1:] > i]\n    return keep\n",
]


def test_rewrite_text() -> None:
    after = rewrite(CODE, unsafe=True, select=("TRT104",))
    assert "@torch.jit.script\ndef refine(" in after and "@torch.jit.script\ndef settle(" in after
    assert rewrite(CODE, select=("TRT104",)) == CODE  # unsafe
    for code in NEVER:
        code = "import torch\n\n" + code
        assert "jit.script" not in rewrite(code, unsafe=True, select=("TRT104",)), code


@pytest.mark.parametrize("steps", [0, 1, 3, 6])
def test_eager_values_are_the_same(tmp_path: Path, steps: int) -> None:
    # refine alone: settle's `while` never ends on an inf, in the original as in the rewrite.
    code = CODE.replace("settle(refine(x, steps))", "refine(x, steps)")
    before = import_source(code, tmp_path)["Refiner"]()
    after = import_source(rewrite(code, unsafe=True, select=("TRT104",)), tmp_path)["Refiner"]()
    for x in (torch.randn(2, 4), torch.zeros(3), torch.tensor([-0.0, float("inf"), -3.0]), torch.empty(0, 4)):
        expected, got = before(x.clone(), torch.tensor(steps)), after(x.clone(), torch.tensor(steps))
        assert got.dtype == expected.dtype and got.shape == expected.shape
        torch.testing.assert_close(got, expected, equal_nan=True, rtol=1e-6, atol=1e-6)


def _export(model: torch.nn.Module) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.randn(2, 4), torch.tensor(2)), buffer, dynamo=False,
                          input_names=["x", "steps"])
    graph = onnx.load_from_string(buffer.getvalue())
    assert ("Loop" in {n.op_type for n in graph.graph.node}) is hasattr(model, "scripted")
    return ort.InferenceSession(buffer.getvalue())


def test_the_scripted_loop_follows_the_trip_count_in_onnx_runtime(tmp_path: Path) -> None:
    code = CODE.replace("settle(refine(x, steps))", "refine(x, steps)")
    before = import_source(code, tmp_path)["Refiner"]()
    after = import_source(rewrite(code, unsafe=True, select=("TRT104",)), tmp_path)["Refiner"]()
    after.scripted = True
    results = []
    for model in (before, after):
        session = _export(model)
        x = torch.randn(2, 4)
        feeds = {"x": x.numpy(), "steps": torch.tensor(5).numpy()}
        got = session.run(None, {i.name: feeds[i.name] for i in session.get_inputs()})[0]
        results.append(torch.allclose(torch.from_numpy(got), model(x, torch.tensor(5)), atol=1e-5))
    assert results == [False, True]  # the trace unrolled 2 steps; the Loop runs 5


def test_the_assumption_a_function_torchscript_cannot_compile_fails_at_import(tmp_path: Path) -> None:
    code = ("import torch\n\ndef grow(x, n: torch.Tensor):\n    for _ in range(int(n)):\n"
            "        x = x + sum(v for v in (x, x))\n    return x\n")  # TorchScript has no generators
    after = rewrite(code, unsafe=True, select=("TRT104",))
    assert "@torch.jit.script" in after
    import_source(code, tmp_path)  # the original imports
    with pytest.raises(Exception):
        import_source(after, tmp_path)


def test_data_dependent_loops_reported() -> None:
    code = """
    import torch
    class Refiner:
        def run(self, x: torch.Tensor, steps: torch.Tensor, scores: torch.Tensor):
            for _ in range(int(steps)):
                x = x + 1
            for _ in range(steps.item()):
                x = x + 1
            for _ in range(0, x.sum()):
                x = x + 1
            n = 0
            while scores[n] > 0.5:
                n += 1
            for _ in range(x.shape[0]):
                x = x + 1
            return x
    """
    # The while loop is also TRT336's scan (a test that is a function of the row at the index; its rewrite is tested
    # in test_while_scan.py); TRT104 rewrites none of them.
    assert rules_found(code) == ["TRT104"] * 4 + ["TRT336"]
    assert rewrite(code, unsafe=True, select=("TRT104",)) == textwrap.dedent(code)


def test_traced_loop_is_unrolled() -> None:
    """What TRT104 warns about is real: the trace repeats the body the example's number of times."""
    code = """
    import torch
    class Refiner(torch.nn.Module):
        def forward(self, x, steps):
            for _ in range(int(steps)):
                x = x * 2
            return x
    """
    model = load(code, "Refiner")()
    ops = onnx_ops(model, (torch.randn(2), torch.tensor(3)))
    assert ops.count("Mul") == 3


def test_loops_use_the_same_evidence() -> None:
    """TRT104: a trip count from a forward input is data; from a shape, a config or a list, it is not."""
    code = """
    import torch
    from torch import nn
    class Decoder(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.cfg = cfg
        def forward(self, x, steps, names):
            for _ in range(int(steps)):
                x = x + 1
            for _ in range(len(names)):
                x = x + 1
            for _ in range(self.cfg.steps):
                x = x + 1
            for _ in range(x.size(0)):
                x = x + 1
            k = 0
            while k < self.cfg.steps:
                k += 1
            while x.sum() > 1:
                x = x / 2
            return x
    """
    assert rules_found(code, select=("TRT104",)) == ["TRT104", "TRT104"]


# An iterate-until-convergence loop whose test is a bool a scripted step computes from the image
# (reduced from pytorch_filters 0.1.1, pytorch_filters/main.py:118-143 and :189-191, Canny's
# hysteresis: `while not is_complete: image, is_complete = hysteresis(image, threshold=threshold_2)`
# with `is_complete = torch.equal(old_img, image)` inside the scripted step); names and code are ours.
CONVERGE = '''\
import torch
import torch.nn.functional as F


@torch.jit.script
def grow(edges: torch.Tensor, strong: float = 0.5) -> tuple[torch.Tensor, bool]:
    before = edges.clone()
    near = F.max_pool2d(edges, 3, 1, 1) >= strong
    edges = torch.where(near & (edges > 0.0), torch.ones_like(edges), edges)
    return edges, torch.equal(before, edges)


def thin(m, weak=0.1):
    return torch.where(m >= weak, m, torch.zeros_like(m))


def trace_edges(edges: torch.Tensor, weak: float = 0.1) -> torch.Tensor:
    edges = thin(edges, weak=weak)
    settled = False
    while not settled:
        edges, settled = grow(edges)
    return edges
'''


def test_a_convergence_test_read_inside_a_scripted_step_is_data(tmp_path: Path) -> None:
    """TRT104: `settled`, the bool a scripted function computes from the tensor it is given, decides the
    `while`: the trip count is the data's. A helper TorchScript would reject (`thin`'s unannotated
    `weak=0.1`, compiled with the function scripting would compile) keeps the fix off and the finding
    names it, so `migrate` proposes no rewrite that fails at import."""
    found = check_source(CONVERGE.encode(), "m.py", Options(select=("TRT104",)))
    assert [(f.rule, f.line, f.fix) for f in found] == [("TRT104", 20, Safety.NONE)]
    assert "not scripted here: `thin`, which it calls, has parameter `weak`" in found[0].message
    assert "cannot carry a Python bool or number out of a scripted function" in found[0].message
    assert "loop a fixed number of times that covers the most passes" in found[0].message
    with pytest.raises(RuntimeError, match="Expected a default value of type Tensor"):
        torch.jit.script(import_source(CONVERGE, tmp_path)["trace_edges"])
    # Without the scripted step the name is an unknown function's result: no evidence, no finding.
    plain = CONVERGE.replace("@torch.jit.script\n", "")
    assert check_source(plain.encode(), "m.py", Options(select=("TRT104",))) == []


def test_a_convergence_loop_whose_helpers_compile_is_scripted(tmp_path: Path) -> None:
    """With `thin`'s default annotated the function compiles: the fix scripts it, and eager mode is the
    same on a chain of weak pixels the strong one reaches in several passes, no edges, negatives, zeros
    and an empty image (NaN never settles: `torch.equal` of NaN is False, in both)."""
    code = CONVERGE.replace("def thin(m, weak=0.1):", "def thin(m, weak: float = 0.1):")
    after = rewrite(code, unsafe=True, select=("TRT104",))
    assert "@torch.jit.script\ndef trace_edges(edges: torch.Tensor, weak: float = 0.1) -> torch.Tensor:" in after
    before_fn, after_fn = import_source(code, tmp_path)["trace_edges"], import_source(after, tmp_path)["trace_edges"]
    chain = torch.zeros(1, 1, 3, 9)
    chain[0, 0, 1, 0] = 0.9
    chain[0, 0, 1, 1:] = 0.2
    for x in (chain, torch.zeros(1, 1, 4, 4), -torch.rand(1, 1, 5, 5), torch.rand(2, 1, 6, 7),
              torch.empty(0, 1, 4, 4)):
        assert torch.equal(before_fn(x), after_fn(x))
    assert torch.equal(after_fn(chain)[0, 0, 1], torch.ones(9))  # eight passes, all taken


def test_a_recorded_run_makes_the_convergence_loop_data_where_the_code_shows_no_tensor() -> None:
    """With facts (pytorch_filters' `canny(image, ...)` has no annotations): every recorded call passed
    the parameter a tensor, so it is one; and the run read no tensor value in the `while` test, since
    the scripted step read it in TorchScript, which is no evidence that the test is static."""
    code = CONVERGE.replace("def trace_edges(edges: torch.Tensor,", "def trace_edges(edges,")
    path = "/m.py"
    lines = code.splitlines()
    start = next(i for i, text in enumerate(lines, 1) if text.startswith("def trace_edges"))
    ran = {path: set(range(start, len(lines) + 1))}
    event = {"kind": "parameter", "path": path, "line": start, "column": 1, "end_line": start, "end_column": 1,
             "direct": True, "count": 2, "function": "trace_edges", "name": "edges", "holds": "tensor"}
    assert check_source(code.encode(), path, Options(select=("TRT104",))) == []
    assert check_source(code.encode(), path, Options(select=("TRT104",), facts=Facts(runs=2, lines=ran))) == []
    found = check_source(code.encode(), path, Options(select=("TRT104",), facts=Facts(runs=2, lines=ran,
                                                                                           events=[event])))
    assert [(f.rule, f.line) for f in found] == [("TRT104", 20)]
