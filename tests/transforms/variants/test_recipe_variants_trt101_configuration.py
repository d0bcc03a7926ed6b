"""A branch on a tensor built only from configuration is not data-dependent (TRT101, TRT104, migrate).

piq 0.8.0's DSS builds its subband weights from ``torch.arange(1, dct_size + 1, dtype=x.dtype,
device=x.device)`` and branches on them (``if weight[m, n] < threshold: weight[m, n] = 0``). The run
reads a tensor's value there, and the trace bakes the branch; but the weights depend on no input, so
the baked branch is the one eager mode takes on every input. The shared evidence proves that
(``_Facts.fixed``); TRT101/TRT104 then do not report, and migrate notes the read as a warning.

The variants in ``tests/recipe_variants/constcond/`` (each cites its source): three built from
configuration (piq's two forms, torchaudio's mel filterbank check through the file's own helpers), and
three look-alikes that read the input (its values, its size, a weight overwritten from it), which stay
reported: the tests fail for a proof that accepts everything as for one that accepts nothing.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch
from support import TESTS
from variant_models import export_variant, graph_matches, load_variant, observed_facts

from trtcodemod.engine import Options, check_source
from trtcodemod.evidence.facts import Facts

HERE = TESTS / "recipe_variants" / "constcond"
FIXED = ("piq_dss_subband_weights", "piq_dss_weights_to_input", "torchaudio_mel_zero_filter")
LOOKALIKES = ("lookalike_input_weights", "lookalike_size_weights", "lookalike_written_weights")


def _line(path: Path) -> int:
    module = load_variant(path, f"constcond_{path.stem}")
    return path.read_text().splitlines().index(module.TEST_LINE) + 1


@pytest.fixture(scope="module")
def observed(tmp_path_factory) -> dict[str, Facts]:
    """What migrate's observer records on each variant (a worker process, as migrate runs it)."""
    out = {}
    for name in (*FIXED, *LOOKALIKES):
        path = HERE / f"{name}.py"
        out[name] = observed_facts(path, load_variant(path, f"constcond_obs_{name}"), tmp_path_factory.mktemp(name))
    return out


@pytest.mark.parametrize("name", [*FIXED, *LOOKALIKES])
def test_the_run_reads_a_tensor_value_at_each_branch(name: str, observed: dict[str, Facts]) -> None:
    """The premise: every variant's branch reads a tensor's value in eager mode (what made TRT101 report)."""
    path = HERE / f"{name}.py"
    assert _line(path) in {line for (p, line) in observed[name].baked_lines() if Path(p) == path.resolve()}


@pytest.mark.parametrize("name, reported", [*((n, False) for n in FIXED), *((n, True) for n in LOOKALIKES)])
def test_trt101_reports_only_the_branches_that_read_the_input(name: str, reported: bool,
                                                              observed: dict[str, Facts]) -> None:
    path = HERE / f"{name}.py"
    found = check_source(path.read_bytes(), str(path.resolve()),
                         Options(select=("TRT101", "TRT104"), scope="all", facts=observed[name]))
    assert (_line(path) in {f.line for f in found if f.rule == "TRT101"}) is reported


@pytest.mark.parametrize("name, note", [
    ("piq_dss_subband_weights", "CONFIGURATION_NOTE"), ("piq_dss_weights_to_input", "CONFIGURATION_NOTE"),
    # A branch that only warns was a warning already (the exported graph drops the check).
    ("torchaudio_mel_zero_filter", "WARN_GUARD_NOTE"),
    *((n, None) for n in LOOKALIKES)])
def test_migrate_notes_the_read_as_a_warning_only_where_proven(name: str, note: str | None) -> None:
    """locate's note on the eager value read (and the TracerWarning) at the branch: a warning, the
    condition reading configuration only; the look-alikes keep their error (no note)."""
    from trtcodemod.migrate import locate

    path = HERE / f"{name}.py"
    assert locate._guard_note(str(path.resolve()), _line(path)) == (getattr(locate, note) if note else "")


