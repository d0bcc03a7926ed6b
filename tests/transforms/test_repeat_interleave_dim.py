"""TRT373: ``repeat_interleave`` along a negative axis, passed counted from the front while exporting.

The TorchScript exporter's ``repeat_interleave`` symbolic adds the rank to a negative axis constant in place, and
the trace shares one ``Constant`` per value across the graph: every other ``-1`` changes with it. The rewrite is
checked as text (the forms taken, and what is left alone), then run: eager mode is the same (values, dtypes,
gradients, exceptions) on edge tensors and under scripting, fx, ``torch.compile`` and ``torch.export``; the helpers
are the axis and the call themselves outside an export. Exported: the original graph of a ``reshape(b, c, -1)``
beside a ``repeat_interleave(n, dim=-1)`` is refused by ONNX Runtime (the ``-1`` became 2); the rewritten one
equals eager mode at every length, 1 included, and on zeros, infinities and NaN. ``migrate`` ties TRT373 to a
refused node in any file and ends at exit 0 on snac's form (``tests/recipe_variants/trt373/``).
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from torch import nn
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import migrate_json, rewrite, rules_found
from variant_models import axes_json, line_of, load_variant

from trtcodemod.engine import Options, fix_source
from trtcodemod.findings import Finding
from trtcodemod.helpers.interleave import _trt_export_dim, _trt_repeat_interleave
from trtcodemod.migrate.locate import FAILS_TO_RUN, WRONG_VALUES, Problem
from trtcodemod.migrate.plan import describe, matches
from trtcodemod.rules import Safety

HEAD = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x, n):\n"
VARIANT = Path(__file__).resolve().parents[1] / "recipe_variants" / "trt373" / "snac_vector_quantize.py"


@pytest.mark.parametrize(("body", "want"), [
    ("        return x.repeat_interleave(self.stride, dim=-1)\n",
     "        return x.repeat_interleave(self.stride, dim=_trt_export_dim(x, -1))\n"),
    ("        return x.repeat_interleave(2, -2)\n", "        return x.repeat_interleave(2, _trt_export_dim(x, -2))\n"),
    ("        return torch.repeat_interleave(x, n, dim=-1)\n",
     "        return torch.repeat_interleave(x, n, dim=_trt_export_dim(x, -1))\n"),
    ("        return torch.repeat_interleave(x, 2, -1)\n",
     "        return torch.repeat_interleave(x, 2, _trt_export_dim(x, -1))\n"),
    ("        return self.z.repeat_interleave(2, dim=self.axis)\n",  # an axis that may be negative
     "        return self.z.repeat_interleave(2, dim=_trt_export_dim(self.z, self.axis))\n"),
    ("        return x.repeat_interleave(2, dim=-1).repeat_interleave(2, dim=-2)\n",  # a chain: read once
     "        return _trt_repeat_interleave(x.repeat_interleave(2, dim=_trt_export_dim(x, -1)), 2, -2)\n"),
    ("        return self.proj(x).repeat_interleave(2, dim=-1)\n",
     "        return _trt_repeat_interleave(self.proj(x), 2, -1)\n"),
])
def test_rewrite_text(body: str, want: str) -> None:
    after = rewrite(HEAD + body, select=("TRT373",))
    assert after.endswith(want), after
    assert "def _trt_export_dim" in after
    assert rules_found(after, select=("TRT373",)) == []


@pytest.mark.parametrize("body", [
    "        return x.repeat_interleave(2, dim=2)\n",  # counted from the front: the symbolic writes nothing
    "        return x.repeat_interleave(2, 0)\n",
    "        return x.repeat_interleave(2)\n",  # flattened
    "        return x.repeat_interleave(2, dim=None)\n",
    "        return torch.repeat_interleave(n)\n",  # the one-tensor form
    "        return torch.repeat_interleave(x.float(), 2, dim=-1)\n",  # the function form of a computed input
    "        return self.proj(x).repeat_interleave(2, dim=-1, output_size=8)\n",
    "        return x.repeat_interleave(*n)\n",
    "        return np.repeat_interleave(x, 2, -1)\n",
])
def test_other_code_is_left_alone(body: str) -> None:
    assert rules_found("import numpy as np\n" + HEAD + body, select=("TRT373",)) == []


def test_the_rule_is_opt_in() -> None:
    assert rules_found(HEAD + "        return x.repeat_interleave(2, dim=-1)\n") == []


PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.axis = -1

    def forward(self, x: torch.Tensor):
        a = x.repeat_interleave(2, dim=-1)
        b = torch.repeat_interleave(x, 3, -1)
        c = x.repeat_interleave(2, dim=self.axis).repeat_interleave(2, dim=-2)
        d = x.repeat_interleave(torch.tensor([1, 0, 2, 1, 3])[: x.shape[-1]], dim=-1) if x.dim() else x
        return a * 2, b, c, d
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt373")
    after = rewrite(PROGRAM, select=("TRT373",))
    assert after.count("_trt_export_dim(") == 4 + 1 and after.count("_trt_repeat_interleave(") == 1 + 1, after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


@pytest.mark.parametrize("label", ["example", "zeros", "negatives", "inf-nan", "empty-rows", "empty-columns", "one",
                                   "strided", "int", "3-d", "0-d", "1-d"])
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Values, dtypes, gradients and exceptions (a 0-d tensor: torch's own errors, the same in both)."""
    from snippets import EDGE_TENSORS

    before, after = program[0](), program[1]()
    x = EDGE_TENSORS[label]
    assert_same_run(run_once(before, [x]), run_once(after, [x]), context=label)


