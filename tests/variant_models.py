"""The harness for runnable real-code variants (``tests/*_variants/``, ``tests/recipe_variants/``).

A variant is a small model file with ``build()``, ``inputs(generator)`` and ``DYNAMIC`` (dynamic
axes by input name). These helpers load one, make inputs of the same kinds at other sizes, export
it the way migrate's verifier does, compare a graph with eager mode, and turn the export's
TracerWarnings into the facts migrate records.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
from pathlib import Path
from types import ModuleType

import numpy as np
import onnxruntime as ort
import torch

from trtcodemod.evidence.facts import Facts
from trtcodemod.verify.export import export_model


def load_variant(path: Path, name: str) -> ModuleType:
    """The variant's file imported as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def variant_inputs(module: ModuleType, shapes: list[tuple[int, ...]] | None, seed: int) -> tuple[torch.Tensor, ...]:
    """The variant's inputs, or new tensors of the same kinds at ``shapes``."""
    example = module.inputs(torch.Generator().manual_seed(seed))
    if shapes is None:
        return example
    generator = torch.Generator().manual_seed(seed)
    made = []
    for tensor, shape in zip(example, shapes):
        if tensor.is_floating_point():
            made.append(torch.randn(shape, generator=generator))
        else:
            made.append(torch.randint(0, int(tensor.max()) + 1, shape, generator=generator))
    return tuple(made)


def random_boxes(count: int, seed: int, classes: int = 3, low: float = 0.0, spread: float = 40.0,
                 size: float = 16.0) -> tuple[torch.Tensor, ...]:
    """``count`` corner boxes (x1, y1 within ``spread`` of ``low``, 1 to ``size + 1`` wide and high), their scores in
    [0, 1) and their labels among ``classes``: candidates for an NMS, seeded."""
    generator = torch.Generator().manual_seed(seed)
    corner = torch.rand(count, 2, generator=generator) * spread + low
    boxes = torch.cat([corner, corner + torch.rand(count, 2, generator=generator) * size + 1], 1)
    scores = torch.rand(count, generator=generator)
    labels = torch.randint(0, classes, (count,), generator=generator)
    return boxes, scores, labels


def input_names(model: torch.nn.Module) -> list[str]:
    return list(inspect.signature(model.forward).parameters)


def export_variant(model: torch.nn.Module, example: tuple, dynamic: dict, path: Path,
                   root: Path) -> tuple[ort.InferenceSession, list]:
    """The TorchScript export with dynamic axes (as migrate's verifier runs it), and its
    TracerWarnings placed at the innermost line under ``root``, as migrate places them."""
    result = export_model(model, example, path, exporter="torchscript", input_names=input_names(model),
                          output_names=["out"], dynamic_axes=dynamic, opset=17, user_roots=(str(root),))
    assert result.error is None, result.error
    traced = [(w["file"], w["line"], w["message"]) for w in result.warnings if w["category"] == "TracerWarning"]
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]), traced


def export_variant_dynamo(model: torch.nn.Module, example: tuple, dynamic: dict, path: Path) -> ort.InferenceSession:
    """The dynamo export with the same dynamic axes (opset 18), loaded in ONNX Runtime."""
    result = export_model(model, example, path, exporter="dynamo", input_names=input_names(model),
                          output_names=["out"], dynamic_axes=dynamic, opset=18)
    assert result.error is None, result.error
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def assert_graph_equals_eager(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple,
                              context: str) -> None:
    """The graph's one output equals eager mode's (shape, values to 1e-6, NaN where NaN)."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    assert got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True), context


def graph_matches(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple,
                  equal_nan: bool = False, kept_only: bool = False) -> bool:
    """Whether the graph runs at these inputs and gives eager mode's output (shape and values;
    NaN where eager mode has NaN, with ``equal_nan``). With ``kept_only``, only the inputs the
    graph kept are fed: a trace that made an input's values constants has dropped it."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    kept = {i.name for i in session.get_inputs()}
    try:
        [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)
                                   if n in kept or not kept_only})
    except Exception:  # noqa: BLE001 - a graph that cannot run at this size does not match
        return False
    return got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=equal_nan)


def traced_facts(path: Path, traced: list) -> Facts:
    """What migrate's observer and export record: every line ran, the TracerWarnings' lines."""
    source = str(path.resolve())
    facts = Facts(runs=1, lines={source: set(range(1, len(path.read_text().splitlines()) + 1))})
    facts.note_traced(w for w in traced if Path(w[0]).resolve() == path.resolve())
    return facts


