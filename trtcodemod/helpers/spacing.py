"""``torch.linspace`` with a number of steps read at run time, exported without 0/0 at one step (TRT368).

The TorchScript exporter writes ``torch.linspace(start, end, steps)`` as ``Range(0, steps) * step + start``
with ``step = (end - start) / (steps - 1)``: at one step the graph divides 0 by 0, and the single value
is NaN (the most negative ``int64`` once cast with ``.long()``), where torch gives ``[start]``. The helper
is ``torch.linspace`` itself outside a TorchScript export and for a steps count the trace keeps as a
constant; while the exporter traces a run-time count, it computes the exporter's own range times step
with the divisor raised to at least 1.
"""

import torch


def _trt_linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    # type: (float, float, int, Optional[torch.dtype], Optional[torch.device], bool) -> Tensor
    """``torch.linspace(start, end, steps, ...)``; while the TorchScript exporter traces a run-time
    ``steps``, a range times a step whose divisor is at least 1."""
    if torch.jit.is_scripting():
        spaced = torch.linspace(start, end, steps, dtype=dtype, device=device)
        return spaced.requires_grad_() if requires_grad else spaced
    return _trt_linspace_eager(start, end, steps, dtype, device, requires_grad)


@torch.jit.unused
def _trt_linspace_eager(start, end, steps, dtype=None, device=None, requires_grad=False):
    """``torch.linspace``, or the range times a step while the TorchScript exporter traces a run-time
    ``steps`` (never runs when scripted)."""
    result = torch.linspace(start, end, steps, dtype=dtype, device=device, requires_grad=requires_grad)
    if not (isinstance(steps, torch.Tensor) and torch.jit.is_tracing() and torch.onnx.is_in_onnx_export()):
        return result
    if not result.is_floating_point():
        return result  # a dtype held in a name that is not a floating one: torch's own rounding, as before
    index = torch.arange(steps, device=result.device).to(torch.float32)
    step = (end - start) / torch.clamp(steps - 1, min=1)
    return (index * step + start).to(result.dtype)
