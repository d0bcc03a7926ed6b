"""TRT370: ``torch.einsum`` / ``torch.outer`` of operands of two dtypes, cast to the promoted dtype while exporting.

The rewrite is checked as text (the forms taken, and what is left alone), then run: eager mode is the same
(values, dtypes, gradients, exceptions) on edge tensors, and under scripting, fx, ``torch.compile`` and
``torch.export``; the helpers are the originals outside an export and compute with ``torch.promote_types`` of
the operands, as eager ``einsum`` does (a 0-d float64 operand makes float64, where ``torch.result_type`` says
float32). Exported: the original ``einsum`` of an int64 range and float frequencies is a graph ONNX Runtime
refuses to load (both exporters), the original ``outer`` an int64 graph of truncated frequencies (TorchScript);
the rewritten graphs equal eager mode at every length. The refusal names its node, which the verifier places
at the user's line (``verify/static.failed_node``); ``migrate`` plans TRT370 there and ends with exit 0 on the
real form (timesformer-pytorch's frame rotary, ``tests/recipe_variants/trt370/``).
"""

from __future__ import annotations

import io
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from torch import nn
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import migrate_json, rewrite, rules_found
from variant_models import axes_json, line_of, load_variant

from trtcodemod.findings import Finding
from trtcodemod.helpers.promotion import _trt_promoted_einsum, _trt_promoted_outer
from trtcodemod.migrate.locate import FAILS_TO_RUN, REFUSED_INPUT_MADE_AT, WRONG_VALUES, Problem
from trtcodemod.migrate.manual_steps import MIXED_TYPES_STEP, manual_step
from trtcodemod.migrate.plan import matches
from trtcodemod.rules import Safety
from trtcodemod.verify.export import export_model
from trtcodemod.verify.static import failed_node

HEAD = "import torch\nfrom torch import nn, einsum\n\n\nclass M(nn.Module):\n    def forward(self, x, y):\n"
VARIANT = Path(__file__).resolve().parents[1] / "recipe_variants" / "trt370" / "timesformer_frame_rotary.py"
REFUSAL = ("Type Error: Type parameter (T) of Optype (Einsum) bound to different types (tensor(int64) and "
           "tensor(float) in node (/m/frame_rot_emb/Einsum).")


@pytest.mark.parametrize(("body", "want"), [
    ("        return einsum('i, j -> i j', x, y)\n", "        return _trt_promoted_einsum('i, j -> i j', [x, y])\n"),
    ('        return torch.einsum("bi,bj->bij", (x, y))\n', '        return _trt_promoted_einsum("bi,bj->bij", [x, y])\n'),
    ('        return torch.einsum("i,j,k->ijk", [x, y, x])\n',
     '        return _trt_promoted_einsum("i,j,k->ijk", [x, y, x])\n'),
    ("        return torch.outer(torch.arange(x.shape[0]), y)\n",
     "        return _trt_promoted_outer(torch.arange(x.shape[0]), y)\n"),
    ("        return torch.ger((x), y)\n", "        return _trt_promoted_outer(x, y)\n"),
])
def test_rewrite_text(body: str, want: str) -> None:
    after = rewrite(HEAD + body, select=("TRT370",))
    assert after.endswith(want), after
    assert "def _trt_promoted_" in after
    assert rules_found(after, select=("TRT370",)) == []


@pytest.mark.parametrize("body", [
    "        return torch.einsum('ii->i', x)\n",  # one operand: nothing to promote
    "        return torch.einsum('i,j->ij', [x])\n",
    "        return torch.einsum('i,j->ij', x, y, path=None)\n",  # keywords: left to torch
    "        return torch.einsum('i,j->ij', *y)\n",
    "        return torch.einsum('i,j->ij', y)\n",  # a list held in a name
    "        return torch.outer(x, y, out=x)\n",
    "        return x.outer(y)\n",  # a method: the receiver may not be a tensor
    "        return torch.matmul(x, y)\n",  # raises in eager mode on two dtypes
])
def test_other_code_is_left_alone(body: str) -> None:
    assert rules_found(HEAD + body, select=("TRT370",)) == []


