"""``is None`` tests that a traced export bakes in: optional inputs and per-frame state (TRT721).

A Python ``is None`` test is decided once, while tracing. That is harmless for
configuration (``if self.norm is not None:`` where ``self.norm`` is only set while the
module is built) and wrong for what changes from call to call: an optional ``forward``
input, or state the module writes at run time (``self.prev_bev``). Detect only; see
:mod:`trtcodemod.transforms._runtime_scope` for which code counts as forward code.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import bound_names, method_call, short_code, walk
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule, _closure

_TORCHSCRIPT = "https://pytorch.org/docs/stable/onnx_torchscript.html#avoiding-pitfalls"

#: Methods only tensors have (among the common ones): a receiver of one is evidence of a tensor.
_TENSOR_METHODS = frozenset({
    "float", "half", "bool", "long", "int", "to", "view", "reshape", "unsqueeze", "squeeze", "permute",
    "transpose", "flatten", "expand", "expand_as", "masked_fill", "sum", "mean", "detach", "contiguous",
    "type_as", "new_zeros", "new_ones", "softmax", "sigmoid", "matmul", "size", "dim", "numel", "cuda", "clone",
})


def _none_test(node: cst.Comparison) -> tuple[cst.BaseExpression, bool] | None:
    """``x is None`` → (x, True), ``x is not None`` → (x, False); ``None is x`` too."""
    if len(node.comparisons) != 1:
        return None
    target = node.comparisons[0]
    if type(target.operator) not in (cst.Is, cst.IsNot):
        return None
    left, right = node.left, target.comparator
    if type(right) is cst.Name and right.value == "None":
        subject = left
    elif type(left) is cst.Name and left.value == "None":
        subject = right
    else:
        return None
    return subject, type(target.operator) is cst.Is


def _self_attr(node: cst.BaseExpression) -> str | None:
    """``self.x`` → ``x`` (only a direct attribute of ``self``)."""
    if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self":
        return node.attr.value
    return None


def _assigned_self_attrs(target: cst.BaseExpression) -> list[str]:
    """First attributes after ``self`` that an assignment target writes (``self.a``, ``self.a[i]``, tuples)."""
    if type(target) in (cst.Tuple, cst.List):
        found: list[str] = []
        for element in target.elements:
            found.extend(_assigned_self_attrs(element.value))
        return found
    if type(target) is cst.StarredElement:
        return _assigned_self_attrs(target.value)
    node = target
    while type(node) in (cst.Attribute, cst.Subscript):
        if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self":
            return [node.attr.value]
        node = node.value
    return []


def _default_none_params(func: cst.FunctionDef) -> dict[str, cst.Param]:
    params = (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)
    return {
        p.name.value: p for p in params
        if type(p.default) is cst.Name and p.default.value == "None"
    }


def _annotated_tensor(param: cst.Param) -> bool:
    """``Tensor`` / ``Optional[Tensor]``; not a container of tensors (``list[dict[str, Tensor]]``)."""
    if param.annotation is None:
        return False
    names = [_last(n) for n in walk(param.annotation.annotation) if type(n) in (cst.Name, cst.Attribute)]
    containers = {"list", "List", "dict", "Dict", "tuple", "Tuple", "Sequence", "Mapping", "Iterable"}
    return "Tensor" in names and not containers & set(names)


def _last(node: cst.Name | cst.Attribute) -> str:
    return node.value if type(node) is cst.Name else node.attr.value


class NoneCheck(RuntimeScopeRule):
    scope = "forward"
    requires = (ObservedFacts,)
    info = RuleInfo(
        id="TRT721",
        name="none-check",
        summary="`is None` on an optional forward input or per-frame state: the trace keeps one branch",
        doc="""\
