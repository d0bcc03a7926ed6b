"""Which attributes are per-frame state, and what they look like: static reads/writes plus a run.

State is an attribute that forward writes and also reads, so a later call sees the value an
earlier one left (``self.prev_bev``, ``self.frame += 1``). The run over a few frames gives each
state's first-frame value (None, a number, a tensor), its dtype, and its shape as code over
forward's inputs: an axis whose size follows an input axis that varied between the frames is
written ``image.shape[0]``, any other axis is the size seen.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Sequence

import libcst as cst

from trtcodemod.astutil import walk

from .contract import Dim
from .lift import LiftState, _functions, _self_attr, _writes


def forward_methods(module: cst.Module, cls_name: str) -> list[cst.FunctionDef]:
    """``cls_name.forward`` and the methods it calls as ``self.m(...)``, in call order; [] without forward."""
    cls = next((s for s in module.body if type(s) is cst.ClassDef and s.name.value == cls_name), None)
    methods = _functions(cls.body) if cls is not None else {}
    forward = methods.get("forward")
    if forward is None:
        return []
    return [forward, *(methods[name] for name in dict.fromkeys(
        n.func.attr.value for n in walk(forward) if type(n) is cst.Call and type(n.func) is cst.Attribute
        and _self_attr(n.func) is not None) if name in methods and name != "forward")]


def state_attributes(source: str, cls_name: str) -> list[str]:
    """Attributes that ``cls_name.forward`` (or a method it calls as ``self.m(...)``) both writes
    (``self.x = ...``, ``self.x op= ...``, ``self.x[i] = ...``) and reads."""
    funcs = forward_methods(cst.parse_module(source), cls_name)
    written: list[str] = []
    targets: set[int] = set()
    for func in funcs:
        for node, target in _writes(func.body):
            base = target
            while type(base) is cst.Subscript:
                base = base.value
            attr = _self_attr(base)
            if attr is None:
                continue
            if type(node) is not cst.AugAssign and base is target:
                targets.add(id(target))  # a plain store is no read; `self.x += 1` reads it too
            if attr not in written:
                written.append(attr)
    read = {_self_attr(n) for func in funcs for n in walk(func.body)
            if type(n) is cst.Attribute and id(n) not in targets}
    return [attr for attr in written if attr in read]


@dataclass(frozen=True)
class ObservedState:
    """One state as the frames showed it."""

    attribute: str
    kind: str  # tensor | int | float | bool
    dtype: str  # torch dtype name without the prefix
    shape: tuple[Dim, ...]
    initial_none: bool
    initial_value: float | int | bool
    zeros: str | None  # the first-frame tensor as code over forward's inputs (tensor states)
    #: The built model's tensor, element by element (nested lists), where it is not one value
    #: repeated: a buffer or parameter set in ``__init__`` (``torch.arange(4.0)``) starts from it.
    initial_data: Any = None
    #: A memory queue that grows to a cap (``queue.py``); ``zeros`` is then its padded rows, and
    #: ``item_zeros`` one zero row (what pads a list).
    queue: Any = None
    item_zeros: str | None = None

    def lift_state(self) -> LiftState:
        return LiftState(self.attribute, self.initial_none, self.zeros, self.queue, self.item_zeros)


_PY_DTYPES = {bool: ("bool", "bool"), int: ("int", "int64"), float: ("float", "float64")}


def observe_states(model: Any, frames: Sequence[dict[str, Any]], attributes: Sequence[str],
                   reset: str | None = None, reset_at: Sequence[int] = ()) -> dict[str, ObservedState]:
    """Run ``frames`` (keyword inputs) through ``model`` and describe each of ``attributes``;
    ``model.<reset>()`` is called before the frames numbered in ``reset_at`` (from 0).

    Runs under ``torch.no_grad`` on the model it is given: pass a fresh one.
    """
    import torch

    # A copy: a buffer written in place (`self.frames += 1`) would otherwise show its last value.
    first = {a: _snapshot(getattr(model, a, None)) for a in attributes}
    seen: dict[str, list[Any]] = {a: [] for a in attributes}
    with torch.no_grad():
        for k, inputs in enumerate(frames):
            if reset and k in reset_at:
                getattr(model, reset)()
            model(**inputs)
            for a in attributes:
                seen[a].append(getattr(model, a, None))
    out = {}
    for attr in attributes:
        values = [v for v in seen[attr] if v is not None]
        if not values:
            continue
        value = values[0]
        initial_none = first[attr] is None
        if isinstance(value, torch.Tensor):
            axes = _shape_code(values, frames)
            shape = None if axes is None else [code for code, _ in axes]
            dtype = str(value.dtype).replace("torch.", "")
            device = next((f"{name}.device" for name, v in frames[0].items() if isinstance(v, torch.Tensor)), None)
            zeros = None if shape is None else (
                f"torch.zeros(({', '.join(shape)}{',' if len(shape) == 1 else ''}), dtype=torch.{dtype}"
                + (f", device={device})" if device else ")"))
            # The contract names an axis only where it varied between the frames; else the size seen.
            dims: tuple[Dim, ...] = tuple(code if varies else int(size) for (code, varies), size
                                          in zip(axes or (), value.shape))
            start = first[attr]
            initial = 0 if initial_none or start is None else _fill(start)
            data = None
            if isinstance(start, torch.Tensor) and not _uniform(start):
                data = start.tolist()
                # The built model's own value: a fixed shape, whatever the inputs (a buffer, a parameter).
                dims = tuple(int(n) for n in start.shape)
            out[attr] = ObservedState(attr, "tensor", dtype, dims, initial_none, initial, zeros, data)
        elif type(value) in _PY_DTYPES:
            kind, dtype = _PY_DTYPES[type(value)]
            start = first[attr] if first[attr] is not None else type(value)()
            out[attr] = ObservedState(attr, kind, dtype, (), initial_none, start, None)
    return out


def _zeros_code(shape: Sequence[str], dtype: str, device: str | None) -> str:
    return (f"torch.zeros(({', '.join(shape)}{',' if len(shape) == 1 else ''}), dtype=torch.{dtype}"
            + (f", device={device})" if device else ")"))


def observe_queue(model: Any, frames: Sequence[dict[str, Any]], queue: Any) -> ObservedState | str:
    """A capped queue over the frames: its rows' dtype and shape (code over forward's inputs), or why
    it cannot be lifted. Runs ``model`` (pass a fresh copy)."""
    import torch

    from .queue import TENSOR

    attr = queue.attribute
    start = getattr(model, attr, None)
    size = start.shape[0] if isinstance(start, torch.Tensor) and start.dim() else (
        len(start) if type(start) is list else None)
    if size is None or (queue.form == TENSOR) != isinstance(start, torch.Tensor):
        return f"`self.{attr}` is {type(start).__name__} on the built model, not the queue's {queue.form}"
    if size:
        return f"`self.{attr}` holds {size} row(s) on the built model: the lift pads a queue that starts empty"
    rows = []
    with torch.no_grad():
        for inputs in frames:
            model(**inputs)
            value = getattr(model, attr, None)
            if isinstance(value, torch.Tensor) and value.dim() and value.shape[0]:
                rows.append(value[-1])
            elif type(value) is list and value and all(isinstance(v, torch.Tensor) for v in value):
                rows.append(value[-1])
            else:
                return f"`self.{attr}` held {type(value).__name__} after a frame, not rows of tensors"
    if len({(r.dtype, r.dim()) for r in rows}) != 1:
        return f"the rows of `self.{attr}` changed dtype or rank between frames"
    axes = _shape_code(rows, frames)
    if axes is None:
        return f"the rows of `self.{attr}` changed shape between frames with no input to follow"
    item = [code for code, _ in axes]
    dtype = str(rows[0].dtype).replace("torch.", "")
    device = next((f"{name}.device" for name, v in frames[0].items() if isinstance(v, torch.Tensor)), None)
    dims: tuple[Dim, ...] = (queue.capacity, *(code if varies else int(size) for (code, varies), size
                                               in zip(axes, rows[0].shape)))
    return ObservedState(attr, "tensor", dtype, dims, False, 0, _zeros_code([str(queue.capacity), *item], dtype, device),
                         queue=queue, item_zeros=_zeros_code(item, dtype, device))


def _snapshot(value: Any) -> Any:
    """``value`` as it is now: a tensor is copied (its later in-place writes do not reach the copy)."""
    import torch

    return value.detach().clone() if isinstance(value, torch.Tensor) else value


def _uniform(value: Any) -> bool:
    """Whether a tensor is empty or one value repeated, bit for bit (-0.0 and NaN payloads count)."""
    import torch

    flat = value.detach().reshape(-1)
    if flat.numel() == 0:
        return True
    if flat.dtype == torch.bool or not (flat.is_floating_point() or flat.is_complex()):
        return bool((flat == flat[0]).all())
    raw = flat.contiguous().view(torch.uint8).reshape(flat.numel(), -1)
    return bool((raw == raw[0]).all())


def _fill(value: Any) -> float | int | bool:
    """A tensor's first-frame value as one number, when it is uniform (else 0)."""
    flat = value.flatten()
    if flat.numel() and _uniform(flat):
        return flat[0].item()
    return 0


