"""ONNX export with the TorchScript or dynamo exporter, warnings captured.

The TorchScript exporter runs with ``verbose=True`` so every node's ``doc_string``
carries the Python stack that produced it (the static check maps nodes to lines
from it). Exporter warnings are recorded: a ``TracerWarning`` names the line where
tracing turned a tensor into a Python value, i.e. where something got baked in.
Runs inside a worker process: imports torch.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import os
import re
import sys
import time
import traceback
import warnings
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import torch

from trtcodemod.helpers import RESERVED_PREFIX
from trtcodemod.usercode import UserFiles, at_user_line, innermost, module_file, user_frames_on_stack
from trtcodemod.verify.input_free import InputReach


@dataclass
class ExportResult:
    exporter: str
    path: str | None
    error: str | None = None
    #: ``{"category", "message", "file", "line"}`` for the warnings worth showing.
    warnings: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


def _keep_warning(w: warnings.WarningMessage, user: UserFiles) -> bool:
    """Tracer warnings, and anything raised from the user's own files; not torch's deprecations."""
    return w.category.__name__ == "TracerWarning" or user(str(w.filename))


def export_model(
    model: torch.nn.Module,
    args: tuple[torch.Tensor, ...],
    path: Path,
    *,
    exporter: str,
    input_names: list[str],
    output_names: list[str],
    dynamic_axes: Mapping[str, Mapping[int, str]],
    opset: int,
    user_roots: tuple[str, ...] = (),
) -> ExportResult:
    """Export ``model`` traced on ``args`` to ``path``; an exception becomes ``error``."""
    start = time.perf_counter()
    result = ExportResult(exporter=exporter, path=None)
    axes = {k: dict(v) for k, v in dynamic_axes.items()}
    caught: list[tuple[warnings.WarningMessage, tuple[str, int] | None, tuple[str, int] | None]] = []
    user = UserFiles(user_roots)

    #: What each caught warning's conversion returned (the number a trace baked), by index.
    values: list[list[Any]] = []
    #: Whether each caught warning's conversion read a value that reaches no model input, by index.
    free: dict[int, bool | None] = {}

    def record(message: Any, category: type, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
        # Called synchronously by warnings.warn: the user's frames are still on the stack.
        frames = user_frames_on_stack(user, 1)
        filename, lineno = _issuer(filename, lineno)
        caught.append((warnings.WarningMessage(message, category, filename, lineno, file, line),
                       frames[0] if frames else None, frames[1] if len(frames) > 1 else None))
        values.append([])

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = record
        try:
            with torch.no_grad(), _baked_numbers(values, free, _tensor_count(args)) if exporter == "torchscript" \
                    else contextlib.nullcontext():
                if exporter == "torchscript":
                    torch.onnx.export(
                        model, args, str(path), dynamo=False, verbose=True,
                        input_names=input_names, output_names=output_names,
                        dynamic_axes=axes or None, opset_version=opset, do_constant_folding=True,
                    )
                elif exporter == "dynamo":
                    # dynamic_axes is converted to dynamic_shapes by torch; output names stay dynamo's.
                    with contextlib.redirect_stdout(None):
                        program = torch.onnx.export(
                            model, args, dynamo=True, input_names=input_names,
                            dynamic_axes=axes or None, opset_version=opset, verbose=False,
                        )
                    program.save(str(path), external_data=False)
                    _copy_passthrough_outputs(path)
                else:
                    raise ValueError(f"unknown exporter {exporter!r}")
            result.path = str(path)
        except Exception as exc:  # the exporter's own failure is a result to report
            result.error = f"{type(exc).__name__}: {_first_lines(str(exc))}"
            where = _user_line_of(exc, user)
            if where is None and _COMPLEX_CONSTANT in str(exc):
                where = _complex_constant_site(model, args, user)
            if where is None and _unsupported_op(exc):
                # The exporter fails converting the traced graph, after the user's frames are
                # gone: run the model once more to find the user's call that reaches the op.
                where = _user_call_of(model, args, _unsupported_op(exc), user, _argument_kinds(exc))
            if _failed_operator(exc) and (where is None or _REFUSED_OPERATOR.search(str(exc))) \
                    and innermost(_node_frames(exc), user) is None:
                # A TorchScript function's call runs in no Python frame and its node's stack is torch's (`F.threshold`
                # inlined); the message's "Caused by the value" names where the refused input was made, not the call.
                where = _scripted_call_of(_failed_operator(exc), user) or where
            if where:
                # Dynamo and torch.export errors are long; the user's line is what to look at.
                result.error += at_user_line(where)
            result.warnings.append({"category": "traceback", "message": traceback.format_exc()[-4000:],
                                    "file": None, "line": None})
    seen: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    for index, ((w, at, caller), numbers) in enumerate(zip(caught, values)):
        if not _keep_warning(w, user):
            continue
        # A TracerWarning is issued from torch's own code (torch/_tensor.py); the line to
        # show is the user's line that called it.
        file, line = at if at else (str(w.filename), int(w.lineno))
        key = (w.category.__name__, str(w.message), file, line)
        if key in seen:
            callers = seen[key].get("callers")
            if caller is not None and callers is not None and list(caller) not in callers \
                    and len(callers) < _CALLERS_KEPT:
                callers.append(list(caller))
            kept = seen[key].get("values")
            if kept is not None and len(kept) < _VALUES_KEPT:
                kept.extend(numbers[:_VALUES_KEPT - len(kept)])
            if "input_free" in seen[key]:
                seen[key]["input_free"] = seen[key]["input_free"] and free.get(index) is True
            continue
        entry = {"category": w.category.__name__, "message": _first_lines(str(w.message), 1),
                 "file": file, "line": line, "origin": f"{w.filename}:{w.lineno}"}
        if w.category.__name__ == "TracerWarning" and numbers:
            entry["values"] = numbers[:_VALUES_KEPT]
        if w.category.__name__ == "TracerWarning" and index in free:
            entry["input_free"] = free[index] is True
        if w.category.__name__ == "TracerWarning" and at is not None:
            # The user's lines that called the function holding the warned line (a check function's
            # callers: whether they use its result): [file, line] each, None where none is known.
            entry["callers"] = [list(caller)] if caller is not None else [None]
        seen[key] = entry
        result.warnings.append(entry)
    result.seconds = time.perf_counter() - start
    return result


#: How many distinct calling lines a warning keeps.
_CALLERS_KEPT = 8
#: How many baked numbers a warning keeps (a loop's line converts once per trip).
_VALUES_KEPT = 64
#: The tensor methods that turn a traced tensor into a Python value (and warn while tracing).
_CONVERSIONS = ("__int__", "__index__", "__float__", "__bool__", "item", "tolist")
#: The conversions that return a number (or numbers), which Python may carry into a constant of the trace.
_NUMBER_READS = ("__int__", "__index__", "__float__", "item", "tolist")
#: The tensor methods that read a size into Python (and warn while tracing): their warnings get a verdict on the
#: inputs (:class:`InputReach`), no baked number.
_SIZE_READS = ("__len__", "__iter__")


#: The comparisons whose 0-d result a trace may turn into a Python bool (``if h > 32:``, ``max(a, b)``).
_COMPARED = ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__")


def _tensor_count(args: Any) -> int:
    """How many tensors the exporter's trace takes as the model's inputs (its first graph inputs)."""
    leaves = torch.utils._pytree.tree_leaves(args)
    return sum(isinstance(leaf, torch.Tensor) for leaf in leaves)


@contextlib.contextmanager
def _baked_numbers(values: list[list[Any]], free: dict[int, bool | None] | None = None, inputs: int = 0):
    """While the trace runs, the Python value each warning conversion returned, kept with the
    warning it raised: the number the graph holds as a constant (``self.nc = int(x.shape[1])``
    gives 3 at every size, a height 128 at one trace and 257 at the next).

    A bool says too little (``h > 32`` is True at both heights 128 and 257), so where the bool is
    that of a traced comparison of numbers, what is kept is the two numbers it compared (``[128,
    32]``): SAM's ``max(k_size / q_size, 1.0)`` on a static token grid compares ``[1.0, 1.0]`` at
    every batch, a ``shape[0] == 1`` on the batch ``[1, 1]`` at one and ``[3, 1]`` at the next.

    ``free``: for each warning a conversion raised, whether the value it read reaches none of the
    trace's first ``inputs`` graph inputs (:class:`~trtcodemod.verify.input_free.InputReach`).

    The methods are wrapped on ``torch.Tensor`` for the export only and restored after it.
    """
    reach = InputReach(inputs)
    wrapped = [name for name in _CONVERSIONS if name not in torch.Tensor.__dict__]
    comparisons = [name for name in _COMPARED if name not in torch.Tensor.__dict__]
    #: id of a comparison's 0-d result -> (a weak reference to it, the numbers it compared).
    compared: dict[int, tuple[Any, list[Any]]] = {}

    def wrap(name: str, original: Any) -> Any:
        def converted(self: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
            before = len(values)
            value = original(self, *args, **kwargs)
            if len(values) > before:  # this conversion warned: its result is what the trace baked
                held = compared.get(id(self)) if name == "__bool__" else None
                if name not in _SIZE_READS:
                    values[-1].append(held[1] if held is not None and held[0]() is self else _plain(value))
                if free is not None:
                    free[len(values) - 1] = reach.read(self, name in _NUMBER_READS)
            return value

        return converted

    def compare(original: Any) -> Any:
        def comparison(self: torch.Tensor, other: Any) -> Any:
            result = original(self, other)
            if isinstance(result, torch.Tensor) and torch._C._get_tracing_state() is not None and result.dim() == 0:
                numbers = _compared_numbers(self, other)
                if numbers is not None:
                    compared[id(result)] = (weakref.ref(result), numbers)
            return result

        return comparison

    # torch.Tensor defines these itself (torch/_tensor.py): replaced, then put back as they were.
    own = {name: torch.Tensor.__dict__[name] for name in _SIZE_READS if free is not None and name in torch.Tensor.__dict__}
    for name in wrapped:
        setattr(torch.Tensor, name, wrap(name, getattr(torch.Tensor, name)))
    for name in comparisons:
        setattr(torch.Tensor, name, compare(getattr(torch.Tensor, name)))
    for name, original in own.items():
        setattr(torch.Tensor, name, wrap(name, original))
    try:
        yield
    finally:
        for name in wrapped + comparisons:
            delattr(torch.Tensor, name)
        for name, original in own.items():
            setattr(torch.Tensor, name, original)
        compared.clear()


def _compared_numbers(*operands: Any) -> list[Any] | None:
    """The numbers two operands of a traced comparison hold (a 0-d or one-element tensor read with
    the trace paused, so nothing is recorded or warned); None where one is not a number."""
    numbers = []
    state = torch._C._get_tracing_state()
    torch._C._set_tracing_state(None)
    try:
        for operand in operands:
            if isinstance(operand, torch.Tensor):
                if operand.numel() != 1 or operand.dtype == torch.bool or operand.is_complex() \
                        or _transformed(operand):
                    return None
                operand = operand.item()
            if isinstance(operand, bool) or not isinstance(operand, (int, float)):
                return None
            numbers.append(operand)
    finally:
        torch._C._set_tracing_state(state)
    return numbers


def _transformed(tensor: torch.Tensor) -> bool:
    """A tensor inside a functorch transform (``vmap``, as ``create_block_mask`` runs a mask
    function): reading its value would raise there, where the model's own code would not."""
    wrapped = getattr(torch._C._functorch, "is_functorch_wrapped_tensor", None)
    return bool(wrapped is not None and wrapped(tensor))


