"""A stereo cost volume written plane by plane over shifted columns (TRT369): each plane at full width.

``for i in range(D): volume[:, :, i, :, i:] = f(ref[:, :, :, i:], tgt[:, :, :, :-i])`` slices ``i``
columns off both feature maps; where the map is ``i`` columns wide or narrower the slices are empty and
the exported graph meets a zero-size ``Reshape`` or ``ScatterND``. While tracing, the rewrite reads the maps whole,
the target moved ``i`` columns right with zeros coming in (``_trt_shift_right``), and writes the plane's
columns from ``i`` on with ``torch.where`` (``_trt_where_from``): the same numbers where the per-plane
computation is column-local. Eager code keeps the statements as written (``if _trt_tracing(): ... else: ...``).
Helpers: ``trtcodemod/helpers/shifting.py``.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import walk
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms._runtime_scope import TRACING_HELPER

SHIFT = "_trt_shift_right"
WRITE = "_trt_where_from"

_MESSAGE = ("cost volume written over shifted columns (`{target}`): where the feature map is `{var}` columns wide "
            "or narrower the slices are empty, and the exported graph's zero-size Reshape/ScatterND fails in ONNX "
            "Runtime and TensorRT")
#: Calls whose output column depends on other columns (a convolution, a pooling, a product over the last axis,
#: a resize, a shift): seen in the per-plane computation, they refuse the rewrite.
_MIXING = ("conv", "pool", "matmul", "bmm", "einsum", "linear", "interpolate", "upsample", "unfold", "fold",
           "roll", "flip", "cumsum", "cumprod", "sort", "topk", "grid_sample", "attention")
#: Reductions that are column-local only over an axis other than the last.
_REDUCTIONS = ("sum", "mean", "norm", "softmax", "log_softmax", "max", "min", "amax", "amin", "argmax", "argmin",
               "prod", "std", "var", "logsumexp", "cat", "stack", "concat")
_DEPTH = 3


def _is_name(node: cst.CSTNode | None, name: str) -> bool:
    return type(node) is cst.Name and node.value == name


def _from_var(element: cst.SubscriptElement, var: str) -> bool:
    """``var:``"""
    s = element.slice
    return type(s) is cst.Slice and _is_name(s.lower, var) and s.upper is None and s.step is None


def _until_minus_var(element: cst.SubscriptElement, var: str) -> bool:
    """``:-var``"""
    s = element.slice
    return (type(s) is cst.Slice and s.lower is None and s.step is None and type(s.upper) is cst.UnaryOperation
            and type(s.upper.operator) is cst.Minus and _is_name(s.upper.expression, var))


def _full() -> cst.Slice:
    return cst.Slice(lower=None, upper=None)


def _whole(element: cst.SubscriptElement) -> bool:
    s = element.slice
    return (type(s) is cst.Slice and s.lower is None and s.upper is None and s.step is None) or (
        type(s) is cst.Index and type(s.value) is cst.Ellipsis)


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(type(inner) is cst.Name and inner.value == name for inner in walk(node))


def _var_slices(node: cst.CSTNode, var: str) -> bool:
    """Does ``node`` slice anything by ``var``?"""
    return any(type(inner) is cst.Subscript and any(_mentions(e, var) for e in inner.slice) for inner in walk(node))


def _guard_var(test: cst.BaseExpression) -> str | None:
    """The loop variable that ``test`` proves positive: ``i > 0``, ``i >= 1``, ``i != 0``, ``0 < i``."""
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    left, [target] = test.left, test.comparisons
    op, right = type(target.operator), target.comparator
    zero = type(right) is cst.Integer and right.value == "0"
    one = type(right) is cst.Integer and right.value == "1"
    if type(left) is cst.Name and ((op in (cst.GreaterThan, cst.NotEqual) and zero) or (op is cst.GreaterThanEqual
                                                                                        and one)):
        return left.value
    if type(left) is cst.Integer and left.value == "0" and op is cst.LessThan and type(right) is cst.Name:
        return right.value
    return None


def _range_start(iterable: cst.BaseExpression) -> int | None:
    """The first value of ``range(...)`` when written as a literal (0 for ``range(n)``), else None."""
    if type(iterable) is not cst.Call or not _is_name(iterable.func, "range") or not iterable.args:
        return None
    if any(a.keyword is not None or a.star for a in iterable.args):
        return None
    if len(iterable.args) == 1:
        return 0
    first = iterable.args[0].value
    return int(first.value) if type(first) is cst.Integer else None


class _Block:
    """One block of a disparity loop, its shifted slices rewritten."""

    def __init__(self, var: str, shifted_ok: bool) -> None:
        self.var = var
        self.shifted_ok = shifted_ok  # `:-var` is the same as a shift by var (var > 0 holds)
        self.reason = ""
        self.shifts = 0
        self.writes = 0

    def value(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """``node`` with ``x[..., var:]`` read whole and ``x[..., :-var]`` shifted right by ``var``; None (with
        :attr:`reason`) where a slice of another form uses ``var``."""
        block = self

        class Rewriter(cst.CSTTransformer):
            def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
                return block._slice(original, updated)

        if any(type(inner) is cst.Lambda for inner in walk(node)):
            self.reason = self.reason or "a lambda in the plane's computation"
            return None
        result = node.visit(Rewriter())
        if not self.reason and self._mentions_outside_shifts(result):
            # `.view(B, G, C // G, H, W - i)`: a size of the sliced width, wrong for the full-width plane.
            self.reason = f"`{self.var}` used in the plane's computation outside its slices (a size such as `W - " \
                          f"{self.var}`)"
        return None if self.reason else result

    def _mentions_outside_shifts(self, node: cst.BaseExpression) -> bool:
        """Does ``node`` read the loop variable anywhere but as the shift of a ``_trt_shift_right`` it wrote?"""
        shifts = {id(inner.args[1].value) for inner in walk(node)
                  if type(inner) is cst.Call and _is_name(inner.func, SHIFT) and len(inner.args) == 3}
        return any(_is_name(inner, self.var) and id(inner) not in shifts for inner in walk(node))

    def _slice(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        elements = list(updated.slice)
        if not any(_mentions(e, self.var) for e in original.slice):
            return updated
        hits = [k for k, e in enumerate(elements) if _from_var(e, self.var) or _until_minus_var(e, self.var)]
        if len(hits) != 1 or any(_mentions(e, self.var) for k, e in enumerate(elements) if k != hits[0]):
            self.reason = self.reason or f"`{self.var}` is used in a slice other than `{self.var}:` or `:-{self.var}`"
            return updated
        [k] = hits
        others = [e for j, e in enumerate(elements) if j != k]
        if any(type(e.slice) is not cst.Slice and not _whole(e) for e in others):
            self.reason = self.reason or "a shifted slice beside an integer index"
            return updated
        ellipsis = [j for j, e in enumerate(elements) if type(e.slice) is cst.Index]
        if ellipsis and ellipsis[0] > k:
            self.reason = self.reason or "a shifted slice before `...`"
            return updated
        dim = k - len(elements) if ellipsis else k
        if all(_whole(e) for e in others):
            base: cst.BaseExpression = updated.value
        else:
            rest = [e.with_changes(slice=_full()) if j == k else e for j, e in enumerate(elements)]
            base = updated.with_changes(slice=rest)
        if _from_var(elements[k], self.var):
            return base
        if not self.shifted_ok:
            self.reason = self.reason or f"`:-{self.var}` where `{self.var}` may be 0 (no `if {self.var} > 0`)"
            return updated
        self.shifts += 1
        return _call(SHIFT, base, cst.Name(self.var), cst.Integer(str(dim)) if dim >= 0 else
                     cst.UnaryOperation(cst.Minus(), cst.Integer(str(-dim))))

    def target(self, target: cst.Subscript) -> tuple[cst.Subscript, int] | None:
        """``volume[:, :, var, :, var:]`` → (``volume[:, :, var, :, :]``, the column axis in that plane); None
        for a write of other columns (a whole plane)."""
        elements = list(target.slice)
        if not elements or not _from_var(elements[-1], self.var):
            if any(_mentions(e, self.var) and not (type(e.slice) is cst.Index and _is_name(e.slice.value, self.var))
                   for e in elements):
                self.reason = self.reason or f"a write of `{self.var}`'s columns in another form"
            return None
        dim = 0
        for e in elements[:-1]:
            s = e.slice
            if type(s) is cst.Slice:
                if _mentions(s, self.var):
                    self.reason = self.reason or f"a write sliced by `{self.var}` on two axes"
                    return None
                dim += 1
            elif type(s.value) is cst.Ellipsis:
                self.reason = self.reason or "a write with `...`"
                return None
            elif not (_is_name(s.value, self.var) or type(s.value) is cst.Integer):
                self.reason = self.reason or "a write indexed by a tensor or a name other than the disparity"
                return None
        plane = target.with_changes(slice=[*elements[:-1], elements[-1].with_changes(slice=_full())])
        return plane, dim


def _traced_else_eager(block: cst.IndentedBlock, statements: tuple[cst.BaseStatement, ...],
                       replacements: dict[cst.CSTNode, cst.CSTNode]) -> cst.IndentedBlock:
    """``block`` as ``if _trt_tracing(): <the rewritten statements> else: <the statements as written>``: eager code
    keeps its slices (its speed, its values bit for bit); only a trace records the full-width planes."""
    # Every statement is one assignment (checked by the caller); the comments stay with the code as written.
    traced = [s.with_changes(body=[replacements.get(s.body[0], s.body[0])], leading_lines=[]) for s in statements]
    branch = cst.If(test=cst.Call(func=cst.Name(TRACING_HELPER)), body=cst.IndentedBlock(body=traced),
                    orelse=cst.Else(body=cst.IndentedBlock(body=[s.deep_clone() for s in statements])))
    return block.with_changes(body=[branch])


def _call(name: str, *values: cst.BaseExpression) -> cst.Call:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.Call(func=cst.Name(name), args=[cst.Arg(value=v, comma=comma) for v in values[:-1]]
                    + [cst.Arg(value=values[-1])])


class CostVolumeShift(Rule):
    needs_text = (b"range",)
    info = RuleInfo(
        id="TRT369",
        name="cost-volume-shift",
        summary="a stereo cost volume filled plane by plane over shifted columns (`volume[:, :, i, :, i:] = "
                "f(ref[..., i:], tgt[..., :-i])`) has empty slices where the feature map is `i` columns wide or "
                "narrower: compute each plane at full width from the target shifted right, write its columns "
                "from `i` on with `torch.where`",
        doc="""\
