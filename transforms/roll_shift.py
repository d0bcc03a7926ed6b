"""``torch.roll`` by a shift computed at run time (TRT353): a gather while exporting.

The rewrite calls an inserted helper (``trtcodemod/helpers/rolling.py``) that is ``torch.roll``
outside an export and, while exporting, takes each rolled axis's elements at ``(arange(n) - shift)
mod n`` with ``index_select``, which both exporters keep in terms of the traced sizes and shifts.
Function (``torch.roll``) and method (``x.roll``) forms are taken; shifts written as integer
literals, or read from ``self`` (a module's configured shift), export as they are and are left.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, as_argument, bound_names, has_star_args, int_value
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import torch_operator_call

HELPER = "_trt_roll"


def _fixed(node: cst.BaseExpression, names: frozenset[str] = frozenset()) -> bool:
    """Shifts the exporters take as constants: integer literals, attributes of ``self`` (a module's
    configured shift) and ``names`` (locals bound only to such), negated or in a tuple or list of such."""
    if int_value(node) is not None:
        return True
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        return _fixed(node.expression, names)
    if type(node) in (cst.Tuple, cst.List):
        return all(type(e) is cst.Element and _fixed(e.value, names)  # type: ignore[attr-defined]
                   for e in node.elements)  # type: ignore[attr-defined]
    if type(node) is cst.Attribute and type(node.value) is cst.Name:
        return node.value.value == "self"
    return type(node) is cst.Name and node.value in names


class RollShift(Rule):
    needs_text = spelled("roll")
    info = RuleInfo(
        id="TRT353",
        name="roll-computed-shift",
        summary="`torch.roll` by a shift computed at run time (`h // 2`): the TorchScript export stops at a "
                "negated shift or bakes the example's, the dynamo export stops; gather the rolled positions",
        doc="""\
What it finds: `torch.roll(x, shifts, dims)` and `x.roll(shifts, dims)` whose shifts are not written
as constants: anything but integer literals, attributes of `self` (a module's configured shift,
as Swin's `-self.shift_size`) and locals bound only to those (`sh, sw = self.shift_size`, as
timm-style Swin blocks write it), such as a local computed from a size (`shift = window // 2`), a
parameter, or a call. A call with unpacked arguments is reported without a fix.

Why it hurts: both ONNX exporters write a roll as two slices and a concatenation whose bounds must be
constants. With a shift computed from a size, the TorchScript exporter (torch 2.13) stops where the
shift is negated ("Failed to export a node ... onnx::Neg ... (in list node ...) because it is not
constant"), and where it is not negated it reads the traced example's shift into the slices: the
graph rolls by that amount at every size, without a warning (a roll by `w // 2` exported at width 6
rolls by 3 at width 10 too). The dynamo exporter stops ("Error when translating node ...
aten.roll.default"). GMFlow's shifted-window attention rolls its queries, keys and values by half a
window, the window being the feature map's height and width over the number of splits
(`torch.roll(q, shifts=(-shift_size_h, -shift_size_w), dims=(1, 2))`), so GMFlow with swin attention
does not export with dynamic height and width.

The rewrite: `torch.roll(x, s, d)` → `_trt_roll(x, s, d)`, an inserted helper. Outside
`torch.onnx.export` it is `torch.roll` itself. While exporting, each rolled axis of length `n`
takes its elements at `(arange(n) - s) mod n` with `index_select` (ONNX Range, Sub, Mod, Gather),
which both exporters keep in terms of the traced sizes and shifts; without dims, the flattened tensor
is rolled and viewed back. The divisor is a tensor as long as the axis (`arange(n) * 0 + n`), so an
empty axis divides nothing (ONNX Runtime refuses an integer Mod by a zero scalar, even over no
elements). The rolled elements are the original's, moved: the graph's values equal eager mode's
exactly, at any size and shift (negative, zero, larger than the axis).

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run
`torch.roll` itself (values, dtype, gradients, errors); shifts and dims of different lengths go
to `torch.roll` while exporting too, which raises as before. The exported graph's Gather reads
every element once, where the original's Slice and Concat copy them once.

TensorRT versions: all (the export fails or bakes before TensorRT is involved; TensorRT parses
Range, Mod and Gather from 8.4).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def shifted(q, h, w, splits):\n"
                "    shift_h, shift_w = h // splits // 2, w // splits // 2\n"
                "    return torch.roll(q, shifts=(-shift_h, -shift_w), dims=(1, 2))\n",
                "def shifted(q, h, w, splits):\n"
                "    shift_h, shift_w = h // splits // 2, w // splits // 2\n"
                "    return _trt_roll(q, shifts=(-shift_h, -shift_w), dims=(1, 2))\n",
            ),
            Example("half = x.roll(x.shape[-1] // 2, -1)\n", "half = _trt_roll(x, x.shape[-1] // 2, -1)\n"),
            Example("y = torch.roll(x, *shift_and_dims)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.roll.html",
            "https://github.com/haofeixu/gmflow/blob/main/gmflow/transformer.py",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: Per function: local name -> whether every assignment to it so far binds a constant shift
        #: (`sh, sw = self.shift_size` in timm-style Swin blocks, whose roll exports as it is).
        self._constant: list[dict[str, bool]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._constant.append({})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._constant.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self._constant:
            return
        frame = self._constant[-1]
        fixed = _fixed(node.value, self._constant_names())
        for target in node.targets:
            for name in bound_names(target.target):
                frame[name] = fixed and frame.get(name, True)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self._constant and type(node.target) is cst.Name:
            self._constant[-1][node.target.value] = False

    def _constant_names(self) -> frozenset[str]:
        return frozenset(n for n, fixed in self._constant[-1].items() if fixed) if self._constant else frozenset()

    def visit_Call(self, node: cst.Call) -> None:
        found = torch_operator_call(self, node, ("roll",))
        if found is None:
            return
        _, tensor, first = found
        shifts = argument(node, first, "shifts")
        dims = argument(node, first + 1, "dims")
        if shifts is None and not has_star_args(node):
            return
        if shifts is not None and _fixed(shifts.value, self._constant_names()):
            return
        message = ("`roll` by a shift computed at run time: both exporters need its slices' bounds as constants (the "
                   "TorchScript export stops at a negated shift and otherwise bakes the traced example's, the "
                   "dynamo export stops)")
        if has_star_args(node) or tensor is None or shifts is None:
            self.report(node, f"{message}; gather the rolled positions while exporting instead (not rewritten: "
                              "unpacked arguments)")
            return
        known = {id(shifts), id(dims), id(tensor)}
        if any(id(arg) not in known for arg in node.args if arg is not tensor):
            self.report(node, f"{message}; gather the rolled positions while exporting instead (not rewritten: "
                              "other arguments)")
            return
        args = [cst.Arg(value=as_argument(tensor.value))]
        for arg in node.args:
            if arg is not tensor:
                args.append(arg)
        self.report(node, f"{message}; take the elements at `(arange(n) - shift) mod n` (ONNX Gather) while "
                          "exporting (`torch.roll` otherwise)",
                    Fix({node: node.with_changes(func=cst.Name(HELPER), args=args)}, helpers=(HELPER,)))


RULES = (RollShift,)
