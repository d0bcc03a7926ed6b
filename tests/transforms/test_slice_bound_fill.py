"""TRT735: a loop nest writing a value into slices with per-element bounds fills a mask at once.

The rewrite's text for the windowed form (torchcrepe) and a padding mask by lengths, and what the rule
leaves alone; the helper against the loops on random and edge bounds (negative, beyond the axis, zero,
empty axes), bit for bit with the dtype, also scripted; the cited reduction of torchcrepe's decoding:
eager mode unchanged, the original's graph wrong at another length, the rewritten one equal to eager mode;
and ``migrate`` applying it to end at exit 0. Five padding masks by lengths reduced from other repositories
(Speech-Transformer, Conv-TasNet, KoSpeech, CheXbert, gflownet; ``range`` and ``enumerate`` loops, a whole axis
before the sliced one, a helper nested in another), each rewritten from its code alone, unchanged in eager mode
on edge lengths, exported equal to eager mode at other batches and lengths, and corrected by ``migrate``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import torch
from support import TESTS, migrate_json, rewrite, rules_found
from variant_models import (assert_cited_by_distinct_owners, assert_eager_unchanged, assert_migrate_corrects, axes_json,
                            export_variant, graph_matches, input_names, line_of, load_variant, rewritten_variant,
                            seeded)

from trtcodemod.helpers.slice_masks import _trt_slice_bound_mask

VARIANTS = TESTS / "recipe_variants" / "trt735"
VARIANT = VARIANTS / "torchcrepe_weighted_argmax.py"
# The padding masks by lengths, one row per loop step (name: the fill the rewrite writes).
LENGTH_MASKS = {
    "speech_transformer_non_pad_mask":
        "non_pad_mask.masked_fill_(_trt_slice_bound_mask(non_pad_mask, 1, [0], [N], input_lengths, None), 0)",
    "conv_tasnet_source_mask":
        "mask.masked_fill_(_trt_slice_bound_mask(mask, 2, [0], [B], source_lengths, None), 0)",
    "chexbert_attention_masks":  # enumerate: the bound is the loop's value, the count the lengths' own
        "masks.masked_fill_(_trt_slice_bound_mask(masks, 1, [0], [torch.as_tensor(source_lengths).size(0)], "
        "source_lengths, None), 0)",
    "gflownet_scrabble_words":  # enumerate over a tensor of lengths
        "samples.masked_fill_(_trt_slice_bound_mask(samples, 1, [0], [torch.as_tensor(lengths).size(0)], lengths, "
        "None), 0)",
    "kospeech_attn_pad_mask":  # in a helper nested in another
        "non_pad_mask.masked_fill_(_trt_slice_bound_mask(non_pad_mask, 1, [0], [batch_size], input_lengths, None), 0)",
}
HEADER = "import torch\n\n"

WINDOW = """
def window(logits, start, end):
    for batch in range(logits.size(0)):
        for time in range(logits.size(2)):
            logits[batch, :start[batch, time], time] = -float('inf')
            logits[batch, end[batch, time]:, time] = -float('inf')
    return logits
"""

LENGTHS = """
def padding(mask, lengths):
    for i in range(mask.shape[0]):
        mask[i, lengths[i]:] = 0
    return mask
