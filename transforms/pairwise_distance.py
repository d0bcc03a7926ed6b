"""``torch.cdist`` (TRT379): the exported graph does not choose eager mode's formula.

``torch.cdist(a, b)`` with p 2 and the default compute mode: e3nn 0.6.0's ``radius_graph``
(``e3nn/nn/models/v2106/gate_points_networks.py:24``, ``r = torch.cdist(pos, pos)``, then
``((r < r_max) & (r > 0)).nonzero()``), point-cloud k-nearest neighbours, retrieval. Eager mode computes the
differences exactly unless a row count is more than 25; the TorchScript exporter writes the matrix-product form
wherever a row count is dynamic or both are 25 or more, so at 25 rows or fewer the graph gives identical points a
distance of about 1e-4 and the radius graph keeps self-edges. The rewrite calls an inserted helper
(``trtcodemod/helpers/distances.py``) that is torch's call outside a trace and, while one records it, computes both
forms and selects eager mode's by the traced row counts.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, as_argument, float_value, helper_call
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._op_calls import plain_call

HELPER = "_trt_cdist"
P_HELPER = "_trt_cdist_p"
RULE = "TRT379"
QUALIFIED = ("torch.cdist", "torch.functional.cdist")


class PairwiseDistance(Rule):
    needs_text = spelled(*QUALIFIED)
    info = RuleInfo(
        id=RULE,
        name="cdist-formula",
        summary="`torch.cdist(a, b)` exports the matrix-product form where eager mode computes the differences "
                "exactly (25 rows or fewer a side, or any dynamic row count), so identical points are about 1e-4 "
                "apart in the graph; select eager mode's form by the traced row counts",
        doc="""\
What it finds: `torch.cdist(x1, x2)` with p 2 (omitted, or the literal `2` / `2.0`, by position or as `p=`) and the
default compute mode (no `compute_mode=`). e3nn 0.6.0's `radius_graph`
(`e3nn/nn/models/v2106/gate_points_networks.py:24`: `r = torch.cdist(pos, pos)`, then
`index = ((r < r_max) & (r > 0)).nonzero().T`), point-cloud k-nearest neighbours and retrieval heads compute all
pairwise distances this way. Also taken, as an unsafe fix: another finite `p` above 0 written as a number
(`p=1.0`, L1 retrieval). Not taken: p 0 and inf (the exporter's graph is wrong there too, infinite and off by up to
3.5 in our check, but eager mode's kernels pass NaN and infinities their own ways), a `p` that is no literal, an
explicit `compute_mode`, and unpacked arguments.

Why it hurts: eager `torch.cdist` (ATen's `cdist`, mode `use_mm_for_euclid_dist_if_necessary`) takes the
matrix-product form `sqrt(clamp(|a|^2 + |b|^2 - 2 a.b, 0))` only where either row count is more than 25, and
computes `sqrt(sum((a_i - b_j)^2))` exactly otherwise, so identical points are exactly 0 apart. The TorchScript
exporter's symbolic (torch 2.13 `symbolic_opset9.cdist`) takes the matrix-product form wherever a row count is a
dynamic axis or both are 25 or more: at 25 rows or fewer the graph's distance between identical points is the
rounding of `|a|^2 + |b|^2 - 2 a.b`, square-rooted (about 1e-4 for coordinates of order 1, 4e-3 of order 10; checked
with ONNX Runtime at 10 and 25 rows with a dynamic axis, and at 25 static rows), and the `r > 0` test of a radius
graph keeps every self-edge. At fewer than 25 static rows it writes its `pairwise_distance` with the exponent
`1 / 2.000001` (1.9e-5 off at distances near 10). The dynamo exporter has no function for `aten._cdist_forward`, the
exact path (the export fails at 25 rows or fewer), and `torch.export` guards a dynamic row count to 26 or more.

The rewrite: `torch.cdist(pos, pos)` → `_trt_cdist(pos, pos)`, an inserted helper. Outside a trace (eager mode,
`torch.jit.script`, `torch.fx`, `torch.compile`) it is `torch.cdist` itself. While `torch.jit.trace` (the
TorchScript exporter) or `torch.export` (the dynamo exporter) records floating-point tensors of one dtype and rank 2
or more, it computes both of eager mode's forms and picks one with `torch.where` on `P > 25 or R > 25`, read from
the traced row counts (a row index of 25 or more exists), so the graph follows a dynamic axis to either side of 25:
the matrix-product form as ATen writes it (`[-2a, |a|^2, 1] @ [b, 1, |b|^2]^T`, clamped at 0, square-rooted), and
the differences form `sqrt(sum((a_i - b_j)^2, -1))` computed on the first 25 rows of each side only (gathered, rows
of zeros after the last where a side has fewer, so no traced size is sliced and `torch.export` guards none) and
spread to `P x R` by two Gathers of the row indices clamped at 24 (it is read only where neither side has more than
25 rows).
Both branches are computed: the graph holds one `P x R` matrix product (as before) and at most `25 x 25 x M`
differences per batch (`B x 625 x M` values, not `B x P x R x M`), a Where and two Gathers more. Under
`torch.jit.trace` torch's own call also runs on the example first, for its errors only (its nodes feed nothing and
are dropped).

Fix safety: safe. Eager mode, `torch.jit.script`, `torch.fx` and `torch.compile` run `torch.cdist` (values bit
for bit, dtype, shape, gradients, exceptions), for one Python call and a few flag checks more: about 0.8 µs a call on
a 2-core CPU (6.2 µs for a bare `torch.cdist` of 12 points in 3-D, 7.0 µs through the helper: 1.13x), within 10%
where the call takes 8 µs or more. What a trace or `torch.export` records takes eager mode's formula at
every row count, dynamic or static, on both exporters: the matrix-product side is ATen's own `_euclidean_dist`, and
the differences side agrees with ATen's exact kernel to rounding (at most 3 units of the dtype's epsilon relative,
measured in float32 and float64 over 1 to 128 features: 2.2 and 2.6), with exact zeros where eager mode has them;
so a traced or exported program's values are eager mode's to that rounding, as the exporter's own graph is above
25 rows. Batch dims broadcast as `torch.cdist` broadcasts them; empty sides (P or R 0) give an empty `P x R`;
infinities and NaN give eager mode's inf and NaN (Where passes nothing from the unpicked side). Under
`torch.export` a call with mismatched feature sizes or batch dims raises from the forms' own ops (another message,
the same inputs refused). `torch.export` and the dynamo exporter now take a dynamic row count and 25 rows or fewer,
which they refused before.

