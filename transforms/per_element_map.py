"""A comprehension over a tensor's first axis that applies a function to each element, then stacks (TRT366).

RetinaFace's decoding wrappers decode each image's boxes against one set of priors::

    boxes = torch.stack([decode(l, priors, variances) for l in loc])

Iterating a tensor makes a trace unroll the comprehension with the example's batch size. The rewrite
``_trt_stack_map(decode(l, priors, variances) for l in _trt_rows(loc))`` keeps the comprehension (as a
generator expression) for eager code and scripts, and maps its element function with ``torch.vmap``
while tracing.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import code_of, walk
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety, spelled
from trtcodemod.transforms._tensor_evidence import TensorEvidence
from trtcodemod.transforms.stacked_rows import _first_axis, _plain, _range_bound, _stack_rest

HELPER = "_trt_stack_map"
ROWS = "_trt_rows"

_ASSUMPTION = ("the comprehension's element function treats each element on its own (no element's result "
               "depends on another's, on how many there are, or on state the function changes), and where "
               "`torch.vmap` runs it, it computes what the loop computes")

#: Calls whose results differ from one call to the next: vmap draws them for the whole batch at once.
_RANDOM = frozenset({"rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm",
                     "bernoulli", "multinomial", "normal", "normal_", "uniform_", "dropout", "dropout1d",
                     "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "exponential_",
                     "geometric_", "cauchy_", "log_normal_", "random_", "bernoulli_"})

#: Methods that change the object they are called on: on a name other than the element, an outer write.
_MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "remove",
                       "clear", "add", "discard", "__setitem__", "__setattr__"})

#: What a trace says where a comprehension iterates a tensor.
_ITERATING = "Iterating over a tensor"


def _called_name(call: cst.Call) -> str | None:
    """The last name of what ``call`` calls (``torch.rand`` → ``rand``, ``x.add_`` → ``add_``)."""
    func = call.func
    if type(func) is cst.Attribute:
        return func.attr.value
    return func.value if type(func) is cst.Name else None


def _refusal(elt: cst.BaseExpression, element: str) -> str | None:
    """Why the element expression ``elt`` (``element``: the loop variable) cannot be mapped, or None."""
    for node in walk(elt):
        if type(node) in (cst.NamedExpr, cst.Yield, cst.Await, cst.Lambda, cst.ListComp, cst.GeneratorExp,
                          cst.SetComp, cst.DictComp):
            return "a nested scope or an assignment expression"
        if type(node) is not cst.Call:
            continue
        name = _called_name(node)
        if name in _RANDOM:
            return f"a random call (`{name}`): vmap draws for the whole batch at once"
        if name in ("setattr", "delattr"):
            return "it writes an attribute"
        func = node.func
        if type(func) is cst.Attribute and (name in _MUTATORS or name.endswith("_") and not name.endswith("__")):
            receiver = func.value
            while type(receiver) in (cst.Attribute, cst.Subscript):
                receiver = receiver.value
            if not (type(receiver) is cst.Name and receiver.value == element):
                return f"it changes an outer object (`.{name}`)"
    return None


class _Rename(cst.CSTTransformer):
    """``source[i]`` → ``i``, for the range form."""

    def __init__(self, source: str, index: str) -> None:
        super().__init__()
        self.source, self.index = source, index

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if _element_read(original, self.source, self.index):
            return cst.Name(self.index)
        return updated


def _element_read(node: cst.CSTNode, source: str, index: str) -> bool:
    """Is ``node`` ``source[index]``?"""
    return type(node) is cst.Subscript and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index \
        and type(node.slice[0].slice.value) is cst.Name and node.slice[0].slice.value.value == index \
        and code_of(node.value).strip() == source


def _range_source(iterator: cst.BaseExpression) -> cst.BaseExpression | None:
    """``t`` of ``range(t.shape[0])``, ``range(t.size(0))`` or ``range(len(t))``, ``t`` a plain name or attribute
    chain."""
    bound = _range_bound(iterator)
    if bound is None:
        return None
    if _first_axis(bound):
        return bound.value.value if type(bound) is cst.Subscript else bound.func.value
    if type(bound) is cst.Call and type(bound.func) is cst.Name and bound.func.value == "len" \
            and len(bound.args) == 1 and bound.args[0].keyword is None and not bound.args[0].star \
            and _plain(bound.args[0].value):
        return bound.args[0].value
    return None


class PerElementMap(Rule):
    needs_text = spelled("torch.stack")
    requires = (TensorEvidence, ObservedFacts)
    info = RuleInfo(
        id="TRT366",
        name="per-element-map",
        summary="`torch.stack([f(e) for e in t])` over a tensor's first axis: tracing unrolls it with the example's "
                "batch size; map `f` with `torch.vmap` while tracing",
        doc=f"""\