"""


def test_a_count_by_name_is_passed_on() -> None:
    """The real padding-mask form: the loop runs over a batch size read elsewhere (FastSpeech-style
    ``mask_from_lengths``), and the mask leaves the rows past it alone, as the loop does."""
    source = HEADER + LENGTHS.replace("range(mask.shape[0])", "range(batch_size)").replace(
        "(mask, lengths)", "(mask, lengths, batch_size)")
    new = rewrite(source, unsafe=True, select=("TRT735",))
    assert "mask.masked_fill_(_trt_slice_bound_mask(mask, 1, [0], [batch_size], lengths, None), 0)" in new, new


def test_the_windowed_writes_become_two_fills_in_order() -> None:
    source = HEADER + WINDOW
    assert rewrite(source, select=("TRT735",)) == source
    new = rewrite(source, unsafe=True, select=("TRT735",))
    body = new[new.index("def window"):]
    assert body == ("def window(logits, start, end):\n"
                    "    logits.masked_fill_(_trt_slice_bound_mask(logits, 1, [0, 2], [logits.size(0), logits.size(2)], "
                    "None, start), -float('inf'))\n"
                    "    logits.masked_fill_(_trt_slice_bound_mask(logits, 1, [0, 2], [logits.size(0), logits.size(2)], "
                    "end, None), -float('inf'))\n"
                    "    return logits\n"), body


@pytest.mark.parametrize("code", [
    LENGTHS.replace("mask[i, lengths[i]:] = 0", "mask[i, lengths[i]:] = x"),  # a value the code does not spell
    LENGTHS.replace("range(mask.shape[0])", "range(1, n)"),  # a loop that does not start at 0
    LENGTHS.replace("mask[i, lengths[i]:] = 0", "mask[i, lengths[i]:] = 0\n        mask[0, :2] = 1"),  # another write
    LENGTHS.replace("mask[i, lengths[i]:] = 0", "mask[i, lengths[i]:] = 0\n        total = i"),  # more than writes
    LENGTHS.replace("lengths[i]:", "lengths[i]::2"),  # a step
    LENGTHS.replace("mask[i, lengths[i]:]", "mask[i, lengths[i]:, i]"),  # a variable at two axes
    WINDOW.replace("start[batch, time]", "start[time, batch]"),  # bounds laid out otherwise than the axes
    LENGTHS.replace("lengths[i]:", "lengths[0]:"),  # a bound not read per element
    LENGTHS.replace("lengths[i]:", "mask[i]:"),  # a bound read from the tensor written: order matters
])
def test_left_alone(code: str) -> None:
    assert rules_found(HEADER + code.replace("(mask, lengths)", "(mask, lengths, n, x)"), select=("TRT735",)) == []


ENUMERATED = """
def attention_masks(batch, source_lengths):
    masks = torch.ones(batch.size(0), batch.size(1))
    for idx, src_len in enumerate(source_lengths):
        masks[idx, src_len:] = 0
    return masks
