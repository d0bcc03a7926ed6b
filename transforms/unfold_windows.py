"""``x.unfold(d, k, s)`` → ``_trt_unfold(x, d, k, s)`` (TRT311): windows that export on a dynamic axis.

Patch embeddings, descriptor pooling and block transforms cut an image into tiles with
``x.unfold(2, p, p).unfold(3, p, p)``. The TorchScript exporter converts ``unfold`` only when the
axis's length is fixed, so with a dynamic height or width the export stops. The inserted helper
(``trtcodemod/helpers/splitting.py``) is ``unfold`` itself outside an ONNX export and, while
exporting, the same view of the tensor made of ``narrow``, ``view`` and ``movedim`` where the
windows do not overlap (safe), or the windows gathered by computed indices where they overlap or
leave gaps (halo attention's ``kv.unfold(2, win, block)``; unsafe: a copy, not a view).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, code_of, has_star_args, short_code
from trtcodemod.helpers import canonical_name
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper, tensor_method_receiver

HELPER = "_trt_unfold"
#: TRT330's helper: ``unfold`` with a negative axis counted from the front, which ``HELPER`` also does.
AXIS_HELPER = "_trt_unfold_axis"
_KEYWORDS = ("dimension", "size", "step")


class UnfoldWindows(Rule):
    needs_text = (b"unfold",)
    info = RuleInfo(
        id="TRT311",
        name="unfold-windows",
        summary="`x.unfold(d, k, s)` does not export with a dynamic axis (TorchScript exporter); view the axis as "
                "whole windows (or gather overlapping ones) instead",
        doc="""\
What it finds: the tensor method `x.unfold(dimension, size, step)` (by position or by keyword).
Where size and step are written the same (`x.unfold(2, p, p)`, `x.unfold(3, 8, 8)`), the windows
tile the axis without overlapping, the way patch embeddings, local descriptors and block
transforms cut an image into tiles (`x.unfold(2, p, p).unfold(3, p, p)`). Where they differ, the
windows overlap or leave gaps: halo attention's `kv.unfold(2, win_size, block_size)`, sliding
frames (`unfold(-1, 400, 160)`). A chain of calls is one finding. Also TRT330's
`_trt_unfold_axis(x, d, k, s)`, which counts a negative axis from the front but still needs the
axis's length (after a pad, `nn.ReplicationPad1d` then `unfold(-1, ...)`, the exporter never has
it, dynamic axes or not): `_trt_unfold` counts the axis from the front too. Left alone: `F.unfold`
and `nn.Unfold` (im2col, another operation, which exports), and calls with unpacked arguments.

Why it hurts: the TorchScript exporter's `unfold` needs the length of the axis as a fixed
number. With a dynamic height or width (`dynamic_axes`) the export stops with
`SymbolicValueError: Unsupported: ONNX export of operator Unfold, input size not accessible`, so
there is no ONNX file at all; with a fixed length it writes one `Slice` per window and a
`Concat`. The dynamo exporter is not affected.

The rewrite: `_trt_unfold(x, d, k, s)`, an inserted helper that is `x.unfold(d, k, s)` itself
in eager mode, under `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`. While
`torch.onnx.export` runs, and when `k` and `s` are positive Python `int`s (or one traced size, below):
- windows that do not overlap (`s == k`): it cuts the axis to a whole number of windows
  (`x.narrow(d, 0, x.shape[d] // k * k)`, as `unfold` drops the remainder), views it as
  `(count, k)`, every size read from the tensor, and moves the window axis last: `Slice`,
  `Reshape` and `Transpose` in the graph, with the axis's length computed from the input's shape;
- other windows: it gathers them along the axis with the indices `start + i` (`start` every `s`
  from 0, `(length - k) // s + 1` of them, `i` below `k`), then views and moves the window axis
  the same way: `Range`, `Gather`, `Reshape` and `Transpose`.