def test_the_other_toolchains_are_unchanged(program: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(program[0], program[1], [torch.randn(3, 4)], tmp_path, original_may_fail=True)


def test_the_helpers_are_the_originals_outside_an_export() -> None:
    x = torch.randn(2, 3)
    for dim in (-1, -2, -3, 0, 1, 5, None, True):
        assert _trt_export_dim(x, dim) is dim
    with pytest.raises(IndexError):
        _trt_repeat_interleave(x, 2, -3)  # out of range, as torch says
    assert torch.equal(_trt_repeat_interleave(x, 2, -1), x.repeat_interleave(2, dim=-1))
    assert torch.equal(_trt_repeat_interleave(x, torch.tensor([2, 0]), -2), x.repeat_interleave(torch.tensor([2, 0]), dim=-2))
    assert torch.jit.script(_trt_export_dim)(x, -1) == -1
    scripted = torch.jit.script(_trt_repeat_interleave)
    assert torch.equal(scripted(x, 3, -1), x.repeat_interleave(3, dim=-1))
    assert torch.equal(scripted(x, torch.tensor([1, 2, 0]), -1), x.repeat_interleave(torch.tensor([1, 2, 0]), dim=-1))


class Frames(nn.Module):
    """A reshape to ``-1`` beside a ``repeat_interleave`` along ``-1`` (snac's snake and quantizer), and a chain."""

    def __init__(self, dim) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x):
        flat = x.reshape(x.shape[0], x.shape[1], -1) * 2
        up = self.dim(flat, -1)
        grid = flat.reshape(x.shape[0], x.shape[1], 2, -1)
        return up, _chain(self.dim, grid)


def _chain(dim, grid):
    if dim is _original:
        return grid.repeat_interleave(2, dim=-1).repeat_interleave(3, dim=-2)
    return _trt_repeat_interleave(grid.repeat_interleave(2, dim=_trt_export_dim(grid, -1)), 3, -2)


def _original(z, axis):
    return z.repeat_interleave(2, dim=axis)


def _rewritten(z, axis):
    return z.repeat_interleave(2, dim=_trt_export_dim(z, axis))


def _export(model: nn.Module) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.rand(1, 4, 30),), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 2: "samples"}})
    return buffer.getvalue()


def _session(graph: bytes) -> ort.InferenceSession:
    return ort.InferenceSession(graph, providers=["CPUExecutionProvider"])


def test_the_originals_graph_is_refused_where_it_shares_the_constant() -> None:
    session = _session(_export(Frames(_original)))
    with pytest.raises(Exception, match=r"requested shape:\{1,4,2\}"):
        session.run(None, {"x": torch.rand(1, 4, 30).numpy()})


