"""Pooling of an unbatched input → the same pooling of a batch of one while exporting (TRT325).

``F.max_pool2d`` / ``F.avg_pool2d`` / ``F.lp_pool2d`` take a ``(C, H, W)`` input as well as an
``(N, C, H, W)`` one (``F.max_pool3d`` / ``F.avg_pool3d`` a ``(C, D, H, W)`` one), and keypoint detectors
call them so on ``(B, H, W)`` score maps (SuperGlue's ``simple_nms``). The TorchScript exporter then
writes a MaxPool / AveragePool whose 2-D (3-D) attributes meet an input of one rank less, which ONNX
Runtime refuses at load ("Attribute dilations has incorrect size") and TensorRT as well. The helpers
(``trtcodemod/helpers/pooling.py``) pool the input with a batch axis of one added while exporting and
take it away by index: torch pools an unbatched input that way itself.

The rank is a fact of the run: a call is found where the recorded run (``migrate``, ``check --facts``)
saw its input with the unbatched rank, or where the graph check of the observed export placed such a
pooling at its line, or where the code writes the rank in the call itself (``x.reshape(b, h, w)``).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, method_call, short_code
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

#: function -> (helper, spatial dims, its parameters in order). ``return_indices`` of the max pools is not
#: among them: a call that passes it is reported without a fix.
_MAX = ("input", "kernel_size", "stride", "padding", "dilation", "ceil_mode")
_AVG = ("input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
_LP = ("input", "norm_type", "kernel_size", "stride", "ceil_mode")
_FUNCTIONS = {
    "torch.nn.functional.max_pool2d": ("_trt_unbatched_max_pool2d", 2, _MAX),
    "torch.max_pool2d": ("_trt_unbatched_max_pool2d", 2, _MAX),
    "torch.nn.functional.max_pool3d": ("_trt_unbatched_max_pool3d", 3, _MAX),
    "torch.max_pool3d": ("_trt_unbatched_max_pool3d", 3, _MAX),
    "torch.nn.functional.avg_pool2d": ("_trt_unbatched_avg_pool2d", 2, _AVG),
    "torch.nn.functional.avg_pool3d": ("_trt_unbatched_avg_pool3d", 3, _AVG),
    "torch.nn.functional.lp_pool2d": ("_trt_unbatched_lp_pool2d", 2, _LP),
}


class UnbatchedPool(Rule):
    needs_text = spelled(*_FUNCTIONS)
    requires = (ObservedFacts,)
    info = RuleInfo(
        id="TRT325",
        name="unbatched-pool",
        summary="2-D/3-D pooling of an unbatched input exports a MaxPool/AveragePool one rank short, which "
                "ONNX Runtime and TensorRT refuse; pool a batch of one while exporting",
        doc="""\
What it finds: calls of `F.max_pool2d`, `F.avg_pool2d`, `F.lp_pool2d`, `F.max_pool3d`,
`F.avg_pool3d` (and `torch.max_pool2d`, `torch.max_pool3d`), under any import alias, whose input
is unbatched: `(C, H, W)` for a 2-D pooling, `(C, D, H, W)` for a 3-D one. The rank is what a
recorded run (`migrate`, `check --facts`) saw at the call, or what the graph check of its export
located there; without a run, only where the call writes its input's rank itself
(`F.max_pool2d(heat.reshape(b, h, w), 3, 1, 1)`). Keypoint detectors suppress non-maxima this
way on `(B, H, W)` score maps: SuperGlue's `simple_nms` pools `scores` of shape `(b, h, w)` with
`F.max_pool2d(x, kernel_size=nms_radius*2+1, stride=1, padding=nms_radius)`.

Why it hurts: torch pools an unbatched input as a batch of one, but the TorchScript exporter
writes one MaxPool / AveragePool whose 2-D `kernel_shape`, `pads`, `strides` and `dilations` meet a
3-D input. ONNX Runtime refuses the graph at load ("Attribute dilations has incorrect size") and
TensorRT's parser refuses the node: the model exports and runs nowhere.

