"""Static TensorRT check: hand-built graphs (exact) and real torch exports (what users have)."""

from __future__ import annotations

import importlib.util
import io
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from trtcodemod.trt.check import RULES, TrtIssue, check_graph
from trtcodemod.trt.inspect import summarize_graph
from trtcodemod.trt.source_map import Frame, node_source, parse_doc_string, parse_stack_trace, pick_frame, record_sources

F = TensorProto.FLOAT


# -- helpers ---------------------------------------------------------------------
def make_model(nodes, inputs, outputs, initializers=(), opset=17, value_info=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers), value_info=list(value_info))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def vi(name: str, dtype: int = F, shape=None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name: str, values, dtype=np.int64) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def by_op(issues: list[TrtIssue], op: str) -> list[TrtIssue]:
    return [i for i in issues if i.op == op]


def line_of(marker: str) -> int:
    """Line number of the model line tagged ``# LINE: marker`` in this file."""
    for number, text in enumerate(Path(__file__).read_text().splitlines(), start=1):
        if text.rstrip().endswith(f"# LINE: {marker}"):
            return number
    raise AssertionError(marker)


# -- the support table through the checker ------------------------------------------
def test_gelu_unsupported_before_10() -> None:
    model = make_model([helper.make_node("Gelu", ["x"], ["y"], name="gelu")], [vi("x", F, [2])], [vi("y", F, [2])], opset=20)
    (issue,) = check_graph(model, "8.6")
    assert (issue.op, issue.node, issue.severity) == ("Gelu", "gelu", "error")
    assert "8.6" in issue.reason and "supported from TensorRT 10.0" in issue.reason
    assert check_graph(model, "10.0") == []
    assert check_graph(model, "10.x") == []


def test_nonzero_error_on_84_warning_on_86() -> None:
    nodes = [helper.make_node("NonZero", ["x"], ["idx"], name="nz")]
    model = make_model(nodes, [vi("x", F, [4])], [vi("idx", TensorProto.INT64, None)])
    (old,) = check_graph(model, "8.4")
    assert old.severity == "error" and "not supported by the TensorRT 8.4" in old.reason
    assert old.rule == "TRT103"  # not feeding a gather: one-argument torch.where
    (new,) = check_graph(model, "8.6")
    assert new.severity == "warning" and "depends on the data" in new.reason
    assert "not supported" not in new.reason


def test_nonzero_feeding_gather_is_mask_indexing() -> None:
    nodes = [
        helper.make_node("NonZero", ["m"], ["nz"], name="nz"),
        helper.make_node("Transpose", ["nz"], ["t"], perm=[1, 0]),
        helper.make_node("GatherND", ["x", "t"], ["y"]),
    ]
    model = make_model(nodes, [vi("x", F, [4]), vi("m", TensorProto.BOOL, [4])], [vi("y", F, None)])
    (issue,) = by_op(check_graph(model, "8.6"), "NonZero")
    assert issue.rule == "TRT201"


def test_nonzero_rows_picked_by_a_gather_are_one_argument_where() -> None:
    """`torch.where(c)[0]`: the positions are the Gather's data, not its indices (TRT103, as `check` says)."""
    nodes = [
        helper.make_node("NonZero", ["m"], ["nz"], name="nz"),
        helper.make_node("Constant", [], ["zero"], value=helper.make_tensor("zero", TensorProto.INT64, [], [0])),
        helper.make_node("Gather", ["nz", "zero"], ["rows"], axis=0),
    ]
    model = make_model(nodes, [vi("m", TensorProto.BOOL, [4])], [vi("rows", TensorProto.INT64, None)])
    (issue,) = by_op(check_graph(model, "8.6"), "NonZero")
    assert issue.rule == "TRT103"


def test_unknown_and_custom_domain_ops() -> None:
    nodes = [
        helper.make_node("FancyOp", ["x"], ["a"], name="fancy"),
        helper.make_node("MyPlugin", ["a"], ["y"], name="plug", domain="com.example"),
    ]
    graph = helper.make_graph(nodes, "g", [vi("x", F, [2])], [vi("y", F, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)])
    issues = check_graph(model, "10.x")
    assert [i.node for i in issues] == ["fancy", "plug"]
    assert "not in TensorRT's ONNX operator list" in issues[0].reason
    assert issues[1].op == "com.example::MyPlugin" and "plugin" in issues[1].reason