def test_the_rule_is_opt_in() -> None:
    assert rules_found(HEAD + "        return einsum('i,j->ij', x, y)\n") == []


PROGRAM = """import torch
from torch import nn, einsum


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        v = x.reshape(-1)
        seq = torch.arange(v.shape[0])
        a = torch.einsum("i,j->ij", seq, v)
        b = einsum("i, j -> i j", [v, seq.double()])
        c = torch.outer(seq, v)
        d = torch.ger(v, seq)
        e = torch.einsum("i,->i", v, torch.tensor(2.0, dtype=torch.float64))
        return a, b, c, d, e
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt370")
    after = rewrite(PROGRAM, select=("TRT370",))
    assert after.count("_trt_promoted_einsum(") == 3 + 1 and after.count("_trt_promoted_outer(") == 2 + 1, after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


@pytest.mark.parametrize("label", ["example", "zeros", "negatives", "inf-nan", "empty-rows", "empty-columns", "one",
                                   "strided", "int", "3-d", "0-d", "1-d"])
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Values, dtypes, gradients and exceptions (int operands: int64 products)."""
    from snippets import EDGE_TENSORS

    before, after = program[0](), program[1]()
    x = EDGE_TENSORS[label]
    assert_same_run(run_once(before, [x]), run_once(after, [x]), context=label)


def test_the_other_toolchains_are_unchanged(program: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(program[0], program[1], [torch.randn(3, 4)], tmp_path, original_may_fail=True)


def test_the_helpers_are_the_originals_outside_an_export() -> None:
    seq, freqs = torch.arange(5), torch.tensor([1.0, 0.5, 1e-4, 0.0, -0.0, float("inf")])
    for operands in ([seq, freqs], [freqs, seq], [seq, seq], [freqs.half(), freqs.double()],
                     [freqs, torch.tensor(2.0, dtype=torch.float64)]):
        equation = "i,j->ij" if operands[1].dim() else "i,->i"
        want, got = torch.einsum(equation, operands), _trt_promoted_einsum(equation, operands)
        assert got.dtype == want.dtype and torch.equal(got.nan_to_num(), want.nan_to_num())
    want, got = torch.outer(seq, freqs), _trt_promoted_outer(seq, freqs)
    assert got.dtype == want.dtype == torch.float32 and torch.equal(got.nan_to_num(), want.nan_to_num())
    with pytest.raises(RuntimeError):
        _trt_promoted_einsum("i,i->", [torch.ones(2, dtype=torch.bool)] * 2)  # bmm of bools, as torch.einsum
    scripted = torch.jit.script(_trt_promoted_einsum)
    assert torch.equal(scripted("i,j->ij", [freqs, freqs]).nan_to_num(), torch.einsum("i,j->ij", freqs, freqs).nan_to_num())
    assert torch.equal(torch.jit.script(_trt_promoted_outer)(seq, freqs).nan_to_num(),
                       torch.outer(seq, freqs).nan_to_num())


class Rotary(nn.Module):
    """An int64 range of positions times float frequencies, by ``einsum`` and by ``outer``."""

    def __init__(self, einsum, outer) -> None:
        super().__init__()
        self.einsum, self.outer = einsum, outer
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8)))

    def forward(self, x):
        seq = torch.arange(x.shape[1])
        a = self.einsum("i, j -> i j", [seq, self.inv_freq])
        b = self.outer(seq, self.inv_freq)
        return x[..., :4] * a.cos() + b.sin()


def _einsum(equation, operands):
    return torch.einsum(equation, operands)


def _export(model: nn.Module, dynamo: bool = False) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, (torch.rand(2, 6, 8),), dynamo=True, input_names=["x"],
                                        dynamic_shapes={"x": {1: torch.export.Dim("n", min=1, max=4096)}},
                                        verbose=False)
            return program.model_proto.SerializeToString()
        torch.onnx.export(model, (torch.rand(2, 6, 8),), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 1: "n"}})
    return buffer.getvalue()


