"""The slice-from-values recipe (TRT715) on real-code variants.

Each variant in ``tests/recipe_variants/trt715/`` is a small runnable model reduced from a public
repository (cited in its docstring) that trims a padded batch to its longest sequence with a slice
whose end is a reduction of a lengths tensor (``x[:, : lengths.max()]``, ``x[..., : lengths.max()]``).
Petals trims a token matrix by its width minus the most padding of any row
(``inputs[:, : inputs.size(1) - (inputs == pad).sum(-1).max()]``), VALL-E cuts the text off a
joint decoder output by a start from values (``xy_dec[:, x_lens.max() + prefix_len :]``).
The TorchScript export keeps the bound in the graph, as an execution tensor where TensorRT needs a
shape tensor (the graph check reports the ``Slice``). The rule rewrites the file from the code
alone (``--unsafe``: the end, or the start, becomes a bool index on the sliced axis); the rewritten graph has no
such ``Slice``, equals eager mode at other sizes and lengths (the longest, zero, an empty batch)
and on zeros, negatives and inf/NaN, and eager mode keeps the values, dtype, shape and gradients on
inputs that meet the rule's assumption (a count that is not negative). The dynamo exporter does not
export the bool index of the rewrite with dynamic axes (data-dependent), so only the TorchScript
export is the rule's claim.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from variant_models import export_variant, input_names, rewritten_variant

from trtcodemod.engine import Options, fix_source
from trtcodemod.trt.check import check_graph
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt715"


def _asr(batch: int, samples: int, lengths: list[int], seed: int) -> tuple[torch.Tensor, ...]:
    return torch.randn(batch, samples, generator=torch.Generator().manual_seed(seed)), torch.tensor(lengths)


def _enh(batch: int, samples: int, lengths: list[int], seed: int) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(seed)
    return (torch.randn(batch, samples, generator=generator), torch.randn(batch, 2, samples, generator=generator),
            torch.tensor(lengths))


def _tts(batch: int, tokens: int, lengths: list[int], seed: int) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(seed)
    return (torch.randint(0, 10, (batch, tokens), generator=generator), torch.tensor(lengths),
            torch.randn(batch, tokens, 1, generator=generator), torch.tensor(lengths[::-1]))


def _petals(batch: int, tokens: int, lengths: list[int], seed: int) -> tuple[torch.Tensor, ...]:
    """Each row its own number of real tokens (1..11), then padding (0)."""
    ids = torch.randint(1, 12, (batch, tokens), generator=torch.Generator().manual_seed(seed))
    return (ids * (torch.arange(tokens)[None] < torch.tensor(lengths)[:, None]),)


def _valle(batch: int, text: int, lengths: list[int], seed: int) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(seed)
    return (torch.randn(batch, text, 6, generator=generator), torch.tensor(lengths),
            torch.randn(batch, 3 + seed, 6, generator=generator))


# name → (fragments of the rewritten code, a maker of inputs, other (batch, length, lengths) sets)
VARIANTS = {
    "espnet_asr_extract_feats": (
        ("speech = speech[:, torch.arange(speech.shape[1], device=speech.device) < speech_lengths.max()]",),
        # no zero length (the frontend's kernel needs 4 samples) and no empty batch (`max()` of no lengths
        # raises): both raise in eager mode alike
        _asr, [(2, 31, [31, 5]), (4, 12, [4, 8, 12, 4]), (1, 9, [4]), (3, 10, [10, 10, 10])]),
    "espnet_enh_speech_ref": (
        ("speech_ref = speech_ref[..., torch.arange(speech_ref.shape[-1], device=speech_ref.device) < "
         "speech_lengths.max()]",
         "speech_mix = speech_mix[:, torch.arange(speech_mix.shape[1], device=speech_mix.device) < "
         "speech_lengths.max()]"),
        _enh, [(3, 25, [25, 2, 10]), (1, 6, [0]), (2, 7, [7, 7])]),
    "espnet_fastspeech2_targets": (
        ("text = text[:, torch.arange(text.shape[1], device=text.device) < text_lengths.max()]",
         "pitch = pitch[:, torch.arange(pitch.shape[1], device=pitch.device) < pitch_lengths.max()]"),
        _tts, [(3, 14, [14, 2, 9]), (1, 5, [0]), (2, 4, [1, 3])]),
    # Not found before: the count is a reduction of a comparison (`(inputs == pad)`), which the rule
    # did not take for a tensor.
    "petals_generate_pad_trim": (
        ("inputs = inputs[:, torch.arange(inputs.shape[1], device=inputs.device) < inputs.size(1) - "
         "(inputs == self.pad_token_id).sum(-1).max()]",),
        # every row padded to nothing (no column kept), none padded (every column kept), one row
        _petals, [(3, 6, [6, 2, 4]), (2, 4, [0, 0]), (2, 5, [5, 5]), (1, 3, [1])]),
    # Not rewritten before: the start, not the end, is the value.
    "valle_nar_audio_part": (
        ("xy_dec = xy_dec[:, torch.arange(xy_dec.shape[1], device=xy_dec.device) >= x_lens.max() + "
         "self.prefix_len]",),
        # the longest text shorter than the padded one, an empty text, all full
        _valle, [(3, 7, [6, 2, 5]), (1, 3, [0]), (2, 2, [2, 2])]),
}


def _export(model: torch.nn.Module, module, path: Path) -> onnx.ModelProto:
    export_variant(model, module.inputs(torch.Generator().manual_seed(0)), module.DYNAMIC, path, path.parent)
    return onnx.load(str(path))


def _value_slices(model: onnx.ModelProto) -> list[str]:
    """The graph check's findings of a shape tensor computed from values (before TensorRT 8.5)."""
    return [i.op for i in check_graph(model, "8.4") if "shape tensor" in i.reason]


