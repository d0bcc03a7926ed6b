"""What the parameters of the user's functions held in the recorded run, and the size rules reading it.

Swin's patch merging (microsoft/Swin-Transformer-Object-Detection, ``mmdet/models/backbones/
swin_transformer.py``, ``PatchMerging.forward``; the same block in Swin-Transformer-Semantic-Segmentation,
Video-Swin-Transformer in 3-D, and pytorch-toolbelt 0.8.0's ``modules/encoders/swin.py:307``) takes the
feature map's height and width as unannotated parameters of a module's ``forward``, which the syntax
reads as tensors, and pads on a flag: ``pad_input = (H % 2 == 1) or (W % 2 == 1)`` then ``if pad_input:``.
The observer records that ``H`` and ``W`` held numbers; with the export's warning at the ``if``, TRT717
does the pad every time, and the graph follows odd sizes.
"""

from __future__ import annotations

import sys
import textwrap
import warnings
from pathlib import Path

import pytest
import torch

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.evidence.facts import Facts
from trtcodemod.migrate.observe import PARAMETER_CALLS, Recorder
from trtcodemod.usercode import UserFiles

SOURCE = textwrap.dedent("""\
    import torch
    import torch.nn.functional as F


    class Merge(torch.nn.Module):
        def forward(self, x, H, W):
            B, L, C = x.shape
            x = x.view(B, H, W, C)

            # padding
            pad_input = (H % 2 == 1) or (W % 2 == 1)
            if pad_input:
                x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))

            x0 = x[:, 0::2, 0::2, :]
            x1 = x[:, 1::2, 1::2, :]
            return torch.cat([x0, x1], -1)
    """)
DEF_LINE, FLAG_LINE, IF_LINE = 6, 11, 12


def _merge(x: torch.Tensor, H: int, W: int, scale: float, extra: list) -> torch.Tensor:
    """A user function the observer sees called (this file is the user's)."""
    return x * scale + len(extra) + H - W


def test_the_observer_records_what_each_parameter_held() -> None:
    rec = Recorder(UserFiles([str(Path(__file__).parent)]))
    old = sys.gettrace()
    sys.settrace(rec.trace)
    try:
        rec.recording = True
        for _ in range(PARAMETER_CALLS + 5):
            _merge(torch.ones(2), 3, 4, 0.5, [1])
        rec.recording = False
        _merge(torch.ones(2), torch.tensor(3), 4, 0.5, [])  # not recording: building, not a forward
    finally:
        sys.settrace(old)
    held = {e["name"]: (e["holds"], e["count"]) for e in rec.events.values()
            if e["kind"] == "parameter" and e["function"] == "_merge"}
    # A list is nothing a rule asks about; only the first calls of a function are read.
    assert held == {"x": ("tensor", PARAMETER_CALLS), "H": ("int", PARAMETER_CALLS), "W": ("int", PARAMETER_CALLS),
                    "scale": ("float", PARAMETER_CALLS)}


def _grid(size, extent: int) -> int:
    """A user function handed a tensor's sizes (``image.shape[2:]``, as PaddleOCR's TPS hands its grid builder)."""
    return size[0] * size[1] + extent


def test_a_torch_size_is_recorded_as_a_shape() -> None:
    rec = Recorder(UserFiles([str(Path(__file__).parent)]))
    image = torch.ones(1, 3, 4, 5)
    old = sys.gettrace()
    sys.settrace(rec.trace)
    try:
        rec.recording = True
        _grid(image.shape[2:], 1)
        _grid(image.size(), 2)
        _grid((4, 5), 3)  # a plain tuple is not a shape: nothing a rule reads
    finally:
        rec.recording = False
        sys.settrace(old)
    held = [(e["name"], e["holds"], e["count"]) for e in rec.events.values()
            if e["kind"] == "parameter" and e["function"] == "_grid"]
    assert sorted(held) == [("extent", "int", 3), ("size", "shape", 2)]


