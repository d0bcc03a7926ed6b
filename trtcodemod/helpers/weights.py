"""Operators the TorchScript exporter or TensorRT cannot take, applied to a module's own weights only (TRT382).

Glow-style invertible 1x1 convolutions add ``slogdet(W) * h * w`` to a flow's log-likelihood (pyimgano's
FastFlow, normalizing-flow libraries); ``W`` is a parameter, so the value depends on no input. The TorchScript
exporter has no symbolic for ``aten::linalg_slogdet`` (nor for ``pinv``, ``erfinv``) and stops; it writes ``det`` and
``logdet`` as ONNX ``Det``, which TensorRT does not parse. While that exporter traces the model, these helpers compute
the operator outside the trace (no gradient), so the graph holds its value for the exported weights as a constant, as
the exporter's constant folding holds other computations on the weights alone; everywhere else they are the operator.
"""

import torch


def _trt_weights_slogdet(A):
    # type: (Tensor) -> Tuple[Tensor, Tensor]
    """``torch.slogdet(A)``; while the TorchScript ONNX exporter traces the model, computed outside the trace."""
    if torch.jit.is_scripting():
        return torch.slogdet(A)
    return _trt_weights_pair("torch.slogdet", A)


def _trt_weights_linalg_slogdet(A):
    # type: (Tensor) -> Tuple[Tensor, Tensor]
    """``torch.linalg.slogdet(A)``; while the TorchScript ONNX exporter traces the model, computed outside the
    trace."""
    if torch.jit.is_scripting():
        return torch.linalg.slogdet(A)
    return _trt_weights_pair("torch.linalg.slogdet", A)


def _trt_weights_det(A):
    # type: (Tensor) -> Tensor
    """``torch.det(A)``; while the TorchScript ONNX exporter traces the model, computed outside the trace."""
    if torch.jit.is_scripting():
        return torch.det(A)
    return _trt_weights_tensor("torch.det", A)


def _trt_weights_linalg_det(A):
    # type: (Tensor) -> Tensor
    """``torch.linalg.det(A)``; while the TorchScript ONNX exporter traces the model, computed outside the trace."""
    if torch.jit.is_scripting():
        return torch.linalg.det(A)
    return _trt_weights_tensor("torch.linalg.det", A)


def _trt_weights_logdet(A):
    # type: (Tensor) -> Tensor
    """``torch.logdet(A)``; while the TorchScript ONNX exporter traces the model, computed outside the trace."""
    if torch.jit.is_scripting():
        return torch.logdet(A)
    return _trt_weights_tensor("torch.logdet", A)


def _trt_weights_pinv(A):
    # type: (Tensor) -> Tensor
    """``torch.linalg.pinv(A)``; while the TorchScript ONNX exporter traces the model, computed outside the trace."""
    if torch.jit.is_scripting():
        return torch.linalg.pinv(A)
    return _trt_weights_tensor("torch.linalg.pinv", A)


def _trt_weights_erfinv(A):
    # type: (Tensor) -> Tensor
    """``torch.erfinv(A)``; while the TorchScript ONNX exporter traces the model, computed outside the trace."""
    if torch.jit.is_scripting():
        return torch.erfinv(A)
    return _trt_weights_tensor("torch.erfinv", A)


@torch.jit.unused
def _trt_weights_tensor(name: str, A):
    # type: (str, Tensor) -> Tensor
    """The torch function ``name`` of ``A`` (never runs scripted), outside the trace while the TorchScript ONNX
    exporter records the model."""
    return _trt_weights_call(name, A)


@torch.jit.unused
def _trt_weights_pair(name: str, A):
    # type: (str, Tensor) -> Tuple[Tensor, Tensor]
    """As :func:`_trt_weights_tensor`, for a function returning a pair (``slogdet``'s sign and log-determinant)."""
    return _trt_weights_call(name, A)


@torch.jit.unused
def _trt_weights_call(name: str, A):
    """Call the torch function ``name`` on ``A``. While the TorchScript ONNX exporter traces the model, the call runs
    with tracing suspended and without gradients, so its result enters the graph as a constant (a constant that
    required a gradient would stop the trace); the exporter's constant folding does the same to any other
    computation on the weights alone."""
    function = {
        "torch.slogdet": torch.slogdet, "torch.linalg.slogdet": torch.linalg.slogdet, "torch.det": torch.det,
        "torch.linalg.det": torch.linalg.det, "torch.logdet": torch.logdet, "torch.linalg.pinv": torch.linalg.pinv,
        "torch.erfinv": torch.erfinv,
    }[name]
    if not (torch.jit.is_tracing() and torch.onnx.is_in_onnx_export()):
        return function(A)
    state = torch._C._get_tracing_state()
    torch._C._set_tracing_state(None)
    try:
        with torch.no_grad():
            return function(A)
    finally:
        torch._C._set_tracing_state(state)
