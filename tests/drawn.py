"""The drawn tensors of the safety contract (tests/safety.py's comparator gets them): hypothesis
strategies over dtypes, shapes, layouts and edge values, and the settings the contract's tests
draw with. The contract across rules (``safety/``) and the rules' own contract tests in their
modules' files (``transforms/``) share them."""

from __future__ import annotations

import os
import warnings

import hypothesis.strategies as st
import torch
from hypothesis import HealthCheck, settings

#: Where the drawn tensors live: ``TRTCODEMOD_TEST_DEVICE=cuda`` runs the eager and toolchain
#: checks on a GPU (quantized tensors, CPU-only in torch, are then not drawn).
DEVICE = torch.device(os.environ.get("TRTCODEMOD_TEST_DEVICE", "cpu"))

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


# --- tensors --------------------------------------------------------------------------------

FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
INTEGERS = (torch.int64, torch.int32, torch.uint8)
SPECIALS = (0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1.0, -1.0)


@st.composite
def tensors(draw, *, dtypes=FLOATS + INTEGERS + (torch.bool,), min_dim: int = 0, max_dim: int = 4,
            grad: bool = True, quantized: bool = False, shape: tuple[int, ...] | None = None) -> torch.Tensor:
    """A tensor of a drawn dtype, shape, layout and values, edge values included."""
    if shape is None:
        rank = draw(st.integers(min_dim, max_dim))
        shape = tuple(draw(st.lists(st.integers(0, 5), min_size=rank, max_size=rank)))
    dtype = draw(st.sampled_from(dtypes))
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**16)))
    base = torch.randn(shape, generator=generator, dtype=torch.float64) * 3
    if base.numel() and draw(st.booleans()):
        picks = torch.randint(len(SPECIALS), shape, generator=generator)
        where = torch.rand(shape, generator=generator) < 0.3
        base = torch.where(where, torch.tensor(SPECIALS, dtype=torch.float64)[picks], base)
    if dtype == torch.bool:
        tensor = base > 0
    elif dtype.is_floating_point:
        tensor = base.to(dtype)
    else:
        tensor = torch.nan_to_num(base, nan=0.0, posinf=7, neginf=-7).round().clamp(-8, 250)
        tensor = tensor.clamp_min(0).to(dtype) if dtype == torch.uint8 else tensor.to(dtype)
    layout = draw(st.sampled_from(["contiguous", "transposed", "channels_last"]))
    if layout == "transposed" and tensor.dim() >= 2:
        tensor = tensor.transpose(-1, -2).contiguous().transpose(-1, -2)
    elif layout == "channels_last" and tensor.dim() == 4:
        tensor = tensor.contiguous(memory_format=torch.channels_last)
    tensor = tensor.to(DEVICE)
    if quantized and DEVICE.type == "cpu" and draw(st.integers(0, 5)) == 0 and tensor.dim() >= 3:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.quantize_per_tensor(torch.nan_to_num(base.float()), 0.1, 3, torch.quint8)
    if grad and tensor.is_floating_point() and draw(st.booleans()):
        tensor.requires_grad_(True)
    return tensor