def test_aten_fallback_maps_to_rule() -> None:
    node = helper.make_node("ATen", ["x"], ["y"], name="pool", domain="org.pytorch.aten", operator="adaptive_avg_pool2d")
    graph = helper.make_graph([node], "g", [vi("x", F, [1, 3, 7, 7])], [vi("y", F, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("org.pytorch.aten", 1)])
    (issue,) = check_graph(model)
    assert issue.op == "ATen::adaptive_avg_pool2d" and issue.rule == "TRT601"


def test_rule_table_covers_the_brief() -> None:
    assert RULES["If"] == ("TRT101", "TRT401", "TRT407")  # tile's rank test is an If too
    assert RULES["Unique"][0] == "TRT302" and RULES["Pad"][0] == "TRT501"
    assert set(RULES["NonZero"]) == {"TRT201", "TRT103", "TRT801", "TRT202"} and RULES["Where"] == ("TRT102",)


# -- constructs the table cannot see -------------------------------------------------
def _if_model(then_shape, else_shape, same_name: bool = False) -> onnx.ModelProto:
    then_out = "x" if same_name else "t_out"
    then_nodes = [] if same_name else [helper.make_node("Identity", ["x"], ["t_out"])]
    then_g = helper.make_graph(then_nodes, "then", [], [vi(then_out, F, then_shape)])
    else_g = helper.make_graph([], "else", [], [vi("x", F, else_shape)]) if same_name else helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e_out"])], "else", [], [vi("e_out", F, else_shape)])
    node = helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)
    return make_model([node], [vi("c", TensorProto.BOOL, []), vi("x", F, [2, 3])], [vi("y", F, None)])


def test_if_with_branch_ranks_differing_is_error() -> None:
    (issue,) = check_graph(_if_model([2, 3], [2, 3, 1]))
    assert issue.severity == "error" and issue.rule == "TRT101"
    assert "rank 2 in the then-branch and 3 in the else-branch" in issue.reason


def test_if_same_rank_is_still_a_warning() -> None:
    (issue,) = check_graph(_if_model([2, 3], [2, 3]))
    assert issue.severity == "warning" and "data-dependent branch" in issue.reason


def test_if_branches_returning_same_name() -> None:
    (issue,) = check_graph(_if_model([2, 3], [2, 3], same_name=True))
    assert issue.severity == "error" and "same tensor 'x'" in issue.reason


def test_subgraphs_are_walked() -> None:
    inner = helper.make_graph([helper.make_node("Unique", ["x"], ["u"], name="inner_unique")], "then", [], [vi("u", F, None)])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else", [], [vi("e", F, None)])
    node = helper.make_node("If", ["c"], ["y"], name="if0", then_branch=inner, else_branch=other)
    model = make_model([node], [vi("c", TensorProto.BOOL, []), vi("x", F, [3])], [vi("y", F, None)])
    (unique,) = by_op(check_graph(model), "Unique")
    assert unique.node == "inner_unique" and unique.rule == "TRT302"


def _loop_model(trip_from_input: bool, scan_output: bool) -> onnx.ModelProto:
    body_out = [vi("cond_out", TensorProto.BOOL, []), vi("acc_out", F, [2])]
    body_nodes = [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Add", ["acc_in", "acc_in"], ["acc_out"])]
    if scan_output:
        body_nodes.append(helper.make_node("Identity", ["acc_out"], ["scan"]))
        body_out.append(vi("scan", F, [2]))
    body = helper.make_graph(body_nodes, "body",
                             [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []), vi("acc_in", F, [2])], body_out)
    outputs = ["acc"] + (["scans"] if scan_output else [])
    loop = helper.make_node("Loop", ["n", "keep", "x"], outputs, name="loop", body=body)
    inputs = [vi("x", F, [2]), vi("keep", TensorProto.BOOL, [])]
    inits = [const("keep_c", True, np.bool_)]
    if trip_from_input:
        inputs.append(vi("n", TensorProto.INT64, []))
    else:
        inits.append(const("n", 5))
    return make_model([loop], inputs, [vi(o, F, None) for o in outputs], inits)


def test_loop_trip_counts() -> None:
    assert check_graph(_loop_model(trip_from_input=False, scan_output=True)) == []
    (warn,) = check_graph(_loop_model(trip_from_input=True, scan_output=False))
    assert warn.severity == "warning" and "trip count is computed from data" in warn.reason
    (err,) = check_graph(_loop_model(trip_from_input=True, scan_output=True))
    assert err.severity == "error" and "scan output" in err.reason


