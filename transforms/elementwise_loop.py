"""TRT348: a loop nest over sizes whose every iteration works on its own elements, computed at once while tracing.

``for b in range(batch): for k in range(channels): ...`` reading a few numbers of element
``[b, k]``, deciding with an ``if`` and writing ``pts[b, k, 0] += ...`` is the guidance's
parallelizable loop: no iteration depends on another. A traced export unrolls it with the
example's sizes, reads each number into Python (``int(...)``) and keeps the example's branch.
The rewrite keeps the loop for eager code and computes all iterations at once while tracing
(:mod:`trtcodemod.transforms._loop_vectorize`).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import code_of, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._loop_vectorize import PREFIX, Decline, LoopNest, Vectorizer, loop_nest
from trtcodemod.transforms._runtime_scope import TRACING_HELPER, RuntimeScopeRule

_ASSUMPTION = ("every read the loop treats as one number reads one element (its index covers every axis), every "
               "row read or written with `:` is the rest of its tensor's axes, no "
               "value read into Python with `int()` is NaN or infinite (the loop raises there; the graph does not), "
               "and no trip count passes the end of a written tensor's axis")


class ElementwiseLoop(RuntimeScopeRule):
    needs_text = (b"for",)
    info = RuleInfo(
        id="TRT348",
        name="elementwise-loop",
        summary="a loop nest over sizes whose iterations each read and write only their own elements (`pts[b, k, 0] "
                "+= ...` after `int(pts[b, k, 0])` and an `if`): tracing unrolls it; compute all iterations at once",
        doc="""\
What it finds, in run-time code: a nest of up to three `for v in range(n)` loops (`range(0, n)`
too), each the only statement of the one outside it, whose innermost body is made of assignments
and `if`/`else` statements that work element by element:
- names bound to one number per iteration (`px = int(pts[b, k, 0])`, `d = hm[py, px + 1] -
  hm[py, px - 1]`), or to a slice of a tensor at the loop variables (`hm = heatmap[b, k, :, :]`, or
  `heatmap[b, k, :]` read as `hm[py, px]`), read later one element at a time;
- writes into the iteration's own elements of a tensor made before the loop: the loop
  variables first, in order, then fixed numbers (`pts[b, k, 0] += d.sign() * 0.25`);
- rows at the iteration: the loop variables first, then whole slices `:` and fixed numbers, read
  (`indicesc[i, :]`, or a name bound to `heat[i, :]` used whole) and written (`pts[i, :, 0] = ...`),
  where an iteration's numbers meet its rows as they broadcast (ViTPose's decode: `pts[i, :, 0] =
  indicesc[i, :] * dim1 * (boxes[i][3] - boxes[i][1]) + boxes[i][1]`); a row meeting a matrix, or a
  matrix written into a row, is not taken; a `clamp` bounded by an iteration's number
  (`tmp[i, :, 0].clamp(0, boxes_w[i])`, toolcv's keypoints kept in their boxes) is
  `torch.minimum(torch.maximum(...))` over all iterations, since `clamp` takes a tensor bound only
  with another; a trip count `len(t)` is `t.shape[0]` while tracing, where `t` is a tensor;
- a row at the iteration unpacked into its numbers (`x1, y1, x2, y2 = boxes[i]`, `boxes[i, :4]`):
  over all iterations the rows' columns, `boxes[_trt_i].unbind(1)` (a row of another length raises
  as the unpacking does); a number written into a tensor the statement right before the loop
  makes with one axis per loop, each the loop's trip count as written (`out = torch.zeros(n)`
  before `for i in range(n)`: `out[i] = area`), where a tensor of unknown rank may take a row;
- arithmetic, comparisons (chained ones too), `and`/`or`/`not`, `int()`, `abs()`,
  `int(round(float(v)))`, `math.floor`/`math.ceil`, element-wise tensor methods and `torch`
  functions (`sign`, `abs`, `exp`, `clamp`, `.to(device)`...), tuple assignments (`px, py = a, b`),
  and a vector of numbers per iteration (`torch.Tensor((a, b))`, `torch.FloatTensor([a, b])`,
  `torch.tensor([a, b])`) added to a row (`preds[i][j] += diff.sign() * 0.25`). Chained indexes
  (`hm[py][px + 1]`) are one index;
- the in-place forms of those: `preds[i, j].add_(v)` (`sub_`, `mul_`, `div_`) is the write
  `preds[i, j] += v`, and an in-place element-wise method (`sign_`, `mul_(0.25)`...) on a vector the
  iteration made with `torch.Tensor`/`FloatTensor`/`tensor`/`stack` changes that vector in both
  forms (the face-alignment network's `preds[i, j].add_(diff.sign_().mul_(.25))`). In place on
  anything else (a read of a tensor, which is a copy while tracing, or another name for the
  vector), or by a per-iteration number, is not taken.
A loop variable used as a number, a read of a written tensor at other elements, a name the loop
leaves for later code, a call not known to be element-wise, `break`/`continue`, a nest inside
another loop: not reported (nothing is rewritten).

Why it hurts: a traced export (the TorchScript exporter) runs the loops with the example's
sizes and records every iteration; each `int(...)` becomes the example's number and each `if`
the example's branch (TracerWarnings at those lines). The graph is right only for the traced
input: pytorchcv's `HeatmapMaxDetBlock` (SimplePose, AlphaPose: the quarter-pixel shift of each
keypoint towards its higher neighbour) exports with the example's keypoint positions. The
guidance's section on parallelizable loops asks for the loop to be written over all elements
at once.