def _other_inputs(module, generator: torch.Generator) -> list[tuple[torch.Tensor, ...]]:
    """Other values and sizes: zeros, negatives, small, large, inf/NaN, and the dynamic axes stretched."""
    example = module.inputs(generator)
    sets = [tuple(torch.zeros_like(t) for t in example), tuple(-t.abs() - 1 for t in example),
            tuple(t * 1e-3 for t in example), tuple(t * 1e4 for t in example)]
    with_nan = tuple(t.clone() for t in example)
    for t in with_nan:
        t.view(-1)[0], t.view(-1)[-1] = float("inf"), float("nan")
    sets.append(with_nan)
    stretched = []
    for name, t in zip(module.DYNAMIC, example):
        shape = [2 * s + 1 if axis in module.DYNAMIC[name] else s for axis, s in enumerate(t.shape)]
        stretched.append(torch.randn(shape, generator=generator))
    sets.append(tuple(stretched))
    return sets


def _matches_everywhere(name: str, tmp_path: Path) -> list[bool]:
    """Whether the variant's TorchScript export (traced at its example, with its dynamic axes) equals
    eager mode on each of :func:`_other_inputs`; asserts the export baked the branch (a TracerWarning)."""
    path = HERE / f"{name}.py"
    module = load_variant(path, f"constcond_export_{name}")
    model = module.build().eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session, traced = export_variant(model, module.inputs(torch.Generator().manual_seed(0)), module.DYNAMIC,
                                         tmp_path / "m.onnx", HERE)
    assert any(line == _line(path) for _, line, _ in traced)
    return [graph_matches(session, model, inputs, equal_nan=True)
            for inputs in _other_inputs(module, torch.Generator().manual_seed(1))]


@pytest.mark.parametrize("name", FIXED)
def test_the_baked_branch_is_eager_modes_on_every_input(name: str, tmp_path: Path) -> None:
    """What the proof rests on: the traced export keeps the example's branch, and it equals eager mode
    on other values and sizes (NaN where eager mode has NaN)."""
    assert all(_matches_everywhere(name, tmp_path))


@pytest.mark.parametrize("name", LOOKALIKES)
def test_a_lookalikes_baked_branch_is_wrong_somewhere(name: str, tmp_path: Path) -> None:
    """Why the look-alikes stay reported: their trace is wrong on other values or sizes."""
    assert not all(_matches_everywhere(name, tmp_path))


# --- the proof's edges, with a run that read a value at the test --------------------------------


def _read_at(path: str, source: str, marker: str) -> Facts:
    """Facts of a run that read a tensor's value (``__bool__``) on the line holding ``marker``."""
    lines = source.splitlines()
    line = next(i for i, text in enumerate(lines, 1) if marker in text)
    read = {"kind": "value_read", "path": path, "line": line, "column": 1, "end_line": line,
            "end_column": len(lines[line - 1]) + 1, "method": "__bool__", "count": 1}
    return Facts.from_json({"runs": 2, "lines": {path: list(range(1, len(lines) + 1))}, "events": [read]})


def _reported(tmp_path: Path, source: str, marker: str = "# <-", rules: tuple[str, ...] = ("TRT101",)) -> bool:
    path = str((tmp_path / "m.py").resolve())
    (tmp_path / "m.py").write_text(source)
    found = check_source(source.encode(), path, Options(select=rules, scope="all",
                                                        facts=_read_at(path, source, marker)))
    return bool(found)


HEAD = "import torch\nimport math\n\n\n"