def _edge_sets(example: tuple) -> dict[str, tuple]:
    """Zeros, negatives and inf/NaN in the floating inputs, the lengths kept."""
    def change(fn) -> tuple:
        return tuple(fn(t) if t.is_floating_point() else t for t in example)

    def special(t: torch.Tensor) -> torch.Tensor:
        flat = t.clone().flatten()
        flat[:3] = torch.tensor([float("inf"), float("nan"), -float("inf")])
        return flat.reshape(t.shape)

    return {"zeros": change(torch.zeros_like), "negatives": change(lambda t: -t.abs() - 1), "inf-nan": change(special)}


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request, tmp_path_factory) -> dict:
    """The variant, its rewrite, and both models exported (TorchScript, dynamic axes)."""
    folder = tmp_path_factory.mktemp(request.param)
    variant = rewritten_variant(HERE / f"{request.param}.py", "TRT715", folder)
    module = variant["module"]
    _, make, others = VARIANTS[request.param]
    sets = {"example": module.inputs(torch.Generator().manual_seed(0)),
            **{f"{batch}x{length} {lengths}": make(batch, length, lengths, seed)
               for seed, (batch, length, lengths) in enumerate(others, 1)}}
    sets.update(_edge_sets(sets["example"]))
    return dict(variant, sets=sets, before=_export(variant["original"], module, folder / "before.onnx"),
                after=_export(variant["rewritten"], module, folder / "after.onnx"))


def test_the_rule_turns_each_slice_end_into_a_bool_index(migrated) -> None:
    fragments, _, _ = VARIANTS[migrated["name"]]
    for fragment in fragments:
        assert fragment in migrated["source"], migrated["source"]
    assert migrated["safe_only"] == migrated["path"].read_text()  # unsafe: not without --unsafe


def test_the_original_graph_slices_by_a_value_and_the_rewritten_one_does_not(migrated) -> None:
    assert "Slice" in _value_slices(migrated["before"])
    assert _value_slices(migrated["after"]) == []


def test_the_rewritten_graph_equals_eager_mode(migrated) -> None:
    import onnxruntime as ort

    session = ort.InferenceSession(migrated["after"].SerializeToString(), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    for label, inputs in migrated["sets"].items():
        with torch.no_grad():
            want = migrated["original"](*inputs).numpy()
        feeds = {n: t.numpy() for n, t in zip(input_names(migrated["original"]), inputs) if n in names}
        [got] = session.run(None, feeds)
        assert got.shape == want.shape, (label, got.shape, want.shape)
        assert np.allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True), label


