"""A second trace as evidence for size-derived bakes (issue 21, items 5 and 10).

Under the TorchScript exporter every size is a traced tensor, so a comparison on a static
axis raises the same TracerWarning as one on a dynamic axis. ``migrate`` exports the
original again with the dynamic axes stretched and compares the graphs: the same graph
makes the bake a warning (exit 0), another graph keeps it an error at its line (exit 1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import onnx
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper
from typer.testing import CliRunner

from trtcodemod.cli import app
from trtcodemod.evidence.facts import Facts
from trtcodemod.migrate.locate import Problem
from trtcodemod.migrate.retrace import MANUAL_STEP, TRACE_ONLY_NOTE, Retrace, Rewritten, judge, size_derived, trace_only
from trtcodemod.migrate.samegraph import first_difference

FAST = ["--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu", "--format", "json"]
AXES = '{"x": {"0": "batch", "2": "height"}}'

MODEL = '''import torch


class Net(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if {condition}:
            x = x * 2.0
        return x - 1.0


def build() -> Net:
    return Net()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(2, 3, 8, generator=g),)
'''


def migrate(path: Path, *extra: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["migrate", str(path), "--model", "build", "--inputs", "inputs", *extra, *FAST])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    data = json.loads(result.stdout)
    model = data["models"][0]
    assert result.exit_code == data["exit_code"] == model["exit_code"]
    return model


def write_model(folder: Path, condition: str) -> Path:
    path = folder / "net.py"
    path.write_text(MODEL.format(condition=condition))
    return path


# --- end to end ------------------------------------------------------------------------------


def test_a_comparison_on_a_static_axis_is_a_warning_and_exits_0(tmp_path: Path) -> None:
    """Axis 1 is not dynamic: the trace at batch 5 / height 17 gives the same graph."""
    path = write_model(tmp_path, "x.shape[1] == 3")
    # TRT713 left out: its select of both branches would be tried (and verified) on the bake; here the
    # second trace's verdict on a bake nothing fixes is the subject.
    r = migrate(path, "--dynamic-axes", AXES, "--ignore", "TRT713")
    baked = [e for e in r["remaining"] if e["kind"] == "baked"]
    assert [(e["source"], e["severity"]) for e in baked] == [(f"{path.resolve()}:6", "warning")]
    assert "same graph at x[0] (batch) 2 and 5; x[2] (height) 8 and 17" in baked[0]["message"]
    assert "does not depend on the dynamic axes" in baked[0]["message"]
    assert r["retrace"]["same"] is True and r["retrace"]["lines"] == 1
    assert r["before"]["faithful"] is True and r["applied"] == []
    assert r["exit_code"] == 0


def test_a_comparison_on_a_dynamic_axis_stays_an_error_at_its_line(tmp_path: Path) -> None:
    """Height 8 takes one branch, 17 the other: another graph, the bake stays an error."""
    path = write_model(tmp_path, "x.shape[2] > 8")
    r = migrate(path, "--dynamic-axes", AXES, "--ignore", "TRT713")
    errors = {e["source"]: e["message"] for e in r["remaining"] if e["severity"] == "error"}
    where = f"{path.resolve()}:6"
    assert where in errors and "differs" in errors[where] and "8 and 17" in errors[where]
    # The first node only the trace at height 17 has comes from the branch's body.
    assert f"{path.resolve()}:7" in errors[where]
    assert r["retrace"]["same"] is False and r["retrace"]["first_difference"]["source"] == f"{path.resolve()}:7"
    assert r["before"]["faithful"] is False  # set 3 (height 9) takes the other branch too
    assert r["exit_code"] == 1
    # With TRT713, both branches are computed while tracing and the traced height selects: migrated.
    fixed = migrate(path, "--dynamic-axes", AXES)
    assert [a["rule"] for a in fixed["applied"]] == ["TRT713"] and fixed["exit_code"] == 0, fixed["remaining"]


#: Even heights only (a map pooled by 2 and upsampled back is concatenated with it), then four
#: ceil-mode poolings: one row from 8 and from 16, two from 24.
STRIDED = '''import torch
import torch.nn.functional as F


class Net(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.cat([x, F.interpolate(F.max_pool2d(x, 2), scale_factor=2.0)], 1)
        for _ in range(4):
            y = F.max_pool2d(y, 2, ceil_mode=True)
        if y.shape[2] == 1:
            y = y * 2.0
        return y - 1.0


def build() -> Net:
    return Net()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(2, 3, 8, 8, generator=g),)
'''


def test_a_model_that_refuses_2n_plus_1_is_traced_again_at_3n_not_2n(tmp_path: Path) -> None:
    """Height 17 is refused; at 16, the verifier's doubled set, the row count is 1 as at 8, so a
    trace there is the same graph and the comparison looked steady (a warning, exit 0). At 24 it
    is 2: another graph, the bake an error at its line."""
    path = tmp_path / "strided.py"
    path.write_text(STRIDED)
    # TRT713 left out: its select of both branches would migrate the model (the retrace is the subject); TRT390 and
    # TRT391, which take one branch while tracing, too.
    r = migrate(path, "--dynamic-axes", '{"x": {"2": "height"}}', "--ignore", "TRT713,TRT390,TRT391")
    errors = {e["source"]: e["message"] for e in r["remaining"] if e["severity"] == "error"}
    where = f"{path.resolve()}:10"
    assert where in errors and "8 and 24" in errors[where], r["remaining"]
    assert r["retrace"]["same"] is False and r["exit_code"] == 1


TRACE_ONLY = '''import torch


class Net(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, w = x.shape[-2:]
        if torch.jit.is_tracing():
            scale = torch.tensor([w, h]).to(x.dtype)
        else:
            scale = x.new_tensor([w, h])
        return x * scale.sum()


def build() -> Net:
    return Net()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(2, 3, 8, 6, generator=g),)
'''


@pytest.mark.parametrize("axes", [None, '{"x": {"2": "height"}}'], ids=["sizes-fixed", "height-dynamic"])
def test_a_trace_only_tensor_of_sizes_is_a_warning_only_where_no_axis_varies(tmp_path: Path, axes: str | None) -> None:
    """`torch.tensor([w, h])` in a branch only tracing takes: with every size fixed the constant
    is right for every input (a warning, exit 0); with the height dynamic the second trace shows
    another graph, and the error names the manual step (`torch.stack` of `torch.as_tensor`)."""
    path = tmp_path / "net.py"
    path.write_text(TRACE_ONLY)
    r = migrate(path, *(["--dynamic-axes", axes] if axes else []))
    (baked,) = [e for e in r["remaining"] if e["op"] == "(traced constant)"]
    assert baked["source"] == f"{path.resolve()}:8"
    if axes is None:
        assert baked["severity"] == "warning" and TRACE_ONLY_NOTE in baked["message"]
        assert r["before"]["faithful"] is True and r["exit_code"] == 0
    else:
        assert baked["severity"] == "error" and MANUAL_STEP in baked["message"] and "differs" in baked["message"]
        assert TRACE_ONLY_NOTE in baked["message"]  # judged as trace-only; the second trace decided it
        assert r["before"]["faithful"] is False and r["exit_code"] == 1


# --- the evidence rules (no export) --------------------------------------------------------------


def _facts(path: str, events: list[dict[str, Any]], lines: set[int]) -> Facts:
    return Facts.from_json({"runs": 3, "lines": {path: sorted(lines)},
                            "events": [dict(kind=k, path=path, line=n, column=1, end_line=n, end_column=9, **extra)
                                       for k, n, extra in events]})


def _traced(path: str, line: int, exporter: str = "torchscript") -> Problem:
    return Problem("baked", path, line, "(traced constant)", None, "Converting a tensor to a Python boolean",
                   "error", exporter)


def test_only_size_derived_lines_that_ran_are_retraced(tmp_path: Path) -> None:
    """Never a line where eager read a tensor's value, one whose observed size changed with the
    input sets (a dynamic axis feeds it), one that never ran, or the observer's own reads."""
    path = str((tmp_path / "m.py").resolve())
    facts = _facts(path, [("value_read", 3, {"method": "__bool__"}), ("squeeze", 4, {"sizes": [1]}),
                          ("squeeze", 4, {"sizes": [3]}), ("squeeze", 5, {"sizes": [1]})], {2, 3, 4, 5})
    problems = [_traced(path, n) for n in (2, 3, 4, 5, 6)]
    problems += [_traced(path, 7, "dynamo"), Problem("baked", path, 2, "(baked value)", None, "read", "error")]
    assert size_derived(problems, facts) == {(path, 2), (path, 5)}


