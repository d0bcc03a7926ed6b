"""The safety contract as code: run a program before and after its rewrite and compare everything.

A fix called safe must keep, for every input the original accepts: values (bit for bit
in eager mode), dtype, shape, strides, device, ``requires_grad`` and gradients, aliasing
(a view stays a view of the same input, a copy stays a copy), and the exception raised
where the original raised. It must also keep working under ``torch.jit.script``,
``torch.fx`` (and scripting the traced graph), ``torch.compile``, ``torch.export`` and both
ONNX exporters wherever the original did. :func:`assert_same_run` and
:func:`toolchain_outcomes` check those.

Programs are modules with a class ``M``; they are written to files and imported, because
TorchScript reads a function's source from its file.
"""

from __future__ import annotations

import importlib.util
import itertools
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import torch

_counter = itertools.count()


def import_source(source: str, folder: Path) -> dict[str, Any]:
    """Write ``source`` to a new file under ``folder``, import it and return its namespace."""
    name = f"safety_program_{next(_counter)}"
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.__dict__


# --- one eager run ---------------------------------------------------------------------


@dataclass
class Run:
    """What one call did: its result or exception, the inputs afterwards, and their gradients."""

    inputs: list[Any]
    output: Any = None
    error: type[BaseException] | None = None
    grads: list[torch.Tensor | None] | None = None
    backward_error: type[BaseException] | None = None


def clone_input(value: Any) -> Any:
    """A fresh copy with the same dtype, strides, layout and ``requires_grad``."""
    if not isinstance(value, torch.Tensor):
        return value
    if value.is_quantized:
        return value.clone()
    copy = torch.empty_strided(value.size(), value.stride(), dtype=value.dtype, device=value.device)
    with torch.no_grad():
        copy.copy_(value)
    return copy.requires_grad_(value.requires_grad)


def run_once(fn: Callable[..., Any], inputs: list[Any]) -> Run:
    """Call ``fn`` on copies of ``inputs``; backpropagate a fixed gradient when the result has one."""
    copies = [clone_input(value) for value in inputs]
    run = Run(copies)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            run.output = fn(*copies)
        except Exception as error:  # noqa: BLE001 - the exception type is part of the contract
            run.error = type(error)
            return run
    outputs = [o for o in _flat(run.output) if isinstance(o, torch.Tensor) and o.requires_grad]
    if outputs:
        try:
            total = sum((o * _fixed_grad(o)).sum() for o in outputs)
            total.backward()
        except Exception as error:  # noqa: BLE001 - e.g. no backward for an integer result
            run.backward_error = type(error)
            return run
        run.grads = [c.grad if isinstance(c, torch.Tensor) else None for c in copies]
    return run


def _fixed_grad(output: torch.Tensor) -> torch.Tensor:
    """A deterministic, non-uniform output gradient (uniform ones would hide permutations)."""
    count = output.numel()
    grad = torch.arange(1, count + 1, dtype=torch.float64).remainder(7).sub(3).reshape(output.shape)
    return grad.to(output.dtype)


def _flat(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _flat(item)]
    return [value]


# --- comparing runs ----------------------------------------------------------------------


def assert_same_run(before: Run, after: Run, *, context: str = "", exception_types: bool = True) -> None:
    """Every property of the contract, for one input: raise AssertionError naming the first difference."""
    where = f" [{context}]" if context else ""
    if before.error is not None or after.error is not None:
        assert (before.error is None) == (after.error is None), \
            f"one raised, the other did not: {before.error} vs {after.error}{where}"
        if exception_types:
            assert before.error is after.error, f"exception {before.error} became {after.error}{where}"
        return
    _same_value(before.output, after.output, before.inputs, after.inputs, "output" + where)
    for index, (a, b) in enumerate(zip(before.inputs, after.inputs)):
        _same_value(a, b, before.inputs, after.inputs, f"input {index} after the call{where}")
    assert before.backward_error is after.backward_error, \
        f"backward raised {before.backward_error} before, {after.backward_error} after{where}"
    if before.grads is not None or after.grads is not None:
        assert before.grads is not None and after.grads is not None, f"gradient only on one side{where}"
        for index, (a, b) in enumerate(zip(before.grads, after.grads)):
            assert (a is None) == (b is None), f"gradient of input {index} exists on one side only{where}"
            if a is not None:
                _same_tensor(a, b, f"gradient of input {index}{where}")


