"""The observer: build the model, run it on the input sets, record facts per line of the user's code.

Runs in a worker process (``python -m trtcodemod.migrate.observe FOLDER``), like the
verifier's model task, so whatever the model does stays a reported result. It records,
for the user's files only (never torch's frames, never ours):

* which files and lines ran at all (``sys.settrace``, with a local tracer only in user files;
  nothing is traced while the model's module is imported, only which user files it loaded),
  and which of them ran during the forwards (``forward``; not while importing or building);
* every place Python reads a tensor's value (``__bool__``, ``.item()``, ``.tolist()``,
  ``__int__``, ``__index__``, ``__float__``, ``__len__``, ``.numpy()``): what an export bakes in
  (``__len__`` is recorded with them but reads a size, ``shape[0]``: the facts leave it out of
  the value reads, ``facts.SIZE_READS``); of a ``__bool__`` on the verifier's sets, which way it
  went (``truth``: TRT101 proves an emptiness exit only where the run saw it taken and not);
* at each ``t[index]``, the dtype and rank of a tensor index;
* at each ``len(x)``, whether ``x`` was a tensor;
* at each ``squeeze(d)``, the size of axis ``d``; at each ``squeeze()``, the whole shape;
* each attribute a line of the user's writes on a module during a forward (state kept between
  calls), and each ``copy.deepcopy`` it calls; per forward, whether the write came before any read
  of that module's attribute in the same forward (``fresh``), and each attribute some forward read
  before writing it (``state_read``, at the first such read: a value that may cross calls; reads
  through ``nn.Module.__getattribute__``, wrapped for the forwards). An attribute every forward
  writes before it reads it is scratch state (``locate.frozen_state``);
* which axes of each input vary across the input sets;
* at each call of a torch function or tensor method, which local names (and ``self.<name>``)
  hold its tensor arguments, and the dtypes and shapes seen (``tensor_sites.py``);
* where each module of one of torch's own classes (``torch.nn.MaxPool1d``...) was built by a call
  in the user's code, whatever named the class there (``getattr(nn, name)(k)``, a registry, a
  ``functools.partial``), and at which user's lines the forwards called such a module (for one
  inside an ``nn.Sequential``, the line that called the container): :class:`Builds`.

With dynamic axes, one more set than the verifier's is run: every dynamic axis at ``2n + 1``
(``verify.inputs.stretched_set``), so that a size derived from one (``h // 8``) changes
somewhere and no proof rests on a size that only happened to be 1; where the model refuses
those sizes (a stride that must divide them), at ``3n``, then ``2n``, then ``2n - 1`` (sizes of the form
``8k + 1``) (``verify.inputs.STRETCHES``).
Only a stretched set the model ran through is named in the facts (``stretched``).

Sites carry the position of the calling bytecode instruction (``co_positions``), which is
the call or subscript expression itself, so a fact can be matched to one finding on a line
that holds several. The observer knows nothing about rules: ``plan.py`` reads the facts.
One forward per input set; the wrappers are installed only for those forwards.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import os
import sys
from typing import Any, Callable, Iterator

from trtcodemod.usercode import OURS, UserFiles, module_file
from trtcodemod.verify.worker import Checkpoint, build_model, import_user_module, worker_main

OBSERVE_TASK = "observe"
#: Tensor methods through which Python reads a value out of a tensor.
#: torch's operator dispatcher (``torch.ops.ns.op(...)``): frames below it are an operator's kernel.
_DISPATCHER = os.path.join("torch", "_ops.py")
#: A patched name the owner inherited: deleted from it on exit.
_INHERITED = object()
VALUE_READS = ("__bool__", "item", "tolist", "__int__", "__index__", "__float__", "__len__", "numpy")


class Recorder:
    """Aggregated observations, keyed by site and kind; JSON-ready through ``facts()``."""

    def __init__(self, user: UserFiles) -> None:
        self.user = user
        self.lines: dict[str, set[int]] = {}
        #: The lines that ran in frames called during the forwards (``recording``).
        self.forward: dict[str, set[int]] = {}
        self.events: dict[tuple, dict[str, Any]] = {}
        self.recording = False  # value reads count only during the forwards, not while building
        self._busy = False
        #: Set while the stretched set runs, which the verifier does not compare: no truth is recorded there.
        self.stretched = False
        self._positions: dict[Any, list] = {}
        #: wrapper -> the function it wraps: torch hands a tensor method's wrapper to the
        #: ``TensorSites`` mode, which must call the original (the wrapper already recorded).
        self.unwrapped: dict[Any, Any] = {}
        #: code -> how many of its calls :meth:`_note_parameters` read.
        self._parameter_calls: dict[Any, int] = {}
        #: This forward's first access of each module attribute, ``(id(module), name)``: True where it
        #: was a write, False where a read came first (:meth:`begin_call` empties it).
        self._first: dict[tuple[int, str], bool] = {}
        #: attribute name -> the first site where some forward read it before writing it in that forward.
        self.read_first: dict[str, tuple[str, int, int, int, int]] = {}

    # --- module attributes per forward ----------------------------------------------------------
    def begin_call(self) -> None:
        """A new forward: no attribute has been read or written in it yet."""
        self._first = {}

    def note_write(self, module: Any, name: str) -> bool:
        """A write of ``module.<name>`` in this forward; True where no read of it came before in this
        forward (the value it replaces was never used in this call)."""
        return self._first.setdefault((id(module), name), True)

    def note_read(self, module: Any, name: str) -> None:
        """A read of ``module.<name>``; where it comes before any write of it in this forward, the
        value it reads may come from an earlier call (or the build): :attr:`read_first` keeps the name."""
        key = (id(module), name)
        if key in self._first:
            return
        self._first[key] = False
        if name not in self.read_first:
            frame = sys._getframe(2)
            while frame is not None and not self.user(frame.f_code.co_filename):
                frame = frame.f_back
            if frame is not None:
                self.read_first[name] = self._position(frame)

    # --- where was this called from ------------------------------------------------------
    def site(self, depth: int = 2) -> tuple[tuple[str, int, int, int, int] | None, bool]:
        """The first user frame above the caller: ``(path, line, col, end_line, end_col)``.

        ``direct`` is False when a frame that is neither ours nor the user's sits between
        (torch's own code read the value on the user's behalf). None when torch's operator
        dispatcher sits between: the read happened inside an operator's Python kernel (a
        ``torch.library`` op), which an export records as one node; nothing of it is baked.
        """
        frame = sys._getframe(depth)
        direct = True
        while frame is not None:
            filename = frame.f_code.co_filename
            if self.user(filename):
                return self._position(frame), direct
            if filename.endswith(_DISPATCHER):
                return None, False
            if not os.path.realpath(filename).startswith(OURS + os.sep):
                direct = False
            frame = frame.f_back
        return None, direct

    def origin(self, depth: int = 2) -> str | None:
        """``path:line`` of the innermost frame above the caller that is not ours, where it is not the
        user's (torch's own code that read a value on the user's behalf: a distribution's argument
        check); None where the user's own line read it."""
        frame = sys._getframe(depth)
        while frame is not None and os.path.realpath(frame.f_code.co_filename).startswith(OURS + os.sep):
            frame = frame.f_back
        if frame is None or self.user(frame.f_code.co_filename):
            return None
        return f"{os.path.realpath(frame.f_code.co_filename)}:{frame.f_lineno}"

    def caller(self, depth: int = 2) -> str | None:
        """``path:line`` of the second user frame above the caller: the user's line that called the
        function holding the first (a check function's caller); None where there is none."""
        frame = sys._getframe(depth)
        seen = 0
        while frame is not None:
            if self.user(frame.f_code.co_filename):
                seen += 1
                if seen == 2:
                    return f"{os.path.realpath(frame.f_code.co_filename)}:{frame.f_lineno}"
            frame = frame.f_back
        return None

    def _position(self, frame: Any) -> tuple[str, int, int, int, int]:
        code = frame.f_code
        positions = self._positions.get(code)
        if positions is None:
            positions = self._positions[code] = list(code.co_positions())
        index = frame.f_lasti // 2
        line, end_line, col, end_col = positions[index] if 0 <= index < len(positions) else (None,) * 4
        line = line or frame.f_lineno
        return (os.path.realpath(code.co_filename), int(line), int(col or 0) + 1,
                int(end_line or line), int(end_col or 0) + 1)

    def add(self, kind: str, site: tuple, direct: bool, **fields: Any) -> None:
        key = (kind, site, direct, tuple(sorted((k, repr(v)) for k, v in fields.items())))
        entry = self.events.get(key)
        if entry is None:
            path, line, col, end_line, end_col = site
            entry = self.events[key] = {"kind": kind, "path": path, "line": line, "column": col,
                                        "end_line": end_line, "end_column": end_col, "direct": direct,
                                        "count": 0, **fields}
        entry["count"] += 1

    # --- what the parameters held -----------------------------------------------------------
    def _note_parameters(self, frame: Any, path: str) -> None:
        """Record what each parameter of a user function called during the forwards held: a tensor,
        or a plain ``int``/``float``/``bool``. An unannotated ``forward(self, x, H, W)`` reads as
        taking tensors; the run says ``H`` and ``W`` are numbers (Swin's blocks and patch merging,
        SegFormer's Mix-FFN take the feature map's size so), which a rule then reads as a size
        handed down where the export warned. The first :data:`PARAMETER_CALLS` calls of each
        function are read (``f_locals`` copies the frame's locals)."""
        code = frame.f_code
        count = code.co_argcount + code.co_kwonlyargcount
        seen = self._parameter_calls.get(code, 0)
        if not count or seen >= PARAMETER_CALLS:
            return
        self._parameter_calls[code] = seen + 1
        values = frame.f_locals
        torch = sys.modules.get("torch")
        site = (path, code.co_firstlineno, 1, code.co_firstlineno, 1)
        for name in code.co_varnames[:count]:
            held = _held(values.get(name, _MISSING), torch)
            if held is not None:
                self.add("parameter", site, True, function=code.co_name, name=name, holds=held)

    # --- line tracing -------------------------------------------------------------------------
    def trace(self, frame: Any, event: str, arg: Any) -> Callable | None:
        if event != "call" or not self.user(frame.f_code.co_filename):
            return None
        path = os.path.realpath(frame.f_code.co_filename)
        lines = self.lines.setdefault(path, set())
        lines.add(frame.f_lineno)
        if not self.recording:
            def local(frame: Any, event: str, arg: Any) -> Callable:
                if event == "line":
                    lines.add(frame.f_lineno)
                return local

            return local
        forward = self.forward.setdefault(path, set())
        forward.add(frame.f_lineno)
        self._note_parameters(frame, path)

        def in_forward(frame: Any, event: str, arg: Any) -> Callable:
            if event == "line":
                lines.add(frame.f_lineno)
                forward.add(frame.f_lineno)
            return in_forward

        return in_forward


