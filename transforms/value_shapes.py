"""Shapes computed from tensor values: ``torch.arange(m.sum())``, ``x[:m.sum()]`` (TRT714, TRT715).

Both exporters keep such bounds in the graph, but TensorRT needs a range length or a
slice bound as a shape tensor, and a value computed from the data is an execution tensor.
Detect only; what counts as a value is decided in :mod:`trtcodemod.transforms._size_facts`.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, short_code
from trtcodemod.rules import Example, RuleInfo, Safety, spelled
from trtcodemod.transforms._size_facts import OPERATORS as _OPERATORS
from trtcodemod.transforms._size_facts import TRT_SHAPE_TENSORS as _TRT_SHAPE_TENSORS
from trtcodemod.transforms._size_facts import SizeRule as _SizeRule

# --- TRT714 ------------------------------------------------------------------------------


class ArangeFromValues(_SizeRule):
    needs_text = spelled("torch.arange", "torch.range")
    info = RuleInfo(
        id="TRT714",
        name="arange-from-values",
        summary="`torch.arange(mask.sum())`: a range whose length is computed from tensor values",
        doc="""\
What it finds, in forward code: `torch.arange(...)` (also `torch.range`) whose start,
end or step is a 0-d tensor computed from tensor values: a reduction without a dim
(`cond.sum()`, `x.max()`, `torch.count_nonzero(m)`), its `.long()`/`.int()`/`.clamp(...)`,
arithmetic on it, or a local holding one. Bounds read with `.item()` are TRT702's.

Why it hurts: both exporters keep the bound in the graph (ONNX `ReduceSum` → `Range`,
measured with torch 2.13, and ONNX Runtime gives the right result), but TensorRT
distinguishes shape tensors, computed on the host while the engine is set up, from
execution tensors, computed on the device by the layers. The length of a `Range` defines
an output shape, so TensorRT needs it as a shape tensor; a sum over the data is an
execution tensor. TensorRT either rejects the layer or has to treat every shape after it
as data-dependent, which costs memory planning and optimisation.

What to do: derive the count from a shape instead of a value. When the range numbers the
selected elements (`ids[cond] = torch.arange(cond.sum())`), compute the numbers at a fixed
size, `cond.long().cumsum(0) - 1` (right where `cond` is true), and blend them
(`torch.where(cond, numbers, ids)`); where a variable-length range is really needed,
`torch.arange(cond.nonzero().shape[0])` takes the count from a shape (the `NonZero`
output), at the cost of a data-dependent shape (TRT705).

Fix safety: none (detect only): the fixed-size form changes the shape of the result.
Based on TensorRT's shape-tensor rules; not measured on a TensorRT build here.""",
        fix=Safety.NONE,
        examples=(
            Example(
                "class Track(nn.Module):\n"
                "    def forward(self, ids, cond):\n"
                "        ids[cond] = torch.arange(cond.sum().long(), dtype=ids.dtype)\n"
                "        return ids\n"
            ),
        ),
        references=(_TRT_SHAPE_TENSORS, "https://onnx.ai/onnx/operators/onnx__Range.html", _OPERATORS),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not self._frames or not self.active() or has_star_args(node):
            return
        name = self.context.refers_to(node.func, "torch.arange", "torch.range")
        if name is None:
            return
        bounds = [argument(node, 0, "start"), argument(node, 1, "end"), argument(node, 2, "step")]
        if len([a for a in node.args if a.keyword is None]) == 1:
            bounds = [argument(node, 0, "end"), argument(node, None, "start"), argument(node, None, "step")]
        for bound in bounds:
            if bound is not None and self.is_value(bound.value):
                self.found(node, f"`{short_code(bound.value)}` is computed from tensor values: TensorRT needs a "
                           "range length as a shape tensor; number selected elements with a fixed-size "
                           "`cumsum` instead, or take the count from a shape")
                return


# --- TRT715 ------------------------------------------------------------------------------


class SliceFromValues(_SizeRule):
    info = RuleInfo(
        id="TRT715",
        name="slice-from-values",
        summary="`x[:mask.sum()]`: a slice bound computed from tensor values",
        doc="""\
What it finds, in forward code: a slice of a tensor (`x[a:b]`, `x[:, :n]`) whose start,
stop or step is a 0-d tensor computed from tensor values: a reduction without a dim
(`mask.sum()`, `scores.argmax()`), its `.long()`/`.int()`/`.clamp(...)`, arithmetic on it,
or a local holding one. Bounds read with `.item()` (TRT702) or taken from shapes are not
reported.

Why it hurts: both exporters keep the bound in the graph (ONNX `ReduceSum` → `Slice`,
measured with torch 2.13; with `.item()` the TorchScript exporter bakes it instead), but
the bound decides the output's shape, which TensorRT wants as a shape tensor; a value
computed on the device is an execution tensor, so the slice and everything after it get a
data-dependent shape, or the engine fails to build.

What to do: keep the shape fixed and mask instead (`x * (torch.arange(x.shape[0]) <
n)[:, None]`), or select with an index tensor (`x[torch.arange(x.shape[0])[:n]]`), or
compute the bound outside the model and pass it as an input (then it is a shape input of
the engine).

Fix safety: none (detect only): the fixed-size forms change the shape of the result.
Based on TensorRT's shape-tensor rules; not measured on a TensorRT build here.""",
        fix=Safety.NONE,
        examples=(
            Example(
                "class Select(nn.Module):\n"
                "    def forward(self, x, mask):\n"
                "        n = mask.sum()\n"
                "        return x[:n]\n"
            ),
        ),
        references=(_TRT_SHAPE_TENSORS, "https://onnx.ai/onnx/operators/onnx__Slice.html", _OPERATORS),
    )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self._frames or not self.active() or not self.is_tensor(node.value):
            return
        for element in node.slice:
            sl = element.slice
            if type(sl) is not cst.Slice:
                continue
            for bound in (sl.lower, sl.upper, sl.step):
                if bound is not None and self.is_value(bound):
                    self.found(node, f"slice bound `{short_code(bound)}` is computed from tensor values: TensorRT "
                               "needs it as a shape tensor; mask at a fixed size or index with `torch.arange`")
                    return


RULES = (ArangeFromValues, SliceFromValues)
