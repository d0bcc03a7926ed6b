"""End to end on CPU: real worker processes, real exports, ONNX Runtime; small models, few runs.

Each test asserts the specific fault it exists for.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from trtcodemod.cli import app
from trtcodemod.verify.report import render
from trtcodemod.verify.run import verify
from trtcodemod.verify.spec import RewriteOptions, build_spec
from support import REPO

EXAMPLES = REPO / "examples" / "verify"
FAST = ["--runs", "2", "--warmup", "0"]



def run_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["verify", *args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout


def run_json(*args: str) -> tuple[int, dict[str, Any]]:
    code, out = run_cli(*args, "--format", "json", *FAST)
    return code, json.loads(out)


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def ops(report: dict[str, Any], role: str) -> dict[str, int]:
    return report["graphs"][role]["ops"]


# --- (a) a rewrite that fixes the model ----------------------------------------------------


@pytest.fixture(scope="module")
def squeeze(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any], Path]:
    save = tmp_path_factory.mktemp("saved")
    # TRT401 is opt-in: verify checks the rewrite `apply --select ALL,TRT401 --unsafe` would make.
    code, report = run_json(str(EXAMPLES / "squeeze_head.py"), "--model", "build", "--inputs", "inputs", "--unsafe",
                            "--select", "ALL,TRT401",
                            "--dynamic-axes", '{"feats": {"0": "batch", "2": "height", "3": "width"}}',
                            "--save", str(save))
    return code, report, save


def test_squeeze_head_is_fixed_equivalent_and_exits_0(squeeze: tuple) -> None:
    code, report, _ = squeeze
    assert report["rules_applied"] == ["TRT401"]
    assert ops(report, "before").get("If") == 1
    assert "If" not in ops(report, "after")
    assert report["equivalent"] is True
    assert report["export_faithful"] == {"before": True, "after": True}
    assert [i["op"] for i in report["graphs"]["before"]["trt_issues"]] == ["If"]
    squeeze_line = _line_of(EXAMPLES / "squeeze_head.py", "scores = logits.squeeze(1)")
    assert report["graphs"]["before"]["trt_issues"][0]["source"].endswith(f"squeeze_head.py:{squeeze_line}")
    assert report["graphs"]["after"]["trt_issues"] == []
    assert code == 0 and report["exit_code"] == 0


def test_the_last_input_sets_change_the_dynamic_axes(squeeze: tuple) -> None:
    """Set 3 one larger on every dynamic axis, set 4 smaller (half: a batch of one, 4 by 4)."""
    sets = squeeze[1]["inputs"]["sets"]
    assert [s["feats"] for s in sets] == [[2, 16, 8, 8], [2, 16, 8, 8], [3, 16, 9, 9], [1, 16, 4, 4]]


def test_missing_backends_are_skipped_with_the_reason(squeeze: tuple) -> None:
    """Where a backend is absent the report says so and why; where present it must have run."""
    import importlib.util

    import onnxruntime
    import torch

    rows = {(r["name"], r["exporter"]): r for r in squeeze[1]["backends"]}
    has_cuda = torch.cuda.is_available()
    trt = rows[("tensorrt", "torchscript")]
    if importlib.util.find_spec("tensorrt") is None:
        assert trt["status"] == "skipped" and trt["reason"] == "tensorrt is not installed"
    elif not has_cuda:
        assert trt["status"] == "skipped" and trt["reason"]
    else:  # a real run, or the PyPI stub that fails to import (said so)
        assert trt["status"] in ("ok", "failed") or trt["reason"].startswith("tensorrt does not import")
    cuda = rows[("torch-cuda", None)]
    if has_cuda:
        assert cuda["status"] == "ok"
    else:
        assert cuda["status"] == "skipped" and cuda["reason"] == "no CUDA device (torch.cuda.is_available() is False)"
    ort_cuda = rows[("onnxruntime-cuda", "torchscript")]
    if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
        assert ort_cuda["status"] == "skipped"
        assert ort_cuda["reason"].startswith("onnxruntime has no CUDAExecutionProvider")
    assert rows[("onnxruntime-cpu", "torchscript")]["status"] == "ok"


def test_json_shape(squeeze: tuple) -> None:
    report = squeeze[1]
    assert report["version"] == 1
    for key in ("equivalent", "export_faithful", "backends", "graphs", "rules_applied", "culprit_rules"):
        assert key in report
    row = next(r for r in report["backends"] if r["name"] == "onnxruntime-cpu")
    assert set(row) >= {"name", "status", "reason", "max_abs_err", "max_rel_err", "passed", "latency_ms"}
    assert set(row["latency_ms"]["before"]) >= {"median", "p90"} and set(row["latency_ms"]["after"]) >= {"median", "p90"}
    assert row["passed"] is True and row["max_abs_err"] < 1e-4
    for role in ("before", "after"):
        assert set(report["graphs"][role]) >= {"nodes", "ops", "trt_issues"}
    issue = report["graphs"]["before"]["trt_issues"][0]
    assert set(issue) >= {"op", "node", "reason", "source", "rule"}


def test_save_keeps_the_onnx_files_and_the_rewritten_source(squeeze: tuple) -> None:
    save = squeeze[2]
    assert (save / "before.torchscript.onnx").is_file() and (save / "after.torchscript.onnx").is_file()
    assert "logits[:, 0]" in (save / "after_src" / "squeeze_head.py").read_text()


def test_text_and_markdown_reports(squeeze: tuple) -> None:
    text = render([squeeze[1]], "text")
    assert "tensorrt (torchscript)" in text and "tensorrt is not installed" in text
    assert "Result: EQUIVALENT, no TensorRT issue left -- exit 0" in text
    md = render([squeeze[1]], "markdown")
    assert md.startswith("### ✅ trtcodemod verify") and "| backend | status |" in md


# --- (b) the original export bakes a branch -----------------------------------------------------


def test_baked_branch_is_detected_as_not_export_faithful() -> None:
    code, report = run_json(str(EXAMPLES / "baked_branch.py"), "--model", "build", "--inputs", "inputs")
    assert report["export_faithful"]["before"] is False
    check = next(c for c in report["export_checks"] if c["side"] == "before")
    assert check["baked"] is True and check["failing_sets"] == [2, 3]
    assert "baked something in" in check["detail"]
    tracer = [w for w in check["warnings"] if w["category"] == "TracerWarning"]
    if_line = _line_of(EXAMPLES / "baked_branch.py", "if x.mean() > 0")
    assert tracer and tracer[0]["source"].endswith(f"baked_branch.py:{if_line}")
    assert report["rules_applied"] == []  # TRT101's rewrite of this branch is unsafe
    assert code == 1 and report["equivalent"] is False


def test_baked_branch_rewritten_by_trt101_exports_faithfully() -> None:
    code, report = run_json(str(EXAMPLES / "baked_branch.py"), "--model", "build", "--inputs", "inputs", "--unsafe")
    assert "TRT101" in report["rules_applied"]
    assert report["export_faithful"] == {"before": False, "after": True}
    after = next(c for c in report["export_checks"] if c["side"] == "after")
    assert not [w for w in after["warnings"] if "Python boolean" in w["message"]]  # the branch is gone
    assert report["equivalent"] is True and code == 0


# --- (c) an unsafe rewrite that breaks numerics ---------------------------------------------------


def test_where_blend_breaks_numerics_and_names_trt102() -> None:
    # TRT102 matters below TensorRT 8.4 (later parsers take Where).
    code, report = run_json(str(EXAMPLES / "where_iou.py"), "--model", "build", "--inputs", "inputs", "--unsafe",
                            "--target", "8.0")
    assert "TRT102" in report["rules_applied"]
    assert report["equivalent"] is False
    eager = next(r for r in report["backends"] if r["name"] == "torch-cpu")
    assert eager["passed"] is False
    assert any("NaN" in o["problem"] for o in eager["outputs"])
    assert report["culprit_rules"] == ["TRT102"]
    assert code == 1


def test_where_without_unsafe_changes_nothing() -> None:
    code, report = run_json(str(EXAMPLES / "where_iou.py"), "--model", "build", "--inputs", "inputs",
                            "--backends", "torch-cpu", "--target", "8.0")
    assert "TRT102" not in report["rules_applied"]
    assert report["equivalent"] is True


def _lin_model(tmp_path: Path) -> Path:
    """A linear layer times 2: what the culprit tests' fixers rewrite (lines 9 and 10)."""
    model = tmp_path / "lin.py"
    model.write_text(textwrap.dedent("""\
        import torch

        class Lin(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = torch.nn.Linear(4, 4)

            def forward(self, x):
                y = self.lin(x)
                return y * 2
        """))
    return model


