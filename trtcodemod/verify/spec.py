"""What to verify: the model, its inputs, the rewrite options and the run settings.

Everything here is plain data (picklable, no torch), so the CLI can build a spec
without importing torch and worker processes can receive parts of it.
"""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from trtcodemod.config import ConfigError, find_pyproject, load_table

from .unordered import UnorderedError, parse_all as parse_unordered

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

EXPORTERS = ("torchscript", "dynamo")
#: Every backend the verifier knows, in report order.
BACKENDS = (
    "torch-cpu",
    "torch-cuda",
    "onnxruntime-cpu",
    "onnxruntime-cuda",
    "onnxruntime-tensorrt",
    "tensorrt",
)
DEFAULTS: dict[str, Any] = {
    "exporter": "torchscript",
    # 17 is the newest opset TensorRT 8.6 parses; the dynamo exporter converts down to it.
    "opset": 17,
    "backends": "all",
    "atol": 1e-4,
    "rtol": 1e-3,
    "runs": 20,
    "warmup": 3,
    # Seconds of warm-up and timed runs per latency figure; a slow model's figure comes from
    # fewer than `runs` runs (at least 3) instead of minutes of timing. 0: always `runs`.
    "timing_budget": 10.0,
    # One thread: timings on a shared machine stay comparable between before and after.
    "threads": 1,
    "timeout": 300.0,
    "seed": 0,
    "select": ("ALL",),
    "ignore": (),
    "unsafe": False,
    "target": "8.6",
}


class SpecError(ValueError):
    """Bad arguments or configuration: the run cannot start (exit 2)."""


@dataclass(frozen=True)
class InputsSpec:
    """Where input tensors come from: a callable in the model file, or shapes."""

    function: str | None = None
    #: ``(name, shape)`` pairs from ``--input-shape``; random float32 inputs.
    shapes: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def describe(self) -> str:
        if self.function:
            return f"{self.function}()"
        return ", ".join(f"{n}:{'x'.join(map(str, s))}" for n, s in self.shapes)


@dataclass(frozen=True)
class RewriteOptions:
    """The same knobs as ``trtcodemod apply``."""

    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    unsafe: bool = False
    target: str = "8.6"


@dataclass(frozen=True)
class VerifySpec:
    """One model to verify, fully resolved."""

    model_file: Path
    model: str
    inputs: InputsSpec
    name: str = ""
    dynamic_axes: Mapping[str, Mapping[int, str]] = field(default_factory=dict)
    rewrite: RewriteOptions = RewriteOptions()
    exporters: tuple[str, ...] = ("torchscript",)
    opset: int = 17
    backends: tuple[str, ...] = BACKENDS
    atol: float = 1e-4
    rtol: float = 1e-3
    runs: int = 20
    warmup: int = 3
    #: Seconds of timing per latency figure (``latency.time_calls``); 0: always ``runs``.
    timing_budget: float = 10.0
    threads: int = 1
    timeout: float = 300.0
    #: ``migrate``: seconds for the whole model (every worker included); None: no limit.
    model_timeout: float | None = None
    seed: int = 0
    save_dir: Path | None = None
    #: Outputs whose row order is not part of the contract, ``NAME`` or ``NAME:AXIS`` as given
    #: (``unordered.py``: compared with their rows sorted; checked against the model's outputs).
    unordered: tuple[str, ...] = ()
    #: Where ``unordered`` was given, for its error messages: the option, or the config's model.
    unordered_source: str = "--unordered"
    #: Constructor arguments: ``--model 'Net(3, width=8)'`` or config ``args``/``kwargs``.
    model_args: tuple[Any, ...] = ()
    model_kwargs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def model_call(self) -> str:
        """``Net`` or ``Net(3, width=8)``, as the user wrote it."""
        if not self.model_args and not self.model_kwargs:
            return self.model
        parts = [repr(a) for a in self.model_args] + [f"{k}={v!r}" for k, v in self.model_kwargs.items()]
        return f"{self.model}({', '.join(parts)})"

    @property
    def label(self) -> str:
        return self.name or f"{self.model_file.name}:{self.model}"

    def with_rewrite(self, **changes: Any) -> "VerifySpec":
        return replace(self, rewrite=replace(self.rewrite, **changes))


