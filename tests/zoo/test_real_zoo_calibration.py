"""The zoo wrappers' BatchNorm calibration (``real_zoo.CALIBRATION``), frozen BatchNorm included.

A random-weight backbone whose normalization layers keep their default statistics shrinks its
activations layer by layer; the calibration gives every BatchNorm, torch's and the frozen kind
detection libraries write themselves, the statistics of the model's own activations.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import pytest
import torch
from support import REPO

BENCHMARKS = REPO / "benchmarks"


@pytest.fixture(scope="module")
def calibrate() -> Any:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        real_zoo = importlib.import_module("real_zoo")
    finally:
        sys.path.remove(str(BENCHMARKS))
    namespace: dict[str, Any] = {"torch": torch}
    exec(real_zoo.CALIBRATION, namespace)  # the text every calibrated wrapper holds
    return namespace["calibrate_batchnorm"]


class FrozenBatchNorm2d(torch.nn.Module):
    """Written as transformers' ``*FrozenBatchNorm2d`` and torchvision's: buffers only, no _BatchNorm."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.register_buffer("weight", torch.ones(n))
        self.register_buffer("bias", torch.zeros(n))
        self.register_buffer("running_mean", torch.zeros(n))
        self.register_buffer("running_var", torch.ones(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = self.weight.reshape(1, -1, 1, 1) * (self.running_var.reshape(1, -1, 1, 1) + 1e-5).rsqrt()
        return x * scale + (self.bias - self.running_mean * scale.flatten()).reshape(1, -1, 1, 1)


def _stack(norm: type, depth: int = 8) -> torch.nn.Sequential:
    torch.manual_seed(0)
    layers: list[torch.nn.Module] = []
    for _ in range(depth):
        conv = torch.nn.Conv2d(8, 8, 3, padding=1)
        torch.nn.init.normal_(conv.weight, std=0.01)  # each layer shrinks its input ~10 times
        torch.nn.init.zeros_(conv.bias)
        layers += [conv, norm(8), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers).eval()


def test_frozen_batchnorm_is_calibrated(calibrate: Any) -> None:
    model = _stack(FrozenBatchNorm2d)
    x = torch.rand(2, 8, 16, 16)
    with torch.no_grad():
        before = model(x).std().item()
    calibrate(model, lambda xb: model(xb), (1, 8, 16, 16))
    with torch.no_grad():
        after = model(x)
    assert before < 1e-6  # collapsed: what the zoo's DETR-family backbones did
    assert 0.2 < after.std().item() < 2.0
    norms = [m for m in model if isinstance(m, FrozenBatchNorm2d)]
    assert all(not m._forward_hooks for m in norms)  # the calibration's hooks are gone
    assert not torch.equal(norms[-1].running_var, torch.ones(8))
    # The last norm's statistics are those of its input: normalized, its channels are centred.
    features = model[:-2](x)
    with torch.no_grad():
        centred = ((features - norms[-1].running_mean.reshape(1, -1, 1, 1))
                   * (norms[-1].running_var.reshape(1, -1, 1, 1) + 1e-5).rsqrt())
    assert centred.mean(dim=(0, 2, 3)).abs().max().item() < 0.5


def test_frozen_and_torch_batchnorm_agree(calibrate: Any) -> None:
    # The same network with torch's BatchNorm2d and with the frozen kind gets the same statistics.
    frozen, plain = _stack(FrozenBatchNorm2d, 4), _stack(torch.nn.BatchNorm2d, 4)
    calibrate(frozen, lambda xb: frozen(xb), (1, 8, 16, 16))
    calibrate(plain, lambda xb: plain(xb), (1, 8, 16, 16))
    for f, p in zip(frozen, plain):
        if isinstance(p, torch.nn.BatchNorm2d):
            assert torch.allclose(f.running_mean, p.running_mean, rtol=1e-4, atol=1e-6)
            assert torch.allclose(f.running_var, p.running_var, rtol=1e-4, atol=1e-9)
            assert not p.training


def test_other_running_statistics_are_left_alone(calibrate: Any) -> None:
    # InstanceNorm with running statistics is a _NormBase, not a BatchNorm: not touched.
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 1), torch.nn.InstanceNorm2d(4, track_running_stats=True)).eval()
    before = model[1].running_mean.clone()
    calibrate(model, lambda xb: model(xb), (1, 3, 8, 8))
    assert torch.equal(model[1].running_mean, before)