def test_bad_dtypes_reported_where_they_enter() -> None:
    nodes = [
        helper.make_node("Cast", ["x"], ["xd"], name="to_double", to=TensorProto.DOUBLE),
        helper.make_node("Mul", ["xd", "xd"], ["sq"], name="mul"),  # float64 flows on: not reported again
        helper.make_node("Cast", ["sq"], ["y"], name="back", to=F),
        helper.make_node("Add", ["s", "s"], ["s2"], name="add16"),
    ]
    model = make_model(nodes, [vi("x", F, [2]), vi("s", TensorProto.INT16, [2])], [vi("y", F, [2]), vi("s2", TensorProto.INT16, [2])],
                       initializers=[const("w", [1.0], np.float64)])
    issues = check_graph(model)
    where = {(i.op, i.node) for i in issues}
    assert ("Cast", "to_double") in where
    assert ("graph-input", "s") in where and ("graph-output", "s2") in where
    assert not any(i.node == "mul" for i in issues)
    cast = next(i for i in issues if i.node == "to_double")
    assert "float64" in cast.reason and cast.severity == "error"
    assert cast.rule == "TRT701"  # the rule whose fix writes float32 (a follow-up in code a fix wrote)
    assert ("initializer", "w") not in where  # unused initializer: nothing reaches TensorRT


def test_uint8_input_is_a_warning() -> None:
    nodes = [helper.make_node("Cast", ["img"], ["f"], to=F, name="c")]
    (issue,) = check_graph(make_model(nodes, [vi("img", TensorProto.UINT8, [3])], [vi("f", F, [3])]))
    assert issue.op == "graph-input" and issue.severity == "warning" and "uint8" in issue.reason


def test_resize_cubic_and_antialias() -> None:
    nodes = [
        helper.make_node("Resize", ["x", "", "scales"], ["a"], name="cubic", mode="cubic"),
        helper.make_node("Resize", ["x", "", "scales"], ["b"], name="aa", mode="linear", antialias=1),
        helper.make_node("Resize", ["x", "", "scales"], ["c"], name="ok", mode="linear"),
        helper.make_node("Resize", ["x", "", "scales"], ["d"], name="cubic_aa", mode="cubic", antialias=1),
    ]
    model = make_model(nodes, [vi("x", F, [1, 1, 2, 2])], [vi(o, F, None) for o in "abcd"],
                       [const("scales", [1, 1, 2, 2], np.float32)], opset=18)
    issues = by_op(check_graph(model), "Resize")
    assert [i.node for i in issues] == ["cubic", "aa", "cubic_aa"]
    assert "'cubic'" in issues[0].reason and "antialias" in issues[1].reason
    # Cubic alone is TRT727's (bicubic weight matrices); antialiasing is TRT725's (antialiased weight matrices).
    assert [i.rule for i in issues] == ["TRT727", "TRT725", "TRT725"]


def test_pad_modes_by_version() -> None:
    nodes = [
        helper.make_node("Pad", ["x", "pads"], ["a"], name="reflect", mode="reflect"),
        helper.make_node("Pad", ["x", "pads", "val"], ["b"], name="nonzero"),
        helper.make_node("Pad", ["x", "pads"], ["c"], name="zero"),
    ]
    model = make_model(nodes, [vi("x", F, [2, 2])], [vi(o, F, None) for o in "abc"],
                       [const("pads", [1, 1, 1, 1]), const("val", 3.0, np.float32)])
    old = check_graph(model, "8.5")
    assert [(i.node, i.rule) for i in old] == [("reflect", "TRT502"), ("nonzero", "TRT502")]
    assert "3.0" in old[1].reason
    assert check_graph(model, "8.6") == []


def test_einsum_ellipsis_only_for_old_targets() -> None:
    node = helper.make_node("Einsum", ["a", "b"], ["y"], name="es", equation="...ij,...jk->...ik")
    model = make_model([node], [vi("a", F, [2, 2, 2]), vi("b", F, [2, 2, 2])], [vi("y", F, None)])
    (issue,) = check_graph(model, "8.6")
    assert issue.op == "Einsum" and "ellipsis" in issue.reason and "10.12" in issue.reason
    # onnx-tensorrt's changelog dates ellipsis/diagonal/broadcasting support at 10.12 (versions.FACTS)
    assert len(check_graph(model, "10.11")) == 1
    assert check_graph(model, "10.12") == [] and check_graph(model, "11.2") == []