def test_culprit_search_applies_rules_one_at_a_time(tmp_path: Path) -> None:
    model = _lin_model(tmp_path)

    def fixer(source: bytes, path: str, options: RewriteOptions) -> tuple[bytes, list[tuple[str, int, str]]]:
        fixes = []
        if {"ALL", "TRTA01"} & set(options.select):  # harmless
            source, fixes = source.replace(b"self.lin(x)", b"self.lin(x)  # a"), fixes + [("TRTA01", 9, "a")]
        if {"ALL", "TRTB02"} & set(options.select):  # changes the result
            source, fixes = source.replace(b"y * 2", b"y * 2.5"), fixes + [("TRTB02", 10, "b")]
        return source, fixes

    spec = build_spec({"model_file": str(model), "model": "Lin", "input_shape": ["x:3x4"], "runs": 1, "warmup": 0,
                       "backends": "torch-cpu"})
    report = verify(spec, fixer=fixer)
    assert report["equivalent"] is False and report["exit_code"] == 1
    assert {c["rule"]: c["reproduces"] for c in report["culprits"]} == {"TRTA01": False, "TRTB02": True}
    assert report["culprit_rules"] == ["TRTB02"]


def test_culprit_search_leaves_the_last_rule_to_the_next_round(tmp_path: Path) -> None:
    """migrate's round before its last: the other rule broke equivalence, so the harmless one is
    not rewritten, built and exported alone; the next verification (its fixes alone) proves it."""
    from dataclasses import replace

    from trtcodemod.verify.culprits import LEFT_FOR_NEXT
    from trtcodemod.verify.run import Verification

    model = _lin_model(tmp_path)
    selects: list[tuple[str, ...]] = []

    def fixer(source: bytes, path: str, options: RewriteOptions) -> tuple[bytes, list[tuple[str, int, str]]]:
        selects.append(tuple(options.select))
        fixes = []
        if {"ALL", "TRTA01"} & set(options.select):  # changes the result
            source, fixes = source.replace(b"y * 2", b"y * 2.5"), fixes + [("TRTA01", 10, "a")]
        if {"ALL", "TRTB02"} & set(options.select):  # harmless
            source, fixes = source.replace(b"self.lin(x)", b"self.lin(x)  # b"), fixes + [("TRTB02", 9, "b")]
        return source, fixes

    spec = build_spec({"model_file": str(model), "model": "Lin", "input_shape": ["x:3x4"], "runs": 1, "warmup": 0,
                       "backends": "torch-cpu,onnxruntime-cpu"})
    with Verification(spec) as session:
        probed = session.verify(fixer)
        assert ("TRTB02",) in selects and ("TRTA01",) in selects
        assert len(list(session.ctx.work.glob("*-culprit-TRTB02-model"))) == 1  # its build and export
        selects.clear()
        left = session.verify(fixer, verified_next=True)
        assert ("TRTB02",) not in selects and ("TRTA01",) in selects
        assert len(list(session.ctx.work.glob("*-culprit-TRTB02-model"))) == 1  # none more
        # The same culprits and the same verdict as with the last rule checked alone.
        for report in (probed, left):
            assert report.equivalent is False and report.exit_code == 1
            assert report.culprit_rules == ["TRTA01"]
        assert [c.detail for c in left.culprits] == [probed.culprits[0].detail, LEFT_FOR_NEXT]
        # The next round: TRTA01 reverted, TRTB02's fixes alone are verified and kept.
        after = session.verify(lambda source, path, options: fixer(source, path, replace(options, select=("TRTB02",))),
                               verified_next=True)
        assert after.equivalent is True and after.rules_applied == ["TRTB02"] and after.culprits == []