What it finds: a `for i in range(...)` loop whose body, under `if i > 0:` (or `i >= 1`, `i != 0`, or with a
range starting at 1 or more), fills a cost volume one disparity plane at a time from slices that cut `i`
columns off the feature maps: `volume[:, :, i, :, i:] = f(ref[:, :, :, i:], tgt[:, :, :, :-i])`. The form
of every stereo network since GC-Net: GwcNet's and IGEV's `build_gwc_volume` (group-wise correlation),
PSMNet's and GwcNet's concatenation volume (`cost[:, :C, i, :, i:] = ref[:, :, :, i:]`, `cost[:, C:, i, :,
i:] = tgt[:, :, :, :-i]`), AANet's difference, concatenation and correlation volumes (4-D:
`cost_volume[:, i, :, i:] = (left[:, :, :, i:] * right[:, :, :, :-i]).mean(dim=1)`), ACVNet's normalized
correlation. The slices may be read through names assigned in the same block (`ref = refimg_fea[:, :, :,
i:]`, then `volume[...] = f(ref, tar)`).

Why it hurts: with a width that varies at run time, the disparity range is fixed while the feature map is
not. At a map `i` columns wide or narrower, `ref[..., i:]` and `tgt[..., :-i]` are empty: the exported
graph reshapes an empty tensor (a `Reshape` whose 0 means "copy", refused by ONNX Runtime: "The dimension
with value zero exceeds the dimension size of the input tensor") and scatters an empty update into the
volume. TensorRT refuses the same nodes. Eager mode writes nothing there and runs.

The rewrite: the guarded block becomes `if _trt_tracing(): <its rewritten copy> else: <the block as written>`,
so eager mode, scripting and `torch.compile` run the slices as before (at their speed, bit for bit) and only a
trace (either ONNX exporter, `torch.export`) records the copy. In the copy every `x[..., i:]` becomes `x` and
every `x[..., :-i]` becomes `_trt_shift_right(x, i, 3)`, the map moved `i` columns right with zeros coming in
(column `j` holds column `j - i`, zeros where `i` is the width or more): `F.pad` by `i` columns on the left
and `narrow` back to the width, no empty tensor at any width. Each write of the columns from `i` on becomes a
write of the whole plane, `volume[:, :, i, :, :] = _trt_where_from(volume[:, :, i, :, :], value, i, 3)`: the
plane's own values before column `i` (the zeros it was made with), the full-width value from `i` on. The
choice is a `torch.where`, never a product with a mask: what the full-width computation puts before column `i`
(a NaN of a normalization over a zero column, an inf) never reaches the volume. The guard's `else` branch
(`i == 0`) is left as written.

Fix safety: unsafe. It holds only when the per-plane computation is column-local: output column `j`
depends only on input column `j` of each map (elementwise arithmetic, means, sums and norms over channels,
`torch.cat` over channels, a `view` that keeps the width last). Then the full-width value's column `j` is
the original's column `j - i` and the traced volume holds the same numbers (bit for bit for products, sums and
means over channels; to rounding where torch reduces a strided slice and the whole map in another order, as
`torch.norm` does). Where the computation is visibly not
column-local the rule refuses and says why (a convolution, a pooling, a `matmul`/`@`/`einsum`, a `Linear`, a
resize, `roll`/`flip`, a reduction over the last axis, a `self.`module call of one of those names): a
convolution over the shifted columns would see the zeros brought in, not the original's edge. A module or
function it cannot see is assumed column-local, and that is what `migrate`'s verification tests. Gradients
of a traced graph also differ where the full-width computation makes an inf or NaN in the columns the write
drops (a division by a norm of the zero columns without an epsilon: NaN times the `where`'s zero gradient is
NaN); eager gradients are the original's. A name the
block reads before assigning it (a value carried from the previous plane) is refused.

