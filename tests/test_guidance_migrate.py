"""``migrate`` end to end on models built from the guidance's own recipes (examples/guidance/).

One run of the zoo config; each model is checked for what the issue asked: a recipe with a
mechanical rewrite ends fixed, faithful and equivalent with the proof named; the rest are
located at their line with their rule and the exit code says something remains.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from trtcodemod.cli import app

GUIDANCE = Path(__file__).resolve().parent.parent / "examples" / "guidance"
FAST = ["--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu"]


def line_of(name: str, text: str) -> int:
    path = GUIDANCE / name
    # Code lines only: the docstrings quote the same constructs.
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1)
                if line.startswith("    ") and text in line)


@pytest.fixture(scope="module")
def zoo() -> tuple[int, dict[str, dict[str, Any]]]:
    result = CliRunner().invoke(app, ["migrate", "--config", str(GUIDANCE / "models.toml"), "--format", "json", *FAST])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    data = json.loads(result.stdout)
    return result.exit_code, {m["name"]: m for m in data["models"]}


FIXED = [  # model, rule, the line's text, what proved it
    ("indicator_flag", "TRT101", "if use_prev:", "verified: the rewritten model is equivalent"),
    ("value_branch", "TRT101", "if scores.max() > 0.5:", "verified: the rewritten model is equivalent"),
    ("len_batch", "TRT704", "n = len(x)", "observed: the argument of len() was a tensor"),
    ("list_copy", "TRT722", "copy.deepcopy(feats)", "safe fix"),
    ("masked_assign", "TRT201", "a[m] = b[m]", "safe fix"),
    ("item_scale", "TRT702", "peak = x.abs().max().item()", "verified: the rewritten model is equivalent"),
    # `output` of the helper has no annotation: the export's TracerWarning at the line is the evidence.
    ("numpy_grid", "TRT711", "yv, xv = np.meshgrid(", "verified: the rewritten model is equivalent"),
]


@pytest.mark.parametrize("name,rule,text,proof", FIXED, ids=[f[0] for f in FIXED])
def test_a_recipe_with_a_rewrite_ends_fixed_faithful_and_equivalent(zoo, name, rule, text, proof) -> None:
    report = zoo[1][name]
    line = line_of(f"{name}.py", text)
    assert [(a["rule"], a["line"]) for a in report["applied"]] == [(rule, line)]
    assert report["applied"][0]["proof"].startswith(proof) and report["applied"][0]["landed"]
    assert report["after"]["exported"] and report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0
    assert report["equivalent"] is True and report["remaining"] == [] and report["exit_code"] == 0


NAMED = [  # model, rule, the line's text: located, named, left to the user
    ("frame_counter", "TRT703", "self.frame += 1"),
    ("half_topk", "TRT712", "k = max(x.shape[1] // 2, 1)"),
]


@pytest.mark.parametrize("name,rule,text", NAMED, ids=[n[0] for n in NAMED])
def test_a_recipe_without_a_rewrite_is_named_at_its_line_and_exits_1(zoo, name, rule, text) -> None:
    report = zoo[1][name]
    source = f"{GUIDANCE / name}.py:{line_of(f'{name}.py', text)}"
    assert report["applied"] == [] and report["exit_code"] == 1
    assert any(r["rule"] == rule and r["source"] == source for r in report["remaining"]), report["remaining"]


def test_a_frozen_state_write_gets_its_line_where_the_graph_is_wrong(zoo) -> None:
    report = zoo[1]["frame_counter"]
    assert report["before"]["faithful"] is False
    [state] = [r for r in report["remaining"] if r["op"] == "(module state)"]
    assert "self.frame" in state["message"] and "no automatic fix" in state["message"]


def test_the_zoo_exit_code_says_something_remains(zoo) -> None:
    code, models = zoo
    assert code == 1 and max(m["exit_code"] for m in models.values()) == 1
    assert models["frame_counter"]["exit_code"] == 1 and models["frame_counter"]["remaining"]


def test_the_numpy_grid_becomes_the_torch_grid_on_the_size(zoo) -> None:
    report = zoo[1]["numpy_grid"]
    assert report["before"]["faithful"] is False  # the grid of the traced size, a constant
    diff = report["diff"]
    assert '+    yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")' in diff
    assert "+    return torch.stack((xv, yv), 2).to(torch.float32)" in diff
    assert "np." not in "".join(line for line in diff.splitlines() if line.startswith("+"))


def test_a_node_made_inside_an_inserted_helper_is_placed_at_the_users_call() -> None:
    result = CliRunner().invoke(app, ["verify", str(GUIDANCE / "masked_assign.py"), "--model", "build", "--inputs",
                                      "inputs", "--format", "json", *FAST])
    report = json.loads(result.stdout)
    line = line_of("masked_assign.py", "a[m] = b[m]")
    sources = {i["source"] for i in report["graphs_by_exporter"]["torchscript"]["after"]["trt_issues"]
               if i["op"] == "NonZero"}
    assert f"{GUIDANCE / 'masked_assign.py'}:{line} (in _trt_mask_index, inserted by trtcodemod)" in sources
    assert all(s.startswith(f"{GUIDANCE / 'masked_assign.py'}:{line}") for s in sources)
