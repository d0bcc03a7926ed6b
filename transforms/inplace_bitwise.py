"""``t |= d`` on a tensor (TRT384): the TorchScript exporter has no symbolic for ``aten::__ior__``.

An augmented or of tensors records the in-place dunder itself (``aten::__ior__``), which the TorchScript exporter's
in-place pass cannot map to an out-of-place op, so the export stops; ``t.bitwise_or_(d)`` is the same call under its
method name, which exports as ONNX ``Or``. mbrl-lib's ``ModelEnv.evaluate_action_sequences``
(``mbrl/models/model_env.py:187``) marks the particles that ended with ``terminated |= dones``. An element update
(``keep[idx] &= ~suppressed``) is written out of place and back, where a recorded run saw bool tensors.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import children, method_call, walk
from trtcodemod.evidence.facts import summarize
from trtcodemod.evidence.proofs import Observation
from trtcodemod.providers import ObservedFacts, observed_name
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms._tensor_evidence import (
    TENSOR_ONLY_METHODS,
    TensorEvidence,
    parameter_names,
    annotated_tensor_parameter,
    evident_in_scope,
)

RULE = "TRT384"
#: The augmented operator taken -> the tensor method it is (``Tensor.__ior__`` is ``bitwise_or_`` returning self).
METHODS = {cst.BitOrAssign: "bitwise_or_"}
#: Augmented operators that keep a tensor target the same tensor object when the value is a tensor or a number.
_KEEPS_TENSOR = (cst.BitOrAssign, cst.BitAndAssign, cst.BitXorAssign)
#: Values that an argument list takes only in parentheses.
_NEEDS_PARENS = (cst.Tuple, cst.Yield)
#: Augmented operators taken on a subscript target (an element update), written out of place.
_ELEMENT_OPERATORS = (cst.BitOrAssign, cst.BitAndAssign)
#: Values that may bind more loosely than `&`/`|` (`a | b` under `&`): parenthesized as the right operand.
_LOOSER_THAN_BITWISE = (cst.Comparison, cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr, cst.BinaryOperation)

#: Tensor methods whose result may be the receiver or share its memory (a view, or the receiver itself when nothing
#: needs converting): what they return aliases the tensor they are called on.
VIEW_METHODS = frozenset({
    "view", "view_as", "reshape", "reshape_as", "unsqueeze", "squeeze", "flatten", "unflatten", "permute",
    "transpose", "t", "narrow", "select", "expand", "expand_as", "as_strided", "detach", "contiguous", "to", "bool",
    "float", "double", "half", "int", "long", "type", "type_as", "cpu", "cuda", "diagonal", "movedim", "moveaxis",
    "swapaxes", "swapdims", "split", "chunk", "unbind", "tensor_split", "unfold", "view_as_real", "requires_grad_",
})
#: Views whose elements may share memory (an in-place write into one refuses them).
OVERLAPPING = frozenset({"expand", "expand_as", "broadcast_to"})
#: torch functions whose result may share memory with an argument (or with a NumPy array: ``from_numpy``).
TORCH_VIEWS = frozenset({f"torch.{name}" for name in VIEW_METHODS if not name.endswith("_")} | {
    "torch.as_tensor", "torch.asarray", "torch.from_numpy", "torch.broadcast_to", "torch.atleast_1d",
    "torch.atleast_2d", "torch.atleast_3d", "torch.ravel", "torch.hsplit", "torch.vsplit", "torch.dsplit",
    "torch.Tensor", "torch.squeeze", "torch.unsqueeze"})
#: Tensor methods that always return a new tensor (or a number): the receiver's memory is not shared.
FRESH_METHODS = frozenset({
    "clone", "logical_and", "logical_or", "logical_xor", "logical_not", "eq", "ne", "lt", "le", "gt", "ge",
    "greater", "greater_equal", "less", "less_equal", "not_equal", "any", "all", "isnan", "isinf", "isfinite",
    "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor", "bitwise_or", "bitwise_and", "bitwise_xor",
    "bitwise_not", "masked_fill", "isin", "sum", "abs", "sign", "signbit",
})
#: Methods only tensors have, or whose result is a tensor computed from the receiver.
TENSOR_METHODS = FRESH_METHODS | VIEW_METHODS | TENSOR_ONLY_METHODS
#: Builtins that read a tensor and keep no reference to it.
READING_BUILTINS = frozenset({"all", "any", "len", "bool", "int", "float", "print", "isinstance", "id", "type"})
#: Nodes below which a name belongs to another scope.
_OTHER_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
                 cst.GeneratorExp)


class InplaceBitwise(Rule):
    needs_text = (b"|=", b"&=")
    requires = (TensorEvidence, ObservedFacts)
    info = RuleInfo(
        id=RULE,
        name="inplace-bitwise",
        summary="`t |= d` (or `t &= d`, `t[i] &= d`) on a tensor (a running done/keep mask) records `aten::__ior__` "
                "(`__iand__`), which the TorchScript exporter has no symbolic for, so the export stops; write the "
                "same call as `t.bitwise_or_(d)` (on bools: `t = t & d`, `t[i] = t[i] & d`)",
        doc="""\