def _issuer(filename: str, lineno: int) -> tuple[str, int]:
    """The line that issued a warning: ``filename:lineno`` as the warning names it, except where that
    is :func:`_baked_numbers`'s wrapper of a tensor conversion (the warning is issued one frame up,
    which is the wrapper while it is installed): then the line that called the conversion (torch's
    ``if size_prods == 1: raise`` in ``F.group_norm``), so that the check it stands in is found."""
    if os.path.realpath(filename) != os.path.realpath(__file__):
        return filename, lineno
    frame, frame_file = sys._getframe(1), _issuer.__code__.co_filename
    while frame is not None and not (frame.f_code.co_name == "converted"
                                     and frame.f_code.co_filename == frame_file):
        frame = frame.f_back
    caller = frame.f_back if frame is not None else None
    return (caller.f_code.co_filename, caller.f_lineno) if caller is not None else (filename, lineno)


def _plain(value: Any) -> Any:
    """A JSON value for a baked number: bools, ints and floats as they are, lists kept short."""
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, list):
        return [_plain(v) for v in value[:16]]
    return repr(value)[:80]


def _copy_passthrough_outputs(path: "os.PathLike[str] | str") -> None:
    """Give an input returned as it is its own output name.

    The dynamo exporter writes such an output (a state the frame passes on, as CenterTrack's
    previous image) as ``Identity(x) -> x``, a second definition of the input ``x`` that ONNX
    Runtime rejects; the node's output (and the graph output) becomes ``x_out``.
    """
    import onnx

    model = onnx.load(str(path))
    graph = model.graph
    inputs = {i.name for i in graph.input}
    renamed = {}
    for node in graph.node:
        for k, name in enumerate(node.output):
            if name in inputs:
                renamed[name] = node.output[k] = f"{name}_out"
    for output in graph.output:
        if output.name in renamed:
            output.name = renamed[output.name]
    if renamed:
        onnx.save(model, str(path))