The rewrite: `F.max_pool2d(...)` → `_trt_unbatched_max_pool2d(...)` (and `_trt_unbatched_avg_pool2d`,
`_trt_unbatched_lp_pool2d`, `_trt_unbatched_max_pool3d`, `_trt_unbatched_avg_pool3d`), the arguments unchanged (the helpers have
torch's signatures, without `return_indices`). Outside `torch.onnx.export` the helpers are torch's
functions themselves, and under `torch.jit.script` too (their type comments carry torch's
`BroadcastingList2`/`BroadcastingList3` types, so an int or a sequence is taken as by torch).
While exporting a floating input of the unbatched rank, they pool `input.unsqueeze(0)` with the
same arguments and take the added axis away with `.select(0, 0)` (a Gather of a constant index,
never a Squeeze the exporter may guard with an `If`): a pooling of a 4-D (5-D) input, as torch
computes the unbatched one itself, so the values are torch's bit for bit (checked for kernels,
strides, `None` strides, padding, dilation, `ceil_mode`, `count_include_pad`,
`divisor_override`, zeros, negatives, inf and NaN). A batched input, or any input outside an
export, goes to torch's function as it is. A call that passes `return_indices` (TensorRT's
MaxPool has no Indices output) or `*args`/`**kwargs` that could pass it is reported without a
fix.

Fix safety: safe. Eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`
run torch's function itself (values, dtype, errors, gradients); the exported graph computes the
same pooling of a batch of one.""",
        fix=Safety.SAFE,
        examples=(
            Example("y = F.max_pool2d(heat.reshape(b, h, w), 3, stride=1, padding=1)\n",
                    "y = _trt_unbatched_max_pool2d(heat.reshape(b, h, w), 3, stride=1, padding=1)\n"),
            Example("y = torch.nn.functional.avg_pool3d(v.view(c, d, h, w), 2)\n",
                    "y = _trt_unbatched_avg_pool3d(v.view(c, d, h, w), 2)\n"),
            Example("y, i = F.max_pool2d(s.reshape(b, h, w), 3, 1, 1, return_indices=True)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.max_pool2d.html",
            "https://onnx.ai/onnx/operators/onnx__MaxPool.html",
            "https://github.com/magicleap/SuperGluePretrainedNetwork/blob/master/models/superpoint.py",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._observed: ObservedFacts = self.provider(ObservedFacts)

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        function = self.context.refers_to(node.func, *_FUNCTIONS)
        if function is None:
            return
        helper, spatial, parameters = _FUNCTIONS[function]
        name = function.rsplit(".", 1)[1]
        source = argument(node, 0, "input")
        if not (self._observed.located(node, self.info.id)
                or (source is not None and (_written_rank(source.value) == spatial + 1 or any(
                    len(shape) == spatial + 1 for shape in self._observed.shapes(source.value))))):
            return
        why = (f"`{name}` pools an unbatched input (rank {spatial + 1}): the exporter writes a "
               f"{'MaxPool' if 'max' in name else 'AveragePool'} whose {spatial}-D attributes meet it, which ONNX "
               "Runtime and TensorRT refuse")
        positional = [a for a in node.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value for a in node.args if a.keyword is not None}
        if has_star_args(node) or len(positional) > len(parameters) or keywords - set(parameters):
            self.report(node, f"{why}; not rewritten: `{short_code(node)}` may ask for `return_indices` or pass "
                              "arguments the helper does not take")
            return
        self.report(node, f"{why}; `{helper}` pools a batch of one while exporting",
                    Fix({node: node.with_changes(func=cst.Name(helper))}, helpers=(helper,)))


def _written_rank(value: cst.BaseExpression) -> int | None:
    """The rank the code gives ``value`` in the expression itself: ``x.reshape(b, h, w)``, ``x.view(c, d, h, w)``
    (one argument per axis, none starred), else None."""
    if type(value) is not cst.Call:
        return None
    parts = method_call(value)
    if parts is None or parts[1] not in ("reshape", "view") or not value.args:
        return None
    if any(a.star or a.keyword is not None for a in value.args):
        return None
    if len(value.args) == 1:
        only = value.args[0].value
        if type(only) in (cst.Tuple, cst.List) and not any(type(e) is cst.StarredElement for e in only.elements):
            return len(only.elements)
        return None
    return len(value.args)


RULES = (UnbatchedPool,)
