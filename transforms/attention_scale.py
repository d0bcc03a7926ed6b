"""``F.scaled_dot_product_attention(q, k, v, scale=s)`` with ``s`` computed from a traced size (TRT322).

``scale`` is a Python float parameter: under the TorchScript exporter a number computed from a size
(``num_tokens ** -0.5``, Florence-2's channel attention) is a traced 0-d tensor there, which the
binding reads into a float, so the graph keeps the example's scale. The rewrite calls a helper
(``_trt_sdpa`` in ``trtcodemod/helpers/attention.py``) that is the same call everywhere but in a
trace given a tensor scale, where it multiplies the query by it and passes a scale of 1.
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
TRT712 keeps such a root traced, this rule then takes the tensor it gives). Inside `migrate` or with `--facts`, also a `scale` handed down
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
computes from the input's size.

Fix safety: safe. Eager mode calls the operator with the same arguments (bit for bit, the same
exceptions); the exported graph computes the same attention at every size with the scale in
the query (float rounding of the product differs: within 1e-7 relative in float32).
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
        if self.is_tensor(scale) or not (self._from_sizes(scale) or self.traced_at(node)):
            return
        self.found(node, f"`{short_code(node)}`: `scale` is computed from a size, which the TorchScript export reads "
                         "into a Python float: the graph keeps the example's scale; "
                         f"{HELPER} multiplies the query by the traced scale while tracing (the same call otherwise)",
                   Fix({node: node.with_changes(func=cst.Name(HELPER))}, safety=Safety.SAFE, helpers=(HELPER,)))

    def _from_sizes(self, scale: cst.BaseExpression) -> bool:
        """A number computed from a size: the size itself, arithmetic on it, or any expression holding one
        (``1 / math.sqrt(n)``, ``float(n) ** -0.5``, ``math.pow(x.shape[1], -0.5)``)."""
        return any(self.size_derived(part) for part in _parts(scale))


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
