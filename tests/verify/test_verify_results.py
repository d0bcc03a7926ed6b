"""The verify report, typed (``verify/results.py``): its JSON is the dict the untyped code built.

The key lists below are those of ``verify --format json`` on main before the report was typed
(commit bf4c7cc, examples/models.toml: bev_decoder, detection_postprocess, tracker_update): the
JSON is a contract, so its keys and their order stay as they were.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, fields
from typing import Any

import pytest

from trtcodemod.verify import static
from trtcodemod.verify.compare import OutputComparison
from trtcodemod.trt.issues import TrtIssue
from trtcodemod.verify.diverge import Divergence
from trtcodemod.verify.results import (ABSENT, BackendResult, Culprit, ExportCheck, ExportWarning, FailedNode,
                                       GraphCheck, InputSets, LatencyFigure, ModelSettings, ModelSummary, OriginalRun,
                                       VerifyReport)
from trtcodemod.verify.rewrite import Fix
from trtcodemod.verify.run import verify
from trtcodemod.verify.spec import build_spec
from support import REPO

EXAMPLES = REPO / "examples" / "verify"

REPORT_KEYS = ["version", "name", "model", "exit_code", "error", "original_export_error", "equivalent", "problems",
               "export_faithful", "export_checks", "models", "inputs", "backends", "graphs", "graphs_by_exporter",
               "rules_applied", "fixes", "rewrite_errors", "culprit_rules", "culprits", "environment", "saved",
               "user_files", "original_exported", "export_errors", "export_tracebacks", "latency_before",
               "latency_before_runs"]
MODEL_KEYS = ["file", "model", "inputs", "dynamic_axes", "exporters", "opset", "target", "unsafe", "atol", "rtol",
              "unordered", "runs", "timing_budget"]
#: A check whose graph ran and was compared; one not exported stops after ``warnings``.
CHECK_KEYS = ["side", "exporter", "faithful", "baked", "failing_sets", "detail", "warnings", "float64_admitted"]
ROW_KEYS = ["name", "exporter", "status", "reason", "max_abs_err", "max_rel_err", "passed", "latency_ms", "before",
            "outputs"]
OUTPUT_KEYS = ["name", "shape", "dtype", "expected_shape", "expected_dtype", "max_abs_err", "max_rel_err", "passed",
               "problem", "exact_admitted", "rows_traded", "eager_misses", "set_aside", "float64_judged",
               "eager_rms_share", "graph_rms_share", "picks_tied", "float64_ties"]
SUMMARY_KEYS = ["status", "message", "stage", "seconds", "log_tail"]
#: A graph's static check (``trt.inspect.summarize_graph``), and one that could not read its graph.
GRAPH_KEYS = ["nodes", "ops", "opset", "target", "checked_against", "notes", "trt_issues"]
GRAPH_ERROR_KEYS = ["nodes", "ops", "trt_issues", "error"]
ISSUE_KEYS = ["op", "node", "reason", "source", "rule", "severity"]
DIVERGENCE_KEYS = ["source", "node", "op", "max_abs_err", "lines_agreeing", "lines_compared", "dropped"]


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    """One real verification (build, export, ONNX Runtime, static check), shared by this module's tests;
    ``tensorrt`` among the backends gives a skipped row where TensorRT is not installed."""
    spec = build_spec({"model_file": str(EXAMPLES / "squeeze_head.py"), "model": "build", "inputs": "inputs",
                       "unsafe": True, "select": "ALL,TRT401", "runs": 1, "warmup": 0,
                       "backends": "torch-cpu,onnxruntime-cpu,tensorrt",
                       "dynamic_axes": '{"feats": {"0": "batch", "2": "height", "3": "width"}}'})
    return verify(spec)


def test_a_real_report_has_the_untyped_reports_keys_in_order(report: dict[str, Any]) -> None:
    assert report["exit_code"] == 0 and report["fixes"]  # a rewrite was verified: every key is there
    assert list(report) == REPORT_KEYS
    assert list(report["model"]) == MODEL_KEYS
    assert [list(c) for c in report["export_checks"]] == [CHECK_KEYS, CHECK_KEYS]
    assert all(list(row) == ROW_KEYS for row in report["backends"])
    assert all(list(row["latency_ms"]) == ["before", "after"] for row in report["backends"])
    for row in report["backends"]:
        # A skipped row says nothing of whether the original passed there: the key is absent, not null.
        assert list(row["before"]) == (["status", "reason"] if row["status"] == "skipped"
                                       else ["status", "reason", "passed"])
        assert all(list(o) == OUTPUT_KEYS for o in row["outputs"])
    assert any(row["outputs"] for row in report["backends"])
    assert [list(m) for m in report["models"].values()] == [SUMMARY_KEYS, SUMMARY_KEYS]
    assert list(report["inputs"]) == ["names", "notes", "sets"]
    assert list(report["fixes"][0]) == ["rule", "path", "line", "message"]
    assert report["graphs"] == report["graphs_by_exporter"]["torchscript"]
    assert [list(g) for g in report["graphs"].values()] == [GRAPH_KEYS, GRAPH_KEYS]
    assert all(list(i) == ISSUE_KEYS for i in report["graphs"]["before"]["trt_issues"])


def test_a_real_report_round_trips_through_the_types(report: dict[str, Any]) -> None:
    typed = VerifyReport.from_json(report)
    assert isinstance(typed.backends[0], BackendResult) and isinstance(typed.export_checks[0], ExportCheck)
    before = typed.graphs_by_exporter["torchscript"]["before"]
    assert isinstance(before, GraphCheck) and before.trt_issues and isinstance(before.trt_issues[0], TrtIssue)
    # The same text, so the same keys in the same order with the same values, nested included.
    assert json.dumps(typed.to_json(), indent=2) == json.dumps(report, indent=2)
    assert VerifyReport.from_json(typed.to_json()) == typed


# --- each class: every field reaches the JSON and comes back ------------------------------------


def _figure(median: float) -> LatencyFigure:
    return LatencyFigure(median=median, p90=median + 1, runs=3)


def _comparison() -> OutputComparison:
    return OutputComparison("out", (1, 2), "float32", (1, 2), "float32", 0.5, 0.25, False, "1 of 2 element(s)", 1, 2)


SETTINGS = ModelSettings("/m.py", "build", "inputs", {"x": {"0": "batch"}}, ["dynamo"], 18, "8.5", True, 1e-3, 1e-2,
                         {"out": 1}, 5, 2.5)
SAMPLES: dict[type, tuple[Any, list[str]]] = {
    LatencyFigure: (_figure(1.5), ["median", "p90", "runs"]),
    ExportWarning: (ExportWarning("TracerWarning", "converting a tensor", "/m.py:3", ["/c.py:9", None],
                                  "/torch/nn/functional.py:6847", True),
                    ["category", "message", "source", "callers", "origin", "input_free"]),
    ExportCheck: (ExportCheck("after", "dynamo", False, True, [2], "baked", [ExportWarning("TracerWarning", "w", None)],
                              FailedNode("/g", "Gather", "/m.py:4"), 2, Divergence("/m.py:5", "/Add"), 4, [2], 3, 5),
                  [*CHECK_KEYS[:7], "failed_node", "float64_admitted", "divergence", "rows_traded",
                   "no_reference_sets", "picks_tied", "float64_ties"]),
    OriginalRun: (OriginalRun("ok", "fine", True), ["status", "reason", "passed"]),
    BackendResult: (BackendResult("onnxruntime-cpu", "torchscript", "ok", "why", 0.5, 0.25, True, _figure(1.0),
                                  _figure(2.0), OriginalRun("failed", "no", False), [_comparison()]), ROW_KEYS),
    ModelSummary: (ModelSummary("failed", "eager run failed", "build", 1.25, "Traceback", "eager reference: the export branch"),
                   [*SUMMARY_KEYS, "reference"]),
    InputSets: (InputSets(["x"], ["a note"], [{"x": [1, 3]}]), ["names", "notes", "sets"]),
    ModelSettings: (SETTINGS, MODEL_KEYS),
    Culprit: (Culprit("TRT401", True, "differs alone"), ["rule", "reproduces", "detail"]),
    GraphCheck: (GraphCheck(5, {"If": 1, "Relu": 4}, [TrtIssue("If", "/If", "branches differ", "/m.py:3", "TRT101")],
                            17, "8.5", "8.6", ["checked against 8.6"], "static check failed"),
                 [*GRAPH_KEYS, "error"]),
    FailedNode: (FailedNode("/Where_6", "Where", "/m.py:7", "/m.py:6", "/m.py:5"),
                 ["node", "op", "source", "input_source", "input_origin"]),
    Divergence: (Divergence("/m.py:5", "/Add", "Add", 0.5, 2, 3, ["/m.py:4"]), DIVERGENCE_KEYS),
    VerifyReport: (VerifyReport(
        name="m", model=SETTINGS,
        version=2, exit_code=1, error="e", original_export_error="o", equivalent=True, problems=["p"],
        export_faithful={"before": True, "after": False}, export_checks=[ExportCheck("before", "torchscript")],
        models={"before": ModelSummary("ok", "", None, 0.5, "")}, inputs=InputSets(["x"], [], [{"x": [2]}]),
        backends=[BackendResult("torch-cpu", None)], graphs={"before": GraphCheck(3, {}), "after": None},
        graphs_by_exporter={"torchscript": {"before": GraphCheck(3, {}), "after": None}}, rules_applied=["TRT401"],
        fixes=[Fix("TRT401", "/m.py", 3, "squeeze")], rewrite_errors=["r"], culprit_rules=["TRT401"],
        culprits=[Culprit("TRT401", True, "d")], environment={"torch": "2"}, saved="/s", user_files=["/m.py"],
        original_exported=True, export_errors={"before": {"torchscript": None}}, export_tracebacks={"torchscript": []},
        latency_before={"torch-cpu": 1.0}, latency_before_runs={"torch-cpu": 3}), REPORT_KEYS),
}


def _default(f: Any) -> Any:
    if f.default is not MISSING:
        return f.default
    return f.default_factory() if f.default_factory is not MISSING else MISSING


@pytest.mark.parametrize("cls", list(SAMPLES), ids=lambda cls: cls.__name__)
def test_every_field_is_in_the_json_and_read_back(cls: type) -> None:
    sample, keys = SAMPLES[cls]
    # The sample sets every field away from its default, so a field left out of either direction shows.
    assert [f.name for f in fields(cls) if getattr(sample, f.name) == _default(f)] == []
    data = sample.to_json()
    assert list(data) == keys
    assert cls.from_json(json.loads(json.dumps(data))) == sample


def test_a_key_not_there_yet_is_left_out_not_null() -> None:
    # The untyped code added these keys on some paths only: an original that did not run has no
    # latency; a graph ONNX Runtime refused has a failed node and no admitted count; a skipped row
    # has no "passed" for the original.
    empty = VerifyReport(name="m", model=SETTINGS).to_json()
    assert list(empty) == REPORT_KEYS[:REPORT_KEYS.index("user_files")] and empty["inputs"] == {}
    refused = ExportCheck("before", "torchscript", False, failed_node=None).to_json()
    assert list(refused) == [*CHECK_KEYS[:7], "failed_node"] and refused["failed_node"] is None
    assert BackendResult("tensorrt", "torchscript", reason="no CUDA device").to_json()["before"] == {
        "status": None, "reason": None}
    assert VerifyReport.from_json({"name": "m"}).user_files is ABSENT
    # A graph the static check could not read has an error and no opset, target or notes.
    unread = static.check_onnx("/no/such/graph.onnx", "8.6")
    assert list(unread.to_json()) == GRAPH_ERROR_KEYS and unread.nodes is None and unread.errors() == []