def test_without_dynamic_axes_a_size_derived_bake_is_a_warning_and_a_read_stays_an_error(tmp_path: Path) -> None:
    path = str((tmp_path / "m.py").resolve())
    facts = _facts(path, [("value_read", 3, {"method": "item"})], {2, 3})
    problems = [_traced(path, 2), _traced(path, 3)]
    verdict = judge(problems, facts, None, {}, lambda _msg: None)  # no second trace: no session needed
    settled = {p.line: p for p in verdict.apply(problems)}
    assert settled[2].severity == "warning" and "no dynamic axis is declared" in settled[2].message
    assert settled[3].severity == "error" and settled[3].message == problems[1].message


# --- the structural comparison ---------------------------------------------------------------------


def _graph(folder: Path, name: str, scale: float, prefix: str, doc: str = "", extra_op: bool = False) -> str:
    const = numpy_helper.from_array(__import__("numpy").array([scale], dtype="float32"), f"{prefix}_c")
    nodes = [helper.make_node("Mul", ["x", f"{prefix}_c"], [f"{prefix}_m"], name=f"{prefix}_mul", doc_string=doc)]
    if extra_op:
        nodes.append(helper.make_node("Relu", [f"{prefix}_m"], [f"{prefix}_r"], name=f"{prefix}_relu"))
    nodes.append(helper.make_node("Neg", [f"{prefix}_r" if extra_op else f"{prefix}_m"], ["y"], name=f"{prefix}_neg"))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [const])
    path = folder / f"{name}.onnx"
    onnx.save(helper.make_model(graph), str(path))
    return str(path)


def test_graphs_that_differ_only_in_names_and_doc_strings_are_the_same(tmp_path: Path) -> None:
    a = _graph(tmp_path, "a", 2.0, "p", doc="File a.py, line 3")
    b = _graph(tmp_path, "b", 2.0, "q", doc="File b.py, line 9")
    assert first_difference(a, b) is None


@pytest.mark.parametrize("scale, extra_op, op", [(3.0, False, "Mul"), (2.0, True, "Relu")])
def test_a_constant_or_an_op_more_is_another_graph(tmp_path: Path, scale: float, extra_op: bool, op: str) -> None:
    a = _graph(tmp_path, "a", 2.0, "p")
    b = _graph(tmp_path, "b", scale, "p", extra_op=extra_op)
    diff = first_difference(a, b)
    assert diff is not None and diff.op == op


def test_on_the_rewritten_side_the_verdict_covers_only_files_the_rewrite_left_alone(tmp_path: Path) -> None:
    kept, changed = str(tmp_path / "kept.py"), str(tmp_path / "changed.py")
    extra = Problem("baked", kept, 9, "(retraced graph)", None, "differs here", "error", "torchscript")
    verdict = Retrace({(kept, 2), (changed, 2)}, True, "same graph", [extra])
    rewrite = Rewritten({changed: (b"a\nb\n", b"h\na\nb\n")})
    after = verdict.apply([_traced(kept, 2), _traced(changed, 2)], rewrite)
    assert [(p.path, p.severity) for p in after] == [(kept, "warning"), (changed, "error")]
    assert "judged on the original" in after[0].message
    before = verdict.apply([_traced(kept, 2), _traced(changed, 2)])
    assert [p.severity for p in before] == ["warning", "warning", "error"] and before[-1] is extra


CONSTANT = ("torch.tensor results are registered as constants in the trace. You can safely ignore this warning "
            "if you use this function to create tensors out of constant variables")


def _constant(path: str, line: int, message: str = CONSTANT) -> Problem:
    return Problem("baked", path, line, "(traced constant)", None, message, "error", "torchscript")


def test_a_trace_only_constant_is_judged_only_where_no_value_is_read(tmp_path: Path) -> None:
    """torchvision's `if torchvision._is_tracing(): torch.tensor(width, ...)` (boxes.py:179) never
    runs in eager: the observer cannot speak for it, but its warning says the trace built a tensor
    from Python values. A line that also converts a tensor to a number reads a value: not judged."""
    path = str((tmp_path / "m.py").resolve())
    other = str((tmp_path / "never_ran.py").resolve())
    facts = _facts(path, [], {2, 3})
    problems = [_constant(path, 5), _constant(path, 6), _traced(path, 6), _constant(path, 2), _constant(other, 4),
                _constant(path, 7, "Iterating over a tensor might cause the trace to be incorrect")]
    assert trace_only(problems, facts) == {(path, 5)}
    verdict = judge(problems, facts, None, {}, lambda _msg: None)
    settled = {(p.line, p.message[:20]): p for p in verdict.apply(problems)}
    only = settled[(5, CONSTANT[:20])]
    assert only.severity == "warning" and TRACE_ONLY_NOTE in only.message and "no dynamic axis" in only.message
    assert settled[(6, CONSTANT[:20])].severity == "error" and MANUAL_STEP in settled[(6, CONSTANT[:20])].message
    assert settled[(2, CONSTANT[:20])].severity == "warning"  # ran in eager, no value read: size-derived
    assert TRACE_ONLY_NOTE not in settled[(2, CONSTANT[:20])].message


def test_a_constant_at_a_line_whose_only_reads_are_checks_is_judged_by_the_second_trace(tmp_path: Path) -> None:
    """gluonts' `StudentT(...)` line: torch's distribution code validates the arguments (a read in a check
    that raises, located at the user's line) and copies `Chi2`'s 0.5 into a tensor there. The constant is
    judged like a size-derived one; a line that also reads a value for the graph is not."""
    from trtcodemod.migrate.locate import GUARD_NOTE
    from trtcodemod.migrate.retrace import check_only_reads

    path = str((tmp_path / "m.py").resolve())
    facts = _facts(path, [("value_read", 3, {"method": "__bool__"}), ("value_read", 4, {"method": "__bool__"}),
                          ("value_read", 5, {"method": "item"})], {3, 4, 5})
    check = GUARD_NOTE + " (the check is in the code this line calls, at torch/distributions/distribution.py:76)"

    def read(line: int, note: str) -> Problem:
        return Problem("baked", path, line, "(baked value)", None, "Python reads a tensor's value here" + note,
                       "warning" if note else "error")

    def converted(line: int, note: str) -> Problem:
        return Problem("baked", path, line, "(traced constant)", None, "Converting a tensor to a Python boolean"
                       + note, "warning" if note else "error", "torchscript")

    problems = [read(3, check), converted(3, check), _constant(path, 3),
                read(4, check), converted(4, ""), _constant(path, 4),  # a read the graph uses: not a check only
                read(5, ""), _constant(path, 5)]
    assert check_only_reads(problems) == {(path, 3)}
    assert size_derived(problems, facts) == {(path, 3)}
    # without the observed read, the exporter's check warnings alone say nothing of what eager read there
    assert check_only_reads([converted(3, check), _constant(path, 3)]) == set()


STUDENT_T = '''import torch
import torch.nn.functional as F


class Forecast(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        df, scale = 2.0 + F.softplus(x), F.softplus(x) + 0.1
        distribution = torch.distributions.StudentT(df, x, scale)
        return distribution.mean, distribution.stddev


def build():
    return Forecast()


def inputs(g: torch.Generator):
    return (torch.randn(2, 12, generator=g),)
'''


def test_a_distribution_built_from_outputs_migrates_with_its_checks_and_constants_as_warnings(tmp_path: Path) -> None:
    """torch's StudentT validates its arguments and builds Chi2(0.5 * df) from the number 0.5: both are
    located at the user's line; the second trace finds the same graph at other sizes."""
    path = tmp_path / "forecast.py"
    path.write_text(STUDENT_T)
    r = migrate(path, "--dynamic-axes", '{"x": {"0": "batch", "1": "horizon"}}')
    line = f"{path.resolve()}:8"
    at_line = [e for e in r["remaining"] if e["source"] == line]
    assert any(CONSTANT in e["message"] for e in at_line), r["remaining"]
    assert all(e["severity"] == "warning" for e in r["remaining"]), r["remaining"]
    constant = next(e for e in at_line if CONSTANT in e["message"])
    assert "does not depend on the dynamic axes" in constant["message"]
    assert r["exit_code"] == 0 and r["before"]["faithful"] is True


def test_a_torch_tensor_constant_that_stays_an_error_names_the_manual_step(tmp_path: Path) -> None:
    path = str((tmp_path / "m.py").resolve())
    verdict = Retrace({(path, 3)}, False, "the graph traced at x[2] (height) 8 and 17 differs")
    # Deformable DETR's `torch.as_tensor(spatial_shapes_list)` is such a list too; a value converted
    # into a Python number is not a constructor's constant.
    kept = verdict.apply([_constant(path, 3), _constant(path, 4, "torch.as_tensor results are registered as "
                                                                  "constants in the trace"), _traced(path, 5)])
    assert [(p.severity, MANUAL_STEP in p.message) for p in kept] == [("error", True), ("error", True),
                                                                       ("error", False)]
    assert "torch.stack([torch.as_tensor(w), torch.as_tensor(h)])" in kept[0].message