def _shape_code(values: list[Any], frames: Sequence[dict[str, Any]]) -> list[tuple[str, bool]] | None:
    """Each axis of the state as code: ``name.shape[i]`` where it follows an input axis that varied
    between the frames, or else the same axis of an input with the same size; the size seen otherwise."""
    import torch

    ranks = {v.dim() for v in values}
    if len(ranks) != 1:
        return None
    # Pair each later value with the frame that produced it (values may skip None frames).
    count = min(len(values), len(frames))
    inputs = [{n: v for n, v in frame.items() if isinstance(v, torch.Tensor)} for frame in frames[:count]]
    code = []
    for axis in range(values[0].dim()):
        sizes = [int(v.shape[axis]) for v in values[:count]]
        varying, same_axis = None, None
        for name, tensor in inputs[0].items():
            for k in range(tensor.dim()):
                follows = all(name in f and f[name].dim() > k and int(f[name].shape[k]) == s
                              for f, s in zip(inputs, sizes))
                varies = len({int(f[name].shape[k]) for f in inputs if name in f and f[name].dim() > k}) > 1
                if follows and varies and varying is None:
                    varying = f"{name}.shape[{k}]"
                if follows and k == axis and same_axis is None:
                    # the same axis of an input, of the same size: most likely the same axis (batch, H, W)
                    same_axis = f"{name}.shape[{k}]"
        match = varying or same_axis
        if match is None and len(set(sizes)) > 1:
            return None  # grows from frame to frame with no input to follow: no fixed input shape
        code.append((match or str(sizes[0]), varying is not None))
    return code