_MISSING = object()
#: How many calls of one function have their parameters read (:meth:`Recorder._note_parameters`).
PARAMETER_CALLS = 8


def _held(value: Any, torch: Any) -> str | None:
    """What a parameter held, for the facts: ``tensor``, ``shape`` (a ``torch.Size``), ``bool``, ``int`` or
    ``float``; None for anything else (modules, lists, None), which no rule asks about."""
    if torch is not None and isinstance(value, torch.Tensor):
        return "tensor"
    if torch is not None and isinstance(value, torch.Size):
        return "shape"  # a tensor's sizes handed down (``image.shape[2:]``): a tuple of ints
    kind = type(value)
    return kind.__name__ if kind in (bool, int, float) else None


#: Plain values whose equality is their identity as state (``self.n = 5`` on every call).
_PLAIN = (bool, int, float, str, bytes, type(None))


def unchanged(old: Any, new: Any) -> bool:
    """Does writing ``new`` over ``old`` leave the module's state as it was, up to dtype and device?

    A cache refreshed in forward (``self.anchors = [a.to(dtype, device) for a in self.anchors]``,
    ``self.grid = self.grid.to(x.device)``) writes the value it replaces: no state passes between
    calls. Tensors count as unchanged when ``old`` cast to ``new``'s dtype and device equals ``new``
    exactly (shape included; NaN never equals), lists and tuples element by element, plain numbers
    and strings by equality, anything else only when it is the same object. A first write (no
    ``old``) is a change.
    """
    import torch

    if old is new:
        return old is not _MISSING
    if isinstance(old, torch.Tensor) and isinstance(new, torch.Tensor):
        if old.shape != new.shape:
            return False
        try:
            return bool(torch.equal(old.detach().to(device=new.device, dtype=new.dtype), new.detach()))
        except (RuntimeError, TypeError):  # a device or dtype it cannot take: not known to be the same
            return False
    if isinstance(old, (list, tuple)) and isinstance(new, (list, tuple)):
        return type(old) is type(new) and len(old) == len(new) and all(map(unchanged, old, new))
    if isinstance(old, _PLAIN) and isinstance(new, _PLAIN):
        return type(old) is type(new) and old == new
    return False