def _event(path: str, line: int, **fields: object) -> dict:
    return {"path": path, "line": line, "column": 1, "end_line": line, "end_column": 1, "direct": True, "count": 1,
            **fields}


def _facts(path: str, holds: str | None) -> Facts:
    events = [_event(path, IF_LINE, kind="traced", message="Converting a tensor to a Python boolean might cause "
                     "the trace to be incorrect.")]
    if holds is not None:
        events += [_event(path, DEF_LINE, kind="parameter", function="forward", name=name, holds=kind)
                   for name, kind in (("x", "tensor"), ("H", holds), ("W", holds))]
    return Facts.from_json({"version": 1, "runs": 3, "lines": {path: list(range(1, 18))}, "events": events,
                            "inputs": {}})


@pytest.fixture()
def merge_file(tmp_path: Path) -> str:
    path = tmp_path / "merge.py"
    path.write_text(SOURCE)
    return str(path.resolve())


def _options(facts: Facts | None) -> Options:
    return Options(select=("TRT717",), scope="all", unsafe=True, facts=facts)


def test_numbers_handed_down_make_the_flagged_pad_unconditional(merge_file: str) -> None:
    [found] = check_source(SOURCE.encode(), merge_file, _options(_facts(merge_file, "int")))
    assert found.rule == "TRT717" and found.line == FLAG_LINE and "pad_input" in found.message
    result = fix_source(SOURCE.encode(), merge_file, _options(_facts(merge_file, "int")))
    assert "        # padding\n        x = F.pad(x, (0, 0, 0, (W % 2) * ((H % 2 == 1) | (W % 2 == 1)), 0, (H % 2) * " \
           "((H % 2 == 1) | (W % 2 == 1))))\n\n        x0 = " in result.source.decode()


@pytest.mark.parametrize("holds", [None, "tensor"])
def test_without_the_observation_the_parameters_stay_tensors(merge_file: str, holds: str | None) -> None:
    """No record of the call, or a call that passed a tensor: the test may read tensor values, which is
    TRT101's, and TRT717 leaves it."""
    assert check_source(SOURCE.encode(), merge_file, _options(_facts(merge_file, holds))) == []


def _load(text: str, name: str) -> torch.nn.Module:
    scope: dict = {}
    exec(compile(text, name, "exec"), scope)  # noqa: S102 - the rewritten source under test
    return scope["Merge"]()


def test_the_unconditional_pad_computes_the_same_and_follows_other_sizes(merge_file: str) -> None:
    rewritten = fix_source(SOURCE.encode(), merge_file, _options(_facts(merge_file, "int"))).source.decode()
    before, after = _load(SOURCE, "before.py"), _load(rewritten, "after.py")
    cases = [(2, 4, 6), (1, 5, 7), (3, 1, 1), (1, 2, 3), (0, 3, 4)]
    for b, h, w in cases:
        for fill in (torch.randn, torch.zeros, lambda *s: -torch.rand(*s), lambda *s: torch.full(s, float("inf"))):
            x = fill(b, h * w, 3)
            want, got = before(x, h, w), after(x, h, w)
            assert got.shape == want.shape and got.dtype == want.dtype
            torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)

    class Net(torch.nn.Module):
        """The caller hands the sizes down as Swin does (``Wh, Ww = x.size(2), x.size(3)``)."""

        def __init__(self, merge: torch.nn.Module) -> None:
            super().__init__()
            self.merge = merge

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h, w = x.size(2), x.size(3)
            return self.merge(x.flatten(2).transpose(1, 2), h, w)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced_before = torch.jit.trace(Net(before), torch.rand(1, 3, 4, 4), check_trace=False)
        traced_after = torch.jit.trace(Net(after), torch.rand(1, 3, 4, 4), check_trace=False)
    odd = torch.rand(2, 3, 5, 7)
    with pytest.raises(RuntimeError):
        traced_before(odd)  # the original's graph kept "no pad" from the even example
    torch.testing.assert_close(traced_after(odd), Net(before)(odd), rtol=0, atol=0)
