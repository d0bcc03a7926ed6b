"""``x.as_strided(size, stride)`` → ``_trt_as_strided(x, size, stride)`` (TRT363): windows written by hand.

Audio code frames a signal without ``unfold`` by building the view itself: julius's ``unfold``
(``padded.as_strided(shape + [n_frames, kernel_size], strides + [stride, 1])``), torchaudio's Kaldi
``_get_strided`` (``waveform.as_strided((m, window_size), (window_shift * s, s))``). The TorchScript
exporter converts ``as_strided`` only with constant strides, and takes strides read from ``x.stride()`` as
the example's numbers, so with a dynamic length the export stops or keeps the example's layout. The inserted helper
(``trtcodemod/helpers/splitting.py``) is ``as_strided`` itself outside a TorchScript export and, while
exporting, where the view is windows of one axis of its input, those windows gathered by computed
indices (TRT311's form), with the count, window and step the code computed.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args, short_code
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper, tensor_method_receiver

HELPER = "_trt_as_strided"
_KEYWORDS = ("size", "stride", "storage_offset")


class StridedWindows(Rule):
    needs_text = (b"as_strided",)
    info = RuleInfo(
        id="TRT363",
        name="as-strided-windows",
        summary="`x.as_strided(size, stride)` does not export with strides that follow a dynamic axis "
                "(TorchScript exporter); where the view is windows of one axis, gather the windows instead",
        doc="""\
What it finds: the tensor method `x.as_strided(size, stride)` and `x.as_strided(size, stride,
storage_offset)` (by position or by keyword), the way signal code frames an axis by hand: julius's
`unfold` (`padded.as_strided(shape + [n_frames, kernel_size], strides)` with `strides` read from
`padded.stride(d)` and `[stride, 1]` appended), torchaudio's Kaldi `_get_strided`
(`waveform.as_strided((m, window_size), (window_shift * waveform.stride(0), waveform.stride(0)))`),
chunked attention (`x.as_strided(size=(n, chunks, size, d), stride=(x.stride(0), step * x.stride(1),
*x.stride()[1:]))`), Longformer's `_chunk` (a view as chunks of `2w` rows, then `as_strided` with the chunk
count doubled less one and the chunk stride halved: overlapping chunks, the rank kept). Left alone: `torch.as_strided(...)`, the in-place `as_strided_`,
`as_strided_scatter`, and calls with unpacked arguments.

Why it hurts: the TorchScript exporter writes `as_strided` as a `Gather` of the flattened input at
indices it computes from the sizes, read from the graph, and the strides, which must be constants. A
stride computed from a dynamic axis (julius's step, a traced size) stops the export ("Failed to export a
node ... prim::ListConstruct ... because it is not constant"); strides read from `x.stride()` are plain
Python numbers, the example's, so where one is a length (the stride of every axis before the framed one:
SnAG's batch) the graph reads the example's layout at every size, other elements than eager mode at
another length. A 1-D signal's strides are constants (Kaldi's frames): that graph already follows the
length, and the rewrite only trades its `Gather` for another.

The rewrite: `_trt_as_strided(x, size, stride[, storage_offset])`, an inserted helper that is
`x.as_strided(...)` itself in eager mode, under `torch.jit.script`, `torch.fx`, `torch.compile`,
`torch.export` and the dynamo exporter. While the TorchScript exporter traces, it reads the sizes
and strides (a traced size outside the trace: no node, no warning) and checks whether the view is,
at these numbers, windows of one axis `d` of `x`: the sizes and strides are `x`'s own with axis `d`
replaced by `count` windows every `step` elements (stride `step * x.stride(d)`) and one more axis
of `window` elements (stride `x.stride(d)`) anywhere, the storage offset is `x`'s, and every window
lies inside the axis; or, where the view keeps `x`'s rank, the same of `x` with two neighbouring axes
flattened into one (a view of the same storage where the outer axis steps over the whole inner one:
Longformer's and CogView's chunks, whose windows run across the chunk and row axes). That view is `x.unfold(d, window, step)`'s first `count` windows (with the
window axis moved where the code put it); the helper gathers them by the indices `j * step + i`
computed in the graph from the count, window and step the code passed (TRT311's gathered form, so a
count or step computed from the dynamic length stays computed), and moves the window axis. Anything
else (another layout, an offset, a window past the axis) keeps `as_strided`, which fails to export
as before.

Fix safety: unsafe. Outside a TorchScript export nothing changes. While exporting, the windows are
`as_strided`'s values and shape, but a copy, not a view: a write into them in place no longer reaches
`x`; and the layout is checked at the traced size only: the graph is the windows' at every size,
so the code must build windows at every size (julius's and Kaldi's do by construction), which
`migrate` verifies on its other input sets. The graph's nodes (`Range`, `Gather`, `Reshape`,
`Transpose`) are parsed by every TensorRT release.""",
        fix=Safety.UNSAFE,
        assumption="while exporting, the view is windows of one axis (or of two neighbouring axes taken as one) at "
                   "every size, as at the traced size, and nothing writes into it in place (the windows are gathered, a copy of `x`, not a view)",
        fails_when=("a write into the windows while exporting (`f = x.as_strided((3, 2), (1, 1)); f[0] = 0`) "
                    "no longer reaches `x`",
                    "sizes that are windows at the traced size but another layout at another size"),
        examples=(
            Example(
                "def frames(x: torch.Tensor, k: int, s: int) -> torch.Tensor:\n"
                "    n = (x.shape[-1] - k) // s + 1\n"
                "    x = x.contiguous()\n"
                "    return x.as_strided(x.shape[:-1] + (n, k), x.stride()[:-1] + (s, 1))\n",
                "def frames(x: torch.Tensor, k: int, s: int) -> torch.Tensor:\n"
                "    n = (x.shape[-1] - k) // s + 1\n"
                "    x = x.contiguous()\n"
                "    return _trt_as_strided(x, x.shape[:-1] + (n, k), x.stride()[:-1] + (s, 1))\n",
                unsafe=True,
            ),
            Example("w = wave.as_strided(size=(m, 400), stride=(160, 1))\n",
                    "w = _trt_as_strided(wave, (m, 400), (160, 1))\n", unsafe=True),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.as_strided.html",
            "https://pytorch.org/docs/stable/generated/torch.Tensor.unfold.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or has_star_args(node):
            return
        receiver = tensor_method_receiver(self, node, ("as_strided",))
        if receiver is None or not 2 <= len(node.args) <= 3:
            return
        args = [argument(node, k, name) for k, name in enumerate(_KEYWORDS[:len(node.args)])]
        if any(a is None for a in args):
            return  # another signature
        if receiver.lpar and type(receiver) not in (cst.Tuple, cst.GeneratorExp, cst.NamedExpr):
            receiver = receiver.with_changes(lpar=[], rpar=[])  # `(x + 1).as_strided(...)`: an argument needs none
        new = cst.Call(func=cst.Name(HELPER), args=[
            cst.Arg(value=receiver, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            *(cst.Arg(value=a.value, comma=written.comma, whitespace_after_arg=written.whitespace_after_arg)  # type: ignore[union-attr]
              for a, written in zip(args, node.args))], whitespace_before_args=node.whitespace_before_args)
        self.report(node, f"`{short_code(node)}`: the TorchScript exporter needs `as_strided`'s strides constant and "
                          f"takes those read from a tensor as the example's; `{HELPER}` gathers the windows of one axis it "
                          "makes while exporting (a copy, not a view: unsafe)",
                    Fix({node: new}, helpers=(HELPER,), safety=Safety.UNSAFE))


RULES = (StridedWindows,)
