"""``torch.as_tensor`` of a tensor is a cast the trace keeps, not a constant.

The tracer warns "torch.as_tensor results are registered as constants" at every ``as_tensor`` call, but of a
tensor it records ``aten::to``, which follows the input: speechbrain 1.1.2's ``length_to_mask``
(``speechbrain/dataio/dataio.py:861``, ``mask = torch.as_tensor(mask, dtype=dtype, device=device)``) was named an
error of zoo 42's conformer CTC model although its mask follows the lengths. Where the observed run saw the
argument hold a tensor at that line, the warning says so and stays a warning; an ``as_tensor`` of a Python list of
sizes is still an error.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from support import migrate_json

from trtcodemod.migrate.locate import CAST_NOTE

MODEL = '''
import math

import torch
from torch import nn


def length_to_mask(length, max_len):
    mask = torch.arange(max_len, dtype=length.dtype).expand(len(length), max_len) < length.unsqueeze(1)
    mask = torch.as_tensor(mask, dtype=length.dtype)
    return mask


class Net(nn.Module):
    def forward(self, x):
        mask = length_to_mask(x[:, 0] * x.shape[1], x.shape[1])
        sizes = torch.as_tensor([x.shape[1], x.shape[0]])
        keep = int(math.log2(x.shape[1]))
        return x * mask, x[:, :keep], sizes


def build():
    return Net()


def inputs(generator):
    return (torch.rand(2, 8, generator=generator),)
'''


def _lines(text: str) -> dict[str, int]:
    lines = text.splitlines()
    return {key: next(i for i, line in enumerate(lines, 1) if key in line)
            for key in ("torch.as_tensor(mask", "torch.as_tensor([x.shape")}


def test_as_tensor_of_a_tensor_is_a_cast_and_of_sizes_a_constant(tmp_path: Path) -> None:
    path = tmp_path / "net.py"
    path.write_text(MODEL)
    report = migrate_json(path, json.dumps({"x": {"0": "batch", "1": "length"}}))
    lines = _lines(MODEL)
    by_line = {}
    for entry in report["remaining"]:
        if entry["op"] == "(traced constant)" and (entry.get("source") or "").startswith(str(path)):
            by_line.setdefault(int(entry["source"].rsplit(":", 1)[1]), []).append(entry)
    cast = by_line[lines["torch.as_tensor(mask"]]
    assert all(e["severity"] == "warning" and CAST_NOTE in e["message"] for e in cast), cast
    sizes = by_line[lines["torch.as_tensor([x.shape"]]
    assert any(e["severity"] == "error" for e in sizes) and not any(CAST_NOTE in e["message"] for e in sizes), sizes
    # What the note says, on torch itself: the trace of `as_tensor` of a tensor follows another input.
    def cast(x: torch.Tensor) -> torch.Tensor:
        return torch.as_tensor(x > 0.5, dtype=x.dtype)

    traced = torch.jit.trace(cast, (torch.rand(2, 8),))
    x = torch.rand(3, 16)
    assert torch.equal(traced(x), cast(x)) and traced(x).shape == (3, 16)