What it finds, in forward code of `nn.Module` subclasses: `x is None` / `x is not None`
where `x` is
- a parameter of `forward` whose default is `None` and which the code shows is a tensor (a
  `Tensor` annotation, a tensor method called on it, or an argument of a torch function), or
  which a recorded run (`migrate`, `--facts`) saw the model called with as a tensor input
  (CenterTrack's `pre_img`, only handed on to a helper), tested before anything else is
  assigned to it (`if mask is not None:`);
- an attribute of `self` that the forward pass itself assigns (in `forward` or a method it
  calls): per-frame state like `if self.prev_bev is None:`.

Not reported: attributes assigned only while the object is built (`__init__` and the
methods only it calls) or by model surgery before the export (`fuse()`, `reparameterize()`,
`reset_classifier()`): `if self.norm is not None:` is configuration, fixed for the exported
model. Attributes the class never assigns (set by
a base class or from outside) are not reported either: where they change is not visible.
Tests in `assert` statements are not reported.

Why it hurts: a traced export (both exporters) runs the Python test once, on the example
call, and records only the branch it took; ONNX has no `None`, so the choice cannot become
part of the graph. With an optional input, the graph either has no such input at all
(traced with `None`) or always uses it; with state, the engine keeps the first frame's
branch forever (for example it never uses the previous frame's features, or always does).

What to do: move the decision outside the exported graph (export one engine per case, or
keep the first-frame logic in the caller), or make it a tensor: always pass the input (an
all-ones mask, zeros for missing features) together with an indicator tensor input such as
`use_prev_bev` (0 or 1), and blend the two branches with it
(`y = use * with_prev + (1 - use) * without`).

`trtcodemod migrate` does that for an optional input whose test ran (docs/temporal.md): the
adapter `forward` keeps the signature, `forward_step` takes the tensor plus `has_<name>`, the
branches become `torch.where`, and the contract lists the input and its absent value (zeros).
That lift is unsafe by label: both branches run on every call (the given branch on zeros when
the input is absent: it must not raise, and it costs time), the placeholder's shape is taken
from the observed calls, and gradients through the branch not taken are zero unless its
backward is inf/NaN; it is kept only when the rewritten model equals the original bit for bit
on frames with the input absent and given, and the exported wrapper follows it frame by frame.

Fix safety: none (detect only): the signature and the caller change. Applies to every
TensorRT version and both exporters.""",
        fix=Safety.NONE,
        examples=(
            Example(
                "class Encoder(nn.Module):\n"
                "    def forward(self, bev_queries):\n"
                "        if self.prev_bev is None:\n"
                "            self.prev_bev = torch.zeros_like(bev_queries)\n"
                "        out = bev_queries + self.prev_bev\n"
                "        self.prev_bev = out.detach()\n"
                "        return out\n"
            ),
            Example(
                "class Attention(nn.Module):\n"
                "    def forward(self, q, k, mask: Optional[torch.Tensor] = None):\n"
                "        scores = q @ k.transpose(-2, -1)\n"
                "        if mask is not None:\n"
                "            scores = scores.masked_fill(mask, float('-inf'))\n"
                "        return scores.softmax(-1)\n"
            ),
        ),
        references=(_TORCHSCRIPT, "https://onnx.ai/onnx/intro/concepts.html#input-output-node-initializer-attributes"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: Per open class: attribute → methods assigning it; (method, node, attr, message) candidates.
        self._assigned: list[dict[str, set[str]]] = []
        self._candidates: list[list[tuple[cst.FunctionDef, cst.CSTNode, str, str]]] = []
        #: Per open forward: parameter name → first position it is rebound (walk order), tensor evidence.
        self._forward_info: dict[int, tuple[dict[str, int], set[str], dict[int, int]]] = {}
        self._asserts = 0

    # --- classes ----------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._assigned.append({})
        self._candidates.append([])

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        record = self._classes[-1]
        assigned = self._assigned.pop()
        candidates = self._candidates.pop()
        if candidates and record.is_module:
            build_roots = {
                name for name in record.methods
                if name.startswith("__") and name.endswith("__") and name != "__call__"
            }
            # Per-frame state is written by the forward pass itself. An attribute only set by
            # model surgery before export (`fuse`, `reparameterize`, `reset_classifier`) is
            # configuration by the time the model is traced.
            roots = {name for name in ("forward", "__call__") if name in record.methods}
            runtime = _closure(roots, record.calls) - (_closure(build_roots, record.calls) - _closure(roots, record.calls))
            for method, node, attr, message in candidates:
                writers = sorted(assigned.get(attr, set()) & runtime)
                if writers:
                    where = ", ".join(f"`{w}`" for w in writers[:3])
                    self.hold(record, method, node, message.format(where=where))
        super().leave_ClassDef(original_node)

    # --- assignments to self ----------------------------------------------------
    def _record(self, target: cst.BaseExpression) -> None:
        where = self.current_method()
        if where is None or not self._assigned:
            return
        for attr in _assigned_self_attrs(target):
            self._assigned[-1].setdefault(attr, set()).add(where[1].name.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._record(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._record(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._record(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is cst.Name and func.value == "setattr" and len(node.args) >= 2:
            first, name = node.args[0].value, node.args[1].value
            if type(first) is cst.Name and first.value == "self" and type(name) is cst.SimpleString:
                where = self.current_method()
                if where is not None and self._assigned:
                    self._assigned[-1].setdefault(name.evaluated_value, set()).add(where[1].name.value)

    # --- the tests --------------------------------------------------------------
    def visit_Assert(self, node: cst.Assert) -> None:
        self._asserts += 1

    def leave_Assert(self, original_node: cst.Assert) -> None:
        self._asserts -= 1

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if self._asserts or not self._torch:
            return
        test = _none_test(node)
        if test is None:
            return
        subject, is_none = test
        text = f"`{short_code(subject, 40)} {'is' if is_none else 'is not'} None`"
        attr = _self_attr(subject)
        where = self.current_method()
        if where is None or not where[0].is_module:
            return
        method = where[1]
        if attr is not None:
            if self._scopes[-1] is not method:
                return  # inside a nested function: not the method's own code
            self._candidates[-1].append((
                method, node, attr,
                f"{text} tests run-time state (`self.{attr}` is assigned in {{where}}): a traced export keeps only "
                "the branch taken while tracing; decide outside the exported graph, or pass an indicator tensor "
                "input and blend both branches",
            ))
            return
        if type(subject) is not cst.Name or method.name.value != "forward" or self._scopes[-1] is not method:
            return
        params = _default_none_params(method)
        param = params.get(subject.value)
        if param is None:
            return
        rebound, tensors, order = self._forward(method)
        name = subject.value
        if rebound.get(name, 1 << 30) < order.get(id(node), 0):
            return  # no longer the input here
        if name not in tensors and not _annotated_tensor(param) and not self._observed_tensor(method, name):
            return  # nothing shows it is a tensor (could be metadata, a flag, a list)
        self.found(node, f"{text} tests an optional forward input: the export keeps only the branch of the traced "
                   f"call (traced with `{name}=None`, the graph has no `{name}` input; with a tensor it always uses "
                   "it); export one graph per case, or always pass a tensor (an all-ones mask, an indicator input)")

    def _observed_tensor(self, method: cst.FunctionDef, name: str) -> bool:
        """The recorded run passed a tensor as the model's input ``name`` and this ``forward`` ran.

        The observer knows the model's own inputs by name (``Facts.inputs``): CenterTrack's
        ``pre_img`` is only handed on to a helper, so nothing in the code shows it is a tensor.
        """
        observed = self.provider(ObservedFacts)
        return bool(method.body.body) and bool(observed.ran(method.body.body[0])) and observed.input_is_tensor(name)

    def _forward(self, func: cst.FunctionDef) -> tuple[dict[str, int], set[str], dict[int, int]]:
        """For ``forward``: where each name is first rebound, which names are used as tensors,
        and each comparison's position (walk order)."""
        cached = self._forward_info.get(id(func))
        if cached is not None:
            return cached
        rebound: dict[str, int] = {}
        tensors: set[str] = set()
        order: dict[int, int] = {}
        for index, node in enumerate(walk(func.body)):
            targets: list[cst.BaseExpression] = []
            if type(node) is cst.Assign:
                targets = [t.target for t in node.targets]
            elif type(node) in (cst.AnnAssign, cst.AugAssign) and getattr(node, "value", None) is not None:
                targets = [node.target]
            elif type(node) in (cst.For, cst.CompFor):
                targets = [node.target]
            elif type(node) is cst.NamedExpr:
                targets = [node.target]
            elif type(node) is cst.Comparison:
                order[id(node)] = index
            elif type(node) is cst.Call:
                parts = method_call(node)
                if parts and type(parts[0]) is cst.Name and parts[1] in _TENSOR_METHODS:
                    tensors.add(parts[0].value)
                if any(q.startswith("torch.") for q in self.context.qualified_names(node.func)):
                    for arg in node.args:  # torch.f(m, ...), torch.cat([q, m])
                        if arg.keyword is not None:
                            continue  # `size=patch_size`, `dim=axis`: options, not tensors
                        values = arg.value.elements if type(arg.value) in (cst.List, cst.Tuple) else [arg]
                        tensors.update(v.value.value for v in values if type(v.value) is cst.Name)
            for target in targets:
                for bound in bound_names(target):
                    rebound.setdefault(bound, index)
        result = (rebound, tensors, order)
        self._forward_info[id(func)] = result
        return result


RULES = (NoneCheck,)