def test_a_stretched_export_far_slower_than_the_original_is_cut_and_not_tried_at_other_sizes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pyfacer's Python NMS unrolled over many more boxes took 1800 s at 2n + 1, then 1395 s at 3n, where the
    original's build and export took 111 s: the stretched export's limit follows the original's time, and a
    timed-out stretch is not followed by another as large."""
    from trtcodemod.verify import run as verify_run
    from trtcodemod.verify.run import Verification

    model = tmp_path / "slow.py"
    model.write_text(textwrap.dedent("""\
        import time
        import torch

        class Slow(torch.nn.Module):
            def forward(self, x):
                if torch.jit.is_tracing() and x.shape[-1] > 4:  # only a trace at larger sizes is slow
                    time.sleep(60)
                return x * 2
        """))
    monkeypatch.setattr(verify_run, "STRETCH_FACTOR", 1.0)
    monkeypatch.setattr(verify_run, "STRETCH_FLOOR_SECONDS", 5.0)
    spec = build_spec({"model_file": str(model), "model": "Slow", "input_shape": ["x:2x4"], "runs": 1, "warmup": 0,
                       "backends": "torch-cpu", "dynamic_axes": {"x": {"1": "width"}}})
    with Verification(spec) as session:
        path, stretched, why = session.retrace()
        assert path is None and stretched == [] and "at 3n" not in why, why
        # cut at the original's own time (its build, runs and export), long before the trace's 60 s
        limit = float(re.search(r"timed out after ([0-9.]+) s", why).group(1))
        assert 5.0 <= limit < 60, why
        assert len(list(session.ctx.work.glob("*-retrace*-model"))) == 1


# --- (d) a package with relative imports, two files rewritten ---------------------------------------


def test_package_with_relative_imports_rewrites_two_files() -> None:
    # TRT401 and TRT402 are opt-in rules: select them by ID so both files have a fix.
    code, report = run_json(str(EXAMPLES / "pkg_detector" / "model.py"), "--model", "build", "--inputs", "inputs",
                            "--unsafe", "--select", "ALL", "--select", "TRT401,TRT402",
                            "--dynamic-axes", '{"image": {"0": "batch", "1": "height", "2": "width"}}')
    files = sorted({Path(f["path"]).name for f in report["fixes"]})
    assert files == ["backbone.py", "heads.py"]
    assert "If" in ops(report, "before") and "If" not in ops(report, "after")
    assert report["equivalent"] is True and code == 0


# --- faults: crash, hang, a batch that goes on ------------------------------------------------------


def _write(path: Path, body: str) -> Path:
    path.write_text(textwrap.dedent(body))
    return path


def test_a_model_that_aborts_at_import_is_reported_exit_2(tmp_path: Path) -> None:
    model = _write(tmp_path / "boom.py", """\
        import os
        os.abort()
        """)
    code, report = run_json(str(model), "--model", "build", "--input-shape", "x:2x3")
    before = report["models"]["before"]
    assert before["status"] == "crashed"
    assert "SIGABRT" in before["message"] and "during import" in before["message"]
    assert code == 2 and report["exit_code"] == 2


def test_a_rewritten_model_that_segfaults_is_a_result(tmp_path: Path) -> None:
    model = _write(tmp_path / "ok.py", """\
        import torch

        class Double(torch.nn.Module):
            def forward(self, x):
                return x * 2
        """)

    def crashing_fixer(source: bytes, path: str, options: RewriteOptions) -> tuple[bytes, list]:
        crash = b"import ctypes\nctypes.string_at(0)\n"  # a real segfault at import of the rewritten file
        return crash + source, [("TRT999", 1, "crash")]

    spec = build_spec({"model_file": str(model), "model": "Double", "input_shape": ["x:2x3"], "runs": 1,
                       "warmup": 0})
    report = verify(spec, fixer=crashing_fixer)
    after = report["models"]["after"]
    assert after["status"] == "crashed" and "SIGSEGV" in after["message"]
    assert report["export_faithful"]["before"] is True  # the original was still exported and checked
    assert report["equivalent"] is False and report["exit_code"] == 1
    assert report["culprit_rules"] == ["TRT999"]
    ort = next(r for r in report["backends"] if r["name"] == "onnxruntime-cpu")
    assert ort["status"] == "failed" and ort["before"]["status"] == "ok"


def test_a_hanging_model_times_out(tmp_path: Path) -> None:
    model = _write(tmp_path / "slow.py", """\
        import time
        import torch

        def build():
            time.sleep(600)
            return torch.nn.Identity()
        """)
    code, report = run_json(str(model), "--model", "build", "--input-shape", "x:2", "--timeout", "6")
    before = report["models"]["before"]
    assert before["status"] == "timeout"
    assert before["message"] == "timed out after 6 s during build"
    assert code == 2


def test_a_config_batch_goes_on_past_a_failing_model(tmp_path: Path) -> None:
    _write(tmp_path / "boom.py", """\
        raise ImportError("no such dependency: fancy_ops")
        """)
    config = _write(tmp_path / "models.toml", f"""\
        [models.broken]
        model_file = "boom.py"
        model = "build"
        input_shape = ["x:2x3"]

        [models.baked]
        model_file = "{EXAMPLES / 'baked_branch.py'}"
        model = "build"
        inputs = "inputs"
        backends = "torch-cpu"
        """)
    code, out = run_cli("--config", str(config), *FAST)
    assert "trtcodemod verify: 2 model(s)" in out
    assert "ImportError: no such dependency: fancy_ops" in out
    code_json, data = run_json("--config", str(config))
    by_name = {m["name"]: m for m in data["models"]}
    assert by_name["broken"]["exit_code"] == 2
    assert by_name["baked"]["export_faithful"]["before"] is False  # it still ran
    assert code == code_json == 2


POOL_MODEL = '''
import torch
import torch.nn.functional as F
from torch import nn


class Pool(nn.Module):
    def forward(self, x):
        return F.adaptive_avg_pool2d(x, 3)


def inputs(generator):
    return (torch.randn(1, 2, 8, 7, generator=generator),)
'''


def test_rewrite_that_makes_an_unexportable_model_export(tmp_path: Path) -> None:
    """Adaptive pooling on dynamic H/W does not export; TRT601's rewrite does, and is equivalent."""
    model = tmp_path / "pool.py"
    model.write_text(POOL_MODEL)
    # TRT601 is an unsafe fix now (slower where the pooling already exports): --unsafe.
    code, report = run_json(str(model), "--model", "Pool", "--inputs", "inputs", "--unsafe",
                            "--dynamic-axes", '{"x": {"2": "h", "3": "w"}}')
    assert "adaptive_avg_pool2d" in report["original_export_error"]
    assert report["rules_applied"] == ["TRT601"]
    assert report["export_faithful"]["after"] is True and report["equivalent"] is True
    assert code == 0


