"""A chain of in-place calls on a subscripted view (TRT387): the TorchScript exporter computes other values.

``idx[:, 2:4].copy_(x).add_(5)``: the TorchScript exporter (``dynamo=False``) writes the second in-place call as if
it were made on the whole tensor the view was taken from, or drops it, with no warning: l5kit's Urban Driver
(``l5kit/planning/vectorized/global_graph.py:88``) sets its lanes' type indices with
``indices[:, lanes_start_idx:crosswalks_start_idx].copy_(...).add_(...)`` and its graph adds 5 to the ego's and the
agents' types as well. One statement per call, each subscripting the base again, exports right; the rewrite writes
that.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import method_call, walk
from trtcodemod.evidence.facts import summarize
from trtcodemod.evidence.proofs import Observation
from trtcodemod.providers import ObservedFacts, observed_name
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms._tensor_evidence import TENSOR_ONLY_METHODS, TensorEvidence, evident_in_scope

RULE = "TRT387"
#: ``torch.Tensor``'s in-place methods (every public name ending in ``_``, torch 2.13) that write values into their
#: receiver and return it, keeping its shape, strides, storage and ``requires_grad``. Left out: the ones that change
#: metadata or state (``resize_``, ``resize_as_``, ``resize_as_sparse_``, ``sparse_resize_``,
#: ``sparse_resize_and_clear_``, ``set_``, ``as_strided_``, ``squeeze_``, ``unsqueeze_``, ``transpose_``, ``t_``,
#: ``swapdims_``, ``swapaxes_``, ``detach_``, ``requires_grad_``, ``share_memory_``) and the ones that run a Python
#: callable (``apply_``, ``map_``, ``map2_``), which could rebind what the subscript reads.
INPLACE_METHODS = frozenset("""
abs_ absolute_ acos_ acosh_ add_ addbmm_ addcdiv_ addcmul_ addmm_ addmv_ addr_ arccos_ arccosh_ arcsin_ arcsinh_
arctan2_ arctan_ arctanh_ asin_ asinh_ atan2_ atan_ atanh_ baddbmm_ bernoulli_ bitwise_and_ bitwise_left_shift_
bitwise_not_ bitwise_or_ bitwise_right_shift_ bitwise_xor_ cauchy_ ceil_ clamp_ clamp_max_ clamp_min_ clip_
conj_physical_ copy_ copysign_ cos_ cosh_ cumprod_ cumsum_ deg2rad_ digamma_ div_ divide_ eq_ erf_ erfc_ erfinv_ exp2_
exp_ expm1_ exponential_ fill_ fill_diagonal_ fix_ float_power_ floor_ floor_divide_ fmod_ frac_ gcd_ ge_ geometric_
greater_ greater_equal_ gt_ heaviside_ hypot_ i0_ igamma_ igammac_ index_add_ index_copy_ index_fill_ index_put_
index_reduce_ lcm_ ldexp_ le_ lerp_ less_ less_equal_ lgamma_ log10_ log1p_ log2_ log_ log_normal_ logical_and_
logical_not_ logical_or_ logical_xor_ logit_ lt_ masked_fill_ masked_scatter_ mul_ multiply_ mvlgamma_ nan_to_num_ ne_
neg_ negative_ nextafter_ normal_ not_equal_ polygamma_ pow_ put_ rad2deg_ random_ reciprocal_ relu_ remainder_
renorm_ round_ rsqrt_ scatter_ scatter_add_ scatter_reduce_ sgn_ sigmoid_ sign_ sin_ sinc_ sinh_ sqrt_ square_ sub_
subtract_ tan_ tanh_ tril_ triu_ true_divide_ trunc_ uniform_ xlogy_ zero_
""".split())
#: Methods whose call in an argument reads tensors and rebinds no name (an argument is evaluated between two of
#: the chain's calls, so it must not change what the subscript reads).
_READING_METHODS = TENSOR_ONLY_METHODS | INPLACE_METHODS | frozenset({
    "clone", "sum", "mean", "max", "min", "reshape", "view", "transpose", "squeeze", "flip", "mul", "add", "sub",
    "div", "neg", "abs", "round", "floor", "ceil", "item", "t", "prod", "std", "var"})
#: Binary operators an index may compute with.
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
#: Expressions that may rebind a name or run code of the user's when evaluated.
_SIDE_EFFECTS = (cst.NamedExpr, cst.Yield, cst.Await, cst.Lambda)


class ChainedInplaceView(Rule):
    needs_text = (b"_(",)
    requires = (TensorEvidence, ObservedFacts)
    info = RuleInfo(
        id=RULE,
        name="chained-inplace-view",
        summary="two or more in-place calls chained on a subscripted view (`idx[:, a:b].copy_(x).add_(5)`, "
                "`img[:, c].mul_(std).add_(mean)`) export with the TorchScript exporter as other values, with no "
                "warning; write one statement per call, each subscripting the base again",
        doc="""\