The rewrite: `if _trt_tracing(): <all iterations at once> else: <the loop, unchanged>`. While
`torch.jit.trace` or `torch.export` records the model, each loop variable is an index tensor
(`torch.arange(n)`, laid along its own axis: `.view(-1, 1)`, `.view(1, -1)`), every number is a
tensor over all iterations, `int(x)` is `x.long()` (both truncate toward zero), an `if` is a mask
(`_trt_mask1 = (0 < px) & (px < w - 1)`), a read under a mask indexes `torch.where(mask, i, 0)`
(where the loop skipped a read, the graph reads a valid element and discards it), and a write
into the iterations' own elements is one slice of that block: `pts[:batch, :channels, 0] =
torch.where(mask, pts[:batch, :channels, 0] + d, pts[:batch, :channels, 0])`. Two measured traps
shape this: the TorchScript exporter writes an indexed assignment by index tensors that
broadcast into each other as a graph ONNX Runtime refuses, and one by index tensors keeps a
traced size of 1, so the index tensors are expanded to the nest's whole shape
(`.view(-1, 1).expand(batch, channels)`) and writes use basic slices. Statements keep their order,
so a later statement sees an earlier write as in the loop. Eager code, scripting (which compiles
both branches), fx and `torch.compile` run the loop.

Fix safety: unsafe; the assumptions are that every read the loop takes as one number indexes
every axis of its tensor (a read of a row would broadcast differently), and every row taken
with `:` the rest of them, that no number
read with `int()` is NaN or infinite (the loop raises `ValueError` there, the graph computes
on), and that each trip count is at most the written tensor's axis (the loop raises
`IndexError` past its end; a slice stops there). `migrate` applies it where the loop's lines hold a located problem (a traced constant or
the unrolled loop) and keeps it only if the rewritten model's graph matches eager mode on every
input set.

TensorRT versions: all.""",
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        fails_when=(
            "a read treated as one number indexes fewer axes than its tensor has (it is a row, not an element), or a "
            "row taken with `:` leaves further axes unwritten",
            "a value read with `int()` is NaN or infinite: the loop raises, the traced graph does not",
            "a trip count larger than the written tensor's axis: the loop raises `IndexError`, the slice stops at "
            "the axis's end",
        ),
        examples=(
            Example(
                "def refine(heatmap, pts, batch, channels, width, height):\n"
                "    for b in range(batch):\n"
                "        for k in range(channels):\n"
                "            hm = heatmap[b, k, :, :]\n"
                "            px = int(pts[b, k, 0])\n"
                "            py = int(pts[b, k, 1])\n"
                "            if (0 < px < width - 1) and (0 < py < height - 1):\n"
                "                pts[b, k, 0] += (hm[py, px + 1] - hm[py, px - 1]).sign() * 0.25\n"
                "    return pts\n",
                "def refine(heatmap, pts, batch, channels, width, height):\n"
                "    if _trt_tracing():\n"
                "        _trt_b = torch.arange(batch).view(-1, 1).expand(batch, channels)\n"
                "        _trt_k = torch.arange(channels).view(1, -1).expand(batch, channels)\n"
                "        px = pts[:batch, :channels, 0].long()\n"
                "        py = pts[:batch, :channels, 1].long()\n"
                "        _trt_mask1 = (((0 < px) & (px < (width - 1))) & ((0 < py) & (py < (height - 1))))\n"
                "        _trt_at1 = torch.where(_trt_mask1, py, 0)\n"
                "        _trt_at2 = torch.where(_trt_mask1, (px + 1), 0)\n"
                "        _trt_at3 = torch.where(_trt_mask1, (px - 1), 0)\n"
                "        pts[:batch, :channels, 0] = torch.where(_trt_mask1, (pts[:batch, :channels, 0] + ("
                "(heatmap[_trt_b, _trt_k, _trt_at1, _trt_at2] - heatmap[_trt_b, _trt_k, _trt_at1, _trt_at3]"
                ").sign() * 0.25)), pts[:batch, :channels, 0])\n"
                "    else:\n"
                "        for b in range(batch):\n"
                "            for k in range(channels):\n"
                "                hm = heatmap[b, k, :, :]\n"
                "                px = int(pts[b, k, 0])\n"
                "                py = int(pts[b, k, 1])\n"
                "                if (0 < px < width - 1) and (0 < py < height - 1):\n"
                "                    pts[b, k, 0] += (hm[py, px + 1] - hm[py, px - 1]).sign() * 0.25\n"
                "    return pts\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
            "https://pytorch.org/docs/stable/generated/torch.where.html",
            "https://numpy.org/doc/stable/user/basics.indexing.html#advanced-indexing",
            "https://github.com/osmr/imgclsmob/blob/master/pytorch/pytorchcv/models/common.py",
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        self._loops: list[cst.CSTNode] = []  # the loops the traversal is inside

    def visit_For(self, node: cst.For) -> None:
        outer = bool(self._loops)
        self._loops.append(node)
        if outer or not self.active():
            return
        nest = loop_nest(node)
        if nest is None or all(type(count) is cst.Integer for count in nest.counts):
            return  # a fixed trip count unrolls correctly
        try:
            lines = Vectorizer(nest, self.context.torch_name(), elementary=self._elementary(node, nest)).statements()
        except Decline:
            return
        if self._used_after(node, nest, lines):
            return
        try:
            rewritten = self._rewritten(node, lines)
        except cst.ParserSyntaxError:
            return  # a trip count written so that it cannot stand in a slice (a lambda, a starred call...)
        self.found(node, lambda: self._message(nest), Fix({node: rewritten}, safety=Safety.UNSAFE,
                                                           helpers=(TRACING_HELPER,)))

    def _elementary(self, node: cst.For, nest: LoopNest) -> frozenset[str]:
        """Names the statement just before the loop binds to a new tensor of one axis per loop variable, each the
        loop's trip count (``out = torch.zeros(boxes.shape[0])`` before ``for i in range(boxes.shape[0])``)."""
        function = self.context.function
        if function is None:
            return frozenset()
        before = None
        for block in walk(function):
            body = getattr(block, "body", None)
            if isinstance(body, (list, tuple)) and any(statement is node for statement in body):
                at = next(k for k, statement in enumerate(body) if statement is node)
                before = body[:at]
        names = set()
        counts = [code_of(c).strip() for c in nest.counts]
        for statement in reversed(before or []):
            if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 \
                    or type(statement.body[0]) is not cst.Assign or len(statement.body[0].targets) != 1 \
                    or type(statement.body[0].targets[0].target) is not cst.Name:
                break  # only the assignments right before the loop: nothing between rebinds or resizes them
            name, value = statement.body[0].targets[0].target.value, statement.body[0].value
            if _sized(value, counts, self.context):
                names.add(name)
        return frozenset(names)

    def leave_For(self, original_node: cst.For) -> None:
        self._loops.pop()

    def visit_While(self, node: cst.While) -> None:
        self._loops.append(node)

    def leave_While(self, original_node: cst.While) -> None:
        self._loops.pop()

    def _used_after(self, node: cst.For, nest: LoopNest, lines: list[str]) -> bool:
        """Does code after the loop read a name the loop binds (its variables, its per-iteration
        names), which the rewrite leaves holding other values?"""
        function = self.context.function
        if function is None:
            return True
        bound = set(nest.variables)
        for statement in nest.body:
            for inner in walk(statement):
                if type(inner) is cst.AssignTarget and type(inner.target) is cst.Name:
                    bound.add(inner.target.value)
        inside = {id(n) for n in walk(node)}
        seen = False
        for inner in walk(function.body):
            if inner is node:
                seen = True
            elif seen and id(inner) not in inside and type(inner) is cst.Name and inner.value in bound:
                return True
        return False

    def _rewritten(self, node: cst.For, lines: list[str]) -> cst.If:
        body = [cst.parse_statement(line + "\n") for line in lines]
        return cst.If(test=cst.parse_expression(f"{TRACING_HELPER}()"), body=cst.IndentedBlock(body=body),
                      orelse=cst.Else(body=cst.IndentedBlock(body=[node.with_changes(leading_lines=())])),
                      leading_lines=node.leading_lines)

    def _message(self, nest: LoopNest) -> str:
        loops = " / ".join(f"`for {v} in range({code_of(c).strip()})`" for v, c in zip(nest.variables, nest.counts))
        return (f"{loops} runs the same element-wise body on each iteration, reading and writing only its own "
                "elements: a traced export unrolls it with the example's sizes and keeps the example's numbers and "
                f"branches; while tracing, `{TRACING_HELPER}()` computes every iteration at once (index tensors, "
                "masks for `if`), the loop otherwise")


#: Factories whose positional arguments are the new tensor's sizes.
_FACTORIES = ("torch.zeros", "torch.ones", "torch.empty")


def _sized(value: cst.BaseExpression, counts: list[str], context) -> bool:
    """Is ``value`` ``torch.zeros(n)`` / ``ones`` / ``empty`` (sizes as arguments or one tuple, keywords other than
    sizes allowed) or ``torch.full((n,), v)`` whose sizes are the loop's trip counts as written?"""
    if type(value) is not cst.Call or any(a.star for a in value.args):
        return False
    name = context.refers_to(value.func, *_FACTORIES, "torch.full")
    positional = [a.value for a in value.args if a.keyword is None]
    if name is None or not positional:
        return False
    if name == "torch.full":
        if len(positional) != 2:
            return False
        positional = positional[:1]
    if len(positional) == 1 and type(positional[0]) in (cst.Tuple, cst.List):
        positional = [e.value for e in positional[0].elements]
    return [code_of(p).strip() for p in positional] == counts


RULES = (ElementwiseLoop,)

__all__ = ["ElementwiseLoop", "PREFIX"]