def test_dynamic_axes_naming_no_input_is_an_error(tmp_path: Path) -> None:
    model = tmp_path / "pool.py"
    model.write_text(POOL_MODEL)
    code, report = run_json(str(model), "--model", "Pool", "--inputs", "inputs", "--dynamic-axes", '{"input": {"0": "b"}}')
    assert code == 2 and "--dynamic-axes names ['input']" in report["error"]


def test_no_culprit_for_a_difference_the_original_already_had() -> None:
    """baked_branch's export is wrong before any rewrite; a harmless rule must not be blamed."""

    def fixer(source: bytes, path: str, options: RewriteOptions) -> tuple[bytes, list[tuple[str, int, str]]]:
        if {"ALL", "TRTA01"} & set(options.select):
            return source.replace(b"        return y\n", b"        return y  # a\n"), [("TRTA01", 27, "a")]
        return source, []

    spec = build_spec({"model_file": str(EXAMPLES / "baked_branch.py"), "model": "build", "inputs": "inputs",
                       "runs": 1, "warmup": 0, "backends": "torch-cpu,onnxruntime-cpu"})
    report = verify(spec, fixer=fixer)
    assert report["rules_applied"] == ["TRTA01"] and report["equivalent"] is False
    assert report["culprit_rules"] == [] and "did not introduce" in report["culprits"][0]["detail"]


