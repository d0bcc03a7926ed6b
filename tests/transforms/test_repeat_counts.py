"""TRT376: ``repeat_interleave`` by a tensor of counts (a TTS length regulator) exports as a loop over ONNX sequences.

The rewrite is checked as text (the forms taken, what is left alone, a call taken only on the graph check's word),
then run: eager mode is torch's call (values, dtypes, gradients, exceptions) on edge counts and under scripting, fx,
``torch.compile`` and ``torch.export``. Exported: the original's graph holds sequence operators, the rewritten one none,
and equals eager mode in ONNX Runtime at other durations and lengths (zeros among the counts, counts all 0, one
element, a negative axis); the export still stops on negative counts. ``migrate`` ties TRT376 to the sequence nodes
at its line and ends at exit 0 on IMS-Toucan's length regulator (``tests/recipe_variants/trt376/``).
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from torch import nn
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import migrate_json, rewrite, rules_found
from variant_models import axes_json, line_of, load_variant

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.evidence.facts import Facts
from trtcodemod.findings import Finding
from trtcodemod.helpers.interleave import _trt_repeat_counts
from trtcodemod.migrate.locate import Problem
from trtcodemod.migrate.plan import matches
from trtcodemod.rules import Safety

HEAD = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x, dur_out):\n"
VARIANTS = Path(__file__).resolve().parents[1] / "recipe_variants" / "trt376"
SEQUENCE_OPS = {"SplitToSequence", "SequenceEmpty", "SequenceAt", "SequenceInsert", "ConcatFromSequence",
                "SequenceConstruct", "SequenceLength", "Loop"}


@pytest.mark.parametrize(("body", "want"), [
    ("        return torch.repeat_interleave(x, dur_out.view(-1), dim=2)\n",  # speechbrain's unit HiFi-GAN
     "        return _trt_repeat_counts(x, dur_out.view(-1), 2)\n"),
    ("        return [torch.repeat_interleave(x[i], (1.5 * dur_out[i]).long(), dim=0) for i in range(2)]\n",
     "        return [_trt_repeat_counts(x[i], (1.5 * dur_out[i]).long(), 0) for i in range(2)]\n"),
    ("        return x[0].repeat_interleave(dur_out.long(), dim=-1)\n",
     "        return _trt_repeat_counts(x[0], dur_out.long(), -1)\n"),
    ("        return x.repeat_interleave(torch.round(dur_out).long(), 1)\n",
     "        return _trt_repeat_counts(x, torch.round(dur_out).long(), 1)\n"),
    # no axis: torch repeats the flattened input (Kokoro's frame-to-token indices)
    ("        return torch.repeat_interleave(torch.arange(x.shape[0]), dur_out.long())\n",
     "        return _trt_repeat_counts(torch.arange(x.shape[0]).flatten(), dur_out.long(), 0)\n"),
    ("        return x.repeat_interleave(dur_out.long(), dim=None)\n",
     "        return _trt_repeat_counts(x.flatten(), dur_out.long(), 0)\n"),
    # an operation as the input: flattened as a whole
    ("        return torch.repeat_interleave(x + 1, dur_out.long())\n",
     "        return _trt_repeat_counts((x + 1).flatten(), dur_out.long(), 0)\n"),
])
def test_rewrite_text(body: str, want: str) -> None:
    after = rewrite(HEAD + body, select=("TRT376",))
    assert after.endswith(want), after
    assert "def _trt_repeat_counts" in after and "def _trt_repeat_counts_eager" in after
    assert rules_found(after, select=("TRT376",)) == []


@pytest.mark.parametrize("body", [
    "        return x.repeat_interleave(2, dim=1)\n",  # an int: torch's symbolic writes a Tile-like graph
    "        return torch.repeat_interleave(x, 3, 0)\n",
    "        return torch.repeat_interleave(dur_out.long())\n",  # the one-tensor form
    "        return x.repeat_interleave(dur_out.long(), dim=0, output_size=8)\n",
    "        return x.repeat_interleave(*dur_out)\n",
    "        return x.float().repeat_interleave(dur_out.long(), dim=0)\n",  # a receiver that calls something
    "        return np.repeat_interleave(x, dur_out.long(), 0)\n",
])
def test_other_code_is_left_alone(body: str) -> None:
    assert rules_found("import numpy as np\n" + HEAD + body, select=("TRT376",)) == []


def test_a_located_call_is_taken_where_the_code_shows_no_tensor(tmp_path: Path) -> None:
    """ESPnet's ``_repeat_one_sequence(self, x, d)``: nothing in the text says ``d`` is a tensor; with facts, a
    sequence node the graph check placed at the call's line is the evidence (a node of another rule is not)."""
    path = tmp_path / "m.py"
    path.write_text("import torch\n\n\ndef repeat(x, d):\n    return torch.repeat_interleave(x, d, dim=0)\n\n\n"
                    "def other(x, d):\n    return torch.repeat_interleave(x, d, dim=0)\n")
    assert check_source(path.read_bytes(), str(path), Options(select=("TRT376",), scope="all")) == []
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, 10))})
    facts.note_located([(str(path), 5, "TRT376"), (str(path), 9, "TRT401")])
    found = check_source(path.read_bytes(), str(path), Options(select=("TRT376",), scope="all", facts=facts))
    assert [(f.rule, f.line, f.fix.value) for f in found] == [("TRT376", 5, "safe")]


