"""``torch.tensor_split`` at given indices (TRT306): exported as ONNX sequences; slice instead.

The rewrite calls an inserted helper (``trtcodemod/helpers/splitting.py``) that is
``torch.tensor_split`` outside an export and the same parts as basic slices while exporting.
Both the function form (through the file's imports) and the method form are taken; the
method name is torch's alone.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper, tensor_method_receiver

SPLIT_HELPER = "_trt_tensor_split"
SECTIONS_HELPER = "_trt_tensor_sections"
_MESSAGE = ("`tensor_split` exports as ONNX sequence operators (`SplitToSequence` or a `Loop` filling a sequence, "
            "then `SequenceAt`), which no TensorRT release parses")
#: The keyword names torch gives the split points and the axis.
_INDICES = ("indices", "indices_or_sections", "tensor_indices_or_sections")


class TensorSplit(Rule):
    needs_text = (b"tensor_split",)
    info = RuleInfo(
        id="TRT306",
        name="tensor-split",
        summary="`tensor_split` exports as ONNX sequence operators, which TensorRT never parses; take the parts as slices",
        doc="""\
What it finds: `torch.tensor_split(x, indices, dim)` and `x.tensor_split(indices, dim)` with
the split points written as a list or tuple (`(1,)`, `[h, 2 * h]`), or a number of sections
written as an integer (`tensor_split(x, 3)`), `dim` by position or keyword. Split points or
sections held in a name or a tensor (from the code alone, a list of points or a count: two
different overloads), and unpacked arguments are reported without a fix.

Why it hurts: the TorchScript exporter writes `tensor_split` with sequences, as a `Loop` that
fills a sequence (`SequenceEmpty`, `SequenceInsert`) or as `SplitToSequence`, each part then read
back with `SequenceAt`. No TensorRT release parses a sequence operator, so the engine build fails
at the first of them. (torch 2.13's dynamo exporter writes the points form as `Slice` nodes, but
a split into sections on a dynamic axis with the part sizes of the traced size: wrong elsewhere.) torchvision's MViT splits its class token off
this way in every pooling block (`torch.tensor_split(x, indices=(1,), dim=2)`, `mvit.py:87`):
70 sequence nodes in a four-block model.

The rewrite: `torch.tensor_split(x, (1,), dim=2)` → `_trt_tensor_split(x, [1], 2)`, an inserted
helper (the points as a list, which `torch.jit.script` types as `List[int]`). Outside
`torch.onnx.export` it is `torch.tensor_split` itself. While exporting it returns the parts as
basic slices along the axis, `x[:, :, :1]` and `x[:, :, 1:]`: `tensor_split` takes its points with
Python's slice rules (a negative point counts from the end, one past the end gives an empty
part, a point below the one before it an empty part), so the slices are the same parts, and
views of the same storage with the same strides; they export as `Slice` nodes, with split
points computed from sizes kept in the graph. `torch.tensor_split(x, 3, dim=1)` →
`_trt_tensor_sections(x, 3, 1)`: while exporting, the points torch cuts at, computed from the
axis's size in the graph (of `L` elements in `n` sections the first `L % n` parts hold `L // n + 1`).

Fix safety: safe. Eager, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export`
run `torch.tensor_split` itself (a Python call and two flag checks more). While exporting, an
input `tensor_split` refuses (a 0-d tensor, an axis out of range, points that are not numbers)
keeps `torch.tensor_split`, and its error.

TensorRT versions: all (no release parses ONNX sequence operators).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "class Pool(nn.Module):\n"
                "    def forward(self, x):\n"
                "        cls_token, x = torch.tensor_split(x, indices=(1,), dim=2)\n"
                "        return cls_token, self.pool(x)\n",
                "class Pool(nn.Module):\n"
                "    def forward(self, x):\n"
                "        cls_token, x = _trt_tensor_split(x, [1], 2)\n"
                "        return cls_token, self.pool(x)\n",
            ),
            Example("head, body, tail = feats.tensor_split([n, -n], -1)\n",
                    "head, body, tail = _trt_tensor_split(feats, [n, -n], -1)\n"),
            Example("thirds = torch.tensor_split(x, 3, dim=1)\n",
                    "thirds = _trt_tensor_sections(x, 3, 1)\n"),
            Example("parts = torch.tensor_split(x, self.points, dim=1)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.tensor_split.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
            "https://github.com/pytorch/vision/blob/main/torchvision/models/video/mvit.py",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        receiver = tensor_method_receiver(self, node, ("tensor_split",))
        if self.context.refers_to(node.func, "torch.tensor_split"):
            tensor, first = argument(node, 0, "input"), 1
        elif receiver is not None:
            tensor, first = cst.Arg(value=receiver), 0
        else:
            return
        points = next((a for a in (argument(node, first, k) for k in _INDICES) if a is not None), None)
        dim = argument(node, first + 1, "dim")
        known = {"input", "dim", *_INDICES}
        if has_star_args(node) or tensor is None or points is None \
                or any(a.keyword is not None and a.keyword.value not in known for a in node.args):
            self.report(node, f"{_MESSAGE}; take the parts as slices (not rewritten: unpacked, missing or other "
                        "arguments)")
            return
        display = points.value
        if isinstance(display, cst.Integer):  # a number of sections, an int by its spelling
            self._fix(node, SECTIONS_HELPER, tensor, points, dim)
            return
        if not isinstance(display, (cst.Tuple, cst.List)) or any(
                isinstance(e, cst.StarredElement) for e in display.elements):
            self.report(node, f"{_MESSAGE}; take the parts as slices (not rewritten: the points or the number of "
                        "sections are not written out as a list, a tuple or an integer)")
            return
        self._fix(node, SPLIT_HELPER, tensor, points.with_changes(value=_as_list(display)), dim)

    def _fix(self, node: cst.Call, helper: str, tensor: cst.Arg, points: cst.Arg, dim: cst.Arg | None) -> None:
        """Report ``node`` with its rewrite ``helper(tensor, points, dim)``, every argument by position;
        the call keeps its line breaks and the last argument's trailing comma."""
        args = [a.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT) for a in (tensor, points, dim) if a]
        separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args = [a if isinstance(a.comma, cst.Comma) else a.with_changes(comma=separator) for a in args[:-1]] \
            + [args[-1].with_changes(comma=node.args[-1].comma)]
        self.report(node, f"{_MESSAGE}; take the parts as slices while exporting (`torch.tensor_split` otherwise)",
                    Fix({node: node.with_changes(func=cst.Name(helper), args=args)}, helpers=(helper,)))


def _as_list(points: cst.Tuple | cst.List) -> cst.List:
    """The points as a list (``torch.jit.script`` types it ``List[int]``), their line breaks kept;
    a trailing comma goes (``(1,)`` becomes ``[1]``) unless a line break is written after it."""
    elements = list(points.elements)
    last = elements[-1].comma if elements else cst.MaybeSentinel.DEFAULT
    if isinstance(last, cst.Comma) and isinstance(last.whitespace_after, cst.SimpleWhitespace):
        elements[-1] = elements[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    if isinstance(points, cst.List):
        return points.with_changes(elements=elements)
    opening = points.lpar[0].whitespace_after if points.lpar else cst.SimpleWhitespace("")
    closing = points.rpar[0].whitespace_before if points.rpar else cst.SimpleWhitespace("")
    return cst.List(elements=elements, lbracket=cst.LeftSquareBracket(whitespace_after=opening),
                    rbracket=cst.RightSquareBracket(whitespace_before=closing))


RULES = (TensorSplit,)