class Wrappers:
    """Tensor methods, ``torch.squeeze`` and ``builtins.len`` wrapped while the forwards run."""

    def __init__(self, rec: Recorder) -> None:
        self.rec = rec
        self.saved: list[tuple[Any, str, Any]] = []

    def _patch(self, owner: Any, name: str, make: Callable[[Any], Any]) -> None:
        original = getattr(owner, name)
        # What was inherited is deleted again on exit rather than set: setting a C method back on the
        # subclass would leave it a Python slot, which is not the same type as before.
        self.saved.append((owner, name, original if name in vars(owner) else _INHERITED))
        wrapper = make(original)
        self.rec.unwrapped[wrapper] = original
        setattr(owner, name, wrapper)

    def __enter__(self) -> "Wrappers":
        import torch

        rec = self.rec

        def guarded(record: Callable[..., None], original: Any) -> Any:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                if rec.recording and not rec._busy:
                    rec._busy = True  # a wrapped call inside a wrapped call is torch's, not the user's
                    try:
                        record(*args, **kwargs)
                    except Exception:  # noqa: BLE001 - observing must never change what the model does
                        pass
                    finally:
                        rec._busy = False
                return original(*args, **kwargs)

            return wrapper

        for name in VALUE_READS:
            def record_read(*args: Any, _name: str = name, **kwargs: Any) -> None:
                site, direct = rec.site(1)
                if site:
                    where = {} if direct else {"origin": rec.origin(1)}
                    rec.add("value_read", site, direct, method=_name, caller=rec.caller(1), **where)
                    if _name == "__bool__" and not rec.stretched and args and isinstance(args[0], torch.Tensor):
                        # Which way the test went (TRT101's emptiness exits are proved only where the run
                        # took both ways): the wrapped `bool` reads it through the original, `_busy` set.
                        rec.add("truth", site, direct, value=bool(args[0]))

            self._patch(torch.Tensor, name, lambda orig, r=record_read: guarded(r, orig))

        # Indexing is recorded by the tensor sites' mode, not here: a Python `__getitem__` on the tensor
        # class gives it a sequence slot, and torch then reads a list of 0-d tensors as nested sequences
        # (`torch.FloatTensor([a[0] - a[1], ...])` raised "len() of a 0-d tensor" under observation).

        def record_squeeze(tensor: Any, *args: Any, **kwargs: Any) -> None:
            dims = args[0] if args else kwargs.get("dim")
            if not isinstance(tensor, torch.Tensor):
                return
            if dims is None:
                # `squeeze()`: the whole shape, so TRT403 can tell the axes of size 1 on every call from
                # those that varied (a batch of 1 among them).
                site, direct = rec.site(1)
                if site:
                    rec.add("squeeze_all", site, direct, shape=[int(n) for n in tensor.shape])
                return
            dims = dims if isinstance(dims, (tuple, list)) else (dims,)
            site, direct = rec.site(1)
            if site:
                sizes = [int(tensor.shape[int(d)]) if tensor.dim() else 1 for d in dims]
                rec.add("squeeze", site, direct, sizes=sizes)

        self._patch(torch.Tensor, "squeeze", lambda orig: guarded(record_squeeze, orig))
        self._patch(torch, "squeeze", lambda orig: guarded(record_squeeze, orig))

        def record_len(obj: Any) -> None:
            # Only calls written in the user's code: torch calls len() all the time.
            if not rec.user(sys._getframe(2).f_code.co_filename):
                return
            site, direct = rec.site(1)
            if site:
                rec.add("len", site, direct, tensor=isinstance(obj, torch.Tensor))

        self._patch(builtins, "len", lambda orig: guarded(record_len, orig))

        def constructing(module: Any) -> bool:
            # The first user frame is the `__init__` of this very module: a module built during the
            # forward (GMFlow's `PositionEmbeddingSine(...)` in `feature_add_position`) is new on every
            # call, so what its constructor sets is no state kept between calls.
            frame = sys._getframe(2)
            while frame is not None:
                if rec.user(frame.f_code.co_filename):
                    return frame.f_code.co_name == "__init__" and frame.f_locals.get("self") is module
                frame = frame.f_back
            return False

        def record_state(module: Any, name: str, value: Any) -> None:
            # Written by the user's own line (torch's internals set attributes too): state kept on
            # the module between calls, which an export turns into a constant. Whoever writes, the
            # write comes before this forward's later reads of the attribute (`fresh`: none came before).
            fresh = rec.note_write(module, name)
            site, direct = rec.site(1)
            if site and direct and not name.startswith("_") and not constructing(module):
                old = getattr(module, name, _MISSING)
                rec.add("state_write", site, direct, attribute=name, tensor=isinstance(value, torch.Tensor),
                        unchanged=unchanged(old, value), fresh=fresh)

        self._patch(torch.nn.Module, "__setattr__", lambda orig: guarded(record_state, orig))

        def reading(original: Any) -> Any:
            # Every read of a module attribute by name (`self.x`, `getattr`, `hasattr`, a failed lookup
            # that goes on to `__getattr__` too): only the first access per module and name in a forward
            # matters, so this stays a dict lookup on the hot path.
            def getattribute(module: Any, name: str) -> Any:
                if rec.recording and not rec._busy and name[:1] != "_":
                    rec._busy = True
                    try:
                        rec.note_read(module, name)
                    except Exception:  # noqa: BLE001 - observing must never change what the model does
                        pass
                    finally:
                        rec._busy = False
                return original(module, name)

            return getattribute

        self._patch(torch.nn.Module, "__getattribute__", reading)

        def record_deepcopy(obj: Any, *rest: Any, **kwargs: Any) -> None:
            site, direct = rec.site(1)
            if site and direct:
                rec.add("deepcopy", site, direct, type=type(obj).__name__)

        self._patch(copy, "deepcopy", lambda orig: guarded(record_deepcopy, orig))
        return self

    def __exit__(self, *exc: Any) -> None:
        for owner, name, original in reversed(self.saved):
            if original is _INHERITED:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
        self.saved.clear()
        self.rec.unwrapped.clear()