def test_the_plan_ties_trt376_to_the_sequence_nodes_at_its_line(tmp_path: Path) -> None:
    path = str(tmp_path / "HifiGAN.py")
    finding = Finding("TRT376", "repeat-counts", "m", path, 878, 13, 878, 60, Safety.SAFE)
    for op in ("SplitToSequence", "SequenceEmpty", "SequenceAt", "SequenceInsert", "ConcatFromSequence"):
        assert matches(Problem("hostile", path, 878, op, "TRT105", "m"), finding), op
    assert not matches(Problem("hostile", path, 878, "NonZero", "TRT201", "m"), finding)


# --- eager mode and the other toolchains: torch's call -------------------------------------------------------------

PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor, durations: torch.Tensor):
        a = torch.repeat_interleave(x, durations.view(-1), dim=1)
        b = x.repeat_interleave(durations.long(), dim=-2)
        return a * 2, b
"""

_X = torch.randn(2, 4, 3, requires_grad=True)
EAGER_CASES = {
    "mixed": [_X, torch.tensor([1, 0, 3, 2])],
    "zeros": [_X, torch.zeros(4, dtype=torch.long)],
    "one": [torch.randn(1, 1, 2, requires_grad=True), torch.tensor([5])],
    "int32": [_X, torch.tensor([2, 2, 0, 1], dtype=torch.int32)],
    "2-d counts": [_X, torch.tensor([[1, 0], [3, 2]])],
    "negative": [_X, torch.tensor([1, -1, 3, 2])],
    "too few": [_X, torch.tensor([1, 2, 3])],
    "float counts": [_X, torch.tensor([1.0, 0.0, 3.0, 2.0])],
    "empty": [torch.randn(2, 0, 3), torch.zeros(0, dtype=torch.long)],
    "inf-nan": [torch.tensor([[[float("inf")], [float("nan")], [-0.0], [1e30]]]), torch.tensor([0, 2, 1, 3])],
}


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt376")
    after = rewrite(PROGRAM, select=("TRT376",))
    assert after.count("_trt_repeat_counts(") == 1 + 2, after  # the definition and two calls
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


@pytest.mark.parametrize("label", sorted(EAGER_CASES))
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Values, dtypes, gradients and exceptions: torch's own (``repeats can not be negative`` and the rest)."""
    before, after = program[0](), program[1]()
    x, durations = EAGER_CASES[label]
    assert_same_run(run_once(before, [x, durations]), run_once(after, [x, durations]), context=label)


