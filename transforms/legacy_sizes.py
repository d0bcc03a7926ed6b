"""A legacy constructor given sizes (TRT349): the TorchScript trace keeps a constant of the example's sizes.

``torch.Tensor(b, h, w)``, ``torch.FloatTensor(n, c)``, ``torch.cuda.FloatTensor(...)`` and
``x.new(b, 1)`` make a new tensor of the given sizes, its values uninitialised. They read each size
into a Python int, so while tracing the result is recorded as a constant of the traced example's
sizes ("torch.Tensor results are registered as constants"), and whatever is written into it or
computed from it keeps those sizes at every other input size. ``torch.empty``/``new_empty`` make the
same tensor and take the traced sizes: the graph follows the input.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import has_star_args, method_call, short_code, visit_readonly, walk
from trtcodemod.rules import Example, Fix, RuleInfo, Safety
from trtcodemod.scopes import ASSIGN, Bindings
from trtcodemod.transforms._op_calls import in_inserted_helper
from trtcodemod.transforms._size_facts import TS_PITFALLS, SizeRule

HELPER = "_trt_legacy_empty"

#: The typed legacy constructors → the dtype attribute of ``torch`` they make.
_TYPED = {
    "FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16", "BFloat16Tensor": "bfloat16",
    "LongTensor": "int64", "IntTensor": "int32", "ShortTensor": "int16", "CharTensor": "int8",
    "ByteTensor": "uint8", "BoolTensor": "bool",
}
_LEGACY = ("torch.Tensor",) + tuple(f"torch.{name}" for name in _TYPED) + tuple(f"torch.cuda.{name}" for name in _TYPED)
_MESSAGE = ("reads each size into a Python int: while tracing, the new tensor is a constant of the traced "
            "example's sizes (\"torch.Tensor results are registered as constants\"), and what is written into "
            "it or computed from it keeps those sizes at other input sizes")


class LegacySizes(SizeRule):
    # A call, or an alias bound at the end of a line (`FloatTensor = torch.cuda.FloatTensor if c else torch.FloatTensor`).
    needs_text = (b"Tensor(", b".new(", b"Tensor\n", b"Tensor\r", b"Tensor #", b"Tensor  #")
    info = RuleInfo(
        id="TRT349",
        name="legacy-constructor-sizes",
        summary="a legacy constructor given sizes (`torch.Tensor(b, h, w)`, `torch.FloatTensor(n)`, `x.new(b, 1)`): "
                "the trace records a constant of the example's sizes; make it with `torch.empty`/`new_empty`",
        doc="""\
