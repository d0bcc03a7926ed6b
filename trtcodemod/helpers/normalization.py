"""Local response normalization, exported without a squeeze the exporter must guard.

``F.local_response_norm`` (and ``nn.LocalResponseNorm``, which calls it) averages the squared
input over a window of channels with ``avg_pool2d``/``avg_pool3d`` on an added axis of size 1,
then drops that axis with ``squeeze(1)``. After the pooling the TorchScript exporter no longer
knows that axis is 1, so it exports the squeeze as an ONNX ``If`` (Squeeze in one branch,
Identity in the other) whose branches differ in rank, which TensorRT refuses. It also reads
``input.numel() == 0`` as a Python bool (a TracerWarning, the branch baked).
``_trt_local_response_norm`` is ``F.local_response_norm`` itself except inside
``torch.onnx.export``, where it computes the same operations and takes the added axis with
``[:, 0]``, a Gather of a constant index, instead, and reads the emptiness from ``nbytes``.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_local_response_norm(input: torch.Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                             k: float = 1.0) -> torch.Tensor:
    """``F.local_response_norm(input, size, alpha, beta, k)``; while exporting to ONNX, the same
    operations with the pooled channel axis taken by ``[:, 0]`` instead of ``squeeze(1)``.

    Eager, scripted, fx-traced, compiled and ``torch.export``-ed code runs
    ``F.local_response_norm`` itself: the same values, gradients, errors and
    ``__torch_function__`` overrides, and the input itself for an empty input. While exporting,
    a plain strided tensor of three or more axes takes :func:`_trt_local_response_norm_onnx`.
    """
    if torch.jit.is_scripting():
        return torch.nn.functional.local_response_norm(input, size, alpha, beta, k)
    if (
        _trt_onnx_exporting()
        and type(input) is torch.Tensor
        and input.layout == torch.strided
        and input.dim() >= 3
    ):
        return _trt_local_response_norm_onnx(input, size, alpha, beta, k)
    return torch.nn.functional.local_response_norm(input, size, alpha, beta, k)


def _trt_local_response_norm_onnx(input, size, alpha, beta, k):
    """torch's ``local_response_norm`` for a strided tensor of 3 or more axes, step for step, with
    two changes that leave every value as it was: the pooled axis, of size 1, is taken with
    ``[:, 0]`` instead of ``squeeze(1)``, and emptiness is read from ``input.nbytes`` (a Python
    int while tracing, ``numel()`` times the element size) instead of ``numel()`` (a traced value
    the exporter would convert to a bool, with a TracerWarning). An empty input is returned
    itself, as torch returns it."""
    if input.nbytes == 0:
        return input
    div = input.mul(input)
    if input.dim() == 3:
        div = div.unsqueeze(1)
        div = torch.nn.functional.pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = torch.nn.functional.avg_pool2d(div, (size, 1), stride=1)[:, 0]
    else:
        sizes = input.size()
        # torch views as (N, 1, C, D2, -1); for 4-D that is an Unsqueeze, which (unlike a Reshape
        # with -1) an empty batch can run through in the exported graph.
        div = div.unsqueeze(1) if input.dim() == 4 else div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = torch.nn.functional.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = torch.nn.functional.avg_pool3d(div, (size, 1, 1), stride=1)[:, 0]
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


class _TrtLocalResponseNorm(torch.nn.LocalResponseNorm):
    """``nn.LocalResponseNorm`` that exports without the squeeze ``If`` (same arguments,
    attributes, repr and state)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return _trt_local_response_norm(input, self.size, self.alpha, self.beta, self.k)
