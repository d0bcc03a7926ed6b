"""A tensor written through a subscript and broadcast there, exported at the example's shape (TRT388).

``t[..., 2] = v`` broadcasts ``v`` to the shape of ``t[..., 2]`` in eager mode. The TorchScript exporter
broadcasts it with a ``Reshape``/``Expand`` to the shape the written part had in the traced example, so
at another size of a dynamic axis the graph fails. The rewrite hands the value through an inserted helper
(``trtcodemod/helpers/broadcasting.py``) that expands it to the written part's shape, read at run time,
while that exporter traces, and is the value itself everywhere else.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import short_code
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms.new_axis_write import SubscriptWriteRule, _has_call, _is_none, _number_literal, new_axes

HELPER = "_trt_broadcast_written"


class BroadcastWrite(SubscriptWriteRule):
    needs_text = (b"] =",)
    info = RuleInfo(
        id="TRT388",
        name="broadcast-write",
        summary="`t[..., k] = v` where `v` broadcasts into the written part: the TorchScript exporter broadcasts it "
                "to the example's shape, so the graph fails at other sizes; expand the value to the part's "
                "run-time shape while exporting",
        doc="""\
What it finds: an assignment of a tensor into a subscript of basic indexing (slices, integer literals,
`range` loop variables, an Ellipsis) in run-time code of a file that imports torch, where the value is
visibly a tensor (or a recorded run saw one there): `lane_mid[..., 2] = (x[:, 8:8 + lanes, :1, 3] * 5).floor()`
(a per-polyline state written into every point), `grid[..., 0] = torch.arange(w)[None, :]`, `out[:, 1:3] = row`.
Opt-in: where the value already has the written part's shape nothing is wrong, and `migrate` applies the
fix only at a line whose graph ONNX Runtime refuses.

Why it hurts: eager mode broadcasts the value to the written part's shape. The TorchScript exporter
records the write as an `index_put` and broadcasts the value there with a `Reshape` and an `Expand`
to the shape the written part had in the traced example. At any other size of a dynamic axis the
`Reshape` cannot hold the elements ("the input tensor cannot be reshaped to the requested shape"),
and TensorRT's parser keeps the example's shape. No warning is given: the graph matches eager mode at
the example's sizes only.

The rewrite: `t[..., 2] = v` -> `t[..., 2] = _trt_broadcast_written(v, t[..., 2])`, an inserted helper.
Outside a TorchScript export it returns `v` unchanged, and the assignment broadcasts it as before. While
the exporter traces, it returns `v.expand_as(t[..., 2])`: the `Expand`'s shape is read from the tensor in
the graph, and the write needs no broadcast of its own. A value with more axes than the written part
(leading ones, which the assignment drops) is returned unchanged.

Fix safety: safe. The value is evaluated first, as before; the subscript is evaluated once more, for
the helper's argument, before the assignment: basic indexing with no call (the rule requires it) makes
a view and has no effect, and an index out of range raises the same `IndexError` one step earlier, with
nothing in between. Eager mode, `torch.jit.script` (the helper returns its first argument),
`torch.fx`, `torch.compile`, `torch.export` and the dynamo exporter write the same value. Under the
TorchScript exporter the write holds the same elements; a value that does not broadcast raises in
`expand_as` as the assignment would. Cost: one view per write outside an export (about a microsecond).

In `migrate`: a graph that fails to run at another size is placed at the line of the node ONNX Runtime
refuses, and this rule's finding at that line is planned for it, applied and verified on every input set.

TensorRT versions: all (the exported `Reshape` holds the example's shape for every parser).""",
        fix=Safety.SAFE,
        opt_in=True,
        examples=(
            Example(
                "def mark_lights(x: torch.Tensor, lanes: int):\n"
                "    mid = x[:, 8:8 + lanes].clone()\n"
                "    mid[..., 2] = (x[:, 8:8 + lanes, :1, 3] * 5).floor()\n"
                "    return mid\n",
                "def mark_lights(x: torch.Tensor, lanes: int):\n"
                "    mid = x[:, 8:8 + lanes].clone()\n"
                "    mid[..., 2] = _trt_broadcast_written((x[:, 8:8 + lanes, :1, 3] * 5).floor(), mid[..., 2])\n"
                "    return mid\n",
            ),
            Example(
                "def grid(h: int, w: int):\n"
                "    ids = torch.zeros(h, w, 2)\n"
                "    ids[..., 0] = torch.arange(w)[None, :]\n"
                "    return ids\n",
                "def grid(h: int, w: int):\n"
                "    ids = torch.zeros(h, w, 2)\n"
                "    ids[..., 0] = _trt_broadcast_written(torch.arange(w)[None, :], ids[..., 0])\n"
                "    return ids\n",
            ),
        ),
        references=(
            "https://onnx.ai/onnx/operators/onnx__Expand.html",
            "https://pytorch.org/docs/stable/notes/broadcasting.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html#indexing",
        ),
    )

    def _write(self, target: cst.BaseExpression, value: cst.BaseExpression, assigned: bool) -> None:
        if type(target) is not cst.Subscript or not self._torch or in_inserted_helper(self):
            return
        if any(_is_none(e) for e in target.slice) or new_axes(target, self._loop_ints()) != []:
            return  # a new axis is TRT355's; an index that may be a tensor gathers a copy each time
        if _has_call(target) or _number_literal(value):
            return
        if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == HELPER:
            return
        if not self._evidence.evident(value) and not self._observed.written_tensor(target, value):
            return
        replacement = cst.Call(cst.Name(HELPER), [cst.Arg(value), cst.Arg(target.deep_clone())])
        self.found(target, f"a tensor written into `{short_code(target, 40)}`: where it broadcasts there, the "
                           "TorchScript exporter broadcasts it to the traced example's shape; "
                           f"`{HELPER}` expands it to the written part's run-time shape while exporting",
                   Fix({value: replacement}, helpers=(HELPER,)))


RULES = (BroadcastWrite,)