What it finds: an augmented or, `target |= value`, where the code shows that `target` and `value` are tensors
and that the target's tensor is shared with nothing read afterwards. mbrl-lib's
`ModelEnv.evaluate_action_sequences` (`mbrl/models/model_env.py:187`) keeps which particles ended with
`terminated |= dones` in its horizon loop; Code Llama's generation marks the sequences that reached the stop token
with `stop_reached |= ...`, LightGlue keeps its points with `keep |= confidences <= threshold`. The target is:
- a name: every assignment of it in the function, apart from `|=`, `&=` and `^=` of tensors (which keep a tensor
  the same tensor), is visibly a tensor (a comparison, `torch.zeros(n, 1, dtype=bool)`, `x.logical_and(y)`, a
  parameter annotated `torch.Tensor`), or a recorded run (`migrate`) saw a tensor there (an unsafe fix, below);
- `self.<attribute>`: only where a recorded run saw a tensor there (an unsafe fix) and the class defines no method
  or property of that name (an `|=` through a property runs its setter; the method call does not).
The value: a tensor by the same evidence (a comparison with a tensor, `~m`, a torch function's result, a name a
run saw hold a tensor). The target's tensor must be one nothing else holds: every assignment of the name is a new
tensor (an operator's or a torch function's result, `.to(...)` or another view of one; not a parameter, another
name, an index into a tensor or an `expand`), and no read of the name keeps it or a view of it (bound to another
name, stored, passed to a function of the user's, iterated); for `self.<attribute>`, an assignment of a new tensor
to it earlier in the same block, with no call between but torch's. legged_gym's `check_termination` writes
`self.reset_buf = torch.any(...)` two lines above `self.reset_buf |= self.time_out_buf`.
Not taken: a target that may be a Python bool or int (`done = False` then `done |= d`: numbers have no
`bitwise_or_`), a NumPy array or a set (torch_geometric's `visited |= fresh`), a forward input with no
`torch.Tensor` annotation; a value that is a number (scripted, `m |= True` is a new int64 tensor of a bool one,
and the exporter fails on `bitwise_or_(True)` as on `|=`) or may be a NumPy array (`t |= array` falls back to
the array's reflected or and rebinds `t` to a new tensor, where `t.bitwise_or_(array)` raises); a subscript target
as a method call (`x[i] |= m` is `x.__setitem__(i, x[i].__ior__(m))`, which `x[i].bitwise_or_(m)` is not for an
advanced index: that writes into a copy; see the element update below); a target shared with something read later
(see the fix's safety). `^=`, `<<=` and `>>=` are not taken either (see below); `&=` of a name is, as an unsafe
fix (below).

`valid &= d < 1` on a name records `aten::__iand__`, which stops the export too, and `bitwise_and_` exports only
from opset 18: the name is rebound to the out-of-place result, `valid = valid & (d < 1)` (ONNX `And`), under the
same conditions as `|=` (a tensor, shared with nothing read later: then no holder tells the new tensor from the
old). The value: a name, `~name`, a comparison, `&`/`|`/`^` of those, or a call that gives bools (`torch.isnan`,
`x.any(-1)`, `logical_*`). Unsafe: the in-place operator keeps the target's dtype and shape, raising where the
result would need another (a bool target with an int64 value; a value that broadcasts the target larger), where
the rebound one promotes or grows; applied with `--unsafe`, or by `migrate` where the run saw the target and the
value's names hold bool tensors at that line (a comparison or a bool call shows itself).

An element update, `keep[idx] &= ~suppressed` or `mask[:, 1:] |= d > 0` (nanostream-od's class-aware de-duplication,
`nanostream/head.py:529`, after its greedy loop), records `aten::__iand__`/`aten::__ior__` on the indexed copy or view,
which stops the export the same way. It is written out of place and back, `keep[idx] = keep[idx] & ~suppressed`,
which exports as ONNX `And`/`Or` and a ScatterND: the augmented form reads `keep[idx]`, applies the in-place
operator to it and writes the result back through `__setitem__`; the plain form computes the same bools and writes
them back the same way, so the target keeps its object and a view of it taken before sees the write (repeated,
negative and empty indices, slices, an int, a broadcast value and a Python bool value were compared). Taken where
the target is a tensor (as above), the value a name, `~name`, a comparison or a call, and the index only names,
integers and slices (it is read twice). Unsafe: with another dtype the two differ (a bool target with an int64
value: the in-place operator raises, the plain form written into a slice casts back), so it is applied with
`--unsafe`, or by `migrate` where the recorded run saw the target and the value's names hold bool tensors and
nothing else at that line (the proof names the calls).

Why it hurts: for a tensor, `t |= d` calls `Tensor.__ior__`, which the trace records as `aten::__ior__`. The
TorchScript exporter (torch 2.13, any opset) has no symbolic for it: "Exporting the operator 'aten::__ior_' to ONNX
opset version 17 is not supported" (with a Python bool operand its alias analysis stops first: "We don't have an
op for aten::__ior__"), so no ONNX file is written. The dynamo exporter exports it.

The rewrite: `terminated |= dones` → `terminated.bitwise_or_(dones)` (an expression statement; the comment and
the line's layout kept, a parenthesised value's line breaks moved into the call's parentheses). The trace records
`aten::bitwise_or_`, which the exporter writes as ONNX `Or` for bool tensors (TensorRT parses `Or`). For integer
tensors the TorchScript exporter still refuses (it has an `Or` of bools only: "bitwise OR for non-boolean input
values") and the dynamo exporter writes `BitwiseOr`, which TensorRT does not parse: the rewrite changes nothing
there.

Fix safety: safe. For a tensor `t`, `t |= v` is `t = t.__ior__(v)`, and `Tensor.__ior__` is torch's
`bitwise_or_` returning `t` itself, so the name is rebound to the same object: in eager mode the values, dtype,
shape, strides, device and aliasing (a view of `t` taken before sees the write in both forms) are the same, and so
are the exceptions (a float target raises NotImplementedError, a value that broadcasts to a larger shape or
promotes to another dtype a RuntimeError). Bool and integer tensors carry no gradients. `torch.compile`,
`torch.export` and the dynamo exporter trace `|=` as the in-place op too. `torch.jit.script` and `torch.fx`
compile `|=` of a tensor as an out-of-place or that rebinds the name (`aten::bitwise_or`, fx's `or_`), unlike
eager mode: a view taken before, the caller's tensor or another name for it does not see the write there, while
the method writes in place. So the fix is made only where the target's tensor is shared with nothing read
afterwards (above): there both forms give eager mode's values under every toolchain. Writing the tensor's own
elements (a hand-written greedy NMS's `suppressed |= ious[a] > thr` then `suppressed[a] = False`, nanostream-od's
`_class_aware_dedup`) keeps nothing: under scripting the write goes into the rebound tensor, in eager mode into
the same one, and no other name reads either. (For inputs eager mode
refuses, a value of a dtype the target cannot hold, the scripted original returns a new tensor where the method
raises, as eager mode does.) Measured in torch 2.13 (TorchScript exporter, opsets 17 and 18), the other augmented
bitwise operators have no method form: `&=` (`aten::__iand_` stops the export; `bitwise_and_` exports only from
opset 18: hence the rebinding above, on bools), `^=` (`aten::__ixor_`; no TorchScript symbolic for `bitwise_xor` at all), `<<=` and `>>=`
(`aten::__ilshift_`/`__irshift_` stop it; `bitwise_left_shift_` exports as a product with a power of two, which
gives INT_MIN where torch gives 0 for a shift of the bit width or more, and `bitwise_right_shift_` as an integer
Div that rounds negative values towards zero, -5 >> 1 giving -2 where torch gives -3: graphs that are not the
model's). Cost: none (the same kernel).
Where only a recorded run (`migrate`, `--facts`) shows the target or the value a tensor (mbrl-lib's `dones`,
unpacked from `self.step(...)`; legged_gym's `self.reset_buf`), the fix is unsafe: it rests on every caller
passing tensors, which the run saw at that line (the proof names the calls).

TensorRT versions: all (ONNX `Or` of bools).""",
        fix=Safety.SAFE,
        assumption="where only a recorded run shows the target (or the value) a tensor: `target |= value` is an "
                   "augmented or of tensors on every call (then it is `bitwise_or_` itself); for an element update "
                   "(`keep[idx] &= m`) and an `&=` of a name, target and value are bool tensors on every call, and the "
                   "value never broadcasts the target larger",
        fails_when=(
            "a caller the run did not observe passes a Python bool or int as the target: `done |= t` makes a new "
            "tensor of it, where `done.bitwise_or_(t)` raises AttributeError",
            "a caller passes a NumPy array as the value: `t |= array` falls back to the array's reflected or and "
            "rebinds `t` to a new tensor, where `t.bitwise_or_(array)` raises TypeError",
            "an element update meets an int64 value on a bool target: `keep[1:] &= v` raises, where "
            "`keep[1:] = keep[1:] & v` casts the result back to bool",
            "an `&=` of a name meets a value that broadcasts larger: `m &= v` of shapes (n,) and (n, 1) raises, where "
            "`m = m & v` is an (n, n) mask",
        ),
        examples=(
            Example(
                "import torch\n\n"
                "def keep(scores, ious: torch.Tensor, t):\n"
                "    suppressed = torch.zeros_like(scores, dtype=torch.bool)\n"
                "    suppressed |= ious > t  # grown per box\n"
                "    return scores[~suppressed]\n",
                "import torch\n\n"
                "def keep(scores, ious: torch.Tensor, t):\n"
                "    suppressed = torch.zeros_like(scores, dtype=torch.bool)\n"
                "    suppressed.bitwise_or_(ious > t)  # grown per box\n"
                "    return scores[~suppressed]\n",
            ),
            Example(
                "import torch\n\n"
                "def rollout(dones: torch.Tensor, steps: int):\n"
                "    terminated = torch.zeros(dones.shape[0], 1, dtype=torch.bool)\n"
                "    for _ in range(steps):\n"
                "        terminated |= dones\n"
                "    return terminated\n",
                "import torch\n\n"
                "def rollout(dones: torch.Tensor, steps: int):\n"
                "    terminated = torch.zeros(dones.shape[0], 1, dtype=torch.bool)\n"
                "    for _ in range(steps):\n"
                "        terminated.bitwise_or_(dones)\n"
                "    return terminated\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.Tensor.bitwise_or_.html",
            "https://onnx.ai/onnx/operators/onnx__Or.html",
            "https://github.com/facebookresearch/mbrl-lib/blob/main/mbrl/models/model_env.py",
        ),
    )

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if type(node.target) is cst.Subscript and type(node.operator) in _ELEMENT_OPERATORS \
                and not in_inserted_helper(self):
            self._element_update(node)
            return
        if type(node.target) is cst.Name and type(node.operator) is cst.BitAndAssign and not in_inserted_helper(self):
            self._and_of_name(node)
            return
        method = METHODS.get(type(node.operator))
        if method is None or in_inserted_helper(self):
            return
        target = node.target
        shown = self._plain_value(node.value, observed=False)
        if not shown and not self._plain_value(node.value):
            return
        if type(target) is cst.Name:
            if not self._unshared_name(target):
                return
            if not self._tensor_name(target, observed=False):
                if not self._tensor_name(target):
                    return
                shown = False
        elif not self._tensor_attribute(target) or not self._unshared_attribute(node):
            return
        else:
            shown = False  # an attribute: only a recorded run shows the tensor
        value = node.value
        before: cst.BaseParenthesizableWhitespace = cst.SimpleWhitespace("")
        after: cst.BaseParenthesizableWhitespace = cst.SimpleWhitespace("")
        if len(value.lpar) == 1 and not isinstance(value, _NEEDS_PARENS):
            # `m |= (\n    a > b\n)`: the call's own parentheses take the pair's place and its line breaks
            before, after = value.lpar[0].whitespace_after, value.rpar[0].whitespace_before
            value = value.with_changes(lpar=[], rpar=[])
        elif isinstance(value, _NEEDS_PARENS) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        call = cst.Call(func=cst.Attribute(value=target, attr=cst.Name(method)), whitespace_before_args=before,
                        args=[cst.Arg(value=value, whitespace_after_arg=after)])
        replacement = cst.Expr(value=call, semicolon=node.semicolon)
        why = "`|=` on a tensor records `aten::__ior__`, which the TorchScript exporter cannot export"
        if shown:
            self.report(node, f"{why}; `.{method}(...)` is the same in-place call and exports as ONNX Or",
                        Fix({node: replacement}))
            return
        names = tuple(observed_name(n) for n in (target, node.value) if observed_name(n) is not None)
        self.report(node, f"{why}; the recorded run saw tensors there, so `.{method}(...)` is the same in-place call "
                          "(rests on that observation)",
                    Fix({node: replacement}, safety=Safety.UNSAFE, proof=_tensors_seen(names)))

    def _and_of_name(self, node: cst.AugAssign) -> None:
        """``valid &= scores > thr`` on bool tensors a recorded run saw: ``valid = valid & (scores > thr)``. No method
        form exports at opset 17 (``bitwise_and_`` from 18), so the name is rebound to the out-of-place result:
        the same bools, and, where the target's tensor is shared with nothing read afterwards (as for ``|=``), no
        holder to tell the new tensor from the old. Another dtype would tell them apart (``bool &= int64`` raises,
        ``bool & int64`` promotes): taken where the run saw the target and the value's names hold bool tensors."""
        target = node.target
        if not self._plain_value(node.value) or not self._unshared_name(target) or not self._tensor_name(target):
            return
        value = node.value
        shown = _bool_names(value)
        if shown is None:
            return
        if isinstance(value, _LOOSER_THAN_BITWISE) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        names = [target.value, *shown]
        replacement = cst.Assign(targets=[cst.AssignTarget(target=target)],
                                 value=cst.BinaryOperation(left=target.deep_clone(), operator=cst.BitAnd(), right=value),
                                 semicolon=node.semicolon)
        self.report(node, "`&=` on a tensor records `aten::__iand__`, which the TorchScript exporter cannot export "
                          "(and `bitwise_and_` only from opset 18); the out-of-place `&` rebound to the name exports "
                          "as ONNX And (rests on the recorded run's bool tensors, and on nothing else holding the "
                          "target's tensor)",
                    Fix({node: replacement}, safety=Safety.UNSAFE, proof=_bools_seen(tuple(dict.fromkeys(names)), "&=")))

    def _element_update(self, node: cst.AugAssign) -> None:
        """``keep[idx] &= ~suppressed`` (``|=`` too) on bool tensors, where a recorded run saw them: written as
        ``keep[idx] = keep[idx] & ~suppressed``. The augmented form reads ``keep[idx]`` (a copy for an advanced index,
        a view for a slice), applies ``__iand__`` to it in place and writes the result back with ``__setitem__``;
        the plain form computes the same bools out of place and writes them back the same way: the target keeps its
        object, its other views see the write. Only for an index of names, integers and slices (read twice, it must
        not call anything), and only where the run saw bool tensors (another dtype could make the in-place
        operator raise where the plain one casts)."""
        target = node.target
        if type(target.value) is not cst.Name or not all(_pure_index(e.slice) for e in target.slice):
            return
        if not self._tensor_name(target.value) or not self._plain_value(node.value):
            return  # a NumPy array's or a list's elements, or a value that may be an array: no trace records them
        value = node.value
        shown = _bool_names(value)
        if shown is None:
            return
        names = [target.value.value, *shown]
        if isinstance(value, _LOOSER_THAN_BITWISE) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        operator = cst.BitOr() if type(node.operator) is cst.BitOrAssign else cst.BitAnd()
        read = target.deep_clone()
        replacement = cst.Assign(targets=[cst.AssignTarget(target=target)],
                                 value=cst.BinaryOperation(left=read, operator=operator, right=value),
                                 semicolon=node.semicolon)
        sign = "|=" if type(operator) is cst.BitOr else "&="
        self.report(node, f"`{sign}` on a tensor's elements records `aten::__i{'or' if sign == '|=' else 'and'}__`, "
                          "which the TorchScript exporter cannot export; the same bools computed out of place and "
                          "written back export as ONNX Or/And and ScatterND (rests on the recorded run's bool "
                          "tensors)",
                    Fix({node: replacement}, safety=Safety.UNSAFE,
                        proof=_bools_seen(tuple(dict.fromkeys(names)), sign)))

    # --- evidence ----------------------------------------------------------------------------------------------------

    def _plain_value(self, value: cst.BaseExpression, observed: bool = True) -> bool:
        """Is ``value`` a tensor (what the code shows, or a recorded run saw)? Numbers are left: scripted, `t |= 1`
        and `t |= True` make a new int64 tensor of a bool one, and the TorchScript exporter fails on
        `bitwise_or_` with a Python bool as on `|=` (an internal assert)."""
        if type(value) in (cst.Integer, cst.Float) or type(value) is cst.Name and value.value in (
                "True", "False", "None"):
            return False
        facts = self.provider(ObservedFacts)
        if not observed:
            return evident_in_scope(self.context, value, self._kept_bindings)
        return evident_in_scope(self.context, value, self._kept_bindings, facts.is_tensor if facts.known else None) \
            or facts.is_tensor(value)

    def _kept_bindings(self) -> dict[str, list[cst.BaseExpression | None]]:
        """The function's bindings without those of its augmented ``|=``, ``&=`` and ``^=``: on a tensor each
        keeps the same tensor, so a name is judged by its other assignments (EoMT's ``allowed |= ~allowed.any(-1,
        keepdim=True)`` reads the name its comparison bound, which the augmented binding hid)."""
        scope = self.context.function or self.context.module
        cache = self.__dict__.setdefault("_kept_cache", {})
        if id(scope) not in cache:
            augmented = {id(n.value) for n in walk(scope) if type(n) is cst.AugAssign
                         and isinstance(n.operator, _KEEPS_TENSOR) and type(n.target) is cst.Name}
            cache[id(scope)] = {name: [v for v in values if v is None or id(v) not in augmented]
                                for name, values in self.provider(TensorEvidence).bindings().items()}
        return cache[id(scope)]

    def _tensor_name(self, target: cst.Name, observed: bool = True) -> bool:
        """Is the name ``target`` a tensor here (by the code alone unless ``observed``), with an assignment of its
        own besides the augmented ones?"""
        evidence = self.provider(TensorEvidence)
        bindings = evidence.bindings()
        scope = self.context.function or self.context.module
        kept = {id(n.value) for n in walk(scope)
                if type(n) is cst.AugAssign and isinstance(n.operator, _KEEPS_TENSOR)
                and type(n.target) is cst.Name and n.target.value == target.value
                and self._plain_value(n.value, observed)}
        others = [v for v in bindings.get(target.value, []) if v is None or id(v) not in kept]
        if not others:
            return False  # only augmented: the name is not this function's (rebinding it is what makes it local)
        facts = self.provider(ObservedFacts)
        if observed and facts.is_tensor(target):
            return True
        function = self.context.function
        if function is not None and target.value in parameter_names(function) and \
                not annotated_tensor_parameter(self.context, target.value):
            return False  # an unannotated parameter (a forward input) may be a Python bool
        filtered = {**bindings, target.value: others}
        return evident_in_scope(self.context, target, lambda: filtered,
                                facts.is_tensor if observed and facts.known else None)

    def _tensor_attribute(self, target: cst.BaseExpression) -> bool:
        """``self.<attribute>`` that a recorded run saw hold a tensor here, and no method or property of the class."""
        if type(target) is not cst.Attribute or type(target.value) is not cst.Name or target.value.value != "self":
            return False
        if not self.provider(ObservedFacts).is_tensor(target):
            return False
        if self.context.classes:
            for item in self.context.classes[-1].body.body:
                if type(item) is cst.FunctionDef and item.name.value == target.attr.value:
                    return False
        return True

    # --- aliasing: what `torch.jit.script` and `torch.fx` would tell apart -------------------------------------------

    def _parents(self, scope: cst.CSTNode) -> dict[int, cst.CSTNode]:
        """id(node) -> its parent, for every node of ``scope`` (built once per function)."""
        maps = self.__dict__.setdefault("_parent_maps", {})
        found = maps.get(id(scope))
        if found is None:
            found = maps[id(scope)] = {}
            for node in walk(scope):
                for child in children(node):
                    found[id(child)] = node
        return found

    def _fresh(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Is ``expr`` a tensor that shares memory with nothing else (an operator's or a torch function's new
        result, or a view of one that no name holds)?"""
        if depth > 8:
            return False
        kind = type(expr)
        if kind in (cst.Comparison, cst.BinaryOperation):
            return True
        if kind is cst.UnaryOperation:
            return type(expr.operator) is not cst.Not
        if kind is not cst.Call:
            return False
        names = self.context.qualified_names(expr.func)
        if names:
            return all(n.startswith("torch.") and n not in TORCH_VIEWS and n.rsplit(".", 1)[-1] not in OVERLAPPING
                       for n in names)
        parts = method_call(expr)
        if parts is None:
            return False
        if parts[1] in FRESH_METHODS:
            return True
        if parts[1] in VIEW_METHODS and parts[1] not in OVERLAPPING or parts[1].endswith("_"):
            return self._fresh(parts[0], depth + 1)  # a view (or the tensor itself) of a new tensor
        return False

    def _escapes(self, occurrence: cst.CSTNode, parents: dict[int, cst.CSTNode], scope: cst.CSTNode) -> bool:
        """May the tensor read at ``occurrence`` (or a view of it) be held by something when the in-place or
        runs: bound to a name, stored, passed to a function that may keep it, iterated into views?"""
        child: cst.CSTNode = occurrence
        while True:
            parent = parents.get(id(child))
            if parent is None or parent is scope:
                return True
            kind = type(parent)
            if isinstance(parent, _OTHER_SCOPES):
                return True  # a closure or a comprehension holds it
            if kind is cst.Subscript:
                if child is parent.value:
                    child = parent  # an index into it may be a view
                    continue
                return False  # it is the index: a copy is read
            if kind in (cst.SubscriptElement, cst.Index, cst.Slice):
                return False
            if kind is cst.Attribute and child is parent.value:
                call = parents.get(id(parent))
                if type(call) is cst.Call and call.func is parent:
                    if parent.attr.value in VIEW_METHODS or parent.attr.value.endswith("_"):
                        child = call
                        continue
                    return False  # a method that computes a new tensor or a number
                if parent.attr.value in ("T", "mT", "H", "mH", "data", "real", "imag"):
                    child = parent
                    continue
                return False  # `.shape`, `.dtype`, `.device`
            if kind is cst.Arg:
                call = parents.get(id(parent))
                if type(call) is not cst.Call or parent.star:
                    return True
                names = self.context.qualified_names(call.func)
                if names and all(n.startswith("torch.") for n in names):
                    if any(n in TORCH_VIEWS for n in names):
                        child = call
                        continue
                    return False
                if type(call.func) is cst.Name and call.func.value in READING_BUILTINS and not names:
                    return False
                parts = method_call(call)
                if parts is not None and parts[1] in TENSOR_METHODS and parts[1] not in ("as_strided", "set_"):
                    return False  # a tensor method's operand (`x.masked_fill(m, 0)`): read, not kept
                return True  # a function of the user's may keep it
            if kind in (cst.BinaryOperation, cst.Comparison, cst.ComparisonTarget):
                return False
            if kind is cst.UnaryOperation:
                if type(parent.operator) is not cst.Plus:
                    return False  # `~x`, `-x`: a new tensor; `not x`: a bool
                child = parent  # `+x` is `x` itself
                continue
            if kind in (cst.BooleanOperation, cst.Element, cst.Tuple, cst.List):
                child = parent  # `a or b` is one of them; a container holds it
                continue
            if kind is cst.IfExp:
                if child is parent.test:
                    return False
                child = parent
                continue
            if kind in (cst.If, cst.While, cst.Assert, cst.Expr, cst.Return):
                return False  # tested, evaluated and dropped, or returned
            if kind is cst.AugAssign:
                return child is not parent.target  # read by another augmented assignment's value: held by it
            if kind is cst.AssignTarget and type(child) is cst.Subscript and child is parent.target:
                return False  # its elements written (a greedy NMS's `suppressed[i] = False`): nothing keeps it
            if kind is cst.Assign and child is parent.value and all(
                    type(t.target) is cst.Subscript and self._plain_value(t.target.value, observed=False)
                    for t in parent.targets):
                return False  # written into a tensor's elements (EoMT's `mask[:, :q, s:] = allowed`): a copy
            return True

    def _unshared_name(self, target: cst.Name) -> bool:
        """Is the tensor the name holds shared with nothing that is read after the in-place or (every assignment of
        it is a new tensor, and no read of it keeps it or a view of it)? Then `|=` and the method give the same
        values under `torch.jit.script` and `torch.fx` too, which compile `|=` as an out-of-place or."""
        scope = self.context.function or self.context.module
        parents = self._parents(scope)
        name = target.value
        for node in walk(scope):
            kind = type(node)
            if kind in (cst.Global, cst.Nonlocal) and any(n.name.value == name for n in node.names):
                return False
            if kind is cst.Assign and any(type(t.target) is cst.Name and t.target.value == name
                                          for t in node.targets):
                if len(node.targets) != 1 or not self._fresh(node.value):
                    return False
            elif kind is cst.AnnAssign and type(node.target) is cst.Name and node.target.value == name:
                if node.value is None or not self._fresh(node.value):
                    return False
            elif kind is cst.Name and node.value == name:
                parent = parents.get(id(node))
                if type(parent) is cst.AugAssign and parent.target is node:
                    if not isinstance(parent.operator, _KEEPS_TENSOR):
                        return False
                    continue
                if type(parent) in (cst.AssignTarget, cst.AnnAssign, cst.Param) or type(parent) is cst.Attribute \
                        and parent.attr is node or type(parent) is cst.Arg and parent.keyword is node:
                    continue
                if not self._after_every_update(node, scope, parents, name) and self._escapes(node, parents, scope):
                    return False
        function = self.context.function
        return function is None or name not in parameter_names(function)  # an argument: the caller holds it

    @staticmethod
    def _after_every_update(node: cst.Name, scope: cst.CSTNode, parents: dict[int, cst.CSTNode], name: str) -> bool:
        """Is ``node`` read in a statement of the scope's body after every statement that updates ``name`` with an
        augmented operator? A holder made there holds the name's last tensor, whose values are the same whether the
        updates were in place or rebound the name (det3d's CenterPoint decode: `mask &= ...` in a loop over the
        classes, then `cur_mask = mask[k]` per image); only a holder made before an update, or in a statement that
        also updates it (a loop), could tell the two apart."""
        block = getattr(scope, "body", None)
        statements = getattr(block, "body", block)
        if not isinstance(statements, (list, tuple)):
            return False
        position = {id(statement): index for index, statement in enumerate(statements)}

        def top(inner: cst.CSTNode) -> int | None:
            current: cst.CSTNode | None = inner
            while current is not None and id(current) not in position:
                current = parents.get(id(current))
            return None if current is None else position[id(current)]

        updates = [top(n) for n in walk(scope) if type(n) is cst.AugAssign and type(n.target) is cst.Name
                   and n.target.value == name]
        here = top(node)
        return here is not None and bool(updates) and all(u is not None and here > u for u in updates)

    def _unshared_attribute(self, node: cst.AugAssign) -> bool:
        """``self.x |= v``: the statements before it in its block assign ``self.x`` a new tensor, and between
        the two nothing but torch's functions is called and nothing keeps ``self.x`` or a view of it."""
        target = node.target
        attr = target.attr.value  # type: ignore[attr-defined]
        scope = self.context.function or self.context.module
        parents = self._parents(scope)
        line = parents.get(id(node))
        block = parents.get(id(line)) if line is not None else None
        if type(line) is not cst.SimpleStatementLine or block is None or not hasattr(block, "body"):
            return False
        statements = list(block.body)
        index = next((i for i, s in enumerate(statements) if s is line), None)
        if index is None or line.body[0] is not node:
            return False

        def is_target(expr: cst.BaseExpression) -> bool:
            return (type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self"
                    and expr.attr.value == attr)

        for statement in reversed(statements[:index]):
            if type(statement) is not cst.SimpleStatementLine:
                return False
            for small in statement.body:
                for inner in walk(small):
                    if type(inner) is cst.Call:
                        names = self.context.qualified_names(inner.func)
                        parts = method_call(inner)
                        if not (names and all(n.startswith("torch.") for n in names)) and not (
                                parts is not None and parts[1] in TENSOR_METHODS):
                            return False  # a function of the user's (or a method of `self`) may keep the tensor
                    if is_target(inner) and self._escapes(inner, parents, scope) and not (
                            type(small) is cst.Assign and any(t.target is inner for t in small.targets)):
                        return False
            assigned = [s for s in statement.body if type(s) is cst.Assign
                        and any(is_target(t.target) for t in s.targets)]
            if assigned:
                return len(assigned[-1].targets) == 1 and self._fresh(assigned[-1].value)
        return False



def _tensors_seen(names: tuple[str, ...]):
    """The prover of the observed form: each of ``names`` (the target, and the value where it is a name) was seen
    holding a tensor at the augmented or's line."""

    def prove(seen: Observation) -> str | None:
        counts = []
        for name in names:
            events = [e for e in seen.facts.tensor_events(seen.span.path, name)
                      if e["line"] <= seen.span.line and seen.span.end_line <= e["end_line"]]
            if not events:
                return None
            counts.append(f"`{name}` in {summarize(events)} call(s)")
        return f"observed holding tensors at the `|=`: {', '.join(counts)} over {seen.facts.runs} input set(s)"

    return prove


#: Calls whose result is a bool tensor (or a Python bool) whatever the dtype of what they are given.
_BOOL_CALLS = frozenset({"isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "any", "all", "logical_and",
                         "logical_or", "logical_not", "logical_xor", "eq", "ne", "gt", "lt", "ge", "le", "greater",
                         "less", "greater_equal", "less_equal", "not_equal", "bool", "isclose", "isin", "signbit"})


def _bool_names(value: cst.BaseExpression) -> list[str] | None:
    """The names whose dtype decides whether ``value`` is a bool tensor (a run must show them bool), ``[]`` where
    it is one by its form (a comparison, `torch.isnan(...)`, `x.any(-1)`), or None where the form does not say
    (``x + 1``, a call of the user's)."""
    if type(value) is cst.Name:
        return [value.value]
    if type(value) is cst.Comparison:
        return []
    if type(value) is cst.UnaryOperation and type(value.operator) is cst.BitInvert:
        return _bool_names(value.expression)
    if type(value) is cst.BinaryOperation and type(value.operator) in (cst.BitAnd, cst.BitOr, cst.BitXor):
        left, right = _bool_names(value.left), _bool_names(value.right)
        return None if left is None or right is None else left + right
    if type(value) is cst.Call:
        func = value.func
        name = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else None
        return [] if name in _BOOL_CALLS else None
    return None


def _pure_index(index: cst.BaseSlice) -> bool:
    """An index element that evaluating twice gives the same (no call): a name, an integer, ``None``, ``...``, a slice
    of those."""
    def pure(expr: cst.BaseExpression | None) -> bool:
        if expr is None or type(expr) in (cst.Name, cst.Integer, cst.Ellipsis):
            return True
        return type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus and type(expr.expression) is \
            cst.Integer
    if type(index) is cst.Index:
        return index.star is None and pure(index.value)
    return type(index) is cst.Slice and pure(index.lower) and pure(index.upper) and pure(index.step)


def _bools_seen(names: tuple[str, ...], sign: str):
    """The prover of the element update: each of ``names`` (the target and the value's names) was seen holding a
    bool tensor, and nothing else, at the update's line."""

    def prove(seen: Observation) -> str | None:
        counts = []
        for name in names:
            events = [e for e in seen.facts.tensor_events(seen.span.path, name)
                      if e["line"] <= seen.span.line and seen.span.end_line <= e["end_line"]]
            if not events or any(set(e.get("dtypes") or ["?"]) != {"bool"} for e in events):
                return None
            counts.append(f"`{name}` in {summarize(events)} call(s)")
        return f"observed holding bool tensors at the `{sign}`: {', '.join(counts)} over {seen.facts.runs} input set(s)"

    return prove


RULES = (InplaceBitwise,)