def test_no_dynamic_axis_covers_the_lines_a_rewrite_left_as_they_were_even_moved(tmp_path: Path) -> None:
    """SSDlite: TRT704 rewrites anchor_utils.py:227 and inserts nothing; RT-DETR's fix sits in the
    same file as its size checks. "Every size is fixed" is about the inputs, so it holds at every
    line the rewrite did not write, wherever a helper inserted above moved it; a line the
    rewrite wrote is not the code that was judged."""
    path = str((tmp_path / "m.py").resolve())
    old = b"import torch\ndef f(x):\n    n = len(x)\n    t = torch.tensor([x.shape[1]])\n    return t * n\n"
    new = b"import torch\ndef _trt_helper():\n    pass\ndef f(x):\n    n = x.shape[0]\n" \
          b"    t = torch.tensor([x.shape[1]])\n    return t * n\n"
    fixed = Retrace({(path, 3), (path, 4)}, True, "no dynamic axis is declared", sizes_fixed=True)
    # The verifier reports the rewritten model's bakes at the user's lines (``LineMap``): the copied
    # `t = torch.tensor(...)` (rewritten line 6) at 4, the rewritten `n = x.shape[0]` at the 3 it replaced.
    after = fixed.apply([_constant(path, 4), _constant(path, 3)], Rewritten({path: (old, new)}))
    assert [(p.line, p.severity) for p in after] == [(4, "warning"), (3, "error")]
    assert "the rewrite leaves this line as it was" in after[0].message
    # A verdict on the original's graph says nothing of a file the rewrite changed.
    graph = Retrace({(path, 3), (path, 4)}, True, "same graph", sizes_fixed=False)
    assert [p.severity for p in graph.apply([_constant(path, 4)], Rewritten({path: (old, new)}))] == ["error"]



#: A pad done only when the height asks for it (TRT717), and monai's SwinUNETR's channel count
#: kept constant on purpose for `F.layer_norm` (TRT712's fix of it breaks the export).
PADDED = '''import torch
import torch.nn.functional as F


class Net(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = int(x.shape[1])
        h = x.shape[2]
        if h % 4 != 0:
            x = F.pad(x, (0, 4 - h % 4))
        return F.layer_norm(x.transpose(1, 2), [c])


def build() -> Net:
    return Net()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(2, 3, 8, generator=g),)
'''


def test_a_steady_bake_is_not_tried_while_the_graph_changes_elsewhere(tmp_path: Path) -> None:
    """The original's graph changes with the height (the pad done only when needed), so the two
    traces differ; the channel count `int(x.shape[1])` of the static axis 1 is 3 in both, so its
    line is a warning of its own and TRT712's candidate is not tried (it was, and was reverted for
    breaking the export, before the traces' numbers were compared). TRT717 pads every time."""
    path = tmp_path / "net.py"
    path.write_text(PADDED)
    r = migrate(path, "--dynamic-axes", AXES)
    assert r["exit_code"] == 0, r["remaining"]
    assert r["retrace"]["same"] is False and r["retrace"]["first_difference"]["source"].endswith(":8")
    assert r["retrace"]["steady_lines"] == 1
    assert [a["rule"] for a in r["applied"]] == ["TRT717"] and r["reverted"] == []
    [held] = [e for e in r["info"] if e["rule"] == "TRT712"]
    assert held["line"] == 7 and "a warning only" in held["reason"]
    assert r["after"]["faithful"] is True and r["equivalent"] is True


def test_the_rewritten_models_second_trace_also_judges_findings_left_without_a_fix() -> None:
    """YOLOE's `self.nc = int(x[-1].shape[1])` (TRT712, no automatic fix): the line is in the
    rewritten model as it was, as a reverted fix's is, so that model's second trace is asked about
    it and its verdict sets the entry's severity, with the note that says why."""
    from trtcodemod.findings import Safety
    from trtcodemod.migrate.plan import REMAINS, Decision, Plan
    from trtcodemod.migrate.run import _bakes_as_written, _judged
    from trtcodemod.rules import Finding

    path = "/zoo/head.py"
    baked = _constant(path, 14)
    finding = Finding("TRT712", "int-of-size", "no automatic fix", path, 14, 8, 14, 30, Safety.NONE)
    hostile = Finding("TRT705", "nonzero", "no automatic fix", path, 20, 4, 20, 20, Safety.NONE)
    plan = Plan()
    left = Decision(finding, REMAINS, reason="value baked in at line 14; no automatic fix", problems=[baked])
    other = Decision(hostile, REMAINS, reason="NonZero node", problems=[
        Problem("hostile", path, 20, "NonZero", "TRT705", "NonZero", "error")])
    plan.decisions = {left.key: left, other.key: other}
    assert _bakes_as_written(plan) == [left]  # only a finding whose problems are all bakes
    same = Retrace({(path, 14)}, True, "the rewritten model's graph traced at x (batch) 2 and 5 is the same")
    problems, note = _judged([baked], same)
    assert [p.severity for p in problems] == ["warning"] and note == f"; {same.note}"
    assert _judged([baked], None) == ([baked], "")
    assert _judged([baked], Retrace())[1] == ""  # no verdict: the severity and the message stay


# --- the numbers a trace baked, line by line ---------------------------------------------------

STEADY_MODEL = '''import torch


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("classes", torch.linspace(-1.0, 1.0, 12).reshape(1, 4, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b = x.shape[0]
        feats = [x, self.classes]
        if feats[-1].shape[0] != b:
            feats[-1] = feats[-1].expand(b, -1, -1)
        nc = int(feats[0].shape[1])
        scores = x.mean(2, keepdim=True) * feats[-1].sum(2, keepdim=True)
        return scores.reshape(b, nc, -1)


def build() -> Net:
    return Net()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(1, 4, 8, generator=g),)
'''


def test_a_number_baked_the_same_at_both_sizes_is_a_warning_where_the_graph_differs_elsewhere(tmp_path: Path) -> None:
    """YOLOE's head (ultralytics 8.4.190 `head.py:1314`): the class count `int(feats[-1].shape[1])`
    is baked, and a batch shortcut (`tasks.py:1487`) makes the graph traced at batch 3 differ. The
    number the trace baked at line 14 is 4 at both sizes: that line is a warning with its own note
    (read here from the input's static channel axis: of the buffer, as YOLOE reads it, the trace shows
    the value reaches no input at all, a warning of another kind, `tests/verify/test_input_free.py`);
    the shortcut's comparison (a bool, which two points say too little about) keeps its verdict."""
    path = tmp_path / "net.py"
    path.write_text(STEADY_MODEL)
    # The shortcut's `expand` holds at every batch, so TRT390 (its branch taken while tracing) would migrate the
    # model: left out, the verdicts are the subject.
    r = migrate(path, "--dynamic-axes", '{"x": {"0": "batch", "2": "width"}}', "--ignore", "TRT390,TRT391")
    assert r["retrace"]["same"] is False and r["retrace"]["steady_lines"] == 1
    by_line = {e["source"]: e for e in r["remaining"]}
    steady = by_line[f"{path.resolve()}:14"]
    assert steady["severity"] == "warning", steady
    assert "the number baked here is the same in the graph traced at x[0] (batch) 1 and 3" in steady["message"]
    shortcut = by_line[f"{path.resolve()}:12"]
    assert shortcut["severity"] == "error" and "differs" in shortcut["message"]
    assert r["exit_code"] == 1


def test_steady_lines_need_the_same_numbers_in_both_traces() -> None:
    from trtcodemod.migrate.retrace import steady_lines

    a, b, c, d, e = (("/m.py", n) for n in range(1, 6))
    first = {a: [3], b: [128], c: [True], d: [[2, 3]], e: [4]}
    second = {a: [3], b: [257], c: [True], d: [[2, 3]]}
    # The same class count and list are steady; a height is not; a bool says too little; a line the
    # second trace did not convert (another path) is not known to be steady.
    assert steady_lines({a, b, c, d, e}, first, second) == {a, d}
    assert steady_lines({a}, {}, {}) == set()


def test_the_export_keeps_the_numbers_each_tracer_warning_baked(tmp_path: Path) -> None:
    import torch

    from trtcodemod.verify.export import export_model

    class Net(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = int(x.shape[2])
            if x.shape[1] > 2:
                x = x * 2.0
            return x.reshape(x.shape[0], -1)[:, :h]

    before = dict(torch.Tensor.__dict__)
    result = export_model(Net(), (torch.randn(1, 3, 8),), tmp_path / "net.onnx", exporter="torchscript",
                          input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "b", 2: "h"}}, opset=17,
                          user_roots=(str(Path(__file__).parent),))
    assert result.error is None
    numbers = {w["line"] - Net.forward.__code__.co_firstlineno: w.get("values") for w in result.warnings
               if w["category"] == "TracerWarning"}
    # The comparison's bool is kept as the two numbers it compared (a bool says too little).
    assert numbers == {1: [8], 2: [[3, 2]]}
    assert dict(torch.Tensor.__dict__) == before  # the conversions are torch's own again
    failed = export_model(Net(), (torch.randn(1, 3),), tmp_path / "bad.onnx", exporter="torchscript",
                          input_names=["x"], output_names=["y"], dynamic_axes={}, opset=17)
    assert failed.error and dict(torch.Tensor.__dict__) == before