def optional_inputs(source: str, cls_name: str) -> list[str]:
    """Parameters of ``cls_name.forward`` whose default is None and that forward tests with
    ``is None`` / ``is not None``: optional inputs the trace would bake one branch of."""
    from .lift import _optional_test

    module = cst.parse_module(source)
    cls = next((s for s in module.body if type(s) is cst.ClassDef and s.name.value == cls_name), None)
    forward = _functions(cls.body).get("forward") if cls is not None else None
    if forward is None:
        return []
    p = forward.params
    defaults = [x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)
                if type(x.default) is cst.Name and x.default.value == "None"]
    return [name for name in defaults if any(_optional_test(n, [name]) for n in walk(forward.body))]


@dataclass(frozen=True)
class ObservedOptional:
    """An optional forward input as the frames showed it: where given, or else the value forward
    bound to it where it was None (``prev_bev = torch.zeros_like(bev)``)."""

    param: str
    dtype: str
    shape: tuple[Dim, ...]
    zeros: str  # the placeholder as code over forward's other inputs
    given: int  # frames that gave it


def _locals_at_return(model: Any, inputs: dict[str, Any], param: str) -> Any:
    """``param``'s value in ``type(model).forward``'s frame when it returns (a profile hook; no trace of lines)."""
    code = type(model).forward.__code__
    seen: list[Any] = []

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event == "return" and frame.f_code is code:
            seen.append(frame.f_locals.get(param))

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        model(**inputs)
    finally:
        sys.setprofile(previous)
    return seen[-1] if seen else None


def observe_optional(model: Any, frames: Sequence[dict[str, Any]],
                     params: Sequence[str]) -> dict[str, ObservedOptional]:
    """Each optional input's dtype and shape (code over the other inputs): from the frames that
    give it, else from the value forward bound to it on a frame that did not. Runs ``model``
    under ``torch.no_grad`` (pass a copy: stateful models move on)."""
    import torch

    out: dict[str, ObservedOptional] = {}
    for param in params:
        pairs = [(f[param], f) for f in frames if isinstance(f.get(param), torch.Tensor)]
        given = len(pairs)
        if not pairs:
            with torch.no_grad():
                for f in frames[:1]:
                    value = _locals_at_return(model, f, param)
                    if isinstance(value, torch.Tensor):
                        pairs.append((value, f))
        if not pairs:
            continue
        # The placeholder's shape follows the other inputs, never the optional input itself.
        others = [{n: v for n, v in f.items() if n != param} for _, f in pairs]
        axes = _shape_code([v for v, _ in pairs], others)
        if axes is None:
            continue
        value = pairs[0][0]
        dtype = str(value.dtype).replace("torch.", "")
        shape = [code for code, _ in axes]
        device = next((f"{n}.device" for n, v in others[0].items() if isinstance(v, torch.Tensor)), None)
        zeros = (f"torch.zeros(({', '.join(shape)}{',' if len(shape) == 1 else ''}), dtype=torch.{dtype}"
                 + (f", device={device})" if device else ")"))
        dims: tuple[Dim, ...] = tuple(code if varies else int(size) for (code, varies), size in zip(axes, value.shape))
        out[param] = ObservedOptional(param, dtype, dims, zeros, given)
    return out


def mix_optional(frames: Sequence[dict[str, Any]], observed: dict[str, ObservedOptional],
                 seed: int = 0) -> list[dict[str, Any]]:
    """The frames with each optional input absent on even frames and given on odd ones (the frame's
    own value where it has one, else random values of the observed shape): both branches, mixed."""
    import torch

    out = []
    for k, frame in enumerate(frames):
        frame = dict(frame)
        for param, seen in observed.items():
            if k % 2 == 0:
                frame.pop(param, None)
            elif not isinstance(frame.get(param), torch.Tensor):
                placeholder = eval(seen.zeros, {"torch": torch}, dict(frame))  # noqa: S307 - code the lift wrote
                generator = torch.Generator().manual_seed(seed + 7919 * (k + 1))
                frame[param] = torch.randn(placeholder.shape, generator=generator).to(placeholder.dtype)
        out.append(frame)
    return out