def _same_value(a: Any, b: Any, inputs_a: list[Any], inputs_b: list[Any], what: str) -> None:
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), f"{what}: {type(a)} of {len(a)} vs {type(b)}"
        for index, (x, y) in enumerate(zip(a, b)):
            _same_value(x, y, inputs_a, inputs_b, f"{what}[{index}]")
        return
    if isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor), f"{what}: a tensor became {type(b)}"
        _same_tensor(a, b, what)
        for index, (input_a, input_b) in enumerate(zip(inputs_a, inputs_b)):
            if isinstance(input_a, torch.Tensor) and isinstance(input_b, torch.Tensor):
                assert _shares_memory(a, input_a) == _shares_memory(b, input_b), \
                    f"{what}: aliasing of input {index} changed (a view became a copy or the reverse)"
        return
    if hasattr(a, "__array__") and not isinstance(a, (str, bytes)):
        import numpy as np

        assert np.array_equal(np.asarray(a), np.asarray(b), equal_nan=a.dtype.kind == "f"), what
        return
    assert type(a) is type(b) and a == b, f"{what}: {a!r} vs {b!r}"


def _shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.is_quantized or b.is_quantized or a.layout != torch.strided or b.layout != torch.strided:
        return False
    if a.numel() == 0 or b.numel() == 0:
        return False
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _same_tensor(a: torch.Tensor, b: torch.Tensor, what: str) -> None:
    assert a.dtype == b.dtype, f"{what}: dtype {a.dtype} vs {b.dtype}"
    assert a.shape == b.shape, f"{what}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
    assert a.device == b.device, f"{what}: device {a.device} vs {b.device}"
    assert a.requires_grad == b.requires_grad, f"{what}: requires_grad {a.requires_grad} vs {b.requires_grad}"
    assert a.is_quantized == b.is_quantized, f"{what}: quantized on one side only"
    if a.is_quantized:
        assert a.q_scale() == b.q_scale() and a.q_zero_point() == b.q_zero_point(), f"{what}: quantization"
        a, b = a.int_repr(), b.int_repr()
    if a.layout == torch.strided and a.numel() > 1:
        assert a.stride() == b.stride(), f"{what}: strides {a.stride()} vs {b.stride()}"
    a, b = a.detach(), b.detach()
    if a.is_floating_point() or a.is_complex():
        same = (a == b) | (torch.isnan(a) & torch.isnan(b))
        same &= torch.signbit(a) == torch.signbit(b) if not a.is_complex() else same
        assert bool(same.all()), f"{what}: values differ at {(~same).nonzero()[:4].tolist()}: " \
                                 f"{a[~same][:4].tolist()} vs {b[~same][:4].tolist()}"
    else:
        assert torch.equal(a, b), f"{what}: values differ"


# --- toolchains ---------------------------------------------------------------------------


def toolchain_outcomes(module_type: type, inputs: list[Any], folder: Path) -> dict[str, Any]:
    """Result (or the exception type) of the program under each toolchain, on one input."""
    del folder  # scripting reads the class's own file
    results: dict[str, Any] = {}

    def attempt(name: str, build: Callable[[], Callable[..., Any]]) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fn = build()
                results[name] = fn(*[clone_input(v) for v in inputs])
            except Exception as error:  # noqa: BLE001 - recorded, compared by the caller
                results[name] = error

    attempt("script", lambda: torch.jit.script(module_type()))
    attempt("fx", lambda: torch.fx.symbolic_trace(module_type()))
    # A traced graph that scripted before must still script: fx must record what the original did.
    attempt("fx+script", lambda: torch.jit.script(torch.fx.symbolic_trace(module_type())))
    attempt("compile", lambda: torch.compile(module_type(), fullgraph=True, backend="eager"))
    attempt("export", lambda: torch.export.export(module_type(), tuple(clone_input(v) for v in inputs)).module())
    return results


def assert_same_toolchain_outcomes(before_type: type, after_type: type, inputs: list[Any], folder: Path, *,
                                   original_may_fail: bool = False) -> None:
    """Under each toolchain the rewritten program gives the original's tensors (NaN where it has NaN); where
    the original fails (allowed only with ``original_may_fail``), the rewrite fails with the same exception type."""
    before, after = toolchain_outcomes(before_type, inputs, folder), toolchain_outcomes(after_type, inputs, folder)
    assert set(before) == set(after) == {"script", "fx", "fx+script", "compile", "export"}
    for name, want in before.items():
        got = after[name]
        if isinstance(want, Exception):
            assert original_may_fail, f"{name}: the original fails: {want!r}"
            assert type(got) is type(want), f"{name}: {want!r} became {got!r}"
            continue
        assert not isinstance(got, Exception), f"{name}: {got!r}"
        for p, q in zip(want, got):
            assert torch.equal(p.nan_to_num(), q.nan_to_num()) and torch.equal(p.isnan(), q.isnan()), name