def observed_facts(path: Path, module: ModuleType, work: Path, traced: list = ()) -> Facts:
    """What migrate records on the variant: its observer's run (a worker process, as migrate starts
    it, with the variant's dynamic axes), plus the export's TracerWarnings when given."""
    from trtcodemod.migrate.run import observe
    from trtcodemod.verify.spec import build_spec

    axes = {name: {str(axis): label for axis, label in given.items()} for name, given in module.DYNAMIC.items()}
    facts, why = observe(build_spec({"model_file": str(path), "model": "build", "inputs": "inputs",
                                     "dynamic_axes": axes}), work)
    assert facts is not None, why
    facts.note_traced(w for w in traced if Path(w[0]).resolve() == path.resolve())
    return facts


def load_rewritten(path: Path, rules: tuple[str, ...], folder: Path, prefix: str) -> tuple[ModuleType, str, ModuleType]:
    """The variant at ``path``, the text ``rules`` write from its code alone (``--unsafe``, as
    migrate tries a verified candidate, every line in scope), and that text imported from ``folder``."""
    from trtcodemod.engine import Options

    options = Options(select=rules, unsafe=True, scope="all")
    text, rewritten = rewrite_variant(path, options, folder, f"{prefix}_rewritten_{path.stem}")
    return load_variant(path, f"{prefix}_{path.stem}"), text, rewritten


def built(module: ModuleType) -> torch.nn.Module:
    """The variant's model in eval mode, its weights drawn from seed 0 (the same for a rewrite)."""
    torch.manual_seed(0)
    return module.build().eval()


def built_pair(path: Path, rules: tuple[str, ...], folder: Path, prefix: str) -> tuple:
    """The variant's module, its model and the one ``rules`` rewrite (same weights), its example inputs."""
    module, _, rewritten = load_rewritten(path, rules, folder, prefix)
    return module, built(module), built(rewritten), variant_inputs(module, None, 0)


def rewrite_variant(path: Path, options, folder: Path, module_name: str) -> tuple[str, ModuleType]:
    """The variant's file as the rules selected by ``options`` rewrite it, written under
    ``folder`` and imported as ``module_name``."""
    from trtcodemod.engine import fix_source

    text = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    new_path = folder / f"{path.stem}_rewritten.py"
    new_path.write_text(text)
    return text, load_variant(new_path, module_name)


def assert_eager_unchanged(original, after, sets: dict[str, tuple]) -> None:
    """Both callables do the same on each input set (outputs, inputs afterwards, exceptions),
    as given and with their float inputs requiring grad (then input gradients too)."""
    from safety import assert_same_run, run_once

    for label, inputs in sets.items():
        graded = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
        for given in (list(inputs), graded):
            assert_same_run(run_once(original, given), run_once(after, given), context=label)


def built_variant(path: Path, name: str) -> tuple[ModuleType, torch.nn.Module]:
    """The variant's module and its model in eval mode, built after seeding torch with 0."""
    module = load_variant(path, name)
    return module, built(module)


def rewritten_variant(path: Path, rule: str, folder: Path, target: str | None = None) -> dict:
    """The variant rewritten by one rule from its code alone (``--unsafe``, every scope, the default
    TensorRT target or ``target``): the new source, the source without ``--unsafe``, and the original
    and rewritten models (same weights)."""
    from trtcodemod.engine import Options, fix_source

    def rewrite(unsafe: bool) -> str:
        options = Options(select=(rule,), unsafe=unsafe, scope="all")
        if target is not None:
            options = Options(select=(rule,), unsafe=unsafe, scope="all", target=target)
        return fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()

    module, original = built_variant(path, f"{rule}_{path.stem}")
    source = rewrite(True)
    new_path = folder / f"{path.stem}_rewritten.py"
    new_path.write_text(source)
    _, rewritten = built_variant(new_path, f"{rule}_rewritten_{path.stem}")
    rewritten.load_state_dict(original.state_dict())
    return dict(name=path.stem, path=path, module=module, original=original, rewritten=rewritten, source=source,
                safe_only=rewrite(False))


def resize_input_sets(module: ModuleType, shapes: list[tuple[int, ...]], seed: int) -> dict[str, torch.Tensor]:
    """Finite inputs for a one-input resize variant: its example, random tensors at ``shapes``,
    zeros and negatives."""
    generator = torch.Generator().manual_seed(seed)
    example = module.inputs(torch.Generator().manual_seed(0))[0]
    return {"example": example, **{f"size {s}": torch.randn(s, generator=generator) for s in shapes},
            "zeros": torch.zeros_like(example), "negatives": -example.abs() - 1}


