"""Module state written in forward: the exported graph keeps none (TRT703).

An ONNX graph, and the TensorRT engine built from it, is a pure function of its inputs:
updates to ``self`` during the traced call are frozen as constants. Detect only; see
:mod:`trtcodemod.transforms._runtime_scope` for which code counts as forward code.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from trtcodemod.astutil import code_of, method_call, short_code
from trtcodemod.rules import Example, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule

_TORCHSCRIPT = "https://pytorch.org/docs/stable/onnx_torchscript.html"


#: In-place container methods: `self.frames.append(x)` changes module state too.
CONTAINER_MUTATORS = frozenset({
    "append", "extend", "insert", "pop", "popleft", "appendleft", "clear", "update", "remove",
    "setdefault", "discard", "popitem",
})


def _self_state(target: cst.BaseExpression) -> bool:
    """``self.x``, ``self.x[i]``, ``self.a.b``: a target that writes to the module."""
    if type(target) not in (cst.Attribute, cst.Subscript):
        return False
    node = target
    crossed = False
    while type(node) in (cst.Attribute, cst.Subscript):
        crossed = crossed or type(node) is cst.Attribute
        node = node.value
    return crossed and type(node) is cst.Name and node.value == "self"


def state_attr(target: cst.BaseExpression) -> str:
    """The first attribute after ``self`` in a state target (``self.buf[0]`` → ``buf``)."""
    node = target
    attr = "state"
    while type(node) in (cst.Attribute, cst.Subscript):
        if type(node) is cst.Attribute and type(node.value) is cst.Name:
            attr = node.attr.value
        node = node.value
    return attr


# --- TRT703 ------------------------------------------------------------------------


class StateInForward(RuntimeScopeRule):
    scope = "forward"
    info = RuleInfo(
        id="TRT703",
        name="state-in-forward",
        summary="forward writes to `self`: the exported graph keeps no state between calls",
        doc="""\
What it finds, in forward code of `nn.Module` subclasses (`forward` and the methods it calls
as `self.<m>(...)`): assignments and augmented assignments to attributes of `self`
(`self.count += 1`, `self.prev = x`, `self.buf[i] = v`, `self.a.b = v`), `del self.x`,
in-place tensor methods on them (`self.count.add_(1)`, `self.memory.copy_(x)`), container
mutations (`self.frames.append(x)`, `self.cache.pop(k)`), `setattr(self, ...)` and
`self.register_buffer(...)`. Framework attributes such as `self.training` are reported too:
assigning them in forward is state all the same.