def _user_frame(user: UserFiles) -> tuple[str, int] | None:
    """The innermost frame of the user's code on the stack of the torch call being recorded,
    outside the helpers trtcodemod inserted (their caller is the line to act on).

    Innermost, wherever the user's files lie: a library helper on ``PYTHONPATH`` that calls
    the op is the line, not the wrapper in the model's folder that called it.
    """
    frame = sys._getframe(2)
    while frame is not None:
        if user(frame.f_code.co_filename) and not frame.f_code.co_name.startswith(RESERVED_PREFIX):
            return os.path.realpath(frame.f_code.co_filename), frame.f_lineno
        frame = frame.f_back
    return None


_FRAME_TEXT = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
#: A TorchScript graph node's stack (``Node.sourceRange()``), innermost first: one
#: ``/path/m.py(12): blur`` line per frame.
_NODE_FRAME = re.compile(r"(?P<file>[^\s()'\"]+\.py)\((?P<line>\d+)\): (?P<function>\w+)")


def _user_line_of(exc: BaseException, user: UserFiles) -> tuple[str, int] | None:
    """The innermost line of the user's code behind an exporter failure, if any names one.

    The Python traceback has it when tracing ran the user's code; dynamo and ``torch.export``
    errors (a data-dependent guard) quote it in their message ("from user code: File ..."); a
    TorchScript symbolic's failure has it in the graph node it was converting.
    """
    # A frame inside a helper trtcodemod inserted is not the line to act on: its caller is.
    candidates = [(f.filename, f.lineno or 0) for f in traceback.extract_tb(exc.__traceback__)
                  if not f.name.startswith(RESERVED_PREFIX)]
    text = "\n".join(str(e) for e in _chain(exc))
    candidates += [(m["file"], int(m["line"])) for m in _FRAME_TEXT.finditer(text)]
    candidates += _node_frames(exc)
    return innermost(candidates, user)


