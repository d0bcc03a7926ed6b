"""TRT399: the deprecated out-of-place ``Tensor.resize(*sizes)`` stops the TorchScript export; a reshape while
exporting.

``x.resize(b, w, h * c)`` (not ``resize_``) is a relic of the Variable era: an autograd Function that checks the
element count in Python and returns the contiguous tensor viewed at the sizes. lafhterlearn's handwriting encoder
flattens its VGG features so (``output.transpose(1, 3).resize(batch_size, w, h * f_maps)``), and the TorchScript
exporter stops there with ``RuntimeError: unordered_map::at``.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import has_star_args, helper_call, method_call, short_code
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms._size_facts import SizeRule

HELPER = "_trt_resize"


class LegacyResize(SizeRule):
    needs_text = (b".resize(",)
    info = RuleInfo(
        id="TRT399",
        name="legacy-resize",
        summary="the deprecated out-of-place `x.resize(*sizes)` (an autograd Function) stops the TorchScript export; "
                "the same values by `reshape` while exporting",
        doc="""\
What it finds, in run-time code: a call `t.resize(...)` (not `resize_`) with its sizes as positional arguments
(`x.resize(b, w, h * c)`), on a receiver the code shows to be a tensor (a
tensor's method or indexing, a name bound to one, or one the recorded run saw), or the result of a tensor method
such as `transpose`, `permute` or `view`. NumPy's `ndarray.resize` (in place,
returning None) and PIL's `Image.resize` are not tensors and are left. lafhterlearn 0.7.1's handwriting encoder
flattens its features so: `x = output.transpose(1, 3).resize(batch_size, w, h * f_maps)`.

Why it hurts: the out-of-place `resize` is deprecated (PyTorch warns) and runs as an autograd Function
(`torch.autograd._functions.Resize`) that compares the element counts in Python and returns the contiguous tensor
viewed at the sizes. The TorchScript exporter records it as a Python operator and stops: `RuntimeError:
unordered_map::at` at the call (torch 2.13), after a TracerWarning for the count's comparison.

The rewrite: `x.resize(b, w, n)` → `_trt_resize(x, [b, w, n])`. While `torch.onnx.export` runs (either exporter) the
helper returns `x.reshape(...)` with the same sizes; everywhere else it calls `x.resize(b, w, n)` itself, so eager
values, warnings and gradients are as before, and a scripted caller (TorchScript compiles the helper, its sizes one
list) runs `resize` as the original did.

Fix safety: safe. The helper reshapes only a `torch.Tensor` (anything else keeps its own `resize`). `reshape` of the
same sizes gives the values `resize` gives (the tensor in row-major order,
copied first where it is not contiguous, as `resize` copies), raises where the element counts differ as `resize`
does, and is differentiable the same way; the change is made only while exporting.

TensorRT versions: all (a Reshape).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def forward(self, x):\n"
                "    output = self.vgg(x)\n"
                "    b, c, h, w = output.size()\n"
                "    return output.transpose(1, 3).resize(b, w, h * c)\n",
                "def forward(self, x):\n"
                "    output = self.vgg(x)\n"
                "    b, c, h, w = output.size()\n"
                "    return _trt_resize(output.transpose(1, 3), [b, w, h * c])\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.Tensor.resize_.html",
            "https://pytorch.org/docs/stable/generated/torch.reshape.html",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or has_star_args(node) or not node.args:
            return
        parts = method_call(node)
        if parts is None or parts[1] != "resize" or any(a.keyword is not None for a in node.args):
            return
        receiver = parts[0]
        if self.context.qualified_names(receiver) or not (self.is_tensor(receiver) or _tensor_method(receiver)):
            return
        sizes = cst.List(elements=[cst.Element(a.value, comma=a.comma) for a in node.args])
        call = helper_call(HELPER, receiver, sizes)
        self.found(node, f"`{short_code(node)}`: the deprecated out-of-place `resize` runs as an autograd Function "
                         "that the TorchScript exporter stops at (\"unordered_map::at\"); "
                         f"`{HELPER}` reshapes to the same sizes while exporting",
                   Fix({node: call}, helpers=(HELPER,)))


#: Methods whose result, resized next, is a tensor in torch code (`output.transpose(1, 3).resize(...)`): the helper
#: leaves anything else's `resize` as it is, so a NumPy array met here costs nothing.
_TENSOR_METHODS = frozenset({"transpose", "permute", "contiguous", "view", "flatten", "squeeze", "unsqueeze",
                             "detach", "float", "narrow", "expand"})


def _tensor_method(receiver: cst.BaseExpression) -> bool:
    """``receiver`` is a call of a tensor method (``output.transpose(1, 3)``)."""
    parts = method_call(receiver) if type(receiver) is cst.Call else None
    return parts is not None and parts[1] in _TENSOR_METHODS


RULES = (LegacyResize,)
