"""TRT359: a batch-index column built one block per sample, `torch.cat([torch.full(size, i) for i in range(n)])`."""

from __future__ import annotations

import io
import warnings

import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import load, rewrite, rules_found

from trtcodemod.evidence.facts import norm
from trtcodemod.findings import Finding
from trtcodemod.migrate.locate import FAILS_TO_RUN, Problem
from trtcodemod.migrate.plan import matches
from trtcodemod.rules import Safety

RULE = ("TRT359",)

BLOCKS = """\
import torch
from torch import nn


class Splat(nn.Module):
    # The batch-index column lift-splat-shoot puts beside each point's voxel coordinates before the scatter
    # (nv-tlabs/lift-splat-shoot@d74598cb51101e2143097ab270726a561f81f8fd src/models.py:200-212, and the LSS-based
    # repositories that copy `voxel_pooling`), in our own words.
    def forward(self, x: torch.Tensor, geom: torch.Tensor) -> torch.Tensor:
        B, N, C = x.shape
        Nprime = B * N
        coords = geom.reshape(Nprime, 3).long()
        batch_ix = torch.cat([torch.full([Nprime // B, 1], ix,
                                         device=x.device, dtype=torch.long) for ix in range(B)])
        return torch.cat((coords, batch_ix), 1)


class Labels(nn.Module):
    # A pillar encoder's per-sample batch column, kept as a block of the pillars' count (the `torch.full((P, 1),
    # b)` the PointPillars-style encoders concatenate per sample), default dtype and device, `dim=0` spelled out.
    def forward(self, pillars: torch.Tensor) -> torch.Tensor:
        b, p = pillars.shape[0], pillars.shape[1]
        return torch.cat([torch.full((p, 1), i) for i in range(b)], dim=0)


class Flags(nn.Module):
    # The same column as a float mask block (a dtype that is not the fill's).
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([torch.full([x.shape[1], 2], k, dtype=x.dtype) for k in range(x.shape[0])]) + x[:1, :1, :1]
"""


def test_the_block_columns_are_rewritten() -> None:
    assert rules_found(BLOCKS, select=RULE) == ["TRT359"] * 3
    after = rewrite(BLOCKS, select=RULE)
    assert ("batch_ix = _trt_range_blocks([torch.full([Nprime // B, 1], ix,\n"
            "                                         device=x.device, dtype=torch.long) for ix in range(B)], B)"
            in after)
    assert "return _trt_range_blocks([torch.full((p, 1), i) for i in range(b)], b)" in after
    assert ("return _trt_range_blocks([torch.full([x.shape[1], 2], k, dtype=x.dtype) for k in range(x.shape[0])], "
            "x.shape[0]) + x[:1, :1, :1]" in after)
    assert "def _trt_range_blocks_at_once(" in after
    assert rewrite(after, select=RULE) == after  # idempotent


@pytest.mark.parametrize("expression", [
    "torch.cat([torch.full([counts[i], 1], i) for i in range(n)])",  # the block's shape depends on the index
    "torch.cat([torch.full([n, 1], i, dtype=pick(i)) for i in range(n)])",  # an argument depends on the index
    "torch.cat([torch.full([n, 1], i) for i in range(size())])",  # a count that is not plain: evaluated twice
])
def test_blocks_the_rewrite_cannot_take_are_reported_only(expression: str) -> None:
    code = f"import torch\n\ndef f(n, counts, pick, size, shape):\n    return {expression}\n"
    assert rules_found(code, select=RULE) == ["TRT359"]
    assert "_trt_range_blocks" not in rewrite(code, select=RULE)


@pytest.mark.parametrize("expression", [
    "torch.cat([torch.full([n, 1], i) for i in range(n)], dim=1)",  # along another axis
    "torch.cat([torch.full([n, 1], 2 * i) for i in range(n)])",  # not the index itself
    "torch.cat([torch.full([n, 1], i) for i in range(1, n)])",  # not from 0
    "torch.cat([torch.full([n, 1], i, requires_grad=True) for i in range(n)])",  # another argument
    "torch.cat([torch.zeros([n, 1]) + i for i in range(n)])",
    "torch.cat([torch.full([n, 1], i) for i in range(n) if i])",
    "torch.stack([torch.full([n, 1], i) for i in range(n)])",
])
def test_look_alikes_are_left_alone(expression: str) -> None:
    code = f"import torch\n\ndef f(n):\n    return {expression}\n"
    assert rules_found(code, select=RULE) == []


def test_a_user_range_is_not_the_builtin() -> None:
    code = "import torch\nfrom mylib import range\n\ndef f(n):\n    return torch.cat([torch.full([n, 1], i) for i in range(n)])\n"
    assert rules_found(code, select=RULE) == []


