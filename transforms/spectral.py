"""Discrete Fourier transforms of real tensors → cosine and sine matrix products (TRT709).

``torch.fft.fft``/``fft2``/``fftn``, their inverses and ``rfft``/``rfft2``/``rfftn`` taken as
``torch.view_as_real(...)``, ``.real``/``.imag``/``.abs()`` (or ``torch.real``/``torch.imag``/
``torch.abs``) are rewritten into one helper per transform (``trtcodemod/helpers/spectral.py``)
that is the torch function and that use outside ``torch.onnx.export`` and, while exporting,
the same real tensor computed as matrix products: no complex tensor is made. Other uses of the
transform (a complex product) are reported without a fix. A transform kept in a variable that a
later statement rebinds from its parts (LaMa's ``ffted = torch.stack((ffted.real, ffted.imag))``)
is taken when no other read reaches it; ``irfft``/``irfft2``/``irfftn`` of a complex tensor made
from real parts (``torch.complex``, ``torch.view_as_complex``) become helpers that take the parts,
and so do those of a product of spectra (FFTformer's ``irfft2(rfft2(q) * rfft2(k))``): the
transforms and products of the chain become helpers that remember the parts while exporting.
The same chains end in a part of a complex pipeline (piq VSI's ``ifft2(fft2(x) * lg).real``,
FNet's ``fft(fft(x, dim=-1), dim=-2).real``, OKNet's ``y = ifft2(fft2(x) * a)`` then
``torch.abs(y)``), and ``torch.angle`` is a part (atan2 of the parts, TRT301's form).
``torch.stft(..., return_complex=True)`` is a forward transform of the family (frames of a real
signal, each transformed as ``rfft`` does) and ``torch.istft`` an inverse (noisereduce's TorchGate:
``X = torch.stft(x, ...)``, ``X.abs()``, ``amp_to_db(X)``, ``torch.istft(X * mask, ...)``); a
spectrum passed to a function that reads that parameter only through ``abs`` (``amp_to_db``, in
this file or imported with ``from ... import``) is a part read: the function is given the
magnitude while exporting. A part of real pairs viewed as complex, with no transform in between
(Open-Unmix's ``ComplexNorm``: ``torch.abs(torch.view_as_complex(spec))`` of an STFT kept as
``(..., 2)`` pairs), is taken of the pairs: ``_trt_dft_part(_trt_view_as_complex(spec), "abs")``.
A spectrum reshaped, viewed or transposed on its way to a part is part of the chain (torchaudio's
``spectrogram``: ``spec_f = spec_f.reshape(shape[:-1] + spec_f.shape[-2:])``, then ``spec_f.abs()``):
the method becomes ``_trt_complex_shaped(z, "reshape", ...)``, taken of each part while exporting, and a
read of that spectrum's own sizes in its arguments ``_trt_complex_shape(z)``, the real part's shape then,
so no complex tensor stays in the graph.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import libcst as cst

from trtcodemod.astutil import has_star_args, mentions_name, not_variables, walk
from trtcodemod.module_files import imported_function, module_function
from trtcodemod.rules import Example, Fix, RuleInfo, Safety, spelled
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule

#: The transforms rewritten: torch's name → the helper.
TRANSFORMS = {f"torch.fft.{name}": f"_trt_{name}" for name in (
    "fft", "ifft", "rfft", "fft2", "ifft2", "rfft2", "fftn", "ifftn", "rfftn")}
#: The short-time transform (frames of a real signal, each transformed as ``rfft`` does) is one of them.
TRANSFORMS["torch.stft"] = "_trt_stft"
#: The inverse real transforms rewritten where their input is made from real parts: torch's name → the helper.
INVERSE_REAL = {f"torch.fft.{name}": f"_trt_{name}" for name in ("irfft", "irfft2", "irfftn")}
#: The inverse short-time transform (each frame's inverse real DFT, a windowed overlap-add) is one of them.
INVERSE_REAL["torch.istft"] = "_trt_istft"
#: What a spectrum passed to a function that reads that parameter only through ``abs`` becomes.
ABS_ARGUMENT_HELPER = "_trt_dft_abs_argument"
#: What ``torch.complex(re, im)`` / ``torch.view_as_complex(pairs)`` an inverse real transform takes becomes.
COMPLEX_MAKERS = {"torch.complex": "_trt_complex", "torch.view_as_complex": "_trt_view_as_complex"}
#: The keywords each of them may be given.
_MAKER_KEYWORDS = {"torch.complex": ("real", "imag"), "torch.view_as_complex": ("input",)}
#: The shifts that reorder a spectrum (a permutation: any use of them is rewritten).
SHIFTS = {"torch.fft.fftshift": "_trt_fftshift", "torch.fft.ifftshift": "_trt_ifftshift"}
#: Functions that take the real part, imaginary part, both (as a last axis of 2) or the magnitude.
_PART_FUNCTIONS = {"torch.view_as_real": "view_as_real", "torch.real": "real", "torch.imag": "imag",
                   "torch.abs": "abs", "torch.absolute": "abs", "torch.angle": "angle"}
#: What each use of a transform kept in a variable becomes.
PART_HELPER = "_trt_dft_part"
#: What a product of spectra (``a * b``, a factor a transform) an inverse real transform takes becomes.
PRODUCT_HELPER = "_trt_complex_mul"
#: What a spectrum divided by a real tensor or number (``a / n``) in such a chain becomes.
QUOTIENT_HELPER = "_trt_complex_div"
#: What a method that only moves a spectrum's elements (``z.reshape(...)``) in such a chain becomes.
SHAPED_HELPER = "_trt_complex_shaped"
#: What a real number written into a spectrum through an index (``xf[mask] = 0``) in such a chain becomes.
PUT_HELPER = "_trt_complex_put"
#: What a size read of a spectrum in such a chain's reshape (``z.shape``, ``z.size()``) becomes.
SHAPE_HELPER = "_trt_complex_shape"
#: Those methods: each part moves the same way (torchaudio's ``spec_f.reshape(shape[:-1] + spec_f.shape[-2:])``).
SHAPE_METHODS = {"reshape", "view", "transpose", "permute", "flatten", "unflatten", "unsqueeze", "squeeze",
                 "contiguous", "movedim", "swapaxes", "swapdims", "narrow"}
#: What the conjugate of a spectrum (``torch.conj(a)``, ``a.conj()``, ``conj_physical``) in such a chain becomes.
CONJ_HELPER = "_trt_complex_conj"
#: The functions and methods that conjugate: the name → whether the conjugate is materialized.
_CONJ_FUNCTIONS = {"torch.conj": False, "torch.conj_physical": True}
_CONJ_METHODS = {"conj": False, "conj_physical": True}
#: What ``torch.view_as_complex(pairs)`` kept in a variable a transform takes becomes.
COMPLEX_HELPER = "_trt_view_as_complex"
_PART_ATTRIBUTES = {"real": "real", "imag": "imag"}
#: Why a part of ``torch.view_as_complex(pairs)`` is rewritten.
_PAIRS_WHY = ("`torch.view_as_complex` does not export (the TorchScript exporter has no ONNX symbolic for "
              "aten::view_as_complex, and no TensorRT graph carries a complex tensor), though what the code takes "
              "of it is real")
_PART_METHODS = {"abs": "abs", "absolute": "abs", "angle": "angle"}


def complex_maker(node: cst.CSTNode, context) -> str | None:
    """``"torch.complex"`` or ``"torch.view_as_complex"`` when ``node`` calls it with its own
    arguments only (no ``out=``, nothing unpacked)."""
    if type(node) is not cst.Call or has_star_args(node):
        return None
    name = context.refers_to(node.func, *COMPLEX_MAKERS)
    if name is None:
        return None
    allowed = _MAKER_KEYWORDS[name]
    if len(node.args) != len(allowed) or any(a.keyword is not None and a.keyword.value not in allowed
                                             for a in node.args):
        return None
    return name


def conjugate_of(node: cst.CSTNode, context) -> tuple[cst.BaseExpression, bool] | None:
    """``(operand, physical)`` when ``node`` conjugates ``operand``: ``torch.conj(z)``,
    ``torch.conj_physical(z)`` (the input by position or as ``input=``), ``z.conj()`` or
    ``z.conj_physical()`` with no other argument; ``physical`` for the ``conj_physical`` forms."""
    if type(node) is not cst.Call or has_star_args(node):
        return None
    if type(node.func) is cst.Attribute and node.func.attr.value in _CONJ_METHODS and not node.args:
        name = context.refers_to(node.func, *_CONJ_FUNCTIONS)
        if name is None:  # (`torch.conj` itself is an attribute too)
            return node.func.value, _CONJ_METHODS[node.func.attr.value]
    name = context.refers_to(node.func, *_CONJ_FUNCTIONS)
    if name is None or len(node.args) != 1 or (node.args[0].keyword is not None
                                               and node.args[0].keyword.value != "input"):
        return None
    return node.args[0].value, _CONJ_FUNCTIONS[name]


def _keyword_is(call: cst.Call, keyword: str, value: str) -> bool:
    """Whether ``call`` passes ``keyword=<value>`` (a name such as ``True``)."""
    return any(a.keyword is not None and a.keyword.value == keyword and type(a.value) is cst.Name
               and a.value.value == value for a in call.args)


def real_input(name: str) -> bool:
    """Whether the transform ``name`` is taken of a real signal only (``rfft*``, ``stft``): its
    helper keeps torch's function for a complex one, and no chain goes through its input."""
    return name.startswith("torch.fft.rfft") or name == "torch.stft"


def plain_transform(call: cst.Call, name: str | None) -> bool:
    """The transform's own arguments only: the input, then at most ``n``/``s``, ``dim``, ``norm``;
    for ``torch.stft``, any of its own by position or keyword with ``return_complex=True`` (a
    complex result: the real pairs of ``return_complex=False`` are another layout)."""
    if name == "torch.stft":
        return not has_star_args(call) and bool(call.args) \
            and (call.args[0].keyword is None or call.args[0].keyword.value == "input") \
            and len(call.args) <= 10 and _keyword_is(call, "return_complex", "True")
    return _plain_transform(call)


def real_pairs_stft(call: cst.Call, context) -> bool:
    """``torch.stft(x, ..., return_complex=False)``: the real and imaginary parts as a last axis of two (torch's
    ``view_as_real`` of the complex result), with the function's own arguments only (the input by position or as
    ``input=``)."""
    return context.refers_to(call.func, "torch.stft") is not None and not has_star_args(call) \
        and 1 <= len(call.args) <= 10 and _keyword_is(call, "return_complex", "False") \
        and (call.args[0].keyword is None or call.args[0].keyword.value == "input")


def inverse_real(node: cst.CSTNode, context) -> str | None:
    """The inverse real transform (``irfft``/``irfft2``/``irfftn``) ``node`` calls, when its input
    is given first, by position, and nothing else than ``n``/``s``, ``dim`` and ``norm`` follows;
    ``torch.istft`` with its own arguments, its input first, and no ``return_complex=True``."""
    if type(node) is not cst.Call:
        return None
    name = context.refers_to(node.func, *INVERSE_REAL)
    if name == "torch.istft":
        if has_star_args(node) or not node.args or node.args[0].keyword is not None or len(node.args) > 10 \
                or any(a.keyword is not None and a.keyword.value == "return_complex"
                       and not (type(a.value) is cst.Name and a.value.value == "False") for a in node.args):
            return None
        return name
    if name is None or has_star_args(node) or not node.args or len(node.args) > 4 \
            or node.args[0].keyword is not None \
            or any(a.keyword is not None and a.keyword.value == "out" for a in node.args):
        return None
    return name