def test_the_other_toolchains_are_unchanged(program: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(program[0], program[1], [torch.randn(2, 4, 3), torch.tensor([1, 0, 3, 2])],
                                   tmp_path, original_may_fail=True)


def test_the_helper_is_torch_outside_the_export_and_scripts() -> None:
    x, counts = torch.randn(3, 4), torch.tensor([2, 0, 1])
    assert torch.equal(_trt_repeat_counts(x, counts, 0), torch.repeat_interleave(x, counts, dim=0))
    assert torch.equal(_trt_repeat_counts(x, 2, -1), x.repeat_interleave(2, dim=-1))  # an int: torch's call
    scripted = torch.jit.script(_trt_repeat_counts)
    assert torch.equal(scripted(x, counts, 0), torch.repeat_interleave(x, counts, dim=0))
    assert torch.equal(scripted(x, 3, 1), x.repeat_interleave(3, dim=1))
    traced = torch.jit.trace(lambda a, b: _trt_repeat_counts(a, b, 0), (x, counts))  # not an export: torch's op
    assert any(node.kind() == "aten::repeat_interleave" for node in traced.graph.nodes())


# --- the export --------------------------------------------------------------------------------------------------

class Regulator(nn.Module):
    """speechbrain's unit HiFi-GAN form (``HifiGAN.py:878``): features ``(1, C, T)``, durations ``(1, T)``."""

    def __init__(self, repeat, dim: int) -> None:
        super().__init__()
        self.repeat, self.dim = repeat, dim

    def forward(self, x, durations):
        return self.repeat(x * 2, durations.view(-1), self.dim)


def _torch_repeat(x, repeats, dim):
    return torch.repeat_interleave(x, repeats, dim=dim)


def _export(model: nn.Module, durations: torch.Tensor) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.randn(1, 3, durations.shape[1]), durations), buffer, dynamo=False,
                          opset_version=17, input_names=["x", "durations"],
                          dynamic_axes={"x": {2: "tokens"}, "durations": {1: "tokens"}})
    return buffer.getvalue()


def _ops(graph: bytes) -> set[str]:
    return {node.op_type for node in onnx.load_from_string(graph).graph.node}


def test_the_originals_graph_holds_sequence_operators() -> None:
    assert _ops(_export(Regulator(_torch_repeat, 2), torch.tensor([[1, 0, 3, 2]]))) & SEQUENCE_OPS


@pytest.mark.parametrize("dim", [2, -1])
def test_the_rewritten_graph_has_fixed_ops_and_equals_eager_mode(dim: int) -> None:
    graph = _export(Regulator(_trt_repeat_counts, dim), torch.tensor([[1, 0, 3, 2]]))
    ops = _ops(graph)
    assert not ops & SEQUENCE_OPS and "CumSum" not in ops, ops
    session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
    generator = torch.Generator().manual_seed(0)
    cases = [[1, 0, 3, 2], [0, 0, 0, 0, 0], [7], [0], [2, 2, 2], [0, 5], [1] * 40,
             torch.randint(0, 9, (64,), generator=generator).tolist()]
    for counts in cases:
        x = torch.randn(1, 3, len(counts), generator=generator)
        x[0, 0, 0] = float("nan")
        durations = torch.tensor([counts])
        want = Regulator(_torch_repeat, dim)(x, durations)
        got = session.run(None, {"x": x.numpy(), "durations": durations.numpy()})[0]
        assert got.shape == tuple(want.shape) and got.dtype == want.numpy().dtype, counts
        assert np.array_equal(got, want.numpy(), equal_nan=True), counts


class Flat(nn.Module):
    """Kokoro's form: token indices repeated by their predicted frame counts, no axis (the flattened input)."""

    def __init__(self, rewritten: bool) -> None:
        super().__init__()
        self.rewritten = rewritten

    def forward(self, x, durations):
        tokens = torch.arange(x.shape[-1]) * 10 + x[0, 0].round().long()
        if self.rewritten:
            return _trt_repeat_counts(tokens.flatten(), durations.view(-1), 0)
        return torch.repeat_interleave(tokens, durations.view(-1))


