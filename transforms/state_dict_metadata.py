"""A ``state_dict`` override that adds a value that is no tensor stops the TorchScript ONNX export (TRT377)."""

from __future__ import annotations

import libcst as cst

from trtcodemod.evidence.proofs import prove_state_dict_export
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule

#: Tensor methods that return a tensor of their tensor receiver: a value made by one is evidently a tensor.
_TENSOR_RESULTS = frozenset({"detach", "clone", "cpu", "cuda", "to", "float", "half", "double", "bfloat16", "long",
                             "int", "bool", "contiguous", "view", "reshape", "detach_", "requires_grad_"})
#: ``torch.`` functions that return no tensor.
_NOT_TENSORS = frozenset({"torch.Size", "torch.dtype", "torch.device", "torch.__version__"})

_WHY = ("the TorchScript ONNX exporter reads `state_dict(keep_vars=True)` and calls `.detach()` on every value, "
        "which stops the export with `AttributeError: '<type>' object has no attribute 'detach'` and no line of "
        "yours; the fix makes the store only outside the ONNX export (`if not torch.onnx.is_in_onnx_export():`)")


class StateDictMetadata(RuntimeScopeRule):
    needs_text = (b"state_dict",)
    info = RuleInfo(
        id="TRT377",
        name="state-dict-metadata",
        summary="a `state_dict` override of an `nn.Module` subclass that puts a value that is no tensor (version, "
                "configuration) into the dict it returns: the TorchScript ONNX export stops at `.detach()`",
        doc="""\
What it finds: in an `nn.Module` subclass (a base from `torch.nn`, a base whose name ends in
`Module`, or a module class of the same file), a method `def state_dict(self, ...)` that stores
a value that is not evidently a tensor into the dict it returns (a name the method returns):
`d[key] = value`, `d.update({...})` / `d.update(key=value)`, `d.setdefault(key, value)`. A
value is evidently a tensor when it is made by a `torch.` function (other than `torch.Size`,
`torch.device`, `torch.dtype`) or by a tensor method that returns its receiver's data
(`detach`, `clone`, `to`, `float`, ...); a local name is not judged (a loop's
`for k, v in extra.items(): d[prefix + k] = v` is left alone); anything else (a literal,
`self._init_kwargs`, a version string, `dict(...)`) is not a tensor. `d.update(other)` of a
name is not reported (what it holds is
not visible). neuraloperator 2.0.0's `BaseModel.state_dict` (`neuralop/models/base_model.py:104-107`)
stores `state_dict['_metadata'] = self._init_kwargs`, a dict of the constructor's arguments, in
every FNO and TFNO.

Why it hurts: the TorchScript ONNX exporter (`torch.onnx.export(..., dynamo=False)`, torch 2.13)
collects the module's parameters with `module.state_dict(keep_vars=True)` and calls `.detach()`
on every value (`torch/jit/_trace.py`, `_unique_state_dict`): the export stops with
`AttributeError: 'dict' object has no attribute 'detach'`, raised inside torch after the override
has returned, so the traceback names no line of the model. `torch.jit.trace` fails the same way.

The fix keeps the statement and puts it under `if not torch.onnx.is_in_onnx_export():`, in its
own place (its comments move with it; the `else` of an `if` around it stays that `if`'s): outside
an ONNX export the method runs as before, bit for bit; while exporting, the dict has the module's
tensors only. The test around the store is not changed: neuraloperator's
`if state_dict.get('_metadata') == None: ... else: warnings.warn(...)` still warns only where it
warned (folding the guard into that test would send the export into the warning's branch).

Fix safety: unsafe. Outside an ONNX export nothing changes. While one runs, the TorchScript
exporter's own call raised before and works after; but any other code that calls `state_dict()`
while the export runs (a hook, the dynamo exporter) no longer gets the entry. `migrate` applies it
where the observed export failed detaching a value of the state dict.""",
        fix=Safety.UNSAFE,
        assumption="nothing that runs while the ONNX export is in progress reads the entry from `state_dict()` "
                   "(the TorchScript exporter reads the state dict only to detach every value, which failed on it)",
        fails_when=(
            "a hook or callback calls `model.state_dict()` during `torch.onnx.export` and reads the entry",
            "the dynamo exporter's run of the module's `state_dict()` sees the dict without the entry",
        ),
        proof=prove_state_dict_export,
        examples=(
            Example(
                "import torch\n\n"
                "class Net(torch.nn.Module):\n"
                "    def state_dict(self, destination=None, prefix='', keep_vars=False):\n"
                "        sd = super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)\n"
                "        sd['_metadata'] = {'version': 2}\n"
                "        return sd\n",
                "import torch\n\n"
                "class Net(torch.nn.Module):\n"
                "    def state_dict(self, destination=None, prefix='', keep_vars=False):\n"
                "        sd = super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)\n"
                "        if not torch.onnx.is_in_onnx_export():\n"
                "            sd['_metadata'] = {'version': 2}\n"
                "        return sd\n",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html",
            "https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.state_dict",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: (the `state_dict` method, the names it returns) of the innermost such method we are in.
        self._methods: list[tuple[cst.FunctionDef, frozenset[str]] | None] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        where = self.current_method()
        ours = (node.name.value == "state_dict" and where is not None and where[1] is node and where[0].is_module
                and self._scopes and self._scopes[-1] is node and len(self._scopes) >= 2
                and type(self._scopes[-2]) is cst.ClassDef)
        self._methods.append((node, _returned(node)) if ours else None)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._methods.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        method = self._methods[-1] if self._methods else None
        if method is None or self.context.function is not method[0] or not self.active():
            return
        stores = [s for s in (self._store(stmt, method[1]) for stmt in node.body) if s is not None]
        if not stores:
            return
        name, what = stores[0]
        message = (f"`state_dict` puts {what} into `{name}`, the dict it returns: {_WHY}")
        fix = None
        if len(node.body) == 1 or len(stores) == len(node.body):
            test = cst.UnaryOperation(cst.Not(), cst.Call(self.context.torch_attr("onnx.is_in_onnx_export")))
            last = node.body[-1]
            inner = node.with_changes(leading_lines=(), body=[*node.body[:-1], last.with_changes(
                semicolon=cst.MaybeSentinel.DEFAULT)])
            guarded = cst.If(test=test, body=cst.IndentedBlock(body=[inner]), leading_lines=node.leading_lines)
            fix = Fix({node: guarded}, safety=Safety.UNSAFE)
        self.report(node, message, fix)

    def _store(self, stmt: cst.BaseSmallStatement, returned: frozenset[str]) -> tuple[str, str] | None:
        """(the dict's name, the value in words) when ``stmt`` puts a value that is no evident tensor into one of
        the ``returned`` names."""
        if type(stmt) is cst.Assign and len(stmt.targets) == 1:
            target = stmt.targets[0].target
            if type(target) is cst.Subscript and type(target.value) is cst.Name and target.value.value in returned \
                    and not self._tensor(stmt.value):
                return target.value.value, f"`{_code(stmt.value)}`"
            return None
        if type(stmt) is not cst.Expr or type(stmt.value) is not cst.Call:
            return None
        call = stmt.value
        func = call.func
        if type(func) is not cst.Attribute or type(func.value) is not cst.Name or func.value.value not in returned:
            return None
        name = func.value.value
        if func.attr.value == "setdefault" and len(call.args) >= 2 and call.args[1].keyword is None \
                and not call.args[1].star and not self._tensor(call.args[1].value):
            return name, f"`{_code(call.args[1].value)}`"
        if func.attr.value == "update":
            values = []
            for arg in call.args:
                if arg.star:
                    return None
                if arg.keyword is not None:
                    values.append(arg.value)
                elif type(arg.value) is cst.Dict:
                    if any(type(e) is not cst.DictElement for e in arg.value.elements):
                        return None
                    values.extend(e.value for e in arg.value.elements)
                elif type(arg.value) is cst.Call and type(arg.value.func) is cst.Name \
                        and arg.value.func.value == "dict":
                    if any(a.star for a in arg.value.args):
                        return None
                    values.extend(a.value for a in arg.value.args if a.keyword is not None)
                else:
                    return None  # another mapping: what it holds is not visible
            odd = [v for v in values if not self._tensor(v)]
            if odd:
                return name, f"`{_code(odd[0])}`"
        return None

    def _tensor(self, value: cst.BaseExpression) -> bool:
        """Is ``value`` evidently a tensor, or a local name whose value the statement does not show (a loop's
        ``for k, v in extra.items(): d[prefix + k] = v``: left alone)?"""
        if type(value) is cst.Name:
            return value.value not in ("None", "True", "False")
        if type(value) is not cst.Call:
            return False
        names = self.context.qualified_names(value.func)
        if names:
            return any(n.startswith("torch.") and n not in _NOT_TENSORS for n in names)
        return type(value.func) is cst.Attribute and value.func.attr.value in _TENSOR_RESULTS


def _returned(method: cst.FunctionDef) -> frozenset[str]:
    """The names ``method``'s own ``return`` statements return (not those of functions defined in it)."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [method.body]
    while stack:
        node = stack.pop()
        if type(node) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            continue
        if type(node) is cst.Return and type(node.value) is cst.Name:
            found.add(node.value.value)
        stack.extend(node.children)
    return frozenset(found)


def _code(node: cst.CSTNode) -> str:
    text = cst.Module(body=[]).code_for_node(node)
    return text if len(text) <= 60 else text[:57] + "..."


RULES = (StateDictMetadata,)