DATA_SIZED = '''import torch


class Net(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        kept = x[x > 0]
        total = 0
        for count in [b.shape[0] for b in (kept,)]:
            total += count
        if total > 6:
            return kept.sum(0, keepdim=True) * 2.0
        return kept.sum(0, keepdim=True)


def build() -> Net:
    return Net()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(2, 8, generator=g),)
'''


def test_with_no_dynamic_axis_a_size_the_data_decides_stays_an_error(tmp_path: Path) -> None:
    """torchvision's Faster R-CNN v2 (fixed size, eighth zoo): `if boxes.numel() == 0` after the
    score threshold reads a row count the data decides. No axis is dynamic, yet the graph differs
    from the model on an input set of the traced size (8 positives traced, 4 in set 2): "every size
    is fixed" does not hold there, so the line stays an error, named, instead of a warning."""
    path = tmp_path / "net.py"
    path.write_text(DATA_SIZED)
    r = migrate(path)
    assert r["before"]["faithful"] is False
    entry = next(e for e in r["remaining"] if e["source"] == f"{path.resolve()}:10")
    assert entry["severity"] == "error", entry
    assert "the graph differs from the model on input sets of the traced sizes" in entry["message"]
    assert r["exit_code"] == 1


KILLED_WHEN_STRETCHED = '''import os
import signal

import torch


class Net(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[2] > 12:
            os.kill(os.getpid(), signal.SIGKILL)  # what the kernel does to a 3-D attention at twice the size
        return x * 2.0


def build() -> Net:
    return Net()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(2, 3, 8, generator=g),)
'''


def test_a_model_killed_on_the_stretched_set_is_still_observed(tmp_path: Path) -> None:
    """monai's 3-D AutoencoderKL (eleventh zoo): its attention over every voxel needs ~8 times
    the memory at the stretched set (every dynamic axis at 2n + 1), and the kernel killed the
    observer: `migrate` stopped with exit 2 ("could not be observed"). The facts of the input sets
    are kept before the stretched set runs; the kill is named among the run errors."""
    path = tmp_path / "net.py"
    path.write_text(KILLED_WHEN_STRETCHED)
    r = migrate(path, "--dynamic-axes", '{"x": {"2": "width"}}')
    assert r["exit_code"] != 2 and r["error"] is None, r["error"]
    assert r["facts"]["runs"] == 4  # the three larger-or-equal sets and the smaller one
    assert any("killed running it" in e for e in r["facts"]["run_errors"]), r["facts"]["run_errors"]
    assert r["before"]["exported"] is True


def test_the_verdict_in_a_bakes_message_is_found_after_the_exporters_words() -> None:
    """A rule that names a bake (TRT713's decision on a size) replaces the exporter's words in the
    report; the second trace's verdict, appended after them, is what ``verdict_of`` keeps."""
    from trtcodemod.migrate.retrace import verdict_of

    warning = "Converting a tensor to a Python boolean might cause the trace to be incorrect."
    same = "; same graph at x[2] (height) 8 and 17: the value does not depend on the dynamic axes"
    differs = "; the graph traced at x[2] (height) 8 and 17 differs (first at a Constant node): a value baked"
    assert verdict_of(warning + same) == same
    assert verdict_of(warning + differs) == differs
    assert verdict_of(warning) == "" and verdict_of("") == ""
    assert verdict_of(warning + "; it stands in a check that raises" + same) == same


# --- constants computed in the graph are constants ----------------------------------------------


def _scaled(folder: Path, name: str, nodes_for_scale: list[Any], initializers: list[Any], scale: str,
            opset: int = 17) -> str:
    """``y = x * scale``, where ``scale`` is an initializer or computed by ``nodes_for_scale``."""
    nodes = [*nodes_for_scale, helper.make_node("Mul", ["x", scale], ["y"], name="mul")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializers)
    path = folder / f"{name}.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), str(path))
    return str(path)


def _built_scale(first: float) -> list[Any]:
    """``scale = ones(4); scale[0] = first`` as an export writes it: ConstantOfShape, ScatterND."""
    np = __import__("numpy")
    return [
        helper.make_node("Constant", [], ["shape"], value=numpy_helper.from_array(np.array([4], dtype=np.int64))),
        helper.make_node("ConstantOfShape", ["shape"], ["ones"],
                         value=numpy_helper.from_array(np.array([1.0], dtype=np.float32))),
        helper.make_node("Constant", [], ["index"], value=numpy_helper.from_array(np.array([[0]], dtype=np.int64))),
        helper.make_node("Constant", [], ["first"], value_floats=[first]),
        helper.make_node("ScatterND", ["ones", "index", "first"], ["scale"]),
    ]


def test_a_constant_built_in_one_graph_and_folded_in_the_other_is_the_same_graph(tmp_path: Path) -> None:
    np = __import__("numpy")
    held = numpy_helper.from_array(np.array([0.5, 1.0, 1.0, 1.0], dtype=np.float32), "held")
    a = _scaled(tmp_path, "a", [], [held], "held")
    b = _scaled(tmp_path, "b", _built_scale(0.5), [], "scale")
    assert first_difference(a, b) is None
    assert first_difference(b, a) is None


def test_a_constant_built_to_another_value_is_another_graph_at_the_node_that_reads_it(tmp_path: Path) -> None:
    np = __import__("numpy")
    held = numpy_helper.from_array(np.array([0.5, 1.0, 1.0, 1.0], dtype=np.float32), "held")
    a = _scaled(tmp_path, "a", [], [held], "held")
    b = _scaled(tmp_path, "b", _built_scale(0.25), [], "scale")
    diff = first_difference(a, b)
    assert diff is not None and diff.op == "Mul"


def test_a_random_node_of_constants_is_never_a_constant(tmp_path: Path) -> None:
    """RandomUniformLike of a constant gives another value on every run: two such graphs compare as
    nodes (the same), and one of them against a held value of one draw differs."""
    np = __import__("numpy")
    draw = [helper.make_node("Constant", [], ["zeros"], value=numpy_helper.from_array(np.zeros(4, np.float32))),
            helper.make_node("RandomUniformLike", ["zeros"], ["scale"], seed=1.0)]
    a = _scaled(tmp_path, "a", draw, [], "scale")
    b = _scaled(tmp_path, "b", list(draw), [], "scale")
    assert first_difference(a, b) is None
    drawn = __import__("onnx.reference", fromlist=["ReferenceEvaluator"]).ReferenceEvaluator(
        onnx.load(a)).run(None, {"x": np.ones((1, 4), np.float32)})[0][0]
    held = _scaled(tmp_path, "c", [], [numpy_helper.from_array(drawn.astype(np.float32), "held")], "held")
    diff = first_difference(a, held)
    assert diff is not None and diff.op == "RandomUniformLike"


CACHED = '''import torch

_CACHE = {}


def basis(dtype):
    if dtype not in _CACHE:
        scale = torch.ones(4, dtype=dtype)
        scale[0] = 0.5
        _CACHE[dtype] = torch.outer(scale, scale)
    return _CACHE[dtype]


class Net(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[1] == 4:
            x = x * 2.0
        return x @ basis(x.dtype)


def build() -> Net:
    return Net()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(2, 4, 4, generator=g),)
'''


def test_a_module_level_cache_does_not_make_the_second_trace_another_graph(tmp_path: Path) -> None:
    """kornia's JPEG codec caches its DCT basis: a trace after an eager call holds it as one constant,
    a trace in a fresh process builds it from ones and an index assignment. Both compute the same
    thing, so the static axis's comparison at line 16 is a warning and the model is migrated."""
    path = tmp_path / "net.py"
    path.write_text(CACHED)
    # TRT713 left out: its select of both branches would be tried on the static axis's bake.
    r = migrate(path, "--dynamic-axes", '{"x": {"0": "batch"}}', "--ignore", "TRT713")
    assert r["retrace"]["same"] is True, r["retrace"]
    assert [(e["source"], e["severity"]) for e in r["remaining"]] == [(f"{path.resolve()}:16", "warning")]
    assert r["exit_code"] == 0


# --- a Python loop whose count follows a dynamic axis (unrolled.py) ----------------------------

