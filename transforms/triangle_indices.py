"""``torch.triu_indices`` / ``torch.tril_indices`` (TRT383): the TorchScript exporter has no symbolic for them.

``torch.triu_indices(row, col, offset=0, *, dtype, device)`` and ``torch.tril_indices(...)``: torchani 2.9.0's
all-pairs neighbour list takes every pair of atoms once (``neighbors.py:214``, ``torch.triu_indices(atoms, atoms, 1,
device=device)``, ``atoms`` a size of the input). The TorchScript exporter stops at ``aten::triu_indices``. The rewrite
calls an inserted helper (``trtcodemod/helpers/triangles.py``) that is torch's call outside the TorchScript exporter's
trace and, while it traces, writes the same tensor from the traced sizes with a comparison of two ranges and NonZero.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, as_argument, has_star_args, helper_call
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import in_inserted_helper

RULE = "TRT383"
#: Qualified function -> the helper that replaces it.
HELPERS = {"torch.triu_indices": "_trt_triu_indices", "torch.tril_indices": "_trt_tril_indices"}
#: The arguments the helper takes, in its order, with the value written where the call omits one.
PARAMETERS = (("row", None), ("col", None), ("offset", "0"), ("dtype", "None"), ("device", "None"))


class TriangleIndices(Rule):
    needs_text = spelled(*HELPERS)
    info = RuleInfo(
        id=RULE,
        name="triangle-indices",
        summary="`torch.triu_indices(n, n, 1)` / `torch.tril_indices(...)` (every pair once: an all-pairs neighbour "
                "list) has no TorchScript symbolic, so the export stops; build the indices from two ranges while "
                "exporting",
        doc="""\
What it finds: `torch.triu_indices(row, col, offset)` and `torch.tril_indices(row, col, offset)` however the file
imports `torch`, their arguments by position or keyword, with `dtype=` and `device=`. torchani 2.9.0's all-pairs
neighbour list takes each pair of atoms once (`neighbors.py:214`: `torch.triu_indices(atoms, atoms, 1,
device=device)`, `atoms` a size of the input), as do pairwise losses, graph builders and the symmetric-matrix
packing of covariance heads. Not taken: a call with `layout=`, `pin_memory=` or unpacked arguments.

Why it hurts: the TorchScript exporter has no symbolic for `aten::triu_indices` or `aten::tril_indices`
("Exporting the operator 'aten::triu_indices' to ONNX opset version 17 is not supported"), so no ONNX file is
written at all.

The rewrite: `torch.triu_indices(atoms, atoms, 1, device=device)` → `_trt_triu_indices(atoms, atoms, 1, None,
device)` (`_trt_tril_indices` for `tril_indices`; the defaults `0` and `None` written out where omitted), an
inserted helper. Outside the TorchScript exporter's trace (eager mode, `torch.jit.trace` alone, `torch.fx`,
`torch.compile`, `torch.export` and the dynamo exporter) it is torch's call itself; scripted, the same call. While
`torch.onnx.export` traces, it first runs torch's call on the example (its result feeds nothing, so the exporter
drops its nodes; it refuses a negative size or a dtype other than int32/int64 as the original does) and then
computes, with no Python decision on a traced size: `j - i` of `arange(col)` and `arange(row)` (Range, Sub), compared
with the offset (`>=` for `triu`, `<=` for `tril`), the mask's positions (NonZero: row-major, int64, already `(2,
K)`), cast to the requested dtype. The graph follows the traced sizes: any number of rows and columns, 0 included.

Fix safety: safe. Eager mode, `torch.jit.script`, `torch.fx`, `torch.compile` and `torch.export` run torch's call
(values, dtype, device, shape and exceptions the original's; the result is an integer tensor, so there are no
gradients). The export runs torch's call on the example first, so it stops where the original's would have. The
exported graph holds, for every row count, column count and offset (negative, 0, past either edge), the pairs torch
returns in torch's order: the tests compare every `row, col < 6` and `offset` in `-7..7` with torch's, and the
exported graph at sizes other than the traced one with ONNX Runtime. Cost: a `row x col` mask and one NonZero
(torch's kernel writes only the `K` pairs). In eager mode the helper costs
about 2 us a call over torch's own (12.6 us against 10.4 us for `triu_indices(100, 100, 1)` on a CPU).

TensorRT versions: 8.5 and newer (NonZero; Range, Sub, comparisons and Cast are parsed from 8.4). NonZero's output
size is known only at run time, so trtcodemod's TensorRT check warns about it (TRT103): the shapes below it are
dynamic, which an all-pairs list of a dynamic number of atoms is anyway.""",
        fix=Safety.SAFE,
        examples=(
            Example("import torch\nidx = torch.triu_indices(atoms, atoms, 1, device=device)\n",
                    "import torch\nidx = _trt_triu_indices(atoms, atoms, 1, None, device)\n"),
            Example("import torch\nrows, cols = torch.tril_indices(n, n, offset=-1, dtype=torch.int32)\n",
                    "import torch\nrows, cols = _trt_tril_indices(n, n, -1, torch.int32, None)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.triu_indices.html",
            "https://pytorch.org/docs/stable/generated/torch.tril_indices.html",
            "https://github.com/aiqm/torchani/blob/v2.9.0/torchani/neighbors.py",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        qualified = self.context.refers_to(node.func, *HELPERS)
        if qualified is None or has_star_args(node):
            return
        names = [name for name, _ in PARAMETERS]
        keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        positional = [arg for arg in node.args if arg.keyword is None]
        if keywords - set(names) or len(positional) > 3:
            return  # `layout=`, `pin_memory=`, or more than torch's three positional arguments
        values: list[cst.BaseExpression] = []
        for position, (name, default) in enumerate(PARAMETERS):
            given = argument(node, position if position < 3 else None, name)
            if given is None:
                if default is None:
                    return  # row and col are required; torch's call raises as written
                values.append(cst.Name(default) if default == "None" else cst.Integer(default))
            else:
                values.append(as_argument(given.value))
        helper = HELPERS[qualified]
        function = qualified.rsplit(".", 1)[-1]
        self.report(node, f"`{function}` has no TorchScript ONNX symbolic, so the export stops here; `{helper}` "
                    "builds the same indices from two ranges while exporting",
                    Fix({node: helper_call(helper, *values)}, helpers=(helper,)))


RULES = (TriangleIndices,)