Which classes are modules is decided from their bases (see the family's notes): `nn.*`
bases, base names ending in `Module`, and module classes of the same file.

Why it hurts: an ONNX graph, and the TensorRT engine built from it, is a pure function of its
inputs. A traced export runs forward once: the update happens on the Python object during
tracing, and the graph keeps the value the attribute had then as a constant (or an
initializer). Every later inference sees that one frame's state; a frame counter, a memory
bank or the previous frame's features never advance.

What to do: make the state explicit. Pass it in as an input and return the updated value
(`def forward(self, x, count): ...; return y, count + 1`); the caller keeps it between frames
(outside the engine) and feeds it back on the next call.

Fix safety: none in `check`/`apply` (detect only): the signature change reaches every caller.
Updates under `if self.training:` (such as running statistics) are not reported: the export
runs in eval mode. Applies to every TensorRT version.

Under `migrate`, a write that put back the value it replaced on every observed call, up to
dtype and device (a cache cast in forward: `self.anchors = [a.to(dtype, device) for a in
self.anchors]`, `self.pe = self.pe.to(x.device)`), passes no state between calls: it is located
as a warning, and where the graph still differs from the model the divergence locator names the
line instead.
Nor does scratch state: where on every observed call (two at least) forward wrote the attribute
before any read of it in that call, and no call read it before writing it (an engine whose
`restart_engine()` at the top of forward resets every memory, then rebuilt from the call's own
inputs: DeAOT's inference engine), the write is located as a warning and the finding is
information that says so. The order is observed per call and per module (reads through
`nn.Module.__getattribute__`), not read from the code: the same engine kept across calls reads
its memories before writing them, and those writes stay errors.

`migrate` lifts the state (docs/temporal.md) where it locates the write and sees the graph
differ: forward's body moves to `forward_step(self, <inputs>, <state>..., <indicators>...)`
returning `(outputs, <new state>...)`, `forward` keeps its signature as an adapter that reads
and stores the state on `self`, and `<model>_export.py` plus a deployment contract are
written. That fix is unsafe by label, kept only when the adapter equals the original on the
observed frames (outputs and state, bit for bit). Its assumptions:
- An `if self.<s> is None:` becomes both branches and `torch.where` on the indicator: both
  branches run on every frame (the state branch on zeros on the first frame) and must not
  raise there; they must give values of one shape and dtype (`torch.where` broadcasts and
  promotes); gradients through the branch not taken are zero unless its backward is inf/NaN
  (as with `torch.where` in TRT102); both branches cost time.
- The first frame's zero state has the shape seen in the frames, its axes following the
  input axes they matched (`image.shape[0]`); forward writes every None-initial state on
  every call.
- The adapter stores the new state when forward returns: a forward that raises midway no
  longer leaves a partial update on `self`. `self.<s> op= v` on a tensor stays in place,
  so the exported wrapper, called eagerly, updates its state input in place.
Not lifted, at the line with the manual step: state written outside the class or in a helper
method forward calls, changed in place through an index or view (`self.mem[:, 0] = x`,
`self.mem.copy_(x)`), grown as a container (`self.frames.append(x)`), set to None in forward,
or tested for None inside a larger condition.""",
        fix=Safety.NONE,
        examples=(
            Example(
                "class Temporal(nn.Module):\n"
                "    def forward(self, x):\n"
                "        self.frame_idx += 1\n"
                "        return x * self.frame_idx\n"
            ),
            Example(
                "class Memory(nn.Module):\n"
                "    def forward(self, feats):\n"
                "        out = feats + self.prev\n"
                "        self.prev = feats.detach()\n"
                "        return out\n"
            ),
            Example(
                "class Counter(nn.Module):\n"
                "    def forward(self, x):\n"
                "        self.seen.add_(x.shape[0])\n"
                "        return x\n"
            ),
        ),
        references=(_TORCHSCRIPT, "https://pytorch.org/docs/stable/generated/torch.nn.Module.html"),
    )

    def _flag(self, node: cst.CSTNode, target: cst.BaseExpression, what: Callable[[], str]) -> None:
        attr = state_attr(target)
        self.found(node, lambda: f"{what()} changes module state in forward: the exported graph keeps `{attr}` "
                   f"as a constant and never updates it; pass `{attr}` in as an input and return its new value")

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            for element in _target_elements(target.target):
                if _self_state(element):
                    self._flag(element, element, lambda element=element: f"`{short_code(element)} = ...`")

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and _self_state(node.target):
            self._flag(node.target, node.target, lambda: f"`{short_code(node.target)} = ...`")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if _self_state(node.target):
            self._flag(node, node.target,
                       lambda: f"`{short_code(node.target)} {code_of(node.operator).strip()} ...`")

    def visit_Del(self, node: cst.Del) -> None:
        for element in _target_elements(node.target):
            if _self_state(element):
                self._flag(element, element, lambda element=element: f"`del {short_code(element)}`")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is cst.Name and func.value in ("setattr", "delattr") and node.args:
            first = node.args[0].value
            if type(first) is cst.Name and first.value == "self" and not self.context.qualified_names(func):
                self.found(node, f"`{func.value}(self, ...)` changes module state in forward: the exported graph "
                           "keeps no state; pass the value in as an input and return its new value")
            return
        parts = method_call(node)
        if parts is None:
            return
        receiver, name = parts
        if type(receiver) is cst.Name and receiver.value == "self" and name in (
            "register_buffer", "register_parameter", "register_module", "add_module"
        ):
            self.found(node, f"`self.{name}(...)` in forward changes module state: the exported graph keeps "
                       "no state; build it in __init__, or pass the value in as an input")
            return
        in_place = name.endswith("_") and not name.startswith("_")
        if (in_place or name in CONTAINER_MUTATORS) and _self_state(receiver):
            self._flag(node, receiver, lambda: f"`{short_code(receiver)}.{name}(...)`")


def _target_elements(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    if type(target) in (cst.Tuple, cst.List):
        found: list[cst.BaseExpression] = []
        for element in target.elements:
            found.extend(_target_elements(element.value))
        return found
    if type(target) is cst.StarredElement:
        return _target_elements(target.value)
    return [target]



RULES = (StateInForward,)