def assert_graph_near_eager(graph, model: torch.nn.Module, sets: dict[str, torch.Tensor], relative: float,
                            context: str) -> None:
    """ONNX Runtime on ``graph`` (an ONNX ModelProto with one input and one output) gives eager
    mode's output on every set: the same shape, values within ``relative`` times the largest
    magnitude (at least 1), as an unsafe rule that sums in another order states its tolerance."""
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    for label, x in sets.items():
        with torch.no_grad():
            want = model(x).numpy()
        [got] = session.run(None, {input_names(model)[0]: x.numpy()})
        scale = max(float(np.abs(want).max(initial=0.0)), 1.0)
        assert got.shape == want.shape, (context, label, got.shape, want.shape)
        assert np.allclose(got, want, rtol=0, atol=relative * scale), (context, label, np.abs(got - want).max())


def resize_eager_sets(module: ModuleType, shapes: list[tuple[int, ...]], seed: int) -> dict[str, tuple]:
    """Input sets (one tensor each) for comparing eager runs of a resize variant: the example,
    random tensors at ``shapes``, zeros, inf/-inf/NaN, and a wrong rank (which must raise alike)."""
    generator = torch.Generator().manual_seed(seed)
    example = module.inputs(torch.Generator().manual_seed(0))[0]
    special = example.clone().flatten()
    special[:3] = torch.tensor([float("inf"), float("nan"), -float("inf")])
    return {"example": (example,), **{f"size {s}": (torch.randn(s, generator=generator),) for s in shapes},
            "zeros": (torch.zeros_like(example),), "inf-nan": (special.reshape(example.shape),),
            "wrong rank": (torch.randn(2, 3),)}


def assert_unsafe_rewrite(variant: dict, fragments: tuple[str, ...], rule: str) -> None:
    """``rule`` rewrote the variant (from ``rewritten_variant``) with ``fragments`` in the new code,
    left nothing of its own to find there, and changed nothing without ``--unsafe``."""
    from support import rules_found

    for fragment in fragments:
        assert fragment in variant["source"], variant["source"]
    assert rules_found(variant["source"], select=(rule,)) == []
    assert variant["safe_only"] == variant["path"].read_text()


def exported_graph(model: torch.nn.Module, module: ModuleType, path: Path, dynamo: bool):
    """``model`` exported at the variant's example with its dynamic axes (``export_variant`` or
    ``export_variant_dynamo``), loaded as an ONNX ModelProto."""
    import onnx

    example = module.inputs(torch.Generator().manual_seed(0))
    if dynamo:
        export_variant_dynamo(model, example, module.DYNAMIC, path)
    else:
        export_variant(model, example, module.DYNAMIC, path, path.parent)
    return onnx.load(str(path))


def seeded(seed: int) -> torch.Generator:
    """A CPU generator seeded with ``seed``: the variants' input sets are the same on every run."""
    return torch.Generator().manual_seed(seed)


def seeded_rand(*shape: int, seed: int = 1, scale: float = 1.0) -> torch.Tensor:
    """Uniform values in ``[0, scale)`` drawn from ``seeded(seed)``."""
    return torch.rand(*shape, generator=seeded(seed)) * scale


def seeded_specials(*shape: int, seed: int) -> torch.Tensor:
    """``seeded_rand`` with inf, -inf and NaN written at fixed strides (every 7th, 11th from 3, 13th from 5)."""
    x = seeded_rand(*shape, seed=seed)
    flat = x.view(-1)
    flat[::7], flat[3::11], flat[5::13] = float("inf"), -float("inf"), float("nan")
    return x


def with_specials(shape: tuple[int, ...], seed: int) -> torch.Tensor:
    """Random values with +inf, NaN and -inf in the first three places."""
    x = torch.randn(shape, generator=seeded(seed)).flatten()
    x[:3] = torch.tensor([float("inf"), float("nan"), -float("inf")])
    return x.reshape(shape)


def assert_graph_within(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple, tolerance: float,
                        label: str) -> None:
    """Each of the graph's outputs is eager mode's (one tensor or a tuple of them): shape and dtype;
    non-float values exactly, floats to ``tolerance`` of the largest finite magnitude (1 at least),
    NaN and infinities where eager mode has them."""
    with torch.no_grad():
        result = model(*inputs)
    wants = [w.numpy() for w in (result if isinstance(result, (tuple, list)) else (result,))]
    gots = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    assert len(gots) == len(wants), (label, len(gots), len(wants))
    for got, want in zip(gots, wants):
        assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape)
        if want.dtype.kind != "f":
            assert np.array_equal(got, want), (label, got, want)
            continue
        finite = np.abs(want[np.isfinite(want)])
        scale = max(1.0, float(finite.max()) if finite.size else 1.0)
        assert np.allclose(got, want, rtol=0, atol=tolerance * scale, equal_nan=True), (label, got, want)