def inverse_real_makers(function: cst.FunctionDef, context) -> dict[int, list[cst.Call]]:
    """The inverse real transforms in ``function`` whose input is a name the function assigns
    ``torch.complex(re, im)`` or ``torch.view_as_complex(pairs)`` (in any branch: the helper
    checks, when it runs, that the tensor it is given is the one made there): id → those calls;
    and those whose input is a spectral product (:func:`spectral_chains`): id → no call."""
    inputs: dict[str, list[cst.Call]] = {}
    for inner in walk(function.body):
        if inverse_real(inner, context) is not None and type(inner.args[0].value) is cst.Name:  # type: ignore[union-attr]
            inputs.setdefault(inner.args[0].value.value, []).append(inner)  # type: ignore[union-attr]
    makers: dict[str, list[cst.Call]] = {}
    for statement in walk(function.body):
        if type(statement) is cst.Assign and len(statement.targets) == 1 \
                and type(statement.targets[0].target) is cst.Name and statement.targets[0].target.value in inputs \
                and complex_maker(statement.value, context) is not None:
            makers.setdefault(statement.targets[0].target.value, []).append(statement.value)  # type: ignore[arg-type]
    found = {id(call): makers[name] for name, calls in inputs.items() if name in makers for call in calls}
    for chain in spectral_chains(function, context).values():  # (the product chains: their makers come with them)
        for inner, kind in chain.items():
            if kind == "inverse":
                found.setdefault(id(inner), [])
    return found


def _bound_name(statement: cst.CSTNode) -> str | None:
    """The name ``statement`` binds when it is ``name = value`` (or ``name: T = value``)."""
    if type(statement) is cst.Assign and len(statement.targets) == 1:
        target = statement.targets[0].target
    elif type(statement) is cst.AnnAssign and statement.value is not None:
        target = statement.target
    else:
        return None
    return target.value if type(target) is cst.Name else None


def _plain_transform(call: cst.Call) -> bool:
    """The transform's own arguments only: the input, then at most ``n``/``s``, ``dim``, ``norm``."""
    return not has_star_args(call) and 0 < len(call.args) <= 4 \
        and not any(a.keyword is not None and a.keyword.value == "out" for a in call.args)


def part_of(node: cst.CSTNode, context) -> tuple[cst.BaseExpression, str] | None:
    """``(z, part)`` when ``node`` takes a real part of ``z`` (``torch.real(z)``, ``z.imag``,
    ``z.abs()``, ``torch.angle(z)``...)."""
    if type(node) is cst.Call:
        func = node.func
        if len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
            part = context.refers_to(func, *_PART_FUNCTIONS)
            if part is not None:
                return node.args[0].value, _PART_FUNCTIONS[part]
            if builtin_abs(func, context):
                return node.args[0].value, "abs"
        if not node.args and type(func) is cst.Attribute and func.attr.value in _PART_METHODS:
            return func.value, _PART_METHODS[func.attr.value]
    elif type(node) is cst.Attribute and node.attr.value in _PART_ATTRIBUTES:
        return node.value, _PART_ATTRIBUTES[node.attr.value]
    return None


_ABS_OTHERWISE = re.compile(rb"(?<![\w.])abs\b(?!\s*\()|\b(?:def|class)\s+abs\b")


@lru_cache(maxsize=64)
def _abs_is_builtin(source: bytes) -> bool:
    """Whether the name ``abs`` is Python's built-in everywhere in ``source``: it is only ever called
    (no ``def abs``, no binding, parameter, import or other mention of the bare name)."""
    return _ABS_OTHERWISE.search(source) is None


def builtin_abs(func: cst.BaseExpression, context) -> bool:
    """``func`` is the built-in ``abs`` (TimesNet's ``abs(xf).mean(0)`` of its spectrum), which for
    a tensor is ``z.abs()``."""
    return type(func) is cst.Name and func.value == "abs" and context.source is not None \
        and _abs_is_builtin(context.source)


def _binding_targets(body: cst.CSTNode) -> list[cst.CSTNode]:
    """The targets that bind names in ``body``: assignments (plain, augmented, annotated, ``:=``),
    ``for`` and comprehension targets, ``with ... as``, ``except ... as``, ``del``, imports, nested
    ``def``/``class`` names."""
    found: list[cst.CSTNode] = []
    for inner in walk(body):
        kind = type(inner)
        if kind is cst.Assign:
            found.extend(t.target for t in inner.targets)
        elif kind in (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.Del):
            found.append(inner.target)
        elif kind is cst.WithItem and inner.asname is not None:
            found.append(inner.asname.name)
        elif kind is cst.ExceptHandler and inner.name is not None:
            found.append(inner.name.name)
        elif kind in (cst.Import, cst.ImportFrom) and not isinstance(inner.names, cst.ImportStar):
            found.extend(a.asname.name if a.asname is not None else a.name for a in inner.names)
        elif kind in (cst.FunctionDef, cst.ClassDef):
            found.append(inner.name)
    return found


def _inline_pairs(call: cst.Call, context) -> bool:
    """A complex transform's input written ``torch.view_as_complex(pairs)`` right there: the
    helper takes the pairs themselves (a ``"pairs:"`` part), no chain is needed for it."""
    first = call.args[0]
    inner = first.value
    return first.keyword is None and type(inner) is cst.Call \
        and context.refers_to(inner.func, "torch.view_as_complex") is not None


def _read_only_through_abs(function: ast.FunctionDef, name: str) -> bool:
    """Whether every mention of the parameter ``name`` in ``function``'s body is ``name.abs()``,
    ``name.absolute()`` or ``torch.abs(name)`` (at least one; never rebound, deleted or passed on)."""
    parents: dict[int, ast.AST] = {}
    for outer in ast.walk(function):
        for child in ast.iter_child_nodes(outer):
            parents[id(child)] = outer
    reads = 0
    for statement in function.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.arg) and node.arg == name:
                return False  # (a nested function's parameter of that name: another variable)
            if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
                return False
            if not isinstance(node, ast.Name) or node.id != name:
                continue
            if not isinstance(node.ctx, ast.Load):
                return False
            parent = parents.get(id(node))
            grand = parents.get(id(parent)) if parent is not None else None
            if isinstance(parent, ast.Attribute) and parent.attr in ("abs", "absolute") \
                    and isinstance(grand, ast.Call) and grand.func is parent and not grand.args and not grand.keywords:
                reads += 1
                continue
            if isinstance(parent, ast.Call) and parent.args == [node] and not parent.keywords \
                    and isinstance(parent.func, ast.Attribute) and parent.func.attr in ("abs", "absolute") \
                    and isinstance(parent.func.value, ast.Name) and parent.func.value.id == "torch":
                reads += 1
                continue
            return False
    return reads > 0


def abs_arguments(node: cst.CSTNode, context) -> list[cst.BaseExpression]:
    """The arguments of the call ``node`` (a plain name: a module-level function of this file or
    one imported with ``from ... import``, found by :func:`trtcodemod.module_files.imported_function`) whose
    parameter that function reads only through ``abs`` (noisereduce's ``amp_to_db(x)``: ``20 *
    torch.log10(x.abs() + eps)``): a complex spectrum passed there may be passed as its
    magnitude, the same values for the function."""
    if type(node) is not cst.Call or type(node.func) is not cst.Name or has_star_args(node) or not node.args:
        return []
    source = context.source if context.source is not None else context.module.code.encode()
    path = getattr(context, "path", None)
    name = node.func.value
    function = imported_function(Path(path), name, source) if path else module_function(source, name)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or isinstance(function, ast.AsyncFunctionDef) \
            or function.args.vararg is not None or function.args.kwarg is not None:
        return []
    positional = [a.arg for a in function.args.posonlyargs + function.args.args]
    named = set(positional[len(function.args.posonlyargs):]) | {a.arg for a in function.args.kwonlyargs}
    found: list[cst.BaseExpression] = []
    for index, argument in enumerate(node.args):
        if argument.keyword is None:
            if index >= len(positional):
                return []
            parameter = positional[index]
        elif argument.keyword.value in named:
            parameter = argument.keyword.value
        else:
            return []
        if _read_only_through_abs(function, parameter):
            found.append(argument.value)
    return found