def test_scatternd_reduction_and_topk_limit() -> None:
    nodes = [
        helper.make_node("ScatterND", ["x", "idx", "upd"], ["s"], name="scat", reduction="add"),
        helper.make_node("TopK", ["v", "k"], ["vals", "inds"], name="topk"),
        helper.make_node("TopK", ["v", "k_small"], ["v2", "i2"], name="topk_ok"),
    ]
    model = make_model(
        nodes,
        [vi("x", F, [4]), vi("idx", TensorProto.INT64, [1, 1]), vi("upd", F, [1]), vi("v", F, [5000])],
        [vi("s", F, [4]), vi("vals", F, None), vi("inds", TensorProto.INT64, None), vi("v2", F, None), vi("i2", TensorProto.INT64, None)],
        [const("k", [4000]), const("k_small", [10])], opset=18,
    )
    issues = check_graph(model, "10.x")
    assert [(i.op, i.node) for i in issues] == [("ScatterND", "scat"), ("TopK", "topk")]
    assert "'add'" in issues[0].reason and "4000" in issues[1].reason


def test_squeeze_axes_from_runtime_value() -> None:
    node = helper.make_node("Squeeze", ["x", "axes"], ["y"], name="sq")
    model = make_model([node], [vi("x", F, [1, 2]), vi("axes", TensorProto.INT64, [1])], [vi("y", F, None)])
    (issue,) = check_graph(model)
    assert issue.rule == "TRT401" and "axes" in issue.reason


@pytest.mark.parametrize("shape,opset,refused", [
    (["batch", 8, 1, 1], 17, True),  # a pooled map of a dynamic batch: TensorRT cannot tell which axes are 1
    ([None, 8, 1, 1], 17, True),  # an axis of unknown size is as dynamic
    ([2, 8, 1, 1], 17, False),  # all static: TensorRT squeezes the axes of size 1 it sees
    (["batch", 8, 1, 1], 11, True),  # opset 11: no `axes` attribute is the same Squeeze
])
def test_squeeze_without_axes_of_a_dynamic_shape(shape, opset, refused) -> None:
    """onnx-tensorrt's importSqueeze: "Cannot infer squeeze dimensions from a dynamic shape!" when no axes are given."""
    node = helper.make_node("Squeeze", ["x"], ["y"], name="sq")
    issues = check_graph(make_model([node], [vi("x", F, shape)], [vi("y", F, None)], opset=opset))
    assert [(i.op, i.rule) for i in issues] == ([("Squeeze", "TRT403")] if refused else [])
    with_axes = helper.make_node("Squeeze", ["x", "axes"], ["y"], name="sq") if opset >= 13 else \
        helper.make_node("Squeeze", ["x"], ["y"], name="sq", axes=[2, 3])
    model = make_model([with_axes], [vi("x", F, shape)], [vi("y", F, None)],
                       [const("axes", [2, 3])] if opset >= 13 else (), opset=opset)
    assert check_graph(model) == []


def test_sources_argument_fills_in_cleaned_graphs() -> None:
    node = helper.make_node("Unique", ["x"], ["y"], name="/Unique")
    model = make_model([node], [vi("x", F, [3])], [vi("y", F, None)])
    (issue,) = check_graph(model, sources={"/Unique": "model.py:12"})
    assert issue.source == "model.py:12"


def test_summarize_graph_shape() -> None:
    node = helper.make_node("Unique", ["x"], ["y"], name="u")
    summary = summarize_graph(make_model([node], [vi("x", F, [3])], [vi("y", F, None)]), "7.0")
    assert summary["nodes"] == 1 and summary["ops"] == {"Unique": 1} and summary["opset"] == 17
    assert summary["target"] == "7.0" and summary["checked_against"] == "8.4"
    assert summary["notes"] and "8.4" in summary["notes"][0]
    (issue,) = summary["trt_issues"]
    assert set(issue) == {"op", "node", "reason", "source", "rule", "severity"}