def assert_follows_where_baked(baked: ort.InferenceSession, session: ort.InferenceSession, original: torch.nn.Module,
                               rewritten: torch.nn.Module, example: tuple, sets: dict[str, tuple],
                               tolerance: float = 1e-5) -> None:
    """The original's graph (``baked``) differs from eager mode at ``sets["other size"]``; the rewritten one
    (``session``) is eager mode on every set; and eager mode is unchanged by the rewrite on them and the example."""
    assert not graph_matches(baked, original, sets["other size"])
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, tolerance, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **sets})


def line_of(path: Path, fragment: str) -> int:
    """The one line of code in ``path`` that holds ``fragment`` (docstrings quote code in ``)."""
    [line] = [i for i, text in enumerate(path.read_text().splitlines(), 1) if fragment in text and "``" not in text]
    return line


def axes_json(module: ModuleType) -> str:
    """A variant's ``DYNAMIC`` axes as ``--dynamic-axes`` takes them."""
    import json

    return json.dumps({name: {str(axis): label for axis, label in axes.items()}
                       for name, axes in module.DYNAMIC.items()})


def assert_follows_the_batch(original: torch.nn.Module, rewritten: torch.nn.Module, module: ModuleType,
                             example: tuple, sets: dict[str, tuple], tmp_path: Path) -> None:
    """A per-image loop's rewrite (TRT360, TRT361): eager mode unchanged on every set; the original's export,
    unrolled with the example's batch, misses ``sets["batch-3"]``; the rewritten one's equals eager mode on all."""
    import pytest

    assert_eager_unchanged(original, rewritten, {"example": example, **sets})
    before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    with pytest.raises((AssertionError, Exception)):  # noqa: B017 - the unrolled loops: other rows or a refusal
        assert_graph_within(before, original, sets["batch-3"], 1e-5, "batch-3")
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in {"example": example, **sets}.items():
        assert_graph_within(session, original, inputs, 1e-5, label)


def migrate_with_standin(source: Path, standin: Path, tmp_path: Path, name: str) -> tuple[Path, dict]:
    """(the copy of ``source`` in ``tmp_path``, ``migrate``'s JSON report on it), torchvision there the stand-in."""
    import shutil

    from support import migrate_json

    path = tmp_path / source.name
    shutil.copy(source, path)
    (tmp_path / "torchvision").mkdir()
    shutil.copy(standin, tmp_path / "torchvision" / "__init__.py")
    module, _ = built_variant(source, name)
    return path, migrate_json(path, axes_json(module))


#: torchvision's NMS functions in plain PyTorch (tests/transforms/torchvision_standin.py): no torchvision here.
TORCHVISION_STANDIN = Path(__file__).resolve().parent / "transforms" / "torchvision_standin.py"


def assert_cited_by_distinct_owners(folder: Path, names: list[str], count: int = 5) -> None:
    """Each variant ``folder/<name>.py`` cites exactly one repository at a full commit (``owner/repo @ <sha>``) or at
    the release its wheel on PyPI shipped (``owner/repo @ pypi:<name>==<version>``, where the repository's history
    lacks that code), and the ``count`` variants come from ``count`` different owners."""
    owners = set()
    for name in names:
        repositories = set(re.findall(r"\b([\w.-]+/[\w.-]+) @ (?:[0-9a-f]{40}|pypi:[\w.-]+==[0-9][\w.]*)",
                                      (folder / f"{name}.py").read_text()))
        assert len(repositories) == 1, (name, repositories)
        owners.add(repositories.pop().split("/")[0])
    assert len(owners) == len(names) == count, owners


def _safe_rewrite_unchanged_in_eager(
        path: Path, rule: str, folder: Path, fragments: tuple[str, ...], sizes: list[tuple[int, ...]],
) -> tuple[ModuleType, torch.nn.Module, torch.nn.Module, dict[str, tuple]]:
    """The variant at ``path`` rewritten by the safe rule ``rule``: the same text without ``--unsafe``, each of
    ``fragments`` in it, nothing left for the rule to find, and eager mode unchanged on the example and at each of
    ``sizes``. Returns the module, both models and the input sets."""
    from support import rules_found

    variant = rewritten_variant(path, rule, folder)
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    sets = {"example": module.inputs(seeded(0)),
            **{f"sizes {size}": module.inputs(seeded(sum(size) + 1), *size) for size in sizes}}
    assert variant["safe_only"] == variant["source"]  # a safe rule: the same text without --unsafe
    for fragment in fragments:
        assert fragment in variant["source"], variant["source"]
    assert rules_found(variant["source"], select=(rule,)) == []
    assert_eager_unchanged(original, rewritten, sets)
    return module, original, rewritten, sets