RECURRENT = '''import torch


class Step(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(2)])

    def forward(self, state: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            state = torch.tanh(layer(state))
        return state


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.step = Step()
        self.head = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = 2.0 if x.shape[2] > 1 else 1.0
        for layer in self.head:
            x = layer(x) * scale
        state = x[:, 0]
        outs = []
        for t in range(x.shape[1]):
            if t == 0:
                state = state * 0.5
            else:
                state = self.step(state) + x[:, t]
            outs.append(state)
        return torch.stack(outs, 1)


def build() -> Net:
    torch.manual_seed(0)
    return Net().eval()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(2, 3, 4, generator=g),)
'''

#: A branch taken at one size only, inside a loop of a fixed count: not the loop's count.
BRANCHED = '''import torch


class Net(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for k in range(3):
            x = x * 2.0
            if x.shape[1] > 4:
                x = x - 1.0
            x = x + 1.0
        return x
'''


def _export_at(module: torch.nn.Module, shape: tuple[int, ...], path: Path) -> str:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # verbose: each node keeps its stack in its doc string, as migrate's exports do
        torch.onnx.export(module, (torch.randn(*shape),), str(path), dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 1: "frames"}}, verbose=True)
    return str(path)


def _module(source: str, folder: Path) -> Any:
    import importlib.util

    path = folder / "loops_model.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"loops_model_{abs(hash(str(folder)))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_the_loop_over_frames_is_found_and_loops_it_runs_are_not(tmp_path: Path) -> None:
    from trtcodemod.migrate.unrolled import unrolled_loops

    model = _module(RECURRENT, tmp_path).build()
    a = _export_at(model, (2, 3, 4), tmp_path / "a.onnx")
    b = _export_at(model, (5, 7, 4), tmp_path / "b.onnx")
    loops = unrolled_loops(a, b)
    # The frames loop only: the head's loop runs 3 times at every size, and Step's loop (another
    # function, called from the frames loop's body) repeats with the frames loop.
    assert [(Path(u.path).name, u.line, u.header) for u in loops] == [
        ("loops_model.py", 27, "for t in range(x.shape[1])")]
    x, y = loops[0].counts
    assert x < y
    assert unrolled_loops(a, a) == []


def test_a_branch_taken_at_one_size_inside_a_fixed_loop_is_not_a_loop_count(tmp_path: Path) -> None:
    from trtcodemod.migrate.unrolled import unrolled_loops

    model = _module(BRANCHED, tmp_path).Net()
    a = _export_at(model, (2, 3), tmp_path / "a.onnx")
    b = _export_at(model, (2, 9), tmp_path / "b.onnx")
    assert first_difference(a, b) is not None  # the graphs differ: the branch
    assert unrolled_loops(a, b) == []


#: A loop over a fixed list of engines whose shared attention caches a mask for the last size (shaped like
#: deaotpy 1.11.0's ``DeAOTInferEngine.add_reference_frame``, aot/networks/engines/deaot_engine.py:86, over
#: ``self.aot_engines``, reaching ``LocalGatedPropagation``'s ``qk_mask`` cache, aot/networks/layers/attention.py:797):
#: at a new size the cache misses and the mask is built in the graph; the loop runs once at both sizes.
ENGINES = '''import torch


class Attention(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)
        self.mask = None
        self.size = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.shape[1]
        if self.mask is not None and self.size == h:
            mask = self.mask
        else:
            mask = torch.ones(h, 4).cumsum(0) / h
            self.mask, self.size = mask, h
        return self.proj(x) * mask


class Engine(torch.nn.Module):
    def __init__(self, attention: Attention) -> None:
        super().__init__()
        self.attention = attention
        self.scale = torch.nn.Linear(4, 4)

    def add_reference_frame(self, x: torch.Tensor) -> torch.Tensor:
        y = self.attention(x)
        y = torch.tanh(self.scale(y))
        y = y * 2.0 + 1.0
        return torch.relu(y) - x


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        attention = Attention()
        self.engines = torch.nn.ModuleList([Engine(attention)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for engine in self.engines:
            x = engine.add_reference_frame(x)
        return x
'''


def test_a_fixed_loop_whose_callee_takes_another_branch_at_a_new_size_is_not_unrolled(tmp_path: Path) -> None:
    """The loop's body line makes more nodes at the new size (the cache's miss builds the mask), but the lines it
    runs at both sizes keep their counts: another branch inside, not another number of iterations."""
    from trtcodemod.migrate.unrolled import unrolled_loops

    model = _module(ENGINES, tmp_path).Net().eval()
    with torch.no_grad():
        model(torch.randn(2, 3, 4))  # the cache holds the mask for 3 rows
    a = _export_at(model, (2, 3, 4), tmp_path / "a.onnx")  # a hit: the mask is a constant
    b = _export_at(model, (2, 5, 4), tmp_path / "b.onnx")  # a miss: the mask is built in the graph
    assert first_difference(a, b) is not None
    assert unrolled_loops(a, b) == []


def test_migrate_names_the_loop_over_a_dynamic_axis_with_its_manual_step(tmp_path: Path) -> None:
    path = tmp_path / "net.py"
    path.write_text(RECURRENT)
    r = migrate(path, "--dynamic-axes", '{"x": {"0": "batch", "1": "frames"}}')
    assert r["exit_code"] == 1
    [loop] = [e for e in r["remaining"] if e["op"] == "(unrolled loop)"]
    assert loop["source"] == f"{path.resolve()}:27" and loop["severity"] == "error"
    assert "`for t in range(x.shape[1])` repeats with the dynamic axes" in loop["message"]
    assert "declare the axis static" in loop["manual_step"] and "torch.jit.script" in loop["manual_step"]
    assert r["retrace"]["unrolled_loops"] == [f"{path.resolve()}:27"]


SILENT_LOOP = '''import torch


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cell = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        state = x[:, 0]
        outs = []
        for t in range(x.shape[1]):
            state = torch.tanh(self.cell(state)) + x[:, t]
            outs.append(state)
        return torch.stack(outs, 1)


def build() -> Net:
    torch.manual_seed(0)
    return Net().eval()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(2, 3, 4, generator=g),)
'''


def test_a_loop_over_a_dynamic_axis_with_no_warning_anywhere_is_still_named(tmp_path: Path) -> None:
    """No TracerWarning, so no bake asks for a second trace; the graph differs from its model at
    other frame counts and nothing is located: the second trace is made for the loops."""
    path = tmp_path / "net.py"
    path.write_text(SILENT_LOOP)
    r = migrate(path, "--dynamic-axes", '{"x": {"0": "batch", "1": "frames"}}')
    assert r["exit_code"] == 1 and r["before"]["faithful"] is False
    # The smaller input set (one frame) also makes ONNX Runtime refuse the Gather of `x[:, t]` past its end: that
    # no longer hides the loop from the second trace, and, in the body of the loop found unrolled, it is where the
    # loop fails, not a problem of its own: the loop is named once.
    assert sorted((e["source"], e["op"], e["severity"]) for e in r["remaining"]) == [
        (f"{path.resolve()}:12", "(unrolled loop)", "error")]
    assert r["retrace"]["same"] is False and r["retrace"]["lines"] == 0
    # With the frames axis static there is nothing to name: the loop's count is the only one.
    r = migrate(path, "--dynamic-axes", '{"x": {"0": "batch"}}')
    assert r["exit_code"] == 0, r["remaining"]


ROLLED = '''import torch


def roll_1d(x: torch.Tensor, shift: int, dim: int) -> torch.Tensor:
    shift = shift % x.size(dim)
    if shift == 0:
        return x
    left = x.narrow(dim, 0, x.size(dim) - shift)
    right = x.narrow(dim, x.size(dim) - shift, shift)
    return torch.cat((right, left), dim=dim)


class Net(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.exp2(roll_1d(x, x.shape[2] // 2, 2))


def build() -> Net:
    return Net()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(2, 3, 8, generator=g),)
'''


def test_where_the_original_does_not_export_the_rewritten_models_second_trace_judges_the_bakes_left(
        tmp_path: Path) -> None:
    """MONAI's `roll_1d` (`if shift == 0: return x`, a size test no dynamic size here decides
    otherwise) beside a construct that stops the export (`torch.exp2`, TRT708): the original gives
    no second trace to judge the bake, so the rewritten model's own second trace does; its graph is
    the same at other sizes, so the bake is a warning and migrate ends at 0."""
    path = tmp_path / "net.py"
    path.write_text(ROLLED)
    r = migrate(path, "--dynamic-axes", AXES)
    assert r["before"]["exported"] is False and r["retrace"].get("same") is None
    assert [a["rule"] for a in r["applied"]] == ["TRT708"]
    assert r["retrace_after"]["same"] is True, r.get("retrace_after")
    assert r["exit_code"] == 0, r["remaining"]
    [guard] = [e for e in r["remaining"] if e["source"].endswith(":6")]
    assert guard["severity"] == "warning" and "does not depend on the dynamic axes" in guard["message"]


def test_a_traced_comparison_is_kept_as_the_numbers_it_compared(tmp_path: Path) -> None:
    """`max(q / k, 1.0)` on sizes (transformers SAM's `get_rel_pos`), `h > w`, `not n == 1`: each
    bool the trace baked is kept as the two numbers compared, read with the trace paused (no
    warning of its own, no constant recorded); a bool of anything else stays a bool."""
    import torch

    from trtcodemod.verify.export import export_model

    class Net(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            scale = max(x.shape[2] / x.shape[1], 1.0)
            if x.shape[2] > x.shape[0]:
                x = x * scale
            flag = bool(torch.ones((), dtype=torch.bool) & (x.shape[1] < 5))
            if not x.shape[0] == 1:
                x = x + 1.0
            return x * float(flag)

    before = dict(torch.Tensor.__dict__)
    result = export_model(Net(), (torch.randn(2, 4, 8),), tmp_path / "net.onnx", exporter="torchscript",
                          input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "b"}}, opset=17,
                          user_roots=(str(Path(__file__).parent),))
    assert result.error is None
    first = Net.forward.__code__.co_firstlineno
    numbers = {w["line"] - first: w.get("values") for w in result.warnings if w["category"] == "TracerWarning"}
    assert numbers[1] == [[2.0, 1.0]]
    assert numbers[2] == [[8, 2]]
    assert numbers[4] == [True]  # `&` of a bool tensor: not a comparison of two numbers
    assert numbers[5] == [[2, 1]]
    assert dict(torch.Tensor.__dict__) == before  # the comparisons and conversions are torch's own again