def test_wrapper_model_file_gets_its_imported_module_rewritten() -> None:
    """The model lives in a sibling module of the model file: it is rewritten, not skipped silently."""
    wrapper = EXAMPLES.parent / "migrate" / "wrapper.py"
    code, report = run_json(str(wrapper), "--model", "build", "--inputs", "inputs", "--unsafe",
                            "--select", "ALL,TRT401",
                            "--dynamic-axes", '{"feats": {"0": "batch", "2": "height", "3": "width"}}')
    assert [(Path(f["path"]).name, f["rule"]) for f in report["fixes"]] == [("anchor_head.py", "TRT401")]
    assert report["graphs"]["after"]["trt_issues"] == [] and code == 0


TWO_MISSING_OPS = """
import torch
from torch import nn


class Heading(nn.Module):
    def forward(self, x):
        degrees = torch.rad2deg(x)
        peak = torch.cummax(degrees.long(), dim=1)[0]
        if x.shape[1] > 4:  # a size test no rule takes: the trace keeps the example's branch
            peak = peak * 2
        return peak


def inputs(generator):
    return (torch.randn(2, 4, generator=generator),)
"""


def test_a_rule_is_not_blamed_for_an_export_the_original_could_not_make_either(tmp_path: Path) -> None:
    """Two operators that do not export, each a safe rule's: each rule alone still leaves the other,
    so its export fails, as the original's did. That is no evidence against it; the difference at
    other sizes comes from the baked `if`, which neither rule touched."""
    model = tmp_path / "heading.py"
    model.write_text(TWO_MISSING_OPS)
    code, report = run_json(str(model), "--model", "Heading", "--inputs", "inputs", "--runs", "1", "--warmup", "0",
                            "--backends", "torch-cpu,onnxruntime-cpu", "--dynamic-axes", '{"x": {"1": "n"}}')
    assert sorted(report["rules_applied"]) == ["TRT307", "TRT308"] and report["equivalent"] is False
    assert report["culprit_rules"] == [], report["culprits"]
