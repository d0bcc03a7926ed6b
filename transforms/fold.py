"""``F.fold(...)`` → ``_trt_fold(...)`` (TRT312): col2im exported as shifted block images added up.

The TorchScript exporter writes ``F.fold`` only from opset 18, as ONNX ``Col2Im``, which no
TensorRT release parses. The inserted helper (``trtcodemod/helpers/folding.py``) takes the same
arguments; it is ``F.fold`` itself outside an export and, while exporting, the same sums made of
reshapes, zero pads and additions. Matching goes through the file's imports
(``F.fold``, ``torch.nn.functional.fold``, ``from torch.nn.functional import fold``).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_fold"
_MESSAGE = ("`F.fold` exports only from opset 18, as ONNX Col2Im, which no TensorRT release parses; `_trt_fold` "
            "adds the blocks up as shifted block images while exporting (`F.fold` otherwise)")


class Fold(Rule):
    needs_text = (b"fold",)
    info = RuleInfo(
        id="TRT312",
        name="fold",
        summary="`F.fold` (col2im) exports only as ONNX Col2Im, which TensorRT does not parse; add the blocks up as "
                "shifted block images",
        doc="""\
What it finds: calls of `torch.nn.functional.fold` (col2im) through the file's imports
(`F.fold(...)`, `nn.functional.fold(...)`, `from torch.nn.functional import fold`), whatever
their arguments. VOLO's outlook attention, MobileViT-v2's patch folding, the overlap-add of
vocoders' inverse STFTs and sliding-window inference put blocks back into an image this way.
The module `nn.Fold` is not rewritten (TRT706 names it).

Why it hurts: the TorchScript exporter converts `F.fold` only from opset 18, as ONNX
`Col2Im`; at opset 17 the export stops, and no TensorRT release parses `Col2Im` (the
operator table), so there is no engine either way.

The rewrite: `F.fold(...)` → `_trt_fold(...)` with the same arguments, an inserted helper that
is `F.fold` itself in eager mode, under `torch.jit.script`, `torch.fx`, `torch.compile` and
`torch.export`. While `torch.onnx.export` runs it adds shifted block images: with stride `s`,
kernel row `i = q * s + r` of block `n` lands on image row `(n + q) * s + r`, so the kernel
rows `q * s` to `q * s + s - 1` of all blocks, laid out block after block (a reshape, zeros
padded where the kernel is shorter than the stride), are one image shifted down by `q * s`;
fold is the sum of `ceil(k / s)` such images per axis. No multiplication is involved (a
transposed convolution's zero weights would spread an infinity as NaN). The padding fold drops
and the rows and columns past the last block are cut away by a zero `Pad` and a `Slice`:
`Reshape`, `Transpose`, `Pad`, `Add`, `Slice` in the graph, every size computed from the input's
shape and `output_size`, so a dynamic height and width export.

Fix safety: unsafe, for `torch.jit.script` alone. Eager, `torch.fx`, `torch.compile` and
`torch.export` run `F.fold` itself (a Python call and two flag checks). TorchScript cannot
type the helper's `output_size` and `kernel_size` as fold's own "an int or a pair"
(`BroadcastingList2`, a name the inserted code cannot import), so a scripted caller of the
rewritten code fails to compile (the assumption). The exported graph gives fold's values, the
same sums in the same order (kernel rows, then columns), infinities and NaN kept where they are
and a lone `-0.0` summed to `0.0` as fold does. While exporting, the helper calls `F.fold` first
and drops the result, so an input fold refuses (a block count that does not match
`output_size`, channels that are not a multiple of the kernel's size) raises fold's own error;
integer inputs (fold has no kernel for them), a rank other than 2 or 3 and a dilation other
than 1 keep `F.fold` (and its export failure). Every TensorRT release parses the graph's nodes.""",
        fix=Safety.UNSAFE,
        assumption="the rewritten code is not compiled with `torch.jit.script` (the helper takes fold's sizes as "
                   "Python ints or pairs, which TorchScript cannot type)",
        fails_when=("a scripted module or function calls the rewritten `fold`: scripting fails to compile it",),
        examples=(
            Example(
                "def merge(cols: torch.Tensor, h: int, w: int) -> torch.Tensor:\n"
                "    return F.fold(cols, output_size=(h, w), kernel_size=3, padding=1, stride=2)\n",
                "def merge(cols: torch.Tensor, h: int, w: int) -> torch.Tensor:\n"
                "    return _trt_fold(cols, output_size=(h, w), kernel_size=3, padding=1, stride=2)\n",
                unsafe=True,
            ),
            Example("audio = nn.functional.fold(frames, (1, length), kernel_size=(1, win), stride=(1, hop))\n",
                    "audio = _trt_fold(frames, (1, length), kernel_size=(1, win), stride=(1, hop))\n", unsafe=True),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.Fold.html",
            "https://onnx.ai/onnx/operators/onnx__Col2Im.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or not self.context.refers_to(node.func, "torch.nn.functional.fold"):
            return
        # The helper takes fold's parameters by the same names and in the same order: only the
        # callee changes, whatever the arguments (keywords, unpacking).
        self.report(node, _MESSAGE, Fix({node: node.with_changes(func=cst.Name(HELPER))}, helpers=(HELPER,),
                                        safety=Safety.UNSAFE))


RULES = (Fold,)