def _session(graph: bytes) -> ort.InferenceSession:
    return ort.InferenceSession(graph, providers=["CPUExecutionProvider"])


SIZES = ((2, 6, 8), (1, 1, 8), (3, 300, 8), (1, 0, 8))


def test_the_originals_einsum_is_refused_and_its_outer_is_integer() -> None:
    with pytest.raises(Exception, match="bound to different types"):
        _session(_export(Rotary(_einsum, _trt_promoted_outer)))
    # The outer alone: the TorchScript export casts the frequencies to int64 (every one below 1 becomes 0), and the
    # `sin` of the int64 product is refused in turn.
    with pytest.raises(Exception, match=r"Type 'tensor\(int64\)' of input parameter .* of operator \(Sin\)"):
        _session(_export(Rotary(_trt_promoted_einsum, torch.outer)))


@pytest.mark.parametrize("dynamo", [False, True])
def test_the_rewritten_graph_equals_eager_mode(dynamo: bool) -> None:
    session = _session(_export(Rotary(_trt_promoted_einsum, _trt_promoted_outer), dynamo))
    for shape in SIZES if not dynamo else ((2, 6, 8), (2, 1, 8), (2, 300, 8)):
        x = torch.rand(*shape)
        got = session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]
        want = Rotary(_einsum, torch.outer)(x).numpy()
        assert got.shape == want.shape and got.dtype == want.dtype, shape
        assert np.allclose(got, want, rtol=1e-5, atol=1e-4), shape


def test_the_dynamo_export_of_the_original_is_refused_too() -> None:
    with pytest.raises(Exception, match="bound to different types"):
        _session(_export(Rotary(_einsum, _trt_promoted_outer), dynamo=True))