What it finds, in run-time code: a legacy constructor called with sizes, the old way to allocate a
tensor to fill later: `torch.Tensor(...)`, a typed one (`torch.FloatTensor`, `torch.LongTensor`,
`torch.ByteTensor`, ... and their `torch.cuda.` forms, also called through a local name bound once
to one of them or to a choice between the CPU and CUDA forms of one dtype, by a statement that runs
before the call: `FloatTensor = torch.cuda.FloatTensor if x.is_cuda else torch.FloatTensor`, as
YOLOv3 decoders write it) or the tensor method `x.new(...)`, where
the arguments are sizes and at least one is a size of a tensor (`x.shape[i]`, `x.size(i)`, a name
unpacked from `x.size()`, arithmetic on those, or a whole shape: `x.size()`, `x.shape[2:]`), as
TRT711–TRT716 decide. `o.shape[i]` or `o.size(i)` of an object not shown to be a tensor (a
helper's parameter) is an int whatever `o` is, and counts for the constructors and for the `new` of
a tensor (`x.data.new(...)` of a local `x` is one: the Variable-era spelling, whose `.data` is a
tensor; fairseq-py's LSTM decoder allocates `x.data.new(srclen, seqlen, bsz)` after
`bsz, seqlen = prev_output_tokens.size()`); for `o.new(...)`
(nothing else shows `o` to be a tensor) and for a whole `o.shape` (of a NumPy array a tuple:
Python data) only where the observed export warned at the call (inside `migrate`, or with
`--facts`), where two or more arguments (which can only be sizes) count whatever they are. The older
spelling of `x.new(sizes)`, an empty tensor grown by `x.new().resize_(sizes)` (the sizes one by one or
as one tuple, list or shape; Huikai Wu's guided filter counts its pixels with
`x.data.new().resize_((1, 1, h, w)).fill_(1.0)`, copied into many matting and dehazing repositories),
is taken alike and becomes `x.new_empty(sizes)`. One
argument that is not a size (Python data, `torch.Tensor([1, 2])`; a tensor, which the constructor
returns as it is) is left alone, as are unpacked arguments, a tensor among several arguments, and
keywords other than `device` (`device` of a typed constructor too, whose errors differ). Code that
only runs while the module is built (`nn.Parameter(torch.Tensor(out, in))` in `__init__`) is not
looked at.
Real code: spandrel 0.4.2's HVI-CIDNet colour transform allocates its hue plane with
`torch.Tensor(img.shape[0], img.shape[2], img.shape[3])` and fills it through masks;
transformers 5.24.0's RAG shifts targets with `target.new(target.shape[0], 1).fill_(pad)`;
variational (locked) dropout in many RNN repositories draws its mask from
`x.new(x.size(0), 1, x.size(2)).bernoulli_(1 - p)` or `x.data.new(...)`; older detection and NAS
code pads channels with `torch.cuda.FloatTensor(batch_size, channels, h, w).fill_(0)` after
`batch_size, _, h, w = x.size()`; YOLOv3 decoders (eriklindernoren's PyTorch-YOLOv3 and its many
copies, torch_yolo3 0.1.1) fill `pred_boxes = FloatTensor(prediction[..., :4].shape)` channel by
channel through the device-chosen alias.

Why it hurts: the legacy constructors read every size into a Python int. Under the TorchScript
exporter (and `torch.jit.trace`) the result is recorded as a constant of the traced example's
sizes: the trace warns "torch.Tensor results are registered as constants", and everything
written into the tensor or computed from it keeps the example's sizes. Measured with torch 2.13 on
HVI-CIDNet: the graph traced at 64x64 fails in ONNX Runtime at 192x192 (`Expand`: invalid expand
shape, at the mask assignment into the hue plane). The typed constructors and `x.new` bake the same
way without any warning. The dynamo exporter is not concerned. `migrate` applies the fix where the
export warns at the call, or where ONNX Runtime refuses, at another input size, a node made in the
same file (the `torch.cat` or the mask assignment that meets the tensor).

The rewrite: `torch.Tensor(a, b)` → `_trt_legacy_empty(a, b)` (an inserted helper,
`trtcodemod/helpers/constants.py`: the legacy constructor itself outside a trace, `torch.empty` of
the same sizes and the default dtype while tracing, which records the sizes' own nodes);
`torch.FloatTensor(a, b)` → `torch.empty(a, b, dtype=torch.float32, device="cpu")` (`"cuda"` for
`torch.cuda.FloatTensor`, the dtype of each typed constructor; through a choice bound to a name, the
device the name holds: `device="cuda" if FloatTensor is torch.cuda.FloatTensor else "cpu"`, since
the condition's own names may be rebound before the call); `x.new(a, b)` → `x.new_empty(a, b)`
(the same arguments: `new_empty` takes sizes as `new` does, one by one or as one shape);
`x.new().resize_(a, b)` → `x.new_empty(a, b)` (`resize_` of an empty tensor allocates contiguous,
uninitialised storage of those sizes, as `new_empty` does, and refuses a negative size alike).

Fix safety: safe. Each form makes a new tensor of the same sizes, dtype and device, contiguous,
without gradient, its values uninitialised as before, and raises where the original raises (a
negative size); `torch.Tensor` is left to the helper, which calls it outside a trace, because its
device follows the default tensor type and not `torch.set_default_device` (while tracing under
`set_default_device`, the helper's tensor is on that device). A typed constructor names its device,
which `torch.empty` is then given. Toolchains (torch 2.13): `torch.jit.script` compiles a typed
constructor and `torch.empty` alike, and `new_empty` where it refused `x.new`; neither
`torch.Tensor(...)` nor the helper (variable arguments) compiles; `torch.fx` traces `torch.empty`
and `new_empty` where the legacy constructors refuse its proxies, and the helper refuses them as
`torch.Tensor` does; `torch.compile` and `torch.export` give the same tensors before and after.
TensorRT versions: all (the problem is the exported graph).""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "class Hue(nn.Module):\n"
                "    def forward(self, img: torch.Tensor):\n"
                "        hue = torch.Tensor(img.shape[0], img.shape[2], img.shape[3])\n"
                "        hue[:] = img[:, 0]\n"
                "        return hue\n",
                "class Hue(nn.Module):\n"
                "    def forward(self, img: torch.Tensor):\n"
                "        hue = _trt_legacy_empty(img.shape[0], img.shape[2], img.shape[3])\n"
                "        hue[:] = img[:, 0]\n"
                "        return hue\n",
            ),
            Example(
                "class LockedDropout(nn.Module):\n"
                "    def forward(self, x: torch.Tensor):\n"
                "        m = x.new(x.size(0), 1, x.size(2)).bernoulli_(0.5)\n"
                "        return x * m\n",
                "class LockedDropout(nn.Module):\n"
                "    def forward(self, x: torch.Tensor):\n"
                "        m = x.new_empty(x.size(0), 1, x.size(2)).bernoulli_(0.5)\n"
                "        return x * m\n",
            ),
            Example(
                "class Pad(nn.Module):\n"
                "    def forward(self, x: torch.Tensor):\n"
                "        b, _, h, w = x.size()\n"
                "        pad = torch.cuda.FloatTensor(b, 4, h, w).fill_(0)\n"
                "        return torch.cat((x, pad), 1)\n",
                "class Pad(nn.Module):\n"
                "    def forward(self, x: torch.Tensor):\n"
                "        b, _, h, w = x.size()\n"
                "        pad = torch.empty(b, 4, h, w, dtype=torch.float32, device=\"cuda\").fill_(0)\n"
                "        return torch.cat((x, pad), 1)\n",
            ),
        ),
        references=(TS_PITFALLS, "https://pytorch.org/docs/stable/generated/torch.empty.html",
                    "https://pytorch.org/docs/stable/generated/torch.Tensor.new_empty.html",
                    "https://pytorch.org/docs/stable/tensors.html"),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: id of a function → its aliases of legacy constructors (see :func:`_aliases_in`).
        self._aliases: dict[int, dict[str, tuple[cst.BaseExpression, set[int]]]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or has_star_args(node) or not node.args:
            return
        sizes = [a.value for a in node.args if a.keyword is None]
        named = [a.keyword.value for a in node.args if a.keyword is not None]
        if not sizes or any(a.keyword is not None for a in node.args[:len(sizes)]):
            return  # a keyword before a size: not the constructor's signature
        legacy = self.context.refers_to(node.func, *_LEGACY)
        if legacy is None and type(node.func) is cst.Name and not named:
            alias = self._alias(node.func, node)
            if alias is not None and self._sizes(node, sizes, None):
                base, name, device = alias
                fix = Fix({node: self._empty(node, base, name, device)})
                self.found(node, f"`{short_code(node)}` (`{node.func.value}` names a legacy `{name}` constructor) "
                                 f"{_MESSAGE}; `torch.empty` of the same sizes, dtype and device takes the traced sizes",
                           fix)
            return
        if legacy is not None:
            if (legacy != "torch.Tensor" and named) or any(k != "device" for k in named):
                return
            if not self._sizes(node, sizes, None):
                return
            if legacy == "torch.Tensor":
                fix = Fix({node: node.with_changes(func=cst.Name(HELPER))}, helpers=(HELPER,))
                how = f"`{HELPER}` makes it with `torch.empty` of the traced sizes while tracing"
            else:
                replacement = self._typed(node, legacy)
                if replacement is None:
                    return
                fix = Fix({node: replacement})
                how = "`torch.empty` of the same sizes, dtype and device takes the traced sizes"
            self.found(node, f"`{short_code(node)}` {_MESSAGE}; {how}", fix)
            return
        parts = method_call(node)
        if parts is not None and parts[1] == "resize_" and not named:
            self._resized(node, parts[0], sizes)
            return
        if parts is None or parts[1] != "new" or any(k != "device" for k in named):
            return
        receiver = parts[0]
        if self.context.qualified_names(receiver) or not self._sizes(node, sizes, receiver):
            return
        func = node.func.with_changes(attr=cst.Name("new_empty"))  # type: ignore[attr-defined]
        self.found(node, f"`{short_code(node)}` {_MESSAGE}; `new_empty` of the same sizes takes the traced sizes",
                    Fix({node: node.with_changes(func=func)}))

    def _resized(self, node: cst.Call, made: cst.BaseExpression, sizes: list[cst.BaseExpression]) -> None:
        """``x.new().resize_(sizes)``: an empty tensor like ``x`` grown to ``sizes`` (one by one or as one
        tuple, list or shape), the older spelling of ``x.new(sizes)``; ``x.new_empty(sizes)`` is the same tensor."""
        if type(made) is not cst.Call or made.args:
            return
        parts = method_call(made)
        if parts is None or parts[1] != "new":
            return
        receiver = parts[0]
        listed = sizes
        if len(sizes) == 1 and type(sizes[0]) in (cst.Tuple, cst.List):
            elements = sizes[0].elements  # type: ignore[attr-defined]
            if not elements or any(type(e) is cst.StarredElement for e in elements):
                return
            listed = [e.value for e in elements]
        if self.context.qualified_names(receiver) or not self._sizes(node, listed, receiver):
            return
        func = cst.Attribute(value=receiver, attr=cst.Name("new_empty"))
        self.found(node, f"`{short_code(node)}` {_MESSAGE}; `new_empty` of the same sizes takes the traced sizes",
                   Fix({node: node.with_changes(func=func)}))

    def _sizes(self, node: cst.Call, sizes: list[cst.BaseExpression], receiver: cst.BaseExpression | None) -> bool:
        """Are ``sizes`` the sizes of a new tensor, one of them read from a tensor (so that a trace bakes
        them), and (for ``receiver.new``) is the receiver a tensor?"""
        traced = self.traced_at(node)
        # `x.data.new(...)`: the Variable-era spelling, whose `.data` is a tensor (NumPy's is a memoryview,
        # which has no `new`).
        tensor_receiver = receiver is not None and (self.is_tensor(receiver) or _data_of_a_local(receiver))
        if receiver is not None and not tensor_receiver:
            # `target.new(target.shape[0], 1)` in a helper whose `target` nothing shows to be a tensor:
            # taken where the observed export warned here and the receiver's own size is an argument.
            if not traced or not any(self._loose_size(s) and _reads_size_of(s, receiver) for s in sizes):
                return False
        # `o.shape[i]` of an object not shown to be a tensor is an int whatever `o` is: a size of it counts
        # for a constructor named as such and for the `new` of a tensor; a whole `o.shape` (a NumPy tuple:
        # Python data) only where the export warned, and so for a `new` whose receiver nothing shows to be a
        # tensor.
        loose = receiver is None or traced or tensor_receiver
        if len(sizes) == 1:
            only = sizes[0]
            if self.size_derived(only) or self._is_shape_tuple(only) or (loose and self._loose_size(only)):
                return True
            return traced and self._loose_owner(only) is not None
        if any(self.is_tensor(s) for s in sizes):
            return False
        return traced or any(self.size_derived(s) or self._is_shape_tuple(s) or (loose and self._loose_size(s))
                             for s in sizes)

    def _typed(self, node: cst.Call, legacy: str) -> cst.Call | None:
        """``torch.empty(sizes..., dtype=torch.<dtype>, device="cpu"|"cuda")`` for a typed constructor
        spelled ``torch.<Name>`` or ``torch.cuda.<Name>`` (the module's own spelling of ``torch`` kept);
        None where it is imported by its own name (no spelling of ``torch`` to reuse)."""
        func = node.func
        if type(func) is not cst.Attribute:
            return None
        base = func.value
        cuda = legacy.startswith("torch.cuda.")
        if cuda:
            if type(base) is not cst.Attribute:
                return None
            base = base.value
        if not self.context.refers_to(base, "torch"):
            return None
        return self._empty(node, base, func.attr.value, cst.SimpleString('"cuda"' if cuda else '"cpu"'))

    def _empty(self, node: cst.Call, base: cst.BaseExpression, name: str, device: cst.BaseExpression) -> cst.Call:
        """``base.empty(sizes..., dtype=base.<dtype of name>, device=device)`` for ``node``'s sizes."""
        dtype = cst.Attribute(value=base, attr=cst.Name(_TYPED[name]))
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args = list(node.args)
        last = args[-1]
        args[-1] = last.with_changes(comma=comma)
        equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
        args.append(cst.Arg(keyword=cst.Name("dtype"), equal=equal, value=dtype, comma=comma))
        args.append(cst.Arg(keyword=cst.Name("device"), equal=equal, value=device, comma=last.comma))
        return node.with_changes(func=cst.Attribute(value=base, attr=cst.Name("empty")), args=args)

    def _alias(self, name: cst.Name, call: cst.Call) -> tuple[cst.BaseExpression, str, cst.BaseExpression] | None:
        """(``torch`` as spelled, the constructor's name, the device expression) where ``name`` is a local
        alias of typed legacy constructors of one dtype: bound once in the function, by a statement
        that runs before ``call`` (see :func:`_aliases_in`), to ``torch[.cuda].<Name>`` or to a choice between the two
        (``FloatTensor = torch.cuda.FloatTensor if x.is_cuda else torch.FloatTensor``). The device of a
        choice is read from the alias itself (``"cuda" if FloatTensor is torch.cuda.FloatTensor else
        "cpu"``): the condition's own names may be rebound before the call (YOLO decoders rebind ``x``)."""
        function = self.context.function
        if function is None or type(function.body) is not cst.IndentedBlock:
            return None
        found = self._aliases.get(id(function))
        if found is None:
            found = self._aliases[id(function)] = _aliases_in(function)
        entry = found.get(name.value)
        if entry is None or id(call) not in entry[1]:
            return None  # not an alias, or a call not after the binding in its block (may run before it)
        value = entry[0]
        branches = (value.body, value.orelse) if type(value) is cst.IfExp else (value,)
        kinds = []
        for branch in branches:
            legacy = self.context.refers_to(branch, *_LEGACY)
            if legacy is None or legacy == "torch.Tensor" or type(branch) is not cst.Attribute:
                return None  # `torch.Tensor` follows the default tensor type: not one dtype and device
            cuda = legacy.startswith("torch.cuda.")
            base = branch.value.value if cuda else branch.value  # type: ignore[attr-defined]
            if not self.context.refers_to(base, "torch"):
                return None
            kinds.append((branch.attr.value, cuda, base))
        if len({kind[0] for kind in kinds}) != 1:
            return None  # `torch.cuda.FloatTensor if c else torch.DoubleTensor`: the dtype depends on `c`
        devices = [cst.SimpleString('"cuda"' if kind[1] else '"cpu"') for kind in kinds]
        if len(kinds) == 1 or kinds[0][1] == kinds[1][1]:
            device: cst.BaseExpression = devices[0]
        else:
            test = cst.Comparison(left=cst.Name(name.value), comparisons=[
                cst.ComparisonTarget(operator=cst.Is(), comparator=value.body.deep_clone())])  # type: ignore[attr-defined]
            device = cst.IfExp(test=test, body=devices[0], orelse=devices[1])
        return kinds[0][2], kinds[0][0], device


def _aliases_in(function: cst.FunctionDef) -> dict[str, tuple[cst.BaseExpression, set[int]]]:
    """name → (value, ids of the calls that run after its binding) for each name ``function`` binds
    exactly once, to an attribute or a choice between two (``a.B if c else a.C``), by an assignment
    statement of a block of its body: the calls after it in that block (and the blocks inside them)
    run after it (a decoder's loop over its outputs binds the alias in the loop's body, bubbliiiing's
    ``decode_box``)."""
    collector = Bindings()
    collector.bind_params(function.params)
    visit_readonly(function.body, collector)
    found: dict[str, tuple[cst.BaseExpression, set[int]]] = {}
    for block in walk(function.body):
        if type(block) is not cst.IndentedBlock:
            continue
        statements = block.body
        for index, statement in enumerate(statements):
            if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
                continue
            assign = statement.body[0]
            if type(assign) is not cst.Assign or len(assign.targets) != 1 \
                    or type(assign.targets[0].target) is not cst.Name:
                continue
            value = assign.value
            if not (type(value) is cst.Attribute or (type(value) is cst.IfExp and type(value.body) is cst.Attribute
                                                      and type(value.orelse) is cst.Attribute)):
                continue
            name = assign.targets[0].target.value
            sites = collector.sites.get(name, [])
            if len(sites) != 1 or sites[0][0] != ASSIGN or sites[0][1] is not value:
                continue  # bound again (or a parameter, `global`, `del`): not this value at every call
            after = {id(node) for later in statements[index + 1:] for node in walk(later) if type(node) is cst.Call}
            found[name] = (value, after)
    return found


def _data_of_a_local(receiver: cst.BaseExpression) -> bool:
    """``x.data`` of a local name (not ``self.data``, an attribute that may hold anything)."""
    return type(receiver) is cst.Attribute and receiver.attr.value == "data" and type(receiver.value) is cst.Name \
        and receiver.value.value not in ("self", "cls")


def _reads_size_of(size: cst.BaseExpression, owner: cst.BaseExpression) -> bool:
    """``owner.shape[i]``, ``owner.size(i)`` or ``owner.shape`` (``owner`` a plain name)."""
    if type(owner) is not cst.Name:
        return False
    if type(size) is cst.Subscript:
        size = size.value
    if type(size) is cst.Attribute and size.attr.value == "shape":
        return type(size.value) is cst.Name and size.value.value == owner.value
    if type(size) is cst.Call:
        parts = method_call(size)
        return parts is not None and parts[1] == "size" and type(parts[0]) is cst.Name \
            and parts[0].value == owner.value
    return False


RULES = (LegacySizes,)