Other p: the TorchScript exporter writes `pow(sum((a - b)^p), 1 / (p + 1e-6))`: the signed differences, no absolute
value, so its distances are wrong and NaN wherever that sum is negative (checked at p 1, 1.5 and 3 with ONNX Runtime);
the dynamo exporter has no function for `aten._cdist_forward` at all. `torch.cdist(a, b, p=1.0)` →
`_trt_cdist_p(a, b, 1.0)`: torch's call outside a trace, and while one records it `sum(|a_i - b_j|^p)^(1 / p)`
(`sum(|a_i - b_j|)` for p 1), eager mode's exact kernel, to 2 ulps in our check, NaN and infinities alike. Eager mode
computes the differences at every size for these p, so the graph holds all `B x P x R x M` of them: unsafe, for that
memory (a cloud of 10,000 points against itself with 3 features is 1.2 GB in float32); migrate applies it where it
verifies the rewrite.

TensorRT versions: all (ReduceSum, Concat, MatMul, Max, Sqrt, Sub, Pow, Range, GreaterOrEqual, Or, Gather and Where
are parsed from 8.4).""",
        fix=Safety.SAFE,
        assumption="for p other than 2 (`_trt_cdist_p`): the exported graph may hold all B x P x R x M differences "
                   "of the two point sets at once, which eager mode's kernel never does",
        examples=(
            Example("import torch\nr = torch.cdist(pos, pos)\n",
                    "import torch\nr = _trt_cdist(pos, pos)\n"),
            Example("import torch\nd = torch.cdist(query, keys, p=2.0)\n",
                    "import torch\nd = _trt_cdist(query, keys)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.cdist.html",
            "https://github.com/e3nn/e3nn/blob/0.6.0/e3nn/nn/models/v2106/gate_points_networks.py",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not plain_call(self, node, QUALIFIED, ("x1", "x2", "p")):
            return  # also a `compute_mode=`: the caller chose the form
        x1 = argument(node, 0, "x1")
        x2 = argument(node, 1, "x2")
        if x1 is None or x2 is None:
            return
        p = argument(node, 2, "p")
        power = 2.0 if p is None else float_value(p.value)
        if power is None or power <= 0 or power == float("inf"):
            return  # p 0 and inf: eager mode's kernels pass NaN their own ways
        if power != 2.0:
            call = helper_call(P_HELPER, as_argument(x1.value), as_argument(x2.value), as_argument(p.value))
            self.report(node, f"the exported `cdist` with p {power:g} computes `pow(sum((a - b)^p), 1 / (p + 1e-6))` "
                        "of the signed differences (wrong, NaN wherever that sum is negative); `_trt_cdist_p` writes "
                        "eager mode's `|a - b|` while exporting, all B x P x R x M differences",
                        Fix({node: call}, helpers=(P_HELPER,), safety=Safety.UNSAFE))
            return
        call = helper_call(HELPER, as_argument(x1.value), as_argument(x2.value))
        self.report(node, "the exported `cdist` takes the matrix-product form where eager mode computes the "
                    "differences exactly (25 rows or fewer a side): identical points are about 1e-4 apart in the "
                    "graph; `_trt_cdist` selects eager mode's form by the traced row counts",
                    Fix({node: call}, helpers=(HELPER,)))


RULES = (PairwiseDistance,)