# --- parsing of single values -------------------------------------------------------


def parse_input_shape(text: str) -> tuple[str, tuple[int, ...]]:
    """``"x:1x3x224x224"`` -> ``("x", (1, 3, 224, 224))``."""
    name, sep, dims = text.partition(":")
    if not sep or not name.strip() or not dims.strip():
        raise SpecError(f"--input-shape {text!r}: expected NAME:1x3x224x224")
    try:
        shape = tuple(int(d) for d in dims.lower().replace(",", "x").split("x") if d.strip())
    except ValueError:
        raise SpecError(f"--input-shape {text!r}: dimensions must be integers") from None
    if any(d < 0 for d in shape):
        raise SpecError(f"--input-shape {text!r}: negative dimension")
    return name.strip(), shape


def parse_dynamic_axes(value: str | Mapping[str, Any] | None) -> dict[str, dict[int, str]]:
    """JSON ``{"x": {"0": "batch"}}`` (or ``{"x": [0]}``) -> ``{"x": {0: "batch"}}``."""
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise SpecError(f"--dynamic-axes is not valid JSON: {exc}") from None
    if not isinstance(value, Mapping):
        raise SpecError("--dynamic-axes must be a JSON object: {\"input\": {\"0\": \"batch\"}}")
    axes: dict[str, dict[int, str]] = {}
    for name, dims in value.items():
        if isinstance(dims, Mapping):
            items = list(dims.items())
        elif isinstance(dims, (list, tuple)):
            items = [(d, f"{name}_dim{d}") for d in dims]
        else:
            raise SpecError(f"--dynamic-axes[{name!r}]: expected an object or a list of axes")
        try:
            axes[str(name)] = {int(k): str(v) for k, v in items}
        except (TypeError, ValueError):
            raise SpecError(f"--dynamic-axes[{name!r}]: axis keys must be integers") from None
    return axes


def parse_ids(value: str | tuple[str, ...] | list[str] | None) -> tuple[str, ...] | None:
    """``"TRT1,TRT401"`` or a list -> a tuple of upper-case IDs; None stays None."""
    if value is None:
        return None
    parts = value.split(",") if isinstance(value, str) else list(value)
    return tuple(p.strip().upper() for p in parts if p and p.strip())


