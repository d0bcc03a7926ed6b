"""TRT703 state-in-forward: findings, look-alikes, and the premise checked by export (a traced
export never advances the state)."""

from __future__ import annotations

import numpy as np
import torch

from snippets import export_session, found
from support import load, rules_found


def test_state_in_forward_positives() -> None:
    code = """
    class Temporal(nn.Module):
        def forward(self, x):
            self.frame_idx += 1
            self.prev = x
            self.memory[0] = x
            self.bank.queue = x
            self.count.add_(1)
            self.frames.append(x)
            self.h, self.c = x, x
            setattr(self, "last", x)
            self._update(x)
            return x

        def _update(self, x):
            self.ema.mul_(0.9).add_(x)
    """
    rules = found(code)
    assert rules == ["TRT703"] * 10  # one per state target; `self.h, self.c = ...` counts twice


def test_state_in_forward_negatives() -> None:
    code = """
    class Temporal(nn.Module):
        def __init__(self):
            super().__init__()
            self.frame_idx = 0
            self._build()

        def _build(self):
            self.table = torch.zeros(3)

        def reset(self):
            self.frame_idx = 0

        def forward(self, x):
            buf = torch.zeros(3)
            buf[0] = 1
            y = x + self.frame_idx
            if self.training:
                self.running_mean.mul_(0.9).add_(x.mean())
                self.num_batches += 1
            elif torch.onnx.is_in_onnx_export():
                pass
            else:
                self.calls = 1
            return y * buf.sum()

    class Tracker:
        def forward(self, x):
            self.frame_idx += 1  # not a module: holding state is its job
            return x
    """
    assert found(code) == []


def test_a_method_installed_as_forward_is_forward_code() -> None:
    # YOLOv7's `Model.fuse()`: `m.forward = m.fuseforward`; RepVGG-style `self.forward = self.forward_deploy`.
    code = """
    class Head(nn.Module):
        def forward(self, x):
            return x

        def fuseforward(self, x):
            self.calls += 1
            return x

        def deploy(self):
            self.forward = self.forward_deploy

        def forward_deploy(self, x):
            self.last = x
            return x

        def unused(self, x):
            self.seen = x
            return x

    class Model(nn.Module):
        def fuse(self):
            for m in self.modules():
                m.forward = m.fuseforward
            other.forward = m.unused  # another object's method: not this one's forward
            return self
    """
    assert found(code) == ["TRT703"] * 2


def test_module_classes_recognised() -> None:
    body = "    def forward(self, x):\n        self.n = x\n        return x\n"
    code = (
        "from mmcv.runner import BaseModule\nfrom mylib import Layer\n"
        f"class A(nn.Module):\n{body}class B(A):\n{body}class C(BaseModule):\n{body}"
        f"class D(nn.Sequential):\n{body}class E(Layer):\n{body}class G(object):\n{body}"
        f"class H(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        ctx.x = x\n        return x\n"
    )
    assert found(code) == ["TRT703"] * 4


def test_state_premise_export_never_advances() -> None:
    code = """
    import torch
    from torch import nn

    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.frame_idx = 0

        def forward(self, x):
            self.frame_idx += 1
            return x * self.frame_idx
    """
    model = load(code, "Counter")()
    session = export_session(model, (torch.ones(2),), ["x"])
    runs = [session.run(None, {"x": np.ones(2, np.float32)})[0] for _ in range(3)]
    assert all(np.array_equal(r, runs[0]) for r in runs)  # the graph has no counter
    eager = [model(torch.ones(2)) for _ in range(3)]
    assert not torch.equal(eager[0], eager[2])  # the module does
    assert rules_found(code) == ["TRT703"]
