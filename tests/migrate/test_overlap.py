"""The observer's check of a subscript write that reads memory it overwrites (TRT740's evidence)."""

from __future__ import annotations

import pytest
import torch

from trtcodemod.migrate import overlap
from trtcodemod.migrate.overlap import reads_what_it_writes

ALL = slice(None)


def test_a_shift_along_an_axis_reads_what_it_writes() -> None:
    x = torch.rand(2, 3, 4, 6)
    assert reads_what_it_writes(x, (ALL, ALL, ALL, slice(1, None)), x[..., :-1])
    assert reads_what_it_writes(x, (Ellipsis, slice(None, -1)), x[..., 1:])
    flat = torch.rand(6)
    assert reads_what_it_writes(flat, slice(1, None), flat[:-1])


@pytest.mark.parametrize("case", ["disjoint", "same_view", "other_tensor", "copied", "gathered", "empty", "rows"])
def test_writes_that_read_nothing_they_write(case: str) -> None:
    x = torch.rand(2, 3, 4, 6)
    index, value = {
        "disjoint": ((Ellipsis, slice(3, None)), x[..., :3]),
        "same_view": ((Ellipsis, slice(0, 2)), x[..., 0:2]),
        "other_tensor": ((Ellipsis, slice(1, None)), torch.rand(2, 3, 4, 6)[..., :-1]),
        "copied": ((Ellipsis, slice(1, None)), x[..., :-1].clone()),
        "gathered": ((ALL, torch.tensor([0, 1])), x[:, [1, 2]]),
        "empty": ((Ellipsis, slice(6, None)), x[..., 6:]),
        "rows": ((ALL, 0), x[:, 1]),
    }[case]
    assert not reads_what_it_writes(x, index, value)


def test_interleaved_parts_share_no_element_but_large_ones_are_judged_by_their_ranges(monkeypatch) -> None:
    x = torch.rand(4, 8)
    even, odd = (ALL, slice(0, None, 2)), x[:, 1::2]
    assert not reads_what_it_writes(x, even, odd)
    monkeypatch.setattr(overlap, "EXACT_ELEMENTS", 4)
    assert reads_what_it_writes(x, even, odd)  # the ranges they span overlap: an over-estimate, said in the docs
    assert not reads_what_it_writes(x, (slice(0, 2),), x[2:])


def test_other_values_are_not_writes_of_a_tensor() -> None:
    x = torch.rand(3, 3)
    assert not reads_what_it_writes(x, (ALL, 0), 1.5)
    assert not reads_what_it_writes(x.numpy(), (ALL, 0), x.numpy()[:, 1])
    assert not reads_what_it_writes(x, (ALL, slice(1, None)), x.double()[:, :-1])