@pytest.mark.parametrize("shape", [(1, 4, 30), (2, 4, 2), (3, 4, 64), (1, 4, 1000)])
@pytest.mark.parametrize("values", ["rand", "zeros", "inf-nan"])
def test_the_rewritten_graph_equals_eager_mode(shape: tuple[int, ...], values: str) -> None:
    session = _session(_export(Frames(_rewritten)))
    x = torch.rand(*shape)
    if values == "zeros":
        x = torch.zeros(*shape)
    elif values == "inf-nan":
        x = x.masked_fill(x > 0.7, float("inf")).masked_fill(x < 0.2, float("nan")).masked_fill(x < 0.1, -0.0)
    got = session.run(None, {"x": x.numpy()})
    want = Frames(_original)(x)
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape) and g.dtype == w.numpy().dtype, shape
        assert np.array_equal(g, w.numpy(), equal_nan=True), shape


def test_the_plan_ties_trt373_to_a_refused_node_in_any_file(tmp_path: Path) -> None:
    quantizer, layers = str(tmp_path / "vq.py"), str(tmp_path / "layers.py")
    finding = Finding("TRT373", "repeat-interleave-dim", "m", quantizer, 34, 18, 34, 60, Safety.SAFE)
    refused = Problem("unfaithful", layers, 172, FAILS_TO_RUN, None, "requested shape:{1,16,2}")
    assert matches(refused, finding)
    assert matches(Problem("unfaithful", quantizer, 10, WRONG_VALUES, None, "max abs error 0.9"), finding)
    assert describe([refused], quantizer) == "the graph fails to run at layers.py:172"
    # Not a hostile node, a baked value or an export failure.
    assert not matches(Problem("hostile", quantizer, 34, "Expand", None, "m"), finding)
    assert not matches(Problem("baked", quantizer, 34, "(traced constant)", None, "m"), finding)


def test_the_variant_is_the_same_program_in_eager_mode() -> None:
    original = load_variant(VARIANT, "trt373_original")
    source = fix_source(VARIANT.read_bytes(), str(VARIANT), Options(select=("TRT373",), scope="all")).source.decode()
    assert "z_q = z_q.repeat_interleave(self.stride, dim=_trt_export_dim(z_q, -1))" in source, source
    path = VARIANT.parent / "_rewritten_trt373_variant.py"
    try:
        path.write_text(source)
        rewritten = load_variant(path, "trt373_rewritten")
    finally:
        path.unlink()
    before, after = original.build(), rewritten.build()
    for x in (torch.rand(1, 1, 40) * 2 - 1, torch.zeros(2, 1, 2), torch.ones(1, 1, 1001), torch.full((1, 1, 8), 1e4)):
        assert_same_run(run_once(before, [x]), run_once(after, [x]), context=str(tuple(x.shape)))


def test_migrate_applies_the_rule_where_a_reshape_is_refused_lines_away() -> None:
    module = load_variant(VARIANT, "trt373_migrate")
    line = line_of(VARIANT, "z_q = z_q.repeat_interleave(self.stride, dim=-1)")
    report = migrate_json(VARIANT, axes_json(module))
    assert report["before"]["faithful"] is False, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert applied == [("TRT373", line)], (applied, report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]


# Real-code variants beyond snac (tests/recipe_variants/trt373/): timm's DINOv3 rope (a plain receiver, the axis by
# keyword), LTX-Video's 3-D rope (a computed receiver, `freqs.cos().repeat_interleave(2, dim=-1)`), kornia's LightGlue
# Fourier encoding (`emb.repeat_interleave(2, dim=-1)` on a 5-D stack) and torchaudio's WaveRNN `Stretch2d` (a chain,
# the axes by position: `specgram.repeat_interleave(f, -2).repeat_interleave(t, -1)`). Each is
# rewritten from its code alone, the same program in eager mode on edge values, its original graph computes other
# values or is refused, the rewritten one equals eager mode at other sizes, and migrate applies TRT373 at the line.
REAL = VARIANT.parent
#: variant -> (the text the rule writes, other sizes as its ``inputs`` takes them).
REAL_FORMS: dict[str, tuple[str, list[tuple[int, ...]]]] = {
    "timm_dinov3_rope": ("        angles = angles.repeat_interleave(2, dim=_trt_export_dim(angles, -1))\n",
                         [(7, 3, 1), (1, 9, 3), (2, 2, 4)]),
    "ltx_video_rope": ("        cos_freq = _trt_repeat_interleave(freqs.cos(), 2, -1)\n"
                       "        sin_freq = _trt_repeat_interleave(freqs.sin(), 2, -1)\n",
                       [(1, 1), (3, 11), (1, 40)]),
    # kornia's LightGlue (the 5-D encoding's ``-1`` becomes 4) and torchaudio's WaveRNN (a chain with positional
    # axes): their original graphs are refused when ONNX Runtime loads them (a Concat or Unsqueeze axis out of range).
    "kornia_lightglue_fourier_rope": ("        return emb.repeat_interleave(2, dim=_trt_export_dim(emb, -1))\n",
                                      [(2, 1), (1, 13), (3, 40)]),
    "torchaudio_wavernn_stretch2d": ("        return _trt_repeat_interleave(specgram.repeat_interleave("
                                     "self.freq_scale, _trt_export_dim(specgram, -2)), self.time_scale, -1)\n",
                                     [(2, 3), (1, 12), (3, 30)]),
}
#: variant -> what ONNX Runtime says when it refuses to load the original's graph (the others load and differ).
REFUSED = {"kornia_lightglue_fourier_rope": "(Concat) [ShapeInferenceError] axis must be in [-rank, rank-1]",
           "torchaudio_wavernn_stretch2d": "(Unsqueeze) [ShapeInferenceError] Unexpected axis value: 3"}