def test_eager_values_dtype_and_gradients_are_unchanged(migrated) -> None:
    for label, inputs in migrated["sets"].items():
        outputs, grads = [], []
        for model in (migrated["original"], migrated["rewritten"]):
            given = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
            out = model(*given)
            weights = torch.arange(1.0, out.numel() + 1).reshape(out.shape)
            (out * weights).nan_to_num().sum().backward()
            outputs.append(out.detach())
            grads.append([t.grad for t in given if t.is_floating_point()])
        before, after = outputs
        assert (before.shape, before.dtype) == (after.shape, after.dtype), label
        assert torch.equal(before.isnan(), after.isnan()), label
        same = _rounding_equal if migrated["name"] in ROUNDED else torch.equal
        assert same(before.nan_to_num(), after.nan_to_num()), label
        for a, b in zip(*grads):
            assert same(a.nan_to_num(), b.nan_to_num()) and torch.equal(a.isnan(), b.isnan()), label


#: Variants whose sliced operand reaches a matmul as a view the rewrite's copy is not: VALL-E's
#: ``xy_dec[:, n:]`` begins inside the storage (an offset of n rows) where the copy is aligned, and
#: ESPnet's pitch ``pitch[:, :k]`` of shape (B, T, 1) is a view with strides (T, 1, 1) where the copy
#: is contiguous. CPU matmul kernels round such an operand differently in the last bit, by the CPU
#: (the rule's doc says so: measured 1.2e-7 on the Linear of ESPnet's pitch on an Intel Xeon, where
#: an earlier machine's kernels gave equal bits). The values agree to that rounding; the other
#: variants above are compared bit for bit.
ROUNDED = {"valle_nar_audio_part", "espnet_fastspeech2_targets"}


def _rounding_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    return torch.allclose(a, b, rtol=4 * torch.finfo(a.dtype).eps, atol=4 * torch.finfo(a.dtype).eps)


OTHER_SUBSCRIPTS = """\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x, m):
        a = x[1:, : m.sum()]
        b = x[..., : m.sum(), :]
        c = x[None, : m.sum()]
        d = x[0, : m.sum()]
        e = x[: m.sum(), : m.sum()]
        x[:, : m.sum()] = 0
        return a, b, c, d, e
"""


def test_subscripts_a_bool_index_cannot_replace_are_reported_not_rewritten(tmp_path: Path) -> None:
    """A start beside the bound, an ellipsis before a kept axis, a new axis, an integer index, two
    bounded axes, an assignment target: the bool index would land on another axis or select
    another way, so these keep the manual step."""
    path = tmp_path / "other.py"
    path.write_text(OTHER_SUBSCRIPTS)
    result = fix_source(path.read_bytes(), str(path), Options(select=("TRT715",), unsafe=True, scope="all"))
    assert result.source.decode() == OTHER_SUBSCRIPTS
    assert len([f for f in result.findings if f.rule == "TRT715"]) == 6


RANGES = """\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor, m: torch.Tensor):
        a = x[m.sum():]
        b = x[1 : m.sum(), :]
        c = x[:, m.sum() : m.sum() * 2]
        d = x[m.sum():-1]
        e = x[m.sum()::2]
        return a, b, c, d, e
"""


def test_a_start_or_both_bounds_become_the_same_range_and_a_negative_or_stepped_one_is_reported(
        tmp_path: Path) -> None:
    """``n:``, ``1:n`` and ``n:2n`` are masks of the same rows (bounds not negative: the rule's
    assumption), also past the end and empty; ``n:-1`` counts from the end and ``n::2`` steps: left."""
    path = tmp_path / "ranges.py"
    path.write_text(RANGES)
    result = fix_source(path.read_bytes(), str(path), Options(select=("TRT715",), unsafe=True, scope="all"))
    text = result.source.decode()
    assert "a = x[torch.arange(x.shape[0], device=x.device) >= m.sum()]" in text
    assert ("b = x[(torch.arange(x.shape[0], device=x.device) >= 1) & (torch.arange(x.shape[0], device=x.device) "
            "< m.sum()), :]") in text
    assert "d = x[m.sum():-1]" in text and "e = x[m.sum()::2]" in text
    assert len([f for f in result.findings if f.rule == "TRT715"]) == 5
    namespace: dict = {}
    exec(compile(RANGES, "ranges", "exec"), namespace)
    rewritten: dict = {}
    exec(compile(text, "ranges_rewritten", "exec"), rewritten)
    before, after = namespace["M"](), rewritten["M"]()
    for rows in (0, 1, 5):
        x = torch.randn(rows, 4)
        for count in range(0, 8):
            m = torch.ones(count, dtype=torch.long)
            for want, got in zip(before(x, m)[:3], after(x, m)[:3]):
                assert want.shape == got.shape and torch.equal(want, got), (rows, count)