# -- source map ----------------------------------------------------------------------
def test_source_map_parsers_pick_innermost_user_frame() -> None:
    doc = (
        "/venv/lib/python3.11/site-packages/torch/nn/functional.py(5823): pad\n"
        "/home/me/model.py(15): forward\n"
        "/venv/lib/python3.11/site-packages/torch/nn/modules/module.py(1768): _slow_forward\n"
        "/home/me/run.py(3): <module>\n"
    )
    assert str(pick_frame(parse_doc_string(doc))) == "/home/me/model.py:15"
    trace = 'File "/home/me/run.py", line 3, in main\n    m(x)\nFile "/home/me/model.py", line 9, in forward\n    return x[m]'
    assert str(pick_frame(parse_stack_trace(trace))) == "/home/me/model.py:9"
    # model code installed as a package still beats torch internals
    frames = [Frame("/venv/lib/python3.11/site-packages/torch/functional.py", 1),
              Frame("/venv/lib/python3.11/site-packages/timm/layers/x.py", 7)]
    assert str(pick_frame(frames)) == "/venv/lib/python3.11/site-packages/timm/layers/x.py:7"
    assert pick_frame([Frame("<frozen runpy>", 1)]) is None


def test_nodes_of_scripted_functions_map_to_their_line() -> None:
    """`@torch.jit.script` code exports with TorchScript source ranges, not traced frames."""
    doc = ('  File "/home/me/heads.py", line 7\n@torch.jit.script\ndef pick(x):\n    if x.sum() > 0:\n'
           '       ~~~~~ <--- HERE\n        return x.squeeze(1)\n')
    assert str(pick_frame(parse_doc_string(doc))) == "/home/me/heads.py:7"


def test_scripted_function_in_a_real_export(tmp_path) -> None:
    import torch

    path = tmp_path / "scripted_head.py"
    path.write_text("import torch\n\n\n@torch.jit.script\ndef pick(x: torch.Tensor) -> torch.Tensor:\n"
                    "    if x.sum() > 0:\n        return x.squeeze(1)\n    return x[:, 0]\n")
    spec = importlib.util.spec_from_file_location("scripted_head", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    class Net(torch.nn.Module):
        def forward(self, x):
            return module.pick(x) * 2

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Net(), (torch.randn(2, 1, 3),), buffer, dynamo=False, verbose=True,
                          input_names=["x"], dynamic_axes={"x": {0: "b"}})
    (branch,) = [n for n in onnx.load_from_string(buffer.getvalue()).graph.node if n.op_type == "If"]
    assert node_source(branch) == f"{path}:6"


def test_dynamo_metadata_wins_over_doc_string() -> None:
    node = helper.make_node("Relu", ["x"], ["y"], name="r", doc_string="/a/old.py(1): forward")
    entry = node.metadata_props.add()
    entry.key, entry.value = "pkg.torch.onnx.stack_trace", 'File "/a/new.py", line 4, in forward\n    y = x.relu()'
    assert node_source(node) == "/a/new.py:4"


# -- real exports ----------------------------------------------------------------------
torch = pytest.importorskip("torch")
nn = torch.nn
Fn = torch.nn.functional


class SqueezeModel(nn.Module):
    def forward(self, x):
        y = x * 2
        return y.squeeze(1)  # LINE: squeeze


class UniqueModel(nn.Module):
    def forward(self, x):
        return torch.unique(x)  # LINE: unique


class PadModel(nn.Module):
    def forward(self, x):
        return Fn.pad(x, (1, 1))  # LINE: pad


class DoubleModel(nn.Module):
    def forward(self, x):
        return (x.double() * 2).float()  # LINE: double


class MaskModel(nn.Module):
    def forward(self, x):
        return x[x > 0]  # LINE: mask


def torchscript_export(model, x, dynamic_axes=None) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, verbose=True, input_names=["x"], output_names=["y"],
                          dynamic_axes=dynamic_axes, opset_version=17)
    return onnx.load_from_string(buffer.getvalue())


def test_export_squeeze_on_dynamic_axis() -> None:
    model = torchscript_export(SqueezeModel(), torch.randn(2, 1, 3), {"x": {0: "b", 1: "c"}})
    (issue,) = check_graph(model, "8.6")
    assert issue.op == "If" and issue.rule == "TRT401" and issue.severity == "error"
    assert "squeeze on a dynamic axis" in issue.reason and "rank 2" in issue.reason
    assert issue.source == f"{__file__}:{line_of('squeeze')}"