"""


def test_an_enumerate_loop_reads_its_value_as_the_bound() -> None:
    """``for i, v in enumerate(seq)`` is ``for i in range(len(seq))`` with ``v`` as ``seq[i]``: the count is the
    sequence's length (a list's, or a tensor's first axis as a trace keeps it), the bound the sequence; eager mode
    the same for tensors and lists, shorter than the rows, with zero, negative and beyond-the-axis lengths."""
    new = rewrite(HEADER + ENUMERATED, unsafe=True, select=("TRT735",))
    assert ("masks.masked_fill_(_trt_slice_bound_mask(masks, 1, [0], [torch.as_tensor(source_lengths).size(0)], "
            "source_lengths, None), 0)") in new, new
    before, after = {}, {}
    exec(compile(HEADER + ENUMERATED, "before", "exec"), before)  # noqa: S102 - the test's own source
    exec(compile(new, "after", "exec"), after)  # noqa: S102
    batch = torch.zeros(4, 6)
    for lengths in ([0, 6, -2, 9], [3, 1], [], torch.tensor([2, -7, 0, 5]), torch.tensor([4])):
        want = before["attention_masks"](batch, lengths)
        got = after["attention_masks"](batch, lengths)
        assert torch.equal(got, want), lengths


@pytest.mark.parametrize("code", [
    ENUMERATED.replace("enumerate(source_lengths)", "enumerate(source_lengths, 1)"),  # another start
    ENUMERATED.replace("enumerate(source_lengths)", "enumerate(source_lengths.tolist())"),  # a call, read twice
    ENUMERATED.replace("masks[idx, src_len:]", "masks[idx, table[src_len]:]"),  # the value inside a bound
    ENUMERATED.replace("masks[idx, src_len:]", "masks[src_len, idx:]"),  # the value as an index
    ENUMERATED.replace("for idx, src_len in", "for idx, idx in"),  # one name twice
    ENUMERATED.replace("masks[idx, src_len:] = 0", "for t in range(3):\n            masks[idx, src_len:, t] = 0"),
])
def test_enumerate_forms_left_alone(code: str) -> None:
    assert rules_found(HEADER + code.replace("(batch, source_lengths)", "(batch, source_lengths, table)"),
                       select=("TRT735",)) == []


def _loops(x, start, stop, axis, looped, counts):
    """The slice writes the rule replaces, for a 3-D tensor and one or two looped axes."""
    out = x.clone()
    if len(looped) == 1:
        for i in range(counts[0]):
            index = [slice(None)] * 3
            index[looped[0]] = i
            index[axis] = slice(None if start is None else start[i], None if stop is None else stop[i])
            out[tuple(index)] = -7
        return out
    for i in range(counts[0]):
        for j in range(counts[1]):
            index = [slice(None)] * 3
            index[looped[0]], index[looped[1]] = i, j
            index[axis] = slice(None if start is None else start[i, j], None if stop is None else stop[i, j])
            out[tuple(index)] = -7
    return out


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_the_mask_reaches_the_positions_the_loops_write(dtype: torch.dtype) -> None:
    generator = seeded(3)
    scripted = torch.jit.script(_trt_slice_bound_mask)
    for shape in [(2, 9, 5), (1, 4, 1), (3, 6, 2), (2, 0, 3), (0, 5, 4)]:
        x = torch.randint(-5, 5, shape, generator=generator).to(dtype)
        for axis, looped in [(1, [0, 2]), (1, [0]), (2, [0]), (0, [1, 2])]:
            extents = [shape[a] for a in looped]
            # Bounds below -size, negative, zero, inside, at and beyond the axis.
            low = torch.randint(-12, 12, extents, generator=generator)
            high = torch.randint(-12, 12, extents, generator=generator)
            # The loops over whole axes, and over the first indices only.
            for counts in (extents, [max(e - 1, 0) for e in extents]):
                for start, stop in [(low, None), (None, high), (low, high)]:
                    want = _loops(x, start, stop, axis, looped, counts)
                    for mask_of in (_trt_slice_bound_mask, scripted):
                        got = x.clone().masked_fill_(mask_of(x, axis, looped, counts, start, stop), -7)
                        assert got.dtype == want.dtype and torch.equal(got, want), (shape, axis, looped, counts)


def test_longer_bounds_are_read_as_far_as_the_loops_go() -> None:
    x = torch.zeros(2, 5)
    lengths = torch.tensor([1, 3, 4, 0])
    want = _loops(x[:, :, None], lengths[:2], None, 1, [0], [2])
    got = x[:, :, None].clone().masked_fill_(_trt_slice_bound_mask(x[:, :, None], 1, [0], [2], lengths, None), -7)
    assert torch.equal(got, want)


def test_the_torchcrepe_reduction_exports_and_migrates(tmp_path: Path) -> None:
    module = load_variant(VARIANT, "trt735_original")
    original = module.build().eval()
    text = VARIANT.read_text()
    new_path = tmp_path / "torchcrepe_weighted_argmax_rewritten.py"
    new_path.write_text(rewrite(text, unsafe=True, select=("TRT735",)))
    rewritten = load_variant(new_path, "trt735_rewritten").build().eval()
    rewritten.load_state_dict(original.state_dict())
    sets = {"example": module.inputs(seeded(0)), "longer": (torch.randn(3, 2, 23, generator=seeded(1)),),
            "one-frame": (torch.randn(1, 2, 1, generator=seeded(2)),), "zeros": (torch.zeros(2, 2, 6),),
            "inf": (torch.tensor([[[float("inf"), -1.0, 0.0]] * 2]),)}
    with torch.no_grad():
        for label, inputs in sets.items():
            want, got = original(*inputs), rewritten(*inputs)
            for w, g in zip(want, got):
                assert w.dtype == g.dtype, label
                torch.testing.assert_close(g, w, rtol=0, atol=0, equal_nan=True, msg=label)
    session, _ = export_variant(rewritten, sets["example"], module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    with torch.no_grad():
        for label in ("example", "longer", "one-frame", "zeros"):
            (features,) = sets[label]
            bins, pitch = session.run(None, {"features": features.numpy()})
            want_bins, want_pitch = original(features)
            assert torch.equal(torch.from_numpy(bins), want_bins), label
            torch.testing.assert_close(torch.from_numpy(pitch), want_pitch, rtol=1e-5, atol=1e-4)
    report = migrate_json(VARIANT, axes_json(module))
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert ("TRT735", line_of(VARIANT, "    " + module.CALL)) in applied, (report["applied"], report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report.get("reverted"))


def _length_sets(module, time: int) -> dict[str, tuple]:
    """The example, other batches and lengths, and the edge lengths: zero, the whole axis, beyond it and negative
    (Python's slice counts those from the end), with zero and negative data."""
    example = module.inputs(seeded(0))
    sets = {"example": example, "batch 5": module.inputs(seeded(1), 5, time + 3),
            "batch 1": module.inputs(seeded(2), 1, 4)}
    *data, lengths = example
    for label, edge in {"zero": 0, "whole": time, "beyond": time + 4, "negative": -2}.items():
        sets[label] = (*data, torch.full_like(lengths, edge))
    sets["mixed"] = (*data, torch.tensor([0, time, -1][:len(lengths)]))
    sets["zero data"] = (*(torch.zeros_like(t) for t in data), lengths)
    sets["negative data"] = (*(-t.abs() - 1 if t.is_floating_point() else t.flip(0) for t in data), lengths)
    return sets


@pytest.mark.parametrize("name", sorted(LENGTH_MASKS))
def test_a_length_mask_variant_is_rewritten_and_exports(name: str, tmp_path: Path) -> None:
    """The text from the code alone (only with ``--unsafe``), eager mode unchanged on edge lengths and data, and
    the rewritten graph (TorchScript, the variant's DYNAMIC axes) equal to eager mode at other batches and
    lengths, where the original's baked the example's."""
    variant = rewritten_variant(VARIANTS / f"{name}.py", "TRT735", tmp_path)
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    assert LENGTH_MASKS[name] in variant["source"], variant["source"]
    assert f"    {module.CALL}" not in variant["source"]
    assert variant["safe_only"] == (VARIANTS / f"{name}.py").read_text()
    assert rules_found(variant["source"], select=("TRT735",)) == []
    time = module.inputs(seeded(0))[0].shape[-1 if name == "conv_tasnet_source_mask" else 1]
    sets = _length_sets(module, time)
    assert_eager_unchanged(original, rewritten, sets)
    example = sets["example"]
    before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    assert not graph_matches(before, original, sets["batch 5"])
    after, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in sets.items():
        with torch.no_grad():
            want = original(*inputs)
        want = want if isinstance(want, tuple) else (want,)
        got = after.run(None, {n: t.numpy() for n, t in zip(input_names(original), inputs)})
        assert len(got) == len(want), label
        for g, w in zip(got, want):
            torch.testing.assert_close(torch.from_numpy(g), w, rtol=1e-5, atol=1e-5, equal_nan=True, msg=label)


@pytest.mark.parametrize("name", sorted(LENGTH_MASKS))
def test_migrate_corrects_a_length_mask_variant(name: str) -> None:
    assert_migrate_corrects(VARIANTS / f"{name}.py", "TRT735", f"trt735_migrate_{name}")


def test_the_length_mask_variants_cite_distinct_owners() -> None:
    """One variant per owner (Conv-TasNet's is by Speech-Transformer's author; torchcrepe's cites its PyPI wheel)."""
    names = [name for name in sorted(LENGTH_MASKS) if name != "conv_tasnet_source_mask"]
    assert_cited_by_distinct_owners(VARIANTS, names, count=4)