def _inputs(name: str, batch: int, generator: torch.Generator) -> list[torch.Tensor]:
    if name == "Splat":
        return [torch.randn(batch, 5, 4, generator=generator), torch.randn(batch, 5, 3, generator=generator) * 9]
    if name == "Labels":
        return [torch.randn(batch, 6, 2, generator=generator)]
    return [torch.randn(batch, 3, 2, generator=generator)]


@pytest.mark.parametrize("name", ["Splat", "Labels", "Flags"])
def test_the_blocks_are_the_comprehension_outside_an_export(name: str, tmp_path) -> None:
    original, rewritten = load(BLOCKS, name)(), load(rewrite(BLOCKS, select=RULE), name)()
    generator = torch.Generator().manual_seed(0)
    for batch in (1, 2, 5, 0):  # no sample: torch.cat([]) raises in both
        for inputs in (_inputs(name, batch, generator), [torch.zeros_like(t) for t in _inputs(name, batch, generator)]):
            assert_same_run(run_once(original, inputs), run_once(rewritten, inputs), context=f"{name} {batch}")
    # inf/NaN and float16 pass through the first element Flags adds; the column keeps its dtype
    odd = torch.tensor([[[float("inf"), float("nan")]] * 3]).half()
    if name == "Flags":
        assert_same_run(run_once(original, [odd]), run_once(rewritten, [odd]))
    # TorchScript: the comprehension itself
    namespace = import_source(rewrite(BLOCKS, select=RULE), tmp_path)
    scripted = torch.jit.script(namespace[name]())
    inputs = _inputs(name, 3, generator)
    assert torch.equal(scripted(*inputs), original(*inputs))


def _export(model: torch.nn.Module, inputs: list[torch.Tensor], dynamo: bool) -> ort.InferenceSession:
    names = [f"in{i}" for i in range(len(inputs))]
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            batch = torch.export.Dim("batch", min=1)
            torch.onnx.export(model, tuple(inputs), buffer, dynamo=True, input_names=names,
                              dynamic_shapes=tuple({0: batch} for _ in inputs), verbose=False)
        else:
            torch.onnx.export(model, tuple(inputs), buffer, dynamo=False, input_names=names,
                              dynamic_axes={n: {0: "batch"} for n in names})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("dynamo", [False, True])
@pytest.mark.parametrize("name", ["Splat", "Labels", "Flags"])
def test_the_exported_blocks_follow_the_batch(name: str, dynamo: bool) -> None:
    original, rewritten = load(BLOCKS, name)(), load(rewrite(BLOCKS, select=RULE), name)()
    generator = torch.Generator().manual_seed(1)
    if not dynamo:
        # the original's graph keeps the example's two blocks: another batch fails or has the wrong rows
        session = _export(original, _inputs(name, 2, generator), dynamo)
        inputs = _inputs(name, 3, generator)
        feed = {f"in{i}": t.numpy() for i, t in enumerate(inputs)}
        try:
            (got,) = session.run(None, feed)
        except Exception:  # noqa: BLE001 - ONNX Runtime's refusal (a Concat, an input fixed at 2) is the symptom
            got = None
        assert got is None or got.shape != tuple(original(*inputs).shape)
    session = _export(rewritten, _inputs(name, 2, generator), dynamo)
    # The dynamo exporter runs `range(B)` of the comprehension, which the helper is given as written, and so
    # specializes the batch (as it does for the original): its graph is checked at the traced batch only.
    for batch in (2,) if dynamo else (2, 3, 1, 7):
        inputs = _inputs(name, batch, generator)
        (got,) = session.run(None, {f"in{i}": t.numpy() for i, t in enumerate(inputs)})
        assert torch.equal(torch.from_numpy(got), original(*inputs)), (name, batch, dynamo)


def test_migrate_plans_the_blocks_where_the_next_concatenation_fails(tmp_path) -> None:
    # lift-splat-shoot: ONNX Runtime refuses the Concat of the coordinates and the batch column, the line below the
    # comprehension; the fix at the comprehension is planned for it (same file), not for another file's refusal.
    path, other = norm(str(tmp_path / "models.py")), norm(str(tmp_path / "other.py"))
    refused = Problem("unfaithful", path, 212, FAILS_TO_RUN, None, "Non concat axis dimensions must match")
    finding = Finding("TRT359", "range-blocks", "m", path, 210, 9, 211, 40, Safety.SAFE)
    assert matches(refused, finding)
    assert not matches(Problem("unfaithful", other, 212, FAILS_TO_RUN, None, "Concat"), finding)