def _node_frames(exc: BaseException) -> list[tuple[str, int]]:
    """The stack (outermost first) of the graph node a TorchScript symbolic function failed on.

    The symbolic runs after tracing, so no user frame is on the Python stack; the node being
    converted (the ``node`` local of torch's symbolic dispatch) keeps the stack that made it.
    The message names another value (the conv's input, for a weight of unknown shape), so
    the node itself is the one to ask.
    """
    frames: list[tuple[str, int]] = []
    for error in _chain(exc):
        tb = error.__traceback__
        while tb is not None:
            node = tb.tb_frame.f_locals.get("node")
            if isinstance(node, torch._C.Node):
                stack = [(m["file"], int(m["line"])) for m in _NODE_FRAME.finditer(node.sourceRange())
                         if not m["function"].startswith(RESERVED_PREFIX)]
                frames += reversed(stack)
            tb = tb.tb_next
    return frames


_UNSUPPORTED = re.compile(r"operator '(?:aten|prim)::(?P<op>\w+)'")

#: The TorchScript exporter's words for a Python complex number the trace kept as a constant (``x + 1j * y``).
_COMPLEX_CONSTANT = "Unknown number type: complex"
#: A traced graph node's source comment (``# /path/heads.py:67:0``).
_NODE_SOURCE = re.compile(r"# (?P<file>[^\n#]+?):(?P<line>\d+):\d+\s*$")