#: transformers SAM's relative positions (`get_rel_pos`: `max(k_size / q_size, 1.0)` on a static
#: token grid) beside a batch shortcut: the graph traced at batch 3 differs, but not at the scale.
STATIC_COMPARISON = '''import torch


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("classes", torch.linspace(-1.0, 1.0, 12).reshape(1, 4, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b = x.shape[0]
        scale = max(x.shape[2] / x.shape[1], 1.0)
        feats = self.classes
        if feats.shape[0] != b:
            feats = feats.expand(b, -1, -1)
        return x.mean(2, keepdim=True) * scale + feats.sum(2, keepdim=True)


def build() -> Net:
    return Net()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(1, 4, 8, generator=g),)
'''


def test_a_comparison_of_static_sizes_is_a_warning_where_the_graph_differs_elsewhere(tmp_path: Path) -> None:
    """Only the batch is dynamic. The scale's comparison compares 8 / 4 with 1.0 in both traces:
    a warning with its own note, and TRT712's candidate is not tried; the batch test compares
    1 with 1, then 1 with 3: the line that changes the graph keeps its error."""
    path = tmp_path / "net.py"
    path.write_text(STATIC_COMPARISON)
    r = migrate(path, "--dynamic-axes", '{"x": {"0": "batch"}}', "--select", "TRT712,TRT713")
    assert r["retrace"]["same"] is False and r["retrace"]["steady_lines"] == 1
    by_line = {e["source"]: e for e in r["remaining"]}
    steady = by_line[f"{path.resolve()}:11"]
    assert steady["severity"] == "warning", steady
    assert "the number baked here is the same in the graph traced at x[0] (batch) 1 and 3" in steady["message"]
    assert not [a for a in r["applied"] + r["reverted"] if a["rule"] == "TRT712"], r
    batch = by_line[f"{path.resolve()}:13"]
    assert batch["severity"] == "error" and "differs" in batch["message"]
    assert r["exit_code"] == 1


def test_a_comparison_inside_vmap_is_not_read() -> None:
    """``create_block_mask`` runs its mask function under ``vmap``, where reading a value raises:
    the recorder of compared numbers leaves such a tensor alone instead of raising an error the
    model's own code never would (ViTok's export failed at the mask function's line, not at
    ``create_block_mask``'s)."""
    from trtcodemod.verify.export import _compared_numbers

    seen = []

    def step(t: torch.Tensor) -> torch.Tensor:
        seen.append(_compared_numbers(t, 1))
        return t + 1

    torch.vmap(step)(torch.arange(3.0))
    assert seen == [None]
    assert _compared_numbers(torch.tensor(2.5), 1) == [2.5, 1]


def test_a_len_of_a_tensor_is_a_size_read_and_its_line_is_retraced(tmp_path: Path) -> None:
    """`if len(d1) == 0:` (kornia's `match_mnn`): the observer records `Tensor.__len__`, which reads
    `shape[0]`, not the data, so the line is judged like any size (a second trace), not kept an error
    as a value read; a `__bool__` at the same line still is one."""
    path = str((tmp_path / "m.py").resolve())
    facts = _facts(path, [("value_read", 3, {"method": "__len__"}), ("value_read", 4, {"method": "__bool__"})],
                   {3, 4})
    assert size_derived([_traced(path, 3), _traced(path, 4)], facts) == {(path, 3)}
    assert [(e["line"], e["method"]) for e in facts.value_reads()] == [(4, "__bool__")]


# --- the original's loop stays named beside a rewrite in its file (zoo 20: tv_box_postprocess) -----------


def test_on_an_unfaithful_rewritten_side_the_originals_extras_stand_where_the_rewrite_left_them(tmp_path: Path) -> None:
    """No second trace judged the rewritten model and its graph is still not faithful: the original's
    unrolled loop (a line the rewrite left as it was, moved down by a helper inserted above) stands at the
    user's line, not at its place in the rewritten file (zoo 30's ty3_yolov3_nms said evaluate.py:297 for
    the user's 238); one at a line the rewrite changed does not; without ``carry`` neither does."""
    path = str(tmp_path / "net.py")
    old = b"import torch\nfor i in range(b):\n    y = v[m]\n"
    new = b"import torch\ndef _helper():\n    pass\nfor i in range(b):\n    y = _helper(v, m)\n"
    loop = Problem("baked", path, 2, "(unrolled loop)", None, "`for i in range(b)` repeats", "error", "torchscript")
    changed = Problem("baked", path, 3, "(retraced graph)", None, "differs here", "error", "torchscript")
    verdict = Retrace(set(), False, "the graph differs", [loop, changed])
    rewrite = Rewritten({path: (old, new)})
    carried = verdict.apply([], rewrite, carry=True)
    assert [(p.path, p.line, p.op, p.severity) for p in carried] == [(path, 2, "(unrolled loop)", "error")]
    assert carried[0].message == loop.message
    assert verdict.apply([], rewrite) == []
    # A problem already located at that (user's) line and op is not listed twice.
    there = Problem("baked", path, 2, "(unrolled loop)", None, "located", "error", "torchscript")
    assert verdict.apply([there], rewrite, carry=True) == [there]


BATCH_LOOP = '''import torch


class Net(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = []
        for i in range(x.shape[0]):
            v = x[i].flatten() * 2.0
            v = v[v > 0.5]
            rows.append(v.sum().reshape(1))
        return torch.cat(rows)


def build() -> Net:
    return Net().eval()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.rand(2, 3, 8, generator=g),)
'''


def test_a_loop_over_the_batch_stays_named_beside_a_mask_rewritten_in_its_body(tmp_path: Path) -> None:
    """torchvision post-processing per image (`for i in range(b):`) with a boolean mask in the loop's body:
    TRT201 rewrites the mask (a helper inserted above moves the loop down), the rewritten graph still holds
    the example's batch, and the loop is named with its manual step at the user's line, as every problem of
    the report is: not at its place in the rewritten file (zoo 30's ty3_yolov3_nms said evaluate.py:297 for
    the `for` of the user's line 238)."""
    path = tmp_path / "net.py"
    path.write_text(BATCH_LOOP)
    r = migrate(path, "--dynamic-axes", '{"x": {"0": "batch"}}')
    assert r["exit_code"] == 1 and r["after"]["faithful"] is False
    assert any(a["rule"] == "TRT201" for a in r["applied"]), r["applied"]
    assert r["retrace"]["unrolled_loops"] == [f"{path.resolve()}:7"]
    [loop] = [e for e in r["remaining"] if e["op"] == "(unrolled loop)"]
    assert loop["severity"] == "error" and "`for i in range(x.shape[0])` repeats" in loop["message"]
    assert "declare the axis static" in loop["manual_step"]
    # The helper moved the `for` down in the rewritten file (the diff's new side, hunk by hunk); the report
    # keeps the user's line.
    assert loop["source"] == f"{path}:7", loop["source"]
    new_line, loop_at = 0, None
    for text in r["diff"].splitlines():
        if text.startswith("@@"):
            new_line = int(text.split("+")[1].split(",")[0].split(" ")[0]) - 1
        elif text.startswith((" ", "+")) and not text.startswith("+++"):
            new_line += 1
            if text[1:].strip() == "for i in range(x.shape[0]):":
                loop_at = new_line
    assert loop_at is not None and loop_at > 7


