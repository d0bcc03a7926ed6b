"""TRT403 in ``migrate``: the observer keeps the shape at each ``squeeze()`` with no axis, the graph check names the
axis-less Squeeze TensorRT refuses, and the fix squeezes, while tracing, only the axes seen at size 1 on every call."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import migrate_json

# The form of facexlib's HyperIQA (hyperiqa_net.py:90-102, :273; zoo 27's fx_hyperiqa), our own small model: a
# globally pooled N-C-1-1 map squeezed with no axis feeds Linear layers (`view(-1, f)` after them), and the score,
# N-1-1-1, is squeezed at the end. Traced at a batch of 1, `squeeze()` drops the batch with the 1x1.
HYPER_HEAD = """\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc_b = nn.Linear(8, 4)
        self.fc_w = nn.Linear(8, 4)

    def forward(self, x):
        feat = self.conv(x)
        bias = self.fc_b(self.pool(feat).squeeze()).view(-1, 4)
        weight = self.fc_w(torch.squeeze(self.pool(feat))).view(-1, 4, 1, 1)
        score = (weight * feat[:, :4]).sum(1, keepdim=True).mean((2, 3), keepdim=True) + bias[:, :1, None, None]
        return score.squeeze().reshape(-1)


def build():
    torch.manual_seed(0)
    return Head().eval()


def inputs(generator):
    return (torch.rand(1, 3, 16, 16, generator=generator),)
"""

# One `squeeze()` that sees a rank-4 and a rank-3 tensor: which axes it means is not one answer, so no fix.
MIXED_RANK = """\
import torch
from torch import nn


def flat(t):
    return t.squeeze()


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc2 = nn.Linear(6, 2)
        self.fc1 = nn.Linear(6, 2)

    def forward(self, x):
        a = self.fc2(flat(x.mean((2, 3), keepdim=True))).view(-1, 2)
        b = self.fc1(flat(x.mean(2, keepdim=True).mean(3))).view(-1, 2)
        return a + b


def build():
    torch.manual_seed(0)
    return Head().eval()


def inputs(generator):
    return (torch.rand(1, 6, 5, 5, generator=generator),)
"""

BATCH = '{"x": {"0": "batch"}}'


def _line(source: str, text: str) -> int:
    return next(i for i, row in enumerate(source.splitlines(), 1) if text in row)


def test_the_observer_keeps_the_shape_at_each_axis_less_squeeze(tmp_path: Path) -> None:
    from trtcodemod.migrate.run import observe
    from trtcodemod.verify.spec import build_spec

    model = tmp_path / "hyper_head.py"
    model.write_text(HYPER_HEAD)
    facts, why = observe(build_spec({"model_file": str(model), "model": "build", "inputs": "inputs",
                                     "dynamic_axes": {"x": {0: "batch"}}}), tmp_path / "work")
    assert facts is not None, why
    seen = {}
    for e in facts.events:
        if e["kind"] == "squeeze_all":
            seen.setdefault(e["line"], set()).add(tuple(e["shape"]))
    assert set(seen) == {_line(HYPER_HEAD, "self.pool(feat).squeeze()"), _line(HYPER_HEAD, "torch.squeeze("),
                         _line(HYPER_HEAD, "score.squeeze()")}
    pooled = seen[_line(HYPER_HEAD, "self.pool(feat).squeeze()")]
    assert (1, 8, 1, 1) in pooled and len({shape[0] for shape in pooled}) > 1  # the batch varied, the 1x1 did not
    assert not any(e["kind"] == "squeeze" for e in facts.events)  # no `squeeze(d)` here: nothing for TRT401


@pytest.fixture(scope="module")
def hyper(tmp_path_factory: pytest.TempPathFactory) -> dict:
    model = tmp_path_factory.mktemp("hyper") / "hyper_head.py"
    model.write_text(HYPER_HEAD)
    return migrate_json(model, BATCH)


def test_migrate_locates_the_axis_less_squeezes_and_proves_their_axes(hyper: dict) -> None:
    r = hyper
    assert r["before"]["trt_errors_by_op"].get("Squeeze"), r["before"]  # main saw none: TensorRT refuses them
    lines = {_line(HYPER_HEAD, "self.pool(feat).squeeze()"): "[2, 3]", _line(HYPER_HEAD, "torch.squeeze("): "[2, 3]",
             _line(HYPER_HEAD, "score.squeeze()"): "[1, 2, 3]"}
    assert sorted((a["rule"], a["line"]) for a in r["applied"]) == [("TRT403", line) for line in sorted(lines)]
    for fix in r["applied"]:
        assert fix["proof"].startswith("observed: squeeze() had shapes of rank 4 whose axes "), fix["proof"]
        assert "axis 0 varied (1, 2, 3)" in fix["proof"] and "one with the dynamic axes stretched" in fix["proof"]
    assert "+        bias = self.fc_b(_trt_squeeze_axes(self.pool(feat), [2, 3])).view(-1, 4)" in r["diff"]
    assert "+        return _trt_squeeze_axes(score, [1, 2, 3]).reshape(-1)" in r["diff"]
    assert r["after"] == {"exported": True, "faithful": True, "trt_errors": 0, "trt_errors_by_op": {}}
    assert r["unsafe"] is False and r["equivalent"] is True and r["remaining"] == [] and r["exit_code"] == 0


def test_a_squeeze_of_changing_rank_remains_named_at_its_line(tmp_path: Path) -> None:
    model = tmp_path / "mixed_rank.py"
    model.write_text(MIXED_RANK)
    r = migrate_json(model, BATCH)
    assert r["applied"] == [] and r["exit_code"] == 1
    [left] = [x for x in r["remaining"] if x["rule"] == "TRT403"]
    assert left["source"] == f"{model.resolve()}:{_line(MIXED_RANK, 't.squeeze()')}" and left["op"] == "Squeeze"
    assert "no automatic fix" in left["message"] and "name the axes it means and index them" in left["message"]


# The form of vissl's `FeatAvgPool` (facebookresearch/vissl@09270ed25a6c2cf71263d955b64cbe076d34ac45
# vissl/models/trunks/vision_transformer.py:284), our own small model: the pooled tokens squeezed and returned with
# no view after, so eager mode returns `(k,)` at a batch of 1 and `(n, k)` above; no graph with a batch axis does.
RANK_RETURNED = """\
import torch
from torch import nn


class Trunk(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.head = nn.Linear(8, 3)

    def forward(self, tokens):
        return self.head(self.pool(tokens.permute((0, 2, 1))).squeeze())


def build():
    torch.manual_seed(0)
    return Trunk().eval()


def inputs(generator):
    return (torch.rand(1, 5, 8, generator=generator),)
"""


def test_a_fix_that_changes_what_a_batch_of_1_returns_is_reverted_with_the_squeeze_step(tmp_path: Path) -> None:
    from trtcodemod.migrate.manual_steps import SQUEEZE_STEP

    model = tmp_path / "rank_returned.py"
    model.write_text(RANK_RETURNED)
    r = migrate_json(model, '{"tokens": {"0": "batch"}}')
    assert r["applied"] == [] and r["exit_code"] == 1
    assert [(x["rule"], x["line"]) for x in r["reverted"]] == [("TRT403", _line(RANK_RETURNED, ".squeeze()"))]
    [left] = [x for x in r["remaining"] if x["rule"] == "TRT403"]
    assert left["source"] == f"{model.resolve()}:{_line(RANK_RETURNED, '.squeeze()')}"
    assert left["message"].startswith("fix reverted: breaks equivalence") and left["manual_step"] == SQUEEZE_STEP
