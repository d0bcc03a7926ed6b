"""``torch.isin``, exported as a broadcast comparison (Unsqueeze, Reshape, Equal, Cast, ReduceSum).

The TorchScript exporter has no symbolic for ``aten::isin`` (torch 2.13, every opset): the
export fails. The guidance's rewrite compares every element with every test element and
asks whether any matched. ``_trt_isin`` is ``torch.isin`` itself everywhere except inside
``torch.onnx.export``, where it takes that comparison.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_isin(elements, test_elements, invert: bool = False):
    """``torch.isin(elements, test_elements, invert=invert)``; while exporting to ONNX, the
    same answer as ``(elements[..., None] == test_elements.flatten()).any(-1)``, counted.

    Equality is torch's ``==``, as ``isin``'s: NaN is in nothing, -0.0 is 0.0, and mixed
    dtypes are compared after the usual promotion. Empty ``elements`` give an empty result,
    empty ``test_elements`` all False. Bool and complex inputs, which ``torch.isin`` refuses,
    and Python numbers keep ``torch.isin`` (its error or result) while exporting too.
    The comparison holds ``elements.numel() * test_elements.numel()`` booleans: meant for
    the short lists of ids a model tests against (class ids, track ids).
    """
    if torch.jit.is_scripting():
        return torch.isin(elements, test_elements, invert=invert)
    if (_trt_onnx_exporting() and isinstance(elements, torch.Tensor) and isinstance(test_elements, torch.Tensor)
            and not elements.dtype.is_complex and not test_elements.dtype.is_complex
            and elements.dtype != torch.bool and test_elements.dtype != torch.bool):
        # A count, not ``any``: the dynamo graph's ``any`` over an empty axis says True.
        found = (elements.unsqueeze(-1) == test_elements.reshape(-1)).to(torch.int32).sum(-1, dtype=torch.int32) > 0
        return ~found if invert else found
    return torch.isin(elements, test_elements, invert=invert)
