"""TRT378: ``torch.nn.utils.rnn.pad_sequence`` has no TorchScript ONNX symbolic, so the export stops at it.

The rewrite is checked as text (the spellings taken, the defaults written out, what is left alone), then run: eager
mode is torch's call (values, dtypes, gradients, exceptions) on edge lengths and under scripting, fx,
``torch.compile`` and ``torch.export``. Exported: the original's export stops at ``aten::pad_sequence``, the
rewritten one writes fixed operators and equals eager mode in ONNX Runtime at other lengths (an empty item, every
item empty, one item, equal lengths, a NaN padding value, ``batch_first=False``, rank 1 and rank 3 items), and still
stops where torch stops. ``migrate`` ties TRT378 to the export failure at its line and ends at exit 0 on speechbrain's
FastSpeech 2 ``upsample`` (``tests/recipe_variants/trt378/``).
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

from trtcodemod.helpers.sequences import _trt_pad_sequence
from trtcodemod.trt.check import RULES

VARIANTS = Path(__file__).resolve().parents[1] / "recipe_variants" / "trt378"


@pytest.mark.parametrize(("code", "want"), [
    ("import torch\ny = torch.nn.utils.rnn.pad_sequence(mels, batch_first=True, padding_value=pad)\n",
     "y = _trt_pad_sequence(mels, True, pad)\n"),
    ("from torch import nn\ny = nn.utils.rnn.pad_sequence(mels, True)\n", "y = _trt_pad_sequence(mels, True, 0.0)\n"),
    ("from torch.nn.utils.rnn import pad_sequence\ny = pad_sequence(mels)\n",
     "y = _trt_pad_sequence(mels, False, 0.0)\n"),
    ("from torch.nn.utils.rnn import pad_sequence as pad\ny = pad([a, b], padding_value=-1.0)\n",
     "y = _trt_pad_sequence([a, b], False, -1.0)\n"),
    ("import torch.nn.utils.rnn as rnn\ny = rnn.pad_sequence(sequences=mels, padding_value=2, batch_first=flag)\n",
     "y = _trt_pad_sequence(mels, flag, 2)\n"),
])
def test_rewrite_text(code: str, want: str) -> None:
    after = rewrite(code, select=("TRT378",))
    assert after.endswith(want), after
    assert "def _trt_pad_sequence" in after and "def _trt_pad_sequence_eager" in after
    assert rules_found(after, select=("TRT378",)) == []


@pytest.mark.parametrize("code", [
    "import torch\ny = torch.nn.utils.rnn.pad_sequence(mels, True, 0.0, 'left')\n",
    "import torch\ny = torch.nn.utils.rnn.pad_sequence(mels, batch_first=True, padding_side='left')\n",
    "import torch\ny = torch.nn.utils.rnn.pad_sequence(*args)\n",
    "import torch\ny = torch.nn.utils.rnn.pad_packed_sequence(packed, batch_first=True)\n",
    "def pad_sequence(xs):\n    return xs\ny = pad_sequence(mels)\n",  # a function of the file's own
    "from mylib import pad_sequence\ny = pad_sequence(mels)\n",
])
def test_other_code_is_left_alone(code: str) -> None:
    assert rules_found(code, select=("TRT378",)) == []


def test_the_export_failure_names_trt378() -> None:
    assert RULES["aten::pad_sequence"] == ("TRT378",)


# --- eager mode and the other toolchains: torch's call -------------------------------------------------------------

PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor):
        first = torch.nn.utils.rnn.pad_sequence([a * 2, b, c], batch_first=True, padding_value=-1.5)
        second = nn.utils.rnn.pad_sequence([a, c])
        return first, second
"""


def _items(*lengths: int, rest: tuple[int, ...] = (3,), grad: bool = True, dtype=torch.float32) -> list:
    generator = torch.Generator().manual_seed(sum(lengths))
    return [torch.randn(n, *rest, generator=generator).to(dtype).requires_grad_(grad and dtype.is_floating_point)
            for n in lengths]


EAGER_CASES = {
    "mixed": _items(2, 5, 1),
    "one empty": _items(0, 4, 2),
    "all empty": _items(0, 0, 0),
    "equal": _items(3, 3, 3),
    "rank 1": _items(2, 4, 1, rest=()),
    "rank 3": _items(1, 3, 2, rest=(2, 2)),
    "float64": _items(2, 1, 3, dtype=torch.float64),
    "int": _items(2, 1, 3, grad=False, dtype=torch.int64),
    "trailing sizes differ": [torch.randn(2, 3), torch.randn(2, 4), torch.randn(1, 3)],
    "inf-nan": [torch.tensor([[float("inf")], [float("nan")]]), torch.tensor([[-0.0]]), torch.tensor([[1e30]])],
}


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt378")
    after = rewrite(PROGRAM, select=("TRT378",))
    assert after.count("_trt_pad_sequence(") == 1 + 2, after  # the definition and two calls
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