Fix safety: safe for windows that do not overlap; unsafe for the others. Outside an ONNX export
nothing changes. While exporting, windows that do not overlap are the same view as `unfold`'s:
the same values, shape, strides and storage (an in-place write through it reaches `x` as
before), and the same gradients; only a result with no elements has contiguous strides where
`unfold` keeps `x`'s (nothing reads them: no element, and a graph has no strides). Gathered
windows have `unfold`'s values, shape and gradients, but they are a copy: an in-place write
through them while exporting no longer reaches `x` (the assumption), and they are contiguous,
so a `.view()` of them that `unfold`'s strides would refuse succeeds. Either way an axis shorter
than one window raises `unfold`'s own error, because the helper calls `unfold` first and drops
the result (the exported graph has no node for it). A size read from a shape (`c = x.shape[1]`,
`k = h // 4`: a 0-d integer tensor while the TorchScript exporter traces) that is also the step,
the same value, gives the view too, its count computed in the graph (kornia's CLAHE tiles); two
traced tensors for size and step may differ at another size, so they, a size or step that is
not a positive `int` otherwise, and inputs `unfold` refuses (a 0-d tensor, an axis out of range),
keep `unfold` while exporting too. The graph's nodes are parsed by every TensorRT release.""",
        fix=Safety.SAFE,
        assumption="for windows that overlap or leave gaps (size and step written differently): while exporting, "
                   "nothing writes into the windows in place (they are gathered, a copy of `x`, not a view); "
                   "windows that do not overlap are exact",
        fails_when=("a write into overlapping windows while exporting (`w = x.unfold(1, 3, 1); w[0] = 0`) "
                    "no longer reaches `x`",),
        examples=(
            Example(
                "def patches(x: torch.Tensor, p: int) -> torch.Tensor:\n"
                "    tiles = x.unfold(2, p, p).unfold(3, p, p)\n"
                "    return tiles.flatten(-2)\n",
                "def patches(x: torch.Tensor, p: int) -> torch.Tensor:\n"
                "    tiles = _trt_unfold(_trt_unfold(x, 2, p, p), 3, p, p)\n"
                "    return tiles.flatten(-2)\n",
            ),
            Example("blocks = image.unfold(dimension=-1, size=8, step=8)\n",
                    "blocks = _trt_unfold(image, -1, 8, 8)\n"),
            Example("frames = signal.unfold(-1, 400, 160)\n", "frames = _trt_unfold(signal, -1, 400, 160)\n",
                    unsafe=True),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.Tensor.unfold.html",
            "https://pytorch.org/docs/stable/generated/torch.Tensor.view.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        #: Calls already rewritten as the receiver of an outer one (`x.unfold(2, p, p).unfold(3, p, p)`).
        self._taken: set[cst.Call] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if node in self._taken or in_inserted_helper(self):
            return
        rewritten = self._rewritten(node)
        if rewritten is None:
            return
        new, tiles = rewritten
        # One finding for a chain: its calls begin at the same place, and one edit rewrites them all.
        if tiles:
            self.report(node, f"`{short_code(node)}`: the TorchScript exporter cannot convert `unfold` on an axis "
                              f"of dynamic length; `{HELPER}` views the axis as whole windows while exporting",
                        Fix({node: new}, helpers=(HELPER,)))
        else:
            self.report(node, f"`{short_code(node)}`: the TorchScript exporter cannot convert `unfold` on an axis "
                              f"of dynamic length; `{HELPER}` gathers the windows, which overlap or leave gaps, "
                              "while exporting (a copy, not a view: unsafe)",
                        Fix({node: new}, helpers=(HELPER,), safety=Safety.UNSAFE))

    def _windows(self, node: cst.Call) -> tuple[cst.BaseExpression, list[cst.Arg]] | None:
        """The receiver and the three arguments of a tensor's ``unfold(dimension, size, step)`` (or of
        TRT330's ``_trt_unfold_axis(x, dimension, size, step)``), or None."""
        if has_star_args(node):
            return None
        if _axis_helper_call(node):
            return node.args[0].value, list(node.args[1:])
        receiver = tensor_method_receiver(self, node, ("unfold",))
        if receiver is None or len(node.args) != 3:
            return None
        args = [argument(node, k, name) for k, name in enumerate(_KEYWORDS)]
        if any(a is None for a in args):
            return None  # another signature (`F.unfold`-like objects take other keywords)
        return receiver, args  # type: ignore[return-value]

    def _rewritten(self, node: cst.Call) -> tuple[cst.Call, bool] | None:
        """``node`` as a helper call (its receiver too, where that is such an ``unfold``), and whether
        every call of it cuts windows that do not overlap (size and step written the same); or None."""
        found = self._windows(node)
        if found is None:
            return None
        receiver, args = found
        _, size, step = args
        tiles = code_of(size.value).replace(" ", "") == code_of(step.value).replace(" ", "")
        inner = self._rewritten(receiver) if type(receiver) is cst.Call else None
        if inner is not None:
            self._taken.add(receiver)
            receiver, tiles = inner[0], tiles and inner[1]
        if _axis_helper_call(node):
            # The helper takes the same arguments: the name changes, the layout stays.
            first = node.args[0].with_changes(value=receiver)
            return node.with_changes(func=cst.Name(HELPER), args=[first, *node.args[1:]]), tiles
        if inner is None and receiver.lpar and type(receiver) not in (cst.Tuple, cst.GeneratorExp, cst.NamedExpr):
            receiver = receiver.with_changes(lpar=[], rpar=[])  # `(x + 1).unfold(...)`: an argument needs none
        return _helper_call(node, receiver, [a.value for a in args]), tiles


def _helper_call(node: cst.Call, receiver: cst.BaseExpression, values: list[cst.BaseExpression]) -> cst.Call:
    """``_trt_unfold(receiver, dimension, size, step)`` with the call's line breaks and comments:
    those before ``.unfold`` (a chain written one call a line, kornia's
    ``batch.unfold(1, c, c)  # comment`` then ``.unfold(2, ...)``) follow the receiver's comma, and
    the whitespace around the arguments stays where it was, by position."""
    dot = node.func.dot  # type: ignore[attr-defined]
    broken = [w for w in (dot.whitespace_before, dot.whitespace_after) if type(w) is cst.ParenthesizedWhitespace]
    comma = cst.Comma(whitespace_after=broken[0] if broken else cst.SimpleWhitespace(" "))
    if len(broken) == 2:  # a line break on both sides of the dot: one on each side of the comma
        comma = cst.Comma(whitespace_before=broken[0], whitespace_after=broken[1])
    args = [cst.Arg(value=receiver, comma=comma)]
    for value, written in zip(values, node.args):
        args.append(cst.Arg(value=value, comma=written.comma, whitespace_after_arg=written.whitespace_after_arg))
    return cst.Call(func=cst.Name(HELPER), args=args, whitespace_before_args=node.whitespace_before_args)


def _axis_helper_call(node: cst.Call) -> bool:
    """``_trt_unfold_axis(x, dimension, size, step)`` (or a fresh name for it), four plain arguments."""
    return (type(node.func) is cst.Name and canonical_name(node.func.value) == AXIS_HELPER
            and len(node.args) == 4 and all(a.keyword is None and not a.star for a in node.args))


RULES = (UnfoldWindows,)
