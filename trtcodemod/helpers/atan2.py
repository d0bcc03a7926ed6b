"""``torch.atan2``, exported from operations TensorRT parses (Atan, Div, Abs, Min/Max, Where, comparisons).

ONNX has no ``Atan2``. Both PyTorch exporters (torch 2.13) lower ``torch.atan2`` to
``Atan(y / x)`` plus a quadrant correction that is wrong on edge inputs: ``atan2(0, -1)``
comes out as -pi instead of pi, ``atan2(0, 0)`` and ``atan2(inf, inf)`` as NaN (TorchScript
exporter) or 0 (dynamo exporter, which also turns NaN inputs into 0). ``_trt_atan2`` is
``torch.atan2`` itself everywhere except inside ``torch.onnx.export``, where it
takes ``_trt_atan2_onnx``: torch's answer on every input, edge values included.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_atan2(y, x):
    """``torch.atan2(y, x)``; while exporting to ONNX, the exact form TensorRT parses.

    Eager, scripted, fx-traced, compiled and ``torch.export``-ed code runs
    ``torch.atan2`` itself (same values, gradients and, tensors first, nearly the same
    speed). An fx ``Proxy`` records ``torch.atan2`` as the original call would, so the
    traced graph still scripts. A receiver of the method form that is not a tensor but
    has its own ``atan2`` keeps its method.
    """
    if torch.jit.is_scripting():
        return torch.atan2(y, x)
    # An fx Proxy has every method, yet stands for a tensor: it must record torch.atan2.
    if not isinstance(y, (torch.Tensor, torch.fx.Proxy)) and hasattr(y, "atan2"):
        return y.atan2(x)
    if _trt_onnx_exporting():
        return _trt_atan2_onnx(y, x)
    return torch.atan2(y, x)


def _trt_atan2_onnx(y, x):
    """``torch.atan2(y, x)`` built from Atan, Div, Abs, Min/Max, comparisons and Where.

    Same results as ``torch.atan2`` on every input: signed zeros (``atan2(-0., 1.)``
    is -0., ``atan2(0., -0.)`` is pi, ``atan2(-0., -0.)`` is -pi), infinities
    (``atan2(inf, inf)`` is pi/4, ``atan2(1., -inf)`` is pi), NaN in either argument,
    broadcasting and dtype promotion (integer inputs give the default float dtype).
    Values agree to within a few units in the last place: the angle is computed as
    ``atan(smaller / larger)`` of ``|y|`` and ``|x|``, which keeps the Atan argument in
    [0, 1] where it is accurate, then reflected into the right octant and quadrant.
    float16/bfloat16 are computed in float32 and rounded back, as torch does.
    """
    if not isinstance(y, torch.Tensor) or not isinstance(x, torch.Tensor):
        return torch.atan2(y, x)  # not tensors: keep torch's own behaviour (its TypeError)
    dtype = torch.result_type(y, x)
    if dtype.is_complex:
        return torch.atan2(y, x)  # unsupported by torch too: keep its error
    if not dtype.is_floating_point:
        dtype = torch.get_default_dtype()
    compute = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    if y.dtype != compute:
        y = y.to(compute)
    if x.dtype != compute:
        x = x.to(compute)
    ay = torch.abs(y)
    ax = torch.abs(x)
    # atan(smaller / larger) lies in [0, pi/4], where Atan is accurate and y / x cannot
    # overflow. 0/0 and inf/inf give NaN here; both are set below.
    angle = torch.atan(torch.minimum(ay, ax) / torch.maximum(ay, ax))
    # Reflections are written |offset - angle|: exact when the offset is 0, one rounding
    # otherwise. (No torch.where here: its usual rewrite into a blend is not exact.)
    steep = (ay > ax).to(compute)
    angle = torch.abs(steep * 1.5707963267948966 - angle)
    angle = angle.masked_fill((ay == 0) & (ax == 0), 0.0)
    infinity = float("inf")
    angle = angle.masked_fill((ay == infinity) & (ax == infinity), 0.7853981633974483)
    # The sign bit, -0.0 included: 1 / -0.0 is -inf.
    x_negative = ((x < 0) | (1 / x < 0)).to(compute)
    angle = torch.abs(x_negative * 3.141592653589793 - angle)
    y_negative = ((y < 0) | (1 / y < 0)).to(compute)
    angle = angle * (1 - 2 * y_negative)
    # NaN in, NaN out, whatever Min/Max do with NaN on the backend.
    angle = angle.masked_fill(torch.isnan(y) | torch.isnan(x), float("nan"))
    return angle if angle.dtype == dtype else angle.to(dtype)