#: One tensor per image of a dynamic batch, as torchvision's MultiScaleRoIAlign takes its boxes: no `for`
#: statement, yet the list and the comprehension over it repeat with the batch. The constant of a static
#: size (a TracerWarning) asks for the second trace.
UNBOUND = '''import torch


def per_image(rows: list[torch.Tensor]) -> torch.Tensor:
    return torch.cat([r.sum(0, keepdim=True) for r in rows])


class Net(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * torch.tensor(x.shape[2], dtype=x.dtype)
        return per_image(list(y.unbind(0))) + 1.0


def build() -> Net:
    return Net().eval()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.rand(2, 3, 8, generator=g),)
'''


def test_a_list_of_one_tensor_per_image_is_named_as_repeating_with_the_batch(tmp_path: Path) -> None:
    """zoo 20 tv_multiscale_roi_align: `list(boxes.unbind(0))` over a dynamic batch. The first differing
    node's line made another number of nodes in the second graph: it is named as repeating, with the
    unrolled loop's manual step (not the step for a number baked from a size)."""
    path = tmp_path / "net.py"
    path.write_text(UNBOUND)
    r = migrate(path, "--dynamic-axes", '{"x": {"0": "batch"}}')
    assert r["exit_code"] == 1 and r["before"]["faithful"] is False
    [entry] = [e for e in r["remaining"] if e["op"] == "(retraced graph)"]
    assert entry["source"] == f"{path.resolve()}:11" and entry["severity"] == "error"
    assert "repeats with the dynamic axes, as an unrolled loop does" in entry["message"]
    import re

    first, second = map(int, re.search(r"this line made (\d+) node\(s\) in the first graph and (\d+) in the second",
                                       entry["message"]).groups())
    assert 0 < first < second  # batch 2, then 5: more rows, more nodes
    assert "declare the axis static" in entry["manual_step"] and "torch.jit.script" in entry["manual_step"]
    # A size that changes a constant and not the number of nodes repeats nothing.
    from trtcodemod.migrate.unrolled import repeated_at

    model = _module(UNBOUND, tmp_path).build()
    a = _export_at(model, (2, 3, 8), tmp_path / "a.onnx")
    wider = _export_at(model, (2, 3, 17), tmp_path / "b.onnx")
    more = _export_at(model, (5, 3, 8), tmp_path / "c.onnx")
    where = (str(tmp_path / "loops_model.py"), 11)
    assert first_difference(a, wider) is not None and repeated_at(a, wider, where) is None
    x, y = repeated_at(a, more, where)
    assert 0 < x < y


def test_the_rewritten_models_same_graph_also_answers_what_the_originals_second_trace_located() -> None:
    """Real-CUGAN x3 (ccrestoration 0.2.2 upcunet_arch.py:743-752): `if tile_mode == 0:` (TRT101, no fix)
    holds the crop's guard, whose TracerWarning is a bake, and the crop `x[:, :, : h0 * 3, : w0 * 3]`,
    the first node the original's graph differed at (a "(retraced graph)" problem, no warning of its
    own). TRT717 crops every time; the rewritten model's graph is the same at both sizes, and that
    verdict covers the differing node's line and the unrolled loops too. A verdict on the original's
    graph does not: there they are what differs."""
    from trtcodemod.migrate.retrace import JUDGED_AFTER, RETRACED_GRAPH, UNROLLED

    path = "/zoo/upcunet_arch.py"
    guard = _constant(path, 751)
    crop = Problem("baked", path, 752, RETRACED_GRAPH, None, "differs first at a Mul node", "error", "torchscript")
    loop = Problem("baked", path, 760, UNROLLED, None, "`for i in range(n):` repeats", "error", "torchscript")
    lines = {(path, 751), (path, 752), (path, 760)}
    after = Retrace(lines, True, "the rewritten model's graph traced at x (batch) 1 and 3 is the same",
                    ops=JUDGED_AFTER)
    assert [p.severity for p in after.apply([guard, crop, loop])] == ["warning"] * 3
    original = Retrace(lines, True, "same graph at x (batch) 1 and 3")
    assert [p.severity for p in original.apply([guard, crop, loop])] == ["warning", "error", "error"]


def test_a_finding_kept_for_bakes_and_the_failure_they_caused_is_judged_on_the_rewritten_model() -> None:
    """Real-CUGAN x4 (upcunet_arch.py:1134-1147): the TRT101 finding of `if tile_mode == 0:` holds the
    crop's bakes and the original graph's failure at the residual add that followed the baked crop. The
    rewritten model's second trace is asked about them (the failure is answered by that model's graph
    being faithful, where this is asked); a finding with a hostile node is not."""
    from trtcodemod.findings import Safety
    from trtcodemod.migrate.plan import REMAINS, Decision, Plan
    from trtcodemod.migrate.retrace import RETRACED_GRAPH
    from trtcodemod.migrate.run import _bakes_as_written
    from trtcodemod.rules import Finding

    path = "/zoo/upcunet_arch.py"
    problems = [_constant(path, 1145), Problem("unfaithful", path, 1147, "(fails to run)", None, "fails", "error",
                                               "torchscript"),
                Problem("baked", path, 1146, RETRACED_GRAPH, None, "differs first at a Mul node", "error",
                        "torchscript")]
    branch = Finding("TRT101", "data-dependent-if", "no automatic fix", path, 1134, 8, 1200, 20, Safety.NONE)
    failing = Finding("TRT101", "data-dependent-if", "no automatic fix", path, 1300, 8, 1310, 20, Safety.NONE)
    hostile = Finding("TRT705", "nonzero", "no automatic fix", path, 1400, 4, 1400, 20, Safety.NONE)
    kept = Decision(branch, REMAINS, reason="value baked in at line 1145", problems=problems)
    only_failure = Decision(failing, REMAINS, reason="fails", problems=[problems[1]])
    node = Decision(hostile, REMAINS, reason="NonZero node", problems=[
        _constant(path, 1399), Problem("hostile", path, 1400, "NonZero", "TRT705", "NonZero", "error")])
    plan = Plan()
    plan.decisions = {d.key: d for d in (kept, only_failure, node)}
    assert _bakes_as_written(plan) == [kept]


def test_a_node_tensorrt_refuses_elsewhere_does_not_hide_the_unrolled_loop(tmp_path: Path) -> None:
    """An `If` of a squeeze on the dynamic batch is an error, but it says nothing about why ONNX Runtime's
    values differ at other sizes: the second trace is still made and names the loop (cjm-yolox's per-image
    NMS wrapper in zoo 28 kept its unrolled loop unnamed behind the head's squeezes)."""
    path = tmp_path / "net.py"
    path.write_text(SILENT_LOOP.replace("        state = x[:, 0]\n",
                                        "        x = x.squeeze(0)\n        state = x[:, 0]\n"))
    r = migrate(path, "--dynamic-axes", '{"x": {"0": "batch", "1": "frames"}}')
    assert r["exit_code"] == 1 and r["before"]["faithful"] is False
    assert r["before"]["trt_errors_by_op"] == {"If": 1}
    assert r["retrace"]["unrolled_loops"] == [f"{path.resolve()}:13"]
    # Named on the rewritten side (where a fix moved it, at its place in the rewritten file).
    loops = [e for e in r["remaining"] if e["op"] == "(unrolled loop)"]
    assert len(loops) == 1 and "`for t in range(x.shape[1])` repeats" in loops[0]["message"], r["remaining"]


def test_a_reverted_follow_up_of_a_rewritten_rounds_bake_is_no_error(tmp_path: Path) -> None:
    """Zoo 29's od_fcos_r18_heads: TRT712's candidate at `fh, fw = int(fh), int(fw)` (line 506 of a
    stride helper) kept the sizes as traced tensors, so the round's graph baked `max(sh, sw)` at line
    511 and the plan planned TRT712 there too; both were reverted (the export broke at `round(mid)`),
    and line 511's entry stayed an error although the original computes it on Python numbers."""
    from trtcodemod.migrate.run import _lines_of, only_in_reverted_rounds

    path = str(tmp_path / "utils.py")
    shown = _lines_of([_traced(path, 506)])  # the original's graph bakes `int(fh)` only
    assert only_in_reverted_rounds([_traced(path, 511)], shown)
    # A bake the original has at the line, or one of several, keeps the finding an error.
    assert not only_in_reverted_rounds([_traced(path, 506)], shown)
    assert not only_in_reverted_rounds([_traced(path, 511), _traced(path, 506)], shown)
    # Another kind of problem at the original's line is not the same problem.
    failure = Problem("export_failure", path, 506, "(export)", None, "fails", "error")
    assert only_in_reverted_rounds([failure], shown)
    # Nothing to go by (no problem, or one at no line): the entry keeps what it had.
    assert not only_in_reverted_rounds([], shown)
    assert not only_in_reverted_rounds([Problem("baked", None, None, "(x)", None, "m", "error")], shown)