@pytest.fixture(scope="module", params=sorted(REAL_FORMS))
def real(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    from variant_models import export_variant, rewritten_variant, seeded

    name = request.param
    folder = tmp_path_factory.mktemp(f"trt373_{name}")
    variant = rewritten_variant(REAL / f"{name}.py", "TRT373", folder)
    module = variant["module"]
    example = module.inputs(seeded(0))
    variant["example"] = example
    try:
        variant["before"], _ = export_variant(variant["original"], example, module.DYNAMIC, folder / "before.onnx",
                                              folder)
    except Exception as error:  # noqa: BLE001 - ONNX Runtime refuses the original's graph; the test checks why
        variant["before"], variant["refused"] = None, str(error)
    variant["after"], _ = export_variant(variant["rewritten"], example, module.DYNAMIC, folder / "after.onnx", folder)
    variant["sizes"] = {f"sizes {s}": module.inputs(seeded(sum(s) + 1), *s) for s in REAL_FORMS[name][1]}
    return variant


def _edge_sets(variant: dict) -> dict[str, tuple]:
    """The example, zeros, negatives and inf/NaN in the float input the model reads first."""
    example = variant["example"]
    first = example[0]
    special = first.clone().flatten()
    special[:4] = torch.tensor([float("inf"), float("nan"), -float("inf"), -0.0])
    return {"example": example, "zeros": (torch.zeros_like(first), *example[1:]),
            "negatives": (-first.abs() - 1, *example[1:]), "inf-nan": (special.reshape(first.shape), *example[1:]),
            **variant["sizes"]}


def test_real_forms_are_rewritten_from_the_code_alone(real: dict) -> None:
    want, _ = REAL_FORMS[real["name"]]
    assert want in real["source"], real["source"]
    assert real["safe_only"] == real["source"]  # a safe rule: the same text without --unsafe
    assert real["source"].replace(want, "") != real["path"].read_text()
    assert rules_found(real["source"], select=("TRT373",)) == []


def test_real_forms_keep_eager_mode(real: dict) -> None:
    from variant_models import assert_eager_unchanged

    assert_eager_unchanged(real["original"], real["rewritten"], _edge_sets(real))


def test_real_forms_original_graph_differs_and_the_rewritten_one_follows_every_size(real: dict) -> None:
    from variant_models import assert_graph_within, graph_matches

    if real["name"] in REFUSED:
        assert real["before"] is None and REFUSED[real["name"]] in real["refused"], real.get("refused")
    else:
        assert not graph_matches(real["before"], real["original"], real["example"], equal_nan=True)
    for label, inputs in {"example": real["example"], **real["sizes"]}.items():
        assert_graph_within(real["after"], real["original"], inputs, 1e-5, label)
    zeros = _edge_sets(real)["zeros"]
    assert_graph_within(real["after"], real["original"], zeros, 1e-5, "zeros")


@pytest.mark.parametrize("name", sorted(REAL_FORMS))
def test_migrate_applies_the_rule_on_real_forms(name: str) -> None:
    from variant_models import assert_migrate_corrects

    assert_migrate_corrects(REAL / f"{name}.py", "TRT373", f"trt373_migrate_{name}")
