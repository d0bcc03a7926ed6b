"""Input sets: the traced example plus different ones to catch what tracing baked in.

Set 1 is what the exporter traces with. Set 2 has other values with the same shapes
(catches baked values: a Python ``if`` on a tensor). Set 3 also changes the size of
every dynamic axis (catches baked shapes: ``range(int(n))``, loops over a size). Set 4,
where the model takes one, makes every dynamic axis smaller than traced (catches what only
a smaller input shows: ``k = min(cap, n)`` kept as the traced ``cap`` fails a top-k over
fewer than ``cap`` candidates; a batch of one where a squeeze drops the axis).
Runs inside a worker process: imports torch.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import torch

from .spec import InputsSpec

#: How many input sets every model is checked on (the issue asks for at least two).
SET_COUNT = 3


@dataclass
class InputSets:
    names: list[str]
    sets: list[dict[str, torch.Tensor]]
    notes: list[str] = field(default_factory=list)


def forward_parameters(model: torch.nn.Module) -> list[str]:
    """The forward's parameter names, which are also the ONNX input names."""
    params = inspect.signature(model.forward).parameters.values()
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _accepts_argument(fn: Callable[..., Any]) -> bool:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    return any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in params)


def _bind(value: Any, params: list[str], origin: str) -> dict[str, torch.Tensor]:
    """A tensor, a tuple of tensors or a dict of keyword tensors -> ``{param: tensor}``."""
    if isinstance(value, torch.Tensor):
        value = (value,)
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in params]
        if unknown:
            raise TypeError(f"{origin} returned keywords the forward does not take: {unknown}")
        bound = {p: value[p] for p in params if p in value}
    elif isinstance(value, (tuple, list)):
        if len(value) > len(params):
            raise TypeError(f"{origin} returned {len(value)} inputs; forward takes {len(params)}")
        bound = dict(zip(params, value))
    else:
        raise TypeError(f"{origin} must return a tensor, a tuple of tensors or a dict; got {type(value).__name__}")
    for name, tensor in bound.items():
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{origin}: input {name!r} is {type(tensor).__name__}, not a tensor")
    return bound