def spectral_chains(function: cst.FunctionDef, context, weak: bool = False) -> dict[int, dict[cst.CSTNode, str]]:
    """The complex pipelines in ``function`` taken as one fix each: a root that reads a
    spectrum (an inverse real transform, or a part: ``.real``, ``.imag``, ``abs``, ``angle``,
    ``view_as_real``) and what its spectrum is made of, through names bound in the function,
    products ``a * b``, quotients by what is no spectrum, complex transforms of such spectra,
    forward transforms of real tensors and ``torch.complex``/``torch.view_as_complex`` calls
    (FFTformer's ``irfft2(rfft2(q) * rfft2(k), s=...)``, GFNet's ``x = x *
    torch.view_as_complex(w)`` between ``rfft2`` and ``irfft2``, piq VSI's ``ifft2(fft2(x) *
    lg).real``, FNet's ``fft(fft(x, dim=-1), dim=-2).real``). Key: the id of the group's first
    root; value: every node to rewrite with its kind (``"inverse"``, ``"part:<part>"``,
    ``"transform"``, ``"product"``, ``"quotient"``: a spectrum divided by what is no spectrum,
    ``"maker"``), in source order. A root is taken when its spectrum holds a product, a
    quotient or a transform of a spectrum (an inverse: anything but makers alone), or when it
    shares a node with one that is: roots that share nodes are one group, one fix. ``weak``:
    also a part of a name bound to transforms of real tensors (SR-SIM's ``imagefft.abs()`` and
    ``torch.angle(imagefft)``, the name also bound in another branch), for the rule to take
    where no kept transform does. A name read
    at a statement is resolved to its assignments before it, back to the first one that runs
    whenever the statement does (the same block or one around it); the helpers check when they
    run that the tensor they are given is the one made there, so a binding that does not reach
    costs nothing but the rewrite of its call."""
    order: list[tuple[cst.CSTNode, tuple]] = []
    for units, index, ancestors in DftMatmul._statements(function.body, ()):
        if not isinstance(units[index], cst.BaseCompoundStatement):
            order.append((units[index], ancestors))
    roots: list[tuple[cst.CSTNode, int, tuple, str, cst.BaseExpression]] = []
    # (a call's callee is looked up only where the function transforms something)
    transformed = any(type(n) is cst.Call and context.refers_to(n.func, *TRANSFORMS) is not None
                      for n in walk(function.body))
    for position, (unit, ancestors) in enumerate(order):
        deferred = {id(n) for inner in walk(unit) if type(inner) in (cst.Lambda, cst.FunctionDef, cst.ClassDef)
                    for n in walk(inner)}  # (run later, when the names may hold other values)
        for inner in walk(unit):
            if id(inner) in deferred:
                continue
            if inverse_real(inner, context) is not None:
                roots.append((inner, position, ancestors, "inverse", inner.args[0].value))  # type: ignore[attr-defined]
                continue
            read = part_of(inner, context)
            if read is not None:
                roots.append((inner, position, ancestors, f"part:{read[1]}", read[0]))
                continue
            for argument in (abs_arguments(inner, context) if transformed else ()):
                roots.append((argument, position, ancestors, "part:abs-argument", argument))
    if not roots:
        return {}
    assigned: dict[str, list[tuple[int, tuple, cst.BaseExpression]]] = {}
    for position, (unit, ancestors) in enumerate(order):
        name = _bound_name(unit)
        if name is not None:
            assigned.setdefault(name, []).append((position, ancestors, unit.value))  # type: ignore[attr-defined]
            continue
        # Any other binding (`y *= k`, `a, y = ...`) is a value no chain is followed through.
        targets: list[cst.CSTNode] = []
        if type(unit) is cst.Assign:
            targets = [t.target for t in unit.targets]
        elif type(unit) in (cst.AugAssign, cst.AnnAssign):
            targets = [unit.target]  # type: ignore[attr-defined]
        for target in targets:
            for inner in walk(target):
                if type(inner) is cst.Name:
                    assigned.setdefault(inner.value, []).append((position, ancestors, unit))

    def spectral(expr, position, ancestors, found, visiting, nested) -> bool:
        if type(expr) is cst.Call:
            transform = context.refers_to(expr.func, *TRANSFORMS)
            if transform is not None:
                if not plain_transform(expr, transform):
                    return False
                found[expr] = "transform"
                # A complex transform of a spectrum (not `rfft*`/`stft`, which take real signals; not an
                # input written `view_as_complex(pairs)` there, which the helper takes as its pairs).
                if not real_input(transform) and expr.args[0].keyword is None \
                        and not _inline_pairs(expr, context) \
                        and spectral(expr.args[0].value, position, ancestors, found, visiting, nested):
                    nested.add(id(expr))
                return True
            if complex_maker(expr, context) is not None:
                found[expr] = "maker"
                return True
            if type(expr.func) is cst.Attribute and expr.func.attr.value in SHAPE_METHODS \
                    and not has_star_args(expr) and context.refers_to(expr.func.value, "torch") is None:
                # A spectrum reshaped or transposed (torchaudio's STFT of the packed signal, reshaped back).
                inner = {}
                if spectral(expr.func.value, position, ancestors, inner, visiting, nested):
                    found.update(inner)
                    found[expr] = "shaped"
                    if type(expr.func.value) is cst.Name:  # its own sizes read in its arguments
                        for argument in expr.args:
                            found.update(dict.fromkeys(_size_reads(argument.value, expr.func.value.value),
                                                       "shape-read"))
                    return True
                return False
            conjugated = conjugate_of(expr, context)
            if conjugated is not None:  # the conjugate of a spectrum (Autoformer's `q_fft * torch.conj(k_fft)`)
                inner: dict[cst.CSTNode, str] = {}
                if spectral(conjugated[0], position, ancestors, inner, visiting, nested):
                    found.update(inner)
                    found[expr] = "conjugate"
                    return True
            return False
        if type(expr) is cst.BinaryOperation and type(expr.operator) is cst.Divide:
            # A spectrum divided by what is no spectrum (a number, a real tensor: checked when it runs).
            left: dict[cst.CSTNode, str] = {}
            if spectral(expr.left, position, ancestors, left, visiting, nested) \
                    and not spectral(expr.right, position, ancestors, {}, set(visiting), set()):
                found.update(left)
                found[expr] = "quotient"
                return True
            return False
        if type(expr) is cst.BinaryOperation and type(expr.operator) is cst.Multiply:
            left = spectral(expr.left, position, ancestors, found, visiting, nested)
            right = spectral(expr.right, position, ancestors, found, visiting, nested)
            if left or right:
                found[expr] = "product"
                return True
            return False
        if type(expr) is cst.Assign:
            # `xf[mask] = 0` into a spectrum, a real number written (TimeMixer's frequencies below its top k
            # dropped before `irfft(xf)`): the spectrum it wrote into, with the write.
            target = expr.targets[0].target if len(expr.targets) == 1 else None
            if type(target) is cst.Subscript and type(target.value) is cst.Name and len(target.slice) == 1 \
                    and type(target.slice[0].slice) is cst.Index and _real_number(expr.value) \
                    and not any(type(n) is cst.Name and n.value == target.value.value
                                for n in walk(target.slice[0].slice)):
                here = next((k for k, (unit, _) in enumerate(order) if unit is expr), None)
                inner = {}
                if here is not None and spectral(target.value, here, order[here][1], inner, visiting, nested):
                    found.update(inner)
                    found[expr] = "put"
                    return True
            return False
        if type(expr) is cst.Name:
            reached = False
            for before, around, value in reaching(expr.value, position, ancestors):
                if id(value) not in visiting:
                    visiting.add(id(value))
                    reached = spectral(value, before, around, found, visiting, nested) or reached
            if reached:
                reads.add(id(expr))
            return reached
        return False

    def reaching(name: str, position: int, ancestors: tuple) -> list[tuple[int, tuple, cst.CSTNode]]:
        """The assignments of ``name`` a read at ``position`` may see."""
        seen = []
        for before, around, value in reversed(assigned.get(name, [])):
            if before >= position:
                continue
            seen.append((before, around, value))
            if len(around) <= len(ancestors) and all(a is b for a, b in zip(around, ancestors)):
                break  # this assignment runs whenever the read does: none before it reaches
        return seen

    def read_only_so(found: dict[cst.CSTNode, str]) -> bool:
        """Every read of a name that a transform of ``found`` is bound to is one a chain follows
        (a part's operand, a factor): no read takes the complex tensor as it is."""
        values = {id(n) for n in found}
        for position, (unit, ancestors) in enumerate(order):
            skip = not_variables(unit)
            if type(unit) in (cst.Assign, cst.AnnAssign, cst.AugAssign):
                targets = [t.target for t in unit.targets] if type(unit) is cst.Assign else [unit.target]
                for target in targets:
                    if type(target) is cst.Name:
                        skip.add(id(target))
            for inner in walk(unit):
                if type(inner) is cst.Name and id(inner) not in skip and id(inner) not in reads \
                        and any(id(value) in values for _, _, value in reaching(inner.value, position, ancestors)):
                    return False
        return True

    taken: list[dict[cst.CSTNode, str]] = []
    waiting: list[dict[cst.CSTNode, str]] = []
    reads: set[int] = set()  # the names the chains follow
    weak_roots: list[dict[cst.CSTNode, str]] = []
    for root, position, ancestors, kind, operand in roots:
        found: dict[cst.CSTNode, str] = {}
        nested: set[int] = set()
        if not spectral(operand, position, ancestors, found, set(), nested):
            continue
        kinds = set(found.values())
        if kind == "inverse":
            wanted = bool(kinds - {"maker"})
        else:  # a part of a transform of a real tensor alone, or of makers alone, is taken by itself
            wanted = bool(kinds & {"product", "quotient", "shaped"}) or bool(nested)
        found[root] = kind
        if not wanted and weak and kind != "inverse" and type(operand) is cst.Name:
            weak_roots.append(found)
        (taken if wanted else waiting).append(found)
    for found in weak_roots:  # (checked once every root's reads are known)
        if read_only_so(found):
            taken.append(found)
            waiting.remove(found)
    # Roots sharing a node are one group (one fix); a root waiting joins a group it shares a node with.
    groups: list[dict[cst.CSTNode, str]] = []

    def join(found: dict[cst.CSTNode, str], alone: bool) -> bool:
        joined = [g for g in groups if any(n in g for n in found)]
        if (not joined and not alone) or (len(joined) == 1 and all(n in joined[0] for n in found)):
            return False
        merged: dict[cst.CSTNode, str] = {}
        for g in joined:
            merged.update(g)
            groups.remove(g)
        merged.update(found)
        groups.append(merged)
        return True

    for found in taken:
        join(found, True)
    while any([join(found, False) for found in waiting]):  # (a root joined late may link two groups)
        pass
    where = {id(inner): index for index, inner in enumerate(walk(function.body))}
    chains: dict[int, dict[cst.CSTNode, str]] = {}
    for group in groups:  # each group's nodes in source order (its first transform is where an export stops)
        if not any(kind in ("transform", "inverse") for kind in group.values()):
            continue  # complex arithmetic with no Fourier transform in it (`view_as_real(view_as_complex(p) * 2)`)
        ordered = dict(sorted(group.items(), key=lambda item: where.get(id(item[0]), 0)))
        first = next(n for n, k in ordered.items() if k == "inverse" or k.startswith("part:"))
        chains[id(first)] = ordered
    return chains


def _real_number(expr: cst.BaseExpression) -> bool:
    """A real number literal (``0``, ``-1.5``, ``float("nan")`` is not one): what a masked write into a spectrum
    may put there for the chain to follow it."""
    if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
        expr = expr.expression
    return type(expr) in (cst.Integer, cst.Float)


def _size_reads(expr: cst.CSTNode, name: str) -> list[cst.CSTNode]:
    """The reads of ``name``'s sizes in ``expr``: ``name.shape``, ``name.size()``, ``name.size(d)``."""
    return [inner for inner in walk(expr) if _size_read_name(inner) == name]


def _size_read_name(node: cst.CSTNode) -> str | None:
    """The name whose sizes ``node`` reads (``z.shape``, ``z.size()``, ``z.size(d)`` with ``d`` by position)."""
    if type(node) is cst.Attribute and node.attr.value == "shape" and type(node.value) is cst.Name:
        return node.value.value
    if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "size" \
            and type(node.func.value) is cst.Name and len(node.args) <= 1 \
            and all(a.keyword is None and not a.star for a in node.args):
        return node.func.value.value
    return None


def taken_stfts(function: cst.FunctionDef, context) -> set[int]:
    """The ids of the ``torch.stft`` calls in ``function`` that TRT709 rewrites: those of its
    complex pipelines (:func:`spectral_chains`, the weak ones included) and those whose result
    is read right there by a part (``torch.stft(...).abs()``); TRT706 names the others."""
    calls = [n for n in walk(function.body) if type(n) is cst.Call and context.refers_to(n.func, "torch.stft")]
    if not calls:
        return set()
    pairs = {id(n) for n in calls if real_pairs_stft(n, context)}
    taken = pairs | {id(n) for chains in (spectral_chains(function, context), spectral_chains(function, context, weak=True))
             for chain in chains.values() for n in chain}
    operands: set[int] = set()
    for inner in walk(function.body):
        read = part_of(inner, context)
        if read is None:
            continue
        operands.add(id(read[0]))
        if type(read[0]) is cst.Call and plain_transform(read[0], "torch.stft") \
                and context.refers_to(read[0].func, "torch.stft"):
            taken.add(id(read[0]))
    # A name bound once to the STFT whose every other mention is a part's operand (a kept transform).
    skip = not_variables(function.body)
    for statement in walk(function.body):
        name = _bound_name(statement)
        if name is None or id(statement.value) not in {id(n) for n in calls} \
                or not plain_transform(statement.value, "torch.stft"):  # type: ignore[attr-defined]
            continue
        mentions = [n for n in walk(function.body) if type(n) is cst.Name and n.value == name and id(n) not in skip]
        target = statement.targets[0].target if type(statement) is cst.Assign else statement.target  # type: ignore[attr-defined]
        if all(n is target or id(n) in operands for n in mentions) and len(mentions) > 1:
            taken.add(id(statement.value))  # type: ignore[attr-defined]
    return {id(n) for n in calls if id(n) in taken}


def takes_inverse_real(node: cst.Call, context, kept_inputs: set[int]) -> bool:
    """Whether TRT709 rewrites the inverse real transform ``node``: its input is written
    ``torch.complex(...)``/``torch.view_as_complex(...)`` there, or is a name assigned one in
    the function (``kept_inputs``: the ids :func:`inverse_real_makers` found)."""
    if inverse_real(node, context) is None:
        return False
    return complex_maker(node.args[0].value, context) is not None or id(node) in kept_inputs