def test_export_unique_pad_double_mask() -> None:
    (unique,) = check_graph(torchscript_export(UniqueModel(), torch.tensor([1.0, 2.0, 2.0])), "10.x")
    assert (unique.op, unique.rule) == ("Unique", "TRT302")
    # the innermost frame is torch/functional.py; the user's line is the one reported
    assert unique.source == f"{__file__}:{line_of('unique')}"

    (pad,) = check_graph(torchscript_export(PadModel(), torch.randn(1, 2, 3)))
    assert (pad.op, pad.rule, pad.severity) == ("Pad", "TRT501", "warning")
    assert pad.source == f"{__file__}:{line_of('pad')}"

    issues = check_graph(torchscript_export(DoubleModel(), torch.randn(2)))
    cast = next(i for i in issues if i.op == "Cast")
    assert "float64" in cast.reason and cast.severity == "error"
    assert cast.source == f"{__file__}:{line_of('double')}"

    mask = torchscript_export(MaskModel(), torch.randn(4))
    (old,) = check_graph(mask, "8.4")
    assert (old.op, old.rule, old.severity) == ("NonZero", "TRT201", "error")
    (new,) = check_graph(mask, "8.6")
    assert new.severity == "warning"


def test_record_sources_survives_metadata_loss() -> None:
    model = torchscript_export(UniqueModel(), torch.tensor([1.0, 2.0, 2.0]))
    sources = record_sources(model)
    assert sources["/Unique"] == f"{__file__}:{line_of('unique')}"
    for node in model.graph.node:  # what a clean-up pass does to node metadata
        node.doc_string = ""
    assert check_graph(model)[0].source is None
    assert check_graph(model, sources=sources)[0].source == f"{__file__}:{line_of('unique')}"


def test_dynamo_export_sources() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(MaskModel(), (torch.randn(4),), dynamo=True, verbose=False)
    model = program.model_proto
    (issue,) = check_graph(model, "8.4")
    assert issue.op == "NonZero" and issue.source == f"{__file__}:{line_of('mask')}"
    assert set(record_sources(model).values()) == {f"{__file__}:{line_of('mask')}"}


def test_below_the_table_the_rules_version_facts_speak() -> None:
    # The table starts at 8.4; `check --target 8.0` reports TRT102/TRT304/TRT501, so must the graph check.
    cases = [
        ("Where", [helper.make_node("Where", ["c", "x", "x"], ["y"], name="w")],
         [vi("c", TensorProto.BOOL, [4]), vi("x", F, [4])], [4], "TRT102", "8.4"),
        ("Pad", [helper.make_node("Pad", ["x", "pads"], ["y"], name="p")],
         [vi("x", F, [4]), vi("pads", TensorProto.INT64, [2])], [6], "TRT501", "8.2"),
    ]
    for op, nodes, inputs, out_shape, rule, before in cases:
        model = make_model(nodes, inputs, [vi("y", F, out_shape)])
        old = [i for i in check_graph(model, "8.0") if i.op == op and i.severity == "error"]
        assert [(i.rule, i.severity) for i in old] == [(rule, "error")], op
        assert f"before {before}" in old[0].reason
        assert [i for i in check_graph(model, before) if i.op == op and i.severity == "error"] == [], op
        assert [i for i in check_graph(model, "8.6") if i.op == op and i.severity == "error"] == [], op


# -- TopK: sorted=0 and a K computed from sizes (issue 20) ----------------------------------
class CappedTopK(torch.nn.Module):
    def forward(self, x):
        return x.topk(min(5000, x.shape[1]), dim=1)  # LINE: capped-topk


class SmallCapTopK(torch.nn.Module):
    def forward(self, x):
        return x.topk(min(100, x.shape[1]), dim=1)


class SortAll(torch.nn.Module):
    def forward(self, x):
        return torch.sort(x, dim=1)  # LINE: sort-all


class UnsortedTopK(torch.nn.Module):
    def forward(self, x):
        return x.topk(10, dim=1, sorted=False)  # LINE: unsorted


def _dynamo_export(model, x, axes) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(model, (x,), dynamo=True, input_names=["x"], verbose=False,
                                    dynamic_shapes=({a: torch.export.Dim.AUTO for a in axes},))
    return program.model_proto