def _complex_constant_site(model: torch.nn.Module, args: tuple[Any, ...], user: UserFiles) -> tuple[str, int] | None:
    """The user's line where the trace kept a Python complex number as a constant (vocos' ISTFT head, ``S = mag *
    (x + 1j * y)``): the exporter fails on it in a graph pass after tracing, so no user frame is on the stack; a
    trace of its own (one more forward) shows the constant's node and the line that made it."""
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            traced = torch.jit.trace(model, args, check_trace=False, strict=False)
        nodes = list(traced.inlined_graph.nodes())
    except Exception:  # noqa: BLE001 - no second trace, no line: the error stands as it is
        return None
    for node in nodes:
        text = str(node).strip()
        # The node's printed type (``%10 : ComplexDouble(...) = prim::Constant[value={(0,1)}]()``): its Value's type
        # object says only ``Tensor`` in the inlined graph.
        if node.kind() != "prim::Constant" or "Complex" not in text.split("=", 1)[0]:
            continue
        found = _NODE_SOURCE.search(text)
        if found and user(found["file"]):
            return os.path.realpath(found["file"]), int(found["line"])
    return None


#: The TorchScript exporter's alias analysis on an op it has no schema for with these argument types (egnn-pytorch's
#: ``adj_mat.masked_fill(self_mask, False)``: a Python bool fill, zoo 45), after the user's frames are gone.
_NO_SCHEMA = re.compile(r"We don't have an op for (?:aten|prim)::(?P<op>\w+) but it isn't a special case\.\s*"
                        r"Argument types: (?P<kinds>[\w ,\[\]()?]*?),?\s*(?:Candidates|$)")


def _unsupported_op(exc: BaseException) -> str | None:
    """The aten op named by the exporter's ``UnsupportedOperatorError`` (``isin``), or by its alias analysis's
    assertion on an op it has no schema for (:data:`_NO_SCHEMA`), if that is the error."""
    from torch.onnx.errors import UnsupportedOperatorError

    if isinstance(exc, UnsupportedOperatorError):
        match = _UNSUPPORTED.search(str(exc))
        return match["op"] if match else None
    match = _NO_SCHEMA.search(str(exc))
    return match["op"] if match else None


#: A symbolic's refusal of one operator's arguments ("Unsupported: ONNX export of operator threshold, non-zero value").
_REFUSED_OPERATOR = re.compile(r"\bONNX export of operator (?P<op>[a-z_][a-z0-9_]*)\b")


def _failed_operator(exc: BaseException) -> str | None:
    """The aten op the export failed on, by either of the exporter's ways of naming it."""
    found = _unsupported_op(exc)
    if found is not None:
        return found
    match = _REFUSED_OPERATOR.search(str(exc))
    return match["op"] if match else None


def _scripted_call_of(op: str, user: UserFiles) -> tuple[str, int] | None:
    """The user's line in a TorchScript function (``@torch.jit.script``, in a module the model imported) that calls
    torch's ``op``: empanada's ``F.threshold(ctr_hmp, threshold, -1.)`` inside its scripted ``find_instance_center``.
    Once run, the function's graph has its callees inlined with their own stacks (``F.threshold``'s node is at
    torch's ``functional.py``), so the function's source says where: the first call in its body named ``op``, by
    function or method name (``F.threshold``, ``torch.isin``, ``x.isin``)."""
    for module in list(sys.modules.values()):
        path = module_file(module)
        if path is None or not path.endswith(".py") or not user(path):
            continue
        try:
            namespace = dict(object.__getattribute__(module, "__dict__"))
        except Exception:  # noqa: BLE001 - an object in sys.modules that is no module
            continue
        scripted = sorted(name for name, value in namespace.items() if isinstance(value, torch.jit.ScriptFunction))
        if not scripted:
            continue
        real = os.path.realpath(path)
        try:
            mtime = os.stat(real).st_mtime
        except OSError:
            continue
        calls = _calls_by_function(real, mtime, op.strip("_"))
        lines = [line for name in scripted for line in calls.get(name, ())]
        if lines:
            return real, min(lines)
    return None