@pytest.mark.parametrize("label", sorted(EAGER_CASES))
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Values, dtypes, gradients and exceptions: torch's own (mismatched trailing sizes raise in both)."""
    before, after = program[0](), program[1]()
    assert_same_run(run_once(before, EAGER_CASES[label]), run_once(after, EAGER_CASES[label]), context=label)


def test_the_other_toolchains_are_unchanged(program: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(program[0], program[1], _items(2, 5, 1, grad=False), tmp_path,
                                   original_may_fail=True)


def test_the_helper_is_torch_outside_the_export_and_scripts() -> None:
    items = _items(2, 0, 3, grad=False)
    for batch_first, value in ((True, 0.0), (False, -2.0)):
        want = torch.nn.utils.rnn.pad_sequence(items, batch_first, value)
        assert torch.equal(_trt_pad_sequence(items, batch_first, value), want)
        assert torch.equal(torch.jit.script(_trt_pad_sequence)(items, batch_first, value), want)
    traced = torch.jit.trace(lambda a, b: _trt_pad_sequence([a, b], True, 0.0), tuple(items[:2]))  # not an export
    assert any(node.kind() == "aten::pad_sequence" for node in traced.graph.nodes())


# --- the export --------------------------------------------------------------------------------------------------

class Padder(nn.Module):
    def __init__(self, pad, batch_first: bool, value: float) -> None:
        super().__init__()
        self.pad, self.batch_first, self.value = pad, batch_first, value

    def forward(self, a, b, c):
        return self.pad([a * 2, b, c + 1], self.batch_first, self.value)


def _export(model: nn.Module, items: list[torch.Tensor]) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, tuple(items), buffer, dynamo=False, opset_version=17, input_names=list("abc"),
                          dynamic_axes={name: {0: f"{name}_length"} for name in "abc"})
    return buffer.getvalue()


def test_the_originals_export_stops_at_pad_sequence() -> None:
    with pytest.raises(Exception, match="aten::pad_sequence"):
        _export(Padder(torch.nn.utils.rnn.pad_sequence, True, 0.0), _items(3, 5, 1, grad=False))


@pytest.mark.parametrize(("batch_first", "value", "rest"), [
    (True, 0.0, (4,)), (True, -1.5, ()), (False, float("nan"), (4,)), (False, 7.0, (2, 3)), (True, 3, (2, 3)),
])
def test_the_rewritten_graph_has_fixed_ops_and_equals_eager_mode(batch_first: bool, value: float,
                                                                  rest: tuple[int, ...]) -> None:
    graph = _export(Padder(_trt_pad_sequence, batch_first, value), _items(3, 5, 1, rest=rest, grad=False))
    ops = {node.op_type for node in onnx.load_from_string(graph).graph.node}
    assert not ops & {"Loop", "If", "SequenceConstruct", "ConcatFromSequence", "CumSum", "ScatterND"}, ops
    session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
    reference = Padder(torch.nn.utils.rnn.pad_sequence, batch_first, value)
    for lengths in [(3, 5, 1), (0, 4, 2), (0, 0, 0), (1, 1, 1), (6, 6, 6), (9, 0, 0), (1, 17, 4), (2, 3, 40)]:
        items = _items(*lengths, rest=rest, grad=False)
        if items[0].numel():
            items[0].view(-1)[0] = float("nan")
        want = reference(*items).numpy()
        got = session.run(None, {name: item.numpy() for name, item in zip("abc", items)})[0]
        assert got.shape == want.shape and got.dtype == want.dtype, lengths
        assert np.array_equal(got, want, equal_nan=True), lengths