class DftMatmul(RuntimeScopeRule):
    needs_text = spelled(*TRANSFORMS, *SHIFTS, *INVERSE_REAL, "torch.view_as_complex")
    info = RuleInfo(
        id="TRT709",
        name="dft-matmul",
        summary="`torch.fft.*` and `torch.stft`/`istft` do not export (complex result; ONNX DFT TensorRT never "
                "parses); take the real result as cosine and sine matrix products",
        doc="""\
What it finds: `torch.fft.fft`, `ifft`, `rfft`, `fft2`, `ifft2`, `rfft2`, `fftn`, `ifftn` and
`rfftn` (under any import name, `from torch.fft import fft2` included) whose complex result the
code takes as a real tensor right away: `torch.view_as_real(fft2(x))`, `fft(x).real`,
`fft(x).imag`, `fft(x).abs()`, `torch.real(...)`, `torch.imag(...)`, `torch.abs(...)`, or a
variable every read of which takes such a part; and `irfft`, `irfft2`
and `irfftn` whose input is `torch.complex(re, im)` or `torch.view_as_complex(pairs)` of real
tensors (written there, or assigned to the name it is given in the same function); and `irfft`,
`irfft2` and `irfftn` of a product of spectra: `a * b` whose factors are, written there or through
names assigned in the function, forward transforms, such complex tensors or other such products,
with real or complex factors beside them (FFTformer's attention `irfft2(rfft2(q) * rfft2(k),
s=...)` and its feed-forward filter `irfft2(rfft2(x) * self.fft, s=...)`, GFNet's global filter
`x = x * torch.view_as_complex(self.complex_weight)` between `rfft2` and `irfft2`, FFT
convolutions `irfft(rfft(x) * rfft(k), n)`, with long-convolution layers' `rfft(k, n=size) / size`:
a spectrum divided by what is no spectrum); and complex pipelines read by a part: a complex
transform (`fft`, `ifft`, `fft2`, `ifft2`, `fftn`, `ifftn`) of such a spectrum, through names,
products and quotients, and finally a part of it (piq's VSI `x_fft = fft2(x)`, `ifft2(x_fft *
lg).real`; FSIM's `view_as_real(ifft2(imagefft * filters))`; FNet's `fft(fft(x, dim=-1),
dim=-2).real`; OKNet's `out = x1 * fft2(x2)`, `out = ifft2(out)`, `out = torch.abs(out)`), and
a variable bound to a transform whose every read (the reads that binding reaches) takes a part
even where another branch binds the name otherwise (SR-SIM's `imagefft.abs()` and
`torch.angle(imagefft)`). The parts: `torch.view_as_real`, `.real`, `.imag`, `.abs()`,
`torch.real`, `torch.imag`, `torch.abs`, and `torch.angle`/`.angle()` (DarkIR's `pha =
torch.angle(x_freq)`). Any other use (the complex result divided by a spectrum, indexed,
returned, passed to `irfftn` as it is), an `out=` or unpacked argument is reported without a
fix.
The short-time transforms are members of the same family: `torch.stft(x, ...,
return_complex=True)` (a forward transform of a real 1-D or 2-D signal, every argument by
position or keyword) and `torch.istft(spec, ...)` (an inverse, as `irfft*`: of `torch.complex`
/`view_as_complex` parts or of a product of spectra), and a spectrum passed to a function that
reads that parameter only through `abs` (`x.abs()`, `x.absolute()`, `torch.abs(x)`; the function
defined in the file or imported with `from ... import`, found as written) is a part read
(noisereduce's TorchGate: `X = torch.stft(x, ..., return_complex=True, pad_mode="constant",
window=torch.hann_window(...))`, then `X.abs()`, `amp_to_db(X)` with `amp_to_db` reading
`x.abs()` only, `Y = X * sig_mask` and `torch.istft(Y, ...)`). A function reading the parameter
otherwise (`.real`, passing it on, rebinding it) leaves the STFT to TRT706.
An `stft` with real pairs (`torch.stft(x, ..., return_complex=False)`, hear21passt's AugmentMelSTFT:
torch's `view_as_real` of the complex result, which the TorchScript exporter writes as ONNX `STFT`,
parsed by TensorRT only from 10.15) becomes `_trt_stft("view_as_real", x, ..., return_complex=False)`:
`torch.stft` itself outside an export, the same pairs from the cosine and sine products while
exporting. Other `irfft*` inputs, `hfft`, `ihfft`, and an `stft` whose spectrum is used otherwise
are TRT706's.

Why it hurts: the TorchScript exporter has no symbolic for `aten::fft_*`, so the model does not
export; the dynamo exporter emits ONNX `DFT`, which no TensorRT release parses; and a complex
tensor cannot be carried by the graphs TensorRT builds. vit_pytorch's SimpleViT with FFT
(`torch.view_as_real(fft2(img))`) and MONAI's `fftn_centered_t` (`torch.view_as_real(
torch.fft.fftn(x, dim=dims, norm="ortho"))`) do not export.

The rewrite: `torch.view_as_real(fft2(img))` → `_trt_fft2("view_as_real", img)` (one helper per
transform, the torch function's parameters passed on as written). Outside `torch.onnx.export`
the helper is the torch function followed by the use. While exporting, a real (or integer)
input takes, along each transformed axis of size n, the products with
C[k, j] = cos(2 pi ((k j) mod n) / n) and S[k, j] = sin(...) built from `arange` of the traced
sizes, so the graph follows any input size; `n`/`s` trim or zero-pad as torch does, `rfft*` keep
`n // 2 + 1` frequencies of the last axis, `norm` scales. The graph: Range, Mul, Div, Sub, Cast,
Cos, Sin, Transpose, MatMul (Less where a size is given, Concat for `view_as_real`, Sqrt for
`abs`). A transform kept in a variable whose every use takes a part (`z = fftn(x, ...)`, then
`torch.real(z)` and `torch.imag(z)`) becomes `z = _trt_fftn("complex", x, ...)`, which is the
complex transform outside an export and its `view_as_real` layout while exporting, and each use
`_trt_dft_part(z, "real")`, which takes its part of either. An input written as
`torch.view_as_complex(pairs)` (MONAI's k-space, real and imaginary parts on a last axis of 2)
is passed as the pairs with a `"pairs:"` part (`_trt_ifftn("pairs:view_as_real", pairs, ...)`):
the products then take both parts, and no complex tensor is made while exporting (not for
`rfft*`, which refuse a complex input). Where the code keeps it in a variable first
(MONAI's `fftn_centered_t`: `x = torch.view_as_complex(ifftshift(im, ...))` in an `if
is_complex:` branch, then `torch.view_as_real(torch.fft.fftn(x, ...))`), that assignment becomes
`x = _trt_view_as_complex(...)`: the same complex tensor, always; while exporting it also
remembers its pairs (and their version), and a transform helper given that tensor, not written
to since, takes the pairs instead, so the `view_as_complex` is used by nothing and leaves the
graph. A transform whose variable is rebound by a later statement that reads nothing of it but
its parts (LaMa's Fourier unit: `ffted = torch.fft.rfftn(x, dim=fft_dim, norm=...)` in each branch
of an `if`, then `ffted = torch.stack((ffted.real, ffted.imag), dim=-1)`; or `y =
torch.view_as_real(y)`) is taken the same way when, on every path to that statement, the last
binding of the name is such a transform and only parts of it are read in between: the parts
become `_trt_dft_part(ffted, "real")`, one fix for every branch's transform. Not taken: a path on
which the name keeps another value (an `if` without `else`), a read of the whole tensor between,
a `try` around the rebinding statement, `break`/`continue` between, a nested function or lambda
reading the name, `global`/`nonlocal`. The inverse real transforms: `torch.fft.irfftn(ffted,
s=..., dim=..., norm=...)` → `_trt_irfftn(ffted, s=..., dim=..., norm=...)`, and the `ffted =
torch.complex(re, im)` that made its input → `_trt_complex(re, im)` (`torch.view_as_complex(p)` →
`_trt_view_as_complex(p)`): always the same complex tensor, which while exporting remembers its
real tensors and their versions; the helper given that tensor, none of them written to since,
computes the real output from them as products along the transformed axes, sizes from the
traced shapes or `s`/`n`: the complex inverse (cosine and sine matrices) on every axis but the
last, then on the last the Hermitian half spectrum: the output of length n (`s`, or 2 (m - 1)
from m bins) is the sum over bins k <= n / 2 of w_k (Re X_k cos(2 pi k t / n) - Im X_k sin(...)),
w = 1 for bin 0 and for bin n / 2 (n even), whose imaginary parts are ignored as irfft ignores
them, 2 for the bins between; bins past n / 2 are dropped, missing ones are zeros; `norm`
scales. Graph: also Equal and Less on the bin numbers. Any other input (a tensor not made there,
or written to since) keeps torch's function (and its export error). A product of spectra
(`q_fft = torch.fft.rfft2(q)`, `k_fft = torch.fft.rfft2(k)`, `out = q_fft * k_fft`,
`torch.fft.irfft2(out, s=(8, 8))`) → `q_fft = _trt_rfft2("tracked", q)`, `out =
_trt_complex_mul(q_fft, k_fft)`, `_trt_irfft2(out, s=(8, 8))` (a `torch.complex`/`view_as_complex`
factor → `_trt_complex`/`_trt_view_as_complex`): outside an export, torch's transform and `a * b`,
the same values bit for bit; while exporting, the `"tracked"` transform computes its real and
imaginary parts as the products above and returns `torch.complex` of them, remembering them (with
their versions) as `_trt_complex` does, and `_trt_complex_mul` takes the parts of its factors
((a + ib)(c + id) = (ac - bd) + i(ad + bc); a real tensor or number as c + 0i) and returns the
product the same way, so the inverse computes its output from real tensors and every complex
tensor is left unused (the exporter drops it). A name is followed to its assignments before the
read, back to the first that runs whenever the read does; a factor not made by the helpers (a
complex parameter, a complex tensor written to since) makes the product torch's `*`, and the
inverse then keeps torch's function (and its export error). A spectrum divided by what is no
spectrum (`rfft(k, n=size) / size`) → `_trt_complex_div(a, b)`: `a / b`; while exporting, each
part divided by the real tensor or number (a complex divisor keeps torch's `/`). The conjugate
of such a spectrum is one too (Autoformer's auto-correlation in torch-timeseries, `res = q_fft *
torch.conj(k_fft)`, `corr = torch.fft.irfft(res, dim=-1)`): `torch.conj(z)`, `z.conj()`,
`torch.conj_physical(z)`, `z.conj_physical()` → `_trt_complex_conj(z)` (`_trt_complex_conj(z,
True)` for the physical forms): torch's conjugate outside an export; while exporting, of a
spectrum whose parts the helpers remember, a complex tensor remembering `(real, -imag)` (Neg on
the imaginary part); the conjugate of anything else (a complex parameter) is left as written and
the product then keeps torch's `*`. Python's `abs(z)` of a spectrum is its `abs` part
(TimesNet's `abs(xf).mean(0)`), where the file binds or mentions the bare name `abs` nowhere else.
Only `*` and
that `/` are taken (not a quotient of spectra, `torch.mul`, `einsum`, an in-place `*=`). Graph:
also Mul, Div, Sub and Add on the parts. A complex pipeline read by a part is one such chain:
`x_fft = torch.fft.fft2(x)`, `torch.fft.ifft2(x_fft * lg).real` → `x_fft = _trt_fft2("tracked",
x)`, `_trt_ifft2("real", _trt_complex_mul(x_fft, lg))`: a complex transform given a complex tensor
whose parts the helpers remember takes them as real and imaginary pairs while exporting (so a
transform of a transform is two products), and a part written on the transform becomes its
helper with that part; a part of a name or a product becomes `_trt_dft_part(z, "tracked:real")`,
which is torch's part of whatever `z` holds when it runs (a real tensor a branch bound to the
name included) and, while exporting, the part of the remembered parts. The roots (inverses and
parts) that share a node are one fix, placed on the first transform. `torch.stft(x, n_fft, ...,
return_complex=True)` → `_trt_stft("tracked", x, n_fft, ...)` (its part, where read right there:
`torch.stft(...).abs()` → `_trt_stft("abs", ...)`): outside an export `torch.stft` and the part;
while exporting a real `(L)` or `(B, L)` signal, the signal padded by `n_fft // 2` on each side
as `center` and `pad_mode` say (F.pad, as torch.stft pads), cut into frames by one gather of
computed indices (frame t holds samples `t * hop + j`, the frame count from the traced length),
times the window (None: ones of `win_length`; zero-padded to `n_fft` on both sides), and the
one-sided DFT of each frame as the products above (`normalized`: the `"ortho"` scale).
`torch.istft(Y, ...)` → `_trt_istft(Y, ...)`: while exporting, of a spectrum whose parts the
helpers remember, each frame's inverse real DFT (the Hermitian half spectrum, as `irfft`),
times the window, added at its hop (`ceil(n_fft / hop)` shifted copies of hop-long pieces: Pad,
Reshape, Slice, Add), divided by the window's squares added the same way, trimmed by
`n_fft // 2` where `center` and cut or zero-padded to `length`. `amp_to_db(X)` →
`amp_to_db(_trt_dft_abs_argument(X))`: `X` itself outside an export; while exporting, a spectrum
whose parts the helpers remember is passed as its magnitude (a real tensor whose `abs` is
itself, so the function computes the same). Graph: also Gather and Pad. `torch.angle(z)` (and
`z.angle()`) of a transform is, while exporting, `_trt_atan2_onnx(imag, real)`, TRT301's exact
form of atan2 (Atan, Div, Abs, Min/Max, comparisons, Where: TensorRT has no Atan2). `torch.fft.fftshift(x, dim)` →
`_trt_fftshift(x, dim)` (`ifftshift` alike): while exporting a real input, each axis is split at
its traced size and the two slices concatenated in the other order: the same elements in the
same places, bit for bit (Shape, Div, Sub, Slice, Concat). A complex input keeps the torch function (and
its export error).

A spectrum kept as real pairs (a last axis of 2: real, imaginary) and read through a part of
`torch.view_as_complex` of them, with no transform there (Open-Unmix's `ComplexNorm`:
`torch.abs(torch.view_as_complex(spec))` of `torch.view_as_real(torch.stft(...))`): the part
written on the call (`torch.abs`, `.abs()`, `.real`, `.imag`, `torch.angle`, `torch.view_as_real`,
the built-in `abs`) → `_trt_dft_part(_trt_view_as_complex(spec), "abs")`, and
`z = torch.view_as_complex(p)` bound once in the function, every read of `z` a part →
`z = _trt_view_as_complex(p)` and `_trt_dft_part(z, "real")`: torch's view and part outside an
export; while exporting, the part of the pairs the complex tensor remembers (Sqrt of the sum of
squares for `abs`, TRT301's atan2 form for the angle), so `view_as_complex` is used by nothing and
leaves the graph. Not taken: the complex tensor used as such (`view_as_complex(p) * 2`), a name
read otherwise, bound twice or read in a nested function.

A spectrum reshaped on its way to a part (torchaudio's `spectrogram`: `spec_f = torch.stft(input=...,
return_complex=True)`, `spec_f = spec_f.reshape(shape[:-1] + spec_f.shape[-2:])`, `spec_f.abs()`):
the method (`reshape`, `view`, `transpose`, `permute`, `flatten`, `unsqueeze`, `squeeze`, ...) →
`_trt_complex_shaped(spec_f, "reshape", ...)` and its own `spec_f.shape` there →
`_trt_complex_shape(spec_f)`: the method and the shape of each remembered part while exporting (the
method itself otherwise), so the STFT, the reshape and the magnitude use nothing complex. A real
number written into a spectrum through one index before it reaches an inverse or a part (TimeMixer's
`xf[freq <= top_k_freq.min()] = 0`, then `torch.fft.irfft(xf)`; the index not reading the spectrum
itself) → `xf = _trt_complex_put(xf, <index>, 0)`: the same write, in place, on the same tensor in
eager mode; while exporting, the number written into a copy of the real part and 0 into one of the
imaginary part (a bool mask of their shape as `masked_fill`).

Fix safety: unsafe; the assumption is that values equal to the FFT's up to rounding are good
enough. A matrix product sums in another order than the FFT (measured: relative error below
1e-6 in float32 for 64 x 64 images, 1e-15 in float64; the inverse real transforms below 1e-5 of the
largest magnitude in float32, 1e-12 in float64), costs O(n^2) per line instead of
O(n log n), and multiplies every element by its weight: an inf or NaN in an input line makes
every output of that line NaN or inf, where the FFT keeps some finite (`fft([1, inf, 2, 3])` has
the finite real parts -1 in two bins; the products give NaN there). Float16/bfloat16 are
computed in float32 (the CPU FFT refuses them). The STFT helpers measured
against `torch.stft`/`torch.istft` in float64: within 1e-14 of the largest magnitude (batch 1 and
3, 1-D, lengths no multiple of the hop, zeros, an impulse, every padding mode, a window shorter
than `n_fft`, none, `normalized`); the inverse does not check the window's overlap (NOLA) or the
bin count as torch does (where torch raises, the graph divides by a zero envelope or takes
missing bins as zeros). `torch.jit.script` cannot compile the helpers
(their `dim` is an int or a tuple). Eager mode, `torch.fx`, `torch.compile` and `torch.export`
run the original.

TensorRT versions: all (the export fails or yields DFT before TensorRT is involved).""",
        fix=Safety.UNSAFE,
        assumption=(
            "values equal to the FFT's up to float rounding are good enough, and the input is finite (one inf or NaN "
            "makes its whole line NaN or inf)"),
        fails_when=(
            "an inf or NaN in the input: every output of its line is NaN or inf, where the FFT keeps some finite",
            "long transformed axes: the products cost O(n^2) per line (the FFT O(n log n)) and sum n terms "
            "in another order",
            "float16/bfloat16 input: computed in float32 and rounded back (the CPU FFT refuses them)",
            "`torch.istft` where torch raises (a window whose squares add to zero somewhere, the NOLA check; a "
            "bin count other than n_fft // 2 + 1): the exported graph divides by zero or takes missing bins as "
            "zeros instead of raising",
            "`torch.jit.script` of the rewritten function: the helpers take `dim` as an int or a tuple (this is why "
            "the exact fftshift/ifftshift rewrite is labelled unsafe too)",
            "the magnitude of real pairs (`torch.abs(torch.view_as_complex(p))`): a pair holding an inf beside a NaN "
            "gives NaN where torch gives inf (hypot's rule), and parts whose squares overflow (beyond about 1.8e19 in "
            "float32) give inf where torch's magnitude is finite",
            "`torch.angle` at the branch cut: a bin whose imaginary part the FFT gives as zero (the zero frequency, "
            "the Nyquist bin of a real input) with a negative real part may come out as -pi where the FFT gives pi "
            "(the same point: code taking cos/sin of the phase is unaffected)",
        ),
        examples=(
            Example(
                "def complex_norm(self, spec):\n"
                "    return torch.abs(torch.view_as_complex(spec))\n",
                "def complex_norm(self, spec):\n"
                "    return _trt_dft_part(_trt_view_as_complex(spec), \"abs\")\n",
                unsafe=True,
            ),
            Example(
                "from torch.fft import fft2\n"
                "def forward(self, img):\n"
                "    freqs = torch.view_as_real(fft2(img))\n"
                "    return self.to_freq_embedding(freqs)\n",
                "from torch.fft import fft2\n"
                "def forward(self, img):\n"
                "    freqs = _trt_fft2(\"view_as_real\", img)\n"
                "    return self.to_freq_embedding(freqs)\n",
                unsafe=True,
            ),
            Example(
                "def amplitude(self, x):\n"
                "    return torch.fft.rfft(x, n=64, dim=1, norm=\"ortho\").abs()\n",
                "def amplitude(self, x):\n"
                "    return _trt_rfft(\"abs\", x, n=64, dim=1, norm=\"ortho\")\n",
                unsafe=True,
            ),
            Example(
                "def amplitude(self, images):\n"
                "    img_fft = torch.fft.fftn(images, s=self.size, dim=self.dims, norm=self.norm)\n"
                "    return torch.sqrt(torch.real(img_fft) ** 2 + torch.imag(img_fft) ** 2)\n",
                "def amplitude(self, images):\n"
                "    img_fft = _trt_fftn(\"complex\", images, s=self.size, dim=self.dims, norm=self.norm)\n"
                "    return torch.sqrt(_trt_dft_part(img_fft, \"real\") ** 2 + _trt_dft_part(img_fft, \"imag\") ** 2)\n",
                unsafe=True,
            ),
            Example(
                "def forward(self, x):\n"
                "    ffted = torch.fft.rfftn(x, dim=(-2, -1), norm=\"ortho\")\n"
                "    ffted = torch.stack((ffted.real, ffted.imag), dim=-1)\n"
                "    ffted = self.conv(ffted)\n"
                "    ffted = torch.complex(ffted[..., 0], ffted[..., 1])\n"
                "    return torch.fft.irfftn(ffted, s=x.shape[-2:], dim=(-2, -1), norm=\"ortho\")\n",
                "def forward(self, x):\n"
                "    ffted = _trt_rfftn(\"complex\", x, dim=(-2, -1), norm=\"ortho\")\n"
                "    ffted = torch.stack((_trt_dft_part(ffted, \"real\"), _trt_dft_part(ffted, \"imag\")), dim=-1)\n"
                "    ffted = self.conv(ffted)\n"
                "    ffted = _trt_complex(ffted[..., 0], ffted[..., 1])\n"
                "    return _trt_irfftn(ffted, s=x.shape[-2:], dim=(-2, -1), norm=\"ortho\")\n",
                unsafe=True,
            ),
            Example(
                "def forward(self, q, k):\n"
                "    q_fft = torch.fft.rfft2(q.float())\n"
                "    k_fft = torch.fft.rfft2(k.float())\n"
                "    out = q_fft * k_fft\n"
                "    return torch.fft.irfft2(out, s=(8, 8))\n",
                "def forward(self, q, k):\n"
                "    q_fft = _trt_rfft2(\"tracked\", q.float())\n"
                "    k_fft = _trt_rfft2(\"tracked\", k.float())\n"
                "    out = _trt_complex_mul(q_fft, k_fft)\n"
                "    return _trt_irfft2(out, s=(8, 8))\n",
                unsafe=True,
            ),
            Example(
                "def saliency(self, x, lg):\n"
                "    x_fft = torch.fft.fft2(x)\n"
                "    return torch.fft.ifft2(x_fft * lg).real\n",
                "def saliency(self, x, lg):\n"
                "    x_fft = _trt_fft2(\"tracked\", x)\n"
                "    return _trt_ifft2(\"real\", _trt_complex_mul(x_fft, lg))\n",
                unsafe=True,
            ),
            Example(
                "def amplitude_phase(self, x):\n"
                "    spectrum = torch.fft.rfft2(x)\n"
                "    return spectrum.abs(), torch.angle(spectrum)\n",
                "def amplitude_phase(self, x):\n"
                "    spectrum = _trt_rfft2(\"complex\", x)\n"
                "    return _trt_dft_part(spectrum, \"abs\"), _trt_dft_part(spectrum, \"angle\")\n",
                unsafe=True,
            ),
            Example(
                "def deconvolve(self, x, k):\n"
                "    return torch.fft.irfft(torch.fft.rfft(x) / torch.fft.rfft(k))\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/fft.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        #: Transform calls already taken with their use (visited before the call itself).
        self._taken: set[int] = set()
        #: Transform calls kept in a variable whose every use takes a real part: id → replacements.
        self._kept: dict[int, dict[cst.CSTNode, cst.CSTNode]] = {}
        #: Transform calls whose input variable is assigned ``torch.view_as_complex(pairs)`` in the
        #: same function: id → the replacements of those assignments' calls.
        self._complex_inputs: dict[int, dict[cst.CSTNode, cst.CSTNode]] = {}
        #: Inverse real transforms whose input name is assigned ``torch.complex``/``view_as_complex``
        #: in the same function: id → those calls.
        self._inverse_inputs: dict[int, list[cst.Call]] = {}
        #: Calls already part of a fix (a ``view_as_complex`` two transforms take is rewritten once).
        self._claimed: set[int] = set()
        #: Transform calls whose fix another call of the same group carries (the other branch's).
        self._grouped: set[int] = set()
        #: Transform calls kept in a variable that a later statement rebinds from its parts: id →
        #: the node the finding is placed on (the call, or the ``if`` holding each branch's call).
        self._rebound: dict[int, cst.CSTNode] = {}
        #: Inverse real transforms whose input is a spectral product: id → the nodes of the chain.
        self._chains: dict[int, dict[cst.CSTNode, str]] = {}
        #: Transforms, inverses and parts a chain rewrites (named by the chain's finding, not on their own).
        self._chained: set[int] = set()
        #: Transforms of the current function's chains (no kept or rebound transform takes them).
        self._in_chains: set[int] = set()
        #: ``z = torch.view_as_complex(pairs)`` whose every read takes a real part (no transform in
        #: between): id of the call → the replacements of the call and of each part read.
        self._kept_pairs: dict[int, dict[cst.CSTNode, cst.CSTNode]] = {}

    def _part_of(self, node: cst.CSTNode) -> tuple[cst.BaseExpression, str] | None:
        """``(z, part)`` when ``node`` takes a real part of ``z`` (:func:`part_of`)."""
        return part_of(node, self.context)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._find_complex_inputs(node)
        chains = {key: chain for key, chain in spectral_chains(node, self.context).items()
                  if not any(id(n) in self._claimed for n in chain)}
        # A transform of a chain (a complex transform of a spectrum kept in a variable, OKNet's
        # `x_fca = ifft2(x_fft)` then `torch.abs(x_fca)`) is the chain's, not a kept transform's.
        self._in_chains = {id(n) for chain in chains.values() for n, kind in chain.items() if kind == "transform"}
        self._find_kept(node)
        self._find_kept_pairs(node)
        self._inverse_inputs.update(inverse_real_makers(node, self.context))
        claimed = set(self._kept) | self._grouped | {id(n) for r in self._kept.values() for n in r}
        # Then the parts of transforms kept in a variable that no kept transform took (the
        # variable read otherwise in another branch): the transform tracked, each part taken of it.
        for key, chain in spectral_chains(node, self.context, weak=True).items():
            if key in self._chains or any(id(n) in claimed or id(n) in self._claimed for n in chain):
                continue
            self._chains[key] = chain
            self._chained.update(id(n) for n, kind in chain.items() if kind in ("transform", "inverse")
                                 or kind.startswith("part:"))

    def _find_complex_inputs(self, node: cst.FunctionDef) -> None:
        """``x = torch.view_as_complex(pairs)`` (in any branch) and a transform of ``x`` later in the
        function (MONAI's ``fftn_centered_t``): the assignment becomes ``_trt_view_as_complex(pairs)``,
        the same complex tensor, which while exporting remembers its pairs for the transform."""
        inputs: dict[str, list[cst.Call]] = {}
        for inner in walk(node.body):
            if type(inner) is cst.Call and self._transform(inner) is not None and inner.args \
                    and inner.args[0].keyword is None and not inner.args[0].star \
                    and type(inner.args[0].value) is cst.Name:
                inputs.setdefault(inner.args[0].value.value, []).append(inner)
        if not inputs:
            return
        taken: set[int] = set()
        for statement in walk(node.body):
            if type(statement) is not cst.Assign or len(statement.targets) != 1 \
                    or type(statement.targets[0].target) is not cst.Name:
                continue
            value = statement.value
            name = statement.targets[0].target.value
            if name not in inputs or type(value) is not cst.Call or id(value) in taken \
                    or not self.context.refers_to(value.func, "torch.view_as_complex") or len(value.args) != 1 \
                    or value.args[0].keyword is not None or value.args[0].star:
                continue
            taken.add(id(value))
            self._claimed.add(id(value))
            first = inputs[name][0]
            self._complex_inputs.setdefault(id(first), {})[value] = value.with_changes(func=cst.Name(COMPLEX_HELPER))

    def _find_kept(self, node: cst.FunctionDef) -> None:
        """``z = fftn(x, ...)`` whose every use in the function takes a real part: the transform is
        kept as it is outside an export and in the ``(..., 2)`` layout while exporting, and each use
        takes its part of either."""
        kept: dict[str, list[cst.Assign]] = {}
        for statement in walk(node.body):
            if type(statement) is cst.Assign and len(statement.targets) == 1 \
                    and type(statement.targets[0].target) is cst.Name and self._transform(statement.value):
                kept.setdefault(statement.targets[0].target.value, []).append(statement)
        if not kept:
            return
        parameters = {p.name.value for p in walk(node.params) if type(p) is cst.Param}
        uses, names = self._part_reads(node, set(kept))
        for name, assignments in kept.items():
            statement = assignments[0]
            call = statement.value
            others = self._other_reads(statement, uses[name], names[name])
            if len(assignments) != 1 or others or not uses[name] or name in parameters:
                self._find_rebound(node, name)
                continue
            if not self._plain(call) or id(call) in self._in_chains:
                continue
            name_of = self._transform(call)
            helper = TRANSFORMS[name_of]  # type: ignore[index]
            replacements: dict[cst.CSTNode, cst.CSTNode] = {
                call: cst.Call(func=cst.Name(helper), args=self._arguments(call, name_of, "complex"))}
            for use in uses[name]:
                z, part = self._part_of(use)  # type: ignore[misc]
                replacements[use] = cst.Call(func=cst.Name(PART_HELPER), args=[
                    cst.Arg(value=z), cst.Arg(value=cst.SimpleString(f'"{part}"'))])
            self._kept[id(call)] = replacements

    def _part_reads(self, node: cst.FunctionDef, wanted: set[str]) -> tuple[dict[str, list[cst.CSTNode]],
                                                                           dict[str, list[cst.Name]]]:
        """For each name of ``wanted``: the part reads of it in the function (``torch.real(z)``,
        ``z.abs()``...) and every mention of it as a variable (an attribute's or a keyword's name is
        none: ``fft = torch.fft.rfft2(x)``)."""
        uses: dict[str, list[cst.CSTNode]] = {name: [] for name in wanted}
        names: dict[str, list[cst.Name]] = {name: [] for name in wanted}
        skip = not_variables(node.body)
        for inner in walk(node.body):
            found = self._part_of(inner)
            if found is not None and type(found[0]) is cst.Name and found[0].value in uses:
                uses[found[0].value].append(inner)
            if type(inner) is cst.Name and inner.value in names and id(inner) not in skip:
                names[inner.value].append(inner)
        return uses, names

    def _other_reads(self, statement: cst.Assign, uses: list[cst.CSTNode], names: list[cst.Name]) -> list[cst.Name]:
        """The mentions of the name ``statement`` binds that are neither that binding nor a part read."""
        used = {id(self._part_of(use)[0]) for use in uses}  # type: ignore[index]
        return [n for n in names if n is not statement.targets[0].target and id(n) not in used]

    def _pairs_of(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """The real pairs ``p`` when ``node`` is ``torch.view_as_complex(p)`` (one argument, by position
        or as ``input=``) that no other fix of this rule takes."""
        if type(node) is not cst.Call or len(node.args) != 1 or node.args[0].star \
                or node.args[0].keyword not in (None,) and node.args[0].keyword.value != "input" \
                or id(node) in self._claimed or id(node) in self._chained \
                or self.context.refers_to(node.func, "torch.view_as_complex") is None:
            return None
        return node.args[0].value

    def _find_kept_pairs(self, node: cst.FunctionDef) -> None:
        """``z = torch.view_as_complex(pairs)`` (bound once in the function, no parameter) whose every
        read takes a real part (``torch.abs(z)``, ``z.real``, ``torch.angle(z)``...): the call becomes
        ``_trt_view_as_complex(pairs)`` (the same complex tensor, remembering its pairs while
        exporting) and each read ``_trt_dft_part(z, part)``, which takes the part of the pairs."""
        kept: dict[str, list[cst.Assign]] = {}
        for statement in walk(node.body):
            if type(statement) is cst.Assign and len(statement.targets) == 1 \
                    and type(statement.targets[0].target) is cst.Name and self._pairs_of(statement.value) is not None:
                kept.setdefault(statement.targets[0].target.value, []).append(statement)
        if not kept:
            return
        bound: dict[str, int] = {}
        for target in _binding_targets(node.body):  # every binding (augmented, annotated, a loop's, a with's...)
            for inner in walk(target):
                if type(inner) is cst.Name and inner.value in kept:
                    bound[inner.value] = bound.get(inner.value, 0) + 1
        parameters = {p.name.value for p in walk(node.params) if type(p) is cst.Param}
        uses, names = self._part_reads(node, set(kept))
        for name, assignments in kept.items():
            statement = assignments[0]
            others = self._other_reads(statement, uses[name], names[name])
            if len(assignments) != 1 or bound.get(name, 0) != 1 or others or not uses[name] or name in parameters:
                continue
            call = statement.value
            replacements: dict[cst.CSTNode, cst.CSTNode] = {call: call.with_changes(func=cst.Name(COMPLEX_HELPER))}
            for use in uses[name]:
                z, part = self._part_of(use)  # type: ignore[misc]
                replacements[use] = cst.Call(func=cst.Name(PART_HELPER), args=[
                    cst.Arg(value=z), cst.Arg(value=cst.SimpleString(f'"{part}"'))])
            self._kept_pairs[id(call)] = replacements

    def _take_pairs(self, whole: cst.CSTNode, pairs_call: cst.Call, part: str) -> None:
        """``torch.abs(torch.view_as_complex(p))`` (any part, written there) → ``_trt_dft_part(
        _trt_view_as_complex(p), "abs")``: the same values outside an export; while exporting, the
        part of the pairs ``p`` (their last axis: real, imaginary), no complex tensor in the graph."""
        self._claimed.add(id(pairs_call))
        inner = pairs_call.with_changes(func=cst.Name(COMPLEX_HELPER))
        replacement = cst.Call(func=cst.Name(PART_HELPER), args=[
            cst.Arg(value=inner), cst.Arg(value=cst.SimpleString(f'"{part}"'))])
        self.found(pairs_call, f"{_PAIRS_WHY}; the {part} is taken of the real pairs while exporting "
                               "(`torch.view_as_complex` and the part otherwise)",
                   Fix({whole: replacement}, safety=Safety.UNSAFE, helpers=(PART_HELPER, COMPLEX_HELPER)))

    def _plain(self, call: cst.Call) -> bool:
        """The transform's own arguments only (:func:`plain_transform`)."""
        return plain_transform(call, self._transform(call))

    # --- a transform kept in a variable that a later statement rebinds from its parts ----------

    def _find_rebound(self, function: cst.FunctionDef, name: str) -> None:
        """``y = rfftn(x, ...)`` (in one or every branch of an ``if``), then, on every path,
        only parts of ``y`` read until a statement ``y = ...`` that reads nothing of ``y`` but
        its parts (LaMa's ``ffted = torch.stack((ffted.real, ffted.imag), dim=-1)``): no other
        binding of ``y`` reaches those reads, and the transform's reaches no other, so they take
        their parts of the ``(..., 2)`` layout while exporting. Refused: a ``try`` around the
        statement (a handler could read the transform), ``break``/``continue`` between (the
        transform could leave the loop), a nested function or lambda reading ``y``, ``global``/
        ``nonlocal y``."""
        for inner in walk(function.body):
            if type(inner) in (cst.Global, cst.Nonlocal) and any(n.name.value == name for n in inner.names):
                return
        for block, index, ancestors in self._statements(function.body, ()):
            statement = block[index]
            target = self._rebinding(statement, name)
            if target is None or any(type(a) in (cst.Try, cst.TryStar) for a in ancestors):
                continue
            value = statement.value  # type: ignore[attr-defined]
            if self._transform(value) is not None:
                continue
            uses = self._parts_only(value, name)
            if uses is None:
                continue
            starts: list[cst.Assign] = []
            stop = self._bound_before(block[:index], name, uses, starts)
            if stop is None or not uses or not all(self._plain(s.value) and id(s.value) not in self._in_chains
                                                   for s in starts):  # type: ignore[arg-type]
                continue
            replacements: dict[cst.CSTNode, cst.CSTNode] = {}
            for start in starts:
                call = start.value
                replacements[call] = cst.Call(func=cst.Name(TRANSFORMS[self._transform(call)]),  # type: ignore[index]
                                              args=self._arguments(call, self._transform(call), "complex"))  # type: ignore[arg-type]
            for use in uses:
                z, part = self._part_of(use)  # type: ignore[misc]
                replacements[use] = cst.Call(func=cst.Name(PART_HELPER), args=[
                    cst.Arg(value=z), cst.Arg(value=cst.SimpleString(f'"{part}"'))])
            calls = [start.value for start in starts]
            self._kept[id(calls[-1])] = replacements
            # One fix for the transforms of every branch; the finding is placed on the statement
            # that holds them all (which one runs is not known here: migrate matches lines).
            self._rebound[id(calls[-1])] = calls[-1] if len(calls) == 1 else stop
            self._grouped.update(id(call) for call in calls[:-1])

    @classmethod
    def _statements(cls, block, ancestors):
        """Each statement of ``block`` (an indented block, a one-line suite or a list of
        statements) and of the blocks inside it, not inside nested functions or classes, as
        ``(its block as a list, its index there, the compound statements around it)``."""
        units = cls._units(block)
        for index, unit in enumerate(units):
            yield units, index, ancestors
            for inner in cls._blocks(unit):
                yield from cls._statements(inner, ancestors + (unit,))

    @staticmethod
    def _units(block) -> list[cst.CSTNode]:
        """The statements of a block, with each line's ``;``-separated small statements apart."""
        body = block if isinstance(block, (list, tuple)) else block.body
        units: list[cst.CSTNode] = []
        for statement in body:
            if type(statement) is cst.SimpleStatementLine:
                units.extend(statement.body)
            else:
                units.append(statement)
        return units

    @staticmethod
    def _blocks(unit: cst.CSTNode) -> list:
        """The blocks directly inside a compound statement (an ``elif`` as a block of itself);
        none for a nested function or class."""
        if type(unit) in (cst.FunctionDef, cst.ClassDef) or not isinstance(unit, cst.BaseCompoundStatement):
            return []
        blocks: list = []
        for child in unit.children:
            if isinstance(child, cst.BaseSuite):
                blocks.append(child)
            elif type(child) is cst.If:
                blocks.append([child])
            elif type(child) in (cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase):
                blocks.append(child.body)
        return blocks

    @staticmethod
    def _rebinding(statement: cst.CSTNode, name: str) -> cst.Name | None:
        """The target when ``statement`` is ``name = value`` (or ``name: T = value``)."""
        if type(statement) is cst.Assign and len(statement.targets) == 1:
            target = statement.targets[0].target
        elif type(statement) is cst.AnnAssign and statement.value is not None:
            target = statement.target
        else:
            return None
        return target if type(target) is cst.Name and target.value == name else None

    def _parts_only(self, node: cst.CSTNode, name: str) -> list[cst.CSTNode] | None:
        """The uses in ``node`` that take a part of ``name``, when every other mention of the
        name is none of the variable (an attribute's or a keyword's name); None when the
        variable is read as a whole, bound, or read by a nested function or lambda."""
        parts: list[cst.CSTNode] = []
        covered: set[int] = set()
        ignored = not_variables(node)
        deferred = False
        for inner in walk(node):
            if type(inner) in (cst.Lambda, cst.FunctionDef, cst.ClassDef) and mentions_name(inner, name):
                deferred = True
            found = self._part_of(inner)
            if found is not None and type(found[0]) is cst.Name and found[0].value == name:
                parts.append(inner)
                covered.add(id(found[0]))
        if deferred:
            return None
        for inner in walk(node):
            if type(inner) is cst.Name and inner.value == name and id(inner) not in covered and id(inner) not in ignored:
                return None
        return parts

    def _bound_before(self, units: list[cst.CSTNode], name: str, uses: list[cst.CSTNode],
                      starts: list[cst.Assign]) -> cst.CSTNode | None:
        """The statement of ``units`` where, read backwards from their end, every path meets
        ``name = <a transform>`` (added to ``starts``) before any other mention of the name than
        a part taken of it (added to ``uses``), with no ``break``/``continue`` in between: that
        assignment, or the ``if``/``with`` holding it; None when some path does not."""
        for unit in reversed(units):
            if self._rebinding(unit, name) is not None and type(unit) is cst.Assign \
                    and self._transform(unit.value) is not None:
                starts.append(unit)
                return unit
            if any(type(inner) in (cst.Break, cst.Continue) for inner in walk(unit)):
                return None
            parts = self._parts_only(unit, name)
            if parts is not None:
                uses.extend(parts)
                continue
            if type(unit) is cst.If:
                test = self._parts_only(unit.test, name)
                if test is None or unit.orelse is None:
                    return None
                uses.extend(test)
                orelse = [unit.orelse] if type(unit.orelse) is cst.If else self._units(unit.orelse.body)
                if self._bound_before(self._units(unit.body), name, uses, starts) is None \
                        or self._bound_before(orelse, name, uses, starts) is None:
                    return None
                return unit
            if type(unit) is cst.With:
                items = [self._parts_only(item, name) for item in unit.items]
                if any(item is None for item in items):
                    return None
                for item in items:
                    uses.extend(item)  # type: ignore[arg-type]
                return unit if self._bound_before(self._units(unit.body), name, uses, starts) is not None else None
            return None
        return None

    def _transform(self, node: cst.BaseExpression) -> str | None:
        if type(node) is not cst.Call:
            return None
        return self.context.refers_to(node.func, *TRANSFORMS)

    def _take(self, whole: cst.BaseExpression, call: cst.Call, part: str) -> None:
        """Rewrite ``whole`` (the use of the transform ``call``) into the helper, or report why not."""
        name = self._transform(call)
        if name is None:
            return
        self._taken.add(id(call))
        short = name.replace("torch.fft.", "")
        if not plain_transform(call, name):
            self.found(call, f"{self._why(name)}; not rewritten: other arguments (`out=`, unpacked ones)")
            return
        helper = TRANSFORMS[name]
        replacement = cst.Call(func=cst.Name(helper), args=self._arguments(call, name, part))
        replacements: dict[cst.CSTNode, cst.CSTNode] = {whole: replacement}
        helpers: tuple[str, ...] = (helper,)
        if id(call) in self._complex_inputs and not real_input(name):
            replacements.update(self._complex_inputs.pop(id(call)))
            helpers += (COMPLEX_HELPER,)
        self.found(call, f"{self._why(name)}; the {part} result is computed as cosine and sine matrix products "
                         f"while exporting (`torch.fft.{short}` otherwise)",
                   Fix(replacements, safety=Safety.UNSAFE, helpers=helpers))

    def _arguments(self, call: cst.Call, name: str, part: str, updated: cst.Call | None = None) -> list[cst.Arg]:
        """The helper's arguments: the part, then the transform's own (``updated``'s: the call with
        what a chain rewrote inside it); an input written as ``torch.view_as_complex(pairs)`` (not
        for ``rfft*``, which refuse complex input) is passed as the pairs, with a ``"pairs:"`` part,
        so no complex tensor is made while exporting."""
        args = list((updated or call).args)
        first = args[0]
        inner = call.args[0].value
        if (first.keyword is None and not real_input(name) and type(inner) is cst.Call
                and self.context.refers_to(inner.func, "torch.view_as_complex") and len(inner.args) == 1
                and inner.args[0].keyword is None and not inner.args[0].star):
            args[0] = first.with_changes(value=first.value.args[0].value)  # type: ignore[attr-defined]
            part = f"pairs:{part}"
        return [cst.Arg(value=cst.SimpleString(f'"{part}"')), *args]

    @staticmethod
    def _why(name: str) -> str:
        if name in ("torch.stft", "torch.istft"):
            return (f"`{name}` has no TensorRT path: its complex spectrum does not export (the TorchScript exporter "
                    "refuses a complex STFT, the dynamo exporter writes complex values no TensorRT graph carries)")
        return (f"`{name}` has no TensorRT path: the TorchScript exporter has no ONNX symbolic for it, the dynamo "
                "exporter's ONNX DFT is not parsed by any TensorRT release, and its result is complex")

    def visit_Call(self, node: cst.Call) -> None:
        if id(node) in self._chains:
            self._chain(self._chains.pop(id(node)))
            return
        if id(node) in self._taken or id(node) in self._grouped or id(node) in self._chained:
            return
        if id(node) in self._kept:
            replacements = self._kept.pop(id(node))
            name = self._transform(node)
            helpers: tuple[str, ...] = tuple(dict.fromkeys(
                TRANSFORMS[self._transform(call)] for call in replacements  # type: ignore[index,arg-type]
                if self._transform(call) is not None)) + (PART_HELPER,)  # type: ignore[arg-type]
            if id(node) in self._complex_inputs and not real_input(name):  # type: ignore[union-attr]
                replacements.update(self._complex_inputs.pop(id(node)))
                helpers += (COMPLEX_HELPER,)
            where: cst.CSTNode = node
            if id(node) in self._rebound:
                where = self._rebound.pop(id(node))
                how = ("every read of the variable it is bound to, until the statement that rebinds the variable "
                       "from its parts, takes a real part of it")
                if where is not node:
                    how = f"{how} (one fix for the transform of each branch of this statement)"
            else:
                how = "every use of the variable takes a real part of it"
            self.found(where, f"{self._why(name)}; {how}, computed as cosine and sine matrix products while "
                             f"exporting (`{name}` otherwise)",
                       Fix(replacements, safety=Safety.UNSAFE, helpers=helpers))
            return
        if id(node) in self._kept_pairs:
            self._claimed.add(id(node))
            self.found(node, f"{_PAIRS_WHY}; every read of the variable takes a real part of it, taken of the real "
                             "pairs while exporting (`torch.view_as_complex` and the part otherwise)",
                       Fix(self._kept_pairs.pop(id(node)), safety=Safety.UNSAFE, helpers=(COMPLEX_HELPER, PART_HELPER)))
            return
        inverse = self.context.refers_to(node.func, *INVERSE_REAL)
        if inverse is not None:
            self._inverse(node, inverse)
            return
        func = node.func
        if len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
            part = self.context.refers_to(func, *_PART_FUNCTIONS)
            if part is None and builtin_abs(func, self.context):
                part = "torch.abs"  # (the built-in `abs` of a tensor is its `abs()`)
            if part is not None and self._transform(node.args[0].value) is not None:
                self._take(node, node.args[0].value, _PART_FUNCTIONS[part])
                return
            if part is not None and self._pairs_of(node.args[0].value) is not None:
                self._take_pairs(node, node.args[0].value, _PART_FUNCTIONS[part])  # type: ignore[arg-type]
                return
        if (not node.args and type(func) is cst.Attribute and func.attr.value in _PART_METHODS
                and self._transform(func.value) is not None):
            self._take(node, func.value, _PART_METHODS[func.attr.value])  # type: ignore[arg-type]
            return
        if (not node.args and type(func) is cst.Attribute and func.attr.value in _PART_METHODS
                and self._pairs_of(func.value) is not None):
            self._take_pairs(node, func.value, _PART_METHODS[func.attr.value])  # type: ignore[arg-type]
            return
        shift = self.context.refers_to(func, *SHIFTS)
        if shift is not None:
            self._shift(node, shift)
            return
        if real_pairs_stft(node, self.context):
            helper = TRANSFORMS["torch.stft"]
            replacement = cst.Call(func=cst.Name(helper), args=[cst.Arg(value=cst.SimpleString('"view_as_real"')),
                                                                 *node.args])
            self.found(node, "`torch.stft(..., return_complex=False)` exports as ONNX STFT, which TensorRT parses only "
                             f"from 10.15 (and 8.x not at all); `{helper}` computes the same real and imaginary pairs as "
                             "cosine and sine matrix products while exporting (`torch.stft` itself otherwise)",
                       Fix({node: replacement}, safety=Safety.UNSAFE, helpers=(helper,)))
            return
        name = self._transform(node)
        if name is not None and name != "torch.stft":  # (TRT706 names a `torch.stft` no fix takes)
            self.found(node, f"{self._why(name)}; not rewritten: its complex result is used as such (only "
                             "`torch.view_as_real`, `.real`, `.imag`, `.abs()` and `torch.angle` of it are, also "
                             "through products with real tensors or numbers and further complex transforms)")

    def _inverse(self, node: cst.Call, name: str) -> None:
        """``irfftn(torch.complex(re, im), s=..., dim=..., norm=...)``, the complex input written
        there or kept in a variable: the transform becomes its helper and the call that makes
        the input ``_trt_complex``/``_trt_view_as_complex``, which remember the real tensors it
        was made of while exporting. Any other input is TRT706's (reported there)."""
        if not takes_inverse_real(node, self.context, set(self._inverse_inputs)):
            return
        helper = INVERSE_REAL[name]
        first = node.args[0]
        maker = complex_maker(first.value, self.context)
        if maker is not None:
            inner = first.value.with_changes(func=cst.Name(COMPLEX_MAKERS[maker]))  # type: ignore[union-attr]
            replacements: dict[cst.CSTNode, cst.CSTNode] = {
                node: node.with_changes(func=cst.Name(helper), args=[first.with_changes(value=inner), *node.args[1:]])}
            helpers: tuple[str, ...] = (helper, COMPLEX_MAKERS[maker])
        else:
            replacements = {node: node.with_changes(func=cst.Name(helper))}
            helpers = (helper,)
            for call in self._inverse_inputs.pop(id(node)):
                if id(call) in self._claimed:
                    continue
                self._claimed.add(id(call))
                made_by = COMPLEX_MAKERS[complex_maker(call, self.context)]  # type: ignore[index]
                replacements[call] = call.with_changes(func=cst.Name(made_by))
                helpers += (made_by,)
        short = name.replace("torch.fft.", "")
        self.found(node, f"{self._why(name)}; its input is made from real tensors, so its real output is computed "
                         "from them as cosine and sine matrix products while exporting (the Hermitian half "
                         f"spectrum on the last axis; `torch.fft.{short}` otherwise)",
                   Fix(replacements, safety=Safety.UNSAFE, helpers=tuple(dict.fromkeys(helpers))))

    def _chain(self, chain: dict[cst.CSTNode, str]) -> None:
        """One fix for a complex pipeline (:func:`spectral_chains`): each inverse real transform
        becomes its helper, each transform its helper with the ``"tracked"`` part (torch's complex
        transform; while exporting a complex tensor remembering its parts, computed as
        products), each product ``_trt_complex_mul(a, b)`` (``a * b``; while exporting, from the
        parts), each quotient ``_trt_complex_div(a, b)``, each ``torch.complex``/
        ``view_as_complex`` its helper, and each part read of the spectrum the transform's helper
        with that part (``ifft2(y).real`` → ``_trt_ifft2("real", y)``) or ``_trt_dft_part(z,
        part)``: the roots then compute their output from real tensors only. A node an earlier
        chain rewrote is not rewritten twice."""
        kinds: dict[int, str] = {}
        nodes: list[cst.CSTNode] = []
        for inner, kind in chain.items():
            if id(inner) in self._claimed:
                continue
            self._claimed.add(id(inner))
            kinds[id(inner)] = kind
            nodes.append(inner)
        helpers: list[str] = []
        extra: dict[cst.CSTNode, cst.CSTNode] = {}
        originals = {id(n): n for n in nodes}

        def rebuilt(original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
            kind = kinds[id(original)]
            if kind == "inverse":
                helper = INVERSE_REAL[inverse_real(original, self.context)]  # type: ignore[index]
                helpers.append(helper)
                return updated.with_changes(func=cst.Name(helper))  # type: ignore[attr-defined]
            if kind == "part:abs-argument":  # a function reads it only through abs: its magnitude while exporting
                helpers.append(ABS_ARGUMENT_HELPER)
                return cst.Call(func=cst.Name(ABS_ARGUMENT_HELPER), args=[cst.Arg(value=updated)])  # type: ignore[arg-type]
            if kind.startswith("part:"):
                return self._chain_part(original, updated, kind[5:], kinds, helpers)
            if kind in ("product", "quotient"):
                helper = PRODUCT_HELPER if kind == "product" else QUOTIENT_HELPER
                helpers.append(helper)
                return cst.Call(func=cst.Name(helper), args=[
                    cst.Arg(value=updated.left), cst.Arg(value=updated.right)])  # type: ignore[attr-defined]
            if kind == "put":  # `xf[m] = 0` → `xf = _trt_complex_put(xf, m, 0)`: the same tensor written in place
                helpers.append(PUT_HELPER)
                target = updated.targets[0].target  # type: ignore[attr-defined]
                return cst.Assign(targets=[cst.AssignTarget(target=target.value.deep_clone())], value=cst.Call(
                    func=cst.Name(PUT_HELPER), args=[cst.Arg(value=target.value.deep_clone()),
                                                     cst.Arg(value=target.slice[0].slice.value),
                                                     cst.Arg(value=updated.value)]))  # type: ignore[attr-defined]
            if kind == "shape-read":
                helpers.append(SHAPE_HELPER)
                whole = cst.Call(func=cst.Name(SHAPE_HELPER), args=[cst.Arg(value=cst.Name(_size_read_name(original)))])
                if type(original) is cst.Call and original.args:  # `z.size(d)`: that size of the shape
                    return cst.Subscript(value=whole, slice=[cst.SubscriptElement(
                        slice=cst.Index(value=updated.args[0].value))])  # type: ignore[attr-defined]
                return whole
            if kind == "shaped":
                helpers.append(SHAPED_HELPER)
                method = cst.SimpleString(f'"{updated.func.attr.value}"')  # type: ignore[attr-defined]
                return cst.Call(func=cst.Name(SHAPED_HELPER), args=[
                    cst.Arg(value=updated.func.value), cst.Arg(value=method),  # type: ignore[attr-defined]
                    *updated.args])  # type: ignore[attr-defined]
            if kind == "conjugate":
                helpers.append(CONJ_HELPER)
                physical = conjugate_of(original, self.context)[1]  # type: ignore[index]
                operand = updated.func.value if type(updated.func) is cst.Attribute \
                    and not updated.args else updated.args[0].value  # type: ignore[attr-defined]
                args = [cst.Arg(value=operand)]
                if physical:
                    args.append(cst.Arg(value=cst.Name("True")))
                return cst.Call(func=cst.Name(CONJ_HELPER), args=args)
            if kind == "maker":
                made_by = COMPLEX_MAKERS[complex_maker(original, self.context)]  # type: ignore[index]
                helpers.append(made_by)
                return updated.with_changes(func=cst.Name(made_by))  # type: ignore[attr-defined]
            transform = self._transform(original)  # type: ignore[arg-type]
            helpers.append(TRANSFORMS[transform])  # type: ignore[index]
            if id(original) in self._complex_inputs and not real_input(transform):  # type: ignore[union-attr]
                extra.update(self._complex_inputs.pop(id(original)))
                helpers.append(COMPLEX_HELPER)
            return cst.Call(func=cst.Name(TRANSFORMS[transform]),  # type: ignore[index]
                            args=self._arguments(original, transform, "tracked", updated))  # type: ignore[arg-type]

        inside: set[int] = set()
        for outer in nodes:
            inside.update(id(inner) for inner in walk(outer) if inner is not outer)
        replacements: dict[cst.CSTNode, cst.CSTNode] = {}
        for outer in nodes:
            if id(outer) not in inside:
                replacements[outer] = outer.visit(_Rebuild(originals, rebuilt))  # type: ignore[assignment]
        replacements.update(extra)
        self._chained.update(kinds)
        # The finding is placed on the chain's first transform: the export stops there first.
        where = next((n for n in nodes if kinds[id(n)] == "transform"), nodes[0])
        inverse = next((n for n in nodes if kinds[id(n)] == "inverse"), None)
        first = self._transform(where) if where is not inverse \
            else inverse_real(where, self.context)  # type: ignore[arg-type]
        if inverse is not None:
            how = (f"its result reaches `{inverse_real(inverse, self.context)}` through a product of spectra (forward "
                   "transforms of real tensors, real or complex factors made from real parts), so the transforms, the "
                   "products and the inverse's real output are computed from real and imaginary parts")
        else:
            how = ("its complex result reaches a real part (`.real`, `.imag`, `abs`, `angle`, `view_as_real`) through "
                   "products, quotients by real tensors or numbers, reshapes and complex transforms, so the transforms, "
                   "the products and the part are computed from real and imaginary parts")
        self.found(where, f"{self._why(first)}; {how} as cosine and sine matrix products while exporting (the torch "
                          "functions and `*` otherwise)",
                   Fix(replacements, safety=Safety.UNSAFE, helpers=tuple(dict.fromkeys(helpers))))

    def _chain_part(self, original: cst.CSTNode, updated: cst.CSTNode, part: str, kinds: dict[int, str],
                    helpers: list[str]) -> cst.CSTNode:
        """A part read in a chain: of a transform written there, that transform's helper with the
        part (``ifft2(x_fft * lg).real`` → ``_trt_ifft2("real", _trt_complex_mul(x_fft, lg))``);
        of anything else (a name, a product), ``_trt_dft_part(z, "tracked:<part>")``, which is
        torch's part of whatever tensor the name holds when it runs (a spectrum the helpers made
        while exporting: from its remembered parts)."""
        operand = part_of(original, self.context)[0]  # type: ignore[index]
        if type(updated) is cst.Attribute:
            value = updated.value
        elif type(updated.func) is cst.Attribute and not updated.args:  # type: ignore[attr-defined]
            value = updated.func.value  # type: ignore[attr-defined]
        else:
            value = updated.args[0].value  # type: ignore[attr-defined]
        if kinds.get(id(operand)) == "transform" and type(value) is cst.Call and value.args \
                and type(value.args[0].value) is cst.SimpleString:
            first = value.args[0].value.value.strip('"')  # "tracked", or "pairs:tracked"
            read = f"pairs:{part}" if first.startswith("pairs:") else part
            return value.with_changes(args=[value.args[0].with_changes(value=cst.SimpleString(f'"{read}"')),
                                            *value.args[1:]])
        helpers.append(PART_HELPER)
        return cst.Call(func=cst.Name(PART_HELPER), args=[cst.Arg(value=value),
                                                          cst.Arg(value=cst.SimpleString(f'"tracked:{part}"'))])

    def _shift(self, node: cst.Call, name: str) -> None:
        message = (f"the TorchScript exporter has no ONNX symbolic for `{name}` (aten::fft_{name.rsplit('.', 1)[1]}), "
                   "so the model does not export")
        if has_star_args(node) or not node.args or len(node.args) > 2:
            self.found(node, f"{message}; not rewritten: other arguments")
            return
        helper = SHIFTS[name]
        self.found(node, f"{message}; the same reordering is taken as slices and a concatenation while exporting "
                         f"(`{name}` otherwise)",
                   Fix({node: node.with_changes(func=cst.Name(helper))}, safety=Safety.UNSAFE, helpers=(helper,)))

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self._chains:  # (a spectrum passed to a function that reads it only through abs)
            self._chain(self._chains.pop(id(node)))

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if id(node) in self._chains:
            self._chain(self._chains.pop(id(node)))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if id(node) in self._chains:
            self._chain(self._chains.pop(id(node)))
            return
        if id(node) in self._chained:
            return
        if node.attr.value in _PART_ATTRIBUTES and self._transform(node.value) is not None \
                and id(node.value) not in self._taken:
            self._take(node, node.value, _PART_ATTRIBUTES[node.attr.value])  # type: ignore[arg-type]
            return
        if node.attr.value in _PART_ATTRIBUTES and self._pairs_of(node.value) is not None:
            self._take_pairs(node, node.value, _PART_ATTRIBUTES[node.attr.value])  # type: ignore[arg-type]


class _Rebuild(cst.CSTTransformer):
    """Rebuilds a subtree, each node of ``originals`` (by id) replaced by ``rebuilt(original,
    updated)``, its own children already rebuilt (a product of transforms, nested in an inverse)."""

    def __init__(self, originals: dict[int, cst.CSTNode], rebuilt) -> None:
        super().__init__()
        self._originals = originals
        self._rebuilt = rebuilt

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        if id(original_node) in self._originals:
            return self._rebuilt(original_node, updated_node)
        return updated_node


RULES = (DftMatmul,)
