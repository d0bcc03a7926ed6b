"""``migrate`` on real tracking models reduced to runnable files (examples/tracking/, issue 21).

CenterTrack's network (optional previous-frame inputs), its video loop (the previous image kept
on ``self``) and ByteTrack's YOLOX head (sizes written on ``self``, grids decoded from them).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
from typer.testing import CliRunner

from trtcodemod.cli import app
from trtcodemod.engine import Options, check_source
from trtcodemod.evidence.facts import Facts, norm
from trtcodemod.temporal.apply import _same
from support import REPO

TRACKING = REPO / "examples" / "tracking"
FAST = ["--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu"]


def line_of(name: str, text: str) -> int:
    return next(i for i, line in enumerate((TRACKING / name).read_text().splitlines(), 1)
                if line.startswith("    ") and text in line)


@pytest.fixture(scope="module")
def zoo() -> tuple[int, dict[str, dict[str, Any]]]:
    result = CliRunner().invoke(app, ["migrate", "--config", str(TRACKING / "models.toml"), "--format", "json", *FAST])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    data = json.loads(result.stdout)
    return result.exit_code, {m["name"]: m for m in data["models"]}


def test_centertracks_video_loop_is_lifted_and_its_wrapper_proved_over_frames(zoo) -> None:
    """detector.py keeps the previous image on self: the trace freezes it (not faithful before);
    the lift makes it an input with an indicator, and the wrapper follows the model frame by
    frame with both exporters (the dynamo one returns an input as it is: see export.py)."""
    report = zoo[1]["centertrack_stream"]
    assert report["before"]["faithful"] is False
    lines = {line_of("centertrack_stream.py", "self.pre_images = images")}
    lines.add(max(i for i, line in enumerate((TRACKING / "centertrack_stream.py").read_text().splitlines(), 1)
                  if line.strip() == "self.pre_images = images"))
    assert {(a["rule"], a["line"]) for a in report["applied"]} == {("TRT703", n) for n in lines}
    assert all(a["proof"].startswith("lift-state") for a in report["applied"])
    lift = report["lift"]
    assert lift["states"] == ["pre_images"] and lift["mismatch"] is None and lift["frames"] >= 4
    # One output name per tensor: the list of four heads, then the state.
    assert lift["contract"]["outputs"] == ["output_0", "output_1", "output_2", "output_3"]
    assert report["after"]["wrapper_faithful"] is True and report["remaining"] == [] and report["exit_code"] == 0


def test_centertracks_optional_inputs_are_named_at_their_tests_and_refused(zoo) -> None:
    """`pre_img`/`pre_hm` are only handed on to helpers: the observed tensor inputs are TRT721's
    evidence. The `or` of two tests and the inputs passed on to a layer that tests them again
    have no mechanical lift: refused at the lines, with the manual step, a warning each."""
    report = zoo[1]["centertrack"]
    assert report["before"]["faithful"] is True and report["applied"] == [] and report["exit_code"] == 0
    tests = {line_of("centertrack.py", t) for t in ("if pre_img is not None:", "if pre_hm is not None:",
                                                    "if (pre_hm is not None) or (pre_img is not None):")}
    remaining = {(r["rule"], int(r["source"].rsplit(":", 1)[1]), r["severity"]) for r in report["remaining"]}
    assert remaining == {("TRT721", n, "warning") for n in tests}
    assert sorted(report["lift"]["optional"]) == ["pre_hm", "pre_img"]
    refusals = " ".join(report["lift"]["refusals"])
    assert "is not the whole condition of an `if`" in refusals and "used where it may be None" in refusals
    assert "always pass the input" in refusals


def test_bytetracks_head_exports_faithfully_and_its_size_list_is_not_state(zoo) -> None:
    """`self.hw` is written before it is read in every call: not state; the grids follow the
    traced sizes, so the export is faithful on every input set with both exporters."""
    report = zoo[1]["bytetrack_yolox"]
    assert report["before"]["faithful"] is True and report["after"]["faithful"] is True
    assert report["applied"] == [] and report["remaining"] == [] and "lift" not in report
    # TRT734's `torch.full((*shape, 1), stride)` is int64 in eager mode and float in the graph; cast to the
    # grids' dtype at once, it changes nothing here, so it stays information.
    assert {(i["rule"], i["line"]) for i in report["info"]} == {
        ("TRT703", line_of("bytetrack_yolox.py", "self.hw = [x.shape[-2:] for x in outputs]")),
        ("TRT734", line_of("bytetrack_yolox.py", "strides.append(torch.full((*shape, 1), stride))"))}
    assert report["exit_code"] == 0


def test_the_zoo_exits_0(zoo) -> None:
    code, models = zoo
    assert code == 0 and sorted(models) == ["bytetrack_yolox", "centertrack", "centertrack_stream"]


def _facts(path: Path, inputs: dict[str, Any], ran: bool = True) -> Facts:
    lines = set(range(1, len(path.read_text().splitlines()) + 1)) if ran else set()
    return Facts(runs=1, lines={norm(str(path)): lines}, inputs=inputs)


@pytest.mark.parametrize("inputs,ran,found", [
    ({}, True, False),  # nothing shows `pre_img` is a tensor
    ({"pre_img": {"shapes": [[1, 3, 16, 24]]}, "pre_hm": {"shapes": [[1, 1, 16, 24]]}}, True, True),
    ({"pre_img": {"shapes": []}, "pre_hm": {"shapes": []}}, True, False),  # named, but never a tensor
    ({"pre_img": {"shapes": [[1, 3, 16, 24]]}, "pre_hm": {"shapes": [[1, 1, 16, 24]]}}, False, False),  # never ran
])
def test_an_input_observed_as_a_tensor_is_trt721s_evidence(inputs, ran, found) -> None:
    path = TRACKING / "centertrack.py"
    facts = _facts(path, inputs, ran)
    findings = check_source(path.read_bytes(), str(path), Options(select=("TRT721",), facts=facts))
    line = line_of("centertrack.py", "if (pre_hm is not None) or (pre_img is not None):")
    assert (line in {f.line for f in findings}) is found


def test_the_reduced_models_run_and_the_optional_inputs_change_the_result() -> None:
    """The reductions are real models: the previous frame's inputs change what CenterTrack sees,
    and the first frame of the video loop is its own previous frame."""
    sys.path.insert(0, str(TRACKING))
    try:
        import centertrack
        import centertrack_stream
    finally:
        sys.path.remove(str(TRACKING))
    g = torch.Generator().manual_seed(0)
    x, pre_img, pre_hm = centertrack.inputs(g)
    pre_img[0, 0, 0, :4] = torch.tensor([0.0, -0.0, float("inf"), -1.0])
    torch.manual_seed(0)
    net = centertrack.build()
    with torch.no_grad():
        alone, given = net(x), net(x, pre_img, pre_hm)
        stream = centertrack_stream.build()
        stream.model.load_state_dict(net.state_dict())
        first = stream(x)
        assert _same(first, net(x, x, None)) and stream.pre_images is x
    assert not _same(alone, given) and torch.isfinite(alone[0][0]).all()


def test_nested_outputs_compare_element_by_element() -> None:
    a = [[torch.tensor([0.0, float("nan")]), torch.tensor([1])]]
    assert _same(a, [[torch.tensor([0.0, float("nan")]), torch.tensor([1])]])
    assert not _same(a, [[torch.tensor([-0.0, float("nan")]), torch.tensor([1])]])
    assert not _same(a, ([torch.tensor([0.0, float("nan")]), torch.tensor([1])],))