def parse_backends(value: str | tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    """``"all"`` or a comma list; ``onnxruntime``/``ort`` and ``torch`` expand to their devices."""
    if value is None or value == "all" or value == ["all"]:
        return BACKENDS
    parts = value.split(",") if isinstance(value, str) else list(value)
    aliases = {
        "torch": ("torch-cpu", "torch-cuda"),
        "eager": ("torch-cpu", "torch-cuda"),
        "onnxruntime": ("onnxruntime-cpu", "onnxruntime-cuda", "onnxruntime-tensorrt"),
        "ort": ("onnxruntime-cpu", "onnxruntime-cuda", "onnxruntime-tensorrt"),
        "ort-cpu": ("onnxruntime-cpu",),
        "ort-cuda": ("onnxruntime-cuda",),
        "ort-tensorrt": ("onnxruntime-tensorrt",),
        "trt": ("tensorrt",),
        "all": BACKENDS,
    }
    chosen: set[str] = set()
    for part in (p.strip().lower() for p in parts if p.strip()):
        if part in BACKENDS:
            chosen.add(part)
        elif part in aliases:
            chosen.update(aliases[part])
        else:
            raise SpecError(f"--backends: unknown backend {part!r} (known: {', '.join(BACKENDS)})")
    # The original's eager CPU output is the reference for everything, and ONNX Runtime
    # CPU is how the export-faithfulness check runs each graph, so both always run.
    chosen.update(("torch-cpu", "onnxruntime-cpu"))
    return tuple(b for b in BACKENDS if b in chosen)


def parse_exporter(value: str | None) -> tuple[str, ...]:
    value = (value or "torchscript").lower()
    if value == "both":
        return EXPORTERS
    if value not in EXPORTERS:
        raise SpecError(f"--exporter must be torchscript, dynamo or both, not {value!r}")
    return (value,)


def parse_model(text: str) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """``"Net(3, width=8)"`` -> ``("Net", (3,), {"width": 8})``; a bare name has no arguments.

    Arguments must be Python literals (numbers, strings, tuples, lists, dicts, None, booleans):
    the text is parsed, never evaluated.
    """
    text = text.strip()
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise SpecError(f"--model {text!r}: expected NAME or NAME(literal arguments)") from None
    if isinstance(tree, (ast.Name, ast.Attribute)):
        return text, (), {}
    if not isinstance(tree, ast.Call) or not isinstance(tree.func, (ast.Name, ast.Attribute)):
        raise SpecError(f"--model {text!r}: expected NAME or NAME(literal arguments)")
    try:
        args = tuple(ast.literal_eval(a) for a in tree.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in tree.keywords if k.arg is not None}
    except ValueError:
        raise SpecError(f"--model {text!r}: constructor arguments must be Python literals") from None
    if len(kwargs) != len(tree.keywords):
        raise SpecError(f"--model {text!r}: **kwargs is not supported; name each argument")
    return ast.unparse(tree.func), args, kwargs


# --- building specs ------------------------------------------------------------------


def build_spec(settings: Mapping[str, Any], *, base_dir: Path | None = None, name: str = "",
               unordered_source: str = "--unordered") -> VerifySpec:
    """Resolve one model's settings (CLI values or a config table, defaults filled in).

    ``unordered_source`` says where ``unordered`` came from (``--unordered``, or the config file
    and model table), for the error when it names an output the model does not have.
    """
    s = {**DEFAULTS, **{k: v for k, v in settings.items() if v is not None}}
    if not s.get("model_file"):
        raise SpecError(f"{name or 'verify'}: model_file is required")
    if not s.get("model"):
        raise SpecError(f"{name or 'verify'}: --model NAME is required")
    model_file = Path(s["model_file"]).expanduser()
    if base_dir is not None and not model_file.is_absolute():
        model_file = base_dir / model_file
    model_file = model_file.resolve()
    if not model_file.is_file():
        raise SpecError(f"{model_file}: no such file")

    raw_shapes = s.get("input_shape") or ()
    if isinstance(raw_shapes, str):
        raw_shapes = [raw_shapes]
    if isinstance(raw_shapes, Mapping):
        shapes = tuple((str(k), tuple(int(d) for d in v)) for k, v in raw_shapes.items())
    else:
        shapes = tuple(parse_input_shape(t) for t in raw_shapes)
    if s.get("inputs") and shapes:
        raise SpecError("give either --inputs or --input-shape, not both")
    if not s.get("inputs") and not shapes:
        raise SpecError("no inputs: give --inputs NAME (a function in the model file) or --input-shape NAME:1x3x224x224")

    try:
        numbers = {k: float(s[k]) for k in ("atol", "rtol", "timeout", "timing_budget")}
        ints = {k: int(s[k]) for k in ("opset", "runs", "warmup", "seed", "threads")}
    except (TypeError, ValueError) as exc:
        raise SpecError(f"bad number: {exc}") from None
    if ints["runs"] < 1 or ints["warmup"] < 0 or ints["threads"] < 0 or numbers["timeout"] <= 0 \
            or numbers["timing_budget"] < 0:
        raise SpecError("--runs must be >= 1, --warmup >= 0, --threads >= 0, --timeout > 0 and --timing-budget >= 0")
    try:
        model_timeout = None if s.get("model_timeout") is None else float(s["model_timeout"])
    except (TypeError, ValueError) as exc:
        raise SpecError(f"bad number: {exc}") from None
    if model_timeout is not None and model_timeout <= 0:
        raise SpecError("--model-timeout must be > 0")

    save_dir = s.get("save")
    model, model_args, model_kwargs = parse_model(str(s["model"]))
    if s.get("args") is not None or s.get("kwargs") is not None:
        if model_args or model_kwargs:
            raise SpecError(f"{name or 'verify'}: give constructor arguments in --model or in args/kwargs, not both")
        raw_args, raw_kwargs = s.get("args") or [], s.get("kwargs") or {}
        if not isinstance(raw_args, (list, tuple)) or not isinstance(raw_kwargs, Mapping):
            raise SpecError(f"{name or 'verify'}: args must be a list and kwargs a table")
        model_args, model_kwargs = tuple(raw_args), dict(raw_kwargs)
    unordered = s.get("unordered") or ()
    unordered = tuple(str(u).strip() for u in (unordered.split(",") if isinstance(unordered, str) else unordered)
                      if str(u).strip())
    try:
        parse_unordered(unordered)  # the syntax now; the names once the model has run
    except UnorderedError as exc:
        raise SpecError(f"{unordered_source}: {exc}") from None
    return VerifySpec(
        model_file=model_file,
        model=model,
        model_args=model_args,
        model_kwargs=model_kwargs,
        unordered=unordered,
        unordered_source=unordered_source,
        inputs=InputsSpec(function=s.get("inputs") or None, shapes=shapes),
        name=name,
        dynamic_axes=parse_dynamic_axes(s.get("dynamic_axes")),
        rewrite=RewriteOptions(
            select=parse_ids(s["select"]) or ("ALL",),
            ignore=parse_ids(s["ignore"]) or (),
            unsafe=bool(s["unsafe"]),
            target=str(s["target"]),
        ),
        exporters=parse_exporter(s.get("exporter")),
        opset=ints["opset"],
        backends=parse_backends(s.get("backends")),
        atol=numbers["atol"],
        rtol=numbers["rtol"],
        runs=ints["runs"],
        warmup=ints["warmup"],
        timing_budget=numbers["timing_budget"],
        threads=ints["threads"],
        timeout=numbers["timeout"],
        model_timeout=model_timeout,
        seed=ints["seed"],
        save_dir=Path(save_dir).resolve() if save_dir else None,
    )


# --- configuration files -------------------------------------------------------------


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SpecError(f"{path}: cannot read configuration: {exc}") from None


def load_project_defaults(start: Path) -> dict[str, Any]:
    """``select/ignore/unsafe/target`` from ``[tool.trtcodemod]``, as ``apply`` would use them."""
    path = find_pyproject(start)
    if path is None:
        return {}
    try:
        table = load_table(path)
    except ConfigError as exc:
        raise SpecError(str(exc)) from None
    return {k: table[k] for k in ("select", "ignore", "unsafe", "target") if k in table}


def load_model_tables(config: Path | None, start: Path) -> tuple[Path, dict[str, dict[str, Any]]]:
    """The ``models.NAME`` tables: from ``--config FILE``, else from the nearest pyproject.

    A ``--config`` file may hold ``[models.NAME]`` or ``[tool.trtcodemod.models.NAME]``.
    Returns the file (its folder anchors relative ``model_file`` paths) and the tables.
    """
    if config is not None:
        path = config.resolve()
        if not path.is_file():
            raise SpecError(f"{config}: no such configuration file")
        data = _read_toml(path)
        tables = data.get("models") or data.get("tool", {}).get("trtcodemod", {}).get("models")
    else:
        found = find_pyproject(start)
        if found is None:
            raise SpecError("no MODEL_FILE given and no pyproject.toml with [tool.trtcodemod.models.NAME] found")
        path = found
        tables = _read_toml(path).get("tool", {}).get("trtcodemod", {}).get("models")
    if not tables or not isinstance(tables, dict):
        raise SpecError(f"{path}: no [models.NAME] / [tool.trtcodemod.models.NAME] tables")
    return path, {str(k): dict(v) for k, v in tables.items() if isinstance(v, dict)}