What it finds: a statement (an expression statement, an assignment to one target, a `return`) whose value begins
with a chain `R.m1(a1).m2(a2)...` of two or more in-place calls on `R`, a subscript `base[index]`, where `base` is
a name or `self.<attribute>`, the index is pure (integers, names, attributes, slices of those, unary minus,
`+ - * // %`, `...`, `None`; no call, no list, and not the base's name), and every `m_i` is a torch.Tensor method
that writes values into its receiver and returns it (`add_`, `sub_`, `mul_`, `div_`, `copy_`, `fill_`, `zero_`,
`clamp_`, `neg_`, `masked_fill_`, `pow_`, ...: not `resize_`, `set_`, `squeeze_`, `transpose_`, `as_strided_`,
`detach_`, `requires_grad_` and the others that change metadata or state). l5kit's Urban Driver
(`l5kit/planning/vectorized/global_graph.py:88`) sets the type index of its lanes with
`indices[:, lanes_start_idx:crosswalks_start_idx].copy_(data_batch["lanes_mid"][:, :, 0, -1]).add_(5)`;
de-normalisation loops write `image[:, channel].mul_(std).add_(mean)`, video normalisation `x[:, 0].sub_(mean[0])
.div_(std[0])`, torchvision's v2 box flip `bounding_boxes[:, 0].add_(bounding_boxes[:, 2]).sub_(width).neg_()`.
Not taken: one in-place call on a subscript (`y[:, 0].mul_(2)`) and a chain on a whole tensor
(`y.add_(1).mul_(2)`), which export right; a chain on `y.narrow(...)`, `y.select(...)` or a view bound to a name
(`v = y[:, 0]` then `v.mul_(2).add_(1)`: splitting those does not fix the export, two writes through any view
differ); an index with a call, a list or the base's name; a chain with a metadata method; an assignment or a
`return` whose index has a name or an attribute outside a slice (a tensor index there makes `R` a copy: the chain
returns the copy written twice, the split form a new copy written once); an argument before the last call that
calls a function of the user's or binds a name (`:=`), which could change what the index reads; a base the code
does not show to be a tensor and no recorded run saw hold one (an object whose `add_` does not return itself).

Why it hurts: the TorchScript exporter (torch 2.13, every opset) turns in-place writes into a view into
out-of-place ops and a scatter back into the base; for a chain on a subscript it loses track of the view after the
first call: `idx[:, 2:4].copy_(x).add_(5)` exports as if `add_` were applied to the whole of `idx` (every other
column +5), `y[:, 1:3].add_(x).clamp_(min=0.5)` loses the clamp, `b[:, 0].add_(b[:, 1]).sub_(10).neg_()` and
`p = y[0].mul_(2).add_(1)` give other values. No warning is raised; the graph differs from eager mode on the very
inputs it was traced with. The dynamo exporter is right.

The rewrite: one statement per in-place call, each on `R` written again: `R.m1(a1)`, `R.m2(a2)`, ...; the last
keeps the rest of the value and the statement's form (`p = R.mk(ak).mul(255)`, `return R.mk(ak)`). The
statement's leading lines go with the first line, its comment with the last. The TorchScript export of the split
form equals eager mode.

Fix safety: safe. A torch in-place method returns its receiver, so `R.m1(a1).m2(a2)` is `v = R; v.m1(a1);
v.m2(a2)`. Evaluating `R` again gives the same view (the same storage, offset, sizes and strides): basic indexing
is pure, and nothing between the two evaluations can change what it reads: the in-place methods taken write values
and never rebind a name or change the base's metadata, and the arguments evaluated in between bind no name and call
only torch's functions and tensor methods. The arguments are evaluated in the same order relative to the calls, and
an exception (an index out of range, a dtype a method refuses, a shape that does not broadcast) is raised by the
same call. So the values, dtype, shape, strides, device and aliasing are the same (a view of the base taken before
sees every write in both forms), and so are the gradients: autograd records the same in-place ops on views of the
same base. An index that may be a tensor makes `R` a copy: in an expression statement both forms write into copies
that nothing keeps; an assignment or a `return` is taken only where `R` is a view for certain. `torch.jit.script`,
`torch.fx`, `torch.compile`, `torch.export` and the dynamo exporter give eager mode's values for both forms.
`self.<attribute>` is a tensor by the code when the class registers a buffer of that name (a module's buffer holds
a tensor or None; assigning it anything else raises). Where only a recorded run (`migrate`, `--facts`) shows the
base a tensor (a parameter with no annotation, another attribute), the fix is unsafe: it rests on every caller passing a tensor there, as the run saw. An
attribute is taken only when the class defines no method or property of that name (a property's getter would run
once per statement). Cost: one more view per extra call (a basic index: 4 to 8 microseconds each in eager mode on a
loaded 2-core CPU, against about 20 for the in-place call itself).

TensorRT versions: all.""",
        fix=Safety.SAFE,
        assumption="where only a recorded run shows the base a tensor: the subscripted base is a tensor on every "
                   "call (then each in-place call returns the same view)",
        fails_when=(
            "a caller the run did not observe passes an object whose in-place method returns something other "
            "than itself: the chain calls the next method on that result, the split form on the subscript again",
        ),
        examples=(
            Example(
                "import torch\n\n"
                "def types(lanes: torch.Tensor, n: int, start: int, end: int):\n"
                "    indices = torch.full((n, 10), 1, dtype=torch.long)\n"
                "    indices[:, start:end].copy_(lanes).add_(5)  # TL state\n"
                "    return indices\n",
                "import torch\n\n"
                "def types(lanes: torch.Tensor, n: int, start: int, end: int):\n"
                "    indices = torch.full((n, 10), 1, dtype=torch.long)\n"
                "    indices[:, start:end].copy_(lanes)\n"
                "    indices[:, start:end].add_(5)  # TL state\n"
                "    return indices\n",
            ),
            Example(
                "import torch\n\n"
                "def denormalize(images: torch.Tensor, mean, std):\n"
                "    images = images.clone()\n"
                "    for channel in range(3):\n"
                "        images[:, channel].mul_(std[channel]).add_(mean[channel]).clamp_(0.0, 1.0)\n"
                "    return images\n",
                "import torch\n\n"
                "def denormalize(images: torch.Tensor, mean, std):\n"
                "    images = images.clone()\n"
                "    for channel in range(3):\n"
                "        images[:, channel].mul_(std[channel])\n"
                "        images[:, channel].add_(mean[channel])\n"
                "        images[:, channel].clamp_(0.0, 1.0)\n"
                "    return images\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/tensor_view.html",
            "https://github.com/woven-planet/l5kit/blob/master/l5kit/l5kit/planning/vectorized/global_graph.py",
        ),
    )

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if len(node.body) != 1 or in_inserted_helper(self):
            return
        small = node.body[0]
        if type(small) is cst.Expr:
            value, definite = small.value, False
        elif type(small) is cst.Assign and len(small.targets) == 1:
            value, definite = small.value, True
        elif type(small) is cst.Return and small.value is not None:
            value, definite = small.value, True
        else:
            return
        found = _chain(value)
        if found is None:
            return
        view, calls = found
        if not _pure_index(view, definite) or not self._quiet_arguments(calls):
            return
        base = view.value
        if type(base) is cst.Attribute and not self._plain_attribute(base):
            return
        if type(base) is cst.Name:
            shown = evident_in_scope(self.context, base, self.provider(TensorEvidence).bindings)
        else:
            shown = self._registered_buffer(base.attr.value)  # type: ignore[attr-defined]
        observed = observed_name(base)
        if not shown and (observed is None or not self.provider(ObservedFacts).is_tensor(base)):
            return
        replacement = _split(node, small, value, view, calls)
        methods = ".".join(f"{c.func.attr.value}(...)" for c in calls)  # type: ignore[attr-defined]
        why = (f"{len(calls)} in-place calls chained on a subscripted view (`.{methods}`) export with the TorchScript "
               "exporter as other values")
        if shown:
            self.report(node, f"{why}; one statement per call on the same subscript is the same and exports right",
                        Fix({node: replacement}))
            return
        self.report(node, f"{why}; the recorded run saw a tensor at `{observed}`, so one statement per call on the "
                          "same subscript is the same (rests on that observation)",
                    Fix({node: replacement}, safety=Safety.UNSAFE, proof=_tensor_seen(observed)))

    def _quiet_arguments(self, calls: list[cst.Call]) -> bool:
        """No argument of the chain binds a name or yields, and those evaluated before the last call call only
        torch's functions and tensor methods (nothing that could change what the index reads)."""
        for position, call in enumerate(calls):
            for arg in call.args:
                if arg.star:
                    return False
                for inner in walk(arg.value):
                    if isinstance(inner, _SIDE_EFFECTS):
                        return False
                    if type(inner) is cst.Call and position < len(calls) - 1 and not self._reading_call(inner):
                        return False
        return True

    def _reading_call(self, call: cst.Call) -> bool:
        names = self.context.qualified_names(call.func)
        if names:
            return all(n.startswith("torch.") for n in names)
        parts = method_call(call)
        return parts is not None and parts[1] in _READING_METHODS

    def _registered_buffer(self, attr: str) -> bool:
        """Does the class register a buffer named ``attr`` (``self.register_buffer("attr", ...)``)? A module's
        buffer holds a tensor or None: assigning it anything else raises."""
        for inner in walk(self.context.classes[-1]):
            if type(inner) is cst.Call and type(inner.func) is cst.Attribute and \
                    inner.func.attr.value == "register_buffer" and type(inner.func.value) is cst.Name and \
                    inner.func.value.value == "self" and inner.args and \
                    type(inner.args[0].value) is cst.SimpleString and \
                    inner.args[0].value.evaluated_value == attr:
                return True
        return False

    def _plain_attribute(self, base: cst.Attribute) -> bool:
        """``self.<attribute>`` whose class defines no method or property of that name."""
        if type(base.value) is not cst.Name or base.value.value != "self" or not self.context.classes:
            return False
        for item in self.context.classes[-1].body.body:
            if type(item) is cst.FunctionDef and item.name.value == base.attr.value:
                return False
        return True


def _chain(value: cst.BaseExpression) -> tuple[cst.Subscript, list[cst.Call]] | None:
    """``base[index].m1(a1).m2(a2)...`` at the start of ``value``: the subscript and the leading in-place calls (two
    or more), innermost first; None otherwise."""
    links: list[cst.BaseExpression] = []
    node = value
    while True:
        links.append(node)
        if type(node) is cst.Call and type(node.func) is cst.Attribute:
            node = node.func.value
        elif type(node) in (cst.Attribute, cst.Subscript):
            node = node.value  # type: ignore[attr-defined]
        else:
            break
    links.reverse()  # innermost first: the base's name, its attributes, the subscript, the calls
    position = next((i for i, link in enumerate(links) if type(link) is cst.Subscript), None)
    if position is None or any(type(link) not in (cst.Name, cst.Attribute) for link in links[:position]):
        return None
    if position > 2 or position == 2 and type(links[1]) is not cst.Attribute:
        return None  # a name or `self.<attribute>` only
    view = links[position]
    calls: list[cst.Call] = []
    for link in links[position + 1:]:
        if type(link) is not cst.Call or link.func.attr.value not in INPLACE_METHODS:  # type: ignore[attr-defined]
            break
        if link.func.value.lpar and link.func.value is not view:  # type: ignore[attr-defined]
            return None
        calls.append(link)
    return (view, calls) if len(calls) >= 2 else None


def _pure_index(view: cst.Subscript, definite: bool) -> bool:
    """Is the index pure (see the doc), without the base's name? With ``definite``, is ``view`` certainly a view
    (no name or attribute outside a slice, which may hold a tensor: a copy)?"""
    base = view.value
    base_name = base.value if type(base) is cst.Name else None  # type: ignore[union-attr]
    for element in view.slice:
        inner = element.slice
        if type(inner) is cst.Index:
            if inner.star is not None or not _pure(inner.value, base_name):
                return False
            if definite and not _certain_view_index(inner.value):
                return False
        elif type(inner) is cst.Slice:
            if not all(part is None or _pure(part, base_name) for part in (inner.lower, inner.upper, inner.step)):
                return False
        else:
            return False
    return True


def _pure(expr: cst.BaseExpression, base_name: str | None) -> bool:
    kind = type(expr)
    if kind in (cst.Integer, cst.Ellipsis):
        return True
    if kind is cst.Name:
        return expr.value != base_name and expr.value not in ("True", "False")  # type: ignore[attr-defined]
    if kind is cst.Attribute:
        return _pure(expr.value, base_name)  # type: ignore[attr-defined]
    if kind is cst.UnaryOperation:
        return type(expr.operator) in (cst.Minus, cst.Plus) and _pure(expr.expression, base_name)  # type: ignore
    if kind is cst.BinaryOperation:
        return isinstance(expr.operator, _ARITHMETIC) and _pure(expr.left, base_name) and \
            _pure(expr.right, base_name)  # type: ignore[attr-defined]
    return False


def _certain_view_index(expr: cst.BaseExpression) -> bool:
    """An integer (or its negation), ``None`` or ``...``: basic indexing whatever the names hold."""
    if type(expr) is cst.UnaryOperation:
        return type(expr.operator) is cst.Minus and type(expr.expression) is cst.Integer
    return type(expr) in (cst.Integer, cst.Ellipsis) or type(expr) is cst.Name and expr.value == "None"


def _split(node: cst.SimpleStatementLine, small: cst.BaseSmallStatement, value: cst.BaseExpression,
           view: cst.Subscript, calls: list[cst.Call]) -> cst.FlattenSentinel:
    """One statement per call on ``view`` written again; the last keeps the rest of ``value`` and the form."""

    def on_view(call: cst.Call) -> cst.Call:
        func = call.func
        return call.with_changes(func=func.with_changes(value=view.deep_clone(), dot=cst.Dot()))  # type: ignore

    lines: list[cst.SimpleStatementLine] = []
    for position, call in enumerate(calls[:-1]):
        bare = on_view(call).with_changes(lpar=[], rpar=[])
        lines.append(cst.SimpleStatementLine(body=[cst.Expr(bare)],
                                             leading_lines=node.leading_lines if position == 0 else []))
    last = calls[-1]
    rest = value.deep_replace(last, on_view(last)) if value is not last else on_view(last)
    lines.append(node.with_changes(body=[small.with_changes(value=rest)], leading_lines=[]))
    return cst.FlattenSentinel(lines)



def _tensor_seen(name: str):
    """The prover of the observed form: ``name`` was seen holding a tensor at the chain's line."""

    def prove(seen: Observation) -> str | None:
        events = [e for e in seen.facts.tensor_events(seen.span.path, name)
                  if e["line"] <= seen.span.line and seen.span.end_line <= e["end_line"]]
        if not events:
            return None
        return (f"observed `{name}` holding a tensor at the chained in-place calls in {summarize(events)} call(s) "
                f"over {seen.facts.runs} input set(s)")

    return prove


RULES = (ChainedInplaceView,)
