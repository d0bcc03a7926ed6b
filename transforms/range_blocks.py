"""A batch-index column built one block per sample (TRT359): ``torch.cat([torch.full(size, i) for i in range(n)])``.

The rewrite hands the comprehension, as written, to an inserted helper (``trtcodemod/helpers/tiling.py``) that
concatenates it outside an export and, while exporting, builds the same tensor from ``arange(n)`` broadcast over
the first block's shape, whose sizes the trace keeps.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import int_value, mentions_name, plain_read, strip_parens
from trtcodemod.rules import Example, Fix, RuleInfo, Safety, spelled
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule

HELPER = "_trt_range_blocks"

_CAT = ("torch.cat", "torch.concat", "torch.concatenate")


class RangeBlocks(RuntimeScopeRule):
    needs_text = spelled("torch.full")
    info = RuleInfo(
        id="TRT359",
        name="range-blocks",
        summary="`torch.cat([torch.full(size, i) for i in range(n)])` (a batch-index column per sample): a traced "
                "export keeps the example's number of blocks; build it from `arange(n)` while exporting",
        doc="""\
What it finds: a concatenation along the first axis of blocks filled with the index of a `range`,
`torch.cat([torch.full([Nprime // B, 1], ix, device=x.device, dtype=torch.long) for ix in range(B)])`:
the batch-index column lift-splat-shoot's voxel pooling puts beside each point's voxel coordinates
(`src/models.py:210-211`, copied by the LSS-based repositories: HDMapNet, BEVDet, MIT HAN Lab's and
ADLab-AutoDrive's BEVFusion, on one line, two or six) before it scatters the points into the BEV
grid. The fill is the loop's index itself, the block's shape and the `dtype=`/`device=`
arguments (no others) do not mention it, and the count is a plain expression (a name, an attribute,
`x.shape[0]`).

Why it hurts: a traced export runs the comprehension with the example's count and records one
`full` per block, so the graph concatenates the example's number of blocks at every batch size,
silently (no TracerWarning). Measured on lift-splat-shoot with a dynamic batch (torch 2.13,
TorchScript exporter): at batch 3 the column has the rows of batch 2, and ONNX Runtime refuses the
Concat that joins it to the coordinates on the next line ("Non concat axis dimensions must match").

The rewrite: `torch.cat([...])` → `_trt_range_blocks([...], B)`, an inserted helper given the
comprehension as written and the range's count. Outside `torch.onnx.export`, and under
`torch.jit.script`, it is `torch.cat` of the blocks: the comprehension runs as before (its values,
dtype and device, and its errors: no block at all raises as `torch.cat([])` does, a block shape that
divides by the count is never computed). While exporting, with at least one block of at least one
axis, `arange(B)` viewed as `(B, 1, ...)`, expanded to `(B, *block.shape)`, reshaped to
`(B * block.shape[0], *block.shape[1:])` and cast to the block's dtype: block `i` holds `i` in every
element, and the trace keeps `B` and the block's sizes (measured: equal to eager mode
in ONNX Runtime at other batch sizes, with the TorchScript exporter). The traced blocks are left unused,
and the exporter drops them. The dynamo exporter specializes the count where the comprehension runs
`range(B)`, before the helper, as it does for the original: its graph is the original's.
`migrate` plans the fix where ONNX Runtime refuses a node of the same file (the Concat that meets the
column is on another line).

Fix safety: safe. The count is evaluated twice, and is plain: nothing can tell.

TensorRT versions: all (the count is baked in before TensorRT sees the graph).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "class Pool(nn.Module):\n"
                "    def forward(self, x):\n"
                "        B, N, C = x.shape\n"
                "        batch_ix = torch.cat([torch.full([N, 1], ix, device=x.device, dtype=torch.long) "
                "for ix in range(B)])\n"
                "        return batch_ix\n",
                "class Pool(nn.Module):\n"
                "    def forward(self, x):\n"
                "        B, N, C = x.shape\n"
                "        batch_ix = _trt_range_blocks([torch.full([N, 1], ix, device=x.device, dtype=torch.long) "
                "for ix in range(B)], B)\n"
                "        return batch_ix\n",
            ),
            Example(
                "class Pool(nn.Module):\n"
                "    def forward(self, x, counts):\n"
                "        return torch.cat([torch.full([counts[ix], 1], ix) for ix in range(x.shape[0])])\n"
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.full.html",
            "https://pytorch.org/docs/stable/generated/torch.jit.trace.html",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not self._torch or not self.context.refers_to(node.func, *_CAT):
            return
        blocks = self._blocks(node)
        if blocks is None:
            return
        count, uniform = blocks
        message = ("a concatenation of blocks filled with a range's index: a traced export records one block per "
                   "index of the example, so the graph keeps the example's number of blocks")
        if not uniform:
            self.report(node, f"{message} (not rewritten: the block's shape or arguments depend on the index, or the "
                              "count is not a plain expression); build it from `torch.arange` at once")
            return
        # The blocks' argument keeps its layout; a line break after it (a formatter's one argument per line)
        # moves after the comma, which would otherwise end its line.
        blocks_arg = node.args[0]
        after = blocks_arg.whitespace_after_arg
        broken = type(after) is cst.ParenthesizedWhitespace
        call = cst.Call(cst.Name(HELPER), [
            blocks_arg.with_changes(comma=cst.Comma(whitespace_after=after if broken else cst.SimpleWhitespace(" ")),
                                    whitespace_after_arg=cst.SimpleWhitespace("")),
            cst.Arg(count)])
        self.report(node, f"{message}; `{HELPER}` builds it from `arange` while exporting (`torch.cat` of the blocks "
                          "otherwise)", Fix({node: call}, helpers=(HELPER,)))

    def _blocks(self, node: cst.Call) -> tuple[cst.BaseExpression, bool] | None:
        """(count, whether the rewrite may take it) of
        ``torch.cat([torch.full(shape, i, ...) for i in range(count)])`` along axis 0, or None."""
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return None
        for extra in node.args[1:]:
            name = extra.keyword.value if extra.keyword is not None else "dim"
            if name != "dim" or extra.star or int_value(extra.value) != 0:
                return None
        comp = strip_parens(node.args[0].value)
        if type(comp) is not cst.ListComp or comp.for_in.inner_for_in is not None or comp.for_in.ifs \
                or type(comp.for_in.target) is not cst.Name or comp.for_in.asynchronous is not None:
            return None
        index = comp.for_in.target.value
        source = comp.for_in.iter
        if type(source) is not cst.Call or type(source.func) is not cst.Name or source.func.value != "range" \
                or self.context.qualified_names(source.func):
            return None  # the builtin `range`, not a user's function of that name
        if len(source.args) != 1 or source.args[0].keyword is not None or source.args[0].star:
            return None
        full = comp.elt
        if type(full) is not cst.Call or not self.context.refers_to(full.func, "torch.full"):
            return None
        positional = [a for a in full.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in full.args if a.keyword is not None}
        if len(positional) != 2 or any(a.star for a in full.args) or set(keywords) - {"dtype", "device"}:
            return None
        fill = strip_parens(positional[1].value)
        if type(fill) is not cst.Name or fill.value != index:
            return None
        count = source.args[0].value
        parts = [positional[0].value, *keywords.values()]
        uniform = plain_read(count) and not any(mentions_name(p, index) for p in parts)
        return count, uniform


RULES = (RangeBlocks,)
