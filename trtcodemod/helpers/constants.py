"""Tensors updated in place where the TorchScript exporter loses the update, written so that it follows it.

While tracing, ``torch.tensor([...])`` (and ``torch.as_tensor`` of Python data) is recorded as a
constant. An in-place update of it afterwards (``t += y``, ``t.add_(y)``, ``t[0] = v``) is traced,
but the ONNX graph the TorchScript exporter writes reads the constant as it was built: the update
is lost (torch 2.13; kornia's CLAHE: ``j_idxs = torch.tensor([...]); j_idxs += j_floor``, whose
indices then point past the lookup tables). ``_trt_updatable`` is its argument itself everywhere
except inside ``torch.onnx.export``, where it is a ``clone()``: a node of the graph, whose updates
the graph keeps.

The forward of a ``torch.autograd.Function`` is the other place: the exporter records the Function
as one node holding the trace of its ``forward`` and inlines that trace, losing its in-place writes
(pytorchcv's iSQRT-COV fills Newton-Schulz buffers with ``yi[:, i, :, :] = ...``: the graph reads
zeros). ``_trt_traced_forward`` decorates the class so that its ``apply`` runs ``forward`` as plain
code while exporting.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_updatable(value: torch.Tensor) -> torch.Tensor:
    """``value``; while exporting to ONNX, ``value.clone()`` (a fresh tensor the trace records)."""
    if torch.jit.is_scripting():
        return value
    if isinstance(value, torch.Tensor) and _trt_onnx_exporting():
        return value.clone()
    return value


class _TrtForwardContext:
    """The ``ctx`` a ``torch.autograd.Function``'s ``forward`` gets when ``_trt_traced_forward`` runs it
    while exporting: it takes what ``forward`` may do with its context (save tensors, mark outputs,
    keep attributes for ``backward``) and keeps none of it for a backward pass (an export has none)."""

    def __init__(self, args: tuple) -> None:
        self.needs_input_grad = tuple(isinstance(a, torch.Tensor) and a.requires_grad for a in args)
        self.materialize_grads = True
        self.to_save: tuple = ()

    def save_for_backward(self, *tensors: object) -> None:
        self.to_save = tensors

    def save_for_forward(self, *tensors: object) -> None:
        pass

    def mark_dirty(self, *tensors: object) -> None:
        pass

    def mark_non_differentiable(self, *tensors: object) -> None:
        pass

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


def _trt_traced_forward(cls):
    """``cls`` (a ``torch.autograd.Function`` subclass), whose ``apply`` runs ``forward`` as plain code
    while ``torch.onnx.export`` traces it, and is the class's own ``apply`` everywhere else.

    The TorchScript exporter records an autograd Function as one node holding the trace of its
    ``forward`` and inlines that trace into the graph; the inlining loses the in-place writes of the
    trace (``buf[:, i] = y``, ``buf.add_(y)``: the graph reads the tensor as it was before them, or the
    export fails). Traced as plain code, the writes are followed as anywhere else in a model. A class
    with a ``symbolic`` (its own ONNX form) keeps it."""
    previous = cls.__dict__.get("apply")

    def apply(klass, *args, **kwargs):
        if not torch.jit.is_scripting() and _trt_onnx_exporting() and not hasattr(klass, "symbolic"):
            with torch.no_grad():  # as in `apply`: forward runs with gradients off
                if klass.setup_context is torch.autograd.Function.setup_context:
                    return klass.forward(_TrtForwardContext(args), *args, **kwargs)
                return klass.forward(*args, **kwargs)  # a forward without ctx (`setup_context` keeps the state)
        if previous is not None:
            return previous.__get__(None, klass)(*args, **kwargs)
        return super(cls, klass).apply(*args, **kwargs)

    cls.apply = classmethod(apply)
    return cls


def _trt_legacy_empty(*sizes, device=None):
    """``torch.Tensor(*sizes)`` (``device=`` passed on where given): a new tensor of these sizes, of the
    default dtype, its values uninitialised; while tracing, ``torch.empty`` of the same sizes and dtype.

    The legacy constructor reads each size into a Python int, so the trace records its result as a
    constant of the example's sizes (a ``TracerWarning``: "torch.Tensor results are registered as
    constants"); ``torch.empty`` takes the traced sizes themselves and the graph follows the input.
    Outside a trace it is the legacy constructor itself (it alone keeps the device of a default tensor
    type set with ``torch.set_default_tensor_type``, and ignores ``torch.set_default_device``)."""
    if torch.jit.is_tracing():
        return torch.empty(*sizes, dtype=torch.get_default_dtype(), device=device)
    if device is None:
        return torch.Tensor(*sizes)
    return torch.Tensor(*sizes, device=device)
