"""TRT735: a loop nest writing a value into slices with per-element bounds fills a mask at once.

The rewrite's text for the windowed form (torchcrepe) and a padding mask by lengths, and what the rule
leaves alone; the helper against the loops on random and edge bounds (negative, beyond the axis, zero,
empty axes), bit for bit with the dtype, also scripted; the cited reduction of torchcrepe's decoding:
eager mode unchanged, the original's graph wrong at another length, the rewritten one equal to eager mode;
and ``migrate`` applying it to end at exit 0.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import torch
from support import TESTS, migrate_json, rewrite, rules_found
from variant_models import axes_json, export_variant, line_of, load_variant, seeded

from trtcodemod.helpers.slice_masks import _trt_slice_bound_mask

VARIANT = TESTS / "recipe_variants" / "trt735" / "torchcrepe_weighted_argmax.py"
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
