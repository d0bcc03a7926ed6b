"""``flex_attention(q, k, v, ...)`` → ``_trt_flex_attention(flex_attention, q, k, v, ...)`` (TRT315):
the attention it defines, written with ``matmul`` and ``softmax`` while exporting.

The call is found by the function's qualified name (``torch.nn.attention.flex_attention.flex_attention``
through any import or alias) and through a name or attribute bound in the same file to
``torch.compile(flex_attention, ...)``, the way most code calls it. Every argument is kept as
written; the attention function goes first, so eager mode calls exactly what it called.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, code_of, short_code
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_flex_attention"
FLEX = "torch.nn.attention.flex_attention.flex_attention"

_MESSAGE = ("`flex_attention` is a higher-order operator neither ONNX exporter writes (the TorchScript trace stops "
            "inside it: \"Unsupported value kind: Tensor\")")


class FlexAttention(Rule):
    needs_text = (b"flex_attention",)
    info = RuleInfo(
        id="TRT315",
        name="flex-attention",
        summary="`flex_attention` does not export (a higher-order operator with no ONNX form); "
        "compute the attention it defines with matmul and softmax while exporting",
        doc="""\
What it finds: calls of `torch.nn.attention.flex_attention.flex_attention` (through any import
or alias), and calls through a name or attribute that every assignment in the same file binds to
it, to `torch.compile(flex_attention, ...)` or to a conditional choosing between one of those and
another callable, the ways most models call it (`flex_attention = torch.compile(flex_attention)`,
`self.attend = torch.compile(flex_attention, dynamic=False)`, transformers'
`compiled() if not is_torchdynamo_compiling() else flex_attention`), or to a call of a function
of the file whose every `return` gives one of those (torchtune's `flex_attention_compiled =
compile_flex_attention()`), also as a class attribute called through its class (torchtitan's
`FlexAttentionWrapper._compiled_flex_attn`, bound in the class body with an annotation). A
`functools.partial` of it
is left alone: the arguments it holds are not visible at the call.

Why it hurts: `flex_attention` is a higher-order operator. The TorchScript exporter's trace
stops inside it (with `block_mask=None` it builds an empty block mask with `vmap`:
"RuntimeError: Unsupported value kind: Tensor"; on CPU with gradients enabled it refuses
before that), and no ONNX translation of the operator exists, so there is no ONNX file for
TensorRT. vit-pytorch's N-d ViTs take this path wherever the compiled kernel is available (CUDA,
AVX2 CPUs).

The rewrite: `flex_attention(q, k, v, block_mask=bm, scale=s)` →
`_trt_flex_attention(flex_attention, q, k, v, block_mask=bm, scale=s)`, every argument kept.
Outside `torch.onnx.export` the helper calls the function it is given (the compiled one stays
compiled). While exporting it computes what `flex_attention` defines, as torch's own eager
implementation does: scores `q @ k^T * scale` in float32 (float64 for float64 inputs; `scale`
defaulting to `1/sqrt(E)`), `score_mod(score, b, h, q_idx, kv_idx)` called once on the whole
score tensor with broadcast index tensors, scores where the block mask's
`mask_mod(b, h, q_idx, kv_idx)` is false set to `-inf`, softmax with rows that exclude every key
giving zeros, the weights in the query's dtype times the values; `enable_gqa` shares each
key/value head among its group of query heads; `return_lse` adds the log-sum-exp. It exports as
`MatMul`, `Softmax` and elementwise nodes, which every TensorRT release parses. The values
equal torch's eager CPU implementation bit for bit in our tests.

Fix safety: unsafe. Eager mode, `torch.compile` and `torch.export` call the original
function with the same arguments. The export formulation assumes that `score_mod` and the
block mask's `mask_mod` are elementwise in their index arguments (they are written for scalars
and `flex_attention` vectorises them with `vmap`; a function that reduces over its arguments or
branches on their values in Python differs when called on broadcast tensors), and that a
block mask agrees with its `mask_mod` (true of `create_block_mask`; a mask assembled from
blocks by hand may exclude blocks its `mask_mod` keeps). A block mask without a `mask_mod`
(other than the empty one), `return_aux` and tensors that are not 4-D keep `flex_attention`
(and its failing export). `migrate` tries the fix as a candidate and keeps it only when the
rewritten model is verified equivalent.

TensorRT versions: all.""",
        fix=Safety.UNSAFE,
        assumption="`score_mod` and the block mask's `mask_mod` are elementwise in their index arguments, and the "
                   "block mask agrees with its `mask_mod` (as `create_block_mask` makes it)",
        fails_when=(
            "a callable that a conditional chooses beside `flex_attention` computes something else",
            "a `score_mod` or `mask_mod` that reduces over its arguments or branches on their values in Python "
            "(it is written for scalars; the export formulation calls it once on broadcast index tensors)",
            "a block mask assembled from blocks by hand whose blocks exclude positions its `mask_mod` keeps",
            "the export formulation rounds like torch's eager implementation, not like a fused GPU kernel: "
            "values agree within float32 rounding, not bit for bit, with the compiled kernel",
        ),
        examples=(
            Example(
                "from torch.nn.attention.flex_attention import flex_attention\n"
                "def attend(q, k, v, block_mask=None, scale=None):\n"
                "    return flex_attention(q, k, v, block_mask=block_mask, scale=scale)\n",
                "from torch.nn.attention.flex_attention import flex_attention\n"
                "def attend(q, k, v, block_mask=None, scale=None):\n"
                "    return _trt_flex_attention(flex_attention, q, k, v, block_mask=block_mask, scale=scale)\n",
                unsafe=True,
            ),
            Example(
                "compiled_flex = torch.compile(torch.nn.attention.flex_attention.flex_attention, dynamic=False)\n\n\n"
                "def attend(q, k, v, mask):\n"
                "    return compiled_flex(q, k, v, block_mask=mask)\n",
                "compiled_flex = torch.compile(torch.nn.attention.flex_attention.flex_attention, dynamic=False)\n\n\n"
                "def attend(q, k, v, mask):\n"
                "    return _trt_flex_attention(compiled_flex, q, k, v, block_mask=mask)\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/nn.attention.flex_attention.html",
            "https://pytorch.org/blog/flexattention/",
            "https://github.com/lucidrains/vit-pytorch/blob/main/vit_pytorch/vit_nd_masking.py",
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        #: The code of names and attributes bound to `torch.compile(flex_attention, ...)` in this file.
        self._compiled: set[str] = set()
        for found in _compiled_bindings(self, node):
            self._compiled.add(found)

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self):
            return
        func = node.func
        if not self.context.refers_to(func, FLEX) and code_of(func) not in self._compiled:
            return
        args = [cst.Arg(value=func, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), *node.args]
        self.report(node, f"`{short_code(node)}`: {_MESSAGE}; `{HELPER}` computes the attention it defines with "
                          "matmul and softmax while exporting (the same call otherwise)",
                    Fix({node: node.with_changes(func=cst.Name(HELPER), args=args)}, safety=Safety.UNSAFE,
                        helpers=(HELPER,)))


def _compiled_bindings(rule: FlexAttention, module: cst.Module) -> list[str]:
    """Targets (code) that every assignment in the file binds to ``flex_attention``: the function
    itself, ``torch.compile(flex_attention, ...)``, or a conditional expression choosing between
    one of those and another callable (``compiled() if not compiling else flex_attention``), or a
    call of a function defined once in the file whose every ``return`` gives one of those
    (torchtune's ``flex_attention_compiled = compile_flex_attention()``)."""
    values: dict[str, list[bool]] = {}
    factories: set[str] = set()

    def flex_like(value: cst.BaseExpression, top: bool = True) -> bool:
        if rule.context.refers_to(value, FLEX):
            return True
        if type(value) is cst.Call and rule.context.refers_to(value.func, "torch.compile"):
            compiled = argument(value, 0, "model")
            return compiled is not None and bool(rule.context.refers_to(compiled.value, FLEX))
        if top and type(value) is cst.IfExp:
            return flex_like(value.body, False) or flex_like(value.orelse, False)
        if top and type(value) is cst.Call and type(value.func) is cst.Name:
            return value.func.value in factories
        return False

    factories = _flex_factories(module, flex_like)

    class Finder(cst.CSTVisitor):
        def __init__(self) -> None:
            self.classes: list[str] = []  # the class whose body binds a name (not inside its methods)

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            self.classes.append(node.name.value)

        def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
            self.classes.pop()

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.classes.append("")

        def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
            self.classes.pop()

        def bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
            if type(target) not in (cst.Name, cst.Attribute):
                return
            code = code_of(target)
            if type(target) is cst.Name and self.classes and self.classes[-1]:
                # A class attribute (torchtitan's `_compiled_flex_attn: ClassVar[Callable] =
                # torch.compile(flex_attention, ...)`), called through the class.
                code = f"{self.classes[-1]}.{code}"
            values.setdefault(code, []).append(flex_like(value))

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                self.bind(target.target, node.value)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if node.value is not None:
                self.bind(node.target, node.value)

    module.visit(Finder())
    return [target for target, kinds in values.items() if all(kinds)]


def _flex_factories(module: cst.Module, flex_like) -> set[str]:
    """Names of functions defined once in the file (at any depth outside classes), bound by no
    assignment, with at least one ``return`` and every ``return`` (outside nested functions)
    giving a value ``flex_like`` accepts."""
    defined: dict[str, list[cst.FunctionDef]] = {}
    assigned: set[str] = set()

    class Returns(cst.CSTVisitor):
        def __init__(self) -> None:
            self.values: list[cst.BaseExpression | None] = []

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_Return(self, node: cst.Return) -> None:
            self.values.append(node.value)

    class Finder(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            defined.setdefault(node.name.value, []).append(node)

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if type(node.target) is cst.Name:
                assigned.add(node.target.value)

    module.visit(Finder())
    found: set[str] = set()
    for name, nodes in defined.items():
        if len(nodes) != 1 or name in assigned:
            continue
        returns = Returns()
        nodes[0].body.visit(returns)
        if returns.values and all(value is not None and flex_like(value) for value in returns.values):
            found.add(name)
    return found


RULES = (FlexAttention,)