CASES = {
    # name: (body of `def f(x: torch.Tensor, k: int = 4, s: float = 1.5):`, reported)
    "factory and Gaussian": ("w = torch.exp(-torch.arange(k, dtype=x.dtype) ** 2 / s)\n"
                             "if w[1] < 0.1:  # <-\n    w[1] = 0\nreturn x * w.sum()", False),
    "to(x) and new_tensor": ("w = torch.linspace(0, 1, k).to(x) + x.new_tensor([0.5])\n"
                             "if w.max() > 1:  # <-\n    return x\nreturn -x", False),
    "in-place of constants": ("w = torch.ones(k)\nw.mul_(s)\nw[0] += 2\n"
                              "if w.sum() > 3:  # <-\n    return x\nreturn -x", False),
    "math of a number parameter": ("t = torch.tensor(math.sqrt(k) * s)\nif t > 2:  # <-\n    return x\nreturn -x",
                                   False),
    "a value of the input": ("w = torch.arange(k) * x.mean()\nif w[1] < 0.1:  # <-\n    return x\nreturn -x", True),
    "a size of the input": ("w = torch.arange(x.shape[-1])\nif w.sum() > 10:  # <-\n    return x\nreturn -x", True),
    "a random draw": ("w = torch.rand(k)\nif w[0] < 0.5:  # <-\n    return x\nreturn -x", True),
    "uninitialised memory": ("w = torch.empty(k)\nif w[0] < 0.5:  # <-\n    return x\nreturn -x", True),
    "an in-place write of the input": ("w = torch.ones(k)\nw.add_(x.sum())\n"
                                       "if w[0] < 0.5:  # <-\n    return x\nreturn -x", True),
    "a write through a view": ("w = torch.ones(k, k)\nrow = w[0]\nrow[1] = x.max()\n"
                               "if w[0, 1] < 0.5:  # <-\n    return x\nreturn -x", True),
    "given to an unknown function": ("w = torch.ones(k)\nfill(w, x)\nif w[0] < 0.5:  # <-\n    return x\nreturn -x",
                                     True),
    "read by a nested function": ("w = torch.ones(k)\ng = lambda: w.copy_(x)\ng()\n"
                                  "if w[0] < 0.5:  # <-\n    return x\nreturn -x", True),
    "out= into it": ("w = torch.ones(k)\ntorch.add(x[:k], 1, out=w)\nif w[0] < 0.5:  # <-\n    return x\nreturn -x",
                     True),
    "an unannotated parameter": ("w = torch.ones(k) * other\nif w[0] < 0.5:  # <-\n    return x\nreturn -x", True),
    "a random initialiser": ("w = torch.ones(k)\ntorch.nn.init.normal_(w)\n"
                             "if w[0] < 0.5:  # <-\n    return x\nreturn -x", True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_what_the_proof_takes_and_refuses(tmp_path: Path, name: str) -> None:
    body, reported = CASES[name]
    indented = "\n".join("    " + line for line in body.splitlines())
    source = f"{HEAD}def f(x: torch.Tensor, other, k: int = 4, s: float = 1.5):\n{indented}\n"
    assert _reported(tmp_path, source) is reported


HELPERS = HEAD + '''def _bank(points, lo=0.0):
    return torch.clamp(points[1:] - points[:-1], min=lo)


def _noisy(points):
    return points + torch.randn_like(points)


def _keeps(points):
    global CACHE
    CACHE = points
    return points


def f(x: torch.Tensor, n: int = 5):
    bank = {helper}(torch.linspace(0, 1, n))
    if (bank == 0).any():  # <-
        return x
    return -x
'''


@pytest.mark.parametrize("helper, reported", [("_bank", False), ("_noisy", True), ("_keeps", True)])
def test_a_helper_of_the_file_given_configuration(tmp_path: Path, helper: str, reported: bool) -> None:
    """torchaudio's filterbank goes through helpers of its file: one that computes from its arguments
    is configuration; one that draws random numbers or keeps its argument in a global is not."""
    assert _reported(tmp_path, HELPERS.format(helper=helper)) is reported


LOOPS = HEAD + '''def f(x: torch.Tensor, k: int = 3):
    steps = torch.tensor(float(k)) * {scale}
    for _ in range(int(steps.sum())):  # <-
        x = x * 0.5
    while steps.max() > 1:
        steps = steps / 2
    return x
'''


@pytest.mark.parametrize("scale, reported", [("2.0", False), ("x.mean()", True)])
def test_trt104_trip_counts_of_configuration(tmp_path: Path, scale: str, reported: bool) -> None:
    """A trip count read from a tensor built from configuration is the same on every input."""
    assert _reported(tmp_path, LOOPS.format(scale=scale), rules=("TRT104",)) is reported


STATIC = HEAD + '''import torch.nn as nn


class Scale(nn.Module):
    def forward(self, x):
        bounds = x.new_tensor([0.5, 1.5])
        if bounds.sum() > {limit}:
            return x
        return -x
'''


def test_without_a_run_a_tensor_lent_only_its_dtype_is_not_the_inputs(tmp_path: Path) -> None:
    """Statically `x.new_tensor([...])` looked like a tensor computed from the input (TRT101 reported it);
    its values are literals. Compared with the input's values, it is still reported."""
    def found(limit: str) -> list:
        source = STATIC.format(limit=limit)
        return check_source(source.encode(), str(tmp_path / "m.py"), Options(select=("TRT101",), scope="all"))

    assert found("1") == []
    assert [f.rule for f in found("x.max()")] == ["TRT101"]