def _topk_issues(model: onnx.ModelProto) -> list[TrtIssue]:
    return by_op(check_graph(model, "10.x"), "TopK")


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_topk_k_from_sizes_that_can_reach_the_limit(dynamo: bool) -> None:
    x = torch.randn(2, 200)
    export = (lambda m, axes: _dynamo_export(m, x, axes)) if dynamo else \
        (lambda m, axes: torchscript_export(m, x, {"x": {a: f"d{a}" for a in axes}}))
    (capped,) = _topk_issues(export(CappedTopK(), [0, 1]))
    # dynamo keeps min(5000, n): K reaches 5000; TorchScript keeps the traced branch, K = n: any size.
    assert ("up to 5000" if dynamo else "any size") in capped.reason and "3840" in capped.reason
    assert capped.source == f"{__file__}:{line_of('capped-topk')}" and capped.severity == "warning"
    # A Min in the graph is TRT803's construct; the traced size alone names no rule (any finding at the line fixes it).
    assert capped.rule == ("TRT803" if dynamo else None)
    (whole,) = _topk_issues(export(SortAll(), [0, 1]))
    assert "any size" in whole.reason and whole.source == f"{__file__}:{line_of('sort-all')}"
    # Bounded below the limit: a small cap, or the axis declared static.
    assert _topk_issues(export(SmallCapTopK(), [0, 1])) == []
    assert _topk_issues(export(CappedTopK(), [0])) == []
    assert _topk_issues(export(SortAll(), [0])) == []


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_topk_sorted_zero_at_its_line(dynamo: bool) -> None:
    x = torch.randn(2, 50)
    model = _dynamo_export(UnsortedTopK(), x, [0]) if dynamo else torchscript_export(UnsortedTopK(), x)
    (issue,) = _topk_issues(model)
    assert issue.rule == "TRT805" and "TRT805" in RULES["TopK"]  # the rule that exports it sorted
    assert "sorted=0" in issue.reason and issue.source == f"{__file__}:{line_of('unsorted')}"


def test_topk_constant_k_over_the_limit_names_trt804() -> None:
    node = helper.make_node("TopK", ["v", "k"], ["vals", "inds"], name="topk")
    model = make_model([node], [vi("v", F, [2, 9000])], [vi("vals", F, None), vi("inds", TensorProto.INT64, None)],
                       [const("k", [5000])])
    (issue,) = check_graph(model, "10.x")
    assert issue.rule == "TRT804" and "TRT804" in RULES["TopK"]


def test_topk_bounds_through_shape_arithmetic() -> None:
    """Min(Shape[1] of a dynamic axis, 4000) reaches 4000; Div by 2 of a static 6000 reaches 3000."""
    nodes = [
        helper.make_node("Shape", ["v"], ["s"]),
        helper.make_node("Gather", ["s", "one"], ["n"], axis=0),
        helper.make_node("Min", ["n", "cap"], ["k"]),
        helper.make_node("TopK", ["v", "k"], ["a", "b"], name="dynamic"),
        helper.make_node("Shape", ["w"], ["ws"]),
        helper.make_node("Gather", ["ws", "one"], ["wn"], axis=0),
        helper.make_node("Div", ["wn", "two"], ["half"]),
        helper.make_node("TopK", ["w", "half"], ["c", "d"], name="static"),
    ]
    model = make_model(nodes, [vi("v", F, [2, "n"]), vi("w", F, [2, 6000])],
                       [vi(o, F, None) for o in ("a", "b", "c", "d")],
                       [const("one", [1]), const("cap", [4000]), const("two", [2])])
    (issue,) = check_graph(model, "10.x")
    assert issue.node == "dynamic" and "up to 4000" in issue.reason and issue.rule == "TRT803"


# -- version boundaries from versions.FACTS (issue 20) -----------------------------------------
def _runtime_input_model(op: str, index: int, **attrs) -> onnx.ModelProto:
    """``op`` whose input ``index`` is a graph input (computed at run time), the others constants."""
    data = vi("x", F, [2, 1, 3])
    inputs = {"Squeeze": ["x", "axes"], "Unsqueeze": ["x", "axes"], "CumSum": ["x", "axes"],
              "Slice": ["x", "starts", "ends", "axes"], "Pad": ["x", "pads", "", "axes"]}[op]
    consts = {"starts": [0], "ends": [1], "pads": [0, 1]}
    node = helper.make_node(op, inputs, ["y"], name=op.lower(), **attrs)
    runtime = inputs[index]
    initializers = [const(n, consts[n]) for n in inputs if n in consts and n != runtime]
    return make_model([node], [data, vi(runtime, TensorProto.INT64, [1])], [vi("y", F, None)], initializers,
                      opset=18)