@pytest.mark.parametrize("model", [Regulator(_trt_repeat_counts, 1), Flat(True)], ids=["one-count", "no-axis"])
def test_one_count_broadcast_and_the_flattened_form_equal_eager_mode(model: nn.Module) -> None:
    """torch repeats every element by a count tensor of one element; the helper spreads it over the axis (before,
    its graph repeated the first element only). Without an axis, the flattened input along 0."""
    flat = isinstance(model, Flat)
    reference = Flat(False) if flat else Regulator(_torch_repeat, 1)
    example = torch.tensor([[2, 0, 1, 3]]) if flat else torch.tensor([[3]])
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.randn(1, 3, 4), example), buffer, dynamo=False, opset_version=17,
                          input_names=["x", "durations"],
                          dynamic_axes={"x": {1: "rows", 2: "tokens"}, "durations": {1: "tokens"}} if flat
                          else {"x": {1: "rows", 2: "tokens"}})
    assert not _ops(buffer.getvalue()) & SEQUENCE_OPS
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    generator = torch.Generator().manual_seed(4)
    shapes = [(4, [2, 0, 1, 3]), (7, [1, 1, 0, 0, 5, 2, 1]), (2, [0, 0]), (1, [6])] if flat else \
        [(4, [3]), (9, [3]), (2, [3]), (6, [0]), (5, [1])]
    for tokens, counts in shapes:
        x = torch.randn(1, 5, tokens, generator=generator) * 4
        if not flat:
            x[0, 1, 0] = float("inf")
        durations = torch.tensor([counts])
        want = reference(x, durations)
        got = session.run(None, {"x": x.numpy(), "durations": durations.numpy()})[0]
        assert got.shape == tuple(want.shape) and np.array_equal(got, want.numpy(), equal_nan=True), (tokens, counts)


def test_the_export_stops_where_torch_does() -> None:
    """The example's errors are torch's: negative counts stop the export, as they stop the original's."""
    for model in (Regulator(_torch_repeat, 2), Regulator(_trt_repeat_counts, 2)):
        with pytest.raises(RuntimeError, match="repeats can not be negative"):
            _export(model, torch.tensor([[1, -1, 3, 2]]))


# --- real code -----------------------------------------------------------------------------------------------------



