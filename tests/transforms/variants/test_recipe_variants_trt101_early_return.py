"""TRT101's early return (``if C: return A`` ... ``return B``) on real-code variants.

Each variant in ``tests/recipe_variants/trt101_early_return/`` is a small runnable model reduced from a public
repository (cited in its docstring) that hands a value back early on a tensor condition. Its example takes the
shortcut, so the TorchScript export (a ``TracerWarning`` at the ``if``, the fact migrate records) returns the
shortcut's value on every input, wrong on inputs that take the rest (``other_branch``). TRT101 rewrites the file
with what migrate records (its observer's run, the export's warnings; ``--unsafe``, as migrate tries a verified
candidate): the rewritten graph equals eager mode on both ways and at another size, and eager mode is unchanged,
bit for bit (outputs, input gradients, exceptions, the very input tensor where the shortcut hands it back), on
zeros, negatives, inf/NaN and empty inputs.

Five were not taken before (the rule reported them, "computed" or "a Python value"): a value the early return
computes (pyro's ``super().log_prob(value)`` and ``_unsafe_shift(...)``, torchmetrics' ``tensor(0.0, ...)`` and its
tuple of zeros and ``topk``, selected element by element),
``not`` of a tensor (pyro's ``not near_hole.any()``, torchmetrics' ``not target.sum()``), and a static test
``or``-ed in front (MONAI's ``not self.gaussian or ...``).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from safety import assert_same_run, run_once
from support import TESTS
from variant_models import export_variant, input_names, load_variant, observed_facts, variant_inputs

from trtcodemod.engine import Options, fix_source

HERE = TESTS / "recipe_variants" / "trt101_early_return"

# name -> (fragments of the rewritten code, the shapes of another size, whether the shortcut hands an input back)
VARIANTS: dict[str, tuple[tuple[str, ...], list[tuple[int, ...]], bool]] = {
    # Taken before: a name handed back on `.all()`.
    "kornia_bessel_zero": (("        _trt_cond = zero.all()\n        if _trt_shortcut_taken(_trt_cond):\n"
                            "            return x\n        _trt_shortcut = x\n",
                            "        return _trt_shortcut_select(_trt_cond, _trt_shortcut, out)\n"),
                           [(3, 4)], True),
    # A static guard or-ed in front: it keeps its own `if`, the shortcut reads the tensor part.
    "monai_nuclick_gaussian": (("        if not self.gaussian:\n            return t\n"
                                "        _trt_cond = (t != 0).sum() == 0\n        if _trt_shortcut_taken(_trt_cond):\n"
                                "            return t\n        _trt_shortcut = t\n",), [(6, 13)], True),
    # A computed value (through super()), computed only while tracing.
    "pyro_nanmasked_normal": (("        _trt_shortcut = super().log_prob(value) if _trt_tracing() else None\n",
                               "        return _trt_shortcut_select(_trt_cond, _trt_shortcut, result)\n"),
                              [(7, 3)], False),
    # `not` of a tensor and a computed value.
    "pyro_stable_shift": (("        _trt_cond = _trt_not(near_hole.any())\n",
                           "        _trt_shortcut = _shift(a, skew, t_scale) if _trt_tracing() else None\n"),
                          [(9,), (9,)], False),
    # A tuple of tensors, computed, on `not` of a tensor: selected element by element.
    "torchmetrics_retrieval_pr_curve": (("        _trt_shortcut = (torch.zeros(self.max_k, device=preds.device), "
                                         "torch.zeros(self.max_k, device=preds.device), topk) if _trt_tracing() "
                                         "else None\n",
                                         "        return _trt_shortcut_select(_trt_cond, _trt_shortcut, "
                                         "(precision, recall, topk))\n"), [(6,), (6,)], False),
    "torchmetrics_retrieval_precision": (("        _trt_cond = _trt_not(target.sum())\n",
                                          "        _trt_shortcut = tensor(0.0, device=preds.device) if _trt_tracing() "
                                          "else None\n"), [(5,), (5,)], False),
}


def graph_matches(session, model: torch.nn.Module, inputs: tuple, kept_only: bool = False) -> bool:
    """Whether the graph runs at these inputs and gives each of eager mode's outputs (one tensor or a tuple):
    shape, dtype, values, NaN where eager mode has NaN. With ``kept_only``, only the inputs the graph kept
    are fed (a trace that took the shortcut may have dropped one)."""
    with torch.no_grad():
        result = model(*inputs)
    wants = [w.numpy() for w in (result if isinstance(result, tuple) else (result,))]
    kept = {i.name for i in session.get_inputs()}
    try:
        feed = {n: t.numpy() for n, t in zip(input_names(model), inputs) if n in kept or not kept_only}
        gots = session.run(None, feed)
    except Exception:  # noqa: BLE001 - a graph that cannot run at these sizes does not match
        return False
    return len(gots) == len(wants) and all(
        g.shape == w.shape and g.dtype == w.dtype and np.allclose(g, w, rtol=1e-5, atol=1e-5, equal_nan=True)
        for g, w in zip(gots, wants))


def _built(module) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.build().eval()


def _edges(example: tuple[torch.Tensor, ...]) -> dict[str, tuple[torch.Tensor, ...]]:
    """Zeros, negatives, inf/NaN and empty inputs of the example's kinds (integer inputs kept but for zeros)."""
    def each(change):
        return tuple(change(t) if t.is_floating_point() else t for t in example)

    def non_finite(t: torch.Tensor) -> torch.Tensor:
        t = t.clone()
        t.view(-1)[0], t.view(-1)[-1] = float("inf"), float("nan")
        return t

    return {"zeros": tuple(torch.zeros_like(t) for t in example), "negatives": each(lambda t: -t.abs() - 1),
            "inf-nan": each(non_finite), "empty": tuple(t[:0] for t in example)}


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> dict[str, dict]:
    """Each variant exported before, rewritten with what the export recorded, and exported after (shared)."""
    out = {}
    for name in VARIANTS:
        folder = tmp_path_factory.mktemp(name)
        path = HERE / f"{name}.py"
        module = load_variant(path, f"early_{name}")
        original = _built(module)
        example = module.inputs(torch.Generator().manual_seed(0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            before, traced = export_variant(original, example, module.DYNAMIC, folder / "before.onnx", HERE)
        facts = observed_facts(path, module, folder, traced)  # the observer's run and the export, as migrate has them
        options = Options(select=("TRT101",), unsafe=True, facts=facts, scope="all")
        source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
        (folder / f"{name}_rewritten.py").write_text(source)
        rewritten = _built(load_variant(folder / f"{name}_rewritten.py", f"early_rewritten_{name}"))
        rewritten.load_state_dict(original.state_dict())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            after, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
        out[name] = dict(path=path, module=module, original=original, rewritten=rewritten, source=source,
                         before=before, after=after, traced=traced, example=example,
                         other=module.other_branch(torch.Generator().manual_seed(1)))
    return out


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_original_export_keeps_the_shortcut(name: str, migrated: dict) -> None:
    """The premise: a TracerWarning at the `if`, and a graph right on the example, wrong on the rest's inputs."""
    run = migrated[name]
    source = run["path"].read_text().splitlines()
    [if_line] = [i for i, text in enumerate(source, 1) if text.startswith("        if ") and
                 source[i].strip().startswith("return ")]
    assert any(Path(f).resolve() == run["path"] and line == if_line for f, line, _ in run["traced"]), run["traced"]
    assert graph_matches(run["before"], run["original"], run["example"], kept_only=True)
    assert not graph_matches(run["before"], run["original"], run["other"], kept_only=True)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rewritten_export_follows_the_condition(name: str, migrated: dict) -> None:
    run = migrated[name]
    fragments, shapes, _ = VARIANTS[name]
    for fragment in fragments:
        assert fragment in run["source"], run["source"]
    resized = variant_inputs(run["module"], shapes, 2)
    sets = {"example": run["example"], "other-branch": run["other"], "other-size": resized,
            "other-size-zeros": tuple(torch.zeros_like(t) for t in resized)}
    for label, inputs in sets.items():
        assert graph_matches(run["after"], run["original"], inputs), label


@pytest.mark.parametrize("name", list(VARIANTS))
def test_eager_mode_is_unchanged(name: str, migrated: dict) -> None:
    """Outputs, inputs afterwards, input gradients and exceptions alike, bit for bit; the very input handed back."""
    run = migrated[name]
    hands_back = VARIANTS[name][2]
    sets = {"example": run["example"], "other-branch": run["other"], **_edges(run["example"]),
            **{f"other-{k}": v for k, v in _edges(run["other"]).items()}}
    for label, inputs in sets.items():
        graded = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
        for given in (list(inputs), graded):
            assert_same_run(run_once(run["original"], given), run_once(run["rewritten"], given), context=label)
        with torch.no_grad():
            try:
                expected = run["original"](*inputs)
            except Exception:  # noqa: BLE001 - the same exception is checked above
                continue
            got = run["rewritten"](*inputs)
        if hands_back:
            assert (got is inputs[0]) == (expected is inputs[0]), label
        if isinstance(expected, tuple):
            assert type(got) is tuple and [e is i for e in expected for i in inputs] == \
                [g is i for g in got for i in inputs], label
