"""TRT106: a recurrence over a dynamic axis (``for i in range(1, x.size(0))`` in a method) lifted into a
``@torch.jit.script`` function called while tracing, so that the TorchScript exporter keeps it as an ONNX ``Loop``.

The analysis is static and local to the function: the loop must be a statement of the function's own body,
over ``range(<size>)`` or ``range(<start>, <size>)``; every name it reads must have a type the code shows
(a parameter annotated as a tensor or number, ``FloatTensor`` and the like written bare where the file imports them
from torch, a local bound from a tensor expression, a size (``x.size(0)``, ``x.shape[1]``, unpacked from ``x.shape``
or ``x.size()``), a tensor's ``.device``, or a number literal; ``self.<attr>`` a ``nn.Parameter`` or a buffer
``__init__`` registers). Nothing is guessed: a
name of unknown type leaves the loop as it is.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety

TENSOR, INT, FLOAT, BOOL = "torch.Tensor", "int", "float", "bool"
#: A tensor's device (`device = h.device`, read by `.to(device)` in the loop): TorchScript types it `torch.device`.
DEVICE = "torch.device"
#: Annotations read as a tensor (pytorch-crf annotates `tags: torch.LongTensor`, `mask: torch.ByteTensor`).
_TENSOR_ANNOTATIONS = {"Tensor", "torch.Tensor", "torch.LongTensor", "torch.ByteTensor", "torch.FloatTensor",
                       "torch.BoolTensor"}
#: The same types written bare, as a file that imports them from torch writes them (TorchCRF: `from torch import
#: BoolTensor, FloatTensor, LongTensor`, then `h: FloatTensor`): read as tensors only where the file imports them so.
_BARE_TENSOR_TYPES = {"LongTensor", "ByteTensor", "FloatTensor", "BoolTensor", "DoubleTensor", "IntTensor"}
#: Tensor methods whose result is a number, not a tensor (anything else a tensor method returns is taken as a
#: tensor only inside the loop, where TorchScript types it itself).
_NUMBER_METHODS = {"size", "dim", "numel", "item", "tolist", "stride", "element_size", "nelement", "ndimension"}
#: Tensor attributes that the loop may read.
_ATTRIBUTES = {"shape", "T", "mT", "dtype", "device"}


def _dotted(node: cst.BaseExpression) -> str | None:
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute:
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


def _names(node: cst.CSTNode) -> list[str]:
    """Every plain name read in ``node`` (attribute names and keyword names excluded)."""
    found: list[str] = []

    def walk(n: cst.CSTNode) -> None:
        if type(n) is cst.Name:
            found.append(n.value)
            return
        if type(n) is cst.Attribute:
            if _dotted(n.value) != "self":
                walk(n.value)
            return
        if type(n) is cst.Arg:
            walk(n.value)
            return
        for child in n.children:
            walk(child)

    walk(node)
    return found


class _Decline(Exception):
    """The loop is not lifted (the reason is kept for debugging, not reported)."""


class SizeLoopScript(Rule):
    needs_text = (b"range",)
    info = RuleInfo(
        id="TRT106",
        name="size-loop-script",
        summary="a recurrence `for i in range(1, x.size(0))` over a dynamic axis: a traced export unrolls it with "
                "the example's count; lift it into a `torch.jit.script` function (an ONNX `Loop`)",
        doc="""\
What it finds: a `for <i> in range(<size>)` or `for <i> in range(<start>, <size>)` statement
directly in the body of a function or method, where `<size>` is a size of a tensor
(`x.size(0)`, `x.shape[1]`, or a local bound from one: `n = x.size(0)`, `n, b = x.shape`,
`b, n, _ = x.size()`),
whose body only assigns locals (`name = ...`, `name += ...`) from the loop index, locals bound
before the loop (tensors and numbers whose type the code shows), `self.<attr>` tensors
(a `nn.Parameter` or buffer that `__init__` sets), a device read from a tensor before the loop
(`device = h.device`, passed as a `torch.device`), `torch` functions and tensor methods (a tensor's
type may be written bare, `h: FloatTensor`, where the file has `from torch import FloatTensor`): the
forward algorithm and gold-path score of a linear-chain CRF (pytorch-crf's
`_compute_normalizer`, `score = torch.where(mask[i].unsqueeze(1), torch.logsumexp(score.unsqueeze(2)
+ self.transitions + emissions[i].unsqueeze(1), dim=1), score)`). Not reported: a body that
calls anything else (a method of `self`, a function of the file, `print`), appends to a list
(ONNX sequence ops, which TensorRT refuses), holds `if`, `break`, `return`, a nested loop or
`def`; a local first bound inside the loop and read after it; the loop index read after it;
a name whose type the code does not show.