@pytest.mark.parametrize("name", ["espnet_length_regulator", "toucan_length_regulator"])
def test_the_variants_export_without_sequences_and_are_the_same_program(name: str, tmp_path: Path) -> None:
    """The helper method's ``d`` is not visibly a tensor, so the rewrite is written here as migrate's facts make it:
    the variant with its ``torch.repeat_interleave(x, d, dim=0)`` line through the helper."""
    path = VARIANTS / f"{name}.py"
    original = load_variant(path, f"trt376_{name}_original")
    text = path.read_text().replace("return torch.repeat_interleave(x, d, dim=0)",
                                    "return _trt_repeat_counts(x, d, 0)")
    rewritten_path = tmp_path / f"{name}_rewritten.py"
    rewritten_path.write_text("from trtcodemod.helpers.interleave import _trt_repeat_counts\n" + text)
    rewritten = load_variant(rewritten_path, f"trt376_{name}_rewritten")
    before, after = original.build(), rewritten.build()
    generator = torch.Generator().manual_seed(1)
    example = original.inputs(generator)
    assert_same_run(run_once(before, list(example)), run_once(after, list(example)), context=name)
    buffer = io.BytesIO()
    names = list(original.DYNAMIC) if len(example) == len(original.DYNAMIC) else ["x"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(after, example, buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes=original.DYNAMIC)
    assert not _ops(buffer.getvalue()) & SEQUENCE_OPS
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    for tokens in (1, 3, 9, 2, 5, 17):
        inputs = (torch.randn(1, tokens, example[0].shape[-1], generator=generator),)
        if len(example) == 2:
            inputs += (torch.randint(0, 4, (1, tokens), generator=generator),)
        want = before(*inputs)
        if want.shape[1] == 0:
            continue  # every duration 0: pad_list's own copy exports a Reshape that reads the 0 as "copy" (TRT367's)
        got = session.run(None, {n: t.numpy() for n, t in zip(names, inputs)})[0]
        assert got.shape == tuple(want.shape) and np.allclose(got, want.detach().numpy(), atol=1e-6), tokens


def test_migrate_takes_toucans_length_regulator_end_to_end() -> None:
    variant = VARIANTS / "toucan_length_regulator.py"
    module = load_variant(variant, "trt376_migrate")
    report = migrate_json(variant, axes_json(module))
    assert report["before"]["trt_errors"] and "SequenceAt" in report["before"]["trt_errors_by_op"], report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert applied == [("TRT376", line_of(variant, "return torch.repeat_interleave(x, d, dim=0)"))], applied
    assert report["after"]["trt_errors"] == 0 and report["after"]["faithful"] is True, report["after"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]


# --- more real code, taken from the code alone: fairseq's unit HiFi-GAN, NVIDIA's FastSpeech ----------------------

#: variant -> (the rules applied for its export, the call TRT376 writes from the code alone).
CODE_ALONE = {
    "fairseq_code_hifigan": (("TRT376",), "x = _trt_repeat_counts(x, dur_out.view(-1), 2)"),
    "nvidia_fastspeech_get_output": (("TRT376", "TRT378"), "output.append(_trt_repeat_counts(input[i], repeats, 0))"),
}


def _code_alone_sets(name: str, module) -> dict[str, tuple]:
    """The example, one and many tokens, and edge values: fairseq's units are integers (the smallest and largest
    unit; every count is at least 1 there); NVIDIA's features are floats (zeros, negatives, and features that make
    every count 0, so each item is empty). No NaN: the counts are predicted from the same values."""
    from variant_models import seeded

    example = module.inputs(seeded(0))
    if name == "fairseq_code_hifigan":
        return {"example": example, "one unit": module.inputs(seeded(1), 1), "many units": module.inputs(seeded(2), 31),
                "unit 0": (torch.zeros(1, 5, dtype=torch.long),), "unit 15": (torch.full((1, 4), 15),)}

    weight = module.build().regulator.duration_predictor.weight[0].detach()
    return {"example": example, "one token": module.inputs(seeded(1), 2, 1), "many tokens": module.inputs(seeded(2), 2, 19),
            "zeros": (torch.zeros_like(example[0]),), "negatives": (-example[0].abs() - 0.5,),
            "all empty": (-4.0 * torch.sign(weight).expand(2, 6, -1).clone(),)}


@pytest.fixture(scope="module", params=sorted(CODE_ALONE))
def code_alone(request, tmp_path_factory: pytest.TempPathFactory) -> dict:
    from variant_models import built_variant, export_variant

    name = request.param
    folder = tmp_path_factory.mktemp(name)
    path = VARIANTS / f"{name}.py"
    module, original = built_variant(path, f"trt376_real_{name}")
    text = rewrite(path.read_text(), select=CODE_ALONE[name][0])
    (folder / f"{name}_rewritten.py").write_text(text)
    _, rewritten = built_variant(folder / f"{name}_rewritten.py", f"trt376_real_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    sets = _code_alone_sets(name, module)
    session, _ = export_variant(rewritten, sets["example"], module.DYNAMIC, folder / "after.onnx", folder)
    return dict(name=name, path=path, module=module, original=original, rewritten=rewritten, sets=sets,
                session=session, ops={node.op_type for node in onnx.load(str(folder / "after.onnx")).graph.node})


def test_code_alone_rewrite_text(code_alone: dict) -> None:
    only = rewrite(code_alone["path"].read_text(), select=("TRT376",))
    assert CODE_ALONE[code_alone["name"]][1] in only, only
    assert only.count("_trt_repeat_counts(") == 1 + 1  # the call and the definition
    assert rules_found(only, select=("TRT376",)) == []


def test_code_alone_eager_is_unchanged(code_alone: dict) -> None:
    from variant_models import assert_eager_unchanged

    assert_eager_unchanged(code_alone["original"], code_alone["rewritten"], code_alone["sets"])


def test_code_alone_graph_has_no_sequences_and_follows_the_tokens(code_alone: dict) -> None:
    from variant_models import assert_graph_within

    assert not code_alone["ops"] & SEQUENCE_OPS, code_alone["ops"]
    for label, inputs in code_alone["sets"].items():
        assert_graph_within(code_alone["session"], code_alone["original"], inputs, 1e-6, label)


@pytest.mark.parametrize("name", sorted(CODE_ALONE))
def test_migrate_takes_the_code_alone_variants_end_to_end(name: str) -> None:
    variant = VARIANTS / f"{name}.py"
    module = load_variant(variant, f"trt376_migrate_{name}")
    report = migrate_json(variant, axes_json(module))
    [line] = [i for i, text in enumerate(variant.read_text().splitlines(), 1) if text.strip() == module.CALL]
    assert ("TRT376", line) in {(fix["rule"], fix["line"]) for fix in report["applied"]}, report["applied"]
    assert report["after"]["trt_errors"] == 0 and report["after"]["faithful"] is True, report["after"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]


# --- Kokoro: the flattened form (no axis), whose counts come from a `squeeze()` TRT403 keeps dynamic ----------------

KOKORO = VARIANTS / "kokoro_alignment.py"


def test_kokoro_rewrite_text_and_eager_mode() -> None:
    """From the code alone: the call on the flattened token indices along axis 0. Eager mode is unchanged on
    Kokoro's batch of one, two and many tokens and the smallest and largest token id (one token would squeeze the
    counts to a 0-d tensor, which torch takes and the helper leaves to torch)."""
    from variant_models import assert_eager_unchanged, built_variant, seeded

    only = rewrite(KOKORO.read_text(), select=("TRT376",))
    assert ("        indices = _trt_repeat_counts(torch.arange(input_ids.shape[1], device=input_ids.device).flatten(), "
            "pred_dur, 0)\n") in only, only
    assert rules_found(only, select=("TRT376",)) == []
    module, original = built_variant(KOKORO, "trt376_kokoro")
    folder = Path(__import__("tempfile").mkdtemp())
    (folder / "kokoro_rewritten.py").write_text(only)
    _, rewritten = built_variant(folder / "kokoro_rewritten.py", "trt376_kokoro_rewritten")
    rewritten.load_state_dict(original.state_dict())
    sets = {"example": module.inputs(seeded(0)), "two tokens": module.inputs(seeded(1), 2),
            "one token": module.inputs(seeded(3), 1), "many tokens": module.inputs(seeded(2), 40),
            "token 0": (torch.zeros(1, 5, dtype=torch.long),), "token 31": (torch.full((1, 9), 31),)}
    assert_eager_unchanged(original, rewritten, sets)


def test_migrate_takes_kokoro_with_trt403_and_ends_equivalent() -> None:
    """The counts are `...long().squeeze()` of a batch of one: the TorchScript exporter writes that squeeze for the
    traced number of tokens; migrate keeps it dynamic with TRT403 (observed) and takes the call with TRT376."""
    module = load_variant(KOKORO, "trt376_migrate_kokoro")
    report = migrate_json(KOKORO, axes_json(module))
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    [call] = [i for i, text in enumerate(KOKORO.read_text().splitlines(), 1) if text.strip() == module.CALL]
    assert ("TRT376", call) in applied, report["applied"]
    assert ("TRT403", line_of(KOKORO, "pred_dur = torch.round(duration).clamp(min=1).long().squeeze()")) in applied
    assert report["before"]["faithful"] is False and report["after"]["faithful"] is True, report["after"]
    assert report["after"]["trt_errors"] == 0 and report["exit_code"] == 0 and report["equivalent"] is True


def test_the_flattened_form_of_an_operation_runs_as_the_original(tmp_path: Path) -> None:
    """`torch.repeat_interleave(x + 1, counts)` with no axis: the rewrite flattens the whole sum (not `1`)."""
    code = HEAD + "        return torch.repeat_interleave(x + 1, dur_out.long())\n"
    after = rewrite(code, select=("TRT376",))
    before, rewritten = import_source(code, tmp_path)["M"](), import_source(after, tmp_path)["M"]()
    x = torch.tensor([[0.0, -2.0], [float("nan"), float("inf")]])
    for counts in (torch.tensor([1, 0, 3, 2]), torch.zeros(4), torch.tensor([2])):
        assert_same_run(run_once(before, [x, counts]), run_once(rewritten, [x, counts]))