@pytest.mark.parametrize("op,index,last_old,first_new", [
    ("Squeeze", 1, "10.6", "10.7"),
    ("Unsqueeze", 1, "10.6", "10.7"),
    ("CumSum", 1, "10.7", "10.8"),
    ("Slice", 3, "10.2", "10.3"),
    ("Pad", 3, "10.3", "10.4"),
])
def test_run_time_axes_boundaries(op: str, index: int, last_old: str, first_new: str) -> None:
    model = _runtime_input_model(op, index)
    for target in ("8.6", "10.0", last_old):
        issues = [i for i in check_graph(model, target) if i.op == op]
        assert len(issues) == 1, (target, issues)
        assert "run time" in issues[0].reason and f"from {first_new}" in issues[0].reason
    for target in (first_new, "10.x", "11.2"):
        assert [i for i in check_graph(model, target) if i.op == op] == [], target


def test_grid_sample_5d_from_11_2() -> None:
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], name="gs")
    model = make_model([node], [vi("x", F, [1, 2, 4, 4, 4]), vi("grid", F, [1, 3, 3, 3, 3])], [vi("y", F, None)],
                       opset=20)
    for target in ("8.6", "10.15", "11.1"):
        (issue,) = check_graph(model, target)
        assert "5-D" in issue.reason and "11.2" in issue.reason
    assert check_graph(model, "11.2") == [] and check_graph(model, "11.x") == []
    four = make_model([node], [vi("x", F, [1, 2, 4, 4]), vi("grid", F, [1, 3, 3, 2])], [vi("y", F, None)], opset=20)
    assert check_graph(four, "10.15") == []


def test_version_facts_carry_sources() -> None:
    from trtcodemod.versions import DTYPE_FACTS, FACTS

    assert [f.since for f in FACTS.values()] == sorted(f.since for f in FACTS.values())
    assert all("Changelog" in f.source or "release notes" in f.source for f in FACTS.values())
    assert "clamping" in DTYPE_FACTS["float64"] and "input or output" in DTYPE_FACTS["uint8"]


# -- CumSum's element types (TRT334) ------------------------------------------------------------
@pytest.mark.parametrize("dtype,name", [(TensorProto.INT64, "int64"), (TensorProto.INT32, "int32"),
                                        (TensorProto.BOOL, "bool"), (TensorProto.INT8, "int8")])
def test_an_integer_or_bool_cumsum_is_trt334(dtype: int, name: str) -> None:
    node = helper.make_node("CumSum", ["x", "axis"], ["y"], name="cumsum")
    model = make_model([node], [vi("x", dtype, [2, 5])], [vi("y", dtype, [2, 5])], [const("axis", 1)])
    issues = [i for i in check_graph(model, "10.x") if i.op == "CumSum"]
    assert [(i.rule, i.severity, i.node) for i in issues] == [("TRT334", "error", "cumsum")]
    assert f"CumSum of {name}" in issues[0].reason and "FP32/FP16/BF16 only" in issues[0].reason


@pytest.mark.parametrize("dtype", [TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.DOUBLE],
                         ids=["float32", "float16", "bfloat16", "float64"])
def test_a_float_cumsum_is_not_trt334(dtype: int) -> None:
    """TensorRT takes FP32/FP16/BF16; a float64 one is reported where the float64 enters (TRT701), not here."""
    node = helper.make_node("CumSum", ["x", "axis"], ["y"], name="cumsum")
    model = make_model([node], [vi("x", dtype, [2, 5])], [vi("y", dtype, [2, 5])], [const("axis", 1)])
    assert [i for i in check_graph(model, "10.x") if i.op == "CumSum"] == []


class PositionIds(nn.Module):
    def forward(self, x):
        mask = x.ne(1).int()
        positions = torch.cumsum(mask, dim=1).type_as(mask) * mask  # LINE: int cumsum
        running = x.float().cumsum(1)  # LINE: float cumsum
        return positions, running, (x > 2).cumsum(-1)  # LINE: bool cumsum


def test_exported_integer_cumsums_are_located_at_their_lines() -> None:
    model = torchscript_export(PositionIds(), torch.tensor([[1, 2, 3, 1]]), {"x": {0: "b", 1: "n"}})
    issues = [i for i in check_graph(model, "10.x") if i.op == "CumSum"]
    assert sorted((i.rule, i.source) for i in issues) == sorted(
        ("TRT334", f"{__file__}:{line_of(mark)}") for mark in ("int cumsum", "bool cumsum"))