What it finds: `torch.stack([f(e) for e in t])` (also `torch.stack(..., 0)` / `dim=0`), and
`torch.stack([f(t[i]) for i in range(t.shape[0])])` (or `t.size(0)`, `len(t)`) where `i` is read
only as `t[i]`, with `t` a plain name or attribute chain that is a tensor: visibly (a forward input,
a `Tensor` annotation, a torch call's result), seen holding one by a recorded run, or where the
recorded export warned "{_ITERATING}" at the comprehension. One `for`, no condition, the element a
single name. Refused: an element expression that draws random numbers (`torch.rand*`, `dropout`,
`normal_`...), calls a method that changes an object other than the element (`.append`,
`.update`, an in-place `x.add_` on an outer `x`), `setattr`, or holds a nested comprehension, a
lambda or `:=`. RetinaFace's decoding wrappers (`torch.stack([decode(l, priors, [0.1, 0.2]) for l
in loc])`), per-image affine warps and crops, pose decoders.

Why it hurts: iterating a tensor makes a traced export unroll the comprehension with the example's
batch size: at another batch the graph still returns the example's number of results (or fails).

The rewrite: `{HELPER}(f(e) for e in {ROWS}(t))` (the range form reads `t[i]` as the element `i`).
Eager mode, `torch.fx`, `torch.compile` and `torch.export` iterate `t` and stack as written (a
generator expression consumed at once: the same calls in the same order); `torch.jit.script`
compiles the generator expression as the list comprehension it was, and the helpers take
`torch.stack` there. While `torch.jit.trace` records the model (both ONNX exporters' TorchScript
path), `{ROWS}` gives the rows without unrolling them and `{HELPER}` runs the generator's own code
once, under `torch.vmap`, on the whole of `t`: the graph follows the batch size. Where vmap refuses
the function (a value read with `.item()`, a data-dependent `if`, random ops, a result that is
not one tensor) the elements are computed one by one as written, unrolled as before.

Fix safety: unsafe: {_ASSUMPTION}. The code of `f` may lie in another file; `migrate` applies the
fix where the export warned at the comprehension and keeps it only where the rewritten model's
graph is faithful and equivalent on its inputs.""",
        fix=Safety.UNSAFE,
        assumption=_ASSUMPTION,
        examples=(
            Example(
                "def decode_batch(loc: torch.Tensor, priors):\n"
                "    return torch.stack([decode(l, priors, [0.1, 0.2]) for l in loc])\n",
                "def decode_batch(loc: torch.Tensor, priors):\n"
                f"    return {HELPER}(decode(l, priors, [0.1, 0.2]) for l in {ROWS}(loc))\n",
                unsafe=True,
            ),
            Example(
                "def warp_all(images: torch.Tensor, matrices):\n"
                "    return torch.stack([warp(images[i], matrices) for i in range(images.shape[0])], dim=0)\n",
                "def warp_all(images: torch.Tensor, matrices):\n"
                f"    return {HELPER}(warp(i, matrices) for i in {ROWS}(images))\n",
                unsafe=True,
            ),
        ),
        references=("https://pytorch.org/docs/stable/generated/torch.vmap.html",
                    "https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls"),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not node.args or type(node.args[0].value) is not cst.ListComp \
                or self.context.refers_to(node.func, "torch.stack") is None or not _stack_rest(node):
            return
        comp = node.args[0].value
        clause = comp.for_in
        if clause.inner_for_in is not None or clause.ifs or clause.asynchronous is not None \
                or type(clause.target) is not cst.Name:
            return
        element = clause.target.value
        source = _range_source(clause.iter)
        elt = comp.elt
        if source is not None:
            text = code_of(source).strip()
            reads = [n for n in walk(elt) if type(n) is cst.Name and n.value == element]
            elements = [n for n in walk(elt) if _element_read(n, text, element)]
            if len(reads) != len(elements) or not elements:
                return  # the index is read as a number somewhere: no element function to map
            elt = elt.visit(_Rename(text, element))
        elif _plain(clause.iter):
            source = clause.iter
        else:
            return
        if _refusal(elt, element) is not None or not self._tensor(source, node):
            return
        generator = cst.GeneratorExp(elt.deep_clone(), cst.CompFor(
            target=cst.Name(element), iter=cst.Call(cst.Name(ROWS), [cst.Arg(source.deep_clone())])),
            lpar=[], rpar=[])  # the call's only argument: its own parentheses are the generator's
        self.report(node, "a comprehension applies a function to each element along a tensor's first axis, then "
                          "stacks: a trace unrolls it with the example's batch size; "
                          f"`{HELPER}` maps the function with `torch.vmap` while tracing; assumes {_ASSUMPTION}",
                    Fix({node: cst.Call(cst.Name(HELPER), [cst.Arg(generator)])}, safety=Safety.UNSAFE,
                        helpers=(HELPER, ROWS)))

    def _tensor(self, source: cst.BaseExpression, stack: cst.Call) -> bool:
        """Is ``source`` a tensor: visibly, seen holding one, or iterated where the export warned so?"""
        if self.provider(TensorEvidence).evident(source):
            return True
        observed = self.provider(ObservedFacts)
        return observed.is_tensor(source) or any(_ITERATING in m for m in observed.traced_messages(stack))


RULES = (PerElementMap,)