def test_the_export_bakes_nothing() -> None:
    """No Python decision on a traced size in the helper: the export raises no TracerWarning (a comparison of the
    items' trailing sizes would, and migrate would report a baked value at the helper's line)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.onnx.export(Padder(_trt_pad_sequence, True, 0.0), tuple(_items(3, 5, 1, rest=(2, 3), grad=False)),
                          io.BytesIO(), dynamo=False, opset_version=17, input_names=list("abc"),
                          dynamic_axes={name: {0: f"{name}_length"} for name in "abc"})
    assert not [w for w in caught if issubclass(w.category, torch.jit.TracerWarning)], \
        [str(w.message) for w in caught if issubclass(w.category, torch.jit.TracerWarning)]


def test_the_export_stops_where_torch_does() -> None:
    """The example's errors are torch's: trailing sizes that differ stop both exports."""
    items = [torch.randn(2, 3), torch.randn(2, 4), torch.randn(1, 3)]
    for pad in (torch.nn.utils.rnn.pad_sequence, _trt_pad_sequence):
        with pytest.raises(RuntimeError):
            _export(Padder(pad, True, 0.0), items)


# --- real code -----------------------------------------------------------------------------------------------------

def test_speechbrains_upsample_exports_and_equals_eager_mode(tmp_path: Path) -> None:
    """speechbrain 1.1.2's ``upsample`` with TRT376's and TRT378's rewrites (TRT704 takes ``len(durs)``): the
    export equals eager mode at other numbers of tokens and durations, zeros among them and all zero."""
    path = VARIANTS / "speechbrain_fastspeech2_upsample.py"
    original = load_variant(path, "trt378_sb_original")
    after_text = rewrite(path.read_text(), select=("TRT376", "TRT378"))
    assert "= _trt_pad_sequence(upsampled_mels, True, padding_value)\n" in after_text, after_text
    rewritten_path = tmp_path / "sb_rewritten.py"
    rewritten_path.write_text(after_text)
    rewritten = load_variant(rewritten_path, "trt378_sb_rewritten")
    before, after = original.build(), rewritten.build()
    generator = torch.Generator().manual_seed(2)
    example = original.inputs(generator)
    assert_same_run(run_once(before, list(example)), run_once(after, list(example)), context="example")
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(after, example, buffer, dynamo=False, opset_version=17, input_names=["x", "durations"],
                          dynamic_axes=original.DYNAMIC)
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    for tokens, top in ((1, 3.0), (3, 4.0), (9, 2.0), (17, 5.0), (4, 0.4)):
        inputs = (torch.randn(1, tokens, 4, generator=generator), torch.rand(1, tokens, generator=generator) * top)
        want = before(*inputs).detach().numpy()
        got = session.run(None, {"x": inputs[0].numpy(), "durations": inputs[1].numpy()})[0]
        assert got.shape == want.shape and np.allclose(got, want, atol=1e-6), (tokens, got.shape, want.shape)


def test_migrate_takes_speechbrains_upsample_end_to_end() -> None:
    variant = VARIANTS / "speechbrain_fastspeech2_upsample.py"
    module = load_variant(variant, "trt378_migrate")
    report = migrate_json(variant, axes_json(module))
    assert report["before"]["exported"] is False, report["before"]
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert ("TRT378", line_of(variant, "torch.nn.utils.rnn.pad_sequence(")) in applied, applied
    assert report["after"]["trt_errors"] == 0 and report["after"]["faithful"] is True, report["after"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]


# --- more real code: NVIDIA's FastSpeech, transformers' SeamlessM4T v2, as-ideas' ForwardTacotron (keywords in the
# order padding_value, batch_first) and FunASR's EEND-OLA (two calls, integer padding values, one call chained) ------

#: variant -> the call(s) the rule writes from the code alone (the first is the variant's ``CALL``).
REAL = {
    "forwardtacotron_length_regulator": "x_expanded = _trt_pad_sequence(x_expanded, True, 0.)",
    "funasr_eend_ola_forward_encoder": ("xs = _trt_pad_sequence(xs, True, -1)",
                                        "xs_mask = _trt_pad_sequence(xs_mask, True, 0).unsqueeze(-2)"),
    "nvidia_fastspeech_length_regulator": "output = _trt_pad_sequence(output, True, 0.0)",
    "transformers_seamless_m4t_v2_hard_upsample": "hidden_states = _trt_pad_sequence(hidden_states, True, 0.0)",
}


def _calls(name: str) -> tuple[str, ...]:
    return REAL[name] if isinstance(REAL[name], tuple) else (REAL[name],)


def _utterance_sets(module) -> dict[str, tuple]:
    """FunASR's EEND-OLA takes the utterances' features themselves: the example, one frame against many, equal
    lengths, zeros, negatives, one utterance empty and both empty (torch's own ``view(-1, ...)`` of no elements
    raises there, in both programs: eager mode only). Features are finite (filterbanks)."""
    from variant_models import seeded

    example = module.inputs(seeded(0))
    return {"example": example, "one and many frames": module.inputs(seeded(1), 1, 17),
            "equal lengths": module.inputs(seeded(2), 4, 4), "long": module.inputs(seeded(3), 40, 2),
            "zeros": tuple(torch.zeros_like(x) for x in example), "negatives": tuple(-x.abs() - 0.5 for x in example),
            "all empty": module.inputs(seeded(4), 0, 0), "one empty": module.inputs(seeded(5), 0, 5)}


def _reaches_the_empty_edge(name: str, model: nn.Module, sets: dict[str, tuple]) -> bool:
    if name == "funasr_eend_ola_forward_encoder":
        with pytest.raises(RuntimeError, match="0 elements"):
            model(*sets["all empty"])
        return model(*sets["one empty"])[0].shape[0] == 0 and model(*sets["one empty"])[1].shape[0] == 5
    return model(*sets["all empty"]).shape[1] == 0


def _real_sets(module) -> dict[str, tuple]:
    """The example, other numbers of tokens (one, many), zeros, negatives, and inputs whose predicted durations are
    all 0 (every item empty: the padded tensor has no rows). No NaN or infinity: the durations are predicted from the
    same features, and a NaN count cast to an integer is undefined in torch itself."""
    from variant_models import seeded

    example = module.inputs(seeded(0))
    weight = module.build().state_dict()
    weight = next(v for k, v in weight.items() if k.endswith("uration_predictor.weight") or k == "duration.weight")
    empty = (-4.0 * torch.sign(weight[0]).expand(2, 7, -1).clone(),)
    return {"example": example, "one token": module.inputs(seeded(1), 2, 1), "many tokens": module.inputs(seeded(2), 2, 23),
            "zeros": (torch.zeros_like(example[0]),), "negatives": (-example[0].abs() - 0.5,), "all empty": empty}


@pytest.fixture(scope="module", params=sorted(REAL))
def real(request, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A variant, its rewrite from the code alone (TRT376 and TRT378, as migrate applies them), both models with the
    same weights, and the rewritten model's TorchScript export with the variant's dynamic axes."""
    from variant_models import built_variant, export_variant

    name = request.param
    folder = tmp_path_factory.mktemp(name)
    path = VARIANTS / f"{name}.py"
    module, original = built_variant(path, f"trt378_real_{name}")
    text = rewrite(path.read_text(), select=("TRT376", "TRT378"))
    (folder / f"{name}_rewritten.py").write_text(text)
    _, rewritten = built_variant(folder / f"{name}_rewritten.py", f"trt378_real_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    sets = _utterance_sets(module) if name == "funasr_eend_ola_forward_encoder" else _real_sets(module)
    graph_sets = {label: inputs for label, inputs in sets.items()
                  if not (name == "funasr_eend_ola_forward_encoder" and label == "all empty")}
    session, traced = export_variant(rewritten, sets["example"], module.DYNAMIC, folder / "after.onnx", folder)
    return dict(name=name, path=path, module=module, original=original, rewritten=rewritten, text=text, sets=sets,
                graph_sets=graph_sets, session=session, graph=onnx.load(str(folder / "after.onnx")), folder=folder)


def test_real_code_rewrite_text(real: dict) -> None:
    only = rewrite(real["path"].read_text(), select=("TRT378",))
    for call in _calls(real["name"]):
        assert call in only and call in real["text"], only
    assert real["module"].CALL not in [line.strip() for line in only.splitlines()], only  # the call's line is gone
    assert rules_found(only, select=("TRT378",)) == []


def test_real_code_eager_is_unchanged(real: dict) -> None:
    from variant_models import assert_eager_unchanged

    assert _reaches_the_empty_edge(real["name"], real["original"], real["sets"])  # the edge is reached
    assert_eager_unchanged(real["original"], real["rewritten"], real["sets"])


def test_real_code_original_export_stops_and_the_rewrite_follows_the_tokens(real: dict) -> None:
    from trtcodemod.verify.export import export_model
    from variant_models import assert_graph_within, input_names

    module, original = real["module"], real["original"]
    before = export_model(original, real["sets"]["example"], real["folder"] / "before.onnx",
                          exporter="torchscript", input_names=input_names(original), output_names=["out"],
                          dynamic_axes=module.DYNAMIC, opset=17)
    assert before.error is not None and "pad_sequence" in before.error, before.error
    for label, inputs in real["graph_sets"].items():
        assert_graph_within(real["session"], original, inputs, 1e-6, label)


@pytest.mark.parametrize("name", sorted(REAL))
def test_migrate_takes_the_real_code_end_to_end(name: str) -> None:
    from variant_models import assert_migrate_applies

    variant = VARIANTS / f"{name}.py"
    report = assert_migrate_applies(variant, "TRT378", f"trt378_migrate_{name}")
    if name == "funasr_eend_ola_forward_encoder":  # the second call, over three lines
        applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
        assert ("TRT378", line_of(variant, "xs_mask = torch.nn.utils.rnn.pad_sequence(")) in applied, applied
