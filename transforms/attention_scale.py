"""``F.scaled_dot_product_attention(q, k, v, scale=s)`` with ``s`` computed from a traced size (TRT322).

``scale`` is a Python float parameter: under the TorchScript exporter a number computed from a size
(``num_tokens ** -0.5``, Florence-2's channel attention) is a traced 0-d tensor there, which the
binding reads into a float, so the graph keeps the example's scale. The rewrite calls a helper
(``_trt_sdpa`` in ``trtcodemod/helpers/attention.py``) that is the same call everywhere but in a
trace given a tensor scale, where it multiplies the query by it and passes a scale of 1.
Proportional attention's ``math.sqrt(math.log(seq_len, base))`` (Lumina-Next, Lumina 2, OmniGen2) reads
the size into a float before the call; the fix writes that ``math.log``/``math.sqrt`` as the traced-size
helpers (``_trt_size_log``, ``_trt_size_log_base``, ``_trt_size_sqrt`` in ``trtcodemod/helpers/sizes.py``)
in the binding the call reads.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, short_code
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._numpy_torch import configuration
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms._size_facts import SizeRule

HELPER = "_trt_sdpa"
SDPA = "torch.nn.functional.scaled_dot_product_attention"
LOG_HELPER = "_trt_size_log"
LOG_BASE_HELPER = "_trt_size_log_base"
SQRT_HELPER = "_trt_size_sqrt"


class AttentionTracedScale(SizeRule):
    needs_text = (b"scaled_dot_product_attention",)
    info = RuleInfo(
        id="TRT322",
        name="attention-traced-scale",
        summary="`F.scaled_dot_product_attention(..., scale=s)` with `s` computed from a size: the TorchScript "
                "export reads it into a float and keeps the example's scale; scale the query while tracing",
        doc="""\