def _torch_class(cls: type, torch: Any) -> str | None:
    """The public name of one of torch's own module classes (``torch.nn.MaxPool1d``), or its
    ``module.qualname`` where torch.nn does not export it; None for any other class (the
    user's, a library's subclass: what its ``__init__`` does is its own)."""
    module = getattr(cls, "__module__", "") or ""
    if not module.startswith("torch.nn."):
        return None
    return f"torch.nn.{cls.__name__}" if getattr(torch.nn, cls.__name__, None) is cls \
        else f"{module}.{cls.__qualname__}"


class Builds:
    """Which call of the user's built each module of torch's own classes, and which lines called them.

    A rule that replaces ``nn.MaxPool1d(...)`` finds it where the class is spelled; a factory
    names it at run time (unet's ``class_ = getattr(nn, "MaxPool1d")`` then ``class_(kernel_size)``,
    monai's ``Pool[Pool.MAX, 1]``, a ``functools.partial``), and the export puts the module's nodes
    at the line that calls it. ``torch.nn.Module.__init__`` is wrapped while the model is built
    and run: where the frames above it are torch's own up to a user's frame, that frame's call
    built the module (``module_built``, with the class); a global forward pre-hook records, at the
    innermost user's line of each call of such a module during the forwards, where it was built
    (``module_call``). A module built by a library's code (no user's frame right above torch's)
    is not recorded: its build site is no line of the user's to rewrite."""

    def __init__(self, rec: Recorder) -> None:
        import weakref

        self.rec = rec
        #: module -> (its class's name, the build site); weak, so a module the build discards goes.
        self.built: Any = weakref.WeakKeyDictionary()

    @contextlib.contextmanager
    def building(self) -> Iterator[None]:
        """Record which user's call builds each module of torch's classes while the model is built."""
        import torch

        rec, built = self.rec, self.built
        torch_dir = os.path.dirname(os.path.realpath(torch.__file__)) + os.sep
        original = torch.nn.Module.__init__

        def init(module: Any, *args: Any, **kwargs: Any) -> None:
            original(module, *args, **kwargs)
            try:
                name = _torch_class(type(module), torch)
                if name is None:
                    return
                # Above this wrapper: the class's own __init__ chain in torch's files, then its caller.
                frame = sys._getframe(1)
                while frame is not None and os.path.realpath(frame.f_code.co_filename).startswith(torch_dir):
                    frame = frame.f_back
                if frame is not None and rec.user(frame.f_code.co_filename):
                    site = rec._position(frame)
                    built[module] = (name, site)
                    rec.add("module_built", site, True, cls=name)
            except Exception:  # noqa: BLE001 - observing must never change what the model does
                pass

        torch.nn.Module.__init__ = init
        try:
            yield
        finally:
            torch.nn.Module.__init__ = original

    @contextlib.contextmanager
    def calls(self) -> Iterator[None]:
        """Record, during the forwards, the user's line that calls each module :meth:`building` saw built."""
        import torch

        rec, built = self.rec, self.built

        def called(module: Any, args: Any) -> None:
            if rec.recording and built:
                try:
                    known = built.get(module)
                    if known is not None:
                        site, _ = rec.site(1)
                        if site is not None:
                            rec.add("module_call", site, True, cls=known[0], built=list(known[1]))
                except Exception:  # noqa: BLE001 - observing must never change what the model does
                    pass
            return None

        handle = torch.nn.modules.module.register_module_forward_pre_hook(called)
        try:
            yield
        finally:
            handle.remove()


