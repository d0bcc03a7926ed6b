"""TRT375 (view-alias-write): an in-place write through a reshaping view, which the TorchScript export loses.

The reduced model is mambapy 1.2.0's parallel scan (Alexandre Torres-Leguet; ``mambapy/pscan.py``): ``PScan.forward``
clones and transposes its inputs (lines 169-178), ``PScan.pscan`` sweeps up over ``log2`` levels with
``Xa = Xa.view(B, D, T//2, 2, -1)`` and ``Xa[:, :, :, 1].add_(Aa[:, :, :, 1].mul(Xa[:, :, :, 0]))`` (lines 55-63), and
the caller reads the result back from the tensor it passed in (line 186). Written here in our own words, for a
length that is a power of two and with the up sweep only (the construct, not the whole scan).
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch

from trtcodemod.engine import Options, check_source
from trtcodemod.evidence.facts import Facts
from trtcodemod.migrate.locate import WRONG_VALUES, Problem
from trtcodemod.migrate.plan import REMAINS, decide
from trtcodemod.rules import Safety

SCAN = '''\
import torch


def up_sweep(A, X):
    b, d, length, n = A.shape
    Aa, Xa = A, X
    while Xa.size(2) > 1:
        t = Xa.size(2)
        Aa = Aa.view(b, d, t // 2, 2, n)
        Xa = Xa.view(b, d, t // 2, 2, n)
        Xa[:, :, :, 1].add_(Aa[:, :, :, 1].mul(Xa[:, :, :, 0]))
        Aa[:, :, :, 1].mul_(Aa[:, :, :, 0])
        Aa = Aa[:, :, :, 1]
        Xa = Xa[:, :, :, 1]


def scan(A_in, X_in):
    A = A_in.clone().transpose(2, 1)
    X = X_in.clone().transpose(2, 1)
    up_sweep(A, X)
    return X.transpose(2, 1)


def scan_by_slices(A_in, X_in):
    """The manual step: every level written into the tensor itself through one strided slice."""
    A = A_in.clone().transpose(2, 1)
    X = X_in.clone().transpose(2, 1)
    step = 1
    while step < X.size(2):
        X[:, :, 2 * step - 1::2 * step].add_(A[:, :, 2 * step - 1::2 * step].mul(X[:, :, step - 1::2 * step]))
        A[:, :, 2 * step - 1::2 * step].mul_(A[:, :, step - 1::2 * step])
        step *= 2
    return X.transpose(2, 1)
'''


def _module(source: str):
    namespace: dict = {}
    exec(compile(source, "scan.py", "exec"), namespace)
    return namespace


def _findings(source: str):
    return [f for f in check_source(source.encode(), "scan.py", Options(select=("TRT375",))) if f.rule == "TRT375"]


def test_the_sweep_is_named_once_at_its_first_write() -> None:
    found = _findings(SCAN)
    assert [(f.line, f.fix.value) for f in found] == [(11, Safety.NONE.value)]
    assert "`add_` writes in place into `Xa`" in found[0].message and "By hand: write into the tensor itself" in found[0].message


@pytest.mark.parametrize("source, lines", [
    ("def f(x):\n    x.transpose(1, 2)[:, 0] += 1\n    return x\n", [2]),
    ("def f(x, v):\n    y = torch.transpose(x, 1, 2)\n    y[:, 0] = v\n    return x\n", [3]),
    ("def f(x):\n    y = x.flatten(1)\n    y.mul_(2)\n    return x\n", [3]),
    ("def f(x):\n    y = x.T\n    y += 1\n    return x\n", [3]),
    # Slices and indices of the tensor itself: the exporter follows them back (TRT203's, when at all).
    ("def f(x, v):\n    x[:, 1:].add_(v)\n    x[..., 0] = v\n    return x\n", []),
    # A view read, never written; an out-of-place method; a nested function's write is its own.
    ("def f(x):\n    y = x.view(-1)\n    return y.add(1), y.sum()\n", []),
    ("def f(x):\n    y = x.view(-1)\n    def g(z):\n        z.add_(1)\n    return g(x)\n", []),
    ("def f(x):\n    y = x.view(-1)\n    y.requires_grad_()\n    return y\n", []),
    # Written first, viewed after: mambapy 1.2.0's Jamba experts (`mambapy/jamba.py:518-519`) add into
    # `final_hidden_states` in the loop over experts, then reshape it for the return.
    ("def f(x, i, v):\n    out = torch.zeros_like(x)\n    for e in range(2):\n        out.index_add_(0, i, v)\n"
     "    out = out.reshape(2, -1)\n    return out\n", []),
    # A view of a new tensor under its only name (timm 1.0's Swin, `timm/models/swin_transformer.py:215-217`), and a
    # new tensor bound since the view (kornia 0.9's ViT, `kornia/models/vit.py:192-197`).
    ("def f(c):\n    r = c[:, :, None] - c[:, None, :]\n    r = r.permute(1, 2, 0).contiguous()\n"
     "    r[:, :, 0] += 1\n    return r\n", []),
    ("def f(x, t, p):\n    x = x.view(2, -1).permute(1, 0)\n    x = torch.cat([t, x])\n    x += p\n    return x\n", []),
    # Nothing reads the tensor viewed after the write: kornia 0.9's SIFT gradients return the view itself
    # (`kornia/feature/sift/scale_space.py:592-595`).
    ("def f(x):\n    atlas = x.new_empty(2, 3)\n    return atlas.flatten(0, 1).mul_(0.5)\n", []),
    ("def f(x):\n    atlas = x.new_empty(2, 3)\n    atlas.flatten(0, 1).mul_(0.5)\n    return atlas\n", [3]),
    # ... but a view bound in the loop reaches the next round's write.
    ("def f(x):\n    for e in range(2):\n        x.mul_(2)\n        x = x.transpose(0, 1)\n    return x\n", [3]),
])
def test_what_counts_as_a_write_through_a_view(source: str, lines: list[int]) -> None:
    assert [f.line for f in _findings("import torch\n" + source)] == [n + 1 for n in lines]


_EDGES = [
    (torch.rand(2, 8, 3, 2), torch.randn(2, 8, 3, 2)),
    (torch.zeros(1, 16, 2, 1), torch.full((1, 16, 2, 1), -3.0)),
    (torch.ones(1, 4, 1, 3), torch.tensor([1e30, -1e30, 0.0, 7.0]).view(1, 4, 1, 1).expand(1, 4, 1, 3).clone()),
    (torch.full((1, 8, 2, 2), -1.0), torch.randn(1, 8, 2, 2) * 1e3),
    (torch.rand(1, 1, 2, 2), torch.randn(1, 1, 2, 2)),  # one step: no level
]


@pytest.mark.parametrize("A, X", _EDGES)
def test_the_manual_step_computes_what_the_sweep_computes(A, X) -> None:
    names = _module(SCAN)
    original, by_slices = names["scan"](A, X), names["scan_by_slices"](A, X)
    torch.testing.assert_close(by_slices, original, equal_nan=True)
    assert original.dtype == by_slices.dtype and original.shape == by_slices.shape


def _exported(fn, A, X) -> np.ndarray:
    class Scan(torch.nn.Module):
        def forward(self, A, X):
            return fn(A, X) * 1.0

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Scan(), (A, X), buffer, dynamo=False, opset_version=17)
    session = ort.InferenceSession(buffer.getvalue())
    feeds = {i.name: v.numpy() for i, v in zip(session.get_inputs(), (A, X))
             if i.name in {"A", "X"} or len(session.get_inputs()) == 2}
    if len(session.get_inputs()) == 1:  # the export dropped A: nothing in the graph reads it
        feeds = {session.get_inputs()[0].name: X.numpy()}
    return session.run(None, feeds)[0]


def test_the_torchscript_export_loses_the_writes_and_the_manual_step_keeps_them() -> None:
    torch.manual_seed(0)
    A, X = torch.rand(2, 8, 3, 2) + 0.5, torch.randn(2, 8, 3, 2)
    names = _module(SCAN)
    eager = names["scan"](A, X).numpy()
    lost = _exported(names["scan"], A, X)
    assert not np.allclose(lost, eager, atol=1e-5)  # the finding's claim: the graph keeps the old values
    np.testing.assert_allclose(lost, X.numpy(), atol=1e-6)  # ... all of them: X as it was passed in
    np.testing.assert_allclose(_exported(names["scan_by_slices"], A, X), eager, rtol=1e-5, atol=1e-5)


def test_migrate_names_it_where_the_graph_has_wrong_values(tmp_path: Path) -> None:
    path = tmp_path / "scan.py"
    path.write_text(SCAN)
    found = [f for f in check_source(SCAN.encode(), str(path), Options(select=("TRT375",))) if f.rule == "TRT375"]
    facts = Facts.from_json({"version": 1, "runs": 2, "lines": {str(path.resolve()): list(range(1, 40))},
                             "events": [], "inputs": {}})
    wrong = Problem("unfaithful", str(path.resolve()), 19, WRONG_VALUES, None, "the graph differs from eager")
    decision = decide(found[0], [wrong], facts, unsafe=True)
    assert decision.action == REMAINS and "no automatic fix" in decision.reason
    assert "write into the tensor itself through slices" in decision.reason
    assert f"(at {found[0].path}:11)" in decision.reason  # the write, where the manual step is taken