@functools.lru_cache(maxsize=64)
def _calls_by_function(path: str, mtime: float, op: str) -> dict[str, tuple[int, ...]]:
    """Per module-level function of ``path``, the lines of its calls named ``op``."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return {}
    found: dict[str, tuple[int, ...]] = {}
    for function in tree.body:
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        # A helper trtcodemod put in for the call (`_trt_threshold`) keeps its line: the user's call, rewritten.
        lines = sorted(node.lineno for node in ast.walk(function) if isinstance(node, ast.Call)
                       and _called_name(node.func).removeprefix(RESERVED_PREFIX).strip("_") == op)
        if lines:
            found[function.name] = tuple(lines)
    return found


def _called_name(func: ast.expr) -> str:
    """The name a call is made by: ``threshold`` of ``F.threshold(...)``, ``isin`` of ``isin(...)``."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _argument_kinds(exc: BaseException) -> list[str] | None:
    """The argument types :data:`_NO_SCHEMA`'s message lists (``["Tensor", "Tensor", "bool"]``), if it does."""
    match = _NO_SCHEMA.search(str(exc))
    return [kind.strip() for kind in match["kinds"].split(",") if kind.strip()] if match else None


def _matches_kinds(args: tuple, kinds: list[str] | None) -> bool:
    """Do the call's positional arguments (the receiver first) have the leading ``kinds`` the exporter named? It names
    every argument of the schema, those given by keyword or left to their defaults too (``torch.full((n, n), False,
    device=d)``: ``int[], bool, NoneType, NoneType, Device, bool``)."""
    if kinds is None:
        return True
    if len(args) > len(kinds):
        return False
    checks = {"Tensor": lambda a: isinstance(a, torch.Tensor), "bool": lambda a: isinstance(a, bool),
              "int": lambda a: isinstance(a, int) and not isinstance(a, bool),
              "float": lambda a: isinstance(a, float)}
    return all(checks.get(kind, lambda a: True)(arg) for arg, kind in zip(args, kinds))


def _user_call_of(model: torch.nn.Module, args: tuple[Any, ...], op: str, user: UserFiles,
                  kinds: list[str] | None = None) -> tuple[str, int] | None:
    """The innermost user line of the first call of torch's ``op`` in one forward of ``model``.

    A ``TorchFunctionMode`` sees every torch function and tensor method by its Python name,
    which is the aten op's (``torch.isin`` is ``aten::isin``, ``torch.fft.rfft`` is
    ``fft_rfft``), whatever name the user's imports gave it. ``kinds``: only a call whose positional
    arguments have these types (the exporter's "Argument types" list).
    """
    from torch.overrides import TorchFunctionMode

    class Calls(TorchFunctionMode):
        found: tuple[str, int] | None = None

        def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
            name = getattr(func, "__name__", "").strip("_")  # `masked_fill_` is `aten::masked_fill_`
            if self.found is None and name == op.strip("_") and _matches_kinds(args, kinds):
                self.found = _user_frame(user)
            return func(*args, **(kwargs or {}))

    calls = Calls()
    try:
        with torch.no_grad(), calls:
            model(*args)
    except Exception:  # noqa: BLE001 - the export's own error is what gets reported
        pass
    return calls.found


def _chain(exc: BaseException) -> list[BaseException]:
    out, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        out.append(exc)
        exc = exc.__cause__ or exc.__context__
    return out


def _first_lines(text: str, n: int = 3) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " ".join(lines[:n])[:600]