class Frames(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("inv_freq", torch.rand(4))

    def forward(self, x):
        seq = torch.arange(x.shape[1])
        freqs = torch.einsum("i, j -> i j", seq, self.inv_freq)
        return x[..., :4] * freqs.cos()


def test_a_refusal_at_load_is_placed_at_the_einsum_line(tmp_path: Path) -> None:
    """ONNX Runtime's type check names the node; the graph's recorded stack gives the user's line."""
    path = tmp_path / "frames.onnx"
    exported = export_model(Frames(), (torch.rand(2, 6, 8),), path, exporter="torchscript", input_names=["x"],
                            output_names=["out"], dynamic_axes={"x": {1: "n"}}, opset=17)
    assert exported.error is None, exported.error
    with pytest.raises(Exception) as refused:
        _session(path.read_bytes())
    node = failed_node(str(path), str(refused.value))
    assert node is not None and node.op == "Einsum", refused.value
    [line] = [i for i, text in enumerate(Path(__file__).read_text().splitlines(), 1)
              if text.strip().startswith("freqs = torch.einsum(")]
    assert node.source is not None and node.source.endswith(f"{Path(__file__).name}:{line}"), node.source
    assert failed_node(None, REFUSAL).node == "/m/frame_rot_emb/Einsum"


class Voxels(nn.Module):
    """TRELLIS's embedder: int32 coordinates times float frequencies by ``outer``, their cosines a line below."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("freqs", torch.rand(4))

    def forward(self, x, coords):
        phases = torch.outer(coords.reshape(-1), self.freqs)
        return x + torch.cos(phases).sum()


def test_a_refusal_for_an_integer_input_names_the_line_that_made_it(tmp_path: Path) -> None:
    """The TorchScript exporter writes the ``outer`` in int32 (the frequencies cast): ONNX Runtime refuses the
    ``Cos`` a line below for its int32 input, and the verifier records where that input was made."""
    path = tmp_path / "voxels.onnx"
    exported = export_model(Voxels(), (torch.rand(3), torch.randint(0, 9, (5, 3), dtype=torch.int32)), path,
                            exporter="torchscript", input_names=["x", "coords"], output_names=["out"],
                            dynamic_axes={"coords": {0: "n"}}, opset=17)
    assert exported.error is None, exported.error
    with pytest.raises(Exception, match=r"Type 'tensor\(int32\)' of input parameter") as refused:
        _session(path.read_bytes())
    node = failed_node(str(path), str(refused.value))
    lines = Path(__file__).read_text().splitlines()
    outer = lines.index("        phases = torch.outer(coords.reshape(-1), self.freqs)") + 1
    assert node is not None and node.op == "Cos", refused.value
    assert node.source is not None and node.source.endswith(f"{Path(__file__).name}:{outer + 1}"), node.source
    assert node.input_source is not None and node.input_source.endswith(f"{Path(__file__).name}:{outer}"), node
    # An error that names no refused input names no line for one.
    assert failed_node(str(path), REFUSAL).input_source is None


def test_the_plan_ties_trt370_to_an_integer_input_made_at_its_line(tmp_path: Path) -> None:
    path = str(tmp_path / "blocks.py")
    finding = Finding("TRT370", "promoted-operands", "m", path, 31, 14, 31, 41, Safety.SAFE)

    def refused(kind: str, made: str) -> Problem:
        message = (f"ONNX Runtime CPU failed: Type Error: Type '{kind}' of input parameter "
                   f"(/pos_embedder/Einsum_output_0) of operator (Cos) in node (/pos_embedder/Cos) is invalid.; "
                   f"ONNX Runtime refuses the Cos node '/pos_embedder/Cos' made at {path}:32; "
                   f"{REFUSED_INPUT_MADE_AT}{made}")
        return Problem("unfaithful", path, 32, FAILS_TO_RUN, None, message)

    assert matches(refused("tensor(int32)", f"{path}:31"), finding)
    assert matches(refused("tensor(int64)", f"{path}:31"), finding)
    # The input made at another line, in another file, a float input refused, or no word on where it was made.
    assert not matches(refused("tensor(int32)", f"{path}:30"), finding)
    assert not matches(refused("tensor(int32)", f"{tmp_path / 'other.py'}:31"), finding)
    assert not matches(refused("tensor(double)", f"{path}:31"), finding)
    plain = refused("tensor(int32)", f"{path}:31")
    assert not matches(replace(plain, message=plain.message.split("; ")[0]), finding)


def test_the_plan_ties_trt370_to_a_mixed_type_refusal_at_its_line(tmp_path: Path) -> None:
    path = str(tmp_path / "rotary.py")
    finding = Finding("TRT370", "promoted-operands", "m", path, 59, 17, 59, 60, Safety.SAFE)
    assert matches(Problem("unfaithful", path, 59, FAILS_TO_RUN, None, REFUSAL), finding)
    assert matches(Problem("unfaithful", path, 59, WRONG_VALUES, None, "max abs error 0.9"), finding)
    # Another line, another refusal, or the refusal in no file: not this rule's.
    assert not matches(Problem("unfaithful", path, 61, FAILS_TO_RUN, None, REFUSAL), finding)
    assert not matches(Problem("unfaithful", path, 59, FAILS_TO_RUN, None, "Node (/Reshape) Op (Reshape)"), finding)
    assert not matches(Problem("unfaithful", None, None, FAILS_TO_RUN, None, REFUSAL), finding)
    assert not matches(Problem("hostile", path, 59, "Einsum", None, "m"), finding)


def test_an_unplaced_mixed_type_refusal_gets_its_own_manual_step() -> None:
    entry = {"op": FAILS_TO_RUN, "kind": "unfaithful", "severity": "error", "rule": None, "message": REFUSAL}
    assert manual_step(entry) == MIXED_TYPES_STEP


def test_migrate_applies_the_rule_where_the_einsum_is_refused() -> None:
    module = load_variant(VARIANT, "trt370_migrate")
    line = line_of(VARIANT, "freqs = einsum('i, j -> i j', seq, self.inv_freqs)")
    report = migrate_json(VARIANT, axes_json(module))
    assert report["before"]["faithful"] is False, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert applied == [("TRT370", line)], (applied, report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