def _varying_axes(names: list[str], sets: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per input: the shapes seen, the axes whose size changes, and the axes always of size 1."""
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        shapes = [list(s[name].shape) for s in sets if name in s]
        if not shapes or len({len(shape) for shape in shapes}) != 1:
            out[name] = {"shapes": shapes, "varying": [], "always_one": []}  # rank changes: nothing to say
            continue
        axes = range(len(shapes[0]))
        out[name] = {"shapes": shapes,
                     "varying": [a for a in axes if len({shape[a] for shape in shapes}) > 1],
                     "always_one": [a for a in axes if all(shape[a] == 1 for shape in shapes)]}
    return out


def _import_untraced(req: dict[str, Any], rec: Recorder) -> Any:
    """The model's module, imported with no line tracing: tracing a library checkout's import
    line by line (transformers: 29 000 lines) tripled the observer's time, and no export records
    a line that ran only then. The user's files it loaded are still kept, with no line (in a fork
    of a model server, the import happened there: ``BEFORE_PRELOAD``)."""
    from trtcodemod.verify.modelserver import BEFORE_PRELOAD

    before = set(sys.modules if BEFORE_PRELOAD is None else BEFORE_PRELOAD)
    sys.settrace(None)
    try:
        return import_user_module(req["model_file"], req["import_root"], req["module"], req.get("extra_paths", []))
    finally:
        sys.settrace(rec.trace)
        for name in set(sys.modules) - before:
            filename = module_file(sys.modules.get(name))
            if filename and rec.user(filename):
                rec.lines.setdefault(os.path.realpath(filename), set())


def _observe_task(req: dict[str, Any], cp: Checkpoint) -> None:
    import numpy as np
    import torch

    from trtcodemod.migrate.tensor_sites import TensorSites
    from trtcodemod.verify.inputs import STRETCHES, make_input_sets, stretched_set

    seed = req["seed"]
    torch.manual_seed(seed)
    np.random.seed(seed)
    user = UserFiles(list(req.get("user_roots", ())))
    rec = Recorder(user)
    cp.data["facts"] = None
    sys.settrace(rec.trace)
    builds = Builds(rec)
    try:
        cp.stage("import")
        module = _import_untraced(req, rec)
        cp.stage("build")
        torch.manual_seed(seed)
        with builds.building():
            model = build_model(module, req["model"], tuple(req.get("model_args", ())),
                                dict(req.get("model_kwargs", {})))
        cp.stage("inputs")
        made = make_input_sets(module, req["inputs"], model, req["dynamic_axes"], seed)
        sets = list(made.sets)
        errors: list[str] = []
        cp.stage("observe")
        sites = TensorSites(rec)
        with torch.no_grad(), Wrappers(rec), sites, builds.calls():
            for k, inputs in enumerate(sets):
                sites.run = k
                failed = _observe_one(model, inputs, rec)
                if failed:
                    errors.append(f"set {k + 1}: {failed}")
            # The stretched set: 2n + 1, or where the model refuses it, 3n, then 2n, then 2n - 1 (STRETCHES).
            # Its facts are kept as they come (a refused try recorded what ran before it
            # failed), but only a set the model ran through names its stretched axes: a proof
            # may say it held there. The facts of the input sets are kept before each try: a model
            # that takes the set but not the memory it needs (a 3-D attention at twice the size)
            # gets the worker killed, and the parent keeps these instead.
            changed: list[str] = []
            refused: list[str] = []
            rec.stretched = True
            for attempt, how in enumerate(STRETCHES if req["dynamic_axes"] else ()):
                stretched, tried = stretched_set(sets[0], req["dynamic_axes"], seed, how=how)
                if not tried:
                    break
                cp.data["facts"] = _facts(rec, sites, made.names, sets, changed, [*errors, STRETCHED_KILLED])
                cp.stage(STRETCHED_STAGE)
                sites.run = len(made.sets) + attempt  # a refused try's calls do not use up this one's
                failed = _observe_one(model, stretched, rec)
                if failed is None:
                    sets.append(stretched)
                    changed = tried
                    if refused:
                        errors.append(f"the stretched set at {'; at '.join(refused)}; taken at {how} instead")
                    break
                refused.append(f"{how} refused ({failed})")
            else:
                if refused:
                    errors.append("the stretched set: " + "; ".join(refused))
    finally:
        sys.settrace(None)
    cp.data["facts"] = _facts(rec, sites, made.names, sets, changed, errors)


def _observe_one(model: Any, inputs: dict[str, Any], rec: Any) -> str | None:
    """One recorded forward: None, or the error the model raised (a failing set is a fact too)."""
    rec.begin_call()
    rec.recording = True
    try:
        model(**inputs)
        return None
    except Exception as exc:  # noqa: BLE001 - kept as the run's error
        return f"{type(exc).__name__}: {exc}"
    finally:
        rec.recording = False


#: The observer's stage while the stretched set runs, and what the facts say where it was killed there.
STRETCHED_STAGE = "observe the stretched set"
STRETCHED_KILLED = "the stretched set: the observer was killed running it (out of memory?); facts of the other sets"


def _facts(rec: Any, sites: Any, names: list[str], sets: list[Any], changed: list[str],
           errors: list[str]) -> dict[str, Any]:
    """The observed facts as JSON, from the sets run so far."""
    return {
        "version": 1,
        "runs": len(sets),
        "stretched": changed,
        "run_errors": errors,
        "lines": {path: sorted(lines) for path, lines in sorted(rec.lines.items())},
        "forward": {path: sorted(lines) for path, lines in sorted(rec.forward.items())},
        "events": sorted([*rec.events.values(), *_read_first(rec), *sites.events()],
                         key=lambda e: (e["path"], e["line"], e["column"], e["kind"], e.get("name", ""))),
        "inputs": _varying_axes(names, sets),
        "hashes": _hashes(rec.lines),
    }


def _read_first(rec: Any) -> list[dict[str, Any]]:
    """``state_read`` events: each attribute a forward wrote (``state_write``) that some forward read
    before writing it in that same forward, at the first such read: a value that may cross calls."""
    written = {e["attribute"] for e in rec.events.values() if e["kind"] == "state_write"}
    out = []
    for name in sorted(written & rec.read_first.keys()):
        path, line, col, end_line, end_col = rec.read_first[name]
        out.append({"kind": "state_read", "path": path, "line": line, "column": col, "end_line": end_line,
                    "end_column": end_col, "direct": True, "count": 1, "attribute": name})
    return out


def _hashes(lines: dict[str, set[int]]) -> dict[str, str]:
    """The contents each file ran from, as facts remember them (``facts.source_hash``)."""
    from trtcodemod.evidence.facts import source_hash

    out = {}
    for path in sorted(lines):
        try:
            with open(path, "rb") as handle:
                out[path] = source_hash(handle.read())
        except OSError:
            continue  # gone since it ran: nothing to compare later
    return out


def main(argv: list[str] | None = None) -> int:
    return worker_main({OBSERVE_TASK: _observe_task}, argv)


if __name__ == "__main__":
    sys.exit(main())