def assert_safe_rewrite_exports(path: Path, rule: str, folder: Path, fragments: tuple[str, ...],
                                sizes: list[tuple[int, ...]], stopped_by: str, tolerance: float = 1e-5) -> None:
    """The variant at ``path`` rewritten by the safe rule ``rule`` from its code alone: the same text without
    ``--unsafe``, each of ``fragments`` in it and nothing left for the rule to find; eager mode unchanged on the
    example (``inputs(seeded(0))``) and at each of ``sizes`` (as ``inputs`` takes them, seeded by their sum plus 1);
    the original's TorchScript export stops with an error naming ``stopped_by``; the rewritten one, exported with
    the variant's ``DYNAMIC`` axes, equals eager mode on every set to ``tolerance``."""
    module, original, rewritten, sets = _safe_rewrite_unchanged_in_eager(path, rule, folder, fragments, sizes)
    example = sets["example"]
    before = export_model(original, example, folder / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert before.error is not None and stopped_by in before.error, before.error
    after, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    for label, inputs in sets.items():
        assert_graph_within(after, original, inputs, tolerance, label)


def assert_migrate_applies(path: Path, rule: str, name: str) -> dict:
    """``migrate`` on the variant at ``path`` (its ``DYNAMIC`` axes): the original does not export, ``rule`` is
    applied at the line whose code is the variant's ``CALL`` (not a docstring quoting it), and it ends at exit 0,
    equivalent, with a faithful graph TensorRT's check passes. Returns the report (for a variant's own checks)."""
    from support import migrate_json

    module = load_variant(path, name)
    [line] = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == module.CALL]
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is False, report["before"]
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert (rule, line) in applied, (report["applied"], report["remaining"], report.get("reverted"))
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    return report


def assert_safe_rewrite_corrects(path: Path, rule: str, folder: Path, fragments: tuple[str, ...],
                                 sizes: list[tuple[int, ...]], tolerance: float = 1e-5) -> None:
    """The variant at ``path`` rewritten by the safe rule ``rule`` from its code alone, for a construct that exports
    without an error and computes other values: the same text without ``--unsafe``, each of ``fragments`` in it and
    nothing left for the rule to find; eager mode unchanged on the example and at each of ``sizes`` (as
    ``inputs`` takes them, seeded by their sum plus 1); the original's TorchScript export, with the variant's
    ``DYNAMIC`` axes, differs from eager mode even on the example it was traced with; the rewritten one equals
    eager mode on every set to ``tolerance``."""
    module, original, rewritten, sets = _safe_rewrite_unchanged_in_eager(path, rule, folder, fragments, sizes)
    assert_export_differs_then_matches(module, original, rewritten, folder, sets, tolerance)


def assert_export_differs_then_matches(module: ModuleType, original: torch.nn.Module, rewritten: torch.nn.Module,
                                       folder: Path, sets: dict[str, tuple], tolerance: float = 1e-5) -> None:
    """The original's TorchScript export differs from eager mode on the example it was traced with; the
    rewritten model's equals eager mode (the original's) on every set."""
    example = sets["example"]
    before, _ = export_variant(original, example, module.DYNAMIC, folder / "before.onnx", folder)
    try:
        assert_graph_within(before, original, example, tolerance, "the original's graph on its traced inputs")
    except Exception:  # noqa: BLE001 - other values, or ONNX Runtime refusing them (an index out of range)
        pass
    else:
        raise AssertionError("the original's TorchScript graph equals eager mode on the inputs it was traced with")
    after, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    for label, inputs in sets.items():
        assert_graph_within(after, original, inputs, tolerance, label)


def assert_migrate_corrects(path: Path, rule: str, name: str) -> dict:
    """``migrate`` on the variant at ``path`` (its ``DYNAMIC`` axes): the original exports and its graph differs
    from eager mode, ``rule`` is applied at the line whose code is the variant's ``CALL``, and it ends at exit 0,
    equivalent, with a faithful graph TensorRT's check passes."""
    from support import migrate_json

    module = load_variant(path, name)
    [line] = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == module.CALL]
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert (rule, line) in applied, (report["applied"], report["remaining"], report.get("reverted"))
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    return report