In `migrate`: a graph that fails to run at a narrower width (ONNX Runtime refuses a zero-size node made at
the loop's lines) plans this rule's finding there as a candidate: applied, and kept only if the rewritten
model computes the original's values on every input set.

TensorRT versions: all (an empty `Reshape` target and an empty `ScatterND` update are refused by every
parser).""",
        fix=Safety.UNSAFE,
        assumption="the per-plane computation is column-local: output column j depends only on column j of each "
                   "feature map (elementwise products, channel means and norms, concatenation over channels)",
        fails_when=(
            "the computation mixes columns through something the rule cannot see (a module called as `self.f(x)` "
            "whose name does not say it convolves or pools, a function imported from another file)",
            "a slice cuts the columns of an axis that is not the written plane's last one",
            "gradients of a traced graph: where the full-width computation makes an inf or NaN in the columns the write drops (a "
            "division by a norm of the zero-filled columns without an epsilon), the gradient through the "
            "`torch.where` is NaN there where the original had none",
            "a traced graph's reduction over channels may round differently (a norm summed over a strided slice and over the "
            "whole map in another order: a few units in the last place)",
        ),
        examples=(
            Example(
                "def build_gwc_volume(ref, tgt, maxdisp, groups):\n"
                "    B, C, H, W = ref.shape\n"
                "    volume = ref.new_zeros([B, groups, maxdisp, H, W])\n"
                "    for i in range(maxdisp):\n"
                "        if i > 0:\n"
                "            volume[:, :, i, :, i:] = groupwise_correlation(ref[:, :, :, i:], tgt[:, :, :, :-i], groups)\n"
                "        else:\n"
                "            volume[:, :, i, :, :] = groupwise_correlation(ref, tgt, groups)\n"
                "    return volume\n",
                "def build_gwc_volume(ref, tgt, maxdisp, groups):\n"
                "    B, C, H, W = ref.shape\n"
                "    volume = ref.new_zeros([B, groups, maxdisp, H, W])\n"
                "    for i in range(maxdisp):\n"
                "        if i > 0:\n"
                "            if _trt_tracing():\n"
                "                volume[:, :, i, :, :] = _trt_where_from(volume[:, :, i, :, :], groupwise_correlation(ref, _trt_shift_right(tgt, i, 3), groups), i, 3)\n"
                "            else:\n"
                "                volume[:, :, i, :, i:] = groupwise_correlation(ref[:, :, :, i:], tgt[:, :, :, :-i], groups)\n"
                "        else:\n"
                "            volume[:, :, i, :, :] = groupwise_correlation(ref, tgt, groups)\n"
                "    return volume\n",
                unsafe=True,
            ),
            Example(
                "for i in range(1, maxdisp):\n"
                "    cost[:, i, :, i:] = (left[..., i:] * right[..., :-i]).mean(dim=1)\n",
                "for i in range(1, maxdisp):\n"
                "    if _trt_tracing():\n"
                "        cost[:, i, :, :] = _trt_where_from(cost[:, i, :, :], (left * _trt_shift_right(right, i, -1)).mean(dim=1), i, 2)\n"
                "    else:\n"
                "        cost[:, i, :, i:] = (left[..., i:] * right[..., :-i]).mean(dim=1)\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://onnx.ai/onnx/operators/onnx__Reshape.html",
            "https://onnx.ai/onnx/operators/onnx__ScatterND.html",
            "https://pytorch.org/docs/stable/generated/torch.where.html",
        ),
    )

    def visit_For(self, node: cst.For) -> None:
        if in_inserted_helper(self) or type(node.target) is not cst.Name or node.orelse is not None:
            return
        var = node.target.value
        start = _range_start(node.iter)
        if start is None:
            return
        body = node.body.body
        if len(body) == 1 and type(body[0]) is cst.If and _guard_var(body[0].test) == var:
            self._block(body[0], body[0].body.body, var, True)
        else:
            self._block(node, body, var, start >= 1)

    def _block(self, owner: cst.CSTNode, statements: tuple[cst.BaseStatement, ...], var: str,
               positive: bool) -> None:
        writes = [s for s in statements if type(s) is cst.SimpleStatementLine and len(s.body) == 1
                  and type(s.body[0]) is cst.Assign and len(s.body[0].targets) == 1
                  and type(s.body[0].targets[0].target) is cst.Subscript
                  and s.body[0].targets[0].target.slice
                  and _from_var(s.body[0].targets[0].target.slice[-1], var)]
        if not writes:
            return
        first = writes[0].body[0]
        target_text = self.context.module.code_for_node(first.targets[0].target)
        message = _MESSAGE.format(target=target_text, var=var)
        block = _Block(var, positive)
        replacements: dict[cst.CSTNode, cst.CSTNode] = {}
        assigned: set[str] = set()
        local = {s.body[0].targets[0].target.value for s in statements if type(s) is cst.SimpleStatementLine
                 and len(s.body) == 1 and type(s.body[0]) is cst.Assign and len(s.body[0].targets) == 1
                 and type(s.body[0].targets[0].target) is cst.Name}
        for statement in statements:
            if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 \
                    or type(statement.body[0]) is not cst.Assign or len(statement.body[0].targets) != 1:
                return self._refuse(writes[0], message, "a statement other than one assignment in the block")
            assign = statement.body[0]
            target = assign.targets[0].target
            carried = sorted(n.value for n in walk(assign.value) if type(n) is cst.Name and n.value in local - assigned)
            if carried:
                return self._refuse(writes[0], message, f"`{carried[0]}` is read before the block assigns it (a "
                                                        "value from the previous plane)")
            if type(target) is cst.Name:
                if target.value == var:
                    return self._refuse(writes[0], message, f"`{var}` is reassigned")
                new_value = block.value(assign.value)
                if new_value is None:
                    return self._refuse(writes[0], message, block.reason)
                assigned.add(target.value)
                if new_value is not assign.value:
                    replacements[assign] = assign.with_changes(value=new_value)
                continue
            if type(target) is not cst.Subscript:
                return self._refuse(writes[0], message, "an assignment to several names or an attribute")
            plane = block.target(target)
            if block.reason:
                return self._refuse(writes[0], message, block.reason)
            if plane is None:
                if _var_slices(assign.value, var):
                    return self._refuse(writes[0], message, "a whole-plane write of shifted columns")
                continue
            new_value = block.value(assign.value)
            if new_value is None:
                return self._refuse(writes[0], message, block.reason)
            whole, dim = plane
            block.writes += 1
            replacements[assign] = assign.with_changes(
                targets=[assign.targets[0].with_changes(target=whole)],
                value=_call(WRITE, whole.deep_clone(), new_value, cst.Name(var), cst.Integer(str(dim))))
        mixing = self._mixing(statements)
        if mixing:
            return self._refuse(writes[0], message, f"the plane's computation is not column-local: {mixing}")
        leak = self._read_elsewhere(owner, statements, assigned)
        if leak:
            return self._refuse(writes[0], message, f"`{leak}`, assigned from shifted columns, is read outside "
                                                    "the block at that width")
        helpers = (TRACING_HELPER, WRITE, SHIFT) if block.shifts else (TRACING_HELPER, WRITE)
        self.report(owner, message + "; while tracing, each plane computed at full width from the target shifted "
                    f"right (`{SHIFT}`), its columns from `{var}` on written with `torch.where` (`{WRITE}`); "
                    "assumes the plane's computation is column-local",
                    Fix({owner.body: _traced_else_eager(owner.body, statements, replacements)},
                        safety=Safety.UNSAFE, helpers=helpers, covers=True))

    def _refuse(self, write: cst.CSTNode, message: str, reason: str) -> None:
        self.report(write, f"{message}; not rewritten: {reason}")

    # --- what the plane's computation does -------------------------------------------------

    def _mixing(self, statements: tuple[cst.BaseStatement, ...]) -> str:
        """What in the block (or in a function of this module it calls, a few calls deep) visibly mixes columns."""
        functions = {s.name.value: s for s in self.context.module.body if type(s) is cst.FunctionDef}
        seen: set[str] = set()
        todo: list[tuple[cst.CSTNode, int]] = [(s, 0) for s in statements]
        while todo:
            node, depth = todo.pop()
            for inner in walk(node):
                if type(inner) is cst.BinaryOperation and type(inner.operator) is cst.MatrixMultiply:
                    return "a matrix product `@`"
                if type(inner) is not cst.Call:
                    continue
                func = inner.func
                name = func.value if type(func) is cst.Name else func.attr.value if type(func) is cst.Attribute \
                    else ""
                low = name.lower()
                if any(word in low for word in _MIXING):
                    return f"`{self.context.module.code_for_node(func)}`"
                if low in _REDUCTIONS and self._over_last_axis(inner):
                    return f"`{self.context.module.code_for_node(inner)}` over the last axis (the columns)"
                if type(func) is cst.Name and name in functions and name not in seen and depth < _DEPTH:
                    seen.add(name)
                    todo.append((functions[name], depth + 1))
        return ""

    @staticmethod
    def _over_last_axis(call: cst.Call) -> bool:
        """A reduction given ``dim=-1`` (or a tuple holding it), or none at all for a whole-tensor reduction
        (``x.sum()``; a method only: ``torch.sum(x)`` names the tensor first)."""
        dims = [a.value for a in call.args if a.keyword is not None and a.keyword.value in ("dim", "axis")]
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        method = type(call.func) is cst.Attribute and not (type(call.func.value) is cst.Name
                                                           and call.func.value.value in ("torch", "F"))
        name = call.func.attr.value if type(call.func) is cst.Attribute else call.func.value
        if not dims:
            index = 0 if method else 1
            if name == "norm":
                index += 1  # norm(input, p, dim)
            if len(positional) > index:
                dims = [positional[index]]
        if not dims:
            return method and name not in ("cat", "stack", "concat")
        for value in dims:
            values = [e.value for e in value.elements] if type(value) in (cst.Tuple, cst.List) else [value]
            if any(type(v) is cst.UnaryOperation and type(v.operator) is cst.Minus
                   and type(v.expression) is cst.Integer and v.expression.value == "1" for v in values):
                return True
        return False

    def _read_elsewhere(self, owner: cst.CSTNode, statements: tuple[cst.BaseStatement, ...],
                        names: set[str]) -> str:
        """A name assigned in the block that the function reads outside it from the statement holding the loop on,
        other than in the guard's ``else`` after assigning it there."""
        function = self.context.function
        if not names or function is None:
            return ""
        inside = {id(n) for s in statements for n in walk(s)}
        orelse = owner.orelse if type(owner) is cst.If else None
        covered: set[int] = set()
        if type(orelse) is cst.Else:
            bound: set[str] = set()
            for s in orelse.body.body:
                nodes = list(walk(s))
                for n in nodes:
                    if type(n) is cst.Name and n.value in names and n.value in bound:
                        covered.add(id(n))
                if type(s) is cst.SimpleStatementLine:
                    for small in s.body:
                        if type(small) is cst.Assign:
                            for t in small.targets:
                                if type(t.target) is cst.Name:
                                    bound.add(t.target.value)
                                    covered.add(id(t.target))
        # What runs before the statement holding the loop reads the names before the loop writes them.
        top = list(function.body.body) if type(function.body) is cst.IndentedBlock else [function.body]
        holder = next((k for k, stmt in enumerate(top) if any(n is owner for n in walk(stmt))), 0)
        for stmt in top[holder:]:
            for n in walk(stmt):
                if type(n) is cst.Name and n.value in names and id(n) not in inside and id(n) not in covered:
                    return n.value
        return ""


RULES = (CostVolumeShift,)