What it finds, in run-time code: a call of `torch.nn.functional.scaled_dot_product_attention`
(through any import or alias) whose `scale` argument (keyword-only) is
computed from a tensor size: `scale=x.shape[1] ** -0.5`, `scale=n ** -0.5` after
`b, n, c = x.shape` (Florence-2's channel attention scales by the number of tokens, which follows
the image size), or any expression holding one (`scale=1 / math.sqrt(n)`, `float(n) ** -0.5`;
TRT712 keeps such a root traced, this rule then takes the tensor it gives). Also *proportional attention*:
`scale=softmax_scale` where `softmax_scale` was bound earlier in the function (in any arm of an
`if`/`else`, the other arms left as written) to a value holding `math.log` of a size,
`softmax_scale = math.sqrt(math.log(sequence_length, base_sequence_length)) * attn.scale` after
`batch_size, sequence_length, _ = hidden_states.shape` (diffusers' Lumina-Next and Lumina 2 processors,
OmniGen2's, SimpleTuner's copy) or `math.sqrt(math.log(seqlen, self.base_seqlen) / self.head_dim)`
(Alpha-VLLM's Lumina-Next NextDiT and its copies), or such a `math.log` written in the call itself.
`math.log` reads the size into a Python float on that line, before the call, so the fix rewrites the
binding too: each `math.log(E)` / `math.log(E, base)` of a size becomes `_trt_size_log(E)` /
`_trt_size_log_base(E, base)`, and a `math.sqrt` around one `_trt_size_sqrt` (TRT712's helper);
a binding where another `math` function reads the log (`math.exp(math.log(n))`) is not taken.
Inside `migrate` or with `--facts`, also a `scale` handed down
by a caller (transformers' `sdpa_attention_forward(..., scaling=...)` in
`integrations/sdpa_attention.py`) where the observed TorchScript export warned at the call that
it turned a traced value into a Python float. Literals, `None` and configuration (`self.scale`)
are left alone: they never are traced values.

Why it hurts: `scale` is a Python `float` parameter of the operator. Under the TorchScript
exporter a size is a traced 0-d tensor and arithmetic on it stays one, so at this call the
binding converts it to a float (a `TracerWarning`: "Converting a tensor to a Python float") and
the exported graph multiplies by the example's number. Measured with torch 2.13: keys of 7
tokens traced with `scale=n ** -0.5`, then run with 19 tokens, gave attention outputs off by
0.33; the rewritten graph is within 6e-8 of eager mode. `torch.export` (the dynamo exporter)
specializes the float the same way.

The rewrite: the function → `_trt_sdpa`, every argument kept as written (`**kwargs` too). The
helper is `F.scaled_dot_product_attention` itself in eager mode, under `torch.jit.script`,
`torch.fx`, `torch.compile` and `torch.export`, and while tracing whenever `scale` is a Python
number or `None`. Only while the TorchScript tracer passes `scale` as a tensor does it compute
`F.scaled_dot_product_attention(query * scale, key, value, ..., scale=1.0)`: the same
attention (softmax of `(q * s) kᵀ` is softmax of `(q kᵀ) * s`), whose scale the graph now
computes from the input's size. The logarithm helpers are `math.log` itself (with the arguments as
written) outside a trace and scripted TorchScript's scalar `log`; while a trace passes a size they
compute a float32 `Log` (over the base's: a traced `Log` for a traced base, `math.log` of a number),
and `_trt_size_sqrt` a float32 `Sqrt`. Measured with torch 2.13 on diffusers' Lumina-Next processor
(base 16, exported at 12 tokens): the original graph was off by 0.07 at 64 tokens and by 0.018 at the
base length itself; the rewritten one is within 2e-7 of eager mode from 1 token (log 0: a zero
scale, uniform attention) to 64.

Fix safety: safe. Eager mode calls the operator with the same arguments (bit for bit, the same
exceptions), and `math.log`/`math.sqrt` on the same numbers (the same floats, and the same
`ValueError`/`TypeError` for no tokens, a base of 1 or `None`); the exported graph computes the same
attention at every size with the scale in the query (float rounding of the product differs: within
1e-7 relative in float32; a logarithm and root of the size in float32 differ from the double ones
by a few float32 ulps). Where eager mode raises (no tokens: `math.log(0)`), the graph computes NaN.
TensorRT versions: all (the graph is wrong before TensorRT sees it).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "class ChannelAttention(nn.Module):\n"
                "    def forward(self, q, k, v):\n"
                "        b, h, n, d = k.shape\n"
                "        return F.scaled_dot_product_attention(q, k, v, scale=n ** -0.5)\n",
                "class ChannelAttention(nn.Module):\n"
                "    def forward(self, q, k, v):\n"
                "        b, h, n, d = k.shape\n"
                "        return _trt_sdpa(q, k, v, scale=n ** -0.5)\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html",
            "https://pytorch.org/docs/stable/onnx_torchscript.html",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: Per function frame (by identity; the frame is held, so no later frame reuses its id): a name → the
        #: values bound to it that hold a ``math.log`` of a size.
        self._logged: dict[int, tuple[object, dict[str, list[tuple[cst.BaseExpression, cst.BaseExpression,
                                                                   frozenset[str]]]]]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        if not self._frames or not self.active() or in_inserted_helper(self):
            return
        if self.context.refers_to(node.func, SDPA) is None:
            return
        given = argument(node, None, "scale")  # keyword-only
        if given is None:
            return
        scale = given.value
        if type(scale) in (cst.Integer, cst.Float) or type(scale) is cst.Name and scale.value == "None" \
                or configuration(scale):
            return
        if self.is_tensor(scale):
            return
        bound = self._logged_bindings(scale)
        if not (bound or self._from_sizes(scale) or self.traced_at(node)):
            return
        helpers = {HELPER}
        replacements: dict[cst.CSTNode, cst.CSTNode] = {}
        call = node.with_changes(func=cst.Name(HELPER))
        inline = _TracedLogs(self)
        args = [arg.with_changes(value=arg.value.visit(inline)) if arg is given else arg for arg in node.args]
        if inline.helpers:
            call = call.with_changes(args=args)
            helpers |= inline.helpers
        replacements[node] = call
        for value, rewritten, needed in bound:
            replacements[value] = rewritten
            helpers |= needed
        logged = inline.helpers or bound
        self.found(node, f"`{short_code(node)}`: `scale` is computed from a size, which the TorchScript export reads "
                         "into a Python float: the graph keeps the example's scale; "
                         + ("the `math.log` (and `math.sqrt` of it) of the size becomes "
                            "_trt_size_log/_trt_size_log_base "
                            "(_trt_size_sqrt), traced while tracing (`math` itself otherwise), and " if logged else "")
                         + f"{HELPER} multiplies the query by the traced scale while tracing (the same call otherwise)",
                   Fix(replacements, safety=Safety.SAFE, helpers=tuple(sorted(helpers))))

    def visit_Assign(self, node: cst.Assign) -> None:
        """``s = math.sqrt(math.log(n, base)) * attn.scale`` with ``n`` a size (proportional attention): remembered
        per function, so that a later ``scale=s`` is taken with the logarithm kept traced. The frame still holds
        what was bound before this statement (the size facts update on leaving it)."""
        if not self._frames or not self.active() or in_inserted_helper(self):
            return
        if len(node.targets) != 1 or type(node.targets[0].target) is not cst.Name:
            return
        if self.is_tensor(node.value) or not any(self.size_log(part) for part in _parts(node.value)):
            return
        logs = _TracedLogs(self)
        rewritten = node.value.visit(logs)
        if not logs.helpers or _baked_math(self, node.value):
            return
        name = node.targets[0].target.value
        frame = self._frames[-1]
        self._logged.setdefault(id(frame), (frame, {}))[1].setdefault(name, []).append(
            (node.value, rewritten, frozenset(logs.helpers)))

    def _logged_bindings(self, scale: cst.BaseExpression) -> list[tuple[cst.BaseExpression, cst.BaseExpression,
                                                                          frozenset[str]]]:
        """The values bound to the name ``scale`` earlier in this function that hold a ``math.log`` of a size:
        (value, its rewrite, the helpers that needs)."""
        if type(scale) is not cst.Name or not self._frames:
            return []
        frame = self._frames[-1]
        held, names = self._logged.get(id(frame), (None, {}))
        return list(names.get(scale.value, ())) if held is frame else []

    def size_log(self, expr: cst.BaseExpression) -> bool:
        """``math.log(E)`` or ``math.log(E, base)`` whose operands hold a size (``math.log(sequence_length,
        base_sequence_length)``, ``sequence_length`` unpacked from ``hidden_states.shape``)."""
        if type(expr) is not cst.Call or not 1 <= len(expr.args) <= 2 \
                or any(arg.keyword is not None or arg.star for arg in expr.args):
            return False
        if "math.log" not in self.context.qualified_names(expr.func):
            return False
        return any(self.size_derived(part) for arg in expr.args for part in _parts(arg.value)) \
            and not any(self.is_tensor(arg.value) for arg in expr.args)

    def _from_sizes(self, scale: cst.BaseExpression) -> bool:
        """A number computed from a size: the size itself, arithmetic on it, or any expression holding one
        (``1 / math.sqrt(n)``, ``float(n) ** -0.5``, ``math.pow(x.shape[1], -0.5)``)."""
        return any(self.size_derived(part) for part in _parts(scale))


class _TracedLogs(cst.CSTTransformer):
    """Each ``math.log`` of a size as ``_trt_size_log`` (``_trt_size_log_base`` with a base), and each
    ``math.sqrt`` around one as ``_trt_size_sqrt``: ``math`` itself outside a trace, traced float32
    ``Log``/``Sqrt`` in one.
    ``helpers`` names the helpers written (empty: nothing to rewrite)."""

    def __init__(self, rule: AttentionTracedScale) -> None:
        super().__init__()
        self.rule = rule
        self.helpers: set[str] = set()

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if type(original_node.func) is cst.Name and original_node.func.value in _HELPERS:
            return updated_node
        if self.rule.size_log(original_node):
            helper = LOG_HELPER if len(original_node.args) == 1 else LOG_BASE_HELPER
            self.helpers.add(helper)
            return updated_node.with_changes(func=cst.Name(helper))
        if len(original_node.args) == 1 and original_node.args[0].keyword is None and not original_node.args[0].star \
                and "math.sqrt" in self.rule.context.qualified_names(original_node.func) \
                and any(type(part) is cst.Call and type(part.func) is cst.Name
                        and part.func.value in (LOG_HELPER, LOG_BASE_HELPER)
                        for part in _parts(updated_node.args[0].value)):
            self.helpers.add(SQRT_HELPER)
            return updated_node.with_changes(func=cst.Name(SQRT_HELPER))
        return updated_node


_HELPERS = (LOG_HELPER, LOG_BASE_HELPER, SQRT_HELPER)


def _baked_math(rule: AttentionTracedScale, expr: cst.BaseExpression) -> bool:
    """Another ``math.*`` call around a logarithm of a size (``math.exp(math.log(n))``, ``math.floor``): it would
    read the traced number into a float again, so the binding is not taken."""
    for part in _parts(expr):
        if type(part) is not cst.Call:
            continue
        names = set(rule.context.qualified_names(part.func))
        if any(name.startswith("math.") for name in names) and not names & {"math.log", "math.sqrt"} \
                and any(rule.size_log(inner) for inner in _parts(part)):
            return True
    return False


def _parts(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """``expr`` and the expressions inside it, outside lambdas."""
    found: list[cst.BaseExpression] = []
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Lambda):
            continue
        if isinstance(node, cst.BaseExpression):
            found.append(node)
        stack.extend(node.children)
    return found


RULES = (AttentionTracedScale,)