def _perturb(t: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Other values of the same kind: float tensors are scaled and get noise; others stay.

    The new values are mapped affinely onto the range of the tensor's finite values: the example is the
    user's word on what the model takes, and a model may check it (piq's metrics assert images in [0, 1];
    a set it refuses tests nothing). An affine map keeps distinct values distinct (folding or clamping
    at the ends piles values up there, and a heatmap's arg-max then meets near-ties). Infinities and NaN
    stay where they were."""
    if not t.is_floating_point() or t.numel() == 0:
        return t.clone()
    finite_mask = torch.isfinite(t)
    finite = t[finite_mask]
    scale = float(finite.std()) if finite.numel() > 1 else 1.0
    noise = torch.randn(t.shape, generator=generator, dtype=torch.float32).to(t.dtype)
    out = t * 1.1 + noise * (0.1 * (scale or 1.0))
    if finite.numel() > 1:
        low, high = finite.min(), finite.max()
        moved = out[finite_mask]
        new_low, new_high = moved.min(), moved.max()
        if low < high and new_low < new_high:
            out = (low + (out - new_low) * ((high - low) / (new_high - new_low))).clamp(low, high)
        out = torch.where(finite_mask, out, t)
    return out


def _resize(t: torch.Tensor, axis: int, size: int, generator: torch.Generator) -> torch.Tensor:
    """Grow or shrink one axis by repeating slices; float copies get fresh noise."""
    index = torch.arange(size) % t.shape[axis]
    out = t.index_select(axis, index)
    return _perturb(out, generator) if out.is_floating_point() else out


def resize_dynamic(
    sample: dict[str, torch.Tensor], reference: dict[str, torch.Tensor],
    dynamic_axes: Mapping[str, Mapping[int, str]], generator: torch.Generator,
    grow: Callable[[int], int] = lambda size: size + 1,
) -> tuple[dict[str, torch.Tensor], list[str]]:
    """Give every dynamic axis a size other than the traced one (one size per axis name)."""
    traced: dict[str, int] = {}
    for name, axes in dynamic_axes.items():
        for axis, dim in axes.items():
            if name in reference and axis < reference[name].dim():
                traced.setdefault(dim, reference[name].shape[axis])
    # +1 keeps tensors small; a traced size of 1 becomes 2 (1 is where squeeze bakes in).
    new_size = {dim: grow(size) for dim, size in traced.items() if size > 0 and grow(size) != size}
    out, changed = dict(sample), []
    for name, axes in dynamic_axes.items():
        for axis, dim in axes.items():
            t = out.get(name)
            if t is None or axis >= t.dim() or dim not in new_size or t.shape[axis] != traced[dim]:
                continue
            out[name] = _resize(t, axis, new_size[dim], generator)
            changed.append(f"{name}[{axis}] ({dim}) {traced[dim]}->{new_size[dim]}")
    return out, changed


#: The observer's and the second trace's stretches of a dynamic axis of traced size ``n``, in the order tried:
#: ``2n + 1`` changes every size a division by up to ``n`` derives, rounded down or up (``h // 8`` of 8 and of 9;
#: a squeeze proof cannot rest on a size that only happened to be 1); where the model refuses it (a stride that must
#: divide its input: a YOLO neck concatenates maps an odd size leaves a row apart), ``3n`` keeps every divisor of
#: ``n`` and still changes every such size (``ceil(3n / d) > ceil(n / d)`` and ``3n // d > n // d`` wherever
#: ``d <= 2n``, while ``2n`` leaves ``ceil(n / d)`` where it was for ``d >= n``: 8 and 16 both end four stride-2
#: convolutions at 1); ``2n`` last, for a model that takes only powers of two.
#: ``2n - 1``, last: a model whose sizes must be one more than a multiple of its stride (PSPNet's
#: ``assert (h - 1) % 8 == 0``, hszhao/semseg) refuses the other three; ``2(n - 1) + 1`` keeps every divisor of
#: ``n - 1`` and still changes every size a division derives.
STRETCHES: dict[str, Callable[[int], int]] = {"2n+1": lambda size: 2 * size + 1, "3n": lambda size: 3 * size,
                                              "2n": lambda size: 2 * size, "2n-1": lambda size: 2 * size - 1}


def stretched_set(
    reference: dict[str, torch.Tensor], dynamic_axes: Mapping[str, Mapping[int, str]], seed: int,
    how: str = "2n+1",
) -> tuple[dict[str, torch.Tensor], list[str]]:
    """``reference`` with every dynamic axis stretched as ``how`` says (a key of :data:`STRETCHES`;
    ``2n + 1`` by default): for the observer and the second trace, not the verifier's sets."""
    generator = torch.Generator().manual_seed(seed + 7919)
    return resize_dynamic(reference, reference, dynamic_axes, generator, STRETCHES[how])


def _lowest_bit(size: int) -> int:
    return size & -size


#: Smaller sizes for a dynamic axis of traced size ``n``, in the order tried: ``n // 2`` keeps every power-of-two
#: divisor but one (128 -> 64, a batch of 2 -> 1); ``n - lowbit(n)`` steps down by the largest power of two that
#: divides ``n`` and so keeps it (96 -> 64 for a stride of 32, which 48 breaks); ``n - 1`` for a model that takes any
#: size. A size that is not smaller than ``n``, or not positive, is not a try.
SHRINKS: dict[str, Callable[[int], int]] = {"n//2": lambda size: size // 2,
                                            "n-lowbit(n)": lambda size: size - _lowest_bit(size),
                                            "n-1": lambda size: size - 1}


def smaller_set(
    model: torch.nn.Module, reference: dict[str, torch.Tensor], dynamic_axes: Mapping[str, Mapping[int, str]],
    generator_seed: int,
) -> tuple[dict[str, torch.Tensor] | None, list[str], list[str]]:
    """``reference`` with every dynamic axis longer than 1 made smaller (:data:`SHRINKS`, the first the model
    runs), or None where every try is refused or no axis can shrink; the axes changed, and each refusal."""
    refusals: list[str] = []
    tried: set[tuple[str, ...]] = set()
    for how, shrink in SHRINKS.items():
        def smaller(size: int) -> int:
            new = shrink(size)
            return new if 0 < new < size else size
        generator = torch.Generator().manual_seed(generator_seed)
        candidate, changed = resize_dynamic(reference, reference, dynamic_axes, generator, smaller)
        if not changed or tuple(changed) in tried:
            continue
        tried.add(tuple(changed))
        refused = refusal(model, candidate)
        if refused is None:
            return candidate, changed, refusals
        refusals.append(f"{how} ({refused})")
    return None, [], refusals


def refusal(model: torch.nn.Module, feed: dict[str, torch.Tensor]) -> str | None:
    """Why ``model`` refuses ``feed`` (its error, in one line, or that every floating-point output is NaN
    there), or None where it runs. A copy of the model runs, so that state it keeps between calls (a
    frame counter) is not advanced; a model that cannot be copied is taken to accept the set."""
    import copy

    try:
        probe = copy.deepcopy(model)
    except Exception:  # noqa: BLE001 - not copyable: run the sets as they are
        return None
    try:
        with torch.no_grad():
            outputs = probe(**feed)
    except Exception as error:  # noqa: BLE001 - the model's own refusal, reported in the notes
        return f"{type(error).__name__}: {str(error).splitlines()[0][:160] if str(error) else ''}"
    if _no_number(outputs):
        # Eager mode then is no reference for any graph: ptlflow's FastFlowNet at 48x64 divides its
        # coarsest level's coordinates by `w - 1` = 0 and returns NaN for every flow vector, which no
        # graph is expected to reproduce (ONNX Runtime's GridSample of NaN coordinates gives zeros).
        # An infinity is left: eager mode's inf is one a graph can match exactly.
        return "no number: every floating-point output element is NaN at these sizes"
    return None


def _no_number(outputs: Any) -> bool:
    """The model's floating-point outputs hold elements and every one of them is NaN."""
    from torch.utils._pytree import tree_leaves

    tensors = [t for t in tree_leaves(outputs) if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel()]
    return bool(tensors) and all(bool(torch.isnan(t).all()) for t in tensors)


def make_input_sets(
    module: Any, spec: InputsSpec, model: torch.nn.Module,
    dynamic_axes: Mapping[str, Mapping[int, str]], seed: int, count: int = SET_COUNT,
) -> InputSets:
    """Build ``count`` input sets for ``model`` from the user's function or shapes."""
    params = forward_parameters(model)
    notes: list[str] = []
    sets: list[dict[str, torch.Tensor]] = []
    generators = [torch.Generator().manual_seed(seed + k) for k in range(count)]
    if spec.shapes:
        unknown = [n for n, _ in spec.shapes if n not in params]
        if unknown:
            raise TypeError(f"--input-shape names {unknown} are not parameters of forward{tuple(params)}")
        for g in generators:
            sets.append({n: torch.randn(shape, generator=g) for n, shape in spec.shapes})
        notes.append("random float32 inputs (--input-shape), a different seed per set")
    else:
        fn = getattr(module, spec.function or "", None)
        if not callable(fn):
            raise AttributeError(f"the model file has no function {spec.function!r} for --inputs")
        origin = f"{spec.function}()"
        if _accepts_argument(fn):
            sets = [_bind(fn(g), params, origin) for g in generators]
            notes.append(f"{origin} called with a torch.Generator seeded {seed}..{seed + count - 1}")
        else:
            first = _bind(fn(), params, origin)
            sets = [first] + [{k: _perturb(v, g) for k, v in first.items()} for g in generators[1:]]
            notes.append(f"{origin} takes no generator: sets 2..{count} are its output with float inputs scaled and noised")
    unknown = [n for n in dynamic_axes if n not in params and not n.startswith("output")]
    if unknown:
        # A typo here would silently export a static graph and skip the resized input set.
        raise TypeError(f"--dynamic-axes names {unknown}, which are not parameters of forward{tuple(params)}")
    if dynamic_axes and count > 2:
        last = sets[-1]
        sets[-1], changed = resize_dynamic(last, sets[0], dynamic_axes, generators[-1])
        refused = refusal(model, sets[-1]) if changed else None
        if refused is not None:
            # A model whose strides or patches must divide its input (YOLO's segmentation head
            # concatenates maps a 65-pixel input leaves a row apart) takes twice the traced size,
            # which keeps every divisor: the set then tests the model, not an input it refuses.
            doubled, doubled_changed = resize_dynamic(last, sets[0], dynamic_axes,
                                                      torch.Generator().manual_seed(seed + count - 1),
                                                      lambda size: 2 * size)
            if refusal(model, doubled) is None:
                sets[-1], changed = doubled, doubled_changed
                notes.append(f"the model refuses its dynamic axes one larger ({refused}): set {count} doubles them")
            else:
                # Sizes one more than a multiple of the stride (PSPNet's 8k + 1): 2(n - 1) + 1 keeps them so.
                odd, odd_changed = resize_dynamic(last, sets[0], dynamic_axes,
                                                  torch.Generator().manual_seed(seed + count - 1),
                                                  lambda size: 2 * size - 1)
                if odd_changed and refusal(model, odd) is None:
                    sets[-1], changed = odd, odd_changed
                    notes.append(f"the model refuses its dynamic axes one larger ({refused}) and doubled: set "
                                 f"{count} takes 2n - 1")
        if changed:
            notes.append(f"set {count} resizes dynamic axes: " + ", ".join(changed))
        shrunk, shrunk_changed, refusals = smaller_set(model, sets[0], dynamic_axes, seed + count)
        if shrunk is not None:
            sets.append(shrunk)
            notes.append(f"set {len(sets)} makes dynamic axes smaller: " + ", ".join(shrunk_changed))
        elif refusals:
            notes.append("no smaller set: the model refuses " + "; ".join(refusals))
    order = [p for p in params if p in sets[0]]
    return InputSets(names=order, sets=[{n: s[n] for n in order} for s in sets], notes=notes)