def test_a_finding_left_names_the_carried_loop_once_and_keeps_the_rewritten_graphs_own_bake(tmp_path: Path) -> None:
    """A finding left without a fix names the original's loop and a bake: the loop carried to the rewritten side
    (at the user's line) is not listed again; the rewritten graph's own bake at the finding's line stays, with
    its severity (zoo 30's ty3_yolov3_tiny_nms: `grid_size != self.grid_size` at models.py:152, in a file TRT349
    rewrote, stays an error: the original's "same number at both sizes" covers no rewritten file)."""
    from types import SimpleNamespace

    from trtcodemod.migrate.plan import REMAINS
    from trtcodemod.migrate.run import _named_by_a_finding

    path = str(tmp_path / "net.py")
    rewrite = Rewritten({path: (b"import torch\nfor i in range(b):\n    y = v[m]\n",
                                b"import torch\ndef _helper():\n    pass\nfor i in range(b):\n    y = _helper(v, m)\n")})
    loop = Problem("baked", path, 2, "(unrolled loop)", None, "`for i in range(b)` repeats", "error", "torchscript")
    bake = _traced(path, 2)
    plan = SimpleNamespace(by_action=lambda action: [SimpleNamespace(problems=[loop, bake])] if action == REMAINS
                           else [])
    after = Problem("baked", path, 2, "(traced constant)", None, "the rewritten graph's", "error", "torchscript")
    assert _named_by_a_finding([loop, after], plan, rewrite) == [after]  # type: ignore[arg-type]
    # In a file the rewrite left as it was, nothing is carried: both stay.
    other = str(tmp_path / "kept.py")
    kept = Problem("baked", other, 2, "(unrolled loop)", None, "located", "error", "torchscript")
    assert _named_by_a_finding([kept], plan, rewrite) == [kept]  # type: ignore[arg-type]


# --- a value read that the graph does not use (hear21passt's AugmentMelSTFT, zoo 64) --------------------------------

#: A random augmentation read into Python, rebound outside training; a size comparison whose graph is the same at the
#: stretched sizes makes the second trace run. ``{use}``: the line that uses the number (or nothing).
AUGMENTED = '''import torch


class Front(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fmin = 2

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        fmin = self.fmin + torch.randint(3, (1,)).item()
{rebind}        if x.shape[1] == 3:
            x = x * 2.0
        return x[..., fmin:] - 1.0


def build() -> Front:
    return Front().eval()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(2, 3, 8, generator=g),)
'''
_REBIND = "        if not self.training:\n            fmin = self.fmin\n"


def test_a_random_read_the_graph_does_not_use_is_a_warning(tmp_path: Path) -> None:
    """(TRT702 left out: it would keep the number a tensor, which the slice takes.) The second trace runs with
    another seed: the number read at line 10 differs between the traces and the
    graph is the same, so the graph does not use it (it is rebound before the slice reads `fmin`)."""
    path = tmp_path / "front.py"
    path.write_text(AUGMENTED.format(rebind=_REBIND))
    r = migrate(path, "--dynamic-axes", AXES, "--ignore", "TRT713,TRT702")
    read = [e for e in r["remaining"] if e["source"] == f"{path.resolve()}:10"]
    assert read and all(e["severity"] == "warning" for e in read), read
    assert any("where the two traces read other numbers here: the graph does not use the value read" in e["message"]
               for e in read), read
    assert r["retrace"]["same"] is True and r["retrace"]["unused_reads"] == 1
    assert r["exit_code"] == 0


def test_a_random_read_the_graph_uses_stays_an_error(tmp_path: Path) -> None:
    """Without the rebinding the slice reads the random number: the graphs of the two traces differ (another
    slice), and the read stays an error."""
    path = tmp_path / "front.py"
    path.write_text(AUGMENTED.format(rebind=""))
    r = migrate(path, "--dynamic-axes", AXES, "--ignore", "TRT713,TRT702")
    errors = [e for e in r["remaining"] if e["source"] == f"{path.resolve()}:10" and e["severity"] == "error"]
    assert errors, r["remaining"]
    assert r.get("retrace", {}).get("unused_reads", 0) == 0
    assert r["exit_code"] == 1


def test_unused_reads_need_other_numbers_in_the_two_traces() -> None:
    from trtcodemod.migrate.retrace import TRACED, unused_reads

    def read(line: int, message: str = "Converting a tensor to a Python number might cause ...") -> Problem:
        return Problem("baked", "/m.py", line, TRACED, None, message, "error", "torchscript")

    problems = [read(1), read(2), read(3), read(4, "Converting a tensor to a Python boolean ..."), read(5), read(6)]
    first = {("/m.py", 1): [4], ("/m.py", 2): [7], ("/m.py", 3): [True], ("/m.py", 4): [1], ("/m.py", 5): [2]}
    second = {("/m.py", 1): [5], ("/m.py", 2): [7], ("/m.py", 3): [False], ("/m.py", 4): [2], ("/m.py", 6): [3]}
    # Other numbers: unused; the same numbers say nothing; bools say too little; a line a trace did not convert is
    # not known; a size-derived line is the verdict's own.
    assert unused_reads(problems, set(), first, second) == {("/m.py", 1), ("/m.py", 4)}
    assert unused_reads(problems, {("/m.py", 1)}, first, second) == {("/m.py", 4)}


# --- a value read of a static axis (pl_bolts' YOLO layer, zoo 77) ---------------------------------------------------

#: The anchors per cell as pl_bolts' `DetectionLayer` computes them, `int()` of a tensor made of the channel count
#: (a static axis); a size comparison makes the second trace run. ``{count}``: the axis the division reads.
STATIC_READ = '''import torch


class Head(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, features, height = x.shape
        per_cell = int(torch.div({count}, 3, rounding_mode="floor"))
        if x.shape[1] == 6:
            x = x * 2.0
        return x.reshape(batch, per_cell, 3, height)[:, :, :2] + 1.0


def build() -> Head:
    return Head().eval()


def inputs(g: torch.Generator) -> tuple[torch.Tensor]:
    return (torch.randn(2, 6, 8, generator=g),)
'''


def test_a_read_of_a_static_axis_with_the_same_numbers_in_both_traces_is_a_warning(tmp_path: Path) -> None:
    """`int(torch.div(features, 3))` reads a tensor into Python (an observed value read and a TracerWarning); the
    second trace, at other sizes and data, reads the same number and makes the same graph: a warning that says so,
    and migrate ends at exit 0 with nothing to fix."""
    path = tmp_path / "head.py"
    path.write_text(STATIC_READ.format(count="features"))
    r = migrate(path, "--dynamic-axes", AXES, "--ignore", "TRT702,TRT712,TRT713")
    read = [e for e in r["remaining"] if e["source"] == f"{path.resolve()}:7"]
    assert read and all(e["severity"] == "warning" for e in read), read
    assert any("read the same numbers here: the value follows neither the dynamic axes nor the data" in e["message"]
               for e in read), read
    assert r["retrace"]["same"] is True and r["retrace"]["same_reads"] == 1
    assert r["exit_code"] == 0


def test_a_read_of_a_dynamic_axis_stays_an_error(tmp_path: Path) -> None:
    """The same read of the dynamic axis: the second trace's graph differs (another reshape), so the read stays
    an error."""
    path = tmp_path / "head.py"
    path.write_text(STATIC_READ.format(count="height * 3 // 4").replace("3, height)", "-1, 4)"))
    r = migrate(path, "--dynamic-axes", AXES, "--ignore", "TRT702,TRT712,TRT713")
    errors = [e for e in r["remaining"] if e["source"] == f"{path.resolve()}:7" and e["severity"] == "error"]
    assert errors, r["remaining"]
    assert r["exit_code"] == 1


def test_same_reads_need_the_same_numbers_in_the_two_traces() -> None:
    from trtcodemod.migrate.retrace import TRACED, same_reads

    def read(line: int, message: str = "Converting a tensor to a Python integer might cause ...") -> Problem:
        return Problem("baked", "/m.py", line, TRACED, None, message, "error", "torchscript")

    problems = [read(1), read(2), read(3), read(5), read(6)]
    first = {("/m.py", 1): [4], ("/m.py", 2): [7], ("/m.py", 3): [True], ("/m.py", 5): [2]}
    second = {("/m.py", 1): [5], ("/m.py", 2): [7], ("/m.py", 3): [True], ("/m.py", 6): [3]}
    # The same numbers: taken; other numbers, bools, a line one trace did not convert: not; a size-derived line
    # is the verdict's own.
    assert same_reads(problems, set(), first, second) == {("/m.py", 2)}
    assert same_reads(problems, {("/m.py", 2)}, first, second) == set()