Why it hurts: a traced export runs the loop with the example's trip count and unrolls it:
the graph repeats the body exactly that many times, whatever the sequence length at run
time (`migrate` finds it as an "(unrolled loop)" when a second trace at another size
unrolls it another number of times). TensorRT parses ONNX `Loop` where the loop-carried
values keep one shape and there are no scan outputs, which such a recurrence satisfies.

The rewrite (the guidance's recipe for a dynamic number of iterations): the loop is copied into a
new module-level function decorated `@torch.jit.script`, `_trt_loop_<function>`, taking as typed
parameters (`torch.Tensor`, `int`, `float`, `bool`) every name the loop reads and every local it
carries, each `self.<attr>` as a parameter `self_<attr>`, and each size the loop reads as the
tensor it is read from (the function reads the size itself, so the trip count stays a traced
size); it returns the locals the loop assigns that are read after it. The loop becomes
`if not torch.jit.is_scripting() and torch.jit.is_tracing(): score = _trt_loop_normalizer(emissions,
score, mask, self.transitions) else: <the loop, unchanged>`: a TorchScript trace (the TorchScript
ONNX exporter) calls the scripted function and keeps its loop as an ONNX `Loop` whose trip count
follows the input; eager code, `torch.fx`, `torch.compile`, `torch.export` and the dynamo exporter
run the loop as written. The rule compiles the lifted function with TorchScript before it offers
the rewrite (TorchScript lacks some of Python's tensor API, `Tensor.bool()` for one): a loop it
refuses is not reported.

Fix safety: unsafe. Eager mode is unchanged, and the forward values of the traced model are
the loop's (the same operations in TorchScript), but a model traced with `torch.jit.trace` now
holds a ScriptFunction: its gradients are TorchScript's own once its profiling runs are past, and
TorchScript's gradient of `torch.where` with a uint8 condition (pytorch-crf's `ByteTensor` masks)
inverts the mask bitwise (254 and 255 where eager mode has 0 and 1), so a traced model trained with
such a mask learns other gradients; and the code traced is a scripted function, not Python (no
debugger inside it). `migrate` tries it as a candidate where its second trace finds the loop
unrolled, and keeps it only if the rewritten model's graph matches eager mode on every input set.

Which TensorRT versions: all (`Loop` since TensorRT 7).""",
        fix=Safety.UNSAFE,
        assumption=("a model traced with torch.jit.trace is used for its forward values: its gradients through the "
                    "scripted loop are TorchScript's own"),
        fails_when=(
            "a traced model trained with a uint8 mask in `torch.where`: TorchScript's gradient inverts the mask "
            "bitwise after its profiling runs",
        ),
        examples=(
            Example(
                """\
class CRF(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.transitions = nn.Parameter(torch.randn(n, n))

    def normalizer(self, emissions: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        seq_length = emissions.size(0)
        score = emissions[0]
        for i in range(1, seq_length):
            nxt = torch.logsumexp(score.unsqueeze(2) + self.transitions + emissions[i].unsqueeze(1), dim=1)
            score = torch.where(mask[i].unsqueeze(1), nxt, score)
        return torch.logsumexp(score, dim=1)
""",
                """\
class CRF(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.transitions = nn.Parameter(torch.randn(n, n))

    def normalizer(self, emissions: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        seq_length = emissions.size(0)
        score = emissions[0]
        if not torch.jit.is_scripting() and torch.jit.is_tracing():
            score = _trt_loop_normalizer(emissions, score, mask, self.transitions)
        else:
            for i in range(1, seq_length):
                nxt = torch.logsumexp(score.unsqueeze(2) + self.transitions + emissions[i].unsqueeze(1), dim=1)
                score = torch.where(mask[i].unsqueeze(1), nxt, score)
        return torch.logsumexp(score, dim=1)
""",
                unsafe=True,
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#tracing-vs-scripting",
            "https://docs.nvidia.com/deeplearning/tensorrt/latest/inference-library/work-with-loops.html",
            "https://github.com/kmkurn/pytorch-crf/blob/master/torchcrf/__init__.py",
        ),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.decorators or node.asynchronous is not None:
            return
        if type(node.body) is not cst.IndentedBlock:
            return
        statements = list(node.body.body)
        for index, statement in enumerate(statements):
            if type(statement) is not cst.For or not _is_range(statement.iter):
                continue
            try:
                fix = self._lift(node, statements, index)
            except _Decline:
                continue
            self.report(statement, "a loop over a tensor's size (a dynamic axis): a traced export unrolls it with the "
                        "example's count; lift it into a `torch.jit.script` function, which the TorchScript exporter "
                        "keeps as an ONNX `Loop`", fix)

    # --- the analysis ---------------------------------------------------------------------------------------------

    def _torch_imports(self) -> set[str]:
        """The bare tensor types (``FloatTensor``) the file imports from torch by name."""
        found: set[str] = set()
        for statement in self.context.module.body:
            if type(statement) is not cst.SimpleStatementLine:
                continue
            for small in statement.body:
                if type(small) is cst.ImportFrom and small.module is not None and _dotted(small.module) == "torch" \
                        and not small.relative and type(small.names) is not cst.ImportStar:
                    found.update(a.name.value for a in small.names if type(a.name) is cst.Name
                                 and a.asname is None and a.name.value in _BARE_TENSOR_TYPES)
        return found

    def _tensor_attributes(self) -> set[str]:
        """``self.<attr>`` names the class's ``__init__`` binds to a ``nn.Parameter`` or registers as a buffer."""
        klass = self.context.enclosing_class
        found: set[str] = set()
        if klass is None:
            return found
        for item in klass.body.body:
            if type(item) is not cst.FunctionDef or item.name.value != "__init__":
                continue
            for n in _walk(item):
                if type(n) is cst.Assign and type(n.value) is cst.Call and len(n.targets) == 1:
                    target, callee = n.targets[0].target, _dotted(n.value.func) or ""
                    if type(target) is cst.Attribute and _dotted(target.value) == "self" and (
                            callee.endswith("Parameter")):
                        found.add(target.attr.value)
                if type(n) is cst.Call and (_dotted(n.func) or "") == "self.register_buffer" and n.args \
                        and type(n.args[0].value) is cst.SimpleString:
                    found.add(n.args[0].value.evaluated_value)
        return found

    def _lift(self, function: cst.FunctionDef, statements: list[cst.CSTNode], index: int) -> Fix:
        loop: cst.For = statements[index]  # type: ignore[assignment]
        if type(loop.target) is not cst.Name or loop.orelse is not None or type(loop.body) is not cst.IndentedBlock:
            raise _Decline("target")
        index_name = loop.target.value
        in_class = self.context.enclosing_class is not None
        attributes = self._tensor_attributes() if in_class else set()
        types, sizes = _parameter_types(function, self._torch_imports())
        # Locals bound before the loop, in order.
        for statement in statements[:index]:
            _bind(statement, types, sizes, attributes)
        # The range's bound: a size.
        args = [a.value for a in loop.iter.args]  # type: ignore[attr-defined]
        bound = args[-1]
        if not (_size_expression(bound, types) or (type(bound) is cst.Name and bound.value in sizes)):
            raise _Decline("not a size")
        for start in args[:-1]:
            if _kind(start, types, attributes) != INT:
                raise _Decline("start")
        # The body.
        assigned: list[str] = []
        local: set[str] = set()
        reads: list[str] = []
        body_types = dict(types)
        body_types[index_name] = INT
        for statement in loop.body.body:
            if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
                raise _Decline("statement")
            small = statement.body[0]
            if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name:
                name, value = small.targets[0].target.value, small.value
                augmented = False
            elif type(small) is cst.AugAssign and type(small.target) is cst.Name:
                name, value = small.target.value, small.value
                augmented = True
            else:
                raise _Decline("statement")
            _check_expression(value, attributes)
            for read in _names(value) + ([name] if augmented else []):
                if read == index_name or read in local:
                    continue
                if read in body_types or read in sizes:
                    reads.append(read)
                elif read not in ("torch",):
                    raise _Decline(f"{read} unknown")
            kind = _kind(value, body_types, attributes)
            if name in types:
                # A carried value keeps its type (TorchScript's loop-carried values must).
                if kind != types[name] and not (augmented and types[name] == TENSOR):
                    raise _Decline("carried type")
            else:
                local.add(name)
            if name == index_name:
                raise _Decline("index assigned")
            assigned.append(name)
        after = [n for s in statements[index + 1:] for n in _names(s)]
        if index_name in after:
            raise _Decline("index read after")
        carried = [n for n in dict.fromkeys(assigned) if n in after]
        if not carried or any(n in local for n in carried):
            raise _Decline("nothing carried or first bound inside")
        # Parameters: every name read or carried that was bound before the loop; sizes become their tensor.
        needed = [n for n in dict.fromkeys([*_names(loop.iter), *reads, *carried]) if n not in (index_name, "range")]
        params: list[tuple[str, str]] = []
        prologue: list[str] = []
        arguments: list[cst.BaseExpression] = []
        rename: dict[str, str] = {}
        for name in needed:
            if name in sizes:
                tensor, code = sizes[name]
                if tensor not in [p for p, _ in params]:
                    params.append((tensor, TENSOR))
                    arguments.append(cst.Name(tensor))
                prologue.append(f"{name} = {code}")
                continue
            if name.startswith("self."):
                continue
            kind = types.get(name)
            if kind is None:
                raise _Decline(f"{name} untyped")
            if name not in [p for p, _ in params]:
                params.append((name, kind))
                arguments.append(cst.Name(name))
        for attribute in sorted(_self_reads(loop.body), key=_order(loop.body)):
            if attribute not in attributes:
                raise _Decline("self attribute")
            rename[attribute] = f"self_{attribute}"
            params.append((f"self_{attribute}", TENSOR))
            arguments.append(cst.parse_expression(f"self.{attribute}"))
        # A size tensor may itself be a carried or read name: keep the order, no duplicates.
        seen: set[str] = set()
        unique = [(p, a) for p, a in zip(params, arguments) if not (p[0] in seen or seen.add(p[0]))]
        params, arguments = [p for p, _ in unique], [a for _, a in unique]
        for size_tensor in {sizes[n][0] for n in needed if n in sizes}:
            if size_tensor in assigned:
                raise _Decline("size tensor reassigned in the loop")
        name = self._fresh(f"_trt_loop_{function.name.value.lstrip('_')}")
        body = loop.body.visit(_SelfToParameter(rename))
        new_loop = loop.with_changes(body=body, leading_lines=())
        torch = cst.Module(body=[]).code_for_node(self.context.torch_attr("Tensor")).rsplit(".", 1)[0]
        signature = ", ".join(f"{p}: {torch + '.Tensor' if k == TENSOR else k}" for p, k in params)
        returned = ", ".join(carried)
        text = (f"@{torch}.jit.script\ndef {name}({signature}):\n"
                + "".join(f"    {line}\n" for line in prologue) + "    __LOOP__\n" + f"    return {returned}\n")
        if torch != "torch" or not _compiles(text.split("\n", 1)[1].replace("__LOOP__", "pass"), new_loop):
            raise _Decline("TorchScript refuses it")
        lifted = cst.parse_statement(text)
        assert isinstance(lifted, cst.FunctionDef)
        lifted_body = list(lifted.body.body)  # type: ignore[union-attr]
        lifted_body[len(prologue)] = new_loop
        lifted = lifted.with_changes(body=lifted.body.with_changes(body=lifted_body))
        call = cst.Call(cst.Name(name), [cst.Arg(a) for a in arguments])
        targets = ", ".join(carried)
        guarded = cst.parse_statement(f"if not {torch}.jit.is_scripting() and {torch}.jit.is_tracing():\n"
                                      f"    {targets} = __CALL__\nelse:\n    pass\n").visit(_Placeholder(call))
        assert isinstance(guarded, cst.If) and guarded.orelse is not None
        kept = loop.with_changes(leading_lines=())
        replacement = guarded.with_changes(
            leading_lines=loop.leading_lines,
            orelse=guarded.orelse.with_changes(body=guarded.orelse.body.with_changes(body=[kept])))
        top = self._top_statement()
        new_top = top.deep_replace(loop, replacement)
        blank = cst.EmptyLine()
        return Fix({top: cst.FlattenSentinel([lifted.with_changes(leading_lines=list(top.leading_lines)),
                                              new_top.with_changes(leading_lines=[blank, blank])])},
                   safety=Safety.UNSAFE)

    def _top_statement(self) -> cst.CSTNode:
        outer = self.context.classes[0] if self.context.classes else self.context.functions[0]
        for statement in self.context.module.body:
            if statement is outer:
                return statement
        raise _Decline("not at module level")

    def _fresh(self, base: str) -> str:
        taken = {n.value for n in _walk(self.context.module) if type(n) is cst.Name}
        name, k = base, 2
        while name in taken:
            name, k = f"{base}_{k}", k + 1
        return name


class _SelfToParameter(cst.CSTTransformer):
    def __init__(self, rename: dict[str, str]) -> None:
        super().__init__()
        self.rename = rename

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if _dotted(original.value) == "self" and original.attr.value in self.rename:
            return cst.Name(self.rename[original.attr.value])
        return updated


class _Placeholder(cst.CSTTransformer):
    def __init__(self, call: cst.Call) -> None:
        super().__init__()
        self.call = call

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.call if original.value == "__CALL__" else updated


def _compiles(text: str, loop: cst.For) -> bool:
    """Does TorchScript compile the lifted function (``text`` with its loop in place of ``pass``)? It reads only its
    parameters and ``torch``, so it compiles on its own, as the decorator will at import."""
    try:
        import torch
    except ImportError:  # nothing can tell: not lifted
        return False
    function = cst.parse_statement(text)
    assert isinstance(function, cst.FunctionDef)
    body = list(function.body.body)  # type: ignore[union-attr]
    body[-2] = loop  # the placeholder, right before the `return`
    source = cst.Module(body=[function.with_changes(body=function.body.with_changes(body=body))]).code
    try:
        torch.jit.CompilationUnit(source)
    except Exception:  # noqa: BLE001 - any refusal of TorchScript's
        return False
    return True


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)


def _order(body: cst.CSTNode):
    code = cst.Module(body=[]).code_for_node(body)
    return lambda attribute: code.find(f"self.{attribute}")


def _self_reads(body: cst.CSTNode) -> set[str]:
    return {n.attr.value for n in _walk(body) if type(n) is cst.Attribute and _dotted(n.value) == "self"}


def _is_range(node: cst.BaseExpression) -> bool:
    return (type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "range"
            and 1 <= len(node.args) <= 2 and all(a.keyword is None and a.star == "" for a in node.args))


def _annotation_kind(annotation: cst.Annotation | None, bare: set[str] = frozenset()) -> str | None:
    if annotation is None:
        return None
    text = _dotted(annotation.annotation)
    if text in _TENSOR_ANNOTATIONS or text in bare:
        return TENSOR
    return text if text in (INT, FLOAT, BOOL) else None


def _parameter_types(function: cst.FunctionDef, bare: set[str] = frozenset()
                     ) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """The parameters' types their annotations show (``bare``: tensor types the file imports from torch)."""
    types: dict[str, str] = {}
    for param in function.params.params:
        kind = _annotation_kind(param.annotation, bare)
        if kind is not None:
            types[param.name.value] = kind
    return types, {}


def _size_expression(node: cst.BaseExpression, types: dict[str, str]) -> str | None:
    """The tensor whose size ``node`` reads (`x.size(0)`, `x.shape[1]`), if it is a tensor name."""
    if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "size" \
            and type(node.func.value) is cst.Name and len(node.args) == 1 \
            and types.get(node.func.value.value) == TENSOR:
        return node.func.value.value
    if type(node) is cst.Subscript and type(node.value) is cst.Attribute and node.value.attr.value == "shape" \
            and type(node.value.value) is cst.Name and types.get(node.value.value.value) == TENSOR \
            and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
        return node.value.value.value
    return None


def _bind(statement: cst.CSTNode, types: dict[str, str], sizes: dict[str, tuple[str, str]],
          attributes: set[str]) -> None:
    """Record what ``statement`` (one before the loop) binds: a name's type, or that it is a size."""
    bound: list[str] = []
    if type(statement) is cst.SimpleStatementLine:
        for small in statement.body:
            if type(small) is cst.Assign and len(small.targets) == 1:
                target = small.targets[0].target
                if type(target) is cst.Name:
                    tensor = _size_expression(small.value, types)
                    kind = _kind(small.value, types, attributes)
                    _forget(target.value, types, sizes)
                    if tensor is not None:
                        types[target.value] = INT
                        sizes[target.value] = (tensor, cst.Module(body=[]).code_for_node(small.value))
                        continue
                    if kind is not None:
                        types[target.value] = kind
                    continue
                if type(target) is cst.Tuple and all(type(e.value) is cst.Name for e in target.elements):
                    value = small.value
                    names = [e.value.value for e in target.elements]  # type: ignore[attr-defined]
                    tensor = None
                    if type(value) is cst.Attribute and value.attr.value == "shape" and type(value.value) is cst.Name:
                        tensor = value.value.value
                    elif type(value) is cst.Call and type(value.func) is cst.Attribute \
                            and value.func.attr.value == "size" and not value.args \
                            and type(value.func.value) is cst.Name:
                        tensor = value.func.value.value  # `batch_size, seq_len, _ = h.size()` (TorchCRF)
                    if tensor is not None and types.get(tensor) == TENSOR:
                        for k, n in enumerate(names):
                            _forget(n, types, sizes)
                            types[n] = INT
                            sizes[n] = (tensor, f"{tensor}.size({k})")
                        continue
                    bound.extend(names)
                    continue
            if type(small) is cst.AugAssign and type(small.target) is cst.Name:
                continue  # `score += ...`: the same name, of the same type
            if type(small) in (cst.Expr, cst.Assert, cst.Pass):
                continue
            bound.extend(n.value for n in _walk(small) if type(n) is cst.Name)
    else:
        bound.extend(n.value for n in _walk(statement) if type(n) is cst.Name)
    for name in bound:
        _forget(name, types, sizes)
    # A size whose tensor was rebound no longer reads the same tensor.
    for name, (tensor, _) in list(sizes.items()):
        if types.get(tensor) != TENSOR:
            del sizes[name]


def _forget(name: str, types: dict[str, str], sizes: dict[str, tuple[str, str]]) -> None:
    types.pop(name, None)
    sizes.pop(name, None)
    for size, (tensor, _) in list(sizes.items()):
        if tensor == name:
            del sizes[size]


def _kind(node: cst.BaseExpression, types: dict[str, str], attributes: set[str]) -> str | None:
    """The type of ``node`` where the code shows it."""
    if type(node) is cst.Name:
        return {"True": BOOL, "False": BOOL}.get(node.value, types.get(node.value))
    if type(node) is cst.Integer:
        return INT
    if type(node) is cst.Float:
        return FLOAT
    if _size_expression(node, types) is not None:
        return INT
    if type(node) is cst.Attribute:
        if _dotted(node.value) == "self":
            return TENSOR if node.attr.value in attributes else None
        if node.attr.value == "device" and _kind(node.value, types, attributes) == TENSOR:
            return DEVICE
        return None
    if type(node) is cst.Subscript:
        return TENSOR if _kind(node.value, types, attributes) == TENSOR else None
    if type(node) is cst.Call:
        func = node.func
        dotted = _dotted(func) or ""
        if dotted.startswith("torch.") and dotted.count(".") == 1 and dotted not in ("torch.Size",):
            return TENSOR
        if type(func) is cst.Attribute and func.attr.value not in _NUMBER_METHODS \
                and _kind(func.value, types, attributes) == TENSOR:
            return TENSOR
        return None
    if type(node) is cst.BinaryOperation:
        kinds = {_kind(node.left, types, attributes), _kind(node.right, types, attributes)}
        if TENSOR in kinds and None not in kinds:
            return TENSOR
        if kinds == {INT}:
            return None if type(node.operator) is cst.Divide else INT
        return None
    if type(node) is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.BitInvert):
        return _kind(node.expression, types, attributes)
    return None


def _check_expression(node: cst.CSTNode, attributes: set[str]) -> None:
    """Only torch functions, tensor methods, indexing, arithmetic, comparisons and literals."""
    for n in _walk(node):
        if type(n) in (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp, cst.List, cst.Dict,
                       cst.Set, cst.Await, cst.Yield, cst.IfExp, cst.NamedExpr, cst.FormattedString,
                       cst.SimpleString, cst.ConcatenatedString):
            raise _Decline("construct")
        if type(n) is cst.Call:
            dotted = _dotted(n.func) or ""
            if dotted.startswith("torch."):
                continue
            if type(n.func) is cst.Attribute and _dotted(n.func.value) != "self" \
                    and n.func.attr.value not in ("append", "extend", "insert", "item", "tolist"):
                continue  # a tensor method
            raise _Decline(f"call {dotted}")
        if type(n) is cst.Attribute:
            head = _dotted(n.value)
            if head == "self" and n.attr.value not in attributes:
                raise _Decline("self attribute")
            if head is not None and head.startswith("torch"):
                continue
            if head != "self" and n.attr.value not in _ATTRIBUTES and not _is_method(node, n):
                raise _Decline(f"attribute {n.attr.value}")


def _is_method(root: cst.CSTNode, attribute: cst.Attribute) -> bool:
    return any(type(n) is cst.Call and n.func is attribute for n in _walk(root))


RULES = (SizeLoopScript,)
